"""Games written by cuteataxx, the match runner of Ataxx engine authors, with the solver playing
in them as a UAI engine (``ataxx-solve uai``): the project's PGN reader and ``verify`` on them.

tests/data/cuteataxx-games.pgn is the output of two real matches, not edited: cuteataxx built
from its public source at commit bbbe7254e7a771ce0742eef77260e23a67f22a2a (with libataxx at
4226c26dd11a1f74be708882ece6fd9dc96c767b, the commit its CMakeLists.txt names), running
``python3 -m solver uai`` against its built-in player ``mostcaptures``. Games 1-6: three
10-empty endgames (two from positions/libataxx-games.pgn, one with blocks from
tests/data/python-ataxx-games.pgn), each played with both colours, ``movetime`` 500 ms, the PGN
"verbose" (a ``{ movetime N }`` comment after each move) and ``colour1``/``colour2`` set to
Black/White. Games 7-8: the standard start, ``movetime`` 200 ms, easy-fill adjudication, no
comments and cuteataxx's default colour tags (``[black "..."]``, ``[white "..."]``). The
settings files and the commands are in README.md ("Games from cuteataxx").

What cuteataxx's writer (src/core/pgn.cpp) writes: the tags Event, Site "CuteAtaxx", Date
(``2026-11-24 04:06:11``), Round, the two colour tags, Result (``1-0`` when Black, the first
mover ``x``, won), FEN, FinalFEN, Adjudicated (only when the game was adjudicated), Winner and
Loser (not for a draw), PlyCount and Material (Black's pieces minus White's at the end, signed);
then the moves, ``1...`` first when White moves first, each optionally followed by
``{ movetime N }``, and the result. A move it judges illegal ends the game and is not written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from solver.app.cli import main
from solver.game.fen import PositionFormatError
from solver.io.pgn import read_games, tag
from solver.game.rules import CLASSIC, UAI, O, X

ROOT = Path(__file__).resolve().parent.parent
CUTEATAXX = ROOT / "tests" / "data" / "cuteataxx-games.pgn"
PLAYERS = {"ataxx-solve", "mostcaptures"}


def games(rules=UAI):
    out = read_games(CUTEATAXX.read_text(), str(CUTEATAXX), rules)
    assert not [g for g in out if isinstance(g, PositionFormatError)]
    return out


def material(fen: str) -> int:
    board = fen.split()[0]
    return board.count("x") - board.count("o")


def test_every_game_cuteataxx_wrote_is_read_and_ends_where_cuteataxx_says():
    for rules in (UAI, CLASSIC):
        assert len(games(rules)) == 8
    gs = games()
    for g in gs:
        h = g.headers
        assert h["Site"] == "CuteAtaxx" and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", h["Date"])
        assert g.result == h["Result"] and g.result in ("1-0", "0-1")
        assert g.plies == int(h["PlyCount"]) > 0
        # the position after the last move is the one libataxx (inside cuteataxx) reached
        assert g.final.fen() == h["FinalFEN"]
        assert material(h["FinalFEN"]) == int(h["Material"])
        black, white = tag(h, "Black"), tag(h, "White")
        assert {black, white} == PLAYERS
        assert h["Winner"] == (black if g.result == "1-0" else white)
    # games ended by the rules are over; the adjudicated one (easy fill) is not
    assert [g.final.is_over() for g in gs] == [True] * 7 + [False]
    assert [g.headers.get("Adjudicated") for g in gs] == [None] * 7 + ["Easy fill"]
    assert [g.headers["Result"] for g in gs] == ["0-1", "0-1", "0-1", "0-1", "1-0", "1-0", "1-0", "0-1"]


def test_each_move_is_legal_in_the_position_before_it_and_the_comments_are_skipped():
    text = CUTEATAXX.read_text()
    assert text.count("{ movetime ") == sum(g.plies for g in games()[:6])
    for g in games():
        assert len(g.positions) == g.plies + 1
        for k, name in enumerate(g.moves):
            p = g.positions[k]
            move = p.parse_move(name)
            assert move in p.legal_moves()
            assert g.positions[k + 1] == p.play(move)
            assert g.positions[k + 1].turn != p.turn  # a pass (0000) is a move too


def test_white_first_games_start_with_an_ellipsis_and_o_to_move():
    gs = games()
    assert [g.start.turn for g in gs[:6]] == [X, X, O, O, X, X]
    assert "\n\n1... d4 { movetime 0 } 2. d6b6" in CUTEATAXX.read_text()
    assert gs[2].moves[:2] == ["d4", "d6b6"] and gs[2].player(0) == "mostcaptures"


def test_the_players_come_from_the_colour_tags_in_either_letter_case():
    gs = games()
    assert "[Black \"ataxx-solve\"]" in CUTEATAXX.read_text() and "[black \"ataxx-solve\"]" in CUTEATAXX.read_text()
    assert [g.label for g in gs] == [f"game {n} ({a} vs {b})" for n, (a, b) in enumerate(
        [("ataxx-solve", "mostcaptures"), ("mostcaptures", "ataxx-solve")] * 4, 1)]
    for g in gs:
        first, second = tag(g.headers, "Black"), tag(g.headers, "White")
        assert [g.player(k) for k in range(2)] == ([first, second] if g.start.turn == X else [second, first])


def test_a_game_adjudicated_before_any_move_as_cuteataxx_writes_it():
    # cuteataxx's writer for a game that White was to start and that was adjudicated at once
    # (material imbalance): written by hand after src/core/pgn.cpp, the format the real file lacks
    text = ('[Event "*"]\n[Site "CuteAtaxx"]\n[Date "2024-12-05 14:24:29"]\n[Round "1"]\n[black "A"]\n'
            '[white "B"]\n[Result "0-1"]\n[FEN "xxxxxxx/7/7/7/7/oooooo1/ooooooo o 0 1"]\n'
            '[FinalFEN "xxxxxxx/7/7/7/7/oooooo1/ooooooo o 0 1"]\n[Adjudicated "Material imbalance"]\n'
            '[Winner "B"]\n[Loser "A"]\n[PlyCount "0"]\n[Material "-6"]\n\n1... 0-1\n\n\n')
    (g,) = read_games(text + text.replace('"A"', '"C"'), "hand.pgn", UAI)[:1]
    assert g.plies == 0 and g.result == "0-1" and g.label == "game 1 (A vs B)"
    assert g.final.fen() == g.headers["FinalFEN"] and material(g.headers["FinalFEN"]) == -6
    assert len(read_games(text * 2, "hand.pgn", UAI)) == 2


def test_verify_judges_exactly_the_moves_played_in_the_range_by_the_named_players(capsys):
    gs = games()
    want = [(g.number, k, g.moves[k], g.player(k)) for g in gs for k in range(g.plies)
            if bin(g.positions[k].empty).count("1") == 1]
    argv = ["verify", str(CUTEATAXX), "--rules", "uai", "--empty", "1-1", "--nodes", "200000", "--json"]
    assert main(argv) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    checks = [d for d in lines if "verdict" in d]
    got = [(int(d["name"].split()[1]), int(d["name"].rsplit(" ", 1)[1]), d["move"], d["player"]) for d in checks]
    assert got == want and len(want) == 10
    assert {d["player"] for d in checks} == PLAYERS
    assert all(d["verdict"] == "optimal" for d in checks)
    # the last move of a game ends it on a full board: its value is cuteataxx's Material tag
    for d, (number, k, _, _) in zip(checks, want):
        g = gs[number - 1]
        if k == g.plies - 1 and g.final.is_over():
            assert d["value"] == int(g.headers["Material"])


def test_tag_prefers_the_exact_name_and_else_any_letter_case():
    assert tag({"black": "a", "Black": "b"}, "Black") == "b"
    assert tag({"BLACK": "a"}, "Black") == "a"
    assert tag({"White": "w"}, "Black") is None
