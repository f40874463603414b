"""The tier solver's manager: solves a game (:mod:`solver.tiers.game`) tier by tier into a store
(:mod:`solver.tiers.store`), its chunks on an executor (:mod:`solver.tiers.executors`); the checks are
in :mod:`solver.tiers.check`. It knows nothing of Ataxx (GamesmanOne's tier solver is the model).

Each tier is solved in two steps. The *scan* cuts the tier into chunks (independent, so
they run on an executor: threads here, a cluster in :mod:`solver.tiers.cluster`); each
chunk's moves are summarised against the stored children in other tiers
(:func:`solver.engine.tier_kernels.summarise`), into three bytes a number. The
*resolution* then settles the positions level by level and depth by depth
(:mod:`solver.engine.tier_kernels` explains why that is exact); each depth's newly
settled positions ask the game for their parents, in chunks on the executor, and
threads each owning a range of the tier's numbers apply the answers at once
(:func:`solver.engine.tier_kernels.apply_owned`): each settles the parents in its range.

At each step boundary (a chunk of the scan, a depth of the resolution) the loop hands its state
to a :class:`solver.tiers.resume.StepCheckpointer`, which saves it every so often and when asked to
stop, so that a tier resumes where it stopped (:mod:`solver.tiers.resume`).
"""

from __future__ import annotations

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, cast

import numpy as np

from solver import engine
from solver.tiers.executors import Executor, LocalExecutor, parents_chunk, scan_chunk
from solver.tiers.game import (
    DEFAULT_CHUNK,
    Progress,
    TierGame,
    TierSolverError,
    unmoves,
)
from solver.tiers.resume import (
    Checkpoints,
    StepCheckpointer,
    TierInterrupted,
    TierState,
)
from solver.tiers.store import TierStore

LOGGER = logging.getLogger(__name__)
MIN_CHUNK = 1 << 14   # the least chunk of a scan (a small tier's chunks are cut down to it)
SMALL_TIER = 1 << 22  # a tier of at most this many numbers lists all its levels' events at once

# -- solving ---------------------------------------------------------------------------------------

@dataclass
class TierReport:
    tier: int
    size: int
    positions: int = 0       # numbers that are positions
    seconds: float = 0.0
    max_depth: int = 0
    cpu_seconds: float = 0.0
    max_front: int = 0       # the most positions settled in one step (4 bytes each, 8 above 2**32 numbers)
    max_window: int = 0      # the most events loaded at once (as many bytes each)
    resumed: str | None = None   # where the tier resumed from a checkpoint (TierState.describe), if it did
    worker_cpu_seconds: float = 0.0   # the CPU of a cluster's workers (:mod:`solver.tiers.distributed`)


