"""The rules of Ataxx: rule sets, moves and positions (SPEC sections 1-3).

This module is the plain, obviously-right statement of the game. Move
generation walks the empty squares and looks up which pieces are a clone or a
jump away (the board's neighbourhoods, built from distances); nothing is
clever. The reference solver is built on it, and every faster path (the
compiled engine and its bitboard kernels) is tested against it.

Positions are immutable: :meth:`Position.play` returns the position after a legal move
(and raises :class:`IllegalMoveError` otherwise), :meth:`Position.push` the position after
a move it trusts to be legal (unchecked, for solvers that generated the move themselves, as
python-chess's ``Board.push``).

>>> p = Position.from_fen("x5o/7/7/7/7/7/o5x x 0 1", rules=UAI)
>>> len(p.legal_moves())
16
>>> p.play(p.parse_move("b6")).fen()
'x5o/1x5/7/7/7/7/o5x o 0 1'
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from solver.game.board import Board, file_name, popcount, squares_of
from solver.game.fen import quote, read_fen, write_fen_board


class Side(str, enum.Enum):
    """A side: X moves first (Left in game theory), O second. The values are the letters used
    in FEN and JSON (``Side("x") is X``), so a side compares equal to its letter and prints as it."""

    X = "x"
    O = "o"

    __hash__ = str.__hash__  # the letter's hash: a side and its letter are the same dictionary key

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @property
    def other(self) -> Side:
        return Side.O if self is Side.X else Side.X

    @property
    def sign(self) -> int:
        """+1 for X, -1 for O: a score from X's side times ``sign`` is the score from this side's."""
        return 1 if self is Side.X else -1


X = Side.X
O = Side.O
SIDES = (X, O)


def side_name(side: Side | str) -> str:
    """'X' or 'O'."""
    return Side(side).name


class IllegalMoveError(ValueError):
    """A move that is well formed but not legal in the position."""


class InvalidMoveError(ValueError):
    """Text that is not a move at all."""


# -- rule sets ------------------------------------------------------------------------------------

COUNTER_NONE = None
COUNTER_HALFMOVE = "halfmove"  # +1 on a jump or a pass, reset by a clone (uai)
COUNTER_JUMPS = "jumps"        # +1 on a jump, reset by a clone, unchanged by a pass (cs61b)
COUNTER_PLIES = "plies"        # +1 on every ply (jump3)


@dataclass(frozen=True)
class Rules:
    """The knobs of a rule set (SPEC section 3).

    ``jump3``: jumps of exactly 3 along a row or column are allowed too.
    ``wipeout_ends``: a side with no pieces ends the game (otherwise it just passes).
    ``counter``: which counter the position carries (see the COUNTER_* names), or None.
    ``limit``: at this counter value the game is over.
    ``limit_is_draw``: a game ended only by the limit scores 0 (uai) rather than the pieces.
    """

    name: str
    jump3: bool = False
    wipeout_ends: bool = False
    counter: str | None = COUNTER_NONE
    limit: int = 0
    limit_is_draw: bool = False

    def __str__(self) -> str:
        return self.name

    @property
    def is_loopy(self) -> bool:
        """True when play may go on forever (no counter bounds the game)."""
        return self.counter is None

    def next_counter(self, counter: int, kind: str) -> int:
        """The counter after a move of ``kind`` ('clone', 'jump' or 'pass')."""
        if self.counter is None:
            return 0
        if self.counter == COUNTER_PLIES:
            return counter + 1
        if kind == "clone":
            return 0
        if kind == "pass" and self.counter == COUNTER_JUMPS:
            return counter
        return counter + 1


CLASSIC = Rules("classic")
UAI = Rules("uai", wipeout_ends=True, counter=COUNTER_HALFMOVE, limit=100, limit_is_draw=True)
CS61B = Rules("cs61b", wipeout_ends=True, counter=COUNTER_JUMPS, limit=25)
JUMP3 = Rules("jump3", jump3=True, wipeout_ends=True, counter=COUNTER_PLIES, limit=200)

RULE_SETS = {r.name: r for r in (CLASSIC, UAI, CS61B, JUMP3)}

# Position.key() uses the board's symmetries up to this many squares; on larger boards a symmetric
# image is rarely met, and the canonical form (in Python, every symmetry) cost a draw's depth walk
# a fifth of its time on 7 x 7 (the search's keys stop at the same size)
KEY_SYMMETRY_SQUARES = 25


def parse_rules(name: str) -> Rules:
    try:
        return RULE_SETS[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown rules {name[:40]!r} (known: {', '.join(RULE_SETS)})") from None


# -- moves ----------------------------------------------------------------------------------------

class _Squares(NamedTuple):
    frm: int
    to: int


class Move(_Squares):
    """A move: ``frm`` is -1 for a clone, ``to`` is -1 for a pass.

    Moves are squares of a particular board. A move made by a position (:meth:`Position.legal_moves`,
    :meth:`Position.parse_move`, the moves of a report) knows that board and prints as its notation;
    a move built by hand prints so when given the board (``Move(-1, 35, board)``); moves compare
    by their squares alone:

    >>> p = Position.start(7, 7)
    >>> str(p.parse_move("a6")), str(p.parse_move("a7c5")), str(PASS)
    ('a6', 'a7c5', '0000')
    >>> p.parse_move("a6") == Move(-1, 35)
    True
    """

    board: Board | None = None  # the board whose squares these are, when known

    def __new__(cls, frm: int, to: int, board: Board | None = None) -> Move:
        self = tuple.__new__(cls, (frm, to))
        if board is not None:
            self.board = board
        return self

    def __str__(self) -> str:
        """The move's notation (``a6``, ``a7c5``, ``0000``); without a board, its squares."""
        if self.is_pass:
            return "0000"
        return move_name(self.board, self) if self.board is not None else repr(self)

    def on(self, board: Board) -> Move:
        """The same move, knowing its board (so that it prints as notation)."""
        return self if self.board is board else Move(self.frm, self.to, board)

    @property
    def is_pass(self) -> bool:
        return self.to < 0

    @property
    def is_clone(self) -> bool:
        return self.frm < 0 and self.to >= 0

    @property
    def is_jump(self) -> bool:
        return self.frm >= 0


