"""Reading Ataxx games in PGN (solver/io/pgn.py): every piece of the syntax, the positions a game
yields, the one-line errors, the commands that read PGN, and files written by outside writers:
libataxx's PGN writer (positions/libataxx-games.pgn, made by positions/libataxx-games.cpp) and
python-ataxx's (tests/data/python-ataxx-games.pgn, made by :func:`python_ataxx_games` below;
and written afresh when the ``ataxx`` package is installed)."""

from __future__ import annotations

import io
import random
import re
import sys
from pathlib import Path

import pytest

from solver.app.cli import main
from solver.game.fen import PositionFormatError
from solver.io.formats import read_file, read_positions, read_text
from solver.io.pgn import Game, GameNode, Pick, Visitor, looks_like_pgn, parse_empty_range, read_games, write_game, write_games
from solver.game.rules import CLASSIC, UAI, O, Position, X
from solver.play.verify import choices_from_file

ROOT = Path(__file__).resolve().parent.parent
LIBATAXX = ROOT / "positions" / "libataxx-games.pgn"
PYTHON_ATAXX = ROOT / "tests" / "data" / "python-ataxx-games.pgn"
CUTEATAXX = ROOT / "tests" / "data" / "cuteataxx-games.pgn"


def one_game(text: str, rules=CLASSIC):
    (game,) = read_games(text, "g.pgn", rules)
    if isinstance(game, PositionFormatError):
        raise game
    return game


def replay(fen: str, moves: list[str]) -> list[Position]:
    """The positions of a game played by hand with the rules module."""
    p = Position.from_fen(fen)
    out = [p]
    for m in moves:
        p = p.play(p.parse_move(m))
        out.append(p)
    return out


# -- syntax -------------------------------------------------------------------------------------------

def test_tags_are_kept_and_the_fen_tag_is_the_start():
    game = one_game('[Event "Club \\"night\\""]\n[Site "c:\\\\games"]\n[SetUp "1"]\n[FEN "x2/3/2o o 0 1"]\n'
                    '[Black "Alice"]\n[White "Bob"]\n[Result "*"]\n[TimeControl "40/60"]\n\n*\n')
    assert game.headers == {"Event": 'Club "night"', "Site": "c:\\games", "SetUp": "1", "FEN": "x2/3/2o o 0 1",
                            "Black": "Alice", "White": "Bob", "Result": "*", "TimeControl": "40/60"}
    assert game.start == Position.from_fen("x2/3/2o o 0 1")
    assert game.plies == 0 and game.result == "*"
    assert game.label == "game 1 (Alice vs Bob)"


def test_without_a_fen_tag_the_game_starts_from_the_standard_start():
    game = one_game("1. a7b6 g7f6 *")
    assert game.start == Position.from_fen("startpos")
    assert game.moves == ["b6", "f6"]  # a clone written as its origin and target is the clone
    assert game.positions == replay("startpos", ["b6", "f6"])


def test_move_numbers_clones_and_jumps():
    moves = ["b6", "g7e7", "a7c5", "f6"]
    for text in ("1. b6 g7e7 2. a7c5 f6", "1.b6 1...g7e7 2.a7c5 2... f6", "1. b6 1... g7e7 2. a7c5 2...f6"):
        game = one_game(text + " *")
        assert game.moves == moves, text
        assert game.positions == replay("startpos", moves)
    # the numbers are not checked against the position (writers number variations oddly)
    assert one_game("7. b6 3... g7e7 *").moves == ["b6", "g7e7"]


@pytest.mark.parametrize("spelling", ["0000", "--", "pass", "PASS", "null", "@@@@", "-"])
def test_every_pass_spelling(spelling):
    # X on a1 cannot reach d1: X must pass, then O clones to d1 and the board is full
    game = one_game(f'[FEN "xoo1 x 0 1"]\n\n1. {spelling} d1 *')
    assert game.moves == ["0000", "d1"]
    assert game.final == Position.from_fen("xooo x 0 2") and game.final.is_over()


