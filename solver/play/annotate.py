"""Writing judged games back as PGN: the verdicts of ``verify`` as NAGs and comments.

``verify games.pgn --annotate out.pgn`` writes every game it read, with all its tags in their
order, its start position (the ``[FEN]`` tag as read) and its main line, and after each judged
move:

- a NAG for a move that loses points: ``$2`` an inaccuracy (loses points, keeps the outcome),
  ``$4`` a blunder (changes the outcome); an optimal or unsettled move gets none;
- a comment with what was proved, values from X's side (Black's, the first mover's) as
  everywhere in the project: ``{optimal, +9}``, ``{played +9, best -9 by b2}`` (``by`` only when
  a move that keeps the value was found), ``{unsettled: played -7..-5, best -5..+3}`` (intervals
  where the value is not exact).

Moves that were not judged (outside ``--empty``, another player's under ``--player``) are
written bare. The input's comments, NAGs and variations are not written (the reader keeps only
the main line), nor games that could not be read. :mod:`solver.io.pgn` reads the file back to the
same games: the same tags, start and moves (``tests/test_annotate.py`` checks it).

The file starts with a PGN escape line (``%``, which PGN readers skip) that says what wrote it;
that line is how an existing file is recognised as one of ours, which may be replaced.
"""

from __future__ import annotations

from typing import Iterable, Protocol

from solver.game.rules import CLASSIC, Position, Rules, X
from solver.io.pgn import Game, looks_like_pgn, move_number, read_games
from solver.solve.analysis import Interval

MARK = "% written by ataxx-solve verify --annotate"
HEAD = MARK + ": $2 inaccuracy, $4 blunder"
NAGS = {"inaccuracy": "$2", "blunder": "$4"}
WIDTH = 79  # PGN's export format keeps lines under 80 characters


class Judged(Protocol):
    """What a verdict on a move carries (:class:`solver.play.verify.Check`)."""

    source: str
    name: str | None
    move: str
    verdict: str | None
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
    if check.verdict == "optimal":
        return f"optimal, {played.text()}"
    if check.verdict == "unsettled":
        return f"unsettled: played {played.text()}, best {best.text()}"
    by = f" by {check.best_move}" if check.best_move else ""
    return f"played {played.text()}, best {best.text()}{by}"


def _tag(key: str, value: str) -> str:
    """A tag pair, ``\\`` and ``"`` escaped as the reader unescapes them."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{key} "{escaped}"]'


def _wrap(tokens: Iterable[str]) -> list[str]:
    lines: list[str] = []
    cur = ""
    for t in tokens:
        if cur and len(cur) + 1 + len(t) > WIDTH:
            lines.append(cur)
            cur = t
        else:
            cur = f"{cur} {t}" if cur else t
    if cur:
        lines.append(cur)
    return lines


def game_text(game: Game, checks: dict[str, Judged] | None = None) -> str:
    """One game as PGN: its tags, a blank line, its moves with the verdicts of ``checks`` (by
    position name: :func:`position_name`) and its result (``*`` when it had none)."""
    checks = checks or {}
    out = [_tag(k, v) for k, v in game.headers.items()]
    tokens: list[str] = []  # units kept on one line: a move with its number and NAG; a comment
    after_note = True  # the move number is written before X's moves, and before O's after a note
    for k, move in enumerate(game.moves):
        p: Position = game.positions[k]
        unit = f"{move_number(p)} {move}" if p.turn == X or after_note else move
        after_note = False
        c = checks.get(position_name(game, k))
        if c is not None and c.move == move:
            if c.verdict in NAGS:
                unit += " " + NAGS[c.verdict]
            text = comment(c)
            if text is not None:
                tokens.append(unit)
                unit = "{" + text.replace("}", ")") + "}"
                after_note = True
        tokens.append(unit)
    tokens.append(game.result or game.headers.get("Result") or "*")
    return "\n".join(out + ([""] if out else []) + _wrap(tokens)) + "\n"


def annotated_pgn(games: list[tuple[str, Game]], checks: Iterable[Judged]) -> str:
    """The annotated PGN of ``games`` (each with the file it was read from) and the checks made
    on them (matched by file and position name)."""
    by: dict[str, dict[str, Judged]] = {}
    for c in checks:
        if c.name is not None:
            by.setdefault(c.source, {})[c.name] = c
    return HEAD + "\n" + "\n".join(game_text(g, by.get(source)) for source, g in games)

