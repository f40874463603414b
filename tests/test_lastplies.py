"""The last plies' solvers (solver/engine/lastplies.py) against the reference solver: every
position reachable from random boards with 1 to 3 empty squares (blocks, both sides, every
rule set, counters near their limits), windows wide and null; the static score of endings
where one side cannot move; the ordering helpers."""

from __future__ import annotations

import random

import numpy as np
import pytest

from solver.common.scores import INF_SCORE, M, score_of
from solver import engine
from solver.game.bitboards import build_tables, mover_bits
from solver.game.board import Board
from solver.game.rules import CLASSIC, CS61B, JUMP3, UAI, O, X, Position, Rules
from solver.oracles.reference import ReferenceSolution

L = engine.lastplies

RULES = (CLASSIC, UAI, CS61B, JUMP3)
# the quick suite's 3 minutes (README): the costliest cases (CPU seconds at load 19: last_test under
# classic 47, its jump wars followed 12 plies; the static bounds under the counters 4 to 6 each) in
# the full suite only, which CI runs
SLOW = pytest.mark.slow
LAST_TEST_RULES = [pytest.param(CLASSIC, marks=SLOW), UAI, CS61B, JUMP3]
STATIC_RULES = [CLASSIC, pytest.param(UAI, marks=SLOW), pytest.param(CS61B, marks=SLOW), pytest.param(JUMP3, marks=SLOW)]
SHAPES = [(2, 3), (3, 3), (2, 4), (4, 2), (2, 5), (3, 4)]


def _board(rng: random.Random) -> Board:
    rows, cols = rng.choice(SHAPES)
    blocks = 0
    for sq in range(rows * cols):
        if rng.random() < 0.12:
            blocks |= 1 << sq
    return Board(rows, cols, blocks)


def _counter(rng: random.Random, rules: Rules) -> int:
    if not rules.counter:
        return 0
    if rng.random() < 0.2:
        return rng.choice((0, 1, rng.randrange(rules.limit)))
    return rules.limit - 1 - rng.randrange(6)  # near the limit: the reference's graph stays small


def few_empty(rng: random.Random, rules: Rules, empties: int) -> Position:
    """A board with ``empties`` empty squares, the rest X and O at random (one side rarer at times)."""
    board = _board(rng)
    squares = [sq for sq in range(board.size) if not board.blocks >> sq & 1]
    empty = set(rng.sample(squares, min(empties, len(squares) - 2)))
    px = rng.choice((0.5, 0.5, 0.2, 0.8))
    x = o = 0
    for sq in squares:
        if sq in empty:
            continue
        if rng.random() < px:
            x |= 1 << sq
        else:
            o |= 1 << sq
    return Position(board, x, o, rng.choice((X, O)), _counter(rng, rules), rules)


def one_side_stuck(rng: random.Random, rules: Rules) -> Position:
    """A board where the pieces within reach of the empty squares are all one side's (so the
    other cannot move), the far ones at random or all the other side's (often sealed)."""
    board = _board(rng)
    squares = [sq for sq in range(board.size) if not board.blocks >> sq & 1]
    k = rng.randint(1, min(4, len(squares) - 2))
    empty = set(rng.sample(squares, k))
    near = 0
    for e in empty:
        near |= board.neighbours[e] | board.jump_targets(rules.jump3)[e]
    s = q = 0
    sealed_style = rng.random() < 0.5
    for sq in squares:
        if sq in empty:
            continue
        if near >> sq & 1:
            s |= 1 << sq
        elif sealed_style or rng.random() < 0.6:
            q |= 1 << sq
        else:
            s |= 1 << sq
    if not q:
        q, s = s & -s, s & (s - 1)
    x, o = (s, q) if rng.random() < 0.5 else (q, s)
    return Position(board, x, o, rng.choice((X, O)), _counter(rng, rules), rules)


def sealed_off(rng: random.Random, rules: Rules) -> Position:
    """A board cut in two by columns of blocks (two, three under jump3): one side's pieces and the empty squares on the
    left, the other side's pieces on the right (sealed: it can never move nor lose a piece)."""
    rows, left, right = rng.choice(((2, 2, 1), (3, 2, 1), (2, 3, 2), (3, 2, 2), (2, 4, 1)))
    wall = 3 if rules.jump3 else 2  # wider than a jump
    cols = left + wall + right
    blocks = 0
    for r in range(rows):
        blocks |= ((1 << wall) - 1) << (r * cols + left)
    board = Board(rows, cols, blocks)
    lefts = [r * cols + c for r in range(rows) for c in range(left)]
    empty = set(rng.sample(lefts, rng.randint(1, min(3, len(lefts) - 1))))
    s = sum(1 << sq for sq in lefts if sq not in empty)
    q = sum(1 << (r * cols + c) for r in range(rows) for c in range(left + wall, cols))
    x, o = (s, q) if rng.random() < 0.5 else (q, s)
    return Position(board, x, o, rng.choice((X, O)), _counter(rng, rules), rules)