def test_comments_in_braces_and_after_semicolons():
    game = one_game("1. b6 {a clone; not a jump (really)} g7e7 ; a2 here is a comment\n"
                    "{ a comment over\nseveral lines with 1. a1 in it }\n2. a7c5 {}{x} f6 *")
    assert game.moves == ["b6", "g7e7", "a7c5", "f6"]
    assert [n.comments for n in game.mainline()] == [
        ["a clone; not a jump (really)"], [" a2 here is a comment", " a comment over\nseveral lines with 1. a1 in it "],
        ["", "x"], []]
    assert game.move_lines == [1, 1, 4, 4]


def test_escape_lines_are_skipped():
    assert one_game("% a line for the program\n1. b6 g7e7 *").moves == ["b6", "g7e7"]


def test_variations_nested_are_kept_as_a_tree_and_the_main_line_followed():
    game = one_game("1. b6 (1. a7c5 (1. f2?? g1e2) g7f6 (1... a1b2 {in (here}) ) g7e7 2. a7c5 (2. zz9) f6 *")
    assert game.moves == ["b6", "g7e7", "a7c5", "f6"]
    b6, g7e7, a7c5, f6 = game.mainline()
    assert [n.move for n in game.variations] == ["b6", "a7c5", "f2"]
    c5, f2 = game.variations[1:]
    assert [n.move for n in c5.variations] == ["f6", "b2"]  # g7f6 is the clone f6, a1b2 the clone b2
    assert c5.variations[1].comments == ["in (here"]
    assert f2.nags == [4] and f2.variations[0].move == "g1e2" and f2.variations[0].position is None  # not legal
    (zz9,) = g7e7.variations[1:]  # "(2. zz9)" is an alternative to a7c5, kept as written, not played
    assert (zz9.move, zz9.position, zz9.number_text, zz9.parent is g7e7) == ("zz9", None, "2.", True)
    assert f6.parent is a7c5 and f6.position == game.final


def test_comments_and_nags_are_kept_where_they_stand():
    game = one_game('[Event "e"]\n{before the moves} 1. b6 $1 {after b6} g7e7! ; to the end\n'
                    '(1... {opens} g7f6 {after f6} $14) 2. a7c5 *')
    assert game.comments == ["before the moves"]
    b6, g7e7, a7c5 = game.mainline()
    assert (b6.nags, b6.comments) == ([1], ["after b6"])
    assert (g7e7.nags, g7e7.comments) == ([1], [" to the end"])
    (f6,) = b6.variations[1:]
    assert (f6.move, f6.starting_comments, f6.comments, f6.nags) == ("f6", ["opens"], ["after f6"], [14])
    assert [n.number_text for n in (b6, g7e7, f6, a7c5)] == ["1.", "", "1...", "2."]


def test_variation_errors():
    def error(text: str) -> str:
        (item,) = read_games(text, "g.pgn")
        assert isinstance(item, PositionFormatError)
        return str(item)

    assert error("(1. b6) *") == "g.pgn:1: game 1: a variation '(' must follow the move it is an alternative to"
    assert error("1. b6 ((1. f2)) *") == ("g.pgn:1: game 1: a variation '(' must follow the move it is an "
                                           "alternative to")
    assert error("1. b6 ({only a comment}) *") == "g.pgn:1: game 1: a variation '()' with no move"
    assert error("1. b6 $256 *") == "g.pgn:1: game 1: a NAG is $ and a number from 0 to 255, not '$256'"
    assert error("1. b6!!! *") == "g.pgn:1: game 1: unknown annotation '!!!' (known: !, ?, !!, ??, !?, ?!)"


def test_nags_and_suffix_annotations():
    game = one_game("1. b6! $1 g7e7?? $4 2. a7c5!? $5 f6?! 3. a6 !! g7?  $22 *")
    assert game.moves == ["b6", "g7e7", "a7c5", "f6", "a6", "g7"]
    assert [n.nags for n in game.mainline()] == [[1, 1], [4, 4], [5, 5], [6], [3], [2, 22]]


@pytest.mark.parametrize("result", ["1-0", "0-1", "1/2-1/2", "*"])
def test_result_tokens_end_a_game(result):
    games = read_games(f"1. b6 g7e7 {result}\n1. f2 {result}\n", "g.pgn")
    assert [g.moves for g in games] == [["b6", "g7e7"], ["f2"]]
    assert [g.result for g in games] == [result, result]
    assert [g.number for g in games] == [1, 2]


