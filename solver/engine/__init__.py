"""The compiled kernels (numba), behind one facade that loads them when first used.

Every ``@njit`` function of the project lives in a module of this package, and
nothing else does: kernels take plain numpy arrays and integers and return the
same (positions as ``(mine, theirs, counter)`` bit sets, moves as integer codes:
:mod:`solver.game.bitboards`). The plain Python that drives them (the oracles, the
tablebases, perft's front end) sits beside, in :mod:`solver`, and reaches a
kernel module through this package as an attribute, ``engine.search.search_test``:

- ``kernels``: the rules on bitboards (moves, play, game over, symmetry, hashing);
- ``search``, ``dfpn``, ``ttable``, ``frames``: null-window tests by alpha-beta and by proof
  numbers, the transposition table they share and their explicit stack (:mod:`solver.oracles.search`);
  ``lastplies``: exact solvers of the last few empty squares and static scores, for those kernels to call;
- ``retro``, ``counters``, ``solved``, ``options``: the retrograde engine, its
  per-counter answers, its table and the options read from it (:mod:`solver.oracles.retro`);
- ``dense``, ``tier_kernels``: the tablebase index and the tier solver's steps; ``tier_route``:
  its steps when the owners of a tier's ranges are workers of a cluster; ``tbprobe``: the
  tablebases probed inside the search;
- ``perft``: move counting (:mod:`solver.game.perft`); ``bits``: popcount and friends;
- ``fenscan``: files of FEN lines read in bulk (:mod:`solver.io.fenlines`).

Importing this package loads nothing: a kernel module (and numba, about a second)
is imported on first access, so ``import solver.app.cli`` stays fast. :class:`Run`
calls a kernel in a worker thread (kept for the next call), abortable, with progress; the first use of a
kernel not yet in numba's on-disk cache is said out loud (a log message).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.metadata
import logging
import os
import queue
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import numpy as np

from solver.common.limits import TimeLimitError

KERNEL_MODULES = ("bits", "kernels", "frames", "ttable", "search", "dfpn", "lastplies", "retro", "counters", "solved",
                  "options", "dense", "tier_kernels", "tier_route", "tbprobe", "perft", "fenscan")


def __getattr__(name: str) -> ModuleType:
    """A kernel module, imported (and numba loaded) on first access; the first access of all
    calls the hook of :func:`on_first_use` first (the command compiles every kernel there)."""
    if name in KERNEL_MODULES:
        if not _cache_checked:
            drop_stale_kernels()
        hook = _first_use[:]
        if hook:
            _first_use.clear()
            hook[0]()
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_first_use: list[Callable[[], None]] = []


def on_first_use(hook: Callable[[], None] | None) -> None:
    """Call ``hook`` once, before the first kernel module is loaded in this process (None: no
    hook). The command sets :func:`solver.app.compile.ensure_compiled` here, so that its first use
    of any kernel compiles them all, together, with one notice."""
    _first_use[:] = [] if hook is None else [hook]


def _cache_dirs() -> list[Path]:
    """Where numba's cache of the kernels is: NUMBA_CACHE_DIR when set, else beside them (or, in a
    read-only install, the user's cache)."""
    return _marker_dirs()[:1] if os.environ.get("NUMBA_CACHE_DIR") else _marker_dirs()


def all_compiled() -> bool:
    """Whether every kernel of this version was compiled into the cache (:func:`record_all_compiled`)."""
    name = f"compiled-{_kernel_fingerprint()}-all"
    return any((d / name).exists() for d in _cache_dirs())


def record_all_compiled() -> None:
    """Remember that every kernel of this version is compiled (``ataxx-solve compile``)."""
    name = f"compiled-{_kernel_fingerprint()}-all"
    for d in _cache_dirs():
        try:
            d.mkdir(parents=True, exist_ok=True)
            (d / name).write_text("compiled\n")
            return
        except OSError:
            continue


