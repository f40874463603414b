"""The retrograde engine's driver: every position reachable from the roots, solved exactly.

The compiled kernels (:mod:`solver.engine.retro`, whose docstring gives the
algorithm and why its values are exact) enumerate the reachable graph, order it
in tiers and solve it backwards; under a counter, :mod:`solver.engine.counters`
gives each board's answers at every counter value. :class:`RetroOracle` keeps one
growing solution and answers the oracle contract from it.
"""

from __future__ import annotations

import time

import numpy as np

from solver import engine
from solver.common.limits import (
    MemoryLimitError,
    StateLimitError,
    default_memory_budget,
    size_name,
)
from solver.game.bitboards import board_arrays, mover_bits
from solver.game.board import Board
from solver.game.rules import Position, Rules, Side
from solver.oracles.oracle import Oracle, Progress, ProgressCallback
from solver.oracles.side_options import OptionArrays, options_of


def _with_capacity(arr: np.ndarray, n: int, size: int) -> np.ndarray:
    """``arr`` if it holds ``size`` items, else a copy of its first ``n`` with room to grow."""
    if arr.shape[0] >= size:
        return arr
    out = np.empty(max(size, 2 * arr.shape[0]), arr.dtype)
    out[:n] = arr[:n]
    return out


class RetroOracle(Oracle):
    """Exact values by enumeration and retrograde solving (the oracle contract,
    :class:`solver.oracles.oracle.Oracle`, with the optional ``lookup_many`` and ``option_arrays``).

    ``prepare(roots)`` solves everything reachable from the roots; a lookup of a position
    not solved yet extends the solution from it (see the module docstring). ``both_sides``
    is not needed: the boards a board analysis asks about with the other side to move are
    solved when asked for. Under a rule set with a counter the positions solved are boards,
    each at every counter value (:mod:`.counters`).
    """

    name = "retro"

    def __init__(self, board: Board, rules: Rules, max_states: int | None = None, max_memory: int | None = None,
                 deadline: float | None = None, symmetry: bool = True, progress: ProgressCallback | None = None):
        super().__init__(deadline, progress)
        self.tables = board_arrays(board, rules, symmetry)
        self.max_states = max_states if max_states is not None else (1 << 31) - 2
        self.max_memory = max_memory if max_memory is not None else default_memory_budget()
        self.boards = rules.counter is not None
        self.limit = rules.limit if self.boards else 0
        self.unit = "boards (every counter value)" if self.boards else "positions"
        self.n = 0  # positions (boards) solved: indices 0 .. n - 1 of the arrays below
        self.table = engine.solved.new_table(1024)
        self.k1 = np.empty(1024, np.uint64)
        self.k2 = np.empty(1024, np.uint64)
        self.k3 = np.empty(1024, np.int32)
        # Answers as histories: position s has entries hstart[s] .. hstart[s + 1] - 1, each in
        # force from hk steps before the counter's limit on: value hv (mover's side), depth
        # ha + hb * steps. Classic rules: one entry per position (hk = hb = 0).
        self.hstart = np.zeros(1025, np.int64)
        self.hk = np.empty(1024, np.int16)
        self.hv = np.empty(1024, np.int8)
        self.ha = np.empty(1024, np.int32)
        self.hb = np.empty(1024, np.int8)
        self.nent = 0
        self.edges = 0
        self.solves = 0  # enumerations run (the first, then one per extension)
        self._t0 = time.monotonic()  # when the current solve started (for progress reports)

    @property
    def states(self) -> int:
        return self.n

    @property
    def entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.int64]:
        """The arrays a kernel needs to read answers: (hstart, hk, hv, ha, hb, limit)."""
        return self.hstart, self.hk, self.hv, self.ha, self.hb, np.int64(self.limit)

    @staticmethod
    def _bits(positions: list[Position]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        bits = [mover_bits(p) for p in positions]
        return (np.array([b[0] for b in bits], np.uint64), np.array([b[1] for b in bits], np.uint64),
                np.array([p.counter for p in positions], np.int64))

    def indices(self, qm: np.ndarray, qt: np.ndarray, solve: bool = True) -> np.ndarray:
        """Indices of positions given as arrays (mover's pieces, other pieces; the counter is not
        part of the key); with ``solve``, positions not solved yet are solved first (else their
        index is -1)."""
        idx = engine.solved.lookup(self.table, qm, qt, self.tables.canon)
        if solve:
            miss = idx < 0
            if miss.any():
                self._solve(qm[miss], qt[miss])
                idx = engine.solved.lookup(self.table, qm, qt, self.tables.canon)
        return idx

    def values(self, qm: np.ndarray, qt: np.ndarray, qc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(values for the mover, depths) of positions given as arrays; depth engine.solved.INF: infinite play."""
        idx = self.indices(qm, qt)
        hstart, hk, hv, ha, hb, limit = self.entries
        return engine.solved.values_at(idx, qc.astype(np.int64), hstart, hk, hv, ha, hb, limit)

    def prepare(self, roots: list[Position], both_sides: bool = False) -> None:
        if roots:
            self.indices(*self._bits(roots)[:2])

    def lookup(self, position: Position) -> tuple[int, float]:
        (out,) = self.lookup_many([position])
        return out

    def lookup_many(self, positions: list[Position]) -> list[tuple[int, float]]:
        """Values and depths of many positions at once (each must be solvable)."""
        value, depth = self.values(*self._bits(positions))
        return [(int(v), float("inf") if d >= engine.solved.INF else int(d)) for v, d in zip(value, depth)]

    def option_arrays(self, board: Position, side: Side, keep: int | None, limit: int) -> OptionArrays:
        """The options of ``side`` from ``board`` (SPEC section 5), read from the solved graph:
        see :func:`solver.oracles.side_options.options_of`."""
        return options_of(self, board, side, keep, limit)

    def _report(self, phase: str, done: int, total: int | None = None) -> None:
        if self.progress is not None:
            self.progress(Progress(phase, int(done), total, "positions", time.monotonic() - self._t0))

    def _solve(self, rm: np.ndarray, rt: np.ndarray) -> None:
        """Extend the solution with every board the roots reach (arrays of mover bits)."""
        T = self.tables
        self._t0 = time.monotonic()
        known = self.n
        run = engine.Run()
        roots_c = np.zeros(rm.shape[0], np.int64)  # boards: the counter is not part of the key
        budget = self.max_memory * engine.retro.BYTES_PER_STATE // (engine.retro.BYTES_PER_STATE + (engine.retro.HISTORY_BYTES if self.boards else 0))
        try:
            status, table, k1, k2, k3, n, final, start, child = run.call(
                engine.retro.enumerate_graph, rm, rt, roots_c, self.table, self.k1, self.k2, self.k3, known,
                T.playable, T.adj, T.jmp, T.reach, T.canon, T.rules, self.max_states,
                budget, run.progress, run.abort, deadline=self.deadline,
                on_tick=lambda pr: self._report("enumerating", pr[0]))
            found = int(run.progress[0])
            if status == engine.retro.TOO_MANY_STATES:
                raise StateLimitError(f"more than {self.max_states:,} {self.unit} are reachable", found)
            if status == engine.retro.OUT_OF_MEMORY:
                raise MemoryLimitError(f"the tables outgrew the memory budget of {size_name(self.max_memory)} "
                                       f"after {found:,} positions ({int(run.progress[1]):,} expanded)")
            if status == engine.retro.ABORTED:
                raise run.stopped(f"enumeration stopped after {found:,} positions")
            final, start, child, tier_start = run.call(engine.retro.order_by_tier, known, n, k1, k2, k3, final, start, child,
                                                       table, T.playable)
            hstart = _with_capacity(self.hstart, known + 1, n + 1)
            def tick(pr: np.ndarray) -> None:
                self._report("solving", pr[2], n - known)

            if self.boards:
                room = (self.max_memory - k1.shape[0] * engine.retro.BYTES_PER_STATE - table.nbytes) // engine.counters.ENTRY_BYTES
                status, hk, hv, ha, hb, nent = run.call(
                    engine.counters.solve_tiers, known, final, start, child, tier_start, k1, k2, T.playable, T.reach, T.rules,
                    hstart, self.hk, self.hv, self.ha, self.hb, self.nent, room, run.progress, run.abort,
                    deadline=self.deadline, on_tick=tick)
            else:  # one entry per position: entry s is position s
                hk, hv, ha, hb = (_with_capacity(a, known, n) for a in (self.hk, self.hv, self.ha, self.hb))
                status = run.call(engine.retro.solve_graph, known, final, start, child, tier_start, hv, ha, run.progress,
                                  run.abort, deadline=self.deadline, on_tick=tick)
                hk[known:n] = 0
                hb[known:n] = 0
                hstart[known + 1:n + 1] = np.arange(known + 1, n + 1)
                nent = n
            if status == engine.retro.ABORTED:
                raise run.stopped(f"solving stopped after {int(run.progress[2]):,} of {n - known:,} positions")
            if status == engine.retro.OUT_OF_MEMORY:
                raise MemoryLimitError(f"the answers per counter value outgrew the memory budget of "
                                       f"{size_name(self.max_memory)} after {int(run.progress[2]):,} of "
                                       f"{n - known:,} boards")
        except BaseException:
            # The table may hold keys of positions that were not solved: back to the solved ones.
            self.table = engine.solved.rebuild_table(self.k1, self.k2, self.k3, known, self.table.shape[0])
            raise
        self.table, self.k1, self.k2, self.k3 = table, k1, k2, k3
        self.hstart, self.hk, self.hv, self.ha, self.hb, self.nent = hstart, hk, hv, ha, hb, nent
        self.n = n
        self.edges += child.shape[0]
        self.solves += 1