PASS = Move(-1, -1)
PASS_WORDS = ("0000", "pass", "null", "-")
MAX_MOVE_TEXT = 16  # "bl64-bl64" is the longest move on a board of at most 64 squares


def move_name(board: Board, move: Move) -> str:
    if move.is_pass:
        return "0000"
    if move.is_clone:
        return board.square_name(move.to)
    return board.square_name(move.frm) + board.square_name(move.to)


def move_order_key(board: Board, move: Move) -> tuple:
    """Notation order: the squares of the move's name in turn, each by (file, rank)."""
    if move.is_pass:
        return ()
    squares = (move.to,) if move.is_clone else (move.frm, move.to)
    return tuple((board.file_of(s), board.rank_of(s)) for s in squares)


def parse_move_text(board: Board, text: str) -> tuple[Move, int | None]:
    """Read a move's text without a position: (move, origin of a long clone or None)."""
    t = text.strip().lower()
    if t in PASS_WORDS:
        return PASS, None
    if len(t) > MAX_MOVE_TEXT:
        raise InvalidMoveError(f"{quote(text, MAX_MOVE_TEXT)} is not a move")
    m = re.fullmatch(r"([a-z]+[0-9]+)-?([a-z]+[0-9]+)?", t)
    if not m:
        raise InvalidMoveError(f"{text!r} is not a move (expected like c3, a1c3 or 0000)")
    try:
        first = board.parse_square(m.group(1))
        second = board.parse_square(m.group(2)) if m.group(2) else None
    except ValueError as exc:
        raise InvalidMoveError(f"{text!r}: {exc}") from None
    if second is None:
        return Move(-1, first, board), None
    if board.distance(first, second) == 1:
        return Move(-1, second, board), first
    return Move(first, second, board), None


