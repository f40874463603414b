"""verify --engine 'cs61b:CMD' and 'colon:CMD' (solver.play.adapters), and --notation cs61b."""

import json
import sys
from pathlib import Path

import pytest

from solver.play.adapters import (CannotAskError, colon_answer, colon_question, cs61b_blocks, cs61b_commands,
                             make_program)
from solver.app.cli import main
from solver.io.formats import parse_position
from solver.game.notation import CS61B_NOTATION, UAI_NOTATION, Notation, cs61b_move
from solver.game.rules import O, X, Position

HERE = Path(__file__).resolve().parent
CS61B_FAKE = f"cs61b:{sys.executable} {HERE / 'fake_cs61b.py'}"
COLON_FAKE = f"colon:{sys.executable} {HERE / 'fake_colon.py'}"

# A 7 x 7 board whose middle five rows are blocked (symmetric: CS 61B can set it): two rows
# of seven, ten empty squares; a game of five moves from the start.
TWO_ROWS = "x.....o\n" + "#######\n" * 5 + "o.....x\n"
GAME = "name: two rows\nrules: cs61b\nto-move: x\nmoves: b7 f7 a7c7 b1 c7e7\n" + TWO_ROWS
ONE_MOVE = "name: one move\nrules: cs61b\nto-move: x\nmoves: b7\n" + TWO_ROWS
PGN = ('[Event "two rows"]\n[Black "alice"]\n[White "bob"]\n'
       '[FEN "x5o/-------/-------/-------/-------/-------/o5x x 0 1"]\n\n1. b7 f7 2. a7c7 b1 3. c7e7 *\n')

# Three positions for the colon programs: 3 x 3 (X to move, +9), 2 x 4 with blocks (O to move), 1 x 5.
SUITE = """\
name: three by three
to-move: x
x..
...
..o

name: blocks, O to move
to-move: o
x.#o
.##.

name: one row
to-move: x
x...o
"""


def _run(args, capsys):
    code = main(["verify", *args, "--json"])
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    return code, [r for r in recs if "summary" not in r]


def _file(tmp_path, name, text):
    f = tmp_path / name
    f.write_text(text)
    return str(f)


# -- notation ---------------------------------------------------------------------------------------

def test_cs61b_notation_of_moves_and_sides():
    p = Position.start(7, 7)
    assert cs61b_move(p, p.parse_move("b6")) == "a7-b6"     # a clone: from the first piece next to it
    assert cs61b_move(p, p.parse_move("a7c5")) == "a7-c5"
    q = parse_position("x.x\n...\n...").position  # two X pieces next to b2: a3 comes first (files, then ranks)
    assert cs61b_move(q, q.parse_move("b2")) == "a3-b2"
    lone = parse_position("x..##o").position.replace(turn=O)
    assert [cs61b_move(lone, m) for m in lone.legal_moves()] == ["-"]
    assert (CS61B_NOTATION.side(X), CS61B_NOTATION.side(O), UAI_NOTATION.side(O)) == ("Red", "Blue", "O")
    assert CS61B_NOTATION.words("X wins by 3; O to move") == "red wins by 3; blue to move"
    assert CS61B_NOTATION.move_text(p, "b6") == "a7-b6" and CS61B_NOTATION.move_text(p, "zz") == "zz"
    with pytest.raises(ValueError, match="unknown notation"):
        Notation("chess")


def test_solve_with_cs61b_notation(tmp_path, capsys):
    f = _file(tmp_path, "p.txt", "to-move: x\nx..\n...\n..o\n")
    assert main(["solve", f, "--notation", "cs61b", "--solver", "reference"]) == 0
    out = capsys.readouterr().out
    assert "Red to move: red wins by 9 (value +9), depth 13" in out
    assert "  best move: a3-b2 (also optimal: a3-b1, a3-c2)" in out
    assert "  line: a3-b2 - b2-a1 - a1-a2 - a1-b1 - a2-b3 - b1-c2 - b2-c3 (ends +9)" in out


