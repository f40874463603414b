"""The reference solver against the definition: SPEC section 9, naive minimax, symmetry, cycles, lines."""

import math

import pytest

from helpers import TooMuchWork, naive_value, random_positions
from solver.solve.analysis import Analyzer, outcome_class
from solver.io.formats import read_file
from solver.game.notation import game_name
from solver.common.limits import StateLimitError
from solver.oracles.reference import ReferenceOracle, ReferenceSolution
from solver.solve.solver import Solver
from solver.game.rules import PASS, X, Move

CHEN = [
    # board, a (X first), b (O first), orthodox, class
    ("x...o", -3, 3, "0", "second"),
    ("x..\n...\n..o", 9, -9, "9|-9", "first"),
    ("x.#o\n.##.", 1, -5, "5|1||-5", "first"),
    ("x..\n#..\n#..\n.o.", 10, -10, "10|-10", "first"),
    ("x###\n#...\n#...\n###o", 8, -8, "8|-8", "first"),
]


@pytest.mark.slow
@pytest.mark.parametrize("grid,a,b,orth,cls", CHEN)
def test_spec_section_9_classic_table(grid, a, b, orth, cls):
    from solver.io.formats import parse_position

    board = parse_position(grid).position
    an = Analyzer(ReferenceOracle())
    assert an.stops(board) == (a, b)
    assert outcome_class(a, b) == cls
    assert game_name(an.orthodox(board)) == orth


@pytest.mark.slow
def test_chen2002_position_file_expectations_hold():
    entries = read_file("positions/chen2002.txt")
    assert len(entries) == 5
    for e in entries:
        report = Solver().solve(e, analyzer=Analyzer(ReferenceOracle()))
        assert e.expect and report.expect_failures == [], e.name


def check_line(an: Analyzer, p) -> None:
    """The principal variation is legal, has `depth` plies, and ends in a score equal to the value
    (or, for a draw by infinite play, stops at a repetition)."""
    ev = an.evaluate(p)
    line = an.principal_variation(p)
    cur = p
    for m in line.moves:
        cur = cur.play(m)  # raises if illegal
        assert an.evaluate(cur).value == ev.value  # every move of the line keeps the value
    if ev.depth is None:
        assert ev.value == 0 and line.repeated
    else:
        assert not line.repeated and cur.is_over()
        assert cur.result() == ev.value and len(line.moves) == ev.depth


@pytest.mark.slow
def test_values_match_naive_minimax_on_tiny_positions():
    positions = random_positions(101, 70, shapes=[(1, 4), (1, 5), (2, 2), (2, 3), (3, 2)], max_empty=2)
    positions += random_positions(102, 20, shapes=[(1, 5), (1, 6), (2, 3)], max_empty=3, fill=(0.6, 0.2, 0.2))
    for p in positions:
        an = Analyzer(ReferenceOracle())
        assert an.evaluate(p).value == naive_value(p), p
        assert an.evaluate(p.inverted()).value == -naive_value(p), p


def _map_move(perm, m: Move) -> Move:
    return Move(perm[m.frm] if m.frm >= 0 else -1, perm[m.to] if m.to >= 0 else -1)


@pytest.mark.slow
def test_symmetry_and_colour_inversion_give_transformed_answers():
    positions = random_positions(7, 200, shapes=[(2, 2), (2, 3), (3, 3), (2, 4), (1, 6), (4, 2)],
                                 max_empty=4, block_chance=0.1)
    transforms_checked = 0
    for p in positions:
        plain = Analyzer(ReferenceOracle(symmetry=False))  # no identification at all
        base = plain.evaluate(p)
        base_moves = {m.move: (m.value, m.depth, m.optimal) for m in plain.moves(p)}
        for perm in p.board.symmetries:
            q = p.transform(perm)
            an = Analyzer(ReferenceOracle())  # a fresh solve from the transformed root
            assert an.evaluate(q) == base
            got = {m.move: (m.value, m.depth, m.optimal) for m in an.moves(q)}
            assert got == {_map_move(perm, m): v for m, v in base_moves.items()}
            transforms_checked += 1
        inv = Analyzer(ReferenceOracle())
        q = p.inverted()
        ev = inv.evaluate(q)
        assert (ev.value, ev.depth) == (-base.value, base.depth)
        assert {m.move: (m.value, m.depth, m.optimal) for m in inv.moves(q)} == \
               {m: (-v, d, o) for m, (v, d, o) in base_moves.items()}
    assert transforms_checked > 400


def _has_cycle(solution: ReferenceSolution) -> bool:
    indegree = [0] * solution.states
    for cs in solution.children:
        for c in set(cs):
            indegree[c] += 1
    ready = [i for i, d in enumerate(indegree) if d == 0]
    seen = 0
    while ready:
        i = ready.pop()
        seen += 1
        for c in set(solution.children[i]):
            indegree[c] -= 1
            if indegree[c] == 0:
                ready.append(c)
    return seen < solution.states


@pytest.mark.slow
def test_cycles_values_and_lines():
    """Sparse positions where jumps repeat boards: lines of decided positions reach the end,
    draws by infinite play stop at a repetition, and tiny ones match the naive definition."""
    decided = infinite = naive_checked = 0
    for p in random_positions(23, 150, shapes=[(2, 4), (3, 3), (1, 7), (2, 5), (1, 6), (2, 3)],
                              block_chance=0.2, fill=(0.55, 0.25, 0.2)):
        solution = ReferenceSolution([p], max_states=20_000)
        if not _has_cycle(solution):
            continue
        an = Analyzer(ReferenceOracle())
        ev = an.evaluate(p)
        check_line(an, p)
        if ev.depth is None:
            infinite += 1
        elif ev.value:
            decided += 1
        try:
            assert ev.value == naive_value(p, budget=5_000)
            naive_checked += 1
        except TooMuchWork:
            pass
    assert decided > 50 and infinite >= 1 and naive_checked > 40


def test_positions_file_with_cycles():
    entries = read_file("positions/cycles.txt")
    assert len(entries) >= 8
    for e in entries:
        an = Analyzer(ReferenceOracle())
        report = Solver().solve(e, analyzer=an)
        assert report.expect_failures == [], e.name
        for s in report.sides:
            check_line(an, s.position)


def test_lines_of_random_positions():
    for p in random_positions(31, 80, shapes=[(2, 3), (3, 3), (2, 4), (1, 6)], max_empty=5):
        an = Analyzer(ReferenceOracle())
        check_line(an, p)
        if p.is_over():
            assert an.moves(p) == [] and an.evaluate(p).depth == 0
            continue
        infos = an.moves(p)
        ev = an.evaluate(p)
        preferred = [m for m in infos if m.preferred]
        assert len(preferred) == 1 and preferred[0].optimal and preferred[0].value == ev.value
        assert preferred[0].depth == ev.depth  # depth is the length of the preferred line


def test_forced_pass_is_a_move_of_the_line():
    from solver.io.formats import parse_position

    p = parse_position("x##.o").position  # X walled in: X passes, O plays on
    an = Analyzer(ReferenceOracle())
    line = an.principal_variation(p)
    assert line.moves[0] == PASS and line.end.is_over()
    assert an.evaluate(p).value == -1 and an.evaluate(p).depth == 2  # O clones d1


def test_state_limit_stops_cleanly():
    from solver.io.formats import parse_position

    p = parse_position("x...\n....\n...o").position
    with pytest.raises(StateLimitError, match="^more than 100 positions are reachable$"):
        ReferenceSolution([p], max_states=100)
    assert math.isinf(ReferenceSolution([parse_position("x##.o").position.replace(turn=X)]).depth[0]) is False
