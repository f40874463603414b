"""Combinatorial-game notation for orthodox summaries (SPEC section 5).

A summary is a small tree: a :class:`Number`, a :class:`Split` ``{left | right}``
with one option on each side, or :data:`ELIDED` (``...``) where the summary was
cut off. :func:`game_name` prints it as CGSuite does: ``9|-9``, ``5|1||-5``
(the outermost split gets the most slashes), ``3||2|1``.

>>> game_name(Split(Split(Number(5), Number(1)), Number(-5)))
'5|1||-5'
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Number:
    value: Fraction

    def __init__(self, value):
        object.__setattr__(self, "value", Fraction(value))


@dataclass(frozen=True)
class Split:
    left: "Game"
    right: "Game"


@dataclass(frozen=True)
class Elided:
    """A part of the summary that was not expanded (repeated board or depth limit)."""


ELIDED = Elided()
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


def number_name(x: Fraction) -> str:
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
        return "..."
    return game_name(g.left) + "|" * _bars(g) + game_name(g.right)


def game_to_json(g: Game):
    """A JSON-friendly form: a number as a string ('5', '1/2'), a split as [left, right], '...'."""
    if isinstance(g, Number):
        return number_name(g.value)
    if isinstance(g, Elided):
        return "..."
    return [game_to_json(g.left), game_to_json(g.right)]