def test_one_notation_in_a_run_the_board_and_the_progress_line_too(tmp_path, capsys, monkeypatch):
    """--notation cs61b drew the board with x and o and the progress line said 'X to move' while
    the report said 'Red' (issue 30 item 10): the board's pieces are r and b, the sides red and
    blue everywhere, the moves a7-b6."""
    import sys

    from solver.app.commands.progress import ProgressView
    from solver.oracles.oracle import Progress
    f = _file(tmp_path, "p.txt", "to-move: x\nx..\n...\n..o\n")
    assert main(["solve", f, "--notation", "cs61b", "--solver", "reference"]) == 0
    out = capsys.readouterr().out
    assert "3 r.. 3\n2 ... 2\n1 ..b 1" in out and " x" not in out.split("rules:")[0]
    p = Position.start(7, 7)
    ev = Progress("searching", 5000, unit="nodes", seconds=1.0, position=p, lower=-3, upper=49,
                  best_move=p.parse_move("b6"))
    assert ProgressView.search_text(ev, CS61B_NOTATION).startswith("Red to move: value -3..+49, best a7-b6 |")
    assert ProgressView.search_text(ev).startswith("X to move: value -3..+49, best b6 |")
    testing = Progress("testing", 1_500_000, unit="nodes", seconds=1.0, position=p)  # the tests after the value
    assert ProgressView.search_text(testing, CS61B_NOTATION) == "Red to move: depth and line | 1.5M nodes, 1.5M/s, 1.0 s"
    # the solve command's own progress line, drawn as on a terminal
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    g = _file(tmp_path, "s.txt", "x5o/7/7/7/7/7/o5x x 0 1\n")
    main(["solve", g, "--notation", "cs61b", "--solver", "search", "--nodes", "200000"])
    out, err = capsys.readouterr()
    assert f"{g}:1: Red to move: value " in err and "X to move" not in err, err[-300:]  # the position first
    assert "7 r.....b 7" in out


def test_json_and_batch_with_cs61b_notation(tmp_path, capsys):
    f = _file(tmp_path, "p.txt", "to-move: x\nx..\n...\n..o\n")
    assert main(["solve", f, "--json", "--notation", "cs61b", "--solver", "reference"]) == 0
    side = json.loads(capsys.readouterr().out)["sides"]["x"]
    assert (side["best_move"], side["optimal_moves"], side["pv"][:3]) == ("a3-b2", ["a3-b2", "a3-b1", "a3-c2"],
                                                                        ["a3-b2", "-", "b2-a1"])
    prints = []
    for notation in ("cs61b", "uai"):
        assert main(["batch", f, "--no-cache", "--jobs", "1", "--notation", notation, "--solver", "reference"]) == 0
        rec = json.loads(capsys.readouterr().out.splitlines()[0])
        prints.append(rec["fingerprint"])
        assert rec["sides"]["x"]["best_move"] == ("a3-b2" if notation == "cs61b" else "b2")
    assert prints[0] != prints[1]  # a resumed --out never mixes notations


# -- the CS 61B language ----------------------------------------------------------------------------

def test_cs61b_setup_commands():
    p = parse_position(TWO_ROWS).position
    blocks = cs61b_blocks(p)
    assert blocks == ["a2", "b2", "c2", "d2", "a3", "b3", "c3", "d3", "a4", "b4", "c4", "d4"]
    assert cs61b_commands(p, None, seed=5) == ["clear", "seed 5"] + [f"block {b}" for b in blocks]
    after = p.push(p.parse_move("b7"))
    assert cs61b_commands(after, (p, ("b7",)))[-1] == "a7-b7"
    with pytest.raises(CannotAskError, match="cannot place pieces"):
        cs61b_commands(after, None)
    with pytest.raises(CannotAskError, match="7 x 7 boards only, not 3 x 3"):
        cs61b_blocks(parse_position("x..\n...\n..o").position)
    with pytest.raises(CannotAskError, match="block on a6 has no mirror image"):
        cs61b_blocks(parse_position("x.....o\n##.....\n" + ".......\n" * 4 + "o.....x").position)
    other = parse_position("x.....o\n" + "#######\n" * 5 + "o....xx").position
    with pytest.raises(CannotAskError, match="does not start from the standard start"):
        cs61b_commands(other, (other, ()))
    assert make_program("builtin:greedy") is None
    with pytest.raises(ValueError, match="needs a command"):
        make_program("cs61b: ")


