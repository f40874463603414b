"""Game values (solver/cgt/gamevalue.py): pycgt's arithmetic against values worked by hand, the
CGSuite syntax written and read back, and the game built from a board against the solver's exact
stops on random small boards (fixed seeds), colour inversion, and the refusals (loop, zugzwang,
size, states)."""

import io
import json
import sys
import time
from fractions import Fraction

import pycgt
import pytest

from helpers import random_positions
from solver.solve.analysis import Analyzer
from solver.app.cli import main
from solver.io.formats import read_text
from solver.cgt.gamevalue import MAX_SQUARES, NoValue, cgsuite_name, game_value, parse_cgsuite
from solver.oracles.reference import ReferenceOracle
from solver.game.rules import CLASSIC, CS61B, JUMP3, UAI, Position
from solver.solve.solver import Solver

P = parse_cgsuite


def board(text: str, rules=CLASSIC) -> Position:
    return read_text(text.replace("/", "\n").encode() + b"\n", "<test>", rules=rules)[0].position


# -- the arithmetic, by hand ----------------------------------------------------------------------

def test_pycgt_agrees_with_values_worked_by_hand():
    assert P("{1|-1}") + P("{1|-1}") == pycgt.ZERO            # a switch is its own negative
    assert P("{0|*}") == pycgt.UP and cgsuite_name(P("{0|*}")) == "^"
    assert P("{0|1}") == P("1/2") and pycgt.as_number(P("{0|1}")) == Fraction(1, 2)
    assert cgsuite_name(P("{5|}")) == "6" and cgsuite_name(P("{|-3}")) == "-4"
    assert cgsuite_name(P("{1|{3|-3}}")) == "2"               # the reversible option {3|-3} bypassed
    assert cgsuite_name(P("{0,*|0,*}")) == "*2"
    assert cgsuite_name(P("{2,{3|1}|0}")) == "{{3|1},2|0}"    # neither option dominates the other
    assert cgsuite_name(P("{2,1|0}")) == "{2|0}"              # 1 is dominated by 2
    g = P("{{5|1}|-5}")
    assert (pycgt.left_stop(g), pycgt.right_stop(g)) == (1, -5)
    assert (pycgt.mean(g), pycgt.temperature(g)) == (-1, 4)   # the thermograph's mast and height
    h = P("{{3|1}|{-1|-3}}")
    assert (pycgt.mean(h), pycgt.temperature(h)) == (0, 2)
    assert pycgt.temperature(P("1/2")) == Fraction(-1, 2) and pycgt.temperature(P("3")) == -1


@pytest.mark.parametrize("text", ["0", "-3", "1/2", "-3/4", "*", "*3", "^", "v", "^*", "v*", "+-9", "+-1/2",
                                  "{5|1||-5}", "{3||2|1}", "{1,*|0}", "{{3|1},2|0}", "{5||1|1|||{1,{1|-5}|-5},-5}"])
def test_cgsuite_names_read_back(text):
    g = P(text)
    assert P(cgsuite_name(g)) == g
    assert cgsuite_name(P(cgsuite_name(g))) == cgsuite_name(g)


def test_the_bars_nest_as_cgsuite_writes_them():
    assert P("{5|1||-5}") == pycgt.game([pycgt.switch(5, 1)], [pycgt.integer(-5)])
    assert P("{3||2|1}") == pycgt.game([pycgt.integer(3)], [pycgt.switch(2, 1)])
    assert cgsuite_name(pycgt.game([pycgt.switch(5, 1)], [pycgt.integer(-5)])) == "{5|1||-5}"
    assert cgsuite_name(pycgt.switch(9, -9)) == "+-9"


@pytest.mark.parametrize("text, why", [("", "empty"), ("{1|0", "unbalanced"), ("1/3", "dyadic"),
                                       ("{1|0|1}", "two splits"), ("abc", "not a game")])
def test_bad_cgsuite_text_is_refused_with_its_reason(text, why):
    with pytest.raises(ValueError, match=why):
        P(text)