def processors() -> int:
    """The processors this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def kernel_fingerprint() -> str:
    """This version of the kernels (numba's version, Python's and the kernel sources)."""
    return _kernel_fingerprint()


_cache_checked = False


def drop_stale_kernels(directory: Path | None = None) -> bool:
    """Delete numba's cached kernels in ``directory`` (this package's ``__pycache__``) when any kernel
    source changed since they were written; True when something was deleted.

    numba checks only the file that defines a kernel, so a kernel calling into another module (the
    search calls the rules of ``kernels``, the probe of ``tbprobe``) would run its old compiled code
    after that other module changed. The fingerprint of all the kernel sources, kept in the
    directory, tells. (A cache numba keeps elsewhere, NUMBA_CACHE_DIR or a user cache when this
    directory is not writable, is not checked.)"""
    global _cache_checked
    _cache_checked = True
    where = directory if directory is not None else _HERE / "__pycache__"
    stamp = where / "kernels.fingerprint"
    now = _kernel_fingerprint()
    try:
        if stamp.read_text().strip() == now:
            return False
    except OSError:
        pass
    dropped = False
    try:
        for path in list(where.glob("*.nbi")) + list(where.glob("*.nbc")):
            path.unlink(missing_ok=True)
            dropped = True
        where.mkdir(parents=True, exist_ok=True)
        stamp.write_text(now + "\n")
    except OSError:  # a read-only install: numba keeps its cache elsewhere
        pass
    return dropped


# -- running a kernel -----------------------------------------------------------------------------

LOGGER = logging.getLogger(__name__)
COMPILE_NOTICE = ("compiling the kernels this engine needs, once (up to a minute; later runs load them from the "
                  "cache; solver.compile_kernels() or 'ataxx-solve compile' compiles them all at once)")
STACK_BYTES = 512 << 20
_HERE = Path(__file__).resolve().parent
_notice_logged = False
_seen: set[str] = set()  # kernels this process has asked about
_announce_pending: list[str] = []


@functools.cache
def _kernel_fingerprint() -> str:
    """This version of the kernels: numba's version, Python's and the kernel sources."""
    h = hashlib.sha256(importlib.metadata.version("numba").encode() + sys.version.encode())
    for path in sorted(_HERE.glob("*.py")):
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _marker_dirs() -> list[Path]:
    dirs = [_HERE / "__pycache__"]
    if os.environ.get("NUMBA_CACHE_DIR"):
        dirs.insert(0, Path(os.environ["NUMBA_CACHE_DIR"]))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    dirs.append(Path(base) / "ataxx-solver")
    return dirs


def announce_compilation(kernel: str) -> None:
    """Log the compile notice (once per process) when ``kernel`` is not cached yet: a marker
    per kernel, since each engine compiles its own kernels the first time it is used."""
    global _notice_logged
    if kernel in _seen:
        return
    _seen.add(kernel)
    if all_compiled():
        return
    name = f"compiled-{_kernel_fingerprint()}-{kernel}"
    if any((d / name).exists() for d in _marker_dirs()):
        return
    if not _notice_logged:
        _notice_logged = True
        LOGGER.warning(COMPILE_NOTICE)
    _announce_pending.append(name)


def record_compilation() -> None:
    """After kernels ran, remember that they are compiled (first writable marker directory)."""
    while _announce_pending:
        name = _announce_pending.pop()
        for d in _marker_dirs():
            try:
                d.mkdir(parents=True, exist_ok=True)
                (d / name).write_text("compiled\n")
                break
            except OSError:
                continue


class _Worker(threading.Thread):
    """A thread that runs the functions given to it, one at a time; ``done`` is set when the last
    one has returned. (A daemon: a command that ends while a kernel runs does not wait for it.)"""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.todo: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.done = threading.Event()
        self.done.set()

    def give(self, fn: Callable[[], None]) -> None:
        self.done.clear()
        self.todo.put(fn)

    def run(self) -> None:
        while True:
            fn = self.todo.get()
            try:
                fn()
            finally:
                del fn  # (nothing of a finished call is kept: its search's tables are freed at once)
                self.done.set()


class _Workers:
    """The idle worker threads, kept for the next kernel call: a thread started for each call cost
    so much that a draw's depth walk (about 260,000 small tests, two threads each) spent 61 s of its
    160 s in the system, starting and ending them."""

    def __init__(self) -> None:
        self.idle: list[_Worker] = []
        self.lock = threading.Lock()

    def take(self) -> _Worker:
        with self.lock:
            if self.idle:
                return self.idle.pop()
        old = threading.stack_size()
        threading.stack_size(STACK_BYTES)
        try:
            worker = _Worker()
            worker.start()
        finally:
            threading.stack_size(old)
        return worker

    def put_back(self, worker: _Worker) -> None:
        with self.lock:
            self.idle.append(worker)

    def forget(self) -> None:
        """In a child process made by fork: the parent's threads are not there."""
        self.idle = []
        self.lock = threading.Lock()


