"""Reading and writing positions (SPEC section 7).

Four formats, detected automatically or forced:

- ``grid``: one line per row, top row first; ``x``/``o`` pieces, ``#`` blocks,
  ``.`` or a space empty; an optional frame of ``+ - |``, rank labels on either
  side and a file header line (``abcde``).
- ``colon``: ``1:0:0:2:`` per row; 0 empty, 1 X, 2 O, ``#`` a block.
- ``fen``: ``x5o/7/7/7/7/7/o5x x 0 1`` (ranks top to bottom, ``-`` a block,
  digit runs of empty squares, or ``.`` for one; libataxx's ``b``/``w`` for ``x``/``o``),
  then side, counter and move number, all optional.
  ``startpos`` is the 7 x 7 standard start (:mod:`solver.game.fen`).
- ``cs61b``: the board dump of Berkeley's CS 61B Ataxx, framed by ``===`` lines;
  ``r`` (red, the first player) is X, ``b`` is O, ``-`` empty, ``X`` a block.
- ``pgn``: games (:mod:`solver.io.pgn`), detected by a tag line (``[``) at the start; a
  :class:`~solver.io.pgn.Pick` says which positions of each game are entries (the final one by
  default), each named after its game and ply, with the move played from it and its player.
- ``epd``: test suites (:mod:`solver.io.epd`), one position a line, detected by the operations
  after the FEN's board and side (``bm b2; ce 3; id "name";``); ``id`` names the entry, ``ce``
  and ``bm`` are expectations checked against the solution (``expect["ce"]``, ``expect["bm"]``).

A position file holds several positions separated by blank lines. ``key: value``
lines before a position describe it (``name``, ``to-move``, ``rules``,
``counter``, ``expect``, ``move``, ``moves``, ``player``); a ``moves:`` line right after
a position's lines (no blank line between) is that position's game record. Lines
starting with ``;`` are comments.

Every problem is a :class:`PositionFormatError` that names the source, the line
and the reason; nothing is half-built. Parsing takes time linear in the input:
no regular expression here can backtrack over a line (one with a lazy group and
trailing spaces took quadratic time), numbers are ASCII digits of bounded
length (:func:`parse_whole`), a game record has at most :data:`MAX_GAME_MOVES`
moves, and messages quote at most a few dozen characters of the input (:func:`quote`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from solver.common.work import scanned
from solver.game.board import MAX_SQUARES, Board, file_name
from solver.game.fen import (
    MAX_COUNTER,
    MAX_GAME_MOVES,
    STARTPOS,
    PositionFormatError,
    board_from_rows,
    game_moves,
    is_fen_argument,
    looks_like_fen,
    parse_whole,
    quote,
    read_fen,
    whole_field,
    write_fen_board,
)
from solver.game.rules import CLASSIC, O, Move, Position, Rules, Side, X, grid_rows, parse_rules
from solver.io.epd import looks_like_epd, read_epd_lines
from solver.io.pgn import BrokenGameError, Game, Pick, looks_like_pgn, player_name, read_games

FORMATS = ("auto", "grid", "colon", "fen", "cs61b", "pgn", "epd")
HEADER_KEYS = ("name", "to-move", "rules", "counter", "expect", "move", "moves", "player")
EXPECT_KEYS = ("x", "o", "value", "orthodox")
# Names from solver.game.fen that this module offers too (they were defined here before).
__all__ = ["FORMATS", "MAX_COUNTER", "MAX_GAME_MOVES", "STARTPOS", "Entry", "PositionFormatError", "detect_format",
           "game_entries", "is_large_start", "read_pgn", "read_epd",
           "grid_rows", "looks_like_fen", "parse_colon", "parse_cs61b", "parse_fen", "parse_grid", "parse_position", "parse_whole",
           "is_header_or_comment", "printable", "quote", "read_file", "read_line", "read_positions", "read_text", "write_colon", "write_fen",
           "write_fen_board", "write_grid"]


def printable(text: str) -> str:
    """``text`` with control characters (terminal escape codes, bidi overrides, ...) written as
    escapes like ``\\x1b``, so that names and file names from the input cannot drive a terminal."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)



