"""EPD test suites (solver/io/epd.py): reading the lines and their operations, writing them from batch
records (batch --epd), and the suite's bm and ce checked by solve, batch and verify."""

from __future__ import annotations

import json

import pytest

from helpers import random_positions
from solver.app.cli import main
from solver.io.epd import (ce_mismatches, epd_line, epd_lines, is_epd_output, looks_like_epd, parse_epd_line, parse_ops,
                        read_epd_lines)
from solver.game.fen import PositionFormatError
from solver.io.fenlines import read_fen_lines
from solver.io.formats import read_file, read_positions
from solver.game.rules import UAI, O, Position, X

# X to move is worth +8: b1 and d1b1 keep it, c1 and c2 give +4, a2c1 and a2c2 -8
SUITE = 'xx1o/o2x x bm b1 d1b1; ce 8; id "two best";\nx2/3/2o o bm b2 c1a2 c1b3; ce 9; id "corner";\n'


# -- reading ------------------------------------------------------------------------------------------

def test_operations_words_and_strings():
    assert parse_ops('bm b2 a1c3; ce -3; id "a; b"; c0 "x";') == {"bm": ["b2", "a1c3"], "ce": ["-3"],
                                                                   "id": ["a; b"], "c0": ["x"]}
    assert parse_ops('id "last";   noop') == {"id": ["last"], "noop": []}  # the last ';' may be missing
    for bad, why in (("bm b2; bm c3;", "bm given twice"), ('id "open', "never closed"), ("3 b2;", "opcode")):
        with pytest.raises(PositionFormatError, match=why):
            parse_ops(bad, "s.epd", 4)


def test_a_line_gives_the_position_its_best_moves_value_and_name():
    e = parse_epd_line('x2/3/2o o bm c1a2 b2; ce 9; id "corner";', 3, "s.epd")
    assert e.position == Position.from_fen("x2/3/2o o 0 1")
    assert (e.bm, e.ce, e.id, e.line) == (["c1a2", "b2"], 9, "corner", 3)
    # libataxx's letters; a clone written as a jump is the clone; the counters of a whole FEN
    e = parse_epd_line("b2/3/2w w 5 12 bm c1b2;", rules=UAI)
    assert e.position == Position.from_fen("x2/3/2o o 5 12", UAI) and e.bm == ["b2"]
    e = parse_epd_line("x2/3/2o o hmvc 7; fmvn 3;", rules=UAI)
    assert (e.position.counter, e.position.fullmove, e.bm, e.ce) == (7, 3, [], None)


def test_bad_lines_are_one_error_naming_the_line():
    for line, why in (("x2/3/2o o bm a1;", "EPD: bm 'a1': a1 is not legal for O here"),
                      ("x2/3/2o o ce 99;", "EPD: ce must be a whole number from -64 to 64"),
                      ("x2/3/2o o ce 1 2;", "EPD: ce takes one operand, not 2"),
                      ("x2/3/2o o bm;", "EPD: bm names no move")):
        with pytest.raises(PositionFormatError) as exc:
            parse_epd_line(line, 5, "s.epd")
        assert str(exc.value).startswith(f"s.epd:5: {why}"), str(exc.value)
    items = read_epd_lines("x2/3/2o o bm b2;\n\n; a comment\nx2/3/2o o bm zz;\n", "s.epd")
    assert [type(i).__name__ for i in items] == ["EpdLine", "PositionFormatError"] and items[1].line == 4


def test_detected_by_the_operations_after_the_board_and_side():
    assert looks_like_epd(SUITE) and looks_like_epd("; suite\n\nx2/3/2o o 0 1 bm b2;\n")
    for text in ("x2/3/2o o 0 1\n", "x2/3/2o o\n", "x...o\n", '[Event "e"]\n', "name: a\nx...o\n", "x2/3/2o o bm b2\n",
                 "x2/3/2o o 0 1 moves b2 ; a note\n", "x2/3/2o o xyz b2;\n"):
        assert not looks_like_epd(text), text


def test_the_bulk_reader_of_fen_lines_leaves_a_suite_to_the_epd_reader(tmp_path):
    suite = tmp_path / "s.epd"
    suite.write_text('x2/3/2o o bm b2 c1a2 c1b3; ce 9;\n\nx3o x bm b1; ce -3;\n')  # lines apart, as FEN files are
    assert read_fen_lines(str(suite)) is None
    assert [e.expect["ce"] for e in read_file(str(suite))] == [9, -3]


