"""verify --annotate and --player (solver/play/annotate.py): the verdicts added to the games as NAGs and
comments, everything the input had kept (its comments, NAGs, variations and move numbers), read back by
solver/io/pgn.py to the same games; the refusals of the output file."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.solve.analysis import Interval
from solver.play.annotate import HEAD, annotated_pgn, comment, game_text, is_annotated_pgn, position_name
from solver.app.cli import main
from solver.game.fen import PositionFormatError
from solver.io.pgn import looks_like_pgn, read_games
from solver.play.verify import Check

ROOT = Path(__file__).resolve().parent.parent
LIBATAXX = ROOT / "positions" / "libataxx-games.pgn"
PYTHON_ATAXX = ROOT / "tests" / "data" / "python-ataxx-games.pgn"
CUTEATAXX = ROOT / "tests" / "data" / "cuteataxx-games.pgn"

# X to move is worth +8: b1 keeps it, c1 gives +4 (an inaccuracy), a2c1 -8 (a blunder)
GAME = ('[Event "club \\"night\\""]\n[Black "Ann"]\n[White "Ben"]\n[FEN "xx1o/o2x x 0 1"]\n[Result "*"]\n\n'
        '1. c1 {first} b1 ; to the end of the line\n(1... a1c2 $4) *\n')


def games_of(text: str, source: str = "g.pgn") -> list:
    out = read_games(text, source)
    assert not any(isinstance(g, PositionFormatError) for g in out), out
    return out


def same_games(a: list, b: list) -> bool:
    return [(g.headers, g.start, g.moves, g.positions) for g in a] == [(g.headers, g.start, g.moves, g.positions)
                                                                        for g in b]


def run(argv):
    return main(argv)


def test_verify_writes_the_verdicts_as_nags_and_comments_and_the_file_reads_back(tmp_path, capsys):
    f, out = tmp_path / "g.pgn", tmp_path / "out.pgn"
    f.write_text(GAME)
    assert run(["verify", str(f), "--solver", "reference", "--annotate", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().err
    text = out.read_text()
    # the input's comments (the ; comment written in braces), its variation and its NAG are kept,
    # the verdicts come after the input's own notes (the variation, an alternative to b1, after b1's)
    assert text == (f"{HEAD}\n"
                    '[Event "club \\"night\\""]\n[Black "Ann"]\n[White "Ben"]\n[FEN "xx1o/o2x x 0 1"]\n'
                    '[Result "*"]\n\n'
                    "1. c1 $2 {first} {played +4, best +8 by b1} 1... b1 { to the end of the line}\n"
                    "{optimal, +4} (1... a1c2 $4) *\n")
    assert looks_like_pgn(text)
    (back,), (game,) = games_of(text, str(out)), games_of(GAME)
    assert same_games([back], [game])
    c1, b1 = back.mainline()
    assert (c1.nags, c1.comments) == ([2], ["first", "played +4, best +8 by b1"])
    assert (b1.comments, b1.nags) == ([" to the end of the line", "optimal, +4"], [])
    (alt,) = b1.parent.variations[1:]
    assert (alt.move, alt.nags, alt.number_text) == ("a1c2", [4], "1...")


def test_a_blunder_gets_4_and_the_moves_not_judged_are_written_bare(tmp_path, capsys):
    f, out = tmp_path / "g.pgn", tmp_path / "out.pgn"
    f.write_text('[Black "Ann"]\n[White "Ben"]\n[FEN "xx1o/o2x x 0 1"]\n\n1. a2c1 b1 2. c2 *\n')
    # ply 0 has 3 empty squares, ply 1 has 3, ply 2 has 2: --empty 3-3 judges the first two only
    assert run(["verify", str(f), "--solver", "reference", "--empty", "3-3", "--annotate", str(out)]) == 0
    capsys.readouterr()
    body = out.read_text().split("\n\n", 1)[1]
    assert body.startswith("1. a2c1 $4 {played -")
    assert body.rstrip().endswith("2. c2 *") and "best +8 by" in body


def test_without_verdicts_the_annotated_file_is_the_input_modulo_whitespace():
    """Issue 28 item 3: what --annotate writes keeps everything the input had: with no verdict
    added, the games of libataxx, python-ataxx and cuteataxx (comments, variations, move numbers
    as their writers put them) come back as the input file, modulo white space."""
    for path in (LIBATAXX, PYTHON_ATAXX, CUTEATAXX):
        text = path.read_text()
        games = games_of(text, str(path))
        out = annotated_pgn([(str(path), g) for g in games], [])
        assert out.startswith(HEAD + "\n") and out[len(HEAD) + 1:].split() == text.split(), path


def test_the_annotated_file_of_libataxx_python_ataxx_and_cuteataxx_games_reads_back_to_the_same_games():
    """Every move of the 60 libataxx games, the 3 python-ataxx games and the 8 cuteataxx games gets a NAG and a comment
    (verdicts made up in turn, with exact values and intervals): the reader gives back the same
    tags, start and moves."""
    for path in (LIBATAXX, PYTHON_ATAXX, CUTEATAXX):
        games = games_of(path.read_text(), str(path))
        checks = []
        kinds = ("optimal", "inaccuracy", "blunder", "unsettled")
        for g in games:
            for k, move in enumerate(g.moves):
                verdict = kinds[k % 4]
                played = Interval(-3, -3, 49) if verdict != "unsettled" else Interval(-7, 5, 49)
                checks.append(Check("p", str(path), 1, position_name(g, k), g.positions[k], move,
                                    verdict=verdict, best_move="b2" if k % 3 else None,
                                    value_interval=played, best_interval=Interval(5, 9, 49)))
        text = annotated_pgn([(str(path), g) for g in games], checks)
        assert text.startswith(HEAD + "\n")
        body = text[len(HEAD):]
        assert body.count(" $4") == sum(c.verdict == "blunder" for c in checks)
        assert body.count(" $2") == sum(c.verdict == "inaccuracy" for c in checks)
        assert body.count("{") == len(checks) + path.read_text().count("{")  # the input's comments are kept
        assert all(len(line) < 80 for line in text.splitlines() if not line.startswith("["))
        assert same_games(games_of(text, "out.pgn"), games)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True),
                       st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=12),
                       max_size=5))
def test_any_tag_value_reads_back_the_same(tags):
    (game,) = games_of('[FEN "x2/3/2o x 0 1"]\n\n1. b2 *\n')
    game.headers.update(tags)
    (back,) = games_of(game_text(game))
    assert back.headers == game.headers and back.moves == ["b2"]


def test_comments_in_words():
    c = Check("p", "f", 1, None, None, "c1", verdict="inaccuracy", best_move=None,
              value_interval=Interval(-3, 1, 9), best_interval=Interval(4, 4, 9))
    assert comment(c) == "played -3..+1, best +4"
    c.verdict = "unsettled"
    assert comment(c) == "unsettled: played -3..+1, best +4"
    c.verdict, c.value_interval = "optimal", Interval(4, 4, 9)
    assert comment(c) == "optimal, +4"


def test_annotate_refuses_the_input_a_file_not_its_own_and_engines(tmp_path, capsys):
    f = tmp_path / "g.pgn"
    f.write_text(GAME)
    other = tmp_path / "notes.pgn"
    other.write_text('[Event "mine"]\n\n*\n')
    for target, why in ((f, "is the input file"), (other, "exists and was not written by this command")):
        with pytest.raises(SystemExit) as exc:
            run(["verify", str(f), "--solver", "reference", "--annotate", str(target)])
        assert exc.value.code == 2
        assert why in capsys.readouterr().err
    assert other.read_text() == '[Event "mine"]\n\n*\n' and f.read_text() == GAME
    with pytest.raises(SystemExit):
        run(["verify", str(f), "--annotate", str(tmp_path / "o.pgn"), "--engine", "builtin:greedy"])
    assert "cannot be used with --engine" in capsys.readouterr().err
    grid = tmp_path / "p.txt"
    grid.write_text("move: b1\nx...o\n")
    with pytest.raises(SystemExit):
        run(["verify", str(grid), "--annotate", str(tmp_path / "o.pgn")])
    assert "not a PGN file" in capsys.readouterr().err
    # a file it wrote is replaced
    out = tmp_path / "o.pgn"
    out.write_text(HEAD + "\n[Event \"old\"]\n\n*\n")
    assert is_annotated_pgn(out.read_bytes())
    assert run(["verify", str(f), "--solver", "reference", "--annotate", str(out)]) == 0
    assert "Ann" in out.read_text() and "old" not in out.read_text()


def test_player_judges_only_the_named_players_moves(tmp_path, capsys):
    f = tmp_path / "g.pgn"
    f.write_text(GAME + '\n[Black "Cid"]\n[White "Ann"]\n[FEN "xx1o/o2x o 0 1"]\n\n1... b1 2. c1 *\n')
    assert run(["verify", str(f), "--solver", "reference", "--player", "Ann"]) == 0
    out = capsys.readouterr().out
    assert "ply 0: Ann: 1. c1 is an inaccuracy (+4; best b1 +8, loses 4)" in out  # (the move numbered as in PGN)
    rows = [line.split()[0] for line in out.splitlines()[out.splitlines().index("") + 3:] if line]
    ann = next(line.split() for line in out.splitlines() if line.startswith("Ann "))
    assert rows == ["Ann", "worst"] and ann[1:3] == ["2", "2"]  # c1 in game 1, b1 (as White) in game 2: 2 moves, settled
    assert run(["verify", str(f), "--solver", "reference", "--player", "Ben", "--player", "Cid"]) == 0
    out = capsys.readouterr().out
    assert "Ben " in out and "Cid " in out and "Ann " not in out
    assert run(["verify", str(f), "--player", "Dee"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["ataxx-solve verify: --player Dee: no game has a player of that name (players: Ann, Ben, Cid)"]


@pytest.mark.slow  # 6 s of CPU; the quick suite's 3 minutes (README): the read-back test below stays quick
def test_verify_on_the_libataxx_games_annotates_every_judged_move_and_reads_back(tmp_path, capsys):
    """The 60 games written by libataxx, every move played with 1 empty square judged (352 moves,
    about 7 s): one comment per judged move besides libataxx's 6, a NAG per inaccuracy and blunder,
    the same games back."""
    out = tmp_path / "judged.pgn"
    assert run(["verify", str(LIBATAXX), "--empty", "1-1", "--annotate", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    text = out.read_text()
    body = text[len(HEAD):]
    assert body.count("{") - LIBATAXX.read_text().count("{") == 352 == sum(int(line.split()[1]) for line in lines if line.startswith("Player"))
    assert body.count(" $2") == sum(" is an inaccuracy " in line for line in lines) > 0
    assert body.count(" $4") == sum(" is a blunder " in line for line in lines) > 0
    assert same_games(games_of(text, str(out)), games_of(LIBATAXX.read_text(), str(LIBATAXX)))


def test_player_with_engines_asks_them_where_that_player_was_to_move(tmp_path, capsys):
    f = tmp_path / "g.pgn"
    f.write_text(GAME + '\n[Black "Cid"]\n[White "Ann"]\n[FEN "xx1o/o2x o 0 1"]\n\n1... b1 2. c1 *\n')
    assert run(["verify", str(f), "--solver", "reference", "--player", "Ann", "--engine", "builtin:greedy"]) == 0
    out = capsys.readouterr().out
    (row,) = [line for line in out.splitlines() if line.startswith("builtin:greedy ")]
    assert row.split()[1] == "2" and "ply 1:" not in out  # game 1 ply 0 and game 2 ply 0, not Ben's or Cid's
