"""A tier solver for games scored by margins: tiers, chunks, cycle resolution, storage, scheduling.

It knows nothing of Ataxx (GamesmanOne's tier solver is the model). A *game* splits its
positions into tiers, numbers the positions of each tier 0 .. size - 1, and says where
moves go; the solver fills, tier by tier, the exact value (the mover's final margin,
SPEC section 4) and depth of every position, and hands each solved tier to a *store*.

The game's interface (:class:`TierGame`):

REQUIRED
    ``tiers()``            the tiers in solving order: every tier after the tiers its moves leave to.
    ``tier_size(t)``       how many numbers tier t has.
    ``child_tiers(t)``     the other tiers moves from t lead to (slot s >= 1 is ``child_tiers(t)[s - 1]``).
    ``children(t, lo, hi)`` moves of numbers lo .. hi - 1 as arrays ``(final, start, slot, child)``:
                           ``final[i]`` the mover's score if the game is over there, NOT_FINAL if
                           not, UNUSED if the number is no position; the children of i are
                           ``child[start[i]:start[i + 1]]`` in tier slot ``slot[...]`` (0: tier t).
OPTIONAL
    ``parents(t, numbers)`` un-moves: for each number, the numbers of tier t with a move to it,
                           each listed once per such move, as ``(start, parent)``. Without it
                           the solver keeps the reverse edges of the whole tier in memory
                           (small games only).
    ``outside_children(t, lo, hi)`` with ``parents``: ``(final, inside, start, slot, child)``,
                           the moves that leave the tier only and ``inside[i]`` the number of
                           moves that stay (the solver then never needs those children).
    :func:`self_test` checks that the optional functions agree with ``children``.

Each tier is solved in two steps. The *scan* cuts the tier into chunks (independent, so
they run on an executor: threads here, a cluster in :mod:`solver.cluster`); each
chunk's moves are summarised against the stored children in other tiers
(:func:`solver.engine.tier_kernels.summarise`). The *resolution* then settles the
positions level by level and depth by depth (:mod:`solver.engine.tier_kernels`
explains why that is exact); each depth's newly settled positions ask the game for
their parents, in chunks on the executor, and the driver applies the answers in order.

Storage (:class:`TierStore`): ``has(t)``, ``load(t)`` (uint16 codes), ``save(t, codes)``.
A solve skips the tiers the store already has, so an interrupted build resumes at the
first tier not saved.
"""

from __future__ import annotations

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from . import engine

LOGGER = logging.getLogger(__name__)

DEFAULT_CHUNK = 1 << 18


class TierSolverError(RuntimeError):
    """The game or its results do not fit the solver (margins, depths, tiers)."""


class TierGame(Protocol):
    def tiers(self) -> list[int]: ...

    def tier_size(self, tier: int) -> int: ...

    def child_tiers(self, tier: int) -> list[int]: ...

    def children(self, tier: int, lo: int, hi: int) -> tuple: ...


class TierStore(Protocol):
    def has(self, tier: int) -> bool: ...

    def load(self, tier: int) -> np.ndarray: ...

    def save(self, tier: int, codes: np.ndarray) -> None: ...


class MemoryStore:
    """Solved tiers kept in a dict (tests, the cluster's comparison, small games)."""

    def __init__(self):
        self.tiers: dict[int, np.ndarray] = {}

    def has(self, tier: int) -> bool:
        return tier in self.tiers

    def load(self, tier: int) -> np.ndarray:
        return self.tiers[tier]

    def save(self, tier: int, codes: np.ndarray) -> None:
        self.tiers[tier] = codes


