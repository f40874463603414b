"""The analysis read from the solved graph (options, best options, orthodox summaries) against
the plain search of :meth:`Analyzer.options` (differential tests, fixed seeds)."""

import pytest

from helpers import random_positions
from solver.solve.analysis import Analyzer
from solver.oracles.retro import RetroOracle
from solver.game.notation import game_name
from solver.oracles.reference import ReferenceOracle
from solver.io.formats import parse_position
from solver.game.rules import CLASSIC, CS61B, JUMP3, UAI, O, Position, X

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


@pytest.mark.slow
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


@pytest.mark.slow
def test_orthodox_summaries_from_the_graph_match_the_reference():
    """Deeper summaries, classic boards with cycles: the bulk path on retro against the plain
    path on the reference solver."""
    for b in boards(91, CLASSIC, 60):
        fast = Analyzer(RetroOracle(b.board, CLASSIC))
        plain = Analyzer(ReferenceOracle(), bulk=False)
        assert fast.stops(b) == plain.stops(b)
        assert fast.orthodox(b, 10) == plain.orthodox(b, 10), b


@pytest.mark.slow
def test_a_board_analysis_extends_one_solution():
    """Both roots in one enumeration; the boards the summary asks about with the other side to
    move are added to the same solution, and a position solved once is never solved again."""
    from solver.io.formats import parse_position

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


# -- readable summaries ---------------------------------------------------------------------------

LOOPY = ".xx\nxx.\n..o"  # its summary comes back to a board already on its path


def test_a_cut_and_a_loop_are_marked_differently():
    from solver.io.formats import parse_position
    from solver.game.notation import CUT, LOOP, Split, cut, marks

    b = parse_position(LOOPY).position
    an = Analyzer(ReferenceOracle())
    full = an.orthodox(b, 30)
    assert marks(full) == {"loop"} and "loop" in game_name(full) and "..." not in game_name(full)
    for depth in range(6):  # a smaller limit cuts the same tree; the loop stays a loop
        assert an.orthodox(b, depth) == cut(full, depth)
    assert marks(an.orthodox(b, 3)) == {"cut"}
    assert game_name(Split(CUT, LOOP)) == "...|loop"


def _path_boards(an, b, g, path=()):
    """Check that each loop of summary g is a board on its path: yields the loops' boards."""
    from solver.game.notation import LOOP, Split

    a, c = an.stops(b)
    if g == LOOP:
        assert (b.x, b.o, b.counter) in path
        yield b
    elif isinstance(g, Split):
        path = path + ((b.x, b.o, b.counter),)
        yield from _path_boards(an, an.best_option(b, X, a).position, g.left, path)
        yield from _path_boards(an, an.best_option(b, O, c).position, g.right, path)


def test_a_loop_is_a_board_already_on_the_path():
    from solver.io.formats import parse_position

    b = parse_position(LOOPY).position
    an = Analyzer(ReferenceOracle())
    g = an.orthodox(b, 30)
    assert len(list(_path_boards(an, b, g))) == game_name(g).count("loop") >= 1


def test_the_line_is_as_deep_as_fits_and_the_tree_is_whole():
    from solver.game.notation import marks
    from solver.game.rules import Position

    p = Position.start(2, 6)
    an = Analyzer(RetroOracle(p.board, CLASSIC))
    s = an.summary(p)
    line = game_name(s.line)
    assert len(line) <= 100 and "cut" in marks(s.line)
    assert len(game_name(an.orthodox(p, s.line_depth + 1))) > 100  # one level more does not fit
    assert s.tree_depth == 8 and marks(s.tree) == set()  # the whole summary, no cut
    wide = Analyzer(an.oracle, orth_width=1000).summary(p)
    assert wide.line == s.tree and marks(wide.line) == set()
    fixed = Analyzer(an.oracle, orth_depth=2).summary(p)
    assert fixed.line == fixed.tree == an.orthodox(p, 2) and fixed.line_depth == 2


def test_one_analyzer_keeps_boards_with_the_same_pieces_apart():
    shared = Analyzer(ReferenceOracle())
    open_board, blocked = parse_position("x...o").position, parse_position("x#..o").position
    assert shared.stops(open_board) == (-3, 3)
    assert shared.stops(blocked) == Analyzer(ReferenceOracle()).stops(blocked) == (-4, -4)


def test_retro_ignores_a_counter_given_under_the_classic_rules():
    p = parse_position("x..\n...\n..o").position
    q = Position(p.board, p.x, p.o, p.turn, 7, p.rules)  # the API lets a classic position carry one
    oracle = RetroOracle(p.board, p.rules)
    assert oracle.lookup(q) == oracle.lookup(p) == RetroOracle(p.board, p.rules).lookup(p)
