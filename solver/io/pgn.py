"""Reading Ataxx games in PGN: the start position, the moves, and every position after each move.

The PGN of Ataxx programs (libataxx's writer, python-ataxx's, cuteataxx's match files) is chess's
PGN with Ataxx moves:

- **Tag pairs** ``[Key "value"]`` (``\\"`` and ``\\\\`` escaped in the value), one a line, before
  the moves. ``[FEN "..."]`` gives the start position (read by :mod:`solver.game.fen`, so
  libataxx's ``b``/``w`` and the project's ``x``/``o`` are both read); without it the game
  starts from the standard 7 x 7 start. ``[SetUp]``, ``[Black]``, ``[White]``, ``[Result]`` and
  any other tag are kept in :attr:`Game.headers`. In libataxx's PGN (and python-ataxx's and
  cuteataxx's) the first mover, ``x``, is **Black**, and ``o`` is White; the players' names are
  read from ``Black`` and ``White`` in any letter case (cuteataxx writes ``[black "..."]`` by
  default).
- **Moves**: clones (``b2``), jumps (``a1c3``), passes (``0000``, or ``--``, ``@@@@``, ``pass``,
  ``null``, ``-``). A move may carry suffix annotations (``b2!``, ``a1c3??``, ``!?``, ``?!``).
- **Move numbers** (``12.``, ``12...``, also glued to the move: ``12.b2``) are skipped: the side
  to move comes from the position, not from the numbers.
- **Comments** in braces (over several lines) and from ``;`` to the end of the line; a line that
  starts with ``%`` is skipped (PGN's escape).
- **Variations** in parentheses, nested: skipped (their moves are not checked); the main line
  is followed.
- **NAGs** (``$2``) are skipped.
- **The result** (``1-0``, ``0-1``, ``1/2-1/2``, ``*``) ends the game. A new tag line after moves
  starts a new game too; a file holds any number of games. CRLF line ends and a byte-order mark
  are read.

Every move is played by the rules given (:meth:`solver.game.rules.Position.parse_move`): an illegal
or unreadable move, an unclosed comment or variation, a bad tag or a bad FEN is one
:class:`~solver.game.fen.PositionFormatError` that names the file, the line, the game (its number and
its players) and, for a move, its number and text. A game with an error is refused whole; the
other games of the file are read.

Reading takes time linear in the input: the text is scanned once, character by character,
and no regular expression here can backtrack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from solver.game.fen import (
    MAX_GAME_MOVES,
    STARTPOS,
    PositionFormatError,
    parse_whole,
    quote,
)
from solver.game.rules import (
    CLASSIC,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Position,
    Rules,
    X,
)

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
PASS_SPELLINGS = ("0000", "--", "@@@@", "pass", "null", "-")
SUFFIXES = "!?"
_TAG = re.compile(r'\[\s*([A-Za-z0-9_+#=:.-]+)\s*"((?:[^"\\]|\\.)*)"\s*\]')
_MOVE_NUMBER = re.compile(r"[0-9]+\.+")
_NAG = re.compile(r"\$[0-9]+")


@dataclass
class Game:
    """One game of a PGN file: its tags, its start position and its main line.

    ``positions[k]`` is the position after ``k`` plies (``positions[0]`` the start),
    ``moves[k]`` the move played from it, written as :meth:`Position.move_name` writes it.
    """

    number: int                        # 1 for the first game of the file
    headers: dict[str, str]
    positions: list[Position]
    moves: list[str]
    line: int                          # the line where the game starts
    move_lines: list[int] = field(default_factory=list)  # the line of each move
    result: str | None = None          # the result token that ended the movetext, if any

    @property
    def start(self) -> Position:
        return self.positions[0]

    @property
    def final(self) -> Position:
        return self.positions[-1]

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def label(self) -> str:
        """``game 3 (Alice vs Bob)``: the number and the players (Black, the first mover, first)."""
        return game_label(self.number, self.headers)

    def player(self, ply: int) -> str | None:
        """The name the tags give the player who moves after ``ply`` plies (Black is X, White O)."""
        name = tag(self.headers, "Black" if self.positions[ply].turn == X else "White")
        return name if name and name != "?" else None


def tag(headers: dict[str, str], name: str) -> str | None:
    """The value of tag ``name``, or of the same name in other letter case (cuteataxx writes
    ``[black "..."]`` and ``[white "..."]`` unless its settings give ``colour1``/``colour2``)."""
    if name in headers:
        return headers[name]
    folded = name.casefold()
    return next((v for k, v in headers.items() if k.casefold() == folded), None)


def game_label(number: int, headers: dict[str, str]) -> str:
    black, white = tag(headers, "Black") or "?", tag(headers, "White") or "?"
    if black == "?" and white == "?":
        return f"game {number}"
    return f"game {number} ({black} vs {white})"


def move_number(p: Position) -> str:
    """``12.`` for X (Black) to move, ``12...`` for O: the number of the move played from ``p``."""
    return f"{p.fullmove}." if p.turn == X else f"{p.fullmove}..."


def looks_like_pgn(text: str) -> bool:
    """True when the first line that is not blank (nor a ``%`` escape line) starts with a tag
    (``[``): how a PGN file is told from a position file."""
    for line in text.splitlines():
        if line.strip() and not line.startswith("%"):
            return line.lstrip().startswith("[")
    return False


# -- scanning ---------------------------------------------------------------------------------------

@dataclass
class _Raw:
    """A game as scanned, before its moves are played: tags and main-line move tokens."""

    line: int
    headers: dict[str, str] = field(default_factory=dict)
    header_lines: dict[str, int] = field(default_factory=dict)
    moves: list[tuple[str, int]] = field(default_factory=list)  # (text, line)
    result: str | None = None
    error: PositionFormatError | None = None
    has_movetext: bool = False


def _unescape(value: str) -> str:
    return value.replace('\\"', '"').replace("\\\\", "\\")


def scan(text: str, source: str = "<input>") -> list[_Raw]:
    """The games of a PGN text, tags and main-line tokens, in one pass over the text."""
    if text.startswith("\ufeff"):
        text = text[1:]
    games: list[_Raw] = []
    cur: _Raw | None = None
    depth = 0            # of variations
    depth_line = 0       # where the outermost open variation started
    in_comment = 0       # the line where an open brace comment started, else 0

    def finish() -> None:
        nonlocal cur, depth
        if cur is not None:
            if depth and cur.error is None:
                cur.error = PositionFormatError(f"{game_label(len(games) + 1, cur.headers)}: a variation '(' is "
                                                "never closed", source, depth_line)
            games.append(cur)
        cur, depth = None, 0

    lines = text.split("\n")
    for n, raw in enumerate(lines, 1):
        line = raw.rstrip("\r")
        i = 0
        if in_comment:
            end = line.find("}")
            if end < 0:
                continue
            in_comment = 0
            i = end + 1
        elif line.startswith("%"):
            continue
        elif line.lstrip().startswith("["):
            if cur is not None and (cur.has_movetext or cur.result is not None):
                finish()
            if cur is None:
                cur = _Raw(n)
            m = _TAG.fullmatch(line.strip())
            if m is None:
                if cur.error is None:
                    cur.error = PositionFormatError(f"{game_label(len(games) + 1, cur.headers)}: a tag line should "
                                                    f"read [Key \"value\"], not {quote(line.strip())}", source, n)
                continue
            key, value = m.group(1), _unescape(m.group(2))
            if key in cur.headers and cur.error is None:
                cur.error = PositionFormatError(f"{game_label(len(games) + 1, cur.headers)}: tag {key} given twice",
                                                source, n)
            cur.headers.setdefault(key, value)
            cur.header_lines.setdefault(key, n)
            continue
        while i < len(line):
            ch = line[i]
            if ch in " \t\f\v":
                i += 1
                continue
            if ch == "{":
                end = line.find("}", i + 1)
                if end < 0:
                    in_comment = n
                    break
                i = end + 1
                continue
            if ch == ";":
                break
            if ch == "}":
                if cur is None:
                    cur = _Raw(n)
                if cur.error is None:
                    cur.error = PositionFormatError(f"{game_label(len(games) + 1, cur.headers)}: '}}' closes no "
                                                    "comment", source, n)
                i += 1
                continue
            j = i
            if ch in "()":
                j = i + 1
            else:
                while j < len(line) and line[j] not in " \t\f\v{};()":
                    j += 1
            token = line[i:j]
            i = j
            if cur is None:
                cur = _Raw(n)
            cur.has_movetext = True
            if token == "(":
                if depth == 0:
                    depth_line = n
                depth += 1
                continue
            if token == ")":
                if depth == 0:
                    if cur.error is None:
                        cur.error = PositionFormatError(f"{game_label(len(games) + 1, cur.headers)}: ')' closes no "
                                                        "variation", source, n)
                    continue
                depth -= 1
                continue
            if depth:
                continue  # inside a variation: not the main line
            if token in RESULTS:
                cur.result = token
                finish()
                continue
            if _NAG.fullmatch(token):
                continue
            m = _MOVE_NUMBER.match(token)
            if m:
                token = token[m.end():]
                if not token:
                    continue
            stripped = token.rstrip(SUFFIXES)
            if not stripped:
                continue  # an annotation standing alone (``!?``)
            cur.moves.append((stripped, n))
    if in_comment and cur is not None and cur.error is None:
        cur.error = PositionFormatError(f"{game_label(len(games) + 1, cur.headers)}: a comment '{{' is never closed",
                                        source, in_comment)
    finish()
    return games


# -- playing ----------------------------------------------------------------------------------------

def _start(raw: _Raw, number: int, rules: Rules, source: str) -> Position:
    fen = raw.headers.get("FEN")
    if fen is None:
        return Position.from_fen(STARTPOS, rules, source, raw.line)
    line = raw.header_lines["FEN"]
    try:
        return Position.from_fen(fen, rules, source, line)
    except PositionFormatError as exc:
        raise PositionFormatError(f"{game_label(number, raw.headers)}: FEN tag: {exc.message}", source, line) from None
    except ValueError as exc:
        raise PositionFormatError(f"{game_label(number, raw.headers)}: FEN tag: {exc}", source, line) from None


def play_game(raw: _Raw, number: int, rules: Rules = CLASSIC, source: str = "<input>") -> Game:
    """The :class:`Game` of a scanned game, its moves played; raises :class:`PositionFormatError`."""
    if raw.error is not None:
        raise raw.error
    label = game_label(number, raw.headers)
    if len(raw.moves) > MAX_GAME_MOVES:
        raise PositionFormatError(f"{label}: a game has at most {MAX_GAME_MOVES:,} moves, this one has "
                                  f"{len(raw.moves):,}", source, raw.moves[MAX_GAME_MOVES][1])
    p = _start(raw, number, rules, source)
    positions, names, lines = [p], [], []
    for text, n in raw.moves:
        shown = text if text.isprintable() and len(text) <= 20 else quote(text, 20)
        where = f"{label}, move {move_number(p)} {shown}"
        if p.is_over():
            raise PositionFormatError(f"{where}: the game is already over", source, n)
        try:
            move = _parse_move(p, text)
        except (InvalidMoveError, IllegalMoveError) as exc:
            raise PositionFormatError(f"{where}: {exc}", source, n) from None
        names.append(p.move_name(move))
        lines.append(n)
        p = p.push(move)
        positions.append(p)
    return Game(number, dict(raw.headers), positions, names, raw.line, lines, raw.result)


def _parse_move(p: Position, text: str) -> Move:
    if text.lower() in PASS_SPELLINGS:
        text = "0000"
    return p.parse_move(text)


def read_games(text: str, source: str = "<input>", rules: Rules = CLASSIC) -> list:
    """Every game of a PGN text, in order: :class:`Game` objects, or :class:`PositionFormatError`
    for the games that could not be read. A text with no game gives a single error."""
    out: list = []
    for number, raw in enumerate(scan(text, source), 1):
        try:
            out.append(play_game(raw, number, rules, source))
        except PositionFormatError as exc:
            out.append(exc)
    if not out:
        out.append(PositionFormatError("no game found (the input is empty)", source, None))
    return out


# -- choosing positions -----------------------------------------------------------------------------

def parse_empty_range(text: str) -> tuple[int, int]:
    """``A-B`` (or ``A``) as (A, B), each a number of empty squares from 0 to 64; ValueError otherwise."""
    low_text, dash, high_text = text.partition("-")
    low = parse_whole(low_text.strip(), "the fewest empty squares", 0, 64)
    high = parse_whole(high_text.strip(), "the most empty squares", 0, 64) if dash else low
    if high < low:
        raise ValueError(f"the range {quote(text)} is empty (write the smaller number first)")
    return low, high


@dataclass(frozen=True)
class Pick:
    """Which positions of each game to take.

    - ``ply=N``: the position after N plies (0 is the start); a game with fewer plies is an error;
    - ``empty=(A, B)``: every position with A to B empty squares (playable squares without a piece);
    - neither: the final position (``every=False``), or every position a move was played from
      (``every=True``: what ``verify`` judges; with ``empty`` too, the final position is left out).
    ``ply`` and ``empty`` together: the position after N plies if it has A to B empty squares.
    """

    ply: int | None = None
    empty: tuple[int, int] | None = None
    every: bool = False

    def plies(self, game: Game, source: str = "<input>") -> list[int]:
        """The plies (indices into ``game.positions``) this pick takes; raises
        :class:`PositionFormatError` when ``ply`` is past the end of the game."""
        if self.ply is not None:
            if self.ply > game.plies:
                raise PositionFormatError(f"{game.label} has {game.plies} plies; there is no position after ply "
                                          f"{self.ply}", source, game.line)
            candidates = [self.ply]
        elif self.empty is not None or self.every:
            candidates = list(range(game.plies + (0 if self.every else 1)))
        else:
            candidates = [game.plies]
        if self.empty is not None:
            low, high = self.empty
            candidates = [k for k in candidates if low <= bin(game.positions[k].empty).count("1") <= high]
        return candidates
