"""Proved bounds (SPEC section 4.1): what a search stopped early reports is true.

With node limits forced low, every interval the search engine reports contains the
reference value, every outcome it claims is the reference's, and the best move it
reports keeps the bound it was proved for. The clock fact the search uses under
``uai`` holds on the reference; under ``cs61b`` and ``jump3`` no such fact holds.
"""

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ctrl_c_after, random_positions
from solver.common.scores import value_threshold
from solver.oracles.search import SearchOracle
from solver.game.bitboards import mover_bits
from solver.io.formats import parse_position
from solver.oracles.reference import ReferenceSolution
from solver.game.rules import CLASSIC, CS61B, JUMP3, UAI, Position

ROOT = Path(__file__).resolve().parent.parent
RULES = (CLASSIC, UAI, CS61B, JUMP3)
SHAPES = [(2, 3), (3, 3), (2, 4), (1, 6), (1, 7), (3, 2)]


def _roots(seed, rules, count):
    out = random_positions(seed, count // 2, shapes=SHAPES, rules=rules)
    out += random_positions(seed + 1, count - count // 2, shapes=SHAPES, rules=rules, fill=(0.5, 0.25, 0.25))
    if rules.counter:
        out = [p.replace(counter=max(0, rules.limit - 1 - p.counter % 8)) for p in out]
    return [p for p in out if not p.is_over()]


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_intervals_under_low_node_limits_contain_the_reference_value(rules):
    checked = partial = moves = 0
    for p in _roots(90, rules, 70):
        ref = ReferenceSolution([p], max_states=100_000)
        value = ref.lookup(p)[0]  # the mover's
        for limit in (3, 10, 60, 400):
            oracle = SearchOracle(p.board, rules, tt_bits=12, node_limit=limit)
            for outcome_only in (False, True):
                b = oracle.bounds(p, outcome_only=outcome_only)
                assert b.lower <= value <= b.upper, (p, limit, b)
                if b.lower > 0 or b.upper < 0 or b.lower == b.upper == 0:  # an outcome is claimed
                    assert (value > 0) == (b.lower > 0) and (value < 0) == (b.upper < 0), (p, b)
                if b.best_lower > -p.board.playable.bit_count():
                    child = p.push(b.best_move)
                    assert -ref.lookup(child)[0] >= b.best_lower, (p, b)  # the move keeps its bound
                    moves += 1
                checked += 1
                partial += not b.exact
    assert checked >= 200 and partial >= 20 and moves >= 50


PROVERS = {"dfpn": [("D",)], "ladders": [("P", "F")], "one thread": None, "race": None}


# uai in the full suite only (the quick suite's 3 minutes, README): cs61b and jump3 have counters too
@pytest.mark.parametrize("rules", [pytest.param(r, marks=pytest.mark.slow) if r is UAI else r for r in RULES],
                         ids=lambda r: r.name)
@pytest.mark.parametrize("how", PROVERS, ids=str)
def test_each_prover_and_the_race_give_the_reference_values(rules, how):
    """The proof-number search alone, the alpha-beta ladders alone (horizons forced on small
    boards), both on one thread in turns, and both racing on two threads: the same values and
    best moves as the reference, and under low node limits intervals that hold it."""
    checked = 0
    for p in _roots(31, rules, 40):
        ref = ReferenceSolution([p], max_states=100_000)
        value = ref.lookup(p)[0]  # the mover's
        for limit in (0, 30, 300):
            oracle = SearchOracle(p.board, rules, tt_bits=12, node_limit=limit, budget_limit=12,
                                  threads=2 if how == "race" else 1)
            oracle.provers = PROVERS[how]
            b = oracle.bounds(p)
            assert b.lower <= value <= b.upper, (p, how, limit, b)
            assert limit or b.exact, (p, how, b)
            if b.best_lower > -p.board.playable.bit_count():
                assert -ref.lookup(p.push(b.best_move))[0] >= b.best_lower, (p, how, b)
            checked += 1
    assert checked >= 90


def test_an_interrupted_search_reports_bounds_and_its_reason():
    p = parse_position("xxxox2/xxoooo1/oxooooo/oxoxxxx/ooxxooo/xxxxooo/oooxoo1 x 0 32").position
    oracle = SearchOracle(p.board, p.rules, node_limit=20_000)
    b = oracle.bounds(p)
    assert b.stopped == "nodes" and not b.exact and b.best_move is not None
    assert b.nodes >= 20_000 and -49 <= b.lower <= b.upper <= 49


@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 2])
def test_a_line_that_outgrows_the_stack_leaves_the_time_to_the_other_provers(threads):
    """Issue 27's 6-empty classic board: the search of the real game follows a jump war of
    distinct positions far past any stack. With the least stack (1,024 plies) that prover stops;
    proof numbers and the ladders go on to the node limit, and O's draw is proved as before."""
    p = parse_position("xxooooo/oxxxxx1/xooo1ox/xxx-oox/xx1oooo/xxxo1oo/xxx2oo o 0 1").position
    oracle = SearchOracle(p.board, p.rules, node_limit=20_000_000, threads=threads)
    oracle.max_stack = 1024
    b = oracle.bounds(p)
    assert b.stopped == "nodes" and b.nodes >= 20_000_000
    assert (b.lower, b.upper) == (0, 48)  # the mover's (O's): it at least draws