class LocalExecutor:
    """Runs chunks in threads of this process (the kernels release the GIL)."""

    def __init__(self, workers: int = 1):
        self.workers = max(1, workers)
        self.pool = ThreadPoolExecutor(self.workers) if self.workers > 1 else None

    def share(self, obj):
        """Data every task reads (a tier of results): nothing to do in one process."""
        return obj

    def map(self, fn, jobs: list[tuple]):
        """``fn(*job)`` for each job, yielded in order, with a bounded number in flight."""
        if self.pool is None:
            for job in jobs:
                yield fn(*job)
            return
        window = 2 * self.workers
        pending = []
        for job in jobs:
            pending.append(self.pool.submit(fn, *job))
            if len(pending) >= window:
                yield pending.pop(0).result()
        for f in pending:
            yield f.result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


# -- the tasks (top-level functions, so that a cluster can ship them) ------------------------------

def child_codes(slot: np.ndarray, child: np.ndarray, tables: list) -> np.ndarray:
    """The stored code of each edge's child in another tier (0 for edges inside the tier)."""
    out = np.zeros(child.shape[0], np.uint16)
    for s, codes in enumerate(tables, start=1):
        engine.tier_kernels.gather_codes(slot, child, s, codes, out)
    return out


def scan_chunk(game, tier: int, lo: int, hi: int, tables: list, unmoves: bool):
    """Summary of numbers lo .. hi - 1 (see :func:`tier_kernels.summarise`); without un-moves,
    also the tier's internal edges (from the full lists of children)."""
    if unmoves and hasattr(game, "outside_children"):
        final, inside, start, slot, child = game.outside_children(tier, lo, hi)
    else:
        final, start, slot, child = game.children(tier, lo, hi)
        inside = engine.tier_kernels.count_inside(start, slot)
    summary = engine.tier_kernels.summarise(final, inside, start, slot, child_codes(slot, child, tables))
    edges = None if unmoves else engine.tier_kernels.internal_edges(lo, start, slot, child)
    return summary, edges


def parents_chunk(game, tier: int, numbers: np.ndarray):
    return game.parents(tier, numbers)


def check_chunk(game, tier: int, lo: int, hi: int, own: np.ndarray, tables: list):
    final, start, slot, child = game.children(tier, lo, hi)
    return engine.tier_kernels.check_chunk(lo, final, start, slot, child, own, child_codes(slot, child, tables))


# -- solving ---------------------------------------------------------------------------------------

@dataclass
class TierReport:
    tier: int
    size: int
    positions: int = 0       # numbers that are positions
    seconds: float = 0.0
    max_depth: int = 0
    cpu_seconds: float = 0.0


@dataclass
class SolveReport:
    tiers: list = field(default_factory=list)   # TierReport of each tier solved now
    skipped: list = field(default_factory=list)  # tiers already in the store

    @property
    def seconds(self) -> float:
        return sum(t.seconds for t in self.tiers)

    @property
    def positions(self) -> int:
        return sum(t.positions for t in self.tiers)