# -- boards ---------------------------------------------------------------------------------------

def test_chens_blocked_board_gets_its_canonical_form_stops_mean_and_temperature():
    v = game_value(board("x.#o/.##."))
    assert v.canonical == "{5||1|1|||{1,{1|-5}|-5},-5}"
    assert (v.left_stop, v.right_stop) == (1, -5)      # SPEC section 9 (the naive { | G^R } gives 2)
    assert (v.mean, v.temperature) == (-1, 4)          # as worked by hand for 5|1||-5
    assert v.to_json() == {"canonical": v.canonical, "left_stop": 1, "right_stop": -5, "mean": -1,
                           "temperature": 4}


@pytest.mark.parametrize("text", ["x...o", "x../.../..o", "x###/#.../#.../###o"])
def test_a_board_where_play_can_repeat_is_refused_naming_the_repetition(text):
    with pytest.raises(NoValue, match=r"^no canonical form: play can repeat \(from ") as err:
        game_value(board(text))
    assert err.value.kind == "loop"
    assert err.value.reason.startswith("no canonical form: play can repeat (from ")
    assert "returns to a board" in err.value.reason and "\n" not in err.value.reason


def test_a_zugzwang_board_is_refused_as_not_faithful():
    p = board(".#o/.ox")
    a, b = Analyzer(ReferenceOracle()).stops(p)
    assert a < b  # neither side wants to move
    with pytest.raises(NoValue, match="^no faithful canonical form: the board is a zugzwang ") as err:
        game_value(p)
    assert err.value.kind == "zugzwang"
    assert err.value.reason == f"no faithful canonical form: the board is a zugzwang (X first {a:+d}, O first {b:+d}; " \
                               "a CGT game's left stop is never below its right stop)"


def test_limits_refuse_in_one_line():
    with pytest.raises(NoValue, match=f"at most {MAX_SQUARES}") as err:
        game_value(Position.start(5, 5))
    assert err.value.kind == "size"
    with pytest.raises(NoValue, match="more than 3 boards") as err:
        game_value(board("x.#o/.##."), max_states=3)
    assert err.value.kind == "states"


def _checked(positions, limit=5000):
    """(values, refusals) of the boards, each value's stops checked against the solver's."""
    values = refused = 0
    for p in positions:
        a, b = Analyzer(ReferenceOracle()).stops(p)
        try:
            v = game_value(p, max_states=limit)
        except NoValue as e:
            assert e.kind in ("loop", "zugzwang", "states")
            if e.kind == "zugzwang":
                assert a < b if "the board is" in e.reason else "a board of its game is a zugzwang, " in e.reason
            refused += 1
            continue
        values += 1
        assert (v.left_stop, v.right_stop) == (a, b), (p, v.canonical)
        assert P(v.canonical) == v.game  # the printed form reads back as the same game
        inverse = game_value(p.inverted())
        assert inverse.game == pycgt.negate(v.game)  # colour inversion negates the value
        assert inverse.mean == -v.mean and inverse.temperature == v.temperature
        for perm in p.board.symmetries[1:2]:  # a symmetry of the board gives the same game (SPEC section 6)
            assert game_value(p.transform(perm)).game == v.game
    return values, refused


def test_the_stops_of_the_game_built_are_the_solvers_stops_classic():
    values, refused = _checked(random_positions(11, 40, max_empty=5))
    assert values >= 25  # most tiny boards have a value; measured 35 of 40


@pytest.mark.slow  # the same on more positions (the quick suite's 3 minutes, README)
def test_the_stops_of_the_game_built_are_the_solvers_stops_classic_more():
    values, refused = _checked(random_positions(11, 120, max_empty=5))
    assert values >= 80  # most tiny boards have a value; measured 108 of 120 (12 refused)


@pytest.mark.parametrize("rules, seed, count", [pytest.param(UAI, 12, 8, marks=pytest.mark.slow), (CS61B, 13, 20),
                                                pytest.param(JUMP3, 14, 10, marks=pytest.mark.slow)])