def test_many_games_a_tag_line_after_moves_starts_the_next():
    text = ('[Event "one"]\n\n1. b6 g7e7\n[Event "two"]\n[FEN "x1o x"]\n\n1. b1 1-0\n\n\n'
            '[Event "three"]\n\n*\n[Event "four"]\n')
    games = read_games(text, "g.pgn")
    assert [g.headers["Event"] for g in games] == ["one", "two", "three", "four"]
    assert [g.moves for g in games] == [["b6", "g7e7"], ["b1"], [], []]
    assert games[0].result is None and games[1].result == "1-0"
    assert [g.line for g in games] == [1, 4, 10, 13]


def test_crlf_and_a_byte_order_mark():
    text = '[Event "e"]\r\n[Black "A"]\r\n\r\n1. b6 {c}\r\n g7e7 ; x\r\n2. a7c5 *\r\n'
    items = read_text(b"\xef\xbb\xbf" + text.encode(), "g.pgn")
    (entry,) = items
    assert entry.position == replay("startpos", ["b6", "g7e7", "a7c5"])[-1]
    assert entry.name == "game 1 (A vs ?), ply 3"


def test_detection_by_the_first_tag_line_or_by_format():
    assert looks_like_pgn('\n  [Event "x"]\n') and not looks_like_pgn("x..o\n") and not looks_like_pgn("")
    (entry,) = read_positions("\n\n[Event \"x\"]\n\n1. b6 *\n", "g.pgn")
    assert entry.position == replay("startpos", ["b6"])[-1]
    # without tags, movetext is read as PGN only when asked
    (entry,) = read_positions("1. b6 g7e7 *\n", "g.pgn", fmt="pgn")
    assert entry.position == replay("startpos", ["b6", "g7e7"])[-1]
    (err,) = read_positions("1. b6 g7e7 *\n", "g.pgn")
    assert isinstance(err, PositionFormatError)


# -- errors -------------------------------------------------------------------------------------------

def test_an_illegal_move_is_one_line_naming_the_game_the_move_number_and_the_move():
    text = '[Black "Alice"]\n[White "Bob"]\n\n1. b6 g7e7 *\n\n[Black "Carol"]\n\n1. b6 g7e7\n2. a7c5 a1a4 *\n'
    first, second = read_games(text, "g.pgn")
    assert first.moves == ["b6", "g7e7"]
    assert str(second) == "g.pgn:9: game 2 (Carol vs ?), move 2... a1a4: a1a4 is not legal for O here"


def test_unreadable_moves_and_broken_syntax():
    def error(text: str) -> str:
        (item,) = read_games(text, "g.pgn")
        assert isinstance(item, PositionFormatError)
        return str(item)

    assert error("1. b6 zz9 *") == "g.pgn:1: game 1, move 1... zz9: 'zz9': square zz9 is off the 7 x 7 board"
    assert error("1. b6 hello *") == ("g.pgn:1: game 1, move 1... hello: 'hello' is not a move "
                                      "(expected like c3, a1c3 or 0000)")
    assert error("1. b6 0000 *") == "g.pgn:1: game 1, move 1... 0000: 0000 is not legal for O here"
    assert error('[FEN "xoo1 x 0 1"]\n1. 0000 d1 2. a1 *') == "g.pgn:2: game 1, move 2. a1: the game is already over"
    assert error("1. b6 { never closed\n g7e7 *") == "g.pgn:1: game 1: a comment '{' is never closed"
    assert error("1. b6 (g7e7 *\n") == "g.pgn:1: game 1: a variation '(' is never closed"
    assert error("1. b6 ) g7e7 *") == "g.pgn:1: game 1: ')' closes no variation"
    assert error('[Event x]\n1. b6 *') == "g.pgn:1: game 1: a tag line should read [Key \"value\"], not '[Event x]'"
    assert error('[Event "a"]\n[Event "b"]\n*') == "g.pgn:2: game 1: tag Event given twice"
    assert error('[FEN "x5o/7 q"]\n*').startswith("g.pgn:1: game 1: FEN tag: FEN side to move must be")
    assert error("   \n") == "g.pgn: no game found (the input is empty)"


def test_a_bad_game_does_not_stop_the_others():
    items = read_positions('[Event "a"]\n\n1. b6 b6 *\n[Event "b"]\n\n1. b6 *\n', "g.pgn")
    assert isinstance(items[0], PositionFormatError) and "move 1... b6" in str(items[0])
    assert items[1].name == "game 2, ply 1"


