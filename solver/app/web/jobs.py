"""The worker pool of the server: solves run off the event loop, identical requests share one job.

A :class:`Job` is one piece of work (a position's analysis, a board's summary, a game's
verification) with its budget (a deadline from the moment the first request for it arrived,
and a node budget), its live state (for the page's progress line) and a stop flag. The
:class:`Pool` runs jobs on a fixed number of worker threads (the solver's kernels release the
GIL while they search) and keeps a job in its registry while it runs, so that a second request
for the same thing waits for the same job instead of starting another. When no request waits
for a job any more (each went away, or pressed stop), the job is stopped: the kernels see it
at their next progress tick (every 50 ms) and what was proved so far is the answer.

Finished jobs whose answer is complete stay in a small memory (:class:`Memo`), so that the
answers asked for most often cost a dictionary look-up.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from solver.oracles.oracle import Progress


class Job:
    """One piece of work. The worker thread writes ``state`` (a new dict each time, bumping
    ``version``) and ``records``; the event loop reads them. ``stop()`` asks the work to end:
    :meth:`on_progress` (the solver's progress callback) then raises KeyboardInterrupt, which
    the solver turns into a clean stop with what it proved."""

    def __init__(self, key: Hashable, seconds: float, nodes: int | None):
        self.id = secrets.token_urlsafe(9)
        self.key = key
        self.created = time.monotonic()
        self.deadline = self.created + seconds
        self.nodes = nodes
        self.node_count: Callable[[], int] | None = None  # the job's own count of its nodes, if it has one
        self.stop_requested = False
        self.state: dict[str, Any] = {"phase": "queued"}
        self.version = 0
        self.records: list[dict] = []  # streamed results (verify: one record per move judged)
        self.watchers = 0
        self.future: asyncio.Future | None = None
        self.result: Any = None
        self.error: BaseException | None = None

    def update(self, **changes: Any) -> None:
        self.state = {**self.state, **changes}
        self.version += 1

    def add_record(self, record: dict) -> None:
        self.records.append(record)
        self.version += 1

    def stop(self) -> None:
        self.stop_requested = True

    def check_stop(self) -> None:
        if self.stop_requested:
            raise KeyboardInterrupt

    def seconds_left(self) -> float:
        return self.deadline - time.monotonic()

    def on_progress(self, ev: Progress) -> None:
        """The solver's progress callback (in the worker thread): the live state, then the stop flag."""
        # (the job's nodes, all its searches': an event counts one search's, from where it began)
        done = self.node_count() if ev.unit == "nodes" and self.node_count is not None else ev.done
        changes: dict[str, Any] = {"phase": ev.phase, "done": done, "total": ev.total, "unit": ev.unit,
                                   "elapsed": round(time.monotonic() - self.created, 3)}
        if ev.position is not None and ev.lower is not None and ev.upper is not None:
            changes.update(lower=ev.lower, upper=ev.upper, best=ev.best_move_name)
        self.update(**changes)
        self.check_stop()

    @property
    def done(self) -> bool:
        return self.future is not None and self.future.done()


class Memo:
    """The last ``size`` answers kept, by key (least recently used dropped first)."""

    def __init__(self, size: int = 4096):
        self.size = size
        self.items: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable) -> Any:
        value = self.items.get(key)
        if value is not None:
            self.items.move_to_end(key)
        return value

    def put(self, key: Hashable, value: Any) -> None:
        self.items[key] = value
        self.items.move_to_end(key)
        while len(self.items) > self.size:
            self.items.popitem(last=False)


class Pool:
    """``workers`` threads for jobs; the registry of running jobs (event loop side only)."""

    def __init__(self, workers: int):
        self.workers = workers
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ataxx-solve-worker")
        self.running: dict[Hashable, Job] = {}
        self.by_id: dict[str, Job] = {}
        self.started = 0   # jobs started (not shared)
        self.shared = 0    # requests that joined a running job

    def job(self, key: Hashable, work: Callable[[Job], Any], seconds: float, nodes: int | None) -> Job:
        """The running job for ``key``, or a new one that runs ``work(job)`` on a worker thread."""
        job = self.running.get(key)
        if job is not None and not job.done and not job.stop_requested:
            self.shared += 1
            return job
        job = Job(key, seconds, nodes)
        self.started += 1

        def run() -> Any:
            job.update(phase="starting")
            return work(job)

        job.future = asyncio.wrap_future(self.executor.submit(run))
        self.running[key] = job
        self.by_id[job.id] = job

        def finished(fut: asyncio.Future) -> None:
            if self.running.get(key) is job:
                del self.running[key]
            self.by_id.pop(job.id, None)
            if not fut.cancelled() and fut.exception() is not None:
                job.error = fut.exception()

        job.future.add_done_callback(finished)
        return job

    def watch(self, job: Job) -> None:
        job.watchers += 1

    def unwatch(self, job: Job) -> None:
        """One waiter fewer; a job nobody waits for is stopped (what it proved is still cached)."""
        job.watchers -= 1
        if job.watchers <= 0 and not job.done:
            job.stop()

    def stop_all(self) -> None:
        for job in list(self.running.values()):
            job.stop()

    def close(self) -> None:
        self.stop_all()
        self.executor.shutdown(wait=False, cancel_futures=True)

    def stats(self) -> dict:
        return {"workers": self.workers, "running": len(self.running), "started": self.started,
                "shared": self.shared}