def test_proofs_resting_on_repetitions_are_reused_inside_the_loop():
    """A trivially true test on a 6-square loopy board: O can jump forever while X, with no
    pieces, passes. Every result rests on repetitions; without the conditional table the
    search re-solves them on every path (hundreds of millions of nodes), with it a few thousand."""
    p = Position.from_fen("oo-/--1/o2 x 0 1")
    oracle = SearchOracle(p.board, p.rules, tt_bits=12, node_limit=200_000)
    m, t = mover_bits(p)
    holds, _ = oracle.test(m, t, 0, value_threshold(-7))
    assert holds and oracle.states < 20_000


def _clock_values(p, clocks):
    return {c: ReferenceSolution([p.replace(counter=c)], max_states=50_000).lookup(p.replace(counter=c))[0]
            for c in clocks}


@pytest.mark.slow
def test_clock_fact_holds_under_uai():
    """SPEC 4.1: a value v > 0 forced at clock c is forced at lower clocks; v <= 0 at higher
    ones; the same for upper bounds with the signs reversed."""
    pairs = 0
    for p in random_positions(7, 120, shapes=SHAPES, rules=UAI, fill=(0.5, 0.25, 0.25)):
        vals = _clock_values(p, range(UAI.limit - 6, UAI.limit + 1))
        for a in vals:
            for b in vals:
                if a < b:
                    va, vb = vals[a], vals[b]
                    assert not (vb > 0 and va < vb) and not (va <= 0 and vb < va), (p, a, b)
                    assert not (vb < 0 and va > vb) and not (va >= 0 and vb > va), (p, a, b)
                    pairs += 1
    assert pairs > 2000


@pytest.mark.parametrize("rules", (CS61B, JUMP3), ids=lambda r: r.name)
def test_no_clock_fact_under_counted_limits(rules):
    """At the limit the pieces are counted: the value can swing with the counter's parity,
    so a bound proved at one counter says nothing at another (the search keys them apart)."""
    p = Position.from_fen("xoo/xx-/2x x 0 1", rules=rules.name)
    vals = _clock_values(p, range(rules.limit - 6, rules.limit))
    assert any(vals[c] > 0 > vals[c - 1] for c in vals if c - 1 in vals)  # a win that a lower counter loses
    assert any(vals[c] < 0 < vals[c - 1] for c in vals if c - 1 in vals)  # and the other way round


@pytest.mark.slow
def test_search_shares_bounds_across_clocks_soundly():
    """One search engine asked the same boards at many clocks, in shuffled order, so that the
    table's entries from other clocks are used (the clock fact): every value is the reference's."""
    import random

    rng = random.Random(5)
    compared = 0
    for p in random_positions(11, 40, shapes=SHAPES, rules=UAI, fill=(0.5, 0.25, 0.25)):
        oracle = SearchOracle(p.board, UAI, tt_bits=12)
        clocks = list(range(UAI.limit - 8, UAI.limit + 1)) + list(range(0, 4))
        rng.shuffle(clocks)
        for c in clocks:
            q = p.replace(counter=c)
            want = ReferenceSolution([q], max_states=50_000).lookup(q)[0]  # the mover's, as value()
            assert oracle.value(q) == want, (q, c)
            compared += 1
    assert compared >= 400


# -- the command line ------------------------------------------------------------------------------

ENDGAME = "xxxox2/xxoooo1/oxooooo/oxoxxxx/ooxxooo/xxxxooo/oooxoo1 x 0 32"
QUICK = "1xxxxo1/xxxxxo1/xxxxxxx/oooxxxx/oooxxxo/oooxxxx/ooxoxx1 o 0 34"  # 4 empty squares, solved in seconds