def test_the_stops_of_the_game_built_are_the_solvers_stops_counters(rules, seed, count):
    values, refused = _checked(random_positions(seed, count, rules=rules, max_empty=3))
    assert values >= count // 2


# -- the API and the command ----------------------------------------------------------------------

def _run(argv, text, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    return main(argv)


def test_the_report_carries_the_game_value_when_asked():
    report = Solver().solve("x.#o\n.##.\n", value=True)
    assert report.game_value is not None and report.game_value.canonical == "{5||1|1|||{1,{1|-5}|-5},-5}"
    assert report.board is not None and report.board.stops == (1, -5)
    assert Solver().solve("x.#o\n.##.\n").game_value is None  # only when asked
    looped = Solver().solve("x...o\n", value=True)
    assert looped.game_value is None and looped.game_value_note.startswith("no canonical form: play can repeat")


def test_value_option_prints_the_canonical_form_stops_mean_and_temperature(monkeypatch, capsys):
    assert _run(["--value"], "x.#o\n.##.\n", monkeypatch) == 0
    out = capsys.readouterr().out
    assert "canonical form: {5||1|1|||{1,{1|-5}|-5},-5}\n  stops: left 1, right -5; mean -1, temperature 4\n" in out
    assert _run(["--value"], "x...o\n", monkeypatch) == 0  # the stops and summary are exact: not a failure
    out = capsys.readouterr().out
    assert "orthodox summary: 0\nno canonical form: play can repeat (from .xx.o, X c1a1, X a1c1 returns to" in out
    assert _run([], "x.#o\n.##.\n", monkeypatch) == 0
    assert "canonical" not in capsys.readouterr().out


def test_value_option_json_keys(monkeypatch, capsys):
    assert _run(["--value", "--json"], "x.#o\n.##.\n", monkeypatch) == 0
    obj = json.loads(capsys.readouterr().out)
    assert {k: obj[k] for k in ("canonical", "left_stop", "right_stop", "mean", "temperature")} == \
        {"canonical": "{5||1|1|||{1,{1|-5}|-5},-5}", "left_stop": 1, "right_stop": -5, "mean": -1, "temperature": 4}
    assert _run(["--value", "--json"], "x...o\n", monkeypatch) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["canonical"] is None and obj["canonical_note"].startswith("no canonical form: play can repeat")
    assert obj["stops"] == {"x": -3, "o": 3}  # what is exact stays


def test_thermograph_option_writes_the_picture_or_says_why_not(monkeypatch, capsys, tmp_path):
    target = tmp_path / "thermo.svg"
    assert _run(["--thermograph", str(target)], "x.#o\n.##.\n", monkeypatch) == 0
    captured = capsys.readouterr()
    assert f"wrote {target}" in captured.err and "canonical form: {5||1|1|||" in captured.out  # implies --value
    svg = target.read_text()
    assert svg.startswith("<svg ") and svg.rstrip().endswith("</svg>")
    assert ">{5||1|1|||{1,{1|-5}|-5},-5}</text>" in svg and "temperature upward: 4, mean -1" in svg
    # drawn as Winning Ways and CGSuite draw it (issue 30 item 11): values increase to the left, so
    # Left's wall (its foot at the left stop, 1) is left of Right's (at the right stop, -5)
    import xml.etree.ElementTree as ET
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    walls = {p.get("class"): p.get("d") for p in root.iter(ns + "path")}
    foot = {k: float(d.split()[0][1:].split(",")[0]) for k, d in walls.items()}
    assert foot["wall left"] < foot["wall right"]
    texts = {t.get("class"): (float(t.get("x")), t.text) for t in root.iter(ns + "text") if t.get("class")}
    assert texts["high"][1] == "1" and texts["low"][1] == "-5" and texts["high"][0] < texts["low"][0]
    assert "values increase to the left: Left's wall on the left, as in Winning Ways and CGSuite" in \
        texts["legend"][1]
    target.unlink()
    assert _run(["--thermograph", str(target)], "x...o\n", monkeypatch) == 0
    assert "<stdin>:1: no thermograph: no canonical form: play can repeat" in capsys.readouterr().err
    assert not target.exists()
    mine = tmp_path / "notes.txt"
    mine.write_text("not a picture\n")
    assert _run(["--thermograph", str(mine)], "x.#o\n.##.\n", monkeypatch) == 2  # never over a file not ours
    assert mine.read_text() == "not a picture\n"


def test_a_deadline_stops_the_work_in_one_line():
    with pytest.raises(NoValue, match=r"out of time after 0 boards \(raise --timeout") as err:
        game_value(board("x.#o/.##."), deadline=time.monotonic() - 1)
    assert err.value.kind == "time"


def test_a_zugzwang_inside_the_game_is_named_with_its_counter():
    p = board("..xxo.", CS61B).replace(counter=18)
    with pytest.raises(NoValue, match=r"a board of its game is a zugzwang, x\.\.\.oo at counter 22 ") as err:
        game_value(p)
    assert err.value.reason == "no faithful canonical form: a board of its game is a zugzwang, x...oo at counter 22 " \
                               "(X first -4, O first -2; a CGT game's left stop is never below its right stop)"
    a, b = Analyzer(ReferenceOracle()).stops(board("x...oo", CS61B).replace(counter=22))
    assert (a, b) == (-4, -2)  # the solver agrees: a zugzwang


@pytest.mark.parametrize("rows, cols, rules, canonical, temperature", [
    (1, 3, CLASSIC, "+-3", 3), (1, 4, CLASSIC, "{4,{4|-2}|{2|-4},-4}", 4), (2, 3, CLASSIC, "+-6", 6),
    (1, 4, UAI, "{{4|-2},2|{2|-4},-2}", 2), (2, 3, CS61B, "+-5", 5)])
def test_symmetric_starts_are_their_own_negatives_of_mean_zero(rows, cols, rules, canonical, temperature):
    p = Position.start(rows, cols, rules)
    v = game_value(p)
    assert (v.canonical, v.mean, v.temperature) == (canonical, 0, temperature)
    assert v.game == pycgt.negate(v.game)
    assert (v.left_stop, v.right_stop) == Analyzer(ReferenceOracle()).stops(p)


def test_endless_play_while_the_other_side_passes():
    # O wiped out: X fills the row (+4) or jumps a1c1, c1a1 ... forever; the draw is worse, left out
    v = game_value(board("x..."))
    assert (v.canonical, v.left_stop, v.right_stop) == ("{4|4}", 4, 4)
    assert (v.left_stop, v.right_stop) == Analyzer(ReferenceOracle()).stops(board("x..."))
    with pytest.raises(NoValue, match="O moves on forever while X passes") as err:  # O can only jump to and fro
        game_value(board("#.#o#"))
    assert err.value.reason == "no canonical form: play can repeat (O moves on forever while X passes, " \
                               "d1b1 0000 b1d1 0000 at #.#o#, and cannot end the game)"


def test_chens_convention_is_explicit_and_reproduces_his_zero(monkeypatch, capsys):
    v = game_value(board("x...o"), cut_loops=True)
    assert (v.canonical, v.left_stop, v.right_stop, v.cut_loops) == ("0", 0, 0, True)  # Chen 2002 printed 0
    assert len(v.cuts) == 72 and "from .xx.o, X c1a1, X a1c1" in v.cuts
    assert v.to_json()["loops_cut"] == 72
    same = game_value(board("x.#o/.##."), cut_loops=True)  # without a loop that matters: the same game
    assert same.game == game_value(board("x.#o/.##.")).game
    assert _run(["--cut-loops"], "x...o\n", monkeypatch) == 0
    out = capsys.readouterr().out
    assert "canonical form (loops cut): 0\n" in out
    assert "  Chen's convention: 72 repetitions cut to 0 and zugzwangs kept as CGT values them: the value of the " \
           "game cut, not of the board (its stops are the solver's above); the first: " in out
    assert "X first: -3, O first: +3" in out  # the exact stops stay