# -- the positions a game yields ----------------------------------------------------------------------

GAME = '[Black "Alice"]\n[White "Bob"]\n[FEN "x3/4/4/3o x 0 1"]\n\n1. b4 c1\n2. a4c3 b1 *\n'


def test_every_position_after_each_move_is_there():
    game = one_game(GAME)
    assert game.positions == replay("x3/4/4/3o x 0 1", ["b4", "c1", "a4c3", "b1"])
    assert [p.fen() for p in game.positions][-1] == "1x2/2x1/4/1ooo x 0 3"
    assert [game.player(k) for k in range(4)] == ["Alice", "Bob", "Alice", "Bob"]
    assert game.move_lines == [5, 5, 6, 6]


def test_pick_the_final_position_a_ply_a_range_of_empty_squares_or_every_move():
    game = one_game(GAME)
    empties = [bin(p.empty).count("1") for p in game.positions]
    assert empties == [14, 13, 12, 12, 11]
    assert Pick().plies(game) == [4]
    assert Pick(ply=0).plies(game) == [0] and Pick(ply=4).plies(game) == [4]
    assert Pick(empty=(12, 13)).plies(game) == [1, 2, 3]
    assert Pick(empty=(11, 12), every=True).plies(game) == [2, 3]  # the final position: no move played
    assert Pick(ply=2, empty=(13, 14)).plies(game) == []
    assert Pick(every=True).plies(game) == [0, 1, 2, 3]
    with pytest.raises(PositionFormatError, match="game 1 \\(Alice vs Bob\\) has 4 plies; there is no position "
                                                  "after ply 5"):
        Pick(ply=5).plies(game)


def test_entries_carry_the_move_played_and_its_player():
    entries = read_positions(GAME, "g.pgn", pick=Pick(every=True))
    assert [(e.name, e.move, e.player, e.sides, e.line) for e in entries] == [
        ("game 1 (Alice vs Bob), ply 0", "b4", "Alice", (X,), 5),
        ("game 1 (Alice vs Bob), ply 1", "c1", "Bob", (O,), 5),
        ("game 1 (Alice vs Bob), ply 2", "a4c3", "Alice", (X,), 6),
        ("game 1 (Alice vs Bob), ply 3", "b1", "Bob", (O,), 6)]
    (final,) = read_positions(GAME, "g.pgn")
    assert final.move is None and final.name == "game 1 (Alice vs Bob), ply 4"
    unnamed = read_positions('[White "?"]\n\n1. b6 g7e7 *', "g.pgn", pick=Pick(every=True))
    assert [(e.name, e.player) for e in unnamed] == [("game 1, ply 0", "Black (X) in games"),
                                                     ("game 1, ply 1", "White (O) in games")]


def test_rules_are_applied_to_the_moves():
    # under the uai rules the counter runs; a game is over at 100 half-moves without a clone
    assert [p.counter for p in one_game(GAME, UAI).positions] == [0, 0, 0, 1, 0]  # a4c3 is a jump
    assert [p.counter for p in one_game(GAME, CLASSIC).positions] == [0, 0, 0, 0, 0]


def test_the_empty_range_argument():
    assert parse_empty_range("3-7") == (3, 7) and parse_empty_range("5") == (5, 5)
    for bad, why in (("7-3", "the range '7-3' is empty (write the smaller number first)"),
                     ("a-b", "the fewest empty squares must be a whole number from 0 to 64, not 'a'"),
                     ("1-65", "the most empty squares must be a whole number from 0 to 64, not '65'"),
                     ("-3", "the fewest empty squares must be a whole number from 0 to 64, not ''"),
                     ("", "the fewest empty squares must be a whole number from 0 to 64, not ''")):
        with pytest.raises(ValueError, match=f"^{re.escape(why)}$"):
            parse_empty_range(bad)


# -- files written by outside writers -----------------------------------------------------------------