def _composite(ref: ReferenceSolution, i: int) -> int:
    value, depth = ref.value[i], ref.depth[i]
    return 0 if value == 0 else score_of(value, int(depth))


def _solutions(rules: Rules, seed: int, count: int, make):
    """(position, exact composite score) of every position reachable from ``count`` random roots."""
    rng = random.Random(seed)
    out = []
    while count > 0:
        p = make(rng)
        try:
            ref = ReferenceSolution([p], max_states=3_000)
        except Exception:  # a limit: a root too large for the reference
            continue
        count -= 1
        idx = list(range(ref.states))
        rng.shuffle(idx)
        out += [(ref.positions[i], _composite(ref, i)) for i in idx[:60]]
    return out


def _args(p: Position):
    T = build_tables(p.board, p.rules, symmetry=False)
    m, t = mover_bits(p)
    return np.uint64(m), np.uint64(t), np.int64(p.counter), T


@pytest.mark.parametrize("rules", LAST_TEST_RULES, ids=lambda r: r.name)
def test_last_test_agrees_with_the_reference(rules):
    rng = random.Random(5)
    known = {1: 0, 2: 0, 3: 0}
    seen = {1: 0, 2: 0, 3: 0}
    exact_wide = 0
    for p, exact in _solutions(rules, 11 + len(rules.name), 30, lambda r: few_empty(r, rules, r.randint(1, 3))):
        m, t, c, T = _args(p)
        e = p.empty.bit_count()
        windows = [(-INF_SCORE, INF_SCORE), (exact - 1, exact), (exact, exact + 1), (exact - 2, exact + 2)]
        s = rng.randrange(-p.board.size - 1, p.board.size + 2) * M + rng.choice((-M // 2, -3, 0, 3))
        windows.append((s - 1, s))
        for k, (al, be) in enumerate(windows):
            cnt = np.zeros(L.NLCOUNT, np.int64)
            v, ok = L.last_test(m, t, c, np.int64(al), np.int64(be), np.int64(12), T.playable, T.adj, T.jmp,
                                T.reach, T.rules, cnt)
            assert cnt[L.L_NODES] >= 1
            if 1 <= e <= 3:
                seen[e] += 1
                known[e] += int(ok)
            if not ok:
                continue
            v = int(v)
            if v >= be:
                assert exact >= v, (p, al, be, v, exact)
            elif v <= al:
                assert exact <= v, (p, al, be, v, exact)
            else:
                assert exact == v, (p, al, be, v, exact)
            exact_wide += int(k == 0)
    # the fast path must answer most of them (a vacuous test otherwise)
    for e in (1, 2, 3):
        assert seen[e] > 30 and known[e] > seen[e] // 3, (e, seen, known)
    assert exact_wide > 50


def test_a_node_limit_makes_the_answer_unknown():
    p = few_empty(random.Random(1), CLASSIC, 3)
    m, t, c, T = _args(p)
    cnt = np.array([0, 1, 0], np.int64)  # one node allowed: the root only
    v, ok = L.last_test(m, t, c, np.int64(-INF_SCORE), np.int64(INF_SCORE), np.int64(12), T.playable, T.adj, T.jmp,
                        T.reach, T.rules, cnt)
    over = p.result() is not None
    assert ok == over and (cnt[L.L_UNKNOWN] == 0) == over


@pytest.mark.parametrize("rules", STATIC_RULES, ids=lambda r: r.name)
def test_static_bounds_hold_and_are_exact_where_they_say(rules):
    exact_hits = bounded = 0
    make = (lambda r: one_side_stuck(r, rules) if r.random() < 0.6 else sealed_off(r, rules))
    for p, exact in _solutions(rules, 23 + len(rules.name), 50, make):
        m, t, c, T = _args(p)
        if p.result() is not None:
            continue
        lo, hi = (int(x) for x in L.static_bounds(m, t, c, T.playable, T.adj, T.reach, T.rules))
        assert lo <= exact <= hi, (p, lo, hi, exact)
        bounded += int(lo > -INF_SCORE or hi < INF_SCORE)
        exact_hits += int(lo == hi)
    assert bounded > 100 and exact_hits > 20, (bounded, exact_hits)


def test_odd_regions_and_captures():
    b = Board(3, 5)
    T = build_tables(b, CLASSIC, symmetry=False)
    # empty: a1 b1 (a region of 2), e3 (a region of 1), c3 d3? no: e1 alone
    empty = np.uint64((1 << 0) | (1 << 1) | (1 << 14) | (1 << 4))
    odd = int(L.odd_regions(empty, T.adj))
    assert odd == (1 << 14) | (1 << 4)
    assert L.captures(np.uint64(0), np.uint64(0b111 << 5), np.int64(0), T.adj) == 2  # a2 b2 next to a1