class MovesBefore(Sequence[str]):
    """The first ``k`` moves of a game's main line, sharing the game's list: the entries of every
    position of a game hold no copy each of the moves before them (a copy each took memory and
    time quadratic in the game: 400 MB for the positions of one game of 10,000 moves)."""

    __slots__ = ("_moves", "_k")

    def __init__(self, moves: list[str], k: int):
        self._moves, self._k = moves, k

    def __len__(self) -> int:
        return self._k

    def __getitem__(self, i):  # type: ignore[no-untyped-def]  # (Sequence's two overloads)
        if isinstance(i, slice):
            return tuple(self._moves[j] for j in range(self._k)[i])
        return self._moves[range(self._k)[i]]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and not isinstance(other, str) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


@dataclass
class Entry:
    """One position read from input, with what its headers say about it.

    ``sides`` lists the sides to move to analyse: one side, or both for a board
    given without a side to move. ``position`` has X to move in that case.
    """

    position: Position
    sides: tuple[Side, ...]
    source: str = "<input>"
    line: int = 1
    name: str | None = None
    expect: dict = field(default_factory=dict)
    move: str | None = None
    moves: list[str] | None = None
    player: str | None = None  # who chose ``move`` or played the game (verify)
    moves_line: int | None = None  # the line of the game record (``moves``)
    history: tuple[Position, Sequence[str]] | None = None  # a game's start and the moves that reached position
    last_move: Move | None = None  # the last of those moves (a game's position after its start)

    @property
    def is_board(self) -> bool:
        """True when no side to move was given: both sides are analysed."""
        return len(self.sides) == 2

    @property
    def label(self) -> str:
        return self.name or f"{self.source}:{self.line}"


# -- FEN ------------------------------------------------------------------------------------------

def parse_fen(text: str, rules: Rules = CLASSIC, source: str = "<input>", line: int | None = None) -> Position:
    """A position from a FEN line (side defaults to X, counter to 0, move number to 1)."""
    return Position.from_fen(text, rules, source, line)


def write_fen(position: Position) -> str:
    """The FEN of a position: :meth:`Position.fen`."""
    return position.fen()


# -- grids ----------------------------------------------------------------------------------------

_FRAME_LINE = re.compile(r"\s*+[+\-][+\- ]*+")  # (possessive: no backtracking)
_GRID_CELLS = {"x": "x", "X": "x", "o": "o", "O": "o", "#": "#", ".": ".", " ": "."}


def _left_label(text: str) -> tuple[str, str] | None:
    """(digits, rest) of a row that starts with a rank label (``3 x..o``), else None: what
    ``\\s*([0-9]+) ?(.*)`` matched, without a regular expression."""
    scanned(2 * len(text))
    body = text.lstrip()
    end = 0
    while end < len(body) and "0" <= body[end] <= "9":
        end += 1
    if end == 0:
        return None
    rest = body[end:]
    return body[:end], rest[1:] if rest.startswith(" ") else rest


def _right_label(text: str) -> tuple[str, str] | None:
    """(digits, rest) of a row that ends with a rank label (``x..o 3``), else None: what
    ``(.*?) ?([0-9]+)\\s*`` matched (that expression took quadratic time on long digit runs)."""
    scanned(2 * len(text))
    body = text.rstrip()
    start = len(body)
    while start > 0 and "0" <= body[start - 1] <= "9":
        start -= 1
    if start == len(body):
        return None
    rest = body[:start]
    return body[start:], rest[:-1] if rest.endswith(" ") else rest


def _inside_bars(text: str) -> str | None:
    """The part of a row between its outer ``|`` bars (``|x..o|``), else None."""
    scanned(2 * len(text))
    body = text.strip()
    if len(body) >= 2 and body[0] == "|" and body[-1] == "|":
        return body[1:-1]
    return None


def _is_file_header(text: str) -> bool:
    scanned(len(text))
    letters = text.replace(" ", "")
    if not letters or len(letters) > 3 * MAX_SQUARES or not letters.isalpha() or letters[0] != "a":
        return False
    names, n = "", 0
    while len(names) < len(letters):
        names += file_name(n)
        n += 1
    return names == letters


def _strip_outer(lines: list[tuple[int, str]], source: str) -> list[tuple[int, str]]:
    """Drop frame lines (+---+) and file headers (abcde) above and below the rows."""
    def removable(text: str) -> bool:
        scanned(2 * len(text))
        return bool(_FRAME_LINE.fullmatch(text)) or _is_file_header(text.strip())

    first, last = 0, len(lines)
    while first < last and removable(lines[first][1]):
        first += 1
    while last > first and removable(lines[last - 1][1]):
        last -= 1
    lines = lines[first:last]
    for n, text in lines:
        scanned(len(text))
        if _FRAME_LINE.fullmatch(text):
            raise PositionFormatError("a frame line inside the grid", source, n)
    return lines


