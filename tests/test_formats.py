"""Reading and writing positions: round trips, detection, and malformed input (SPEC section 7)."""

import random

import pytest

from helpers import random_positions
from solver.app.cli import main
from solver.io.formats import (
    PositionFormatError, parse_colon, parse_fen, parse_grid, parse_position, read_positions, write_colon,
    write_fen, write_grid,
)
from solver.game.rules import CS61B, JUMP3, O, UAI, X, Position

SHAPES = [(1, 5), (2, 3), (3, 3), (4, 4), (3, 5), (7, 7), (1, 64), (8, 8), (2, 12), (5, 11)]


def numbered(text):
    return list(enumerate(text.split("\n"), 1))


@pytest.mark.parametrize("seed", range(5))
def test_fen_round_trip(seed):
    for p in random_positions(seed, 40, shapes=SHAPES, block_chance=0.2):
        for rules in (UAI, CS61B, JUMP3):
            q = p.replace(rules=rules, counter=random.Random(seed).randrange(0, 99), fullmove=7)
            back = parse_fen(write_fen(q), rules=rules)
            assert back == q and back.fullmove == 7
        assert parse_fen(write_fen(p)) == p


@pytest.mark.parametrize("seed", range(5))
def test_grid_and_colon_round_trip(seed):
    for p in random_positions(seed, 40, shapes=SHAPES, block_chance=0.2):
        for text in (write_grid(p), write_grid(p, coordinates=True)):
            board, x, o = parse_grid(numbered(text))
            assert (board, x, o) == (p.board, p.x, p.o), text
        board, x, o = parse_colon(numbered(write_colon(p)))
        assert (board, x, o) == (p.board, p.x, p.o)


def test_position_file_round_trip():
    ps = random_positions(11, 30, shapes=SHAPES)
    chunks = []
    for i, p in enumerate(ps):
        kind = i % 3
        body = write_fen(p) if kind == 0 else write_grid(p) if kind == 1 else write_colon(p)
        chunks.append(f"; position {i}\nname: p{i}\nto-move: {p.turn}\n{body}")
    entries = read_positions("\n\n".join(chunks) + "\n")
    assert [e.name for e in entries] == [f"p{i}" for i in range(len(ps))]
    for e, p in zip(entries, ps):
        assert e.position == p and e.sides == (p.turn,)


def test_grid_frames_labels_and_spaces():
    plain = parse_position("x...o\n.....\no...x").position
    variants = [
        "+-----+\n|x...o|\n|.....|\n|o...x|\n+-----+",
        "  abcde\n3 x...o 3\n2 ..... 2\n1 o...x 1\n  abcde",
        "3 x   o\n2      \n1 o   x",
        "   abcde\n  +-----+\n3 |x...o| 3\n2 |.....| 2\n1 |o...x| 1\n  +-----+\n   abcde",
        "X...O\n.....\nO...X",
        "x   o\n     \no   x",  # spaces for empty squares, a space-padded row
    ]
    for text in variants:
        assert parse_position(text).position == plain, text


def test_detection_and_headers():
    e = parse_position("startpos")
    assert e.position.board.rows == 7 and e.sides == (X,)
    assert parse_position("x5o/7/7/7/7/7/o5x o 12 3", rules=UAI).position.counter == 12
    e = parse_position("rules: uai\ncounter: 99\nto-move: o\nx...o")
    assert e.position.rules == UAI and e.position.counter == 99 and e.sides == (O,)
    e = parse_position("1:0:0:2:\n0:#:0:0:")
    assert e.position.board.blocks and e.is_board
    e = parse_position("name: a game\nstartpos moves g6 a7b5")
    assert e.moves == ["g6", "a7b5"]
    e = parse_position("expect: x=1 o=-5 orthodox=5|1||-5\nx.#o\n.##.")
    assert e.expect == {"x": 1, "o": -5, "orthodox": "5|1||-5"}
    # under classic the counter means nothing and is dropped
    assert parse_position("x5o/7/7/7/7/7/o5x x 40 1").position.counter == 0


def test_wide_boards_use_two_digit_runs():
    p = parse_fen("x10o/12 x 0 1")
    assert (p.board.rows, p.board.cols) == (2, 12)
    assert write_fen(p).startswith("x10o/12 ")