def test_entries_of_a_suite_carry_ce_and_bm_as_expectations():
    a, b = read_positions(SUITE, "s.epd")
    assert (a.name, a.sides, a.expect, a.line) == ("two best", (X,), {"ce": 8, "bm": ["b1", "d1b1"]}, 1)
    assert (b.sides, b.expect["ce"]) == ((O,), 9)
    (c,) = read_positions("x2/3/2o o bm b2\n", "s.epd", fmt="epd")  # no ';': only with --format epd
    assert c.expect == {"bm": ["b2"]}


# -- writing ------------------------------------------------------------------------------------------

def test_lines_written_from_records():
    fen = "x2/3/2o o 0 1"
    exact = {"lower": -9, "upper": -9, "exact": True, "optimal_moves": ["b2", "c1a2"], "best_move": "b2"}
    assert epd_line(fen, "o", "corner", exact) == 'x2/3/2o o bm b2 c1a2; ce 9; id "corner";'
    assert epd_line("x-o1 x 0 1", "x", "p", {"lower": -1, "upper": -1, "exact": True, "optimal_moves": ["0000"]}) \
        == 'x-o1 x bm 0000; ce -1; id "p";'
    assert epd_line("x-oo x 0 1", "x", "end", {"lower": -1, "upper": -1, "exact": True, "optimal_moves": []}) \
        == 'x-oo x ce -1; id "end";'
    assert epd_line("x2/3/2o o 4 1", "o", 'say "hi"', {"lower": -9, "upper": 3, "exact": False}) \
        == "x2/3/2o o c0 \"interval -3..9\"; hmvc 4; id \"say 'hi'\";"
    rec = {"file": "f.txt", "line": 5, "name": None, "fen": "x3o x 0 1",
           "sides": {"x": dict(exact, lower=-3, upper=-3, optimal_moves=["b1"]),
                     "o": dict(exact, lower=3, upper=3, optimal_moves=["d1"])}}
    assert epd_lines(rec) == ['x3o x bm b1; ce -3; id "f.txt:5 (X to move)";',
                              'x3o o bm d1; ce -3; id "f.txt:5 (O to move)";']
    assert epd_lines({"file": "f", "line": 1, "ok": False, "error": "unreadable"}) == []
    # a record from the cache or the tables names one preferred move: no bm, rather than a short one
    cached = epd_line(fen, "o", "c", {"lower": -9, "upper": -9, "exact": True, "best_move": "b2"})
    assert cached == 'x2/3/2o o ce 9; c1 "optimal moves not known"; id "c";' and is_epd_output(cached.encode() + b"\n")
    assert all(is_epd_output((line + "\n").encode()) for line in epd_lines(rec))
    assert not is_epd_output(b'x3o x bm b1; id "from elsewhere"; ce -3;\n')
    assert not is_epd_output(b"x3o x 0 1\n")


def test_any_line_written_reads_back_to_the_same_position_moves_and_value():
    for p in random_positions(19, 200):
        if p.is_over():
            continue
        moves = [p.move_name(m) for m in p.legal_moves()][:3]
        facts = {"lower": 2 * p.turn.sign, "upper": 2 * p.turn.sign, "exact": True, "optimal_moves": moves}
        e = parse_epd_line(epd_line(p.fen(), p.turn.value, "n", facts))
        assert (e.position, e.bm, e.ce, e.id) == (p, moves, 2, "n")


# -- the commands --------------------------------------------------------------------------------------

