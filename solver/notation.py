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
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


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
