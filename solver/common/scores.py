"""Composite scores: a value and its depth in one integer, as the search engine compares them.

A position's score for the mover is ``u * M - d`` when the mover wins by u > 0 in d
plies, ``u * M + d`` when it loses by -u, and 0 for a draw (``M = 2**20``). Maximising
it prefers the larger value, then the shorter win or the longer loss (SPEC section 4).
A child's score w becomes :func:`parent_score` ``(-w)`` for the parent (one ply further
from the end); :func:`widen` is its inverse on bounds, so null windows translate exactly.
A test "is the value at least k?" asks whether the score reaches
:func:`value_threshold` ``(k)``, the boundary between the values k - 1 and k.

The compiled search (:mod:`solver.engine.search`) uses these definitions as they are.
"""

from __future__ import annotations

M = 1 << 20              # one unit of value
HALF = M // 2            # the boundary between two values
INF_SCORE = 1 << 30      # beyond every score: "no bound"
CUT_SCORE = 65 * M       # a line cut by a horizon, scored beyond any real result (finite proofs)


def widen(x: int) -> int:
    """The bound on a child's negated score that corresponds to the parent's bound x."""
    if x > 0:
        return x + 1
    if x < 0:
        return x - 1
    return x


def parent_score(w: int) -> int:
    """The parent's score when a child's negated score is w (one ply further from the end)."""
    if w > 0:
        return w - 1
    if w < 0:
        return w + 1
    return w


def score_class(score: int) -> int:
    """The value u of a composite score ``u * M -+ depth``."""
    return (int(score) + HALF) // M


def value_threshold(k: int) -> int:
    """The score s of the test "is the value at least k?"."""
    return k * M - HALF


def score_of(value: int, depth: int) -> int:
    """The composite score of a value reached in ``depth`` plies (0 for a draw)."""
    if value > 0:
        return value * M - depth
    if value < 0:
        return value * M + depth
    return 0


def depth_of_score(score: int) -> int:
    """The depth of a composite score that is not a draw."""
    return abs(score - score_class(score) * M)