@dataclass
class SolveReport:
    tiers: list[TierReport] = field(default_factory=list)   # each tier solved now
    skipped: list[int] = field(default_factory=list)         # tiers already in the store

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
    ``should_stop()`` is polled at each step boundary (a chunk of the scan, a depth of the
    resolution): when it answers True the solve stops with
    :class:`solver.tiers.resume.TierInterrupted` (a KeyboardInterrupt), the store keeping every
    finished tier and ``checkpoints`` (:class:`solver.tiers.resume.Checkpoints`), when given, the
    state of the tier under way, which is also saved there every ``checkpoint_seconds`` and
    resumed from by the next solve (a game without un-moves is not checkpointed: its reverse
    edges are not saved)."""

    def __init__(self, game: TierGame, store: TierStore, executor: Executor | None = None,
                 chunk_size: int = DEFAULT_CHUNK, use_unmoves: bool = True, progress: Progress | None = None,
                 should_stop: Callable[[], bool] | None = None, distribute_above: int = 4096,
                 apply_threads: int | None = None, window_events: int | None = None,
                 parallel_above: int = 2048, unmove_part: int = 1 << 15,
                 checkpoints: Checkpoints | None = None, checkpoint_seconds: float = 600.0) -> None:
        self.game = game
        self.store = store
        self.executor = executor or LocalExecutor()
        self.chunk_size = chunk_size
        self.use_unmoves = use_unmoves and hasattr(game, "parents")
        self.progress: Progress = progress or (lambda tier, phase, done, total: None)
        self.should_stop: Callable[[], bool] = should_stop or (lambda: False)
        self.distribute_above = distribute_above  # smaller frontiers are not worth a round trip
        # the apply step: threads each owning a range of the tier's numbers (steps with at most
        # parallel_above positions run on this thread); the events of at most window_events
        # positions in memory at once (default: one for every 32 numbers of the tier, or 2**20)
        self.apply_threads = apply_threads or (self.executor.workers if isinstance(self.executor, LocalExecutor)
                                               else os.cpu_count() or 1)
        self.window_events = window_events
        self.parallel_above = parallel_above
        self.unmove_part = unmove_part  # positions of a front whose un-moves are one task (a few in flight)
        self._pool: ThreadPoolExecutor | None = None  # while solve runs
        self.checkpoints = checkpoints
        self.checkpoint_seconds = checkpoint_seconds

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
                if self.checkpoints is not None:
                    self.checkpoints.discard(t)   # (left by a stop between the two)
                continue
            start, cpu = time.perf_counter(), time.process_time()
            try:
                codes, rep = self.solve_tier(t)
            except TierInterrupted as exc:
                exc.solved, exc.skipped = [r.tier for r in report.tiers], list(report.skipped)
                raise
            self.store.save(t, codes)
            if self.checkpoints is not None:
                self.checkpoints.discard(t)
            rep.seconds += time.perf_counter() - start     # (the time before a resume included)
            rep.cpu_seconds += time.process_time() - cpu
            report.tiers.append(rep)
            LOGGER.info("tier %s: %d numbers, %d positions, %.1f s (cpu %.1f s in this process), depth <= %d, "
                        "largest step %d positions", t, rep.size, rep.positions, rep.seconds, rep.cpu_seconds,
                        rep.max_depth, rep.max_front)
        return report

    def _chunks(self, size: int, start: int = 0) -> list[tuple[int, int]]:
        """The scan's chunks from ``start`` on: of chunk_size numbers, or, in a tier of fewer than
        four per worker, of a power-of-two fraction of it (at least MIN_CHUNK), so that every
        worker has work."""
        step = self.chunk_size
        while step >= 2 * MIN_CHUNK and size < 4 * self.executor.workers * step:
            step //= 2
        return [(lo, min(size, lo + step)) for lo in range(start, size, step)]

    def _owners(self, n: int) -> list[tuple[int, int]]:
        """The ranges of numbers each apply thread owns."""
        t = max(1, min(self.apply_threads, n // 4096 or 1))
        return [(i * n // t, (i + 1) * n // t) for i in range(t)]

    def _run(self, fn: Callable[..., Any], jobs: list[tuple[Any, ...]], parallel: bool) -> list[Any]:
        """``fn(*job)`` for each job, on the apply threads when ``parallel``."""
        if parallel and self._pool is not None and len(jobs) > 1:
            return list(self._pool.map(lambda job: fn(*job), jobs))
        return [fn(*job) for job in jobs]

    def _apply(self, owners: list[tuple[int, int]], events: list[np.ndarray] | None, d: int, front: np.ndarray,
               pstart: np.ndarray, parents: np.ndarray, code: np.ndarray, cnt: np.ndarray, ov_pos: np.ndarray,
               ov_cnt: np.ndarray, parallel: bool, ordered: bool) -> list[np.ndarray]:
        """One part of a step applied (:func:`tier_kernels.apply_owned`): each owner's settled
        positions. A small step is one call on this thread owning the whole tier (each owner reads
        every parent: one reading instead of one per owner); its positions are the first owner's
        (the next front is the owners' lists one after the other; with ``ordered``, each sorted)."""
        tk = engine.tier_kernels
        none = front[:0]
        if parallel or len(owners) == 1:
            return self._run(tk.apply_owned, [(lo, hi, events[t] if events is not None else none, d, front, pstart,
                                               parents, code, cnt, ov_pos, ov_cnt, ordered)
                                              for t, (lo, hi) in enumerate(owners)], parallel)
        ev = np.concatenate(events) if events is not None else none
        return [tk.apply_owned(owners[0][0], owners[-1][1], ev, d, front, pstart, parents, code, cnt, ov_pos, ov_cnt,
                               ordered), *([none] * (len(owners) - 1))]

    def _settle_events(self, owners: list[tuple[int, int]], events: list[np.ndarray], d: int, none: np.ndarray,
                       no_start: np.ndarray, code: np.ndarray, cnt: np.ndarray, ov_pos: np.ndarray,
                       ov_cnt: np.ndarray, outs: list[list[np.ndarray]], ordered: bool) -> None:
        """A step's events settled in slices of equal size on the apply threads (each slice
        within one owner's events, its settled positions added to that owner's list)."""
        tk = engine.tier_kernels
        total = sum(e.shape[0] for e in events)
        size = max(1, -(-total // max(1, self.apply_threads)))
        jobs, whose = [], []
        for t, ((lo, hi), ev) in enumerate(zip(owners, events)):
            for a in range(0, ev.shape[0], size):
                jobs.append((lo, hi, ev[a:a + size], d, none, no_start, none, code, cnt, ov_pos, ov_cnt, ordered))
                whose.append(t)
        for t, settled in zip(whose, self._run(tk.apply_owned, jobs, True)):
            outs[t].append(settled)

    def solve_tier(self, tier: int) -> tuple[np.ndarray, TierReport]:
        """(codes, TierReport) of one tier; its child tiers must be in the store.

        The working set is three bytes a number (:func:`tier_kernels.summarise`: the code, which
        holds a position's event until it is settled, and a one-byte counter, with an overflow
        table for counts above 254), besides the events of one window of depths (at most
        :attr:`window_events` numbers) and the fronts and un-moves of a step: events, fronts and
        settled positions take 4 bytes each in a tier of fewer than 2**32 numbers (8 above), and
        the un-moves (int64, the game's) are asked for in parts of at most :attr:`unmove_part`
        positions, a few in flight."""
        tk = engine.tier_kernels
        game = self.game
        n = game.tier_size(tier)
        rep = TierReport(tier, n)
        want_edges = not self.use_unmoves
        # the step boundaries: the state saved every so often and on a stop (resumed from when saved)
        steps = StepCheckpointer(tier, n, None if want_edges else self.checkpoints, self.checkpoint_seconds,
                                 self.should_stop)
        # fronts, events and settled positions as numbers of 4 bytes when the tier has fewer than 2**32
        idx = np.uint32 if n < 1 << 32 else np.int64
        was, steps.resumed = steps.resumed, None
        if was is None:
            code = np.empty(n, np.uint16)
            cnt = np.empty(n, np.uint8)
            ov_pos_parts, ov_cnt_parts = [], []
            kmax = settled = done = 0
        else:
            code, cnt, kmax, settled, done = was.code, was.cnt, was.kmax, was.settled, was.scanned
            ov_pos_parts, ov_cnt_parts = [was.ov_pos], [was.ov_cnt]
            rep.max_front, rep.max_window, rep.seconds, rep.cpu_seconds = (was.max_front, was.max_window,
                                                                           was.seconds, was.cpu_seconds)
            rep.resumed = was.describe()

        def scanned() -> TierState:
            return TierState(tier, n, done, code, cnt, np.concatenate(ov_pos_parts or [np.zeros(0, np.int64)]),
                             np.concatenate(ov_cnt_parts or [np.zeros(0, np.int64)]), kmax, settled,
                             max_front=rep.max_front, max_window=rep.max_window)

        kids, pars = [], []
        chunks = self._chunks(n, done)   # (after those scanned before a stop)
        tables = [self.store.load(t) for t in game.child_tiers(tier)] if chunks else []
        shared = self.executor.share(tables)
        jobs = [(game, tier, lo, hi, shared, self.use_unmoves) for lo, hi in chunks]
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
            steps.boundary(scanned)
        del tables, shared, jobs  # (the jobs held the child tiers too)
        self.store.release()      # (and the store: they are not read again)
        ov_pos = np.concatenate(ov_pos_parts) if ov_pos_parts else np.zeros(0, np.int64)
        ov_cnt = np.concatenate(ov_cnt_parts) if ov_cnt_parts else np.zeros(0, np.int64)
        ov_pos_parts, ov_cnt_parts = [], []   # (the parts freed; scanned() is not called again)
        if kmax > tk.MAX_VALUE:
            raise TierSolverError(f"tier {tier}: a margin of {kmax} does not fit the table (at most {tk.MAX_VALUE})")
        rep.positions = int(np.count_nonzero(code))
        if want_edges:
            rstart, rows = tk.reverse_rows(n, np.concatenate(kids) if kids else np.zeros(0, np.int64),
                                           np.concatenate(pars) if pars else np.zeros(0, np.int64))
            del kids, pars

            def parents_of(front: np.ndarray) -> Iterable[tuple[np.ndarray, np.ndarray]]:
                return [tk.gather_rows(front, rstart, rows)]
        else:
            def parents_of(front: np.ndarray) -> Iterable[tuple[np.ndarray, np.ndarray]]:
                # the game takes int64 numbers: each part is widened by its task (parents_chunk)
                if front.shape[0] <= self.distribute_above:
                    return [unmoves(game, tier, front.astype(np.int64))]
                step = min(self.chunk_size, self.unmove_part, max(self.distribute_above,
                                                                   -(-front.shape[0] // getattr(self.executor, "workers", 1))))
                jobs = ((game, tier, front[i:i + step]) for i in range(0, front.shape[0], step))
                return self.executor.map(parents_chunk, cast(Any, jobs))  # a few in flight

        # a resolution resumed: its level, depth, events per depth and front
        resumed = None if was is None or was.scanning else (was.level, was.depth, was.hist, was.front)
        was = None
        owners = self._owners(n)
        budget = self.window_events or max(n // 32, 1 << 20)
        no_events = np.zeros(0, idx)
        no_start = np.zeros(1, np.int64)

        def resolving() -> TierState:
            return TierState(tier, n, n, code, cnt, ov_pos, ov_cnt, kmax, settled, k, d, hist, front,
                             rep.positions, rep.max_front, rep.max_window)

        # a small tier: every level's finished games and events listed in one pass, not a census
        # and a window of the whole tier for each level (the same lists: at a level's start its
        # events are those of positions still unresolved)
        small = n <= SMALL_TIER
        listed = (self._run(tk.all_levels, [(lo, hi, code, cnt, no_events) for lo, hi in owners], True)
                  if self.window_events is None and small else None)
        # a large tier's fronts are sorted, so that a step reads their codes in order; a small
        # one's, in cache, are left in the order they settled (the codes are the same)
        ordered = not small
        for k in range(kmax if resumed is None else resumed[0], -1, -1):
            d1 = 0                          # the window of depths whose events are loaded: .. d1 - 1
            window: list = []
            if resumed is not None:   # resumed at depth d of this level
                assert resumed[2] is not None and resumed[3] is not None
                d, hist, front = resumed[1], resumed[2], resumed[3]
                resumed = None
            else:
                if listed is not None:
                    front = np.concatenate([terms[tstart[k]:tstart[k + 1]] for terms, tstart, _, _ in listed])
                    got = [tk.level_events(k, ev, estart, cnt) for _, _, ev, estart in listed]
                    window = [(ev, ds) for ev, ds, _ in got]
                    hist = np.sum([h for _, _, h in got], axis=0)
                    d0, d1 = 0, tk.DEPTH_INF
                    rep.max_window = max(rep.max_window, sum(ev.shape[0] for ev, _ in window))
                    del got
                else:
                    census = self._run(tk.level_census, [(k, lo, hi, code, cnt, no_events) for lo, hi in owners],
                                       True)
                    front = np.concatenate([terms for terms, _ in census])
                    hist = np.sum([h for _, h in census], axis=0)
                    del census
                rep.max_front = max(rep.max_front, front.shape[0])
                d = 0
                steps.boundary(resolving)
            depths = np.flatnonzero(hist)   # the depths with events (some may be settled before)
            p = int(np.searchsorted(depths, d))   # (the depths before d are done)
            while front.shape[0] or p < depths.shape[0]:
                if front.shape[0] == 0:
                    d = max(d, int(depths[p]))
                while p < depths.shape[0] and depths[p] <= d:
                    p += 1
                if d + 1 > tk.MAX_DEPTH:
                    raise TierSolverError(f"tier {tier}: a depth above {tk.MAX_DEPTH} does not fit the table")
                outs: list[list[np.ndarray]] = [[] for _ in owners]
                if d >= d1 and hist[d] > budget:
                    # one depth with more events than the window holds: they are loaded and applied
                    # in slices of each owner's range (the order of a step's settlements is free)
                    d1 = d + 1
                    window = []
                    split = -(-int(hist[d]) // budget)
                    for j in range(split):
                        cuts = [(lo + (hi - lo) * j // split, lo + (hi - lo) * (j + 1) // split) for lo, hi in owners]
                        got = self._run(tk.window_events, [(k, a, b, d, d + 1, code, cnt, no_events) for a, b in cuts], True)
                        rep.max_window = max(rep.max_window, sum(ev.shape[0] for ev, _ in got))
                        res = self._run(tk.apply_owned, [(lo, hi, ev, d, no_events, no_start, no_events, code, cnt,
                                                          ov_pos, ov_cnt, ordered)
                                                         for (lo, hi), (ev, _) in zip(owners, got)], True)
                        for t, r in enumerate(res):
                            outs[t].append(r)
                        del got, res
                elif d >= d1:  # load the events of the next depths, at most window_events of them
                    d1, total = d + 1, int(hist[d])
                    while d1 < tk.DEPTH_INF and total + hist[d1] <= budget:
                        total += int(hist[d1])
                        d1 += 1
                    window = self._run(tk.window_events, [(k, lo, hi, d, d1, code, cnt, no_events) for lo, hi in owners], True)
                    rep.max_window = max(rep.max_window, sum(ev.shape[0] for ev, _ in window))
                    d0 = d
                events = [ev[ds[d - d0]:ds[d - d0 + 1]] for ev, ds in window] if window else [no_events for _ in owners]
                big = front.shape[0] + sum(e.shape[0] for e in events) > self.parallel_above
                if big and sum(e.shape[0] for e in events) > self.parallel_above:
                    # the step's events first, shared out evenly over the threads (an event settles
                    # its own position only, so any split of an owner's events is safe; split by
                    # owner alone, a step whose events fall in one range ran on one thread, for
                    # 25 minutes on 5 x 5 tier 4), and before the un-moves of its front start
                    self._settle_events(owners, events, d, no_events, no_start, code, cnt, ov_pos, ov_cnt, outs,
                                        ordered)
                    events = [no_events for _ in owners]
                parts = parents_of(front) if front.shape[0] else [(no_start, no_events)]
                offset = 0
                for pstart, parents in parts:
                    m = pstart.shape[0] - 1
                    part = front[offset:offset + m]
                    res = self._apply(owners, events if offset == 0 else None, d, part, pstart, parents, code, cnt,
                                      ov_pos, ov_cnt, big, ordered)
                    for t, r in enumerate(res):
                        outs[t].append(r)
                    offset += m
                front = part = no_events  # (the step's front is no longer needed)
                del parts, pstart, parents, res
                # the next front: each owner's settled positions copied into it (freed as they
                # go), then, when they came in parts of a large tier, sorted within its owner's segment
                sizes = [sum(r.shape[0] for r in o) for o in outs]
                several = any(len(o) > 1 for o in outs)  # (owners may have come in different numbers of parts)
                front = np.empty(sum(sizes), idx)
                segs = []
                at = 0
                for t, o in enumerate(outs):
                    seg = front[at:at + sizes[t]]
                    if len(o) > 1:
                        np.concatenate(o, out=seg)
                    elif sizes[t]:
                        seg[:] = o[0]
                    outs[t] = []
                    segs.append((seg,))
                    at += sizes[t]
                if several and ordered:
                    self._run(tk.merge_sorted, segs, big)
                del segs
                settled += front.shape[0]
                rep.max_front = max(rep.max_front, front.shape[0])
                d += 1
                self.progress(tier, "resolve", settled, rep.positions)
                steps.boundary(resolving)
        maxd = max(self._run(tk.finish, [(lo, hi, code, cnt) for lo, hi in owners], True))
        rep.max_depth = int(maxd)
        return code, rep
