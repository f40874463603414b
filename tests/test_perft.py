"""perft against the libataxx table of SPEC section 9, and --divide."""

import json

import pytest

from solver.app.cli import main
from solver.game.perft import perft
from solver.io.formats import parse_fen
from solver.game.rules import UAI

TABLE = {
    "x5o/7/7/7/7/7/o5x x 0 1": [16, 256, 6460, 155888, 4752668, 141865520],
    "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1": [14, 196, 4184, 86528, 2266352],
    "x5o/7/2-1-2/3-3/2-1-2/7/o5x x 0 1": [14, 196, 4100, 83104, 2114588],
    "x5o/7/3-3/2-1-2/3-3/7/o5x x 0 1": [16, 256, 5948, 133264, 3639856],
    "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1": [1, 75, 249, 14270, 452980],
    "7/7/7/2x1o2/7/7/7 x 0 1": [23, 419, 7887, 168317, 4266992],
    "x5o/7/7/7/7/7/o5x x 100 1": [0, 0, 0, 0],
    "7/7/7/7/-------/-------/x5o x 0 1": [2, 4, 13, 30, 73, 174],
}


@pytest.mark.parametrize("fen", list(TABLE))
def test_spec_perft_table(fen):
    p = parse_fen(fen, UAI)
    assert perft(p, 0) == 1
    assert [perft(p, d) for d in range(1, len(TABLE[fen]) + 1)] == TABLE[fen]


def _plain_perft(p, depth):
    if depth == 0:
        return 1
    return sum(_plain_perft(p.push(m), depth - 1) for m in p.legal_moves())


@pytest.mark.parametrize("fen,rules", [("x3o/5/o3x x 0 1", "uai"), ("x1-1o/5/2x2/o3x o 98 1", "uai"),
                                       ("x3o/5/o3x x 0 1", "jump3"), ("x4/5/4o x 23 1", "cs61b"),
                                       ("x1o x 0 1", "classic")])
def test_perft_matches_the_plain_rules(fen, rules):
    from solver.game.rules import RULE_SETS

    p = parse_fen(fen, RULE_SETS[rules])
    for d in range(1, 5):
        assert perft(p, d) == _plain_perft(p, d)


def test_divide_sums_to_the_total(capsys):
    assert main(["perft", "startpos", "4", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = dict(line.split() for line in lines[:-1])
    assert len(rows) == 16 and lines[-1] == "total 155888"
    assert sum(int(v) for v in rows.values()) == 155888
    assert main(["perft", "x5o/7/7/7/7/7/o5x x 0 1", "3", "--json", "--divide"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["nodes"] == 6460 and sum(obj["divide"].values()) == 6460 and obj["rules"] == "uai"


def test_perft_bad_input(capsys):
    assert main(["perft", "x5z/7 x", "2"]) == 2
    assert "unknown character 'z'" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="^2$"):
        main(["perft", "startpos", "-1"])
    assert "argument DEPTH: must be a whole number from 0 to 64" in capsys.readouterr().err


@pytest.mark.parametrize("rules", ["classic", "uai", "cs61b", "jump3"])
@pytest.mark.slow
def test_perft_on_any_board_shape(rules):
    """The shifts behind perft on boards of one row, one column, 64 squares, with blocks."""
    from helpers import random_positions
    from solver.game.rules import RULE_SETS

    shapes = [(1, 9), (9, 1), (8, 8), (2, 32), (1, 64), (4, 16), (3, 5), (5, 3)]
    for p in random_positions(12, 24, shapes=shapes, rules=RULE_SETS[rules], fill=(0.5, 0.25, 0.25)):
        depth = 3 if p.board.size <= 16 else 2
        assert [perft(p, d) for d in range(depth + 1)] == [_plain_perft(p, d) for d in range(depth + 1)], p
