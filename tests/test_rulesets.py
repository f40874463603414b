"""The four rule sets: boards whose values differ between them, counters at their limits,
each engine against the reference solver with counters."""

import io
import json
import random
import sys

import pytest

from helpers import random_position
from solver.solve.analysis import Analyzer
from solver.app.cli import main
from solver.solve.solver import Solver
from solver.io.formats import parse_fen, parse_position, write_fen
from solver.oracles.reference import ReferenceOracle
from solver.game.rules import CLASSIC, CS61B, JUMP3, RULE_SETS, UAI, O, X

# (board with X to move, counter, {rules: value}): each differs between some rule sets.
DIFFERING = [
    # A three-square jump exists only under jump3: a1d1 takes O's last piece and ends the game.
    ("x...o", 0, {"classic": -3, "uai": -3, "cs61b": -3, "jump3": 2}),
    # X can capture O's only piece: under classic O then passes while X fills the board.
    ("x..o\n#..#", 0, {"classic": 6, "uai": 2, "cs61b": 2, "jump3": 2}),
    ("x..#o", 0, {"classic": 4, "uai": 3, "cs61b": 3, "jump3": 2}),
    # One step from the uai limit: a jump makes the clock 100, a draw, better than losing by 3.
    ("x...o", 99, {"classic": -3, "uai": 0}),
    # One step from the cs61b limit: a jump ends the game and the pieces are counted (1 - 1).
    ("x...o", 24, {"classic": -3, "cs61b": 0, "uai": -3}),
    # One ply from the jump3 limit: any move ends the game; the clone b1 leaves 2 - 1.
    ("x....o", 199, {"jump3": 1}),
    ("x....o", 198, {"jump3": -1}),
    ("x....o", 0, {"jump3": 0}),
]


def _value(grid, counter, rules, engine="reference"):
    p = parse_position(f"to-move: x\ncounter: {counter}\n{grid}", rules=RULE_SETS[rules]).position
    oracle = ReferenceOracle() if engine == "reference" else Solver(algorithm=engine).oracle(p)
    return Analyzer(oracle).evaluate(p).value


@pytest.mark.slow
@pytest.mark.parametrize("grid,counter,values", DIFFERING)
def test_values_differ_between_rule_sets(grid, counter, values):
    for rules, want in values.items():
        assert _value(grid, counter, rules) == want, rules
        for engine in ("retro", "search"):
            assert _value(grid, counter, rules, engine) == want, (rules, engine)


def test_at_least_three_values_on_one_board():
    assert len({_value("x..#o", 0, r) for r in RULE_SETS}) == 3


@pytest.mark.slow
@pytest.mark.parametrize("rules", [UAI, CS61B, JUMP3], ids=lambda r: r.name)
def test_engines_one_step_from_the_limit(rules):
    """Random positions with the counter one step (and two steps) below the limit."""
    rng = random.Random(4242)
    shapes = [(1, 5), (2, 3), (2, 4), (3, 3)]
    for k in range(40):
        p = random_position(rng, shapes=shapes, rules=rules)
        p = p.replace(counter=rules.limit - 1 - (k % 2))
        ref = Analyzer(ReferenceOracle())
        for engine in ("retro", "search"):
            a = Analyzer(Solver(algorithm=engine).oracle(p))
            for side in (X, O):
                q = p.replace(turn=side)
                assert a.evaluate(q).value == ref.evaluate(q).value, (write_fen(q), rules.name, engine)


def test_counter_is_part_of_the_key():
    p = parse_fen("x3o x 0 1", UAI)
    q = p.replace(counter=99)
    assert p.key() != q.key()
    a = Solver(algorithm="retro").analyzer(p)
    assert a.evaluate(p).value == -3 and a.evaluate(q).value == 0


@pytest.mark.parametrize("fen", ["x5o/7/7/7/7/7/o5x x 99 12", "x3o o 24 3", "x1-o/1--1 x 7 1"])
def test_fen_round_trip_keeps_the_counter(fen):
    for rules in (UAI, CS61B, JUMP3):
        p = parse_fen(fen, rules)
        assert parse_fen(write_fen(p), rules) == p
        assert write_fen(p).split()[2] == fen.split()[2]


def test_clock_99_from_a_uai_fen(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x3o x 99 1\n")))
    assert main(["--rules", "uai", "--json", "--moves"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["rules"] == "uai" and obj["counter"] == 99 and obj["fen"] == "x3o x 99 1"
    x = obj["sides"]["x"]
    assert x["value"] == 0 and x["outcome"] == "draw" and x["best_move"] in ("a1c1",)
    by_move = {m["move"]: m["value"] for m in x["moves"]}
    assert by_move["a1c1"] == 0 and by_move["b1"] == -3


def test_rules_header_and_flag(tmp_path, capsys):
    f = tmp_path / "p.txt"
    f.write_text("rules: jump3\nto-move: x\nx...o\n\nto-move: x\nx...o\n")
    assert main([str(f), "--rules", "cs61b", "--json"]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert (first["rules"], first["sides"]["x"]["value"]) == ("jump3", 2)
    assert (second["rules"], second["sides"]["x"]["value"]) == ("cs61b", -3)


def test_classic_ignores_the_counter():
    assert parse_fen("x3o x 57 1", CLASSIC).counter == 0


def test_memory_limit_on_the_answers_per_counter_value():
    """Under jump3 a board's answer changes with the plies left; the histories count against
    --max-memory and stop the solve cleanly, leaving the oracle as it was."""
    from solver.oracles.retro import RetroOracle
    from solver.common.limits import MemoryLimitError
    from solver.game.rules import Position

    p = Position.start(3, 4, JUMP3)
    oracle = RetroOracle(p.board, JUMP3, max_memory=20 << 20)
    with pytest.raises(MemoryLimitError, match="answers per counter value outgrew the memory budget of 20.0 MiB"):
        oracle.prepare([p])
    assert oracle.states == 0
    q = parse_fen("xxo1/xoxo/x1ox x 195 1", JUMP3)  # two empty squares: a small solve fits afterwards
    assert oracle.lookup(q) == RetroOracle(p.board, JUMP3).lookup(q)