def parse_grid(lines: list[tuple[int, str]], source: str = "<input>") -> tuple[Board, int, int]:
    """(board, X, O) from numbered grid lines, top row first."""
    first = lines[0][0] if lines else None
    lines = _strip_outer([(n, t.rstrip("\r\n")) for n, t in lines], source)
    if not lines:
        raise PositionFormatError("no board rows (only a frame or a header)", source, first)

    # Rank labels, on the left and/or the right: all rows or none, reading R..1 downwards.
    def labels(split: Callable[[str], tuple[str, str] | None],
               rows: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], list[str] | None]:
        found = [split(t) for _, t in rows]
        if not any(found):
            return rows, None
        split_rows = [f for f in found if f is not None]
        if len(split_rows) < len(found):
            n = rows[found.index(None)][0]
            raise PositionFormatError("inconsistent rank labels: some rows are labelled, this one is not", source, n)
        return [(n, rest) for (n, _), (_, rest) in zip(rows, split_rows)], [label for label, _ in split_rows]

    rows, left = labels(_left_label, lines)
    rows, right = labels(_right_label, rows)
    R = len(rows)
    for labelled in (left, right):
        if labelled is not None:
            for (n, _), got, want in zip(rows, labelled, range(R, 0, -1)):
                if (got.lstrip("0") or "0") != str(want):
                    raise PositionFormatError(f"rank label {got if len(got) < 10 else quote(got)} should be {want} "
                               "(ranks count up from 1 at the bottom row)", source, n)
    # Bars: all rows or none.
    barred = [_inside_bars(t) for _, t in rows]
    if any(inside is not None for inside in barred):
        for (n, t), inside in zip(rows, barred):
            if inside is None:
                raise PositionFormatError("inconsistent frame: other rows have '|' at both ends, this one does not", source, n)
        rows = [(n, inside) for (n, _), inside in zip(rows, barred) if inside is not None]
    else:
        for n, t in rows:
            if "|" in t:
                raise PositionFormatError("inconsistent frame: '|' on one side of the row only", source, n)
    cells = []
    for n, t in rows:
        scanned(len(t))
        row = []
        for col, ch in enumerate(t, 1):
            if ch not in _GRID_CELLS:
                hint = ("; a FEN separates ranks with '/' and writes a block as '-', empty squares as '.' or a "
                        "digit run" if ch == "/" else "")
                raise PositionFormatError(f"unknown character {ch!r} in column {col} of the grid "
                                          f"(expected x, o, # for a block, . or space for empty{hint})", source, n)
            row.append(_GRID_CELLS[ch])
        cells.append(row)
    if not cells[0]:
        raise PositionFormatError("empty grid row", source, rows[0][0])
    return _board_of_rows([n for n, _ in rows], cells, source)


def _board_of_rows(numbers: list[int], cells: list[list[str]], source: str) -> tuple[Board, int, int]:
    """(board, X, O) from the decoded rows of any grid format (``numbers``: their input lines);
    every row must have the first row's width."""
    width = len(cells[0])
    for n, row in zip(numbers, cells):
        if len(row) != width:
            raise PositionFormatError(f"ragged rows: this row has {len(row)} squares, the first row has {width}", source, n)
    return board_from_rows(cells, source, numbers[0])


def parse_colon(lines: list[tuple[int, str]], source: str = "<input>") -> tuple[Board, int, int]:
    """(board, X, O) from colon-grid lines like ``1:0:0:2:``."""
    cells = []
    for n, text in lines:
        scanned(3 * len(text))
        fields = text.strip().split(":")
        if fields and fields[-1] == "":
            fields = fields[:-1]
        row = []
        for col, f in enumerate(fields, 1):
            f = f.strip()
            if f not in ("0", "1", "2", "#"):
                raise PositionFormatError(f"colon grid field {col} is {quote(f)}; expected 0 (empty), 1 (X), 2 (O) or #", source, n)
            row.append({"0": ".", "1": "x", "2": "o", "#": "#"}[f])
        if not row:
            raise PositionFormatError("empty colon-grid row", source, n)
        cells.append(row)
    return _board_of_rows([n for n, _ in lines], cells, source)


_CS61B_CELLS = {"r": "x", "b": "o", "-": ".", "X": "#"}