_WORKERS = _Workers()
os.register_at_fork(after_in_child=_WORKERS.forget)


class Run:
    """One kernel call in a worker thread: ``abort`` and ``progress`` are shared int64 arrays.

    Kernels release the GIL; the main thread waits, hands the kernel's progress
    counters to a callback every 50 ms, and on Ctrl-C or a deadline sets
    ``abort[0]``, which the kernels poll, so that the work stops cleanly.
    """

    def __init__(self, progress_size: int = 4):
        self.abort = np.zeros(1, np.int64)
        self.progress = np.zeros(progress_size, np.int64)
        self.timed_out = False

    def call(self, fn: Callable[..., Any], *args: Any, deadline: float | None = None,
             on_tick: Callable[[np.ndarray], None] | None = None) -> Any:
        """Run ``fn(*args)`` and return its result. Past ``deadline`` (a time.monotonic() value)
        the kernel is asked to stop and ``timed_out`` is set; KeyboardInterrupt passes through
        once the kernel has stopped."""
        [result] = self.call_many([lambda: fn(*args)], deadline, on_tick, getattr(fn, "__name__", "kernel"))
        if isinstance(result, BaseException):
            raise result
        return result

    def call_many(self, fns: list[Callable[[], Any]], deadline: float | None = None,
                  on_tick: Callable[[np.ndarray], None] | None = None, kernel: str = "kernel") -> list[Any]:
        """Run each of ``fns`` (Python functions that call kernels, which release the GIL) in a
        worker thread of its own, all at once, sharing ``abort``; return their results in order,
        an exception a function raised standing in for its result. Past ``deadline``, or on
        Ctrl-C (which then passes through), ``abort[0]`` is set to 1 so that every kernel stops."""
        announce_compilation(kernel)
        box: list[Any] = [None] * len(fns)
        if deadline is not None and time.monotonic() > deadline:
            # past the deadline already: the kernels stop at their first poll (a call that would take
            # less than a tick would otherwise run to its end, and a caller that asks many such
            # questions, an MTD(f) loop, would go on long past its deadline)
            self.timed_out = True
            self.abort[0] = 1

        def target(k: int) -> None:
            try:
                box[k] = fns[k]()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                box[k] = exc

        workers = [_WORKERS.take() for _ in fns]
        for k, worker in enumerate(workers):
            worker.give(functools.partial(target, k))
        try:
            while not all(worker.done.is_set() for worker in workers):
                for worker in workers:
                    worker.done.wait(0.05 / len(workers))
                if on_tick is not None:
                    on_tick(self.progress)
                if deadline is not None and time.monotonic() > deadline and not self.timed_out:
                    self.timed_out = True
                    self.abort[0] = 1
        except KeyboardInterrupt:
            self.abort[0] = 1
            for worker in workers:
                worker.done.wait()
            raise
        finally:
            for worker in workers:
                if worker.done.is_set():
                    _WORKERS.put_back(worker)
        record_compilation()
        # a new list, and ``box`` emptied: an exception's traceback holds the frames of ``target``,
        # which hold ``box``; were the exception still in it, that cycle would keep the callers'
        # objects (a search and its tables) until the cycle collector happened to run
        results = list(box)
        box.clear()
        return results

    def stopped(self, what: str) -> BaseException:
        """The error for a kernel that answered ABORTED."""
        if self.timed_out:
            return TimeLimitError(f"{what}: out of time")
        return KeyboardInterrupt()