MALFORMED = [
    # (input, the message must contain this, line)
    ("x..\nx.\n", "ragged rows", 2),
    ("x.z\n", "unknown character 'z'", 1),
    ("|x..|\nx..\n", "inconsistent frame", 2),
    ("|x..\n|x..\n", "inconsistent frame", 1),
    ("x5o/8/7/7/7/7/o5x x 0 1\n", "FEN rank 2 from the top is too long", 1),
    ("9/9/9/9/9/9/9/9\n", "at most 64", 1),
    ("x..\n...\n...\n...\n...\n...\n...\n...\n...\n...\n...\n...\n...\n...\n...\n...\n...\n...\n...\n...\n...\n...\n",
     "at most 64", 1),
    ("", "the input is empty", None),
    ("; only a comment\n", "the input is empty", None),
    ("x5o/7/7/7/7/7/o5x q 0 1\n", "side to move must be 'x' or 'o'", 1),
    ("x5o/7/7/7/7/7/o5z x 0 1\n", "FEN board has an unknown character 'z'", 1),  # (not a grid's '5')
    ("x5o/7/7/7/7/7/o5#x o\n", "FEN board has an unknown character '#'", 1),
    ("x5o/7/7/7/7/7/o5x x -3 1\n", "counter must be a whole number", 1),
    ("x5o/7/7/7/7/7/o5x x 0 0\n", "move number must be a whole number from 1 to", 1),
    ("x5o/7/7/7/7/7/o5x x 0 1 extra\n", "unexpected 'extra'", 1),
    ("x5o//7 x 0 1\n", "empty rank", 1),
    ("x0o/3 x\n", "run of 0", 1),
    ("colour: red\nx..o\n", "unknown header 'colour'", 1),
    ("rules: chess\nx..o\n", "unknown rules 'chess'", 1),
    ("to-move: both\nx5o/7/7/7/7/7/o5x x 0 1\n", "contradicts", 1),
    ("expect: x=nine\nx..o\n", "must be a whole number", 1),
    ("name: lonely\n", "headers with no position", 1),
    ("1:0:3:\n", "colon grid field 3", 1),
    ("3 x..o\n1 ..o.\n", "rank label 3 should be 2", 1),
    ("1 x..o\n..o.\n", "inconsistent rank labels", 2),
    ("x..o\n+----+\n..o.\n", "frame line inside the grid", 2),
]


@pytest.mark.parametrize("text,message,line", MALFORMED)
def test_malformed_input_is_one_line_and_status_2(text, message, line, tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    status = main([str(path)])
    out, err = capsys.readouterr()
    assert status == 2
    lines = err.strip().split("\n")
    assert len(lines) == 1, err
    where = f"{path}:{line}:" if line else f"{path}:"
    assert lines[0].startswith(where) and message in lines[0], lines[0]
    assert "Traceback" not in err + out


def test_missing_file_binary_and_directory(tmp_path, capsys):
    assert main([str(tmp_path / "nope.txt")]) == 2
    assert "nope.txt: no such file" in capsys.readouterr().err
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 4)
    assert main([str(garbage)]) == 2
    assert "binary data" in capsys.readouterr().err
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("x..o\n\xe9\xe9\n".encode("latin-1"))
    assert main([str(latin)]) == 2
    assert "latin1.txt:2: not UTF-8 text" in capsys.readouterr().err
    assert main([str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_bad_position_is_skipped_and_the_rest_solved(tmp_path, capsys):
    path = tmp_path / "mixed.txt"
    path.write_text("name: good one\nx...o\n\nname: bad one\nx..\nx.\n\nname: good two\nx.o\n")
    status = main([str(path), "--solver", "reference"])
    out, err = capsys.readouterr()
    assert status == 2
    assert "good one" in out and "good two" in out and "bad one" not in out
    assert err.strip() == f"{path}:6: ragged rows: this row has 2 squares, the first row has 3"


def test_errors_do_not_leave_half_built_positions():
    with pytest.raises(PositionFormatError, match="^f.txt:2: ragged rows") as info:
        parse_position("x..\nx.\n", source="f.txt")
    assert str(info.value) == "f.txt:2: ragged rows: this row has 2 squares, the first row has 3"
    assert isinstance(info.value, ValueError)


def test_position_rejects_overlapping_pieces():
    from solver.game.board import Board

    with pytest.raises(ValueError, match="^a square holds both an X and an O piece$"):
        Position(Board(1, 3), 1, 1)
    with pytest.raises(ValueError, match="^a piece stands on a block or off the board$"):
        Position(Board(1, 3, blocks=2), 2, 0)


def test_fen_lines_with_no_blank_line_between_are_one_position_each():
    """A file written by a loop of print(fen) (python-ataxx's games, say) has no blank lines: each
    FEN line is its own position, with its own line number; a grid (labelled or not) is still one."""
    from solver.io.formats import read_positions
    fens = ["oooxoo1/xxxoooo/xo-x-oo/xxxxxxx/oo-x-xx/1ooxxx1/2oxxx1 o 0 44",
            "oxxxxx1/xxxxxx1/xxo-xx1/oo-x-x1/oox-xx1/oooxxxx/1ooxxxx x 0 34", "x5o/7/7/7/7/7/o5x x"]
    entries = read_positions("name: first\n" + "\n".join(fens) + "\n", "games.txt")
    assert [e.line for e in entries] == [2, 3, 4] and entries[0].name == "first" and entries[1].name is None
    assert [e.position.fen() for e in entries] == [parse_fen(f).fen() for f in fens]
    (grid,) = read_positions("3 x.o\n2 ...\n1 o.x\n  abc\n", "grid.txt")
    assert grid.position.board.rows == 3 and grid.position.board.cols == 3