def parse_cs61b(lines: list[tuple[int, str]], source: str = "<input>") -> tuple[Board, int, int]:
    """(board, X, O) from the board dump of Berkeley's CS 61B Ataxx (its ``dump`` command): a
    line ``===``, one line per rank from the top with the squares separated by spaces (``r``
    red, the first player: X; ``b`` blue: O; ``-`` empty; ``X`` a block), and a line ``===``.
    The dump with a legend (rank numbers before the rows, a line of file letters) is read too."""
    first = lines[0][0]
    if lines[0][1].strip() != "===" or len(lines) < 2 or lines[-1][1].strip() != "===":
        raise PositionFormatError("a CS 61B board dump starts and ends with a line '==='", source, first)
    body = [(n, t) for n, t in lines[1:-1] if not _is_file_header(t.strip())]
    if not body:
        raise PositionFormatError("a CS 61B board dump with no rows", source, first)
    scanned(sum(2 * len(t) for _, t in body))
    rows = [(n, t.split()) for n, t in body]
    labelled = [bool(toks) and toks[0].isascii() and toks[0].isdigit() for _, toks in rows]
    if any(labelled):
        for (n, toks), has, want in zip(rows, labelled, range(len(rows), 0, -1)):
            if not has:
                raise PositionFormatError("inconsistent rank labels: some rows are labelled, this one is not", source, n)
            if (toks[0].lstrip("0") or "0") != str(want):
                raise PositionFormatError(f"rank label {quote(toks[0])} should be {want} "
                                          "(ranks count up from 1 at the bottom row)", source, n)
        rows = [(n, toks[1:]) for n, toks in rows]
    cells = []
    for n, toks in rows:
        row = []
        for col, tok in enumerate(toks, 1):
            if tok not in _CS61B_CELLS:
                raise PositionFormatError(f"square {col} of the row is {quote(tok)}; a CS 61B dump has r (red), "
                                          "b (blue), - (empty) or X (a block), separated by spaces", source, n)
            row.append(_CS61B_CELLS[tok])
        if not row:
            raise PositionFormatError("empty row in a CS 61B board dump", source, n)
        cells.append(row)
    return _board_of_rows([n for n, _ in rows], cells, source)


def write_grid(position: Position, coordinates: bool = False, pieces: str = "xo") -> str:
    """A plain grid, or with rank labels and a file header (both read back by :func:`parse_grid`
    with the default ``pieces``, the letters of X's and O's pieces; ``rb`` for CS 61B's red and blue):
    :meth:`Position.grid`."""
    return position.grid(coordinates, pieces)


def write_colon(position: Position) -> str:
    trans = {".": "0", "x": "1", "o": "2", "#": "#"}
    return "\n".join("".join(trans[c] + ":" for c in row) for row in grid_rows(position.board, position.x, position.o))


# -- detection and position files ----------------------------------------------------------------

_HEADER_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*+")


def _header(line: str) -> tuple[str, str] | None:
    """(key, value) of a ``key: value`` line, else None. Written out rather than as one regular
    expression: ``\\s*(KEY)\\s*:\\s*(.*?)\\s*`` took quadratic time on long runs of spaces."""
    scanned(3 * len(line))
    key, colon, value = line.partition(":")
    key = key.strip()
    if not colon or not _HEADER_KEY.fullmatch(key):
        return None
    return key, value.strip()


def detect_format(lines: list[str]) -> str:
    """'fen', 'cs61b' (a block framed by ``===`` lines), 'colon' or 'grid'."""
    if len(lines) == 1 and looks_like_fen(lines[0]):
        return "fen"
    scanned(len(lines[0]) if lines else 0)
    if lines and lines[0].strip() == "===":
        return "cs61b"
    scanned(sum(len(t) for t in lines))
    if all(":" in t for t in lines):
        return "colon"
    return "grid"


def _parse_expect(text: str, source: str, line: int) -> dict:
    scanned(2 * len(text))
    out = {}
    for item in text.split():
        key, eq, value = item.partition("=")
        if not eq or key not in EXPECT_KEYS or not value:
            raise PositionFormatError(f"expect: {quote(item)} should be key=value with key one of {', '.join(EXPECT_KEYS)}",
                       source, line)
        out[key] = value if key == "orthodox" else whole_field(value, f"expect: {key}", source, line,
                                                          -MAX_SQUARES, MAX_SQUARES)
    if not out:
        raise PositionFormatError("expect: says nothing (write e.g. 'expect: x=9 o=-9 orthodox=9|-9')", source, line)
    return out


