"""The researcher's table (solver/cgt/valuetable.py, `ataxx-solve values`): the boards it lists, the
rows of small boards, the refusals, and the command's output, JSON keys and exit codes."""

import json

import pycgt
import pytest

from solver.game.board import Board
from solver.app.cli import main
from solver.game.rules import CLASSIC, UAI, Position
from solver.cgt.valuetable import orbits, symmetric_layouts, table_positions, value_row, value_table


def test_the_orbits_of_a_rectangle_and_of_a_square():
    assert orbits(1, 3) == [0b101, 0b010]
    assert sorted(orbits(3, 3)) == sorted([0b101000101, 0b010101010, 0b000010000])  # corners, edges, centre
    assert sorted(bin(m).count("1") for m in orbits(2, 4)) == [4, 4]


def test_the_layouts_are_symmetric_and_leave_the_start_free():
    assert symmetric_layouts(3, 3) == [0, 0b000010000, 0b010101010, 0b010111010]
    assert len(symmetric_layouts(1, 9)) == 16 and len(symmetric_layouts(2, 3)) == 2
    for p in table_positions(9):
        assert p.board.rows <= p.board.cols and 2 <= p.board.rows * p.board.cols <= 9
        assert len(p.board.symmetries) == len(Board(p.board.rows, p.board.cols).symmetries)
        assert (p.x, p.o) == Board(p.board.rows, p.board.cols).start_squares()
    assert len(table_positions(9)) == 54
    assert table_positions(4)[0] == Position.start(1, 2)


def test_the_rows_of_small_boards():
    rows = {r.board: r for r in value_table(6)}
    assert rows["x1o"].verdict == "+-3" and (rows["x1o"].value.mean, rows["x1o"].value.temperature) == (0, 3)
    assert rows["x1o/o1x"].verdict == "+-6" and rows["x1o/o1x"].value.temperature == 6
    assert rows["x2o"].verdict == "{4,{4|-2}|{2|-4},-4}"
    assert rows["x-o"].verdict == "0" and rows["x-o"].empty == 0 and rows["x-o"].blocks == 1
    loop = rows["x3o"]
    assert loop.value is None and loop.kind == "loop" and loop.verdict == "loop" and loop.loop_free is False
    assert loop.reason.startswith("no canonical form: play can repeat (")
    for r in rows.values():  # a symmetric start is its colour inversion: its value is its own negative
        if r.value is not None:
            assert pycgt.negate(r.value.game) == r.value.game and r.value.mean == 0


def test_a_zugzwang_and_a_limit_are_named():
    zug = value_row(Position.start(2, 4, CLASSIC), timeout_each=None)
    assert zug.kind == "zugzwang" and zug.verdict == "zugzwang" and zug.loop_free is None
    assert "X first -8, O first +8" in zug.reason
    small = value_row(Position.start(2, 4, UAI), max_states=2)
    assert small.kind == "states" and small.verdict == "too large"


def test_the_command_prints_a_row_per_board(capsys):
    assert main(["values", "--max-squares", "4"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["shape", "board", "blocks", "empty"]
    assert len(lines) == 1 + 6
    assert lines[2].split() == ["1x3", "x1o", "0", "1", "0", "3", "+-3"]
    assert err.startswith("values (classic, at most 4 squares): 6 boards: 6 with a canonical form; ")


def test_the_command_in_json(capsys):
    assert main(["values", "--max-squares", "5", "--json", "--rules", "classic"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 10
    first = {r["board"]: r for r in rows}
    assert set(first["x1o"]) >= {"board", "shape", "blocks", "empty", "rules", "loop_free", "seconds", "canonical",
                                 "mean", "temperature", "left_stop", "right_stop", "states"}
    assert (first["x1o"]["canonical"], first["x1o"]["mean"], first["x1o"]["temperature"]) == ("+-3", 0, 3)
    assert first["x3o"]["canonical"] is None and first["x3o"]["no_value"] == "loop"
    assert first["x3o"]["loop_free"] is False and first["x3o"]["reason"].startswith("no canonical form")


@pytest.mark.parametrize("argv", [["--max-squares", "1"], ["--max-squares", "17"], ["--rules", "chess"],
                                  ["--timeout-each", "0"], ["--max-squares", "x"]])
def test_bad_options_are_one_line_and_exit_2(argv, capsys):
    with pytest.raises(SystemExit, match="^2$") as exc:
        main(["values", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error: argument" in err