# -- positions ------------------------------------------------------------------------------------

def grid_rows(board: Board, x: int, o: int, pieces: str = "xo") -> list[str]:
    """The rows of a plain grid (``x``, ``o``, ``#`` a block, ``.`` empty), top row first
    (``pieces``: the letters of X's and O's pieces)."""
    out = []
    for rank in range(board.rows - 1, -1, -1):
        row = ""
        for f in range(board.cols):
            sq = board.square(f, rank)
            row += pieces[0] if x >> sq & 1 else pieces[1] if o >> sq & 1 else "#" if board.is_block(sq) else "."
        out.append(row)
    return out


def grid_text(board: Board, x: int, o: int, coordinates: bool = False, pieces: str = "xo") -> str:
    """A plain grid, or with rank labels and a file header (the grid format reads both back with
    the default ``pieces``)."""
    rows = grid_rows(board, x, o, pieces)
    if not coordinates:
        return "\n".join(rows)
    width = len(str(board.rows))
    header = " " * (width + 1) + "".join(file_name(f)[-1] for f in range(board.cols))
    if board.cols > 26:
        header = ""  # two-letter files do not fit one character per column
    body = [f"{rank:>{width}} {row} {rank}" for rank, row in zip(range(board.rows, 0, -1), rows)]
    return "\n".join(([header] if header else []) + body + ([header] if header else []))


_UNKNOWN = object()


