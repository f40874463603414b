"""Reading and writing positions (SPEC section 7).

Three formats, detected automatically or forced:

- ``grid``: one line per row, top row first; ``x``/``o`` pieces, ``#`` blocks,
  ``.`` or a space empty; an optional frame of ``+ - |``, rank labels on either
  side and a file header line (``abcde``).
- ``colon``: ``1:0:0:2:`` per row; 0 empty, 1 X, 2 O, ``#`` a block.
- ``fen``: ``x5o/7/7/7/7/7/o5x x 0 1`` (ranks top to bottom, ``-`` a block,
  digit runs of empty squares), then side, counter and move number, all optional.
  ``startpos`` is the 7 x 7 standard start.

A position file holds several positions separated by blank lines. ``key: value``
lines before a position describe it (``name``, ``to-move``, ``rules``,
``counter``, ``expect``, ``move``, ``moves``); lines starting with ``;`` are comments.

Every problem is a :class:`PositionFormatError` that names the source, the line
and the reason; nothing is half-built. Parsing takes time linear in the input:
no regular expression here can backtrack over a line (one with a lazy group and
trailing spaces took quadratic time), numbers are ASCII digits of bounded
length (:func:`parse_whole`), a game record has at most :data:`MAX_GAME_MOVES`
moves, and messages quote at most a few dozen characters of the input (:func:`quote`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .board import MAX_SQUARES, Board, file_name
from .rules import CLASSIC, SIDES, O, X, Position, Rules, parse_rules

FORMATS = ("auto", "grid", "colon", "fen")
STARTPOS = "x5o/7/7/7/7/7/o5x x 0 1"
HEADER_KEYS = ("name", "to-move", "rules", "counter", "expect", "move", "moves", "player")
EXPECT_KEYS = ("x", "o", "value", "orthodox")
MAX_COUNTER = 999_999_999  # counters and move numbers: at most nine digits
MAX_GAME_MOVES = 10_000    # moves in one game record (a moves: header, or after a FEN)


def quote(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut to ``limit`` characters: safe to put in a one-line message."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


def printable(text: str) -> str:
    """``text`` with control characters (terminal escape codes, bidi overrides, ...) written as
    escapes like ``\\x1b``, so that names and file names from the input cannot drive a terminal."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def parse_whole(text: str, what: str, low: int = 0, high: int = MAX_COUNTER) -> int:
    """A whole number written in ASCII digits (with a sign when ``low`` < 0), from ``low`` to
    ``high``; otherwise ValueError with a message that names ``what``.

    ``int()`` alone would accept other digits (``²`` passes ``isdigit()`` and fails ``int()``,
    ``٣`` is read as 3), underscores and spaces, and would convert thousands of digits (slowly,
    or not at all past 4,300); the length is checked before any conversion.
    """
    digits = text[1:] if low < 0 and text[:1] in ("-", "+") else text
    span = f"a whole number from {low:,} to {high:,}"
    if not digits or not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"{what} must be {span}, not {quote(text)}")
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(max(abs(low), abs(high)))):
        raise ValueError(f"{what} must be {span}, not {quote(text)}")
    value = -int(digits) if text[:1] == "-" and low < 0 else int(digits)
    if not low <= value <= high:
        raise ValueError(f"{what} must be {span}, not {quote(text)}")
    return value


class PositionFormatError(ValueError):
    """Input that is not a position: carries the source (file name), the line and the reason."""

    def __init__(self, message: str, source: str = "<input>", line: int | None = None):
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.message}"


@dataclass
class Entry:
    """One position read from input, with what its headers say about it.

    ``sides`` lists the sides to move to analyse: one side, or both for a board
    given without a side to move. ``position`` has X to move in that case.
    """

    position: Position
    sides: tuple[str, ...]
    source: str = "<input>"
    line: int = 1
    name: str | None = None
    expect: dict = field(default_factory=dict)
    move: str | None = None
    moves: list[str] | None = None
    player: str | None = None  # who chose ``move`` or played the game (verify)

    @property
    def is_board(self) -> bool:
        """True when no side to move was given: both sides are analysed."""
        return len(self.sides) == 2

    @property
    def label(self) -> str:
        return self.name or f"{self.source}:{self.line}"