FIRST = [("X", "a7c7", "optimal", 0), ("O", "a1c1", "optimal", 0), ("X", "a7c7", "blunder", 8),
         ("O", "a1c1", "blunder", 6), ("X", "a7", "blunder", 6)]
LAST = [("X", "g1e1", "optimal", 0), ("O", "g7e7", "blunder", 4), ("X", "g1e1", "optimal", 0),
        ("O", "g7e7", "blunder", 8), ("X", "g1e1", "blunder", 4)]


def test_cs61b_program_plays_the_games_moves(tmp_path, capsys):
    f = _file(tmp_path, "game.txt", GAME)
    code, checks = _run([f, "--engine", f"{CS61B_FAKE} first", "--engine", f"{CS61B_FAKE} last"], capsys)
    assert code == 0
    got = {name: [(c["fen"].split()[1].upper(), c["move"], c["verdict"], c["loss"]) for c in checks
                  if c["player"].endswith(name)] for name in ("first", "last")}
    assert got == {"first": FIRST, "last": LAST}


def test_cs61b_program_on_a_pgn_game_and_in_its_notation(tmp_path, capsys):
    f = _file(tmp_path, "game.pgn", PGN)
    assert main(["verify", f, "--rules", "cs61b", "--engine", f"{CS61B_FAKE} first", "--notation", "cs61b"]) == 0
    out = capsys.readouterr().out
    assert ": 2. a7-c7 is a blunder (-4; best g1-e1 +4, loses 8)" in out  # ply 2, as in the game record
    assert "game 1 (alice vs bob), ply 4: " in out and ": 3. b7-a7 is a blunder (-4; best c7-e7 +2, loses 6)" in out


@pytest.mark.parametrize("mode, problem", [
    ("crash", "the engine crashed during start (exit status 3; restarted)"),
    ("garbage", "unparsable answer 'Red moves somewhere.' (restarted)"),
    ("illegal", "illegal or unparsable move: g1-a1 is not legal for X here"),
    ("noblock", "the program's board after the setup (its dump) is not the game's position (restarted)"),
    ("wrongside", "Blue moved where Red is to move (restarted)"),
    ("over", "the program says the game is over ('Draw.') where Red has a move (restarted)"),
    ("hang", "no answer to start within 1 s (hung; restarted)"),  # (1 s; the others 20)
])
def test_cs61b_program_that_misbehaves(tmp_path, capsys, mode, problem):
    f = _file(tmp_path, "one.txt", ONE_MOVE)
    timeout = "1" if mode == "hang" else "20"
    code, checks = _run([f, "--engine", f"{CS61B_FAKE} {mode}", "--move-timeout", timeout], capsys)
    assert code == 1
    assert [c["problem"] for c in checks] == [problem]


def test_cs61b_program_restarted_after_a_crash(tmp_path, capsys):
    f = _file(tmp_path, "game.txt", GAME)
    code, checks = _run([f, "--engine", f"{CS61B_FAKE} crash {tmp_path / 'once'}"], capsys)
    assert code == 1
    assert checks[0]["problem"] == "the engine crashed during start (exit status 3; restarted)"
    assert [(c["move"], c["verdict"]) for c in checks[1:]] == [(m, v) for _, m, v, _ in FIRST[1:]]


