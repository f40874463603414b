"""The analysis read from the solved graph (options, best options, orthodox summaries) against
the plain search of :meth:`Analyzer.options` (differential tests, fixed seeds)."""

import pytest

from helpers import random_positions
from solver.analysis import Analyzer
from solver.engine.retro import RetroOracle
from solver.notation import game_name
from solver.reference import ReferenceOracle
from solver.rules import CLASSIC, CS61B, JUMP3, UAI, O, X

SHAPES = [(2, 3), (3, 3), (2, 4), (1, 6), (1, 7), (3, 2), (2, 2), (1, 5), (2, 5)]


def boards(seed: int, rules, count: int):
    """Half dense, half sparse (jumps make cycles there); blocks; counters a few steps from the limit."""
    out = random_positions(seed, count // 2, shapes=SHAPES, rules=rules)
    out += random_positions(seed + 1, count - count // 2, shapes=SHAPES, rules=rules, fill=(0.5, 0.3, 0.2))
    if rules.counter:  # every other one a few steps from the limit, the others anywhere below it
        out = [p.replace(counter=max(0, rules.limit - 1 - p.counter % 6)) if k % 2 else p for k, p in enumerate(out)]
    return [p for p in out if not p.is_over()]


def _option(opt):
    return None if opt is None else (opt.moves, opt.position)


@pytest.mark.parametrize("rules", [CLASSIC, UAI, CS61B, JUMP3], ids=lambda r: r.name)
def test_best_options_from_the_graph_match_the_plain_search(rules):
    compared = followed_passes = 0
    for b in boards(90, rules, 120):
        oracle = RetroOracle(b.board, rules)
        fast, plain = Analyzer(oracle), Analyzer(oracle, bulk=False)
        a, c = plain.stops(b)
        for side, keep in ((X, a), (O, c)):
            got = fast.best_option(b, side, keep)
            assert _option(got) == _option(plain.best_option(b, side, keep)), (b, side)
            compared += 1
            followed_passes += got is not None and len(got.moves) > 1
        assert game_name(fast.orthodox(b, 4)) == game_name(plain.orthodox(b, 4)), b
    assert compared >= 150  # options with forced passes are common only where a wiped-out side passes:
    assert followed_passes > (50 if rules is CLASSIC else 0)


def test_orthodox_summaries_from_the_graph_match_the_reference():
    """Deeper summaries, classic boards with cycles: the bulk path on retro against the plain
    path on the reference solver."""
    for b in boards(91, CLASSIC, 60):
        fast = Analyzer(RetroOracle(b.board, CLASSIC))
        plain = Analyzer(ReferenceOracle(), bulk=False)
        assert fast.stops(b) == plain.stops(b)
        assert fast.orthodox(b, 10) == plain.orthodox(b, 10), b


def test_a_board_analysis_extends_one_solution():
    """Both roots in one enumeration; the boards the summary asks about with the other side to
    move are added to the same solution, and a position solved once is never solved again."""
    from solver.formats import parse_position

    b = parse_position("x.#o\n.##.").position
    oracle = RetroOracle(b.board, CLASSIC)
    oracle.prepare([b.replace(turn=X), b.replace(turn=O)])
    first = oracle.states
    assert oracle.solves == 1
    an = Analyzer(oracle)
    assert game_name(an.orthodox(b)) == "5|1||-5"
    ref = ReferenceOracle()
    ref.prepare([b.replace(turn=X), b.replace(turn=O)], both_sides=True)
    assert first < oracle.states <= ref.states
    solves = oracle.solves
    assert game_name(an.orthodox(b)) == "5|1||-5" and oracle.solves == solves