# -- FEN ------------------------------------------------------------------------------------------

_FEN_RANK_TOKEN = re.compile(r"[0-9]+|[xXoO-]|.")
_FEN_BOARD = re.compile(r"[xXoO0-9-]+(/[xXoO0-9-]+)*")
_FEN_CHARS = re.compile(r"[xXoO0-9/-]+")


def _err(message: str, source: str, line: int | None) -> PositionFormatError:
    return PositionFormatError(message, source, line)


def _whole(text: str, what: str, source: str, line: int | None, low: int = 0, high: int = MAX_COUNTER) -> int:
    try:
        return parse_whole(text, what, low, high)
    except ValueError as exc:
        raise _err(str(exc), source, line) from None


def _game_moves(tokens: list[str], source: str, line: int | None) -> list[str]:
    if len(tokens) > MAX_GAME_MOVES:
        raise _err(f"a game record has at most {MAX_GAME_MOVES:,} moves, this one has {len(tokens):,}", source, line)
    return tokens


def parse_fen_board(text: str, source: str = "<input>", line: int | None = None) -> tuple[Board, int, int]:
    """The board part of a FEN: (board, X mask, O mask)."""
    ranks = text.split("/")
    rows = []
    for i, rank in enumerate(ranks, 1):
        if not rank:
            raise _err(f"FEN rank {i} from the top is empty", source, line)
        cells = []
        for tok in _FEN_RANK_TOKEN.findall(rank):
            if "0" <= tok[0] <= "9":
                if len(tok) > 2 or int(tok) > MAX_SQUARES:
                    raise _err(f"FEN rank {i} from the top has a run of {quote(tok)} empty squares; boards have "
                               f"at most {MAX_SQUARES}", source, line)
                if int(tok) == 0:
                    raise _err(f"FEN rank {i} from the top has a run of 0 empty squares", source, line)
                cells.extend("." * int(tok))
            elif tok in "xXoO-":
                cells.append(tok.lower() if tok != "-" else "#")
            else:
                raise _err(f"FEN rank {i} from the top has an unknown character {tok!r}", source, line)
        rows.append(cells)
    width = len(rows[0])
    for i, cells in enumerate(rows[1:], 2):
        if len(cells) != width:
            longer = "too long" if len(cells) > width else "too short"
            raise _err(f"FEN rank {i} from the top is {longer}: {len(cells)} squares where the top rank has {width}",
                       source, line)
    return _board_from_rows(rows, source, line)


def _board_from_rows(rows: list[list[str]], source: str, line: int | None,
                     row_lines: list[int] | None = None) -> tuple[Board, int, int]:
    """Build (board, X, O) from rows of cell characters ('x', 'o', '#', '.'), top row first."""
    R, C = len(rows), len(rows[0])
    if R * C > MAX_SQUARES:
        raise _err(f"the board is {R} x {C} = {R * C} squares; at most {MAX_SQUARES} are supported", source, line)
    if C == 0:
        raise _err("the board has no squares", source, line)
    blocks = x = o = 0
    for i, cells in enumerate(rows):
        rank = R - 1 - i
        for f, ch in enumerate(cells):
            bit = 1 << (rank * C + f)
            if ch == "x":
                x |= bit
            elif ch == "o":
                o |= bit
            elif ch == "#":
                blocks |= bit
    return Board(R, C, blocks), x, o


def parse_fen(text: str, rules: Rules = CLASSIC, source: str = "<input>", line: int | None = None) -> Position:
    """A position from a FEN line (side defaults to X, counter to 0, move number to 1)."""
    position, _, _ = _parse_fen_fields(text, rules, source, line)
    return position