def test_cs61b_program_and_bare_positions(tmp_path, capsys):
    f = _file(tmp_path, "bare.txt", "name: bare\nto-move: o\n" + TWO_ROWS.replace("x.....o", "xx....o", 1)
              + "\nname: the start\nrules: cs61b\nto-move: x\n" + TWO_ROWS
              + "\nname: small\nto-move: x\nmoves: b2\nx..\n...\n..o\n")
    code, checks = _run([f, "--engine", f"{CS61B_FAKE} first"], capsys)
    assert code == 1
    assert [(c["name"], c["move"] or c["problem"]) for c in checks] == [
        ("bare", "the CS 61B language cannot place pieces: a CS 61B program checks the moves of games (PGN, or a "
                 "moves: header), not a bare position"),
        ("the start", "a7c7"),  # a bare position that is the start needs no move
        ("small", "the CS 61B language plays on 7 x 7 boards only, not 3 x 3")]


# -- colon grids ------------------------------------------------------------------------------------

def test_colon_question_and_answer():
    p = parse_position("to-move: o\nx.#o\n.##.").position
    assert colon_question(p) == "2:0:#:1:\n0:#:#:0:\n"  # the side to move is 1
    q = Position.start(7, 7)
    assert colon_answer(q, "0:0:1:0:") == "a7-b7" and colon_answer(q, "6:6:4:6:") == "g1-e1"
    assert colon_answer(q, "0:0:7:0:") == "0:0:7:0:"  # off the board: left for verify to refuse
    with pytest.raises(ValueError):
        colon_answer(q, "a7b7")


def test_colon_program_verdicts(tmp_path, capsys):
    f = _file(tmp_path, "suite.txt", SUITE)
    code, checks = _run([f, "--engine", f"{COLON_FAKE} good", "--engine", f"{COLON_FAKE} last"], capsys)
    assert code == 0
    assert [(c["player"].split()[-1], c["move"], c["verdict"], c["loss"]) for c in checks] == [
        ("good", "b2", "optimal", 0), ("last", "b3", "blunder", 18),
        ("good", "d2b2", "optimal", 0), ("last", "d2b2", "optimal", 0),  # O to move: -5 (SPEC section 9)
        ("good", "b1", "optimal", 0), ("last", "b1", "optimal", 0)]


@pytest.mark.parametrize("mode, problem", [
    ("illegal", "illegal or unparsable move: a3-c1 is not legal for X here"),
    ("offboard", "illegal or unparsable move: '0:0:3:0:' is not a move (expected like c3, a1c3 or 0000)"),
    ("garbage", "no move line (x0:y0:x1:y1:) in the program's answer (its first line: 'thinking... the best move "
                "is the one in '... (50 characters))"),
    ("two", "2 different move lines in the program's answer ('0:0:0:1:', '0:1:0:0:')"),
    ("crash", "the program crashed (exit status 3)"),
    ("late-crash", "the program crashed (exit status 3)"),
    ("hang", "no answer within 1 s (hung; stopped)"),
])
def test_colon_program_that_misbehaves(tmp_path, capsys, mode, problem):
    f = _file(tmp_path, "one.txt", SUITE.split("\n\n")[0] + "\n")
    timeout = "1" if mode == "hang" else "20"
    code, checks = _run([f, "--engine", f"{COLON_FAKE} {mode}", "--move-timeout", timeout], capsys)
    assert code == 1
    assert [c["problem"] for c in checks] == [problem]


def test_colon_program_is_not_run_for_a_forced_pass(tmp_path, capsys):
    # O (to move) has no legal move but X has: the pass is answered without running the program
    f = _file(tmp_path, "pass.txt", "to-move: o\nx..##o\n")
    code, checks = _run([f, "--engine", f"{COLON_FAKE} crash"], capsys)
    assert code == 0
    assert [(c["move"], c["verdict"]) for c in checks] == [("0000", "optimal")]

