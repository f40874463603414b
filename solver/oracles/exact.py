"""A position's exact score, preferred move and line from any oracle's null-window tests, and the
depth of a draw from values or from tests.

An oracle that proves bounds (the search) answers "is the mover's composite score at least s?"
(:meth:`solver.oracles.oracle.Oracle.score_test`, :mod:`solver.common.scores`). From such tests:
:func:`exact_score` narrows a known value to its composite score (MTD(f)), :func:`keeps_score` and
:func:`keeps_value` ask whether a move keeps them, and :func:`analysis_by_tests` gives the depth,
the preferred move of SPEC section 4 and the principal variation. :func:`walk_draw` walks the
drawing children of a value-0 position for the longest finite line (infinite through a cycle):
:func:`draw_depth` knows them from every move's value, :func:`draw_analysis_by_tests` (the
search's path) from one test per move, and gives the draw's preferred move and line too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from solver.common.limits import BudgetError, LimitError
from solver.common.scores import HALF, M, parent_score, value_threshold, widen
from solver.game.rules import Move, Position, move_order_key
from solver.oracles.oracle import Oracle, mover_value

#
# An oracle that answers "can the mover force a composite score of at least s?" (the search
# engine) gives SPEC section 4's analysis without every move's value and depth: the depth is
# the score inside the value's band, the preferred move the first in notation order that
# reaches that score, the line the preferred moves followed.

OPTIMAL_BUDGET = 1 << 20  # nodes each move may take to show whether it keeps the value
# nodes each test of the depth may take when the caller set no limit of its own (a time or node
# limit replaces it): where jump wars can repeat, the longest loss is a long question (3 empty
# squares of a 7 x 7 board: 3 billion nodes); the value stays exact without it
DEPTH_BUDGET = 1 << 24
# nodes the depth of a draw may take (likewise): every position of the longest drawing line and
# its moves' tests (a draw kept by jump wars may have millions of such positions)
DRAW_BUDGET = 1 << 26
DRAW_WALK_LIMIT = 200_000  # positions the walk of a draw's depth may visit


class WalkLimitError(BudgetError):
    """The walk of a draw's depth went past the positions it may visit (the value stays exact)."""


@dataclass(frozen=True)
class ExactLine:
    """The analysis of a position whose value is exact, by tests: the depth (None: a draw by
    infinite play), the preferred move (SPEC section 4), the principal variation, the moves that
    keep the value and the ones that keep its depth too, ``tied_moves`` (each None when showing it
    for every move took more than its budget or a limit stopped it)."""

    depth: int | None
    best_move: Move
    line: list[Move]
    optimal_moves: list[Move] | None
    tied_moves: list[Move] | None = None
    repeated: bool = False  # (a draw by infinite play: the line stops at its first repeated position)


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


def optimal_by_tests(oracle: Oracle, p: Position, value: int, known: Move | None = None) -> list[Move] | None:
    """The moves of p that keep its value for the mover, ``value`` (exact), by one test each
    within :data:`OPTIMAL_BUDGET` nodes (``known``: one known to keep it); None past a budget."""
    try:
        return [m for m in p.legal_moves() if m == known or keeps_value(oracle, p, m, value, OPTIMAL_BUDGET)]
    except LimitError:
        return None


def analysis_by_tests(oracle: Oracle, p: Position, value: int, budget: int = DEPTH_BUDGET) -> ExactLine:
    """The depth, preferred move and line of p, whose value for the mover is ``value`` (exact, not
    0), then, within a budget per move, the moves that keep the value. Raises LimitError (before
    the line is known; :class:`~solver.common.limits.BudgetError` when a test of the depth, the preferred
    move or the line goes past ``budget`` nodes; 0: no budget but the oracle's limits)."""
    score = exact_score(oracle, p, value, budget)
    best = preferred_by_tests(oracle, p, score, budget)
    line = line_by_tests(oracle, p, score, budget)
    optimal = optimal_by_tests(oracle, p, value, best)
    tied: list[Move] | None = None
    if optimal is not None:
        try:  # the optimal moves that reach the exact score: the same value and depth as the best
            tied = [m for m in optimal if m == best or keeps_score(oracle, p, m, score, OPTIMAL_BUDGET)]
        except LimitError:
            tied = None
    return ExactLine(abs(score - value * M), best, line, optimal, tied)