def _parse_fen_fields(text: str, rules: Rules, source: str, line: int | None):
    """(position, side given?, game-record moves or None)."""
    toks = text.split()
    if not toks:
        raise _err("empty FEN", source, line)
    if toks[0].lower() == "startpos":
        if len(toks) > 1 and toks[1].lower() != "moves":
            raise _err(f"unexpected {quote(toks[1])} after startpos (only 'moves ...' may follow)", source, line)
        toks = STARTPOS.split() + toks[1:]
    moves = None
    lowered = [t.lower() for t in toks]
    if "moves" in lowered:
        at = lowered.index("moves")
        toks, moves = toks[:at], _game_moves(toks[at + 1:], source, line)
        if not toks:
            raise _err("'moves' with no position before it", source, line)
    if not _FEN_BOARD.fullmatch(toks[0]):
        bad = next((ch for ch in toks[0] if ch not in "xXoO0123456789-/"), None)
        if bad is not None:
            raise _err(f"FEN board has an unknown character {bad!r}", source, line)
        raise _err(f"FEN board {quote(toks[0])} has an empty rank", source, line)
    board, x, o = parse_fen_board(toks[0], source, line)
    side, counter, fullmove = X, 0, 1
    if len(toks) > 1:
        if toks[1].lower() not in SIDES:
            raise _err(f"FEN side to move must be 'x' or 'o', not {quote(toks[1])}", source, line)
        side = toks[1].lower()
    if len(toks) > 2:
        counter = _whole(toks[2], "FEN counter", source, line)
    if len(toks) > 3:
        fullmove = _whole(toks[3], "FEN move number", source, line, low=1)
    if len(toks) > 4:
        raise _err(f"unexpected {quote(toks[4])} after the FEN", source, line)
    position = Position(board, x, o, side, counter if rules.counter else 0, rules, fullmove)
    return position, len(toks) > 1, moves


def write_fen_board(board: Board, x: int, o: int) -> str:
    ranks = []
    for rank in range(board.rows - 1, -1, -1):
        out, run = "", 0
        for f in range(board.cols):
            sq = board.square(f, rank)
            ch = "x" if x >> sq & 1 else "o" if o >> sq & 1 else "-" if board.is_block(sq) else ""
            if not ch:
                run += 1
                continue
            if run:
                out += str(run)
                run = 0
            out += ch
        if run:
            out += str(run)
        ranks.append(out)
    return "/".join(ranks)


def write_fen(position: Position) -> str:
    return (f"{write_fen_board(position.board, position.x, position.o)} {position.turn} "
            f"{position.counter} {position.fullmove}")


# -- grids ----------------------------------------------------------------------------------------

_FRAME_LINE = re.compile(r"\s*[+\-][+\- ]*")
_GRID_CELLS = {"x": "x", "X": "x", "o": "o", "O": "o", "#": "#", ".": ".", " ": "."}


def _left_label(text: str) -> tuple[str, str] | None:
    """(digits, rest) of a row that starts with a rank label (``3 x..o``), else None: what
    ``\\s*([0-9]+) ?(.*)`` matched, without a regular expression."""
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
    body = text.strip()
    if len(body) >= 2 and body[0] == "|" and body[-1] == "|":
        return body[1:-1]
    return None


def _is_file_header(text: str) -> bool:
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
        return bool(_FRAME_LINE.fullmatch(text)) or _is_file_header(text.strip())

    first, last = 0, len(lines)
    while first < last and removable(lines[first][1]):
        first += 1
    while last > first and removable(lines[last - 1][1]):
        last -= 1
    lines = lines[first:last]
    for n, text in lines:
        if _FRAME_LINE.fullmatch(text):
            raise _err("a frame line inside the grid", source, n)
    return lines


