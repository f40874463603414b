"""The tier solver's game interface (GamesmanOne's tier solver is the model).

A *game* splits its positions into tiers, numbers the positions of each tier 0 .. size - 1,
and says where moves go; :class:`solver.tiers.solver.TierSolver` fills, tier by tier, the exact
value (the mover's final margin, SPEC section 4) and depth of every position.

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
    :func:`solver.tiers.check.self_test` checks that the optional functions agree with ``children``.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

import numpy as np


class TierError(ValueError):
    """A tier's file, checkpoint or board that cannot be used (the message says which and why)."""

DEFAULT_CHUNK = 1 << 18   # numbers in a chunk of a tier (a task of the scan or the check)
Progress = Callable[[int, str, int, int], None]   # (tier, phase, done, total): 'scan', 'resolve', 'check'


class TierSolverError(RuntimeError):
    """The game or its results do not fit the solver (margins, depths, tiers)."""


class TierGame(Protocol):
    """The REQUIRED functions (the optional ones are looked up with ``hasattr``)."""

    def tiers(self) -> list[int]: ...

    def tier_size(self, tier: int) -> int: ...

    def child_tiers(self, tier: int) -> list[int]: ...

    def children(self, tier: int, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]: ...


def unmoves(game: Any, tier: int, numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The game's OPTIONAL ``parents`` (un-moves) of ``numbers`` in ``tier``."""
    start, parents = game.parents(tier, numbers)
    return start, parents


def outside_moves(game: Any, tier: int, lo: int,
                  hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The game's OPTIONAL ``outside_children`` of numbers lo .. hi - 1 of ``tier``."""
    final, inside, start, slot, child = game.outside_children(tier, lo, hi)
    return final, inside, start, slot, child
