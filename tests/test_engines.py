"""The compiled engines against the reference: kernels, retro, search (differential tests).

Fixed seeds; random boards with blocks; both sides to move; every rule set, with
counters near their limits; sparse positions where jumps make cycles.
"""

import math

import numpy as np
import pytest

from helpers import random_positions
from solver.solve.solver import choose_algorithm, estimate_states
from solver.engine import kernels as K
from solver.oracles.retro import RetroOracle
from solver.oracles.search import SearchOracle
from solver.game.bitboards import board_arrays, mover_bits
from solver.io.formats import parse_position
from solver.game.notation import game_name
from solver.oracles.reference import ReferenceSolution
from solver.game.rules import CLASSIC, CS61B, JUMP3, UAI, X, Move, Position
from solver.solve.solver import Solver

RULES = (CLASSIC, UAI, CS61B, JUMP3)
SHAPES = [(2, 3), (3, 3), (2, 4), (1, 6), (1, 7), (3, 2), (2, 2), (1, 5)]


def roots(seed: int, rules, count: int) -> list[Position]:
    """Half dense, half sparse (sparse ones have cycles); counters a few steps from the limit."""
    out = random_positions(seed, count // 2, shapes=SHAPES, rules=rules)
    out += random_positions(seed + 1, count - count // 2, shapes=SHAPES, rules=rules, fill=(0.5, 0.25, 0.25))
    if rules.counter:
        out = [p.replace(counter=max(0, rules.limit - 1 - p.counter % 8)) for p in out]
    return out


def _code(m: Move) -> int:
    if m.is_pass:
        return -1
    return m.to if m.is_clone else (m.frm + 1) * 64 + m.to


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_kernels_match_the_plain_rules(rules):
    buf = np.zeros(2000, np.int64)
    shapes = SHAPES + [(4, 4), (7, 7), (3, 5), (8, 8), (1, 64), (5, 6)]
    for p in random_positions(3, 250, shapes=shapes, rules=rules):
        T = board_arrays(p.board, rules)
        m, t = map(np.uint64, mover_bits(p))
        over, score = K.game_status(m, t, p.counter, T.playable, T.reach, T.rules)
        result = p.result()
        assert over == (result is not None), p
        if over:
            assert score == (result if p.turn == X else -result)
            continue
        n = K.gen_moves(m, t, T.playable, T.adj, T.jmp, buf)
        legal = p.legal_moves()
        assert sorted(buf[:n].tolist() or [-1]) == sorted(_code(mv) for mv in legal)
        for mv in legal:
            a, b = K.play(m, t, _code(mv), T.adj)
            q = p.push(mv)
            assert (int(a), int(b)) == mover_bits(q)
            assert K.next_counter(p.counter, _code(mv), T.rules) == q.counter
        cm, ct, s = K.canonical(m, t, T.canon)
        images = [mover_bits(p.transform(perm)) for perm in p.board.symmetries]
        assert (int(cm), int(ct)) == min(images) == images[s]


def boards_of(p: Position) -> int:
    """The boards reachable from p when the counter is left out (what retro solves under a
    counter: each board at every counter value)."""
    from dataclasses import replace

    return ReferenceSolution([p.replace(rules=replace(p.rules, counter=None, limit=0), counter=0)]).states


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_retro_matches_reference_on_every_reachable_position(rules):
    compared = cyclic = 0
    for p in roots(40, rules, 250):
        ref = ReferenceSolution([p], max_states=100_000)
        retro = RetroOracle(p.board, rules)
        retro.prepare([p])
        assert retro.states == (boards_of(p) if rules.counter else ref.states)
        got = retro.lookup_many(ref.positions)  # every position, at every counter value reached
        assert got == list(zip(ref.value, ref.depth)), p
        compared += ref.states
        cyclic += any(d == math.inf for d in ref.depth)
    assert compared > 5_000
    if rules.is_loopy:
        assert cyclic >= 1  # some draws by infinite play among them


@pytest.mark.slow
@pytest.mark.parametrize("rules", [UAI, CS61B, JUMP3], ids=lambda r: r.name)
def test_retro_matches_reference_at_every_counter_value(rules):
    """Under a counter, roots from counter 0 up: retro solves each board for every counter value
    at once (histories of depth pieces, guesses checked); every position the reference reaches
    is compared, and a solution extended from a later root agrees too."""
    compared = long_histories = 0
    shapes = [(2, 3), (3, 2), (1, 6), (2, 4), (1, 7), (3, 3)]
    count = 10 if rules is JUMP3 else 24  # jump3's 200 plies make the reference slow
    for p in random_positions(69, count, shapes=shapes, rules=rules, fill=(0.45, 0.3, 0.25)):
        ref = ReferenceSolution([p], max_states=100_000)
        retro = RetroOracle(p.board, rules)
        retro.prepare([p])
        assert retro.lookup_many(ref.positions) == list(zip(ref.value, ref.depth)), p
        compared += ref.states
        long_histories += int(np.diff(retro.hstart[:retro.states + 1]).max() >= 3)  # answers that change
        q = ref.positions[-1].replace(counter=0)  # a board reached late, with the whole count left
        assert retro.lookup(q) == ReferenceSolution([q]).lookup(q), q
    assert compared > 3_000 and long_histories >= 3


def _compare_search(positions, rules, **options) -> int:
    """Search against the reference on each position and its children; how many were compared."""
    compared = 0
    for p in positions:
        ref = ReferenceSolution([p], max_states=100_000)
        search = SearchOracle(p.board, rules, tt_bits=14, **options)
        for q in [p] + [p.push(m) for m in p.legal_moves()]:
            i = ref.find(q)
            assert search.lookup(q) == (ref.value[i], ref.depth[i]), q
            compared += 1
    return compared


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_search_matches_reference_on_roots_and_their_moves(rules):
    assert _compare_search(roots(40, rules, 250), rules) > 500


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
@pytest.mark.slow
def test_search_with_finite_proofs_matches_reference(rules):
    """The horizon proofs that large boards use first, forced on small ones."""
    assert _compare_search(roots(50, rules, 80), rules, budget_limit=64) > 150


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["retro", "search"])
def test_spec_section_9_with_each_engine(engine):
    table = [("x...o", -3, 3, "0"), ("x..\n...\n..o", 9, -9, "9|-9"), ("x.#o\n.##.", 1, -5, "5|1||-5"),
             ("x..\n#..\n#..\n.o.", 10, -10, "10|-10"), ("x###\n#...\n#...\n###o", 8, -8, "8|-8")]
    for grid, a, b, orth in table:
        board = parse_position(grid).position
        an = Solver(algorithm=engine).analyzer(board)
        assert an.stops(board) == (a, b)
        assert game_name(an.orthodox(board)) == orth


def test_engines_give_the_same_analysis():
    """Same values everywhere, so the same best moves, lines and move tables."""
    for p in roots(77, CLASSIC, 30):
        if p.is_over():
            continue
        results = []
        for engine in ("reference", "retro", "search"):
            an = Solver(algorithm=engine).analyzer(p)
            results.append(([(m.name, m.value, m.depth, m.optimal, m.preferred) for m in an.moves(p)],
                            an.principal_variation(p).names()))
        assert results[0] == results[1] == results[2], p


def test_engine_choice():
    tiny = parse_position("x...o").position
    assert choose_algorithm(tiny) == "reference"
    assert choose_algorithm(Position.start(4, 4)) == "retro"
    assert choose_algorithm(Position.start(7, 7)) == "search"
    assert estimate_states(Position.start(3, 5)) >= 811_880  # the reachable graph, measured
    assert choose_algorithm(Position.start(4, 4), max_memory=1 << 20) == "search"