def parse_grid(lines: list[tuple[int, str]], source: str = "<input>") -> tuple[Board, int, int]:
    """(board, X, O) from numbered grid lines, top row first."""
    first = lines[0][0] if lines else None
    lines = _strip_outer([(n, t.rstrip("\r\n")) for n, t in lines], source)
    if not lines:
        raise _err("no board rows (only a frame or a header)", source, first)

    # Rank labels, on the left and/or the right: all rows or none, reading R..1 downwards.
    def labels(split, rows):
        found = [split(t) for _, t in rows]
        if not any(found):
            return rows, None
        if not all(found):
            n = rows[found.index(None)][0]
            raise _err("inconsistent rank labels: some rows are labelled, this one is not", source, n)
        return [(n, rest) for (n, _), (_, rest) in zip(rows, found)], [label for label, _ in found]

    rows, left = labels(_left_label, lines)
    rows, right = labels(_right_label, rows)
    R = len(rows)
    for labelled in (left, right):
        if labelled is not None:
            for (n, _), got, want in zip(rows, labelled, range(R, 0, -1)):
                if (got.lstrip("0") or "0") != str(want):
                    raise _err(f"rank label {got if len(got) < 10 else quote(got)} should be {want} "
                               "(ranks count up from 1 at the bottom row)", source, n)
    # Bars: all rows or none.
    barred = [_inside_bars(t) for _, t in rows]
    if any(inside is not None for inside in barred):
        for (n, t), inside in zip(rows, barred):
            if inside is None:
                raise _err("inconsistent frame: other rows have '|' at both ends, this one does not", source, n)
        rows = [(n, inside) for (n, _), inside in zip(rows, barred)]
    else:
        for n, t in rows:
            if "|" in t:
                raise _err("inconsistent frame: '|' on one side of the row only", source, n)
    cells = []
    for n, t in rows:
        row = []
        for col, ch in enumerate(t, 1):
            if ch not in _GRID_CELLS:
                raise _err(f"unknown character {ch!r} in column {col} of the grid "
                           "(expected x, o, # for a block, . or space for empty)", source, n)
            row.append(_GRID_CELLS[ch])
        cells.append(row)
    width = len(cells[0])
    if width == 0:
        raise _err("empty grid row", source, rows[0][0])
    for (n, _), row in zip(rows, cells):
        if len(row) != width:
            raise _err(f"ragged rows: this row has {len(row)} squares, the first row has {width}", source, n)
    return _board_from_rows(cells, source, rows[0][0])


def parse_colon(lines: list[tuple[int, str]], source: str = "<input>") -> tuple[Board, int, int]:
    """(board, X, O) from colon-grid lines like ``1:0:0:2:``."""
    cells = []
    for n, text in lines:
        fields = text.strip().split(":")
        if fields and fields[-1] == "":
            fields = fields[:-1]
        row = []
        for col, f in enumerate(fields, 1):
            f = f.strip()
            if f not in ("0", "1", "2", "#"):
                raise _err(f"colon grid field {col} is {quote(f)}; expected 0 (empty), 1 (X), 2 (O) or #", source, n)
            row.append({"0": ".", "1": "x", "2": "o", "#": "#"}[f])
        if not row:
            raise _err("empty colon-grid row", source, n)
        cells.append(row)
    width = len(cells[0])
    for (n, _), row in zip(lines, cells):
        if len(row) != width:
            raise _err(f"ragged rows: this row has {len(row)} squares, the first row has {width}", source, n)
    return _board_from_rows(cells, source, lines[0][0])


def grid_rows(board: Board, x: int, o: int) -> list[str]:
    """The rows of a plain grid, top row first."""
    out = []
    for rank in range(board.rows - 1, -1, -1):
        row = ""
        for f in range(board.cols):
            sq = board.square(f, rank)
            row += "x" if x >> sq & 1 else "o" if o >> sq & 1 else "#" if board.is_block(sq) else "."
        out.append(row)
    return out


def write_grid(position: Position, coordinates: bool = False) -> str:
    """A plain grid, or with rank labels and a file header (both read back by :func:`parse_grid`)."""
    rows = grid_rows(position.board, position.x, position.o)
    if not coordinates:
        return "\n".join(rows)
    width = len(str(position.board.rows))
    header = " " * (width + 1) + "".join(file_name(f)[-1] for f in range(position.board.cols))
    if position.board.cols > 26:
        header = ""  # two-letter files do not fit one character per column
    body = [f"{rank:>{width}} {row} {rank}" for rank, row in zip(range(position.board.rows, 0, -1), rows)]
    return "\n".join(([header] if header else []) + body + ([header] if header else []))


