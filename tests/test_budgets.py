"""Budgeted proofs (:mod:`solver.engine.search`, "Budgeted proofs"): the kernel in a budgeted game.

The budgeted game is the real game cut when a run (plies since the last clone, or since the root;
under a counter rule the counter) reaches the budget, the cut scored for or against a side. It is
finite, so plain minimax over it here is its definition. Checked on random small boards with
blocks, both sides to move, every rule set, sparse boards where jumps make cycles:

- a success of the side proving (the one the cut counts against) is a success in the real game,
  as the reference solver has it (real results found elsewhere, a side with no pieces filled out,
  may make it succeed where the budgeted game alone would not);
- a success of the other side is one in the budgeted game itself (the repetition rule inside a
  run never changes it): the prover misses nothing the budgeted game gives it;

with one table shared by every budget, kind and threshold in turn (the table's reuse of bounds
across budgets, kinds and thresholds is what is tested).
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers import random_positions
from solver.common.scores import CUT_SCORE, M, parent_score, value_threshold
from solver.game.bitboards import mover_bits
from solver.game.rules import CLASSIC, CS61B, JUMP3, UAI, X, Position
from solver.io.formats import parse_fen
from solver.oracles.oracle import mover_value
from solver.oracles.reference import ReferenceSolution
from solver.oracles.search import SearchOracle

SHAPES = [(2, 3), (3, 3), (2, 4), (1, 6), (1, 7), (3, 2)]


def budgeted_score(p: Position, run: int, budget: int, cut_x: int, memo: dict) -> int:
    """The mover's composite score in the budgeted game: the cut scores ``cut_x`` for X (and so
    ``-cut_x`` for O); a finished game first, then the cut."""
    key = (p.x, p.o, p.turn, p.counter, run)
    if key in memo:
        return memo[key]
    best = None
    for move in p.legal_moves():
        child = p.push(move)
        result = child.result()
        if result is not None:
            w = mover_value(child, result) * M
        else:
            nrun = child.counter if p.rules.counter else (0 if move.is_clone else run + 1)
            if nrun >= budget:
                w = cut_x if _is_x(child) else -cut_x
            else:
                w = budgeted_score(child, nrun, budget, cut_x, memo)
        v = parent_score(-w)
        best = v if best is None else max(best, v)
    assert best is not None
    memo[key] = best
    return best


def _is_x(p: Position) -> bool:
    return p.turn == X


def _roots(seed: int, rules, count: int) -> list[Position]:
    out = random_positions(seed, count // 2, shapes=SHAPES, rules=rules)
    out += random_positions(seed + 1, count - count // 2, shapes=SHAPES, rules=rules, fill=(0.5, 0.25, 0.25))
    if rules.counter:  # low counters: a budget near the counter keeps every run short
        out = [p.replace(counter=p.counter % 3) for p in out]
    return [p for p in out if not p.is_over()]


@pytest.mark.parametrize("rules", [CLASSIC] + [pytest.param(r, marks=pytest.mark.slow) for r in (CS61B, UAI, JUMP3)],
                         ids=lambda r: r.name)  # cs61b (4 s of CPU) in the full suite: the quick suite's 3 minutes
def test_budgeted_answers_are_the_budgeted_games_and_the_provers_are_real(rules):
    checked = real = 0
    for p in _roots(41, rules, 30):
        ref = ReferenceSolution([p], max_states=100_000)
        value = ref.lookup(p)[0]
        squares = p.board.playable.bit_count()
        oracle = SearchOracle(p.board, rules, tt_bits=12, threads=1, budget_limit=8)
        w = oracle.workers[0]
        abort = np.zeros(1, np.int64)
        m, t = mover_bits(p)
        start = p.counter if rules.counter else 0
        scores: dict = {}  # (budget, the cut's score for X) -> the budgeted game's score
        for budget in (start + 2, start + 3, start + 5):
            if rules.counter and budget >= rules.limit:
                continue
            for k in (1, 0, value, value + 1, -squares // 2):
                s = value_threshold(k)
                p_is_mover = s > 0
                for prover in ("P", "F"):
                    cut = -CUT_SCORE if (prover == "P") == p_is_mover else CUT_SCORE
                    cut_x = cut if _is_x(p) else -cut
                    if (budget, cut_x) not in scores:
                        scores[budget, cut_x] = budgeted_score(p, start, budget, cut_x, {})
                    budgeted = scores[budget, cut_x] >= s
                    r, _ = oracle._kernel(w, abort, m, t, p.counter, s, budget, cut, 0)
                    holds = r >= s
                    proving_mover = p_is_mover == (prover == "P")  # the side proving moves at the root
                    if holds == proving_mover:  # the side proving succeeded: a real answer
                        assert holds == (value >= k), (p, budget, k, prover)
                        real += 1
                    else:  # the other side: its success in the budgeted game itself
                        assert holds == budgeted, (p, budget, k, prover)
                    checked += 1
    assert checked >= 300 and real >= 100


@pytest.mark.parametrize("rules", [CLASSIC, UAI], ids=lambda r: r.name)
def test_the_last_plies_answer_children_and_every_value_stays_the_references(rules):
    """Children with at most 3 empty squares are asked of engine/lastplies.py first (the search's
    "The last plies"): values and depths with it and without it are the reference's, and it
    answered children (nodes that never reached the kernel's frames)."""
    answered = compared = 0
    shapes = [(2, 3), (3, 3), (2, 4), (2, 5)]
    for p in random_positions(83, 14, shapes=shapes, rules=rules, fill=(0.45, 0.3, 0.25)):
        if p.is_over():
            continue
        ref = ReferenceSolution([p], max_states=100_000)
        expected = ref.lookup(p)
        for last in (3, 0):
            oracle = SearchOracle(p.board, rules, tt_bits=12, threads=1)
            oracle.last_empty = last
            assert oracle.lookup(p) == expected, (p, last)
            if last:
                answered += oracle.counters()["last_plies"]
        compared += 1
    assert compared >= 10 and answered > 0


@pytest.mark.slow
@pytest.mark.parametrize("rules", [CLASSIC, UAI], ids=lambda r: r.name)
def test_transposition_cut_offs_at_any_depth_keep_every_value_the_references(rules):
    """Enhanced transposition cut-offs (the search's "Before searching a node's moves") are tried
    at a test's first plies only (``ETC_PLIES``): never, there, and at every node, the values and
    depths are the reference's, and where they are tried they cut."""
    cuts = {0: 0, 4: 0, 64: 0}
    compared = 0
    # positions (fixed seeds) whose references stay small and where the cut-offs have work
    seed, shapes = (97, [(3, 3), (3, 4)]) if rules is CLASSIC else (89, [(2, 3), (3, 3), (2, 4), (2, 5)])
    for p in random_positions(seed, 14, shapes=shapes, rules=rules, fill=(0.35, 0.3, 0.25)):
        if p.is_over():
            continue
        expected = ReferenceSolution([p], max_states=100_000).lookup(p)
        for plies in cuts:
            oracle = SearchOracle(p.board, rules, tt_bits=12, threads=1)
            oracle.etc_plies = plies
            assert oracle.lookup(p) == expected, (p, plies)
            cuts[plies] += oracle.counters()["etc_cuts"]
        compared += 1
    assert compared >= 10 and cuts[0] == 0 and cuts[4] > 0 and cuts[64] > 0


def test_issue_31_board_under_uai_value_and_depth_within_a_node_budget():
    """Issue 31: one empty square walled in by blocks, a jump war until the clock's limit. The
    search of the real game (the clock in the key, no repetition rule) gives the value and its
    depth in 4.8 million nodes on one thread (the horizon ladders did not in 398 million); a
    last-plies solver that cannot settle a jump war is not asked again below it."""
    p = parse_fen("1------/-------/--xxooo/xxxxooo/ooooooo/ooooooo/ooooooo x 0 1", UAI)
    oracle = SearchOracle(p.board, UAI, tt_bits=20, threads=1, node_limit=20_000_000)
    assert oracle.lookup(p) == (-30, 4)
