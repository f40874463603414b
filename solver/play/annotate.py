"""Writing judged games back as PGN: the verdicts of ``verify`` added as NAGs and comments.

``verify games.pgn --annotate out.pgn`` writes every game it read, whole: its tags in their order,
its moves, and the comments, NAGs and variations it had (:mod:`solver.io.pgn` keeps the game
tree), each move with the move number it was written with. After the input's own NAGs and
comments of each judged move of the main line, it adds:

- a NAG for a move that loses points: ``$2`` an inaccuracy (loses points, keeps the outcome),
  ``$4`` a blunder (changes the outcome); an optimal or unsettled move gets none (nor a NAG the
  move already has);
- a comment with what was proved, values from X's side (Black's, the first mover's) as
  everywhere in the project: ``{optimal, +9}``, ``{played +9, best -9 by b2}`` (``by`` only when
  a move that keeps the value was found), ``{unsettled: played -7..-5, best -5..+3}`` (intervals
  where the value is not exact).

Moves that were not judged (outside ``--empty``, another player's under ``--player``, those of
variations) get nothing added. Games that could not be read are not written. Without the added
NAGs and comments the file is the input, modulo white space (``tests/test_annotate.py`` checks it
on the games of libataxx, python-ataxx and cuteataxx); :mod:`solver.io.pgn` reads it back to the
same games.

The file starts with a PGN escape line (``%``, which PGN readers skip) that says what wrote it;
that line is how an existing file is recognised as one of ours, which may be replaced.
"""

from __future__ import annotations

from typing import Iterable, Protocol

from solver.game.rules import CLASSIC, Rules
from solver.io.pgn import Game, looks_like_pgn, read_games, write_game
from solver.play.verify import Verdict
from solver.solve.analysis import Interval

MARK = "% written by ataxx-solve verify --annotate"
HEAD = MARK + ": $2 inaccuracy, $4 blunder"
NAGS = {"inaccuracy": "$2", "blunder": "$4"}


class Judged(Protocol):
    """What a verdict on a move carries (:class:`solver.play.verify.Check`)."""

    source: str
    name: str | None
    move: str
    verdict: Verdict | None
    best_move: str | None
    value_interval: Interval | None
    best_interval: Interval | None


def is_annotated_pgn(first: bytes) -> bool:
    """Whether a file's first bytes are those of a file this module wrote."""
    return first.startswith(MARK.encode())


def read_pgn_file(path: str, rules: Rules = CLASSIC, fmt: str = "auto") -> list[Game]:
    """The games of a PGN file (those that can be read); raises ValueError with one line for a
    file that cannot be read or is not PGN."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror}") from None
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    if fmt not in ("auto", "pgn") or (fmt == "auto" and not looks_like_pgn(text)):
        raise ValueError(f"{path}: not a PGN file (--annotate writes games back; give games in PGN)")
    return [g for g in read_games(text, path, rules) if isinstance(g, Game)]


def position_name(game: Game, ply: int) -> str:
    """The name ``verify`` gives the position after ``ply`` plies (:func:`solver.io.formats.game_entries`)."""
    return f"{game.label}, ply {ply}"


def comment(check: Judged) -> str | None:
    """The comment on a judged move (without braces), None when nothing was proved."""
    played, best = check.value_interval, check.best_interval
    if played is None or best is None or check.verdict is None:
        return None
    if check.verdict == Verdict.OPTIMAL:
        return f"optimal, {played.text()}"
    if check.verdict == Verdict.UNSETTLED:
        return f"unsettled: played {played.text()}, best {best.text()}"
    by = f" by {check.best_move}" if check.best_move else ""
    return f"played {played.text()}, best {best.text()}{by}"


def game_text(game: Game, checks: dict[str, Judged] | None = None) -> str:
    """One game as PGN (:func:`solver.io.pgn.write_game`): everything it had, and the verdicts of
    ``checks`` (by position name: :func:`position_name`) on the moves of its main line."""
    checks = checks or {}
    added: dict[int, tuple[list[int], list[str]]] = {}
    for k, node in enumerate(game.mainline()):
        c = checks.get(position_name(game, k))
        if c is None or c.move != node.move:
            continue
        text = comment(c)
        added[id(node)] = ([int(NAGS[c.verdict][1:])] if c.verdict in NAGS else [], [] if text is None else [text])
    return write_game(game, lambda node: added.get(id(node), ([], [])))


def annotated_pgn(games: list[tuple[str, Game]], checks: Iterable[Judged]) -> str:
    """The annotated PGN of ``games`` (each with the file it was read from) and the checks made
    on them (matched by file and position name)."""
    by: dict[str, dict[str, Judged]] = {}
    for c in checks:
        if c.name is not None:
            by.setdefault(c.source, {})[c.name] = c
    return HEAD + "\n" + "\n".join(game_text(g, by.get(source)) for source, g in games)