def write_colon(position: Position) -> str:
    trans = {".": "0", "x": "1", "o": "2", "#": "#"}
    return "\n".join("".join(trans[c] + ":" for c in row) for row in grid_rows(position.board, position.x, position.o))


# -- detection and position files ----------------------------------------------------------------

_HEADER_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def _header(line: str) -> tuple[str, str] | None:
    """(key, value) of a ``key: value`` line, else None. Written out rather than as one regular
    expression: ``\\s*(KEY)\\s*:\\s*(.*?)\\s*`` took quadratic time on long runs of spaces."""
    key, colon, value = line.partition(":")
    key = key.strip()
    if not colon or not _HEADER_KEY.fullmatch(key):
        return None
    return key, value.strip()


def looks_like_fen(text: str) -> bool:
    toks = text.split()
    if not toks:
        return False
    if toks[0].lower() == "startpos":
        return True
    if not _FEN_CHARS.fullmatch(toks[0]):
        return False
    if "/" in toks[0] or any(ch.isdigit() for ch in toks[0]):
        return True
    return len(toks) >= 3 and toks[1].lower() in SIDES and toks[2].isascii() and toks[2].isdigit()


def detect_format(lines: list[str]) -> str:
    if len(lines) == 1 and looks_like_fen(lines[0]):
        return "fen"
    if all(":" in t for t in lines):
        return "colon"
    return "grid"


def _parse_expect(text: str, source: str, line: int) -> dict:
    out = {}
    for item in text.split():
        key, eq, value = item.partition("=")
        if not eq or key not in EXPECT_KEYS or not value:
            raise _err(f"expect: {quote(item)} should be key=value with key one of {', '.join(EXPECT_KEYS)}",
                       source, line)
        out[key] = value if key == "orthodox" else _whole(value, f"expect: {key}", source, line,
                                                          -MAX_SQUARES, MAX_SQUARES)
    if not out:
        raise _err("expect: says nothing (write e.g. 'expect: x=9 o=-9 orthodox=9|-9')", source, line)
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
            raise _err(str(exc), source, header_lines["rules"]) from None
    kind = detect_format(texts) if fmt == "auto" else fmt
    side_given, moves = None, None
    if kind == "fen":
        if len(pos_lines) > 1:
            raise _err("a FEN position must be one line (separate positions with a blank line)", source, pos_lines[1][0])
        position, has_side, moves = _parse_fen_fields(texts[0], rules, source, first)
        side_given = position.turn if has_side else None
        board, x, o, counter = position.board, position.x, position.o, position.counter
        fullmove = position.fullmove
    else:
        board, x, o = (parse_colon if kind == "colon" else parse_grid)(pos_lines, source)
        counter, fullmove = 0, 1
    if "counter" in headers:
        n = header_lines["counter"]
        value = _whole(headers["counter"], "counter", source, n)
        if kind == "fen" and counter and counter != value and rules.counter:
            raise _err(f"counter {value} contradicts the FEN's counter {counter}", source, n)
        counter = value
    sides: tuple[str, ...] = (side_given,) if side_given else (X, O)
    if "to-move" in headers:
        n = header_lines["to-move"]
        want = headers["to-move"].lower()
        if want not in ("x", "o", "both"):
            raise _err(f"to-move must be x, o or both, not {quote(headers['to-move'])}", source, n)
        new = (X, O) if want == "both" else (want,)
        if side_given and new != (side_given,):
            raise _err(f"to-move: {want} contradicts the FEN's side to move {side_given}", source, n)
        sides = new
    try:
        position = Position(board, x, o, sides[0], counter if rules.counter else 0, rules, fullmove)
    except ValueError as exc:
        raise _err(str(exc), source, first) from None
    expect = _parse_expect(headers["expect"], source, header_lines["expect"]) if "expect" in headers else {}
    if "moves" in headers:
        if moves is not None:
            raise _err("moves given both in a moves: header and after the FEN", source, header_lines["moves"])
        moves = _game_moves(headers["moves"].split(), source, header_lines["moves"])
    return Entry(position, sides, source, first, headers.get("name"), expect, headers.get("move"), moves,
                 headers.get("player"))