def test_sixty_games_written_by_libataxx_read_without_an_error():
    for rules in (CLASSIC, UAI):
        games = read_games(LIBATAXX.read_text(), str(LIBATAXX), rules)
        assert len(games) == 60
        assert not [g for g in games if isinstance(g, PositionFormatError)]
    assert sum(g.plies for g in games) == 10695
    assert {g.headers["Black"] for g in games} == {"PlayerBlack"}
    assert games[0].moves[:4] == ["g1e2", "a1c1", "e2g1", "c1b3"]
    # game 10 has a comment and a variation, written by libataxx: "a1a3 { a comment by libataxx } (1... g1e2)"
    assert games[9].moves[:3] == ["a7c7", "a1a3", "g1e1"]
    # libataxx ends a game by its rules (the uai rules here): a wipe-out, a full board, or 100
    # half-moves without a clone
    assert all(g.final.is_over() for g in games)
    assert {g.final.rules.name for g in games} == {"uai"}


def test_libataxx_games_under_the_commands_pick(tmp_path):
    items = read_file(str(LIBATAXX), pick=Pick(empty=(1, 1)))
    assert items and all(not isinstance(i, PositionFormatError) for i in items)
    assert all(bin(e.position.empty).count("1") == 1 for e in items)
    assert {e.name.split(",")[0] for e in items} <= {f"game {n} (PlayerBlack vs PlayerWhite)" for n in range(1, 61)}


def test_verify_judges_exactly_the_moves_played_from_positions_in_range():
    games = read_games(LIBATAXX.read_text(), str(LIBATAXX))
    want = [(g.number, k, g.moves[k]) for g in games for k in range(g.plies)
            if 1 <= bin(g.positions[k].empty).count("1") <= 2]
    items = read_file(str(LIBATAXX), pick=Pick(empty=(1, 2), every=True))
    choices, errors = choices_from_file(items, ask=False)
    assert not errors and len(want) == 701
    got = [(int(c.entry.name.split()[1]), int(c.entry.name.rsplit(" ", 1)[1]), c.move) for c in choices]
    assert got == want
    assert [c.player for c in choices[:2]] == [games[want[0][0] - 1].player(want[0][1]),
                                               games[want[1][0] - 1].player(want[1][1])]


def python_ataxx_games(ataxx, pgn, seed: int) -> list[tuple[str, list[str]]]:
    """Random games written by python-ataxx's PGN writer, with the FENs (board and side) python-ataxx
    gives after each move. tests/data/python-ataxx-games.pgn is the texts of seed 1 (python-ataxx
    2.2.0), each followed by a blank line."""
    rng = random.Random(seed)
    out = []
    for k, fen in enumerate(["x5o/7/7/7/7/7/o5x x 0 1", "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1",
                             "x5o/7/7/3-3/7/7/o5x o 0 1"]):
        board = ataxx.Board(fen)
        fens = [board.get_fen()]
        while not board.gameover():
            board.makemove(rng.choice(board.legal_moves()))
            fens.append(board.get_fen())
        game = pgn.Game()
        game.from_board(board)
        game.set_black(f"black{k}")
        game.set_white(f"white{k}")
        if k == 1:  # a comment and a variation, through python-ataxx's own API
            game.root.children[0].children[0].comment = "a comment by python-ataxx"
            first = game.root.children[0]
            alternative = next(m for m in ataxx.Board(fen).legal_moves() if str(m) != str(first.move))
            game.root.add_variation(alternative)
        out.append((str(game), [" ".join(f.split()[:2]) for f in fens]))
    return out


def check_python_ataxx_game(text: str, fens: list[str] | None, k: int) -> None:
    game = one_game(text)
    assert game.headers["Black"] == f"black{k}" and game.headers["White"] == f"white{k}"
    if fens is not None:
        assert [" ".join(p.fen().split()[:2]) for p in game.positions] == fens


def test_games_written_by_python_ataxx_now():
    import ataxx  # python-ataxx, a test extra (pyproject.toml)
    import ataxx.pgn as pgn
    games = python_ataxx_games(ataxx, pgn, 7)
    for k, (text, fens) in enumerate(games):
        check_python_ataxx_game(text, fens, k)
    assert "{ a comment by python-ataxx }" in games[1][0] and "(1. " in games[1][0]


def test_games_written_by_python_ataxx_in_the_repository():
    games = read_games(PYTHON_ATAXX.read_text(), str(PYTHON_ATAXX))
    assert len(games) == 3 and all(not isinstance(g, PositionFormatError) for g in games)
    assert [(g.headers["Black"], g.headers["White"]) for g in games] == [(f"black{k}", f"white{k}") for k in range(3)]
    assert games[1].start.board.blocks and games[2].start.turn == O
    assert all(g.final.is_over() or g.final.counter == 0 for g in games)