class TierSolver:
    """Solve a :class:`TierGame` into a :class:`TierStore`.

    ``executor``: where chunks run (:class:`LocalExecutor` by default);
    ``use_unmoves``: use the game's ``parents`` when it has one; ``progress(tier, phase,
    done, total)`` is called as work is done (phase 'scan' or 'resolve');
    ``should_stop()`` is polled between chunks: when it answers True the solve stops
    with KeyboardInterrupt after the last tier saved (the store keeps every finished tier)."""

    def __init__(self, game, store, executor=None, chunk_size: int = DEFAULT_CHUNK, use_unmoves: bool = True,
                 progress: Callable | None = None, should_stop: Callable | None = None,
                 distribute_above: int = 4096, apply_threads: int | None = None,
                 window_events: int | None = None, parallel_above: int = 2048):
        self.game = game
        self.store = store
        self.executor = executor or LocalExecutor()
        self.chunk_size = chunk_size
        self.use_unmoves = use_unmoves and hasattr(game, "parents")
        self.progress = progress or (lambda *a: None)
        self.should_stop = should_stop or (lambda: False)
        self.distribute_above = distribute_above  # smaller frontiers are not worth a round trip
        # the apply step: threads each owning a range of the tier's numbers (steps with at most
        # parallel_above positions run on this thread); the events of at most window_events
        # positions in memory at once (default: one for every 8 numbers of the tier, or 2**16)
        self.apply_threads = apply_threads or (self.executor.workers if isinstance(self.executor, LocalExecutor)
                                               else os.cpu_count() or 1)
        self.window_events = window_events
        self.parallel_above = parallel_above
        self._pool: ThreadPoolExecutor | None = None  # while solve runs

    def solve(self, tiers: list[int] | None = None) -> SolveReport:
        try:
            return self._solve(tiers)
        finally:
            if self._pool is not None:
                self._pool.shutdown()
                self._pool = None

    def _solve(self, tiers: list[int] | None) -> SolveReport:
        report = SolveReport()
        if self._pool is None and self.apply_threads > 1:
            self._pool = ThreadPoolExecutor(self.apply_threads)
        for t in tiers if tiers is not None else self.game.tiers():
            if self.store.has(t):
                report.skipped.append(t)
                continue
            start, cpu = time.perf_counter(), time.process_time()
            codes, rep = self.solve_tier(t)
            self.store.save(t, codes)
            rep.seconds = time.perf_counter() - start
            rep.cpu_seconds = time.process_time() - cpu
            report.tiers.append(rep)
            LOGGER.info("tier %s: %d numbers, %d positions, %.1f s (cpu %.1f s in this process), depth <= %d", t,
                        rep.size, rep.positions, rep.seconds, rep.cpu_seconds, rep.max_depth)
        return report

    def _chunks(self, size: int):
        return [(lo, min(size, lo + self.chunk_size)) for lo in range(0, size, self.chunk_size)]

    def _check_stop(self):
        if self.should_stop():
            raise KeyboardInterrupt

    def _owners(self, n: int) -> list[tuple[int, int]]:
        """The ranges of numbers each apply thread owns."""
        t = max(1, min(self.apply_threads, n // 4096 or 1))
        return [(i * n // t, (i + 1) * n // t) for i in range(t)]

    def _run(self, fn, jobs: list[tuple], parallel: bool) -> list:
        """``fn(*job)`` for each job, on the apply threads when ``parallel``."""
        if parallel and self._pool is not None and len(jobs) > 1:
            return list(self._pool.map(lambda job: fn(*job), jobs))
        return [fn(*job) for job in jobs]

    def solve_tier(self, tier: int):
        """(codes, TierReport) of one tier; its child tiers must be in the store.

        The working set is three bytes a number (:func:`tier_kernels.summarise`: the code, which
        holds a position's event until it is settled, and a one-byte counter, with an overflow
        table for counts above 254), besides the events of one window of depths (at most
        :attr:`window_events` numbers) and the fronts and un-moves of a step."""
        tk = engine.tier_kernels
        game = self.game
        n = game.tier_size(tier)
        rep = TierReport(tier, n)
        tables = [self.store.load(t) for t in game.child_tiers(tier)]
        shared = self.executor.share(tables)
        code = np.empty(n, np.uint16)
        cnt = np.empty(n, np.uint8)
        ov_pos_parts, ov_cnt_parts = [], []
        kmax = 0
        settled = 0
        want_edges = not self.use_unmoves
        kids, pars = [], []
        chunks = self._chunks(n)
        jobs = [(game, tier, lo, hi, shared, self.use_unmoves) for lo, hi in chunks]
        done = 0
        for (lo, hi), (summary, edges) in zip(chunks, self.executor.map(scan_chunk, jobs)):
            c, k, op, oc, km, finals = summary
            code[lo:hi], cnt[lo:hi] = c, k
            ov_pos_parts.append(op + lo)
            ov_cnt_parts.append(oc)
            kmax = max(kmax, int(km))
            settled += int(finals)
            if edges is not None:
                kids.append(edges[0])
                pars.append(edges[1])
            done += hi - lo
            self.progress(tier, "scan", done, n)
            self._check_stop()
        del tables, shared
        ov_pos = np.concatenate(ov_pos_parts) if ov_pos_parts else np.zeros(0, np.int64)
        ov_cnt = np.concatenate(ov_cnt_parts) if ov_cnt_parts else np.zeros(0, np.int64)
        del ov_pos_parts, ov_cnt_parts
        if kmax > tk.MAX_VALUE:
            raise TierSolverError(f"tier {tier}: a margin of {kmax} does not fit the table (at most {tk.MAX_VALUE})")
        rep.positions = int(np.count_nonzero(code))
        if want_edges:
            rstart, rows = tk.reverse_rows(n, np.concatenate(kids) if kids else np.zeros(0, np.int64),
                                           np.concatenate(pars) if pars else np.zeros(0, np.int64))
            del kids, pars

            def parents_of(front):
                return [tk.gather_rows(front, rstart, rows)]
        else:
            def parents_of(front):
                if front.shape[0] <= self.distribute_above:
                    return [game.parents(tier, front)]
                step = min(self.chunk_size, max(self.distribute_above,
                                                -(-front.shape[0] // getattr(self.executor, "workers", 1))))
                parts = [front[i:i + step] for i in range(0, front.shape[0], step)]
                return self.executor.map(parents_chunk, [(game, tier, p) for p in parts])  # a few in flight

        owners = self._owners(n)
        budget = self.window_events or max(n // 8, 1 << 16)
        no_events = np.zeros(0, np.int64)
        for k in range(kmax, -1, -1):
            census = self._run(tk.level_census, [(k, lo, hi, code, cnt) for lo, hi in owners], True)
            front = np.concatenate([terms for terms, _ in census])
            hist = np.sum([h for _, h in census], axis=0)
            depths = np.flatnonzero(hist)   # the depths with events (some may be settled before)
            p = 0
            d = 0
            d1 = 0                          # the window of depths whose events are loaded: .. d1 - 1
            window: list = []
            while front.shape[0] or p < depths.shape[0]:
                if front.shape[0] == 0:
                    d = max(d, int(depths[p]))
                while p < depths.shape[0] and depths[p] <= d:
                    p += 1
                if d + 1 > tk.MAX_DEPTH:
                    raise TierSolverError(f"tier {tier}: a depth above {tk.MAX_DEPTH} does not fit the table")
                if d >= d1:  # load the events of the next depths, at most window_events of them
                    d1, total = d + 1, int(hist[d])
                    while d1 < tk.DEPTH_INF and total + hist[d1] <= budget:
                        total += int(hist[d1])
                        d1 += 1
                    window = self._run(tk.window_events, [(k, lo, hi, d, d1, code, cnt) for lo, hi in owners], True)
                    d0 = d
                events = [ev[ds[d - d0]:ds[d - d0 + 1]] for ev, ds in window]
                big = front.shape[0] + sum(e.shape[0] for e in events) > self.parallel_above
                outs: list[list] = [[] for _ in owners]
                parts = parents_of(front) if front.shape[0] else [(np.zeros(1, np.int64), no_events)]
                offset = 0
                for pstart, parents in parts:
                    m = pstart.shape[0] - 1
                    part = front[offset:offset + m]
                    res = self._run(tk.apply_owned, [(lo, hi, events[t] if offset == 0 else no_events, d, part, pstart,
                                                      parents, code, cnt, ov_pos, ov_cnt)
                                                     for t, (lo, hi) in enumerate(owners)], big)
                    for t, r in enumerate(res):
                        outs[t].append(r)
                    offset += m
                if len(outs[0]) > 1:
                    merged = self._run(tk.merge_sorted, [(np.concatenate(o),) for o in outs], big)
                else:
                    merged = [o[0] for o in outs]
                front = np.concatenate(merged) if len(merged) > 1 else merged[0]
                settled += front.shape[0]
                d += 1
                self.progress(tier, "resolve", settled, rep.positions)
                self._check_stop()
        maxd = max(self._run(tk.finish, [(lo, hi, code, cnt) for lo, hi in owners], True))
        rep.max_depth = int(maxd)
        return code, rep


# -- checking --------------------------------------------------------------------------------------

@dataclass
class CheckReport:
    checked: int = 0
    failures: int = 0
    first: list = field(default_factory=list)  # (tier, number) of the first failure of each bad tier


def verify(game, store, executor=None, chunk_size: int = DEFAULT_CHUNK, tiers=None,
           progress: Callable | None = None) -> CheckReport:
    """Check every stored tier against the moves (:func:`tier_kernels.check_chunk`).

    Besides the local rule (each value is the best over the children's stored values), a
    decided position's depth must be 1 + its preferred child's depth: so along preferred
    moves the depth falls at every ply of the winner and cannot rise at the loser's, and
    every decided value is realised by a finite line, never by a cycle that scores 0."""
    executor = executor or LocalExecutor()
    progress = progress or (lambda *a: None)
    out = CheckReport()
    for t in tiers if tiers is not None else game.tiers():
        own = store.load(t)
        tables = [store.load(c) for c in game.child_tiers(t)]
        shared_own, shared = executor.share(own), executor.share(tables)
        n = game.tier_size(t)
        chunks = [(lo, min(n, lo + chunk_size)) for lo in range(0, n, chunk_size)]
        done = 0
        bad_first = -1
        for (lo, hi), (checked, bad, first) in zip(chunks, executor.map(
                check_chunk, [(game, t, lo, hi, shared_own, shared) for lo, hi in chunks])):
            out.checked += int(checked)
            out.failures += int(bad)
            if bad and bad_first < 0:
                bad_first = int(first)
            done += hi - lo
            progress(t, "check", done, n)
        if bad_first >= 0:
            out.first.append((t, bad_first))
    return out


def self_test(game, tier: int, numbers) -> list[str]:
    """The optional functions against ``children`` on some numbers of a tier: ``outside_children``
    gives the same finals, moves leaving the tier and count of moves staying; ``parents`` lists
    each parent of a number once per move it has to it, and nothing else. Returns the
    disagreements (empty when they agree)."""
    problems = []
    numbers = np.asarray(numbers, np.int64)
    has_outside = hasattr(game, "outside_children")
    pstart, parents = game.parents(tier, numbers)
    for i, x in enumerate(numbers):
        x = int(x)
        final, start, slot, child = game.children(tier, x, x + 1)
        if has_outside:
            f2, inside, s2, sl2, ch2 = game.outside_children(tier, x, x + 1)
            if (int(f2[0]) != int(final[0]) or int(inside[0]) != int(np.count_nonzero(slot == 0))
                    or sorted(zip(sl2.tolist(), ch2.tolist())) != sorted((a, b) for a, b in zip(
                        slot.tolist(), child.tolist()) if a != 0)):
                problems.append(f"tier {tier}: outside_children({x}) disagrees with children({x})")
        if final[0] == engine.tier_kernels.UNUSED:
            continue
        listed = parents[pstart[i]:pstart[i + 1]].tolist()
        for p in set(listed):
            f3, s3, sl3, ch3 = game.children(tier, p, p + 1)
            moves = int(np.count_nonzero((sl3 == 0) & (ch3 == x)))
            if moves != listed.count(p):
                problems.append(f"tier {tier}: {p} is listed {listed.count(p)} times as a parent of {x} "
                                f"but has {moves} moves to it")
        inside = child[slot == 0].tolist()
        for c in set(inside):
            ps, pp = game.parents(tier, np.array([c], np.int64))
            if pp.tolist().count(x) != inside.count(c):
                problems.append(f"tier {tier}: {x} has {inside.count(c)} moves to {c} but is listed "
                                f"{pp.tolist().count(x)} times among its parents")
    return problems