def _build_entry(pos_lines: list[tuple[int, str]], headers: dict, source: str, fmt: str,
                 default_rules: Rules, header_lines: dict) -> Entry:
    first = pos_lines[0][0]
    texts = [t for _, t in pos_lines]
    rules = default_rules
    if "rules" in headers:
        try:
            rules = parse_rules(headers["rules"])
        except ValueError as exc:
            raise PositionFormatError(str(exc), source, header_lines["rules"]) from None
    kind = detect_format(texts) if fmt == "auto" else fmt
    side_given, moves = None, None
    if kind == "fen":
        if len(pos_lines) > 1:
            raise PositionFormatError("a FEN position must be one line (separate positions with a blank line)", source, pos_lines[1][0])
        fields = read_fen(texts[0], source, first)
        side_given = None if fields.turn is None else Side(fields.turn)
        board, x, o, moves = fields.board, fields.x, fields.o, fields.moves
        counter = fields.counter if rules.counter else 0
        fullmove = fields.fullmove
    else:
        parse = {"colon": parse_colon, "cs61b": parse_cs61b}.get(kind, parse_grid)
        board, x, o = parse(pos_lines, source)
        counter, fullmove = 0, 1
    if "counter" in headers:
        n = header_lines["counter"]
        value = whole_field(headers["counter"], "counter", source, n)
        if kind == "fen" and counter and counter != value:  # (counter is 0 under rules without one)
            raise PositionFormatError(f"counter {value} contradicts the FEN's counter {counter}", source, n)
        counter = value
    sides: tuple[Side, ...] = (side_given,) if side_given else (X, O)
    if "to-move" in headers:
        n = header_lines["to-move"]
        want = headers["to-move"].lower()
        if want not in ("x", "o", "both"):
            raise PositionFormatError(f"to-move must be x, o or both, not {quote(headers['to-move'])}", source, n)
        new = (X, O) if want == "both" else (Side(want),)
        if side_given and new != (side_given,):
            raise PositionFormatError(f"to-move: {want} contradicts the FEN's side to move {side_given}", source, n)
        sides = new
    try:
        position = Position(board, x, o, sides[0], counter if rules.counter else 0, rules, fullmove)
    except ValueError as exc:
        raise PositionFormatError(str(exc), source, first) from None
    expect = _parse_expect(headers["expect"], source, header_lines["expect"]) if "expect" in headers else {}
    if "moves" in headers:
        if moves is not None:
            raise PositionFormatError("moves given both in a moves: header and after the FEN", source, header_lines["moves"])
        moves = game_moves(headers["moves"].split(), source, header_lines["moves"])
    return Entry(position, sides, source, first, headers.get("name"), expect, headers.get("move"), moves,
                 headers.get("player"), header_lines.get("moves", first))


def _is_blank_grid_row(line: str, block: list[tuple[int, str]], block_is_fen: bool, lines: list[str], n: int) -> bool:
    """A line of spaces inside a grid (an all-empty row) rather than a blank separator: it has
    the width of the grid row above it and a non-blank line follows (``block_is_fen``: the block's
    first line reads as a FEN, decided once per block: deciding it again for each line of spaces
    took time quadratic in the input)."""
    if not line or not block or len(block[-1][1]) != len(line) or block_is_fen:
        return False
    scanned(len(lines[n]) if n < len(lines) else 0)
    return n < len(lines) and bool(lines[n].strip()) and _header(lines[n].rstrip("\r")) is None


def game_entries(game: Game, pick: Pick | None = None, source: str = "<input>") -> list[Entry]:
    """The entries ``pick`` takes from a game (:meth:`Pick.plies`): each position with its side to
    move, named ``game 3 (Alice vs Bob), ply 12``, with the move played from it (``move``, None
    at the end of the game) and the tag name of the player who made it (``player``; without a
    name, ``Black (X) in games`` or ``White (O) in games``). Raises
    :class:`PositionFormatError` when the pick asks for a ply past the end of the game."""
    positions, moves, lines = game.positions, game.moves, game.move_lines
    scanned(len(positions))
    out = []
    for k in (pick or Pick()).plies(game, source, positions):
        p = positions[k]
        line = lines[k] if k < len(moves) else (lines[-1] if lines else game.line)
        player = player_name(game.headers, p) or f"{'Black' if p.turn == X else 'White'} ({p.turn.name}) in games"
        out.append(Entry(p, (p.turn,), source, line, f"{game.label}, ply {k}",
                         move=moves[k] if k < len(moves) else None, player=player,
                         history=(game.start, MovesBefore(moves, k)),
                         last_move=positions[k - 1].parse_move(moves[k - 1]) if k else None))
    return out