# -- the commands ---------------------------------------------------------------------------------------

def run(argv, stdin_text=None, monkeypatch=None):
    if stdin_text is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin_text.encode())))
    return main(argv)


SMALL = '[Black "Alice"]\n[White "Bob"]\n[FEN "x2/3/2o x 0 1"]\n\n1. b3 {c} b1 2. c3 *\n'


def test_solve_reads_a_pgn_file_the_final_position_by_default(tmp_path, capsys):
    f = tmp_path / "g.pgn"
    f.write_text(SMALL)
    assert run([str(f), "--solver", "reference"]) == 0
    out = capsys.readouterr().out
    assert f"== game 1 (Alice vs Bob), ply 3 ({f}:5) ==" in out
    assert "O to move" in out and "X to move" not in out
    assert run([str(f), "--solver", "reference", "--ply", "1", "--json"]) == 0
    assert '"name": "game 1 (Alice vs Bob), ply 1"' in capsys.readouterr().out


def test_solve_on_standard_input_with_format_pgn(monkeypatch, capsys):
    assert run(["--solver", "reference", "--format", "pgn", "--empty", "5-6"], "1. b3 a2 2. c3 *\n", monkeypatch) == 2
    # the standard start has 45 empty squares: no position in range is not an error, an illegal move is
    assert "b3 is not legal" in capsys.readouterr().err


