"""FEN, the one-line notation of a position (SPEC section 7), and the errors of text input.

``x5o/7/7/7/7/7/o5x x 0 1``: ranks from the top, ``x``, ``o``, ``-`` (a block) and digit runs
of empty squares; then, all optional, the side to move, the counter and the move number.
``startpos`` is the 7 x 7 standard start. Read as users type it too: ``.`` for one empty square
(``x...o/...../o...x``), and libataxx's ``b`` (black, the first player) for ``x`` and ``w`` for
``o``, for the pieces and the side to move; written with ``x``, ``o`` and digits. This module
reads and writes the fields; a :class:`solver.game.rules.Position` is made from them by
:meth:`Position.from_fen` (and written by :meth:`Position.fen`). It sits below
:mod:`solver.game.rules` and :mod:`solver.io.formats`, which both use it, so that neither imports the
other.

Every problem is a :class:`PositionFormatError` that names the source, the line and the
reason. Numbers are ASCII digits of bounded length (:func:`parse_whole`), and messages quote
at most a few dozen characters of the input (:func:`quote`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from solver.common.work import scanned
from solver.game.board import MAX_SQUARES, Board

STARTPOS = "x5o/7/7/7/7/7/o5x x 0 1"
MAX_COUNTER = 999_999_999  # counters and move numbers: at most nine digits
MAX_GAME_MOVES = 10_000    # moves in one game record (a moves: header, or after a FEN)


def quote(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut to ``limit`` characters: safe to put in a one-line message."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


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


def first_line(text: str, skip: Callable[[str], bool]) -> str | None:
    """The first line of ``text`` for which ``skip`` is false, looking at no line after it."""
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        scanned(end - start + 1)
        line = text[start:end].rstrip("\r")
        if not skip(line):
            return line
        start = end + 1
    return None


class PositionFormatError(ValueError):
    """Input that is not a position: carries the source (file name), the line and the reason."""

    def __init__(self, message: str, source: str = "<input>", line: int | None = None):
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line
        self.name: str | None = None  # the position's name: header, when it had one

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.message}"


# -- reading and writing ------------------------------------------------------------------------------

_RUN = re.compile(r"[0-9]++")       # a run of digits (possessive: it never gives a digit back)
_FEN_CHARS = frozenset("xXoObBwW.0123456789/-")
# A piece or a side to move: x and o, or libataxx's b(lack, the first player) and w(hite).
_SIDE_LETTERS = {"x": "x", "o": "o", "b": "x", "w": "o"}
_CELL = {"x": "x", "X": "x", "o": "o", "O": "o", "b": "x", "B": "x", "w": "o", "W": "o", "-": "#", ".": "."}


def _err(message: str, source: str, line: int | None) -> PositionFormatError:
    return PositionFormatError(message, source, line)


def whole_field(text: str, what: str, source: str, line: int | None, low: int = 0, high: int = MAX_COUNTER) -> int:
    """:func:`parse_whole` for a field of the input: a :class:`PositionFormatError` at ``source:line``."""
    try:
        return parse_whole(text, what, low, high)
    except ValueError as exc:
        raise _err(str(exc), source, line) from None


def game_moves(tokens: list[str], source: str, line: int | None) -> list[str]:
    """The moves of a game record, at most :data:`MAX_GAME_MOVES` of them."""
    if len(tokens) > MAX_GAME_MOVES:
        raise _err(f"a game record has at most {MAX_GAME_MOVES:,} moves, this one has {len(tokens):,}", source, line)
    return tokens


def parse_fen_board(text: str, source: str = "<input>", line: int | None = None) -> tuple[Board, int, int]:
    """The board part of a FEN: (board, X mask, O mask).

    One pass over the text: each rank's width is counted as a number, and the squares are kept
    only while there are at most :data:`MAX_SQUARES` of them, so a long board costs no list per
    rank and no expansion of its digit runs (a rank ``7`` repeated 8,000 times built 56,000
    squares, and ``x/`` repeated 2,000 times 2,000 lists, before the size was checked)."""
    scanned(len(text))
    widths: list[int] = []   # the squares of each rank, top first
    cells: list[str] = []    # the squares, top rank first, while there are at most MAX_SQUARES
    width = 0
    i, n = 0, len(text)
    while True:
        if i == n or text[i] == "/":
            if width == 0:
                raise _err(f"FEN board has an empty rank (rank {len(widths) + 1} from the top)", source, line)
            widths.append(width)
            width = 0
            if i == n:
                break
            i += 1
            continue
        ch = text[i]
        if "0" <= ch <= "9":
            m = _RUN.match(text, i)
            assert m is not None
            tok, i = m.group(), m.end()
            if len(tok) > 2 or int(tok) > MAX_SQUARES:
                raise _err(f"FEN rank {len(widths) + 1} from the top has a run of {quote(tok)} empty squares; boards "
                           f"have at most {MAX_SQUARES}", source, line)
            count = int(tok)
            if count == 0:
                raise _err(f"FEN rank {len(widths) + 1} from the top has a run of 0 empty squares", source, line)
            cell = "."
        else:
            cell = _CELL.get(ch, "")
            if not cell:
                raise _err(f"FEN board has an unknown character {ch!r}", source, line)
            count = 1
            i += 1
        width += count
        if len(cells) <= MAX_SQUARES:
            cells.extend(cell * count)
    top = widths[0]
    for k, w in enumerate(widths[1:], 2):
        if w != top:
            longer = "too long" if w > top else "too short"
            raise _err(f"FEN rank {k} from the top is {longer}: {w} squares where the top rank has {top}", source, line)
    R, C = len(widths), top
    if R * C > MAX_SQUARES:
        raise _err(f"the board is {R} x {C} = {R * C} squares; at most {MAX_SQUARES} are supported", source, line)
    return board_from_rows([cells[k * C:(k + 1) * C] for k in range(R)], source, line)


def board_from_rows(rows: list[list[str]], source: str, line: int | None) -> tuple[Board, int, int]:
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


@dataclass(frozen=True)
class FenFields:
    """What a FEN line says: the board and pieces, the side to move (None when not given), the
    counter, the move number and the moves of a game record after it (``moves ...``, or None)."""

    board: Board
    x: int
    o: int
    turn: str | None
    counter: int
    fullmove: int
    moves: list[str] | None


def read_fen(text: str, source: str = "<input>", line: int | None = None) -> FenFields:
    """The fields of a FEN line (``startpos`` is :data:`STARTPOS`); raises :class:`PositionFormatError`.
    One pass to split the line, one over the board (:func:`parse_fen_board`), and a bounded look
    at each other field."""
    scanned(len(text))
    toks = text.split()
    if not toks:
        raise _err("empty FEN", source, line)
    if toks[0].lower() == "startpos":
        if len(toks) > 1 and toks[1].lower() != "moves":
            raise _err(f"unexpected {quote(toks[1])} after startpos (only 'moves ...' may follow)", source, line)
        toks = STARTPOS.split() + toks[1:]
    moves = None
    at = next((k for k, t in enumerate(toks) if len(t) == 5 and t.lower() == "moves"), None)
    if at is not None:
        toks, moves = toks[:at], game_moves(toks[at + 1:], source, line)
        if not toks:
            raise _err("'moves' with no position before it", source, line)
    board, x, o = parse_fen_board(toks[0], source, line)
    side, counter, fullmove = None, 0, 1
    if len(toks) > 1:
        if toks[1].lower() not in _SIDE_LETTERS:
            raise _err(f"FEN side to move must be 'x' or 'o' (or libataxx's 'b' or 'w'), not {quote(toks[1])}",
                       source, line)
        side = _SIDE_LETTERS[toks[1].lower()]
    if len(toks) > 2:
        counter = whole_field(toks[2], "FEN counter", source, line)
    if len(toks) > 3:
        fullmove = whole_field(toks[3], "FEN move number", source, line, low=1)
    if len(toks) > 4:
        raise _err(f"unexpected {quote(toks[4])} after the FEN", source, line)
    return FenFields(board, x, o, side, counter, fullmove, moves)


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


def is_fen_argument(text: str) -> bool:
    """Whether a command-line argument that names no file is meant as a FEN: ``startpos``; ranks
    with a '/' of FEN's characters alone (a board without a side to move), or with more fields
    after them, where one character of the ranks may be a typo (with a side to move after it),
    which parsing names; or ranks with any characters followed by a side to move and a halfmove
    clock (``ooxooo1/ooxoxx9/zz x 0 1``: FEN's fields, whatever is wrong in the ranks); or one rank
    of FEN's characters with a piece and an empty square or a side to move (``x1o x``, ``x..o``).
    A path such as ``games/a b`` is not one."""
    toks = text.split()
    if not toks:
        return False
    if toks[0].lower() == "startpos":
        return True
    board = toks[0]
    if "/" not in board:  # one rank: FEN's characters, a piece, and an empty square or a side to move
        return (all(ch in _FEN_CHARS for ch in board) and any(ch in "xXoObBwW" for ch in board)
                and (any(ch in ".0123456789" for ch in board) or (len(toks) >= 2 and toks[1].lower() in _SIDE_LETTERS)))
    typos = sum(ch not in _FEN_CHARS for ch in board)
    if typos == 0:
        return True
    sided = len(toks) >= 2 and toks[1].lower() in _SIDE_LETTERS
    return sided and (typos == 1 or (len(toks) >= 3 and toks[2].isdigit()))


def looks_like_fen(text: str) -> bool:
    """A line that reads as a FEN rather than a grid row (used to detect the format)."""
    scanned(len(text))
    toks = text.split(None, 3)
    if not toks:
        return False
    if toks[0].lower() == "startpos":
        return True
    board = toks[0]
    scanned(2 * len(board))
    if not _FEN_CHARS.issuperset(board):
        # ranks and a side to move: a FEN with a wrong character, which parsing it names
        return "/" in board and len(toks) >= 2 and toks[1].lower() in _SIDE_LETTERS
    if "/" in board or any("0" <= ch <= "9" for ch in board):
        return True
    return len(toks) >= 3 and toks[1].lower() in _SIDE_LETTERS and toks[2].isascii() and toks[2].isdigit()