LARGE_START = 49  # squares: the standard start of a 7 x 7 board, or of a larger one


def is_large_start(position: Position) -> bool:
    """Whether ``position`` is the standard start (X and O on their corners, as
    :meth:`Position.start` places them; blocks or not, either side to move) of a board of
    :data:`LARGE_START` squares or more: a search no machine finishes, which ``ataxx-solve``
    refuses to start without a limit unless asked to (issue 30 item 2)."""
    board = position.board
    if board.size < LARGE_START:
        return False
    start = Position.start(board.rows, board.cols)
    return (position.x, position.o) == (start.x, start.o)


def read_pgn(text: str, source: str = "<input>", rules: Rules = CLASSIC, pick: Pick | None = None) -> list:
    """The entries of every game of a PGN text (:func:`game_entries`), or a
    :class:`PositionFormatError` for each game that could not be read or has no position picked.
    With ``pick.every`` (``verify``), a game whose main line stops at a bad move gives the entries
    of the moves before it, then its error."""
    out: list = []
    for game in read_games(text, source, rules):
        if isinstance(game, BrokenGameError) and pick is not None and pick.every:
            out.extend(game_entries(game.game, pick, source))  # verify: the moves before the bad one are judged
        if isinstance(game, PositionFormatError):
            out.append(game)
            continue
        try:
            out.extend(game_entries(game, pick, source))
        except PositionFormatError as exc:
            out.append(exc)
    return out


def read_epd(text: str, source: str = "<input>", rules: Rules = CLASSIC) -> list:
    """The entries of an EPD text (:mod:`solver.io.epd`), one per line: the position with its side to
    move, named by its ``id``, its ``ce`` and ``bm`` as expectations (``expect["ce"]``, the value
    from the side to move; ``expect["bm"]``, the moves); or a :class:`PositionFormatError` per
    line that could not be read."""
    out: list = []
    for item in read_epd_lines(text, source, rules):
        if isinstance(item, PositionFormatError):
            out.append(item)
            continue
        expect: dict = {}
        if item.ce is not None:
            expect["ce"] = item.ce
        if item.bm:
            expect["bm"] = item.bm
        out.append(Entry(item.position, (item.position.turn,), source, item.line, item.id, expect))
    return out