def _solve(*argv, stdin=ENDGAME):
    return subprocess.run([sys.executable, "-m", "solver", *argv], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


@pytest.mark.slow
def test_a_stopped_solve_prints_its_interval_and_best_move_and_exits_1():
    r = _solve("--max-states", "30000", "--json")
    assert r.returncode == 1
    side = json.loads(r.stdout)["sides"]["x"]
    assert side["exact"] is False and "value" not in side and side["stopped"] == "nodes"
    assert -49 <= side["lower"] <= side["upper"] <= 49 and side["best_move"]
    assert r.stderr.startswith("<stdin>:1: stopped: the search went past 30,000 nodes (raise --nodes or --max-states")
    text = _solve("--max-states", "30000").stdout
    assert "X to move: " in text and "not exact" in text and "best move found: " in text


@pytest.mark.slow
def test_a_draw_whose_depth_is_too_long_to_show_lists_its_drawing_moves():
    """Issue 27's 4-empty classic draw: the value comes in seconds; the depth of the draw needs a
    test past its budget, so the solve says so, keeps the exact value, and lists the moves that
    keep the draw (one test each) instead of a preferred move and a line."""
    board = "oxxxooo/oxxxoo1/1xxxxoo/1oxxxoo/oooxooo/oo-xooo/x1ooxxx x 0 1\n"
    r = _solve("--json", stdin=board)
    assert r.returncode == 0, r.stderr
    side = json.loads(r.stdout)["sides"]["x"]
    assert (side["exact"], side["value"], side["stopped"]) == (True, 0, "depth") and "depth" not in side and "pv" not in side
    p = parse_position(board).position
    legal = {p.move_name(m) for m in p.legal_moves()}
    assert side["best_move"] in side["optimal_moves"] and set(side["optimal_moves"]) < legal
    text = _solve(stdin=board).stdout
    assert f"  optimal moves: {', '.join(side['optimal_moves'])} (the preferred one needs the depth)" in text
    assert "X to move: draw (value 0), depth not computed" in text


@pytest.mark.slow
def test_with_a_time_limit_the_depth_searches_until_it_after_listing_the_drawing_moves():
    """A time (or node) limit is how long the user chose to wait: past the depth's own budget the
    solve lists the moves that keep the value, as without a limit, then searches the depth on until
    the limit (in a user's trial the budget stopped a 4-empty position's depth, 5 plies, in 2 runs
    of 9 under --timeout 30)."""
    board = "oxxxooo/oxxxoo1/1xxxxoo/1oxxxoo/oooxooo/oo-xooo/x1ooxxx x 0 1\n"
    side = json.loads(_solve("--json", stdin=board).stdout)["sides"]["x"]
    timed = json.loads(_solve("--json", "--timeout", "8", stdin=board).stdout)["sides"]["x"]
    assert (timed["exact"], timed["value"], timed["stopped"]) == (True, 0, "time") and "depth" not in timed
    assert timed["optimal_moves"] == side["optimal_moves"]


@pytest.mark.slow
def test_outcome_only_stops_at_the_outcome():
    r = _solve("--outcome-only", "--json", stdin=QUICK)
    assert r.returncode == 0, r.stderr
    side = json.loads(r.stdout)["sides"]["o"]
    assert side["outcome"] == "x-wins" and side["lower"] > 0 and "pv" not in side
    full = json.loads(_solve("--json", stdin=QUICK).stdout)["sides"]["o"]
    assert full["exact"] and side["lower"] <= full["value"] <= side["upper"]
    assert full["value"] == 11 and full["depth"] == 4 and len(full["pv"]) == 4


@pytest.mark.slow
def test_ctrl_c_prints_what_was_proved():
    proc = subprocess.Popen([sys.executable, "-m", "solver", "--json", "--no-limit"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    hard = "x5o/7/7/7/7/7/o5x x 0 1"  # the 7 x 7 start: nothing is solved in 8 s
    proc.stdin.write(hard + "\n")
    proc.stdin.close()
    ctrl_c_after(proc, 8)
    out, err = proc.stdout.read(), proc.stderr.read()
    assert proc.returncode == 130
    side = json.loads(out)["sides"]["x"]
    assert side["stopped"] == "interrupt" and side["lower"] <= side["upper"]
    assert err.strip().endswith("ataxx-solve: interrupted")


def test_a_draw_walk_past_its_positions_is_a_depth_stop_that_is_not_tried_again(monkeypatch):
    """The walk of a draw's depth keeps every position it visits (memory): past its limit it stops
    with the value exact and the drawing moves listed, and, even under a time limit, is not
    walked again (it would stop at the same place). It said 'states (raise --max-states to go
    further)', an option that has nothing to do with it."""
    import functools

    from solver.common.limits import Limits
    from solver.oracles import exact
    from solver.solve import solver as solving
    from solver.solve.solver import Solver

    walks = []

    def short_walk(*args, **kwargs):
        walks.append(1)
        return exact.draw_analysis_by_tests(*args, **kwargs, limit=0)

    monkeypatch.setattr(solving, "draw_analysis_by_tests", short_walk)
    side = Solver(algorithm="search", limits=Limits(timeout=60)).solve("to-move: x\nx.#.o").sides[0]
    assert (side.interval.lower, side.interval.upper, side.stopped) == (0, 0, "depth") and len(walks) == 1
    assert side.stop_message == "the depth of this draw needs more than 0 positions walked (the value is exact)"
    assert side.optimal_moves and side.evaluation is None