class Position:
    """A position: board geometry, pieces, side to move, counter and rules.

    Pieces are bitmasks ``x`` and ``o``. Positions are immutable and hashable;
    :meth:`play` returns a new one.
    """

    __slots__ = ("board", "x", "o", "turn", "counter", "rules", "fullmove", "_result")
    _FIELDS = ("board", "x", "o", "turn", "counter", "rules", "fullmove")

    def __init__(self, board: Board, x: int, o: int, turn: Side | str = X, counter: int = 0,
                 rules: Rules = CLASSIC, fullmove: int = 1):
        if not isinstance(turn, Side):
            if turn not in SIDES:
                raise ValueError(f"side to move must be 'x' or 'o', not {turn!r}")
            turn = Side(turn)
        if x & o:
            raise ValueError("a square holds both an X and an O piece")
        if (x | o) & ~board.playable:
            raise ValueError("a piece stands on a block or off the board")
        if counter < 0:
            raise ValueError(f"the counter cannot be negative ({counter})")
        self.board = board
        self.x = x
        self.o = o
        self.turn = turn
        self.counter = counter
        self.rules = rules
        self.fullmove = fullmove
        self._result: Any = _UNKNOWN  # computed on first use: positions are immutable

    @classmethod
    def start(cls, rows: int, cols: int, rules: Rules = CLASSIC) -> "Position":
        """The standard start on an empty rows x cols board, X to move."""
        board = Board(rows, cols)
        x, o = board.start_squares()
        return cls(board, x, o, X, 0, rules)

    def replace(self, **changes: Any) -> "Position":
        fields = {name: getattr(self, name) for name in self._FIELDS}
        fields.update(changes)
        return Position(**fields)

    # -- identity -------------------------------------------------------------------------------

    def _ident(self) -> tuple:
        return (self.board, self.x, self.o, self.turn, self.counter, self.rules)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self._ident() == other._ident()

    def __hash__(self) -> int:
        return hash(self._ident())

    def __repr__(self) -> str:
        return f"Position.from_fen({self.fen()!r}, rules={self.rules.name!r})"

    def __str__(self) -> str:
        """The board as a grid with coordinates, then the side to move (and the rules and the counter
        when they are not the classic rules'): what ``print(position)`` shows.

        >>> print(Position.from_fen("x3o/5 o"))
          abcde
        2 x...o 2
        1 ..... 1
          abcde
        O to move
        """
        rules = "" if self.rules == CLASSIC else f"; rules: {self.rules.name}" + (
            f", counter {self.counter}" if self.rules.counter else "")
        return f"{self.grid(coordinates=True)}\n{side_name(self.turn)} to move{rules}"

    def grid(self, coordinates: bool = False, pieces: str = "xo") -> str:
        """The board as a plain grid, or with rank labels and a file header (:func:`grid_text`;
        ``pieces``: the letters of X's and O's pieces, ``rb`` for CS 61B's red and blue)."""
        return grid_text(self.board, self.x, self.o, coordinates, pieces)

    @classmethod
    def from_fen(cls, fen: str, rules: str | Rules = CLASSIC, source: str = "<input>",
                 line: int | None = None) -> "Position":
        """The position of a FEN line (side to move X, counter 0 and move number 1 unless given;
        the counter only under rules that have one). Raises :class:`solver.game.fen.PositionFormatError`
        that names ``source`` and ``line``."""
        rules = parse_rules(rules) if isinstance(rules, str) else rules
        f = read_fen(fen, source, line)
        return cls(f.board, f.x, f.o, f.turn or X, f.counter if rules.counter else 0, rules, f.fullmove)

    def fen(self) -> str:
        """The FEN of the position: board, side to move, counter and move number."""
        return f"{write_fen_board(self.board, self.x, self.o)} {self.turn} {self.counter} {self.fullmove}"

    # -- pieces ---------------------------------------------------------------------------------

    def pieces(self, side: Side) -> int:
        return self.x if side == X else self.o

    @property
    def empty(self) -> int:
        return self.board.playable & ~(self.x | self.o)

    def piece_at(self, sq: int) -> Side | None:
        if self.x >> sq & 1:
            return X
        if self.o >> sq & 1:
            return O
        return None

    def material(self) -> int:
        """X pieces minus O pieces."""
        return popcount(self.x) - popcount(self.o)

    # -- moves ----------------------------------------------------------------------------------

    def moves_of(self, side: Side) -> list[Move]:
        """Every clone and jump of ``side`` in notation order, ignoring whether the game is over.

        For each empty square: a clone if one of the side's pieces is a neighbour,
        and a jump from each of its pieces at jumping distance.
        """
        board = self.board
        neighbours, jumps = board.neighbours, board.jump_targets(self.rules.jump3)
        own = self.pieces(side)
        moves = []
        for dest in squares_of(self.empty):
            if neighbours[dest] & own:
                moves.append(Move(-1, dest, board))
            moves.extend(Move(p, dest, board) for p in squares_of(jumps[dest] & own))
        moves.sort(key=lambda m: move_order_key(board, m))
        return moves

    def can_move(self, side: Side) -> bool:
        board = self.board
        reach = board.reach(self.rules.jump3)
        own = self.pieces(side)
        return any(reach[dest] & own for dest in squares_of(self.empty))

    def _over_by_position(self) -> bool:
        """Over for a reason other than the counter: nobody can move, or a wiped-out side."""
        if self.rules.wipeout_ends and (self.x == 0 or self.o == 0):
            return True
        return not self.can_move(X) and not self.can_move(O)

    def is_over(self) -> bool:
        return self.result() is not None

    def result(self) -> int | None:
        """The final score (X minus O, or 0 for a uai draw by the clock), or None if not over."""
        if self._result is _UNKNOWN:
            if self._over_by_position():
                self._result = self.material()
            elif self.rules.counter is not None and self.counter >= self.rules.limit:
                self._result = 0 if self.rules.limit_is_draw else self.material()
            else:
                self._result = None
        return self._result

    def legal_moves(self) -> list[Move]:
        """The legal moves in notation order: [PASS] when the mover is stuck, [] when the game is over."""
        if self.is_over():
            return []
        return self.moves_of(self.turn) or [PASS]

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is one of :meth:`legal_moves`, decided from the move's squares alone
        (reading a long game checks each move without listing every move)."""
        if self.is_over():
            return False
        if move.is_pass:
            return move == PASS and not self.can_move(self.turn)
        board, own = self.board, self.pieces(self.turn)
        if not (0 <= move.to < board.size and self.empty >> move.to & 1):
            return False
        if move.is_clone:
            return bool(board.neighbours[move.to] & own)
        return move.frm < board.size and bool(board.jump_targets(self.rules.jump3)[move.to] >> move.frm & own >> move.frm & 1)

    def play(self, move: Move) -> "Position":
        """The position after a legal move; raises IllegalMoveError otherwise."""
        if not self.is_legal(move):
            raise IllegalMoveError(f"{self.move_name(move)} is not legal for {side_name(self.turn)} here")
        return self.push(move)

    def push(self, move: Move) -> "Position":
        """The position after ``move``, which is trusted to be legal here: unchecked, like
        python-chess's ``Board.push`` (an illegal move gives a position no game reaches; use
        :meth:`play` to have it checked). For code that generated the move from this position."""
        mine, theirs = (self.x, self.o) if self.turn == X else (self.o, self.x)
        if move.is_pass:
            kind = "pass"
        else:
            kind = "clone" if move.is_clone else "jump"
            if move.is_jump:
                mine &= ~(1 << move.frm)
            mine |= 1 << move.to
            captured = theirs & self.board.neighbours[move.to]
            mine |= captured
            theirs &= ~captured
        x, o = (mine, theirs) if self.turn == X else (theirs, mine)
        fullmove = self.fullmove + (1 if self.turn == O else 0)
        return Position(self.board, x, o, self.turn.other, self.rules.next_counter(self.counter, kind),
                        self.rules, fullmove)

    def move_name(self, move: Move) -> str:
        return move_name(self.board, move)

    def parse_move(self, text: str) -> Move:
        """A move of this position from text; raises InvalidMoveError or IllegalMoveError."""
        move, long_origin = parse_move_text(self.board, text)
        if long_origin is not None and self.piece_at(long_origin) != self.turn:
            raise IllegalMoveError(f"{text}: {self.board.square_name(long_origin)} is not a piece of {side_name(self.turn)}")
        if not self.is_legal(move):
            raise IllegalMoveError(f"{text} is not legal for {side_name(self.turn)} here")
        return move

    # -- symmetry -------------------------------------------------------------------------------

    def transform(self, perm: tuple[int, ...]) -> "Position":
        """The position with every piece moved by a board symmetry."""
        m = self.board.map_mask
        return self.replace(x=m(perm, self.x), o=m(perm, self.o))

    def inverted(self) -> "Position":
        """Colour inversion: X and O swapped, and the side to move with them (value changes sign)."""
        return self.replace(x=self.o, o=self.x, turn=self.turn.other)

    def canonical_form(self) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
        """(the least cell tuple over the board's symmetries, the symmetries that give it).

        Cells are read from the mover's side (1 mover, 2 opponent, 0 empty), so a
        position and its colour inversion share a form.
        """
        mine, theirs = (self.x, self.o) if self.turn == X else (self.o, self.x)
        n = self.board.size
        best, perms = None, []
        for perm in self.board.symmetries:
            cells = [0] * n
            for sq in range(n):
                if mine >> sq & 1:
                    cells[perm[sq]] = 1
                elif theirs >> sq & 1:
                    cells[perm[sq]] = 2
            t = tuple(cells)
            if best is None or t < best:
                best, perms = t, [perm]
            elif t == best:
                perms.append(perm)
        assert best is not None  # every board has the identity symmetry
        return best, perms

    def key(self) -> tuple:
        """A key equal for this position's images under colour inversion and, on boards of at most
        :data:`KEY_SYMMETRY_SQUARES` squares, the board's symmetries, with the counter."""
        if self.board.size > KEY_SYMMETRY_SQUARES:
            mine, theirs = (self.x, self.o) if self.turn == X else (self.o, self.x)
            return mine, theirs, self.counter
        return self.canonical_form()[0], self.counter