def draw_depth(oracle: Oracle, p: Position, memo: dict, limit: int) -> float:
    """Depth of a drawn position (value 0) from values alone: 1 + the longest drawing child,
    infinite through a cycle (a draw by infinite play); ``memo`` keeps what earlier walks found.
    Raises :class:`WalkLimitError` past ``limit`` positions walked."""
    def drawing(q: Position) -> list[tuple[Move, Position]]:
        return [(m, c) for m, c in ((m, q.push(m)) for m in q.legal_moves()) if oracle.value(c) == 0]

    return walk_draw(p, drawing, memo, limit)


def walk_draw(p: Position, drawing: Callable[[Position], list[tuple[Move, Position]]], memo: dict,
              limit: int, check: Callable[[], None] | None = None) -> float:
    """The depth of a drawn position p: 1 + the longest of its drawing children (``drawing(q)``:
    the moves of q that keep the draw, with the positions they reach), 0 for a finished game,
    infinite through a cycle. ``memo`` keeps each walked position's depth by key (the same under
    symmetry); ``check()`` is called before each new position is walked (to raise a limit).
    Raises :class:`WalkLimitError` past ``limit`` positions walked."""
    on_path: set = set()
    walked = 0
    root_key = p.key()
    if root_key in memo:
        return float(memo[root_key])
    # iterative depth-first walk: frames of (key, children, next index, longest so far)
    stack: list[tuple] = [(root_key, drawing(p), 0, -1)]
    on_path.add(root_key)
    result = None
    while stack:
        key, todo, i, longest = stack.pop()
        if result is not None:  # a child just finished
            longest = max(longest, result)
            result = None
            i += 1
        if longest == math.inf or i >= len(todo):
            depth = math.inf if longest == math.inf else longest + 1
            memo[key] = depth
            on_path.discard(key)
            result = depth
            continue
        c = todo[i][1]
        if c.is_over():
            stack.append((key, todo, i + 1, max(longest, 0)))
            continue
        ck = c.key()
        if ck in on_path:
            stack.append((key, todo, i + 1, math.inf))
            continue
        if ck in memo:
            stack.append((key, todo, i + 1, max(longest, memo[ck])))
            continue
        walked += 1
        if walked > limit:
            raise WalkLimitError(f"the depth of this draw needs more than {limit:,} positions walked")
        if check is not None:
            check()
        stack.append((key, todo, i, longest))
        on_path.add(ck)
        stack.append((ck, drawing(c), 0, -1))
    return float(memo[root_key])


def draw_analysis_by_tests(oracle: Oracle, p: Position, budget: int = DRAW_BUDGET,
                           limit: int = DRAW_WALK_LIMIT, test_budget: int = DEPTH_BUDGET) -> ExactLine:
    """The depth, preferred move, line and optimal moves of a drawn position p (value 0) by tests:
    a child keeps the draw when one test shows that its mover cannot win
    (:func:`keeps_value`, each within ``test_budget`` nodes); the depth is the longest
    drawing line (:func:`walk_draw`, infinite through a cycle), the preferred move the drawing
    move that postpones the end longest (then the first in notation order), the line the preferred
    moves to the end of the game or to the first repeated position. The whole walk may take
    ``budget`` of the oracle's nodes and ``limit`` positions (a budget 0: none but the oracle's
    limits). Raises LimitError (:class:`~solver.common.limits.BudgetError` past a budget)."""
    start = oracle.states
    kids: dict = {}  # position -> its drawing moves, with the positions they reach (asked once)

    def drawing(q: Position) -> list[tuple[Move, Position]]:
        if q not in kids:
            kids[q] = [(m, q.push(m)) for m in q.legal_moves() if keeps_value(oracle, q, m, 0, test_budget)]
        return kids[q]

    def check() -> None:
        if budget and oracle.states - start > budget:
            raise BudgetError(f"the depth of this draw needs more than {budget:,} nodes of tests")

    memo: dict = {}

    def depth_of(q: Position) -> float:
        return 0.0 if q.is_over() else walk_draw(q, drawing, memo, limit, check)

    def preferred(q: Position) -> tuple[Move, float]:
        ranked = [(m, depth_of(c)) for m, c in drawing(q)]
        return min(ranked, key=lambda md: (-md[1], move_order_key(q.board, md[0])))

    depth = depth_of(p)
    best, best_depth = preferred(p)
    optimal = [m for m, _ in drawing(p)]
    tied = [m for m, c in drawing(p) if depth_of(c) == best_depth]
    line: list[Move] = []
    seen, cur, repeated = {p}, p, False
    while not cur.is_over():
        m = preferred(cur)[0]
        cur = cur.push(m)
        line.append(m)
        if cur in seen:
            repeated = True
            break
        seen.add(cur)
    return ExactLine(None if depth == math.inf else int(depth), best, line, optimal, tied, repeated)