def _is_blank_grid_row(line: str, block: list[tuple[int, str]], lines: list[str], n: int) -> bool:
    """A line of spaces inside a grid (an all-empty row) rather than a blank separator: it has
    the width of the grid row above it and a non-blank line follows."""
    if not line or not block or len(block[-1][1]) != len(line) or looks_like_fen(block[0][1]):
        return False
    return n < len(lines) and bool(lines[n].strip()) and _header(lines[n].rstrip("\r")) is None


def read_positions(text: str, source: str = "<input>", fmt: str = "auto",
                   rules: Rules = CLASSIC) -> list:
    """Every position of a position file, in order: :class:`Entry` objects, or
    :class:`PositionFormatError` for the ones that could not be read.

    An input with no position at all gives a single error.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    out: list = []
    headers: dict = {}
    header_lines: dict = {}
    block: list[tuple[int, str]] = []
    broken: PositionFormatError | None = None  # an error in the headers spoils the whole entry

    def flush():
        nonlocal headers, header_lines, block, broken
        if block:
            if broken is not None:
                out.append(broken)
            else:
                try:
                    out.append(_build_entry(block, headers, source, fmt, rules, header_lines))
                except PositionFormatError as exc:
                    out.append(exc)
            headers, header_lines, block, broken = {}, {}, [], None

    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, raw in enumerate(lines, 1):
        line = raw.rstrip("\r")
        if line.lstrip().startswith(";"):
            continue
        if not line.strip():
            if _is_blank_grid_row(line, block, lines, n):
                block.append((n, line))
                continue
            flush()
            continue
        header = _header(line)
        if header:
            if block:
                flush()
            key = header[0].lower()
            if key not in HEADER_KEYS:
                broken = broken or _err(f"unknown header {quote(header[0])} (known: {', '.join(HEADER_KEYS)})",
                                        source, n)
            elif key in headers:
                broken = broken or _err(f"header {key!r} given twice", source, n)
            else:
                headers[key] = header[1]
                header_lines[key] = n
            continue
        block.append((n, line))
    flush()
    if headers or broken:
        n = min(header_lines.values()) if header_lines else (broken.line if broken else None)
        out.append(broken or _err("headers with no position after them", source, n))
    if not out:
        out.append(_err("no position found (the input is empty)", source, None))
    return out


def read_file(path: str, fmt: str = "auto", rules: Rules = CLASSIC) -> list:
    """:func:`read_positions` on a file, with errors for a missing, unreadable or binary file."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return [_err("no such file", path, None)]
    except IsADirectoryError:
        return [_err("is a directory, not a position file", path, None)]
    except OSError as exc:
        return [_err(f"cannot read: {exc.strerror}", path, None)]
    return read_text(data, path, fmt, rules)


def read_text(data: bytes, source: str, fmt: str = "auto", rules: Rules = CLASSIC) -> list:
    """:func:`read_positions` on raw bytes, rejecting binary data with one message."""
    if b"\0" in data:
        return [_err("binary data, not a position file", source, None)]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return [_err("not UTF-8 text (binary data?)", source, line)]
    if text.startswith("\ufeff"):
        text = text[1:]
    return read_positions(text, source, fmt, rules)


def parse_position(text: str, fmt: str = "auto", rules: Rules = CLASSIC, source: str = "<input>") -> Entry:
    """Exactly one position from text; raises :class:`PositionFormatError`."""
    items = read_positions(text, source, fmt, rules)
    for item in items:
        if isinstance(item, PositionFormatError):
            raise item
    if len(items) != 1:
        raise _err(f"expected one position, found {len(items)}", source, None)
    return items[0]
