"""Combinatorial-game notation for orthodox summaries (SPEC section 5).

A summary is a small tree: a :class:`Number`, a :class:`Split` ``{left | right}``
with one option on each side, or a mark where it was not expanded: :data:`CUT`
(``...``: deeper than the depth limit; a larger limit shows more) or :data:`LOOP`
(``loop``: a board already on the path from the root; no limit shows more).
:func:`game_name` prints it as CGSuite does: ``9|-9``, ``5|1||-5`` (the outermost
split gets the most slashes), ``3||2|1``; :func:`tree_lines` as an indented tree.

>>> game_name(Split(Split(Number(5), Number(1)), Number(-5)))
'5|1||-5'
>>> str(Split(Number(3), Split(Number(2), Number(1))))
'3||2|1'

Moves and sides are written in one of :data:`NOTATIONS` (:class:`Notation`): ``uai``, the
project's own (SPEC section 2: ``b6``, ``a7c5``, ``0000``; sides X and O), or ``cs61b``, the
words of Berkeley's CS 61B Ataxx: every move from a square to a square, ``a7-b6`` for a clone
(from the first of the mover's pieces next to the destination, files then ranks: a1, a2, ...,
b1, ...), ``a7-c5`` for a jump, ``-`` for a pass; X (the first mover) is red, O is blue.

>>> from .rules import Position
>>> p = Position.start(7, 7)
>>> [CS61B_NOTATION.move(p, p.parse_move(t)) for t in ("b6", "a7c5")], CS61B_NOTATION.side(p.turn)
(['a7-b6', 'a7-c5'], 'Red')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from solver.game.board import squares_of
from solver.game.rules import Move, Position, Side, X


@dataclass(frozen=True)
class Number:
    """A number: its ``str()`` is ``5``, ``-1/2``."""

    value: Fraction

    def __init__(self, value: int | Fraction):
        object.__setattr__(self, "value", Fraction(value))

    def __str__(self) -> str:
        return game_name(self)


@dataclass(frozen=True)
class Split:
    """``{left | right}``: its ``str()`` is the notation, ``5|1||-5``."""

    left: "Game"
    right: "Game"

    def __str__(self) -> str:
        return game_name(self)


@dataclass(frozen=True)
class Elided:
    """A part of the summary that was not expanded: ``why`` is 'cut' (the depth limit) or
    'loop' (a board already on the path)."""

    why: str

    @property
    def mark(self) -> str:
        return "..." if self.why == "cut" else "loop"

    def __str__(self) -> str:
        return self.mark


CUT = Elided("cut")
LOOP = Elided("loop")
Game = Number | Split | Elided


def simplest_between(a: int, b: int) -> Fraction:
    """The simplest number strictly between integers a < b: the integer nearest 0, or a + 1/2."""
    if not a < b:
        raise ValueError(f"no number strictly between {a} and {b}")
    if a < 0 < b:
        return Fraction(0)
    if b == a + 1:
        return Fraction(2 * a + 1, 2)
    return Fraction(a + 1) if a >= 0 else Fraction(b - 1)


def signed(v: int) -> str:
    """A score with its sign: +3, 0, -3."""
    return f"+{v}" if v > 0 else str(v)


def number_name(x: Fraction | int) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _bars(g: Game) -> int:
    if isinstance(g, Split):
        return 1 + max(_bars(g.left), _bars(g.right))
    return 0


def game_name(g: Game) -> str:
    if isinstance(g, Number):
        return number_name(g.value)
    if isinstance(g, Elided):
        return g.mark
    return game_name(g.left) + "|" * _bars(g) + game_name(g.right)


def game_to_json(g: Game) -> str | list:
    """A JSON-friendly form: a number as a string ('5', '1/2'), a split as [left, right], the
    marks '...' (cut) and 'loop'."""
    if isinstance(g, Number):
        return number_name(g.value)
    if isinstance(g, Elided):
        return g.mark
    return [game_to_json(g.left), game_to_json(g.right)]


def marks(g: Game) -> set[str]:
    """The marks in a summary: a subset of {'cut', 'loop'}."""
    if isinstance(g, Split):
        return marks(g.left) | marks(g.right)
    return {g.why} if isinstance(g, Elided) else set()


def cut(g: Game, depth: int) -> Game:
    """The summary as computed with a smaller depth limit: splits ``depth`` levels down are cut."""
    if not isinstance(g, Split):
        return g
    if depth <= 0:
        return CUT
    return Split(cut(g.left, depth - 1), cut(g.right, depth - 1))


def tree_lines(g: Game, width: int = 100, inline: int = 2) -> list[str]:
    """The summary as an indented tree: a split of at most ``inline`` levels that fits on its
    line is written as one name (``5|1||-5``), a deeper one as its two options on the lines
    below, ``X:`` (X's option) and ``O:``, one level further in.

    >>> tree_lines(Split(Number(15), Split(Number(1), Split(Number(0), Number(-15)))))
    ['X: 15', 'O: 1||0|-15']
    """
    def walk(g: Game, indent: int, label: str) -> list[str]:
        line = " " * indent + label
        name = game_name(g)
        if not isinstance(g, Split) or (_bars(g) <= inline and len(line) + len(name) <= width):
            return [line + name]
        inner = indent + 2 if label else indent
        return ([line.rstrip()] if label else []) + walk(g.left, inner, "X: ") + walk(g.right, inner, "O: ")

    return walk(g, 0, "")


# -- move and side notation -------------------------------------------------------------------------

NOTATIONS = ("uai", "cs61b")
_SIDE_WORD = re.compile(r"\b[XO]\b")


def cs61b_move(p: Position, move: Move) -> str:
    """``move`` of ``p`` in CS 61B's notation: ``a7-b6`` (a clone, from the first of the mover's
    pieces next to the destination in notation order: files, then ranks), ``a7-c5`` (a jump),
    ``-`` (a pass)."""
    board = p.board
    if move.is_pass:
        return "-"
    frm = move.frm
    if move.is_clone:
        near = [sq for sq in squares_of(board.neighbours[move.to] & p.pieces(p.turn))]
        if not near:
            raise ValueError(f"{board.square_name(move.to)}: no piece of {p.turn.name} next to it")
        frm = min(near, key=lambda sq: (board.file_of(sq), board.rank_of(sq)))
    return f"{board.square_name(frm)}-{board.square_name(move.to)}"


@dataclass(frozen=True)
class Notation:
    """How moves and sides are written for people: ``uai`` (``b6``, ``a7c5``, ``0000``; X and O)
    or ``cs61b`` (``a7-b6``, ``a7-c5``, ``-``; red and blue)."""

    name: str = "uai"

    def __post_init__(self) -> None:
        if self.name not in NOTATIONS:
            raise ValueError(f"unknown notation {self.name[:20]!r} (known: {', '.join(NOTATIONS)})")

    def move(self, p: Position, move: Move) -> str:
        """``move``, legal in ``p``, written in this notation."""
        return cs61b_move(p, move) if self.name == "cs61b" else p.move_name(move)

    def move_text(self, p: Position, text: str) -> str:
        """A move as written anywhere (any notation the rules read) rewritten in this one; text
        that is not a legal move of ``p`` is returned as it is."""
        if self.name == "uai" or not text:
            return text
        try:
            return self.move(p, p.parse_move(text))
        except ValueError:
            return text

    def line(self, p: Position, moves: list[Move]) -> list[str]:
        """The names of a line of moves played from ``p``."""
        out = []
        for m in moves:
            out.append(self.move(p, m))
            p = p.push(m)
        return out

    def side(self, side: Side) -> str:
        """'X' or 'O'; 'Red' or 'Blue'."""
        if self.name == "cs61b":
            return "Red" if side == X else "Blue"
        return side.name

    @property
    def pieces(self) -> str:
        """The letters of X's and O's pieces on a drawn board: 'xo'; 'rb' (red, blue) in cs61b."""
        return "rb" if self.name == "cs61b" else "xo"

    def words(self, text: str) -> str:
        """``text`` with the words X and O (the sides) as this notation names them: 'X wins by 3'
        is 'red wins by 3' in cs61b."""
        if self.name == "uai":
            return text
        return _SIDE_WORD.sub(lambda m: "red" if m.group(0) == "X" else "blue", text)


UAI_NOTATION = Notation("uai")
CS61B_NOTATION = Notation("cs61b")