def test_solve_exit_codes_for_bad_games_and_bad_arguments(tmp_path, capsys):
    f = tmp_path / "g.pgn"
    f.write_text(SMALL.replace("2. c3", "2. c1"))
    assert run([str(f), "--solver", "reference"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{f}:5: game 1 (Alice vs Bob), move 2. c1: c1 is not legal for X here"]
    f.write_text(SMALL)
    assert run([str(f), "--ply", "9", "--solver", "reference"]) == 2
    assert "has 3 plies; there is no position after ply 9" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="^2$") as exc:
        run([str(f), "--empty", "9-2"])
    assert exc.value.code == 2
    assert "argument --empty: the range '9-2' is empty" in capsys.readouterr().err


def test_batch_reads_the_positions_in_the_empty_range(tmp_path, capsys):
    f = tmp_path / "g.pgn"
    f.write_text(SMALL)
    assert run(["batch", str(f), "--empty", "5-6", "--no-cache", "--jobs", "1", "--solver", "reference"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert ['"name": "game 1 (Alice vs Bob), ply 1"' in out[0], '"name": "game 1 (Alice vs Bob), ply 2"' in out[1]] \
        == [True, True] and len(out) == 2


def test_verify_judges_the_moves_of_a_game_by_its_players(tmp_path, capsys):
    f = tmp_path / "g.pgn"
    f.write_text(SMALL)
    assert run(["verify", str(f), "--solver", "reference"]) == 0
    out = capsys.readouterr().out
    assert "Alice: 1. b3 is" in out and "Bob: 1... b1 is" in out and "Alice: 2. c3 is" in out
    assert f"{f}:5: game 1 (Alice vs Bob), ply 1: Bob: 1... b1 is a blunder (+9; best b2 -9, loses 18)" in out
    rows = {line.split()[0]: line.split()[1:3] for line in out.splitlines() if line.startswith(("Alice ", "Bob "))}
    assert rows == {"Alice": ["2", "2"], "Bob": ["1", "1"]}  # moves looked at, settled
    assert run(["verify", str(f), "--solver", "reference", "--ply", "1"]) == 0
    out = capsys.readouterr().out
    assert "Bob: 1... b1 is" in out and "Alice:" not in out


# -- hostile input (issue 30 item 1) ---------------------------------------------------------------------

ISSUE_30_PGN = ('[FEN "x2/3{)}({)}({)}({)}({x2/3/2o o 3 7 hmvc 3; fmvn 7; id "x"x!5kcg3,;\n'
                '}Vm3bR({)} *\n')


def test_a_stray_closing_brace_is_an_error_not_a_hang(tmp_path):
    # the reader looped for ever on a '}' outside a comment (the 86-byte file of issue 30)
    f = tmp_path / "hang.pgn"
    f.write_text(ISSUE_30_PGN)
    (err,) = read_file(str(f))
    assert isinstance(err, PositionFormatError) and err.line == 1 and "a tag line should read" in err.message
    (err,) = read_games("1. b6 } g7e7 *", "g.pgn")
    assert str(err) == "g.pgn:1: game 1: '}' closes no comment"
    (err,) = read_games("1. b6 {{{}}} g7e7 *", "g.pgn")
    assert str(err) == "g.pgn:1: game 1: '}' closes no comment"


# -- a game with no position in it (issue 30 item 2) -------------------------------------------------

def test_a_game_with_no_tags_and_no_moves_is_an_error_not_the_7x7_start(tmp_path):
    # garbage read as a game with no [FEN] tag and no moves was the standard 7 x 7 start
    for text, why in (("vE1Cs}vKS+37", "game 1, move 1. vE1Cs: 'vE1Cs' is not a move (expected like c3, a1c3 or 0000)"),
                      ("*\n", "game 1: no tags and no moves: not a game (a game without tags needs its moves)"),
                      ("{a comment} 1. 2. $3 *", "game 1: no tags and no moves: not a game (a game without tags "
                                                 "needs its moves)")):
        f = tmp_path / "s.pgn"
        f.write_text(text)
        (err,) = read_file(str(f), fmt="pgn")
        assert isinstance(err, PositionFormatError) and str(err) == f"{f}:1: {why}", str(err)
    (err,) = read_games("{only a comment}\n% and an escape line\n", "g.pgn")
    assert str(err) == "g.pgn: no game found (only comments: no tag and no move)"
    # with a tag, a game without moves is its start position; without tags, moves make the game
    assert one_game('[Event "e"]\n*').plies == 0 and one_game("1. b6 *").plies == 1


def test_the_cli_refuses_a_pgn_file_with_no_position_in_it(tmp_path, capsys):
    f = tmp_path / "s.pgn"
    f.write_bytes(b"vE1Cs}vKS+37")
    assert run([str(f), "--format", "pgn"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{f}:1: game 1, move 1. vE1Cs: 'vE1Cs' is not a move (expected like c3, a1c3 or 0000)"]


# -- the game tree written back (issue 28 item 3) ------------------------------------------------------

def same_text_modulo_whitespace(a: str, b: str) -> bool:
    return a.split() == b.split()


@pytest.mark.parametrize("path", [LIBATAXX, PYTHON_ATAXX, CUTEATAXX], ids=["libataxx", "python-ataxx", "cuteataxx"])
def test_a_round_trip_gives_the_same_file_modulo_whitespace(path):
    text = path.read_text()
    games = read_games(text, str(path), UAI)
    assert all(isinstance(g, Game) for g in games)
    assert same_text_modulo_whitespace(write_games(games), text)
    assert sum(len(g.comments) + sum(len(n.comments) for n in _nodes(g)) for g in games) == text.count("{")
    assert sum(len(n.variations) - 1 for g in games for n in _nodes(g) if n.variations) == text.count("(")


def _nodes(game: Game) -> list[GameNode]:
    out, stack = [], [game]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.variations)
    return out


HAND = """[Event "hand \\"made\\""]
[Black "A"]
[White "B"]
[FEN "x5o/7/7/7/7/7/o5x x 0 1"]

{A game with everything} 1. b6 $1 {a clone} (1. a7c5 $2 g7e7 ({opens} 1... b2 $14)) (1. f2 {nested} f6) 1... f6 2. a7c5 $4 (2. zz9 {not played}) 2... g7e7 3. b5 {end} 1-0
"""


def test_a_round_trip_of_a_game_with_nested_variations_comments_and_nags():
    (game,) = read_games(HAND, "hand.pgn")
    assert game.moves == ["b6", "f6", "a7c5", "g7e7", "b5"]
    text = write_game(game)
    assert same_text_modulo_whitespace(text, HAND) and all(len(line) < 80 for line in text.splitlines())
    assert write_game(one_game(text)) == text
    # written otherwise: the same tree (a variation nested in another's first move is an alternative
    # to that move; a long clone is the clone; a number before a variation's opening comment is the
    # number of its first move)
    other = HAND.replace("(1. a7c5 $2 g7e7 ({opens} 1... b2 $14)) (1. f2 {nested} f6)",
                         "(1. a7c5 $2 (1. f2 {nested} g7f6) g7e7 (1... {opens} a1b2 $14))")
    assert other != HAND and write_game(one_game(other)) == text


def test_a_game_built_by_code_is_written_with_the_export_formats_numbers():
    game = Game(headers={"Event": "e"}, start=Position.from_fen("startpos"))
    node = game
    for text in ("b6", "g7e7", "a7c5"):
        assert node.position is not None
        node = node.add_move(node.position.parse_move(text))
    first = game.variations[0]
    first.comments.append("a comment")
    alt = game.add_variation("f2", game.start.push(game.start.parse_move("f2")))
    alt.nags.append(5)
    assert write_game(game) == '[Event "e"]\n\n1. b6 {a comment} (1. f2 $5) 1... g7e7 2. a7c5 *\n'
    back = one_game(write_game(game))
    assert back.moves == ["b6", "g7e7", "a7c5"] and [n.move for n in back.variations] == ["b6", "f2"]


def test_a_visitor_sees_the_pieces_in_the_order_of_the_text():
    class Log(Visitor):
        def __init__(self):
            self.seen = []

        def visit_header(self, key, value, line):
            self.seen.append(("tag", key))

        def visit_move(self, text, number, line, before=None):
            self.seen.append(("move", text, number))

        def visit_comment(self, text, line):
            self.seen.append(("comment", text))

        def visit_nag(self, nag, line):
            self.seen.append(("nag", nag))

        def begin_variation(self, line):
            self.seen.append("(")

        def end_variation(self, line):
            self.seen.append(")")

        def visit_result(self, result, line):
            self.seen.append(("result", result))

        def end_game(self):
            return self.seen

    from solver.io.pgn import visit_text
    text = '[Event "e"]\n1. b6! {c} (1. f2) g7e7 1-0'
    (seen,) = visit_text(text, Log)
    want = [("tag", "Event"), ("move", "b6", "1."), ("nag", 1), ("comment", "c"), "(", ("move", "f2", "1."), ")",
            ("move", "g7e7", ""), ("result", "1-0")]
    assert seen == want
    # the same visitor on the tree: the numbers as read, the same order
    assert one_game(text).accept(Log()) == want


def test_the_7x7_start_is_not_solved_without_a_limit_unless_asked_for(tmp_path, capsys):
    # a game with tags and no moves (or a file that says startpos) is the 7 x 7 start: solve refuses to
    # search it without a limit, in one line and status 2, and searches it within one
    f = tmp_path / "e.pgn"
    f.write_text('[Event "e"]\n*\n')
    assert run([str(f)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"{f}:1: the standard start of a 7 x 7 board is not solved without a limit (no machine finishes it): give "
        "--timeout SECONDS, --max-states N or --nodes N, or --no-limit to search anyway"]
    assert run([str(f), "--solver", "reference", "--max-states", "50"]) == 1
    assert "stopped:" in capsys.readouterr().err
    g = tmp_path / "p.txt"
    g.write_text("x5o/7/2-1-2/7/2-1-2/7/o5x o 0 1\n")  # with blocks, O to move: a 7 x 7 start too
    assert run([str(g), "--solver", "reference"]) == 2
    assert f"{g}:1: the standard start of a 7 x 7 board is not solved without a limit" in capsys.readouterr().err
    g.write_text("x3o/5/5/5/o3x x 0 1\n")  # the 5 x 5 start is searched (the notice says how to stop it)
    assert run([str(g), "--solver", "reference", "--max-states", "50"]) == 1
    assert "standard start" not in capsys.readouterr().err


def test_empty_with_no_position_in_range_says_so(tmp_path, capsys):
    """--empty that no position of the games matches: one line that says so (solve printed nothing
    and exited 0; verify said the file had no game record: a user's trial)."""
    f = tmp_path / "g.pgn"
    f.write_text(SMALL)
    assert run([str(f), "--solver", "reference", "--empty", "1-2"]) == 1
    assert capsys.readouterr() == ("", "ataxx-solve: no position of the games has 1 to 2 empty squares (--empty)\n")
    assert run(["verify", str(f), "--solver", "reference", "--empty", "1"]) == 2
    assert capsys.readouterr().err == "ataxx-solve verify: nothing to check: no position of the games has 1 empty square (--empty)\n"