def read_positions(text: str, source: str = "<input>", fmt: str = "auto",
                   rules: Rules = CLASSIC, pick: Pick | None = None) -> list:
    """Every position of a position file, in order: :class:`Entry` objects, or
    :class:`PositionFormatError` for the ones that could not be read.

    An input with no position at all gives a single error. A PGN file (``fmt`` ``pgn``, or
    detected by its first tag line) gives the positions ``pick`` takes from its games.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    if fmt == "pgn" or (fmt == "auto" and looks_like_pgn(text)):
        return read_pgn(text, source, rules, pick)
    if fmt == "epd" or (fmt == "auto" and looks_like_epd(text)):
        return read_epd(text, source, rules)
    out: list = []
    headers: dict = {}
    header_lines: dict = {}
    block: list[tuple[int, str]] = []
    broken: PositionFormatError | None = None  # an error in the headers spoils the whole entry

    def flush() -> None:
        nonlocal headers, header_lines, block, broken
        if block:
            if broken is None:
                try:
                    out.append(_build_entry(block, headers, source, fmt, rules, header_lines))
                except PositionFormatError as exc:
                    broken = exc
            if broken is not None:
                broken.name = headers.get("name")
                out.append(broken)
            headers, header_lines, block, broken = {}, {}, [], None

    scanned(len(text))
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    block_is_fen = False  # whether the first line of ``block`` reads as a FEN
    for n, raw in enumerate(lines, 1):
        scanned(3 * len(raw) + 1)
        line = raw.rstrip("\r")
        if line.lstrip().startswith(";"):
            continue
        if not line.strip():
            if _is_blank_grid_row(line, block, block_is_fen, lines, n):
                block.append((n, line))
                continue
            flush()
            continue
        header = _header(line)
        if header:
            key = header[0].lower()
            if key == "moves" and block:  # a game record right after its position belongs to it
                if "moves" in headers:
                    broken = broken or PositionFormatError("moves given both before and after the position", source, n)
                else:
                    headers[key] = header[1]
                    header_lines[key] = n
                flush()
                continue
            if block:
                flush()
            if key not in HEADER_KEYS:
                broken = broken or PositionFormatError(f"unknown header {quote(header[0])} (known: {', '.join(HEADER_KEYS)})",
                                        source, n)
            elif key in headers:
                broken = broken or PositionFormatError(f"header {key!r} given twice", source, n)
            else:
                headers[key] = header[1]
                header_lines[key] = n
            continue
        if block and _is_fen_row(line) and _is_fen_row(block[0][1]):
            flush()  # FEN lines with no blank line between them (as a loop of print(fen) writes): one each
        if not block:
            block_is_fen = looks_like_fen(line)
        block.append((n, line))
    flush()
    if headers or broken:
        where = min(header_lines.values()) if header_lines else (broken.line if broken else None)
        out.append(broken or PositionFormatError("headers with no position after them", source, where))
    if not out:
        out.append(PositionFormatError("no position found (the input is empty)", source, None))
    return out


def _is_fen_row(line: str) -> bool:
    """A line that is a whole FEN of a board of several rows (its board has a '/', which no grid
    row has), so that two of them in a row are two positions, not one grid."""
    toks = line.split(None, 1)
    return bool(toks) and "/" in toks[0] and looks_like_fen(line)


def read_line(line: str, n: int, source: str = "<input>", fmt: str = "auto",
              rules: Rules = CLASSIC) -> Entry | PositionFormatError:
    """The :class:`Entry` (or :class:`PositionFormatError`) of a position written on one line
    ``n`` of ``source`` with blank lines around it, as :func:`read_positions` reads it (for a line
    that is no header and no comment: :mod:`solver.io.fenlines` reads such files in bulk)."""
    try:
        return _build_entry([(n, line)], {}, source, fmt, rules, {})
    except PositionFormatError as exc:
        return exc


def is_header_or_comment(line: str) -> bool:
    """Whether a line of a position file is a ``key: value`` header or a ``;`` comment."""
    return line.lstrip().startswith(";") or _header(line) is not None


def read_file(path: str, fmt: str = "auto", rules: Rules = CLASSIC, pick: Pick | None = None) -> list:
    """:func:`read_positions` on a file (``-`` is standard input), with errors for a missing, unreadable or
    binary file. A ``path`` that names no file but reads as a FEN (:func:`solver.game.fen.is_fen_argument`)
    is that position, read from ``<argument>``."""
    if path == "-":
        try:
            return read_text(sys.stdin.buffer.read(), "<stdin>", fmt, rules, pick)
        except OSError as exc:
            return [PositionFormatError(f"cannot read: {exc.strerror}", "<stdin>", None)]
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        if is_fen_argument(path.strip()):
            # not a file but a FEN written on the command line: the position itself
            return read_text(path.encode("utf-8"), "<argument>", fmt, rules, pick)
        return [PositionFormatError("no such file", path, None)]
    except IsADirectoryError:
        return [PositionFormatError("is a directory, not a position file", path, None)]
    except OSError as exc:
        return [PositionFormatError(f"cannot read: {exc.strerror}", path, None)]
    return read_text(data, path, fmt, rules, pick)


def read_text(data: bytes, source: str, fmt: str = "auto", rules: Rules = CLASSIC, pick: Pick | None = None) -> list:
    """:func:`read_positions` on raw bytes, rejecting binary data with one message."""
    if b"\0" in data:
        return [PositionFormatError("binary data, not a position file", source, None)]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return [PositionFormatError("not UTF-8 text (binary data?)", source, line)]
    if text.startswith("\ufeff"):
        text = text[1:]
    return read_positions(text, source, fmt, rules, pick)


def parse_position(text: str, fmt: str = "auto", rules: Rules = CLASSIC, source: str = "<input>") -> Entry:
    """Exactly one position from text; raises :class:`PositionFormatError`."""
    items = read_positions(text, source, fmt, rules)
    for item in items:
        if isinstance(item, PositionFormatError):
            raise item
    if len(items) != 1:
        raise PositionFormatError(f"expected one position, found {len(items)}", source, None)
    return items[0]
