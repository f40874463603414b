"""A position's exact score, preferred move and line from any oracle's null-window tests, and the
depth of a draw from values alone.

An oracle that proves bounds (the search) answers "is the mover's composite score at least s?"
(:meth:`solver.oracles.oracle.Oracle.score_test`, :mod:`solver.common.scores`). From such tests:
:func:`exact_score` narrows a known value to its composite score (MTD(f)), :func:`keeps_score` and
:func:`keeps_value` ask whether a move keeps them, and :func:`analysis_by_tests` gives the depth,
the preferred move of SPEC section 4 and the principal variation. :func:`draw_depth` walks the
drawing children of a value-0 position for the longest finite line (infinite through a cycle).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from solver.common.limits import LimitError, StateLimitError
from solver.common.scores import HALF, M, parent_score, value_threshold, widen
from solver.game.rules import Move, Position
from solver.oracles.oracle import Oracle, mover_value

#
# An oracle that answers "can the mover force a composite score of at least s?" (the search
# engine) gives SPEC section 4's analysis without every move's value and depth: the depth is
# the score inside the value's band, the preferred move the first in notation order that
# reaches that score, the line the preferred moves followed.

OPTIMAL_BUDGET = 1 << 20  # nodes each move may take to show whether it keeps the value
# nodes each test of the depth may take: where jump wars can repeat, the longest loss is a long
# question (3 empty squares of a 7 x 7 board: 3 billion nodes); the value stays exact without it
DEPTH_BUDGET = 1 << 24


@dataclass(frozen=True)
class ExactLine:
    """The analysis of a position whose value is exact and not 0, by tests: the depth, the
    preferred move (SPEC section 4), the principal variation, the moves that keep the value and
    the ones that keep its depth too, ``tied_moves`` (each None when showing it for every move took
    more than its budget or a limit stopped it)."""

    depth: int
    best_move: Move
    line: list[Move]
    optimal_moves: list[Move] | None
    tied_moves: list[Move] | None = None


def exact_score(oracle: Oracle, p: Position, value: int, budget: int = 0) -> int:
    """The mover's composite score of p, whose value for the mover is ``value`` (not 0): the score
    inside the value's band, by tests from what is known, each moving to the bound its answer
    proves (MTD(f)). Raises LimitError."""
    result = p.result()
    if result is not None:
        return mover_value(p, result) * M
    lo, hi = (value * M - HALF + 1, value * M - 1) if value > 0 else (value * M + 1, value * M + HALF - 1)
    known_lo, known_hi = oracle.score_bounds(p)
    lo, hi = max(lo, min(known_lo, hi)), min(hi, max(known_hi, lo))
    s = lo + 1
    while lo < hi:
        holds, r = oracle.score_test(p, s, budget)
        if holds:
            lo = max(lo, min(r, hi))
            s = lo + 1
        else:
            hi = min(hi, max(r, lo))
            s = hi
        s = max(lo + 1, min(s, hi))
    return lo


def keeps_score(oracle: Oracle, p: Position, move: Move, score: int, budget: int = 0) -> bool:
    """Does ``move`` reach the mover's composite score ``score`` (an exact score of p, not 0)?"""
    c = p.push(move)
    result = c.result()
    if result is not None:
        return parent_score(-mover_value(c, result) * M) >= score
    # parent_score(-child) >= score  <=>  child <= -widen(score)  <=>  not (child >= -widen(score) + 1)
    return not oracle.score_test(c, -widen(score) + 1, budget)[0]


def keeps_value(oracle: Oracle, p: Position, move: Move, value: int, budget: int = 0) -> bool:
    """Does ``move`` keep the mover's value ``value``?"""
    c = p.push(move)
    result = c.result()
    if result is not None:
        return -mover_value(c, result) == value
    return not oracle.score_test(c, value_threshold(1 - value), budget)[0]


def preferred_by_tests(oracle: Oracle, p: Position, score: int, budget: int = 0) -> Move:
    """The preferred move (SPEC section 4) of a position of exact composite score ``score`` (not a
    draw): the first move in notation order that reaches it."""
    for m in p.legal_moves():
        if keeps_score(oracle, p, m, score, budget):
            return m
    raise AssertionError("no move reaches the position's exact score")


def line_by_tests(oracle: Oracle, p: Position, score: int, budget: int = 0) -> list[Move]:
    """The principal variation of a position of exact score ``score`` (not a draw): each preferred
    move leads to the child's exact score, one ply nearer the end."""
    moves = []
    while not p.is_over():
        m = preferred_by_tests(oracle, p, score, budget)
        moves.append(m)
        p = p.push(m)
        score = -widen(score)
    return moves


def analysis_by_tests(oracle: Oracle, p: Position, value: int) -> ExactLine:
    """The depth, preferred move and line of p, whose value for the mover is ``value`` (exact, not
    0), then, within a budget per move, the moves that keep the value. Raises LimitError (before
    the line is known; :class:`~solver.common.limits.BudgetError` when a test of the depth, the preferred
    move or the line goes past :data:`DEPTH_BUDGET` nodes)."""
    score = exact_score(oracle, p, value, DEPTH_BUDGET)
    best = preferred_by_tests(oracle, p, score, DEPTH_BUDGET)
    line = line_by_tests(oracle, p, score, DEPTH_BUDGET)
    optimal: list[Move] | None = []
    tied: list[Move] | None = None
    try:
        for m in p.legal_moves():
            if m == best or keeps_value(oracle, p, m, value, OPTIMAL_BUDGET):
                optimal.append(m)  # type: ignore[union-attr]
    except LimitError:
        optimal = None
    if optimal is not None:
        try:  # the optimal moves that reach the exact score: the same value and depth as the best
            tied = [m for m in optimal if m == best or keeps_score(oracle, p, m, score, OPTIMAL_BUDGET)]
        except LimitError:
            tied = None
    return ExactLine(abs(score - value * M), best, line, optimal, tied)


def draw_depth(oracle: Oracle, p: Position, memo: dict, limit: int) -> float:
    """Depth of a drawn position (value 0) from values alone: 1 + the longest drawing child,
    infinite through a cycle (a draw by infinite play); ``memo`` keeps what earlier walks found.
    Raises StateLimitError past ``limit`` positions walked."""
    on_path: set = set()
    walked = 0

    def drawing_children(q: Position) -> list[Position]:
        return [c for c in (q.push(m) for m in q.legal_moves()) if oracle.value(c) == 0]

    root_key = p.key()
    if root_key in memo:
        return float(memo[root_key])
    # iterative depth-first walk: frames of (key, children, next index, longest so far)
    stack: list[tuple] = [(root_key, drawing_children(p), 0, -1)]
    on_path.add(root_key)
    result = None
    while stack:
        key, children, i, longest = stack.pop()
        if result is not None:  # a child just finished
            longest = max(longest, result)
            result = None
            i += 1
        if longest == math.inf or i >= len(children):
            depth = math.inf if longest == math.inf else longest + 1
            memo[key] = depth
            on_path.discard(key)
            result = depth
            continue
        c = children[i]
        if c.is_over():
            stack.append((key, children, i + 1, max(longest, 0)))
            continue
        ck = c.key()
        if ck in on_path:
            stack.append((key, children, i + 1, math.inf))
            continue
        if ck in memo:
            stack.append((key, children, i + 1, max(longest, memo[ck])))
            continue
        walked += 1
        if walked > limit:
            raise StateLimitError(f"the length of this draw needs more than {limit:,} positions walked", walked)
        stack.append((key, children, i, longest))
        on_path.add(ck)
        stack.append((ck, drawing_children(c), 0, -1))
    return float(memo[root_key])