def test_batch_writes_a_suite_that_solve_reads_back_and_confirms(tmp_path, capsys):
    src = tmp_path / "p.txt"
    src.write_text("name: corner\nx2/3/2o o 0 1\n\nx-o1 x 0 1\n\nx3o\n")
    suite = tmp_path / "s.epd"
    assert main(["batch", str(src), "--no-cache", "--jobs", "1", "--solver", "reference", "--epd", str(suite)]) == 0
    assert f"wrote {suite} (4 lines)" in capsys.readouterr().err
    assert suite.read_text().splitlines() == [
        'x2/3/2o o bm b2 c1a2 c1b3; ce 9; id "corner";',
        f'x-o1 x bm 0000; ce -1; id "{src}:4";',
        f'x3o x bm b1; ce -3; id "{src}:6 (X to move)";',
        f'x3o o bm d1; ce -3; id "{src}:6 (O to move)";']
    assert main([str(suite), "--solver", "reference"]) == 0
    assert capsys.readouterr().out.count("expect: ok") == 4
    # run again: its own file is replaced; an input, or a file it did not write, is refused
    assert main(["batch", str(src), "--no-cache", "--jobs", "1", "--solver", "reference", "--epd", str(suite)]) == 0
    other = tmp_path / "theirs.epd"
    other.write_text('x3o x id "theirs"; bm b1;\n')
    for target in (src, other):
        with pytest.raises(SystemExit) as exc:
            main(["batch", str(src), "--no-cache", "--epd", str(target)])
        assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "is the input file" in err and "exists and was not written by this command" in err
    assert other.read_text() == 'x3o x id "theirs"; bm b1;\n'
    with pytest.raises(SystemExit):  # the tables name one best move, not every optimal one
        main(["batch", str(src), "--tables", str(tmp_path), "--epd", str(tmp_path / "t.epd")])
    assert "leave out --tables" in capsys.readouterr().err
    # the cache is not read: every optimal move is listed even when the cache knows the position
    cache = tmp_path / "c.sqlite3"
    for _ in range(2):
        assert main(["batch", str(src), "--cache", str(cache), "--jobs", "1", "--solver", "reference"]) == 0
    assert main(["batch", str(src), "--cache", str(cache), "--jobs", "1", "--solver", "reference",
                 "--epd", str(suite)]) == 0
    assert "3 solved" in capsys.readouterr().err
    assert suite.read_text().splitlines()[0] == 'x2/3/2o o bm b2 c1a2 c1b3; ce 9; id "corner";'


def test_solve_and_batch_report_a_wrong_bm_and_ce(tmp_path, capsys):
    suite = tmp_path / "s.epd"
    suite.write_text('xx1o/o2x x bm b1 c1; ce 4; id "wrong";\n')
    assert main([str(suite), "--solver", "reference"]) == 1
    out = capsys.readouterr().out
    assert "EXPECT FAILED: EPD ce 4, solved 8 (from the side to move)" in out
    assert "EXPECT FAILED: EPD bm c1 not optimal (optimal: b1 d1b1)" in out
    assert "EXPECT FAILED: EPD bm leaves out the optimal move(s) d1b1" in out
    assert main(["batch", str(suite), "--no-cache", "--jobs", "1", "--solver", "reference"]) == 1
    rec = json.loads(capsys.readouterr().out.splitlines()[0])
    assert rec["name"] == "wrong" and not rec["ok"] and len(rec["expect"]["failures"]) == 3


def row(out: str, player: str) -> list[str]:
    """The cells of a player's row of verify's summary, after the name."""
    (line,) = [line for line in out.splitlines() if line.startswith(player + " ")]
    return line[len(player):].split()


def test_verify_judges_the_suites_bm_and_checks_its_ce_and_asks_engines(tmp_path, capsys):
    suite = tmp_path / "s.epd"
    suite.write_text('xx1o/o2x x bm c1; ce 4; id "wrong";\n' + SUITE)
    assert main(["verify", str(suite), "--solver", "reference"]) == 0
    out = capsys.readouterr().out
    assert f"{suite}:1: wrong: bm in {suite}: c1 is an inaccuracy (+4; best b1 +8, loses 4)" in out
    assert f"{suite}:1: wrong: ce 4, but the value is +8 (from the side to move)" in out
    assert out.count(" is an inaccuracy") == 1 and out.count(", but the value") == 1
    assert row(out, f"bm in {suite}")[:3] == ["6", "6", "83.3%"]  # moves looked at, settled, optimal
    assert main(["verify", str(suite), "--solver", "reference", "--engine", "builtin:greedy"]) == 0
    out = capsys.readouterr().out
    assert row(out, "builtin:greedy")[:2] == ["3", "3"] and row(out, f"bm in {suite}")[:2] == ["6", "6"]


def test_ce_mismatches_says_what_was_proved():
    (e,) = read_positions('xx1o/o2x x ce 4; id "n";\n', "s.epd")

    class C:  # a check whose interval is not exact
        source, line, where, position = "s.epd", 1, "s.epd:1: n", e.position
        from solver.solve.analysis import Interval
        best_interval = Interval(5, 8, 7)

    assert ce_mismatches([e], [C()]) == ["s.epd:1: n: ce 4, but the value is proved +5..+8 (from the side to move)"]
    C.best_interval = C.Interval(3, 8, 7)
    assert ce_mismatches([e], [C()]) == []
