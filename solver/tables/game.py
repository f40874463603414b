"""Ataxx as a game of the tier solver (:mod:`solver.tiers.solver`), on the tables' index.

The tier solver knows nothing of Ataxx (GamesmanOne keeps its games apart from its
solvers, and both from its database); :class:`AtaxxGame` is the small interface it asks
for: tier = number of empty squares (a clone goes to the tier below, a jump or a pass
stays), positions numbered by :class:`solver.tables.index.DenseIndex`, moves and un-moves
from the compiled kernels (:mod:`solver.engine.dense`).
"""

from __future__ import annotations

import numpy as np

from solver import engine
from solver.game.board import Board
from solver.tables.index import DenseIndex, dense_index


class AtaxxGame:
    """Ataxx under the classic rules, for :class:`solver.tiers.solver.TierSolver`.

    Tier e holds the positions with e empty squares; tiers are solved from 0 (full
    boards) up. A game object pickles as its board, so a cluster can ship it."""

    def __init__(self, board: Board) -> None:
        self.board = board

    def __getstate__(self) -> dict[str, tuple[int, int, int]]:
        return {"board": (self.board.rows, self.board.cols, self.board.blocks)}

    def __setstate__(self, state: dict[str, tuple[int, int, int]]) -> None:
        self.board = Board(*state["board"])

    @property
    def index(self) -> DenseIndex:
        return dense_index(self.board)

    # REQUIRED
    def tiers(self) -> list[int]:
        return list(range(self.index.n + 1))

    def tier_size(self, tier: int) -> int:
        return self.index.tier_size(tier)

    def child_tiers(self, tier: int) -> list[int]:
        return [tier - 1] if tier > 0 else []

    def children(self, tier: int, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        T = self.index.tables
        return engine.dense.tier_children(tier, lo, hi, self.index.arrays, T.adj, T.jmp, T.reach, T.rules)

    # OPTIONAL
    def outside_children(self, tier: int, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                                     np.ndarray]:
        T = self.index.tables
        return engine.dense.tier_scan(tier, lo, hi, self.index.arrays, T.adj, T.jmp, T.reach, T.rules)

    def parents(self, tier: int, numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        T = self.index.tables
        return engine.dense.tier_parents(tier, np.asarray(numbers, np.int64), self.index.arrays, T.adj, T.jmp, T.reach, T.rules)

