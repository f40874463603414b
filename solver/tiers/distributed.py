"""The tier solver with a tier spread over the workers of a Dask cluster (the *routed* resolution).

:class:`RoutedTierSolver` is :class:`solver.tiers.solver.TierSolver` whose tiers are scanned and
resolved where they are kept: each worker *owns* a range of the tier's numbers and holds that
range's state (the codes and counters of :func:`solver.engine.tier_kernels.summarise`, the
overflow table, the events of its window of depths); the driver only coordinates.

What runs where, for one tier:

- *open* (on each owner): the game, the tier and the bounds of every owner's range; the state
  of its range, from then on kept in the worker's process (:data:`_OWNERS`, keyed by a token of
  the build of this tier and the owner's index) until *close*.
- *scan* (on each owner, its own range in chunks): the summary of each chunk against the child
  tier (scattered once to every worker), written into the owner's arrays; the driver adds up
  the largest margin and the counts.
- for each level k (largest margin first), *census* (on each owner): the finished games of
  margin k in its range (its first part of the front) and how many events it holds at each
  depth; only the counts go to the driver.
- each *step* of a level (a depth d, on each owner): the owner settles the events of its range
  at depth d (its own window of depths, loaded in slices when one depth holds more events than
  its share of :attr:`TierSolver.window_events`) and the parents in its range that the other
  owners' buckets name; the positions it settles (its part of the next front) stay with it; it
  asks the game for their un-moves and cuts them by owner
  (:func:`solver.engine.tier_route.route_parents`: each parent as a number of its owner's range,
  beside the code of the child it was reached from). Its own bucket stays with it; the others
  are its task's result, an argument of the other owners' next steps, so Dask moves them from
  worker to worker, never through the driver (with two owners the other's result is its one
  bucket; with more, a *take* task on the maker's worker takes out each receiver's bucket, so
  that only it travels). The owners tell the driver their counts (the positions each step
  settled, the census) as Dask events (``log_event``, :func:`tell`), so no result is fetched in
  the loop; from those and the census the driver says which depth comes next, a few steps
  ahead, since a step on an empty front and a depth without events changes nothing.
- *finish* (on each owner): positions never settled are draws by infinite play; the driver
  gathers each owner's codes, in order, to write the tier (the only time it holds the tier).

Why plain tasks pinned to a worker (``workers=[address]``) with the state in the worker's
process, and not Dask actors: a task's arguments that are futures are fetched by the worker
that runs it from the worker that holds them, so a bucket goes straight from one owner to
another; an actor's method is a call from the caller, whose arguments travel through the
caller (the driver here). The state is lost with its worker: the driver then stops with
:class:`solver.tiers.cluster.ClusterError` (a worker that left) or the owner's error, and a build
resumes at the first tier not written. Each worker thread owns one range (the first thread
of every worker first), so a worker with several threads resolves several ranges at once.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections import deque
from typing import Any, Callable

import numpy as np

from solver import engine
from solver.tiers.allocator import give_back_freed_memory
from solver.tiers.cluster import ClusterError, DaskExecutor
from solver.tiers.executors import scan_chunk
from solver.tiers.game import TierGame, TierSolverError, unmoves
from solver.tiers.solver import TierReport, TierSolver
from solver.tiers.store import TierStore

LOGGER = logging.getLogger(__name__)

# -- the owners (on the workers) -------------------------------------------------------------------

# (parents, as numbers of the receiving owner's range; the codes of the children they were reached from)
Bucket = tuple[np.ndarray, np.ndarray]


class Owner:
    """One owner's range ``lo .. hi - 1`` of a tier, in local numbers (``number - lo``): its codes
    and counters, its overflow table, its level's events by depth and its window of them, and
    the buckets its steps made that are not yet handed over (``out[(step, owner)]``)."""

    def __init__(self, game: TierGame, tier: int, me: int, bounds: np.ndarray, budget: int, unmove_part: int) -> None:
        self.game = game
        self.tier = tier
        self.me = me
        self.bounds = bounds
        self.lo, self.hi = int(bounds[me]), int(bounds[me + 1])
        size = self.hi - self.lo
        self.code = np.zeros(size, np.uint16)
        self.cnt = np.zeros(size, np.uint8)
        self.like = np.zeros(0, np.uint32 if size < 1 << 32 else np.int64)   # local numbers
        self.ov_parts: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.ov_pos: np.ndarray | None = None
        self.ov_cnt = np.zeros(0, np.int64)
        self.budget = budget
        self.unmove_part = unmove_part
        self.k = 0
        self.hist = np.zeros(0, np.int64)
        self.window: tuple[np.ndarray, np.ndarray] | None = None
        self.d0 = self.d1 = 0
        self.out: dict[tuple[int, int], Bucket] = {}

    def seal(self) -> None:
        """The overflow rows of the scanned chunks as one table, sorted by number."""
        if self.ov_pos is None:
            keys = sorted(self.ov_parts)
            self.ov_pos = np.concatenate([self.ov_parts[a][0] for a in keys] or [np.zeros(0, np.int64)])
            self.ov_cnt = np.concatenate([self.ov_parts[a][1] for a in keys] or [np.zeros(0, np.int64)])
            self.ov_parts = {}

    def route(self, seq: int, front: np.ndarray) -> list[Bucket | None]:
        """The un-moves of ``front`` (settled positions of this range) cut into one bucket per
        owner, asked of the game in parts of ``unmove_part`` positions: the owner's own bucket is
        kept as ``out[(seq, me)]``, the others returned (None in the owner's place)."""
        owners = self.bounds.shape[0] - 1
        pos: list[list[np.ndarray]] = [[] for _ in range(owners)]
        codes: list[list[np.ndarray]] = [[] for _ in range(owners)]
        for i in range(0, front.shape[0], self.unmove_part):
            part = front[i:i + self.unmove_part]
            pstart, parents = unmoves(self.game, self.tier, part.astype(np.int64) + self.lo)
            p, c, ostart = engine.tier_route.route_parents(part, self.code, pstart, parents, self.bounds, self.like)
            for j in range(owners):
                if ostart[j + 1] > ostart[j]:
                    pos[j].append(p[ostart[j]:ostart[j + 1]])
                    codes[j].append(c[ostart[j]:ostart[j + 1]])
        buckets = [(np.concatenate(pos[j]) if pos[j] else self.like,
                    np.concatenate(codes[j]) if codes[j] else np.zeros(0, np.uint16)) for j in range(owners)]
        self.out[(seq, self.me)] = buckets[self.me]
        return [None if j == self.me else b for j, b in enumerate(buckets)]

    def events(self, d: int, outs: list[np.ndarray]) -> tuple[np.ndarray, int]:
        """The events of this range at depth d (from the window of depths, loaded when d is past
        it), and how many were loaded now; a depth with more events than ``budget`` is settled
        here in slices of the range (into ``outs``) and gives none."""
        tk = engine.tier_kernels
        size = self.hi - self.lo
        if d >= self.d1 and self.hist[d] > self.budget:
            self.d1, self.window = d + 1, None
            split = -(-int(self.hist[d]) // self.budget)
            loaded = 0
            for j in range(split):
                ev, _ = tk.window_events(self.k, size * j // split, size * (j + 1) // split, d, d + 1,
                                         self.code, self.cnt, self.like)
                loaded = max(loaded, ev.shape[0])
                outs.append(self.apply(ev, d, self.like, np.zeros(0, np.uint16)))
            return self.like, loaded
        loaded = 0
        if d >= self.d1:
            d1, total = d + 1, int(self.hist[d])
            while d1 < tk.DEPTH_INF and total + self.hist[d1] <= self.budget:
                total += int(self.hist[d1])
                d1 += 1
            self.window = tk.window_events(self.k, 0, size, d, d1, self.code, self.cnt, self.like)
            self.d0, self.d1 = d, d1
            loaded = self.window[0].shape[0]
        if self.window is None or not self.d0 <= d < self.d1:
            return self.like, loaded
        ev, ds = self.window
        return ev[ds[d - self.d0]:ds[d - self.d0 + 1]], loaded

    def apply(self, events: np.ndarray, d: int, pos: np.ndarray, pcode: np.ndarray) -> np.ndarray:
        assert self.ov_pos is not None
        out: np.ndarray = engine.tier_route.apply_routed(events, d, pos, pcode, self.code, self.cnt, self.ov_pos,
                                                         self.ov_cnt)
        return out


_OWNERS: dict[tuple[str, int], Owner] = {}   # in a worker's process: the owners it holds, by (token, index)
_LOCK = threading.Lock()


def _owner(token: str, me: int) -> Owner:
    with _LOCK:
        owner = _OWNERS.get((token, me))
    if owner is None:
        raise TierSolverError(f"owner {me} of the tier being built is not on this worker (was the worker restarted?)")
    return owner


def owner_open(token: str, me: int, game: TierGame, tier: int, bounds: np.ndarray, budget: int,
               unmove_part: int) -> None:
    """Make owner ``me`` of ``tier`` (its range: ``bounds[me] .. bounds[me + 1] - 1``) here."""
    owner = Owner(game, tier, me, bounds, budget, unmove_part)
    with _LOCK:
        _OWNERS[(token, me)] = owner


def owner_scan(token: str, me: int, lo: int, hi: int, tables: list[np.ndarray], after: Any) -> tuple[int, int, int]:
    """Numbers lo .. hi - 1 of the owner's range summarised into its arrays (the tier solver's scan);
    returns (largest margin, finished games, positions)."""
    o = _owner(token, me)
    (c, k, op, oc, km, finals), _ = scan_chunk(o.game, o.tier, lo, hi, tables, True)
    a = lo - o.lo
    o.code[a:a + hi - lo] = c
    o.cnt[a:a + hi - lo] = k
    o.ov_parts[a] = (op + a, oc)
    return int(km), int(finals), int(np.count_nonzero(c))


def tell(token: str, msg: list[Any]) -> None:
    """Tell the driver ``msg`` (small: ints and lists of ints) without a result to fetch: an
    event of the topic of this tier's build, which the driver subscribes to."""
    from distributed import (
        get_worker,  # optional (the cluster extra): only ever run on a worker
    )
    get_worker().log_event(f"tierdist-{token}", msg)


def owner_census(token: str, me: int, k: int, seq: int, stale: int, after: Any) -> list[Bucket | None]:
    """Level k in the owner's range: its finished games of margin k (routed as step ``seq``) and
    its events by depth, told to the driver as [seq, me, games, depths, events at each]; drops
    its bucket of step ``stale`` (the last of the level before, which no step takes). Returns
    the buckets of the other owners."""
    o = _owner(token, me)
    o.seal()
    _drop(o, stale)
    terms, o.hist = engine.tier_kernels.level_census(k, 0, o.hi - o.lo, o.code, o.cnt, o.like)
    o.k, o.window, o.d0, o.d1 = k, None, 0, 0
    depths = np.flatnonzero(o.hist)
    tell(token, [seq, me, int(terms.shape[0]), depths.tolist(), o.hist[depths].tolist()])
    return o.route(seq, terms)


def owner_take(token: str, me: int, routed: list[Bucket | None], dest: int) -> Bucket | None:
    """Owner ``dest``'s bucket of a step of owner ``me`` (on ``me``'s worker, so that only that
    bucket travels to ``dest``)."""
    return routed[dest]


def owner_step(token: str, me: int, d: int, seq_in: int, seq: int, after: Any,
               incoming: list[Any]) -> list[Bucket | None]:
    """Depth d in the owner's range: its events at d, and the parents in it of the positions
    settled at d (its own bucket of step ``seq_in``, and ``incoming``: the other owners' buckets,
    or their steps' whole lists of buckets), settle at d + 1; their un-moves are routed as step
    ``seq``. Tells the driver [seq, me, positions settled, events loaded]; returns the buckets
    of the other owners."""
    o = _owner(token, me)
    outs: list[np.ndarray] = []
    events, loaded = o.events(d, outs)
    buckets = [o.out.pop((seq_in, me))] + [b[me] if isinstance(b, list) else b for b in incoming]
    outs.append(o.apply(events, d, *buckets[0]))
    for pos, pcode in buckets[1:]:
        if pos.shape[0]:
            outs.append(o.apply(o.like, d, pos, pcode))
    del buckets, incoming, events
    parts = [x for x in outs if x.shape[0]]
    front = (o.like if not parts else parts[0] if len(parts) == 1
             else engine.tier_kernels.merge_sorted(np.concatenate(parts)))
    del outs, parts
    tell(token, [seq, me, int(front.shape[0]), loaded])
    return o.route(seq, front)


def owner_finish(token: str, me: int, stale: int, after: Any) -> int:
    """Positions of the owner's range never settled become draws by infinite play; returns the
    largest finite depth."""
    o = _owner(token, me)
    o.seal()
    _drop(o, stale)
    return int(engine.tier_kernels.finish(0, o.hi - o.lo, o.code, o.cnt))


def owner_codes(token: str, me: int, after: Any) -> np.ndarray:
    """The owner's codes (its part of the tier written), its counters released."""
    o = _owner(token, me)
    o.cnt = np.zeros(0, np.uint8)
    return o.code


def owners_close(token: str) -> None:
    """Forget the owners of build ``token`` held in this process (their arrays are released)."""
    with _LOCK:
        for key in [key for key in _OWNERS if key[0] == token]:
            del _OWNERS[key]


def _drop(o: Owner, seq: int) -> None:
    for key in [key for key in o.out if key[0] == seq]:
        del o.out[key]


# -- the driver ------------------------------------------------------------------------------------

class RoutedTierSolver(TierSolver):
    """:class:`TierSolver` on a Dask cluster (``executor``, a :class:`solver.tiers.cluster.DaskExecutor`)
    with each tier kept, scanned and resolved on the workers, each owning a range of its numbers
    (see the module's text). The codes written are those of :class:`TierSolver`, byte for byte.

    ``owner_min``: the fewest numbers a range is given (a smaller tier has fewer owners);
    ``lookahead``: the steps of a level in flight before the driver waits for the counts of the
    oldest; ``poll``: seconds between checks that the owners' workers are still there. The other
    arguments are :class:`TierSolver`'s; a game without un-moves is resolved as there (in the
    driver)."""

    def __init__(self, game: TierGame, store: TierStore, executor: DaskExecutor, owner_min: int = 4096,
                 lookahead: int = 4, poll: float = 10.0, **options: Any) -> None:
        super().__init__(game, store, executor=executor, apply_threads=1, **options)
        self.client = executor.client
        self.owner_min = max(1, owner_min)
        self.lookahead = max(1, lookahead)
        self.poll = poll
        self._told: dict[int, list[list[Any]]] = {}   # what the owners told of each step (:func:`tell`)
        self._cond = threading.Condition()

    def _check_stop(self) -> None:
        """Stop (KeyboardInterrupt) when asked to: the tier under way is not checkpointed on a
        cluster; the next build starts it again (the tiers saved stay)."""
        if self.should_stop():
            raise KeyboardInterrupt

    def slots(self) -> list[str]:
        """A worker's address for each worker thread: the first thread of every worker, then the second..."""
        workers = self.workers_now()
        addresses = sorted(workers)
        most = max((workers[a] for a in addresses), default=0)
        return [a for r in range(most) for a in addresses if workers[a] > r]

    def workers_now(self) -> dict[str, int]:
        """The workers in the cluster now, and the threads of each, asked of the scheduler. (Not
        ``Client.scheduler_info()``: the client's periodic update, of totals only, can replace its
        answer before it is read, and the cluster then seemed to have no workers.)"""
        return {str(a): int(n) for a, n in self.client.nthreads().items()}

    def give_back_freed_memory(self) -> bool:
        """Every worker's allocator told to give freed memory back at once
        (:mod:`solver.tiers.allocator`: the workers hold the tier's ranges); True when all took it."""
        return all(self.client.run(give_back_freed_memory).values())

    def worker_cpu(self) -> float:
        """The CPU seconds of the workers' processes so far (summed)."""
        return float(sum(self.client.run(time.process_time).values()))

    def results(self, futures: list[Any], where: list[str]) -> list[Any]:
        """The results of ``futures`` (small ones), checking every :attr:`poll` seconds that the
        workers in ``where`` are still in the cluster."""
        out = []
        for f in futures:
            while True:
                try:
                    out.append(f.result(timeout=self.poll))
                    break
                except (TimeoutError, asyncio.TimeoutError):
                    gone = sorted(set(where) - set(self.workers_now()))
                    if gone:
                        raise ClusterError(f"worker {gone[0]} left the cluster while it held part of the tier: "
                                           f"the tier is lost (build again: the tiers written are kept)") from None
        return out

    def heard(self, seq: int, t: int, watch: list[Any], where: list[str]) -> list[list[Any]]:
        """What the ``t`` owners told of step ``seq`` (:func:`tell`), by owner; raises the error of
        a task in ``watch`` (the last asked for: an error passes to the tasks after it) and
        :class:`ClusterError` when a worker in ``where`` left."""
        last = time.monotonic()
        while True:
            with self._cond:
                got = self._told.get(seq, [])
                if len(got) < t:
                    self._cond.wait(0.5)
                    got = self._told.get(seq, [])
                if len(got) >= t:
                    del self._told[seq]
                    return sorted(got, key=lambda msg: int(msg[1]))
            for f in watch:
                if f.status in ("error", "cancelled", "lost"):
                    f.result()
                    raise ClusterError(f"a task of the tier was {f.status}")
            if time.monotonic() - last > self.poll:
                gone = sorted(set(where) - set(self.workers_now()))
                if gone:
                    raise ClusterError(f"worker {gone[0]} left the cluster while it held part of the tier: "
                                       f"the tier is lost (build again: the tiers written are kept)")
                last = time.monotonic()

    def _hear(self, event: tuple[float, list[Any]]) -> None:
        with self._cond:
            self._told.setdefault(int(event[1][0]), []).append(event[1])
            self._cond.notify_all()

    def solve_tier(self, tier: int) -> tuple[np.ndarray, TierReport]:
        """(codes, TierReport) of one tier solved on the cluster; its child tiers must be in the store."""
        if not self.use_unmoves:
            return super().solve_tier(tier)
        game = self.game
        n = game.tier_size(tier)
        slots = self.slots()
        if not slots:
            raise ClusterError("the cluster has no workers")
        t = max(1, min(len(slots), n // self.owner_min))
        bounds = np.array([i * n // t for i in range(t + 1)], np.int64)
        where = slots[:t]
        budget = self.window_events or max(n // 32, 1 << 20)
        token = uuid.uuid4().hex

        def submit(fn: Callable[..., Any], j: int, *args: Any) -> Any:
            return self.client.submit(fn, token, j, *args, workers=[where[j]], allow_other_workers=False, pure=False)

        cpu = self.worker_cpu()
        topic = f"tierdist-{token}"
        self.client.subscribe_topic(topic, self._hear)
        try:
            codes, rep = self._routed(tier, n, bounds, where, budget, submit)
        finally:
            self.client.unsubscribe_topic(topic)
            with self._cond:
                self._told.clear()
            # the futures the driver dropped are cancelled by Dask; the owners' arrays go now
            try:
                self.client.run(owners_close, token, workers=sorted(set(where)), on_error="ignore")
            except Exception:  # a worker gone, and its owners with it
                pass
        rep.worker_cpu_seconds = self.worker_cpu() - cpu
        LOGGER.info("tier %s: %d owners on %d workers, %.1f s of CPU on the workers", tier, len(where),
                    len(set(where)), rep.worker_cpu_seconds)
        return codes, rep

    def _routed(self, tier: int, n: int, bounds: np.ndarray, where: list[str], budget: int,
                submit: Callable[..., Any]) -> tuple[np.ndarray, TierReport]:
        tk = engine.tier_kernels
        game = self.game
        rep = TierReport(tier, n)
        t = len(where)
        shared = self.executor.share([self.store.load(c) for c in game.child_tiers(tier)])
        self.store.release()   # (the workers hold the child tiers now)
        opened = [submit(owner_open, j, game, tier, bounds, max(1, -(-budget * int(bounds[j + 1] - bounds[j]) // n)),
                         self.unmove_part) for j in range(t)]
        scans: list[list[Any]] = [[] for _ in range(t)]
        sizes = []
        for j in range(t):
            for lo in range(int(bounds[j]), int(bounds[j + 1]), self.chunk_size):
                hi = min(int(bounds[j + 1]), lo + self.chunk_size)
                scans[j].append(submit(owner_scan, j, lo, hi, shared, opened[j]))
                sizes.append((j, hi - lo))
        del shared, opened
        kmax = settled = done = 0
        for (j, size), res in zip(sizes, self.results([f for fs in scans for f in fs], where)):
            kmax = max(kmax, res[0])
            settled += res[1]
            rep.positions += res[2]
            done += size
            self.progress(tier, "scan", done, n)
            self._check_stop()
        if kmax > tk.MAX_VALUE:
            raise TierSolverError(f"tier {tier}: a margin of {kmax} does not fit the table (at most {tk.MAX_VALUE})")
        prev: list[Any] = list(scans)   # what each owner's next task comes after
        seq = 0        # the steps (a census is one), numbering the buckets
        for k in range(kmax, -1, -1):
            seq += 1
            prev = [submit(owner_census, j, k, seq, seq - 1, prev[j]) for j in range(t)]
            told = self.heard(seq, t, prev, where)
            hist = np.zeros(tk.DEPTH_INF + 1, np.int64)
            for msg in told:
                np.add.at(hist, np.array(msg[3], np.int64), np.array(msg[4], np.int64))
            # the positions settled by the step at each depth (-1: level k's finished games)
            counts = {-1: sum(int(msg[2]) for msg in told)}
            rep.max_front = max(rep.max_front, counts[-1])
            depths = np.flatnonzero(hist)

            def next_event(x: int) -> int | None:
                i = int(np.searchsorted(depths, x))
                return int(depths[i]) if i < depths.shape[0] else None

            pending: deque[tuple[int, int]] = deque()   # (depth, step) of the steps whose counts are awaited

            known = -1     # the last depth whose step's count is known (-1: level k's games)

            def collect() -> None:
                nonlocal settled, known
                known, step = pending.popleft()
                told = self.heard(step, t, prev, where)
                counts[known] = sum(int(msg[2]) for msg in told)
                settled += counts[known]
                rep.max_front = max(rep.max_front, counts[known])
                rep.max_window = max(rep.max_window, sum(int(msg[3]) for msg in told))
                self.progress(tier, "resolve", settled, rep.positions)
                self._check_stop()

            d: int | None = 0 if counts[-1] else next_event(0)
            while d is not None:
                e = next_event(known + 1)
                if counts[known] == 0 and (e is None or e >= d):
                    # the step before d settled nothing (nor did those since the last count known,
                    # whose fronts were empty and depths without events): at d, only its events
                    if not hist[d]:
                        d = next_event(d)
                        continue
                elif known < d - 1:
                    # the step before d may settle positions: d is asked for while the counts are
                    # awaited, a few steps ahead (a step with nothing to settle changes nothing)
                    if len(pending) >= self.lookahead or d + 1 > tk.MAX_DEPTH:
                        collect()
                        continue
                if d + 1 > tk.MAX_DEPTH:
                    raise TierSolverError(f"tier {tier}: a depth above {tk.MAX_DEPTH} does not fit the table")
                seq += 1
                steps = []
                for j in range(t):
                    # two owners: the other's step is passed whole (its one bucket); more: each
                    # bucket is taken out on its maker's worker, so that only it travels
                    incoming = [prev[i] if t == 2 else submit(owner_take, i, prev[i], j) for i in range(t) if i != j]
                    steps.append(submit(owner_step, j, d, seq - 1, seq, prev[j], incoming))
                prev = steps
                pending.append((d, seq))
                d += 1
            while pending:
                collect()
        finish = [submit(owner_finish, j, seq, prev[j]) for j in range(t)]
        rep.max_depth = max(self.results(finish, where))
        codes = np.empty(n, np.uint16)
        for j in range(t):
            codes[bounds[j]:bounds[j + 1]] = self.results([submit(owner_codes, j, finish[j])], where)[0]
        return codes, rep
