"""A researcher's table of game values: every small board's start, with its canonical form, mean
and temperature, or the one-line reason it has none (issue 20, item 4).

**The boards.** Every shape rows x cols with 1 <= rows <= cols, 2 <= rows * cols <= N (N is
``max_squares``), and on each shape every *symmetric block layout*: a set of blocks that every
symmetry of the empty rectangle maps onto itself (the two mirror lines and the half turn; on a
square also the diagonals and the quarter turns), that is a union of orbits of the rectangle's
squares under that group, leaving out every orbit that holds a starting piece (the standard
start of :meth:`Board.start_squares`: X top left and bottom right, O top right and bottom left;
on one row X left and O right). The empty board comes first, then the layouts by number of
blocks. On such a board the start is mapped onto its colour inversion by a mirror (Chen's
"symmetric open boards"), so a game value, where there is one, is its own negative.

N = 9 gives 54 boards (1 x 2 ... 1 x 9, 2 x 2, 2 x 3, 2 x 4, 3 x 3); N = 12 gives 150.

**Each row** is :func:`solver.cgt.gamevalue.game_value` of the start under a rule set, bounded per
board by ``timeout_each`` seconds and ``max_states`` boards; a board without a value gets
:class:`solver.cgt.gamevalue.NoValue`'s kind ('loop', 'zugzwang', 'states', 'time', 'size') and
reason instead.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

from solver.cgt.gamevalue import (
    DEFAULT_MAX_STATES,
    GameValue,
    NoValue,
    game_value,
    number_text,
)
from solver.game.board import Board, popcount
from solver.game.fen import write_fen_board
from solver.game.rules import CLASSIC, Position, Rules, X

DEFAULT_MAX_SQUARES = 9
DEFAULT_TIMEOUT_EACH = 10.0  # seconds per board
KIND_TEXT = {"loop": "loop", "zugzwang": "zugzwang", "states": "too large", "time": "out of time",
             "size": "too large"}


def orbits(rows: int, cols: int) -> list[int]:
    """The orbits (square masks) of the rows x cols rectangle's squares under its symmetries,
    ordered by their lowest square."""
    perms = Board(rows, cols).symmetries
    seen = 0
    out = []
    for sq in range(rows * cols):
        if seen >> sq & 1:
            continue
        mask = 0
        for perm in perms:
            mask |= 1 << perm[sq]
        seen |= mask
        out.append(mask)
    return out


def symmetric_layouts(rows: int, cols: int) -> list[int]:
    """The block masks of the rows x cols board that every symmetry of the rectangle keeps and
    that cover no starting piece: the unions of the free orbits, fewest blocks first (then by mask)."""
    start = Board(rows, cols).start_squares()
    taken = start[0] | start[1]
    free = [m for m in orbits(rows, cols) if not m & taken]
    layouts = []
    for pick in range(1 << len(free)):
        mask = 0
        for i, m in enumerate(free):
            if pick >> i & 1:
                mask |= m
        layouts.append(mask)
    return sorted(layouts, key=lambda m: (popcount(m), m))


def table_positions(max_squares: int = DEFAULT_MAX_SQUARES, rules: Rules = CLASSIC) -> list[Position]:
    """The starts of the table's boards (see the module docstring), X to move, by number of
    squares, then rows, then layout."""
    if max_squares < 2:
        raise ValueError(f"a board needs at least 2 squares, not {max_squares}")
    out = []
    shapes = sorted(((r, c) for c in range(1, max_squares + 1) for r in range(1, c + 1)
                     if 2 <= r * c <= max_squares), key=lambda s: (s[0] * s[1], s[0]))
    for rows, cols in shapes:
        for blocks in symmetric_layouts(rows, cols):
            board = Board(rows, cols, blocks)
            x, o = board.start_squares()
            out.append(Position(board, x, o, X, 0, rules))
    return out


@dataclass(frozen=True)
class Row:
    """One board of the table: its start, the game value or why there is none, the time taken."""

    position: Position
    value: GameValue | None
    kind: str | None  # NoValue's kind when value is None
    reason: str | None
    seconds: float

    @property
    def board(self) -> str:
        """The board as the board field of a FEN ('x1o', 'x-o/o-x')."""
        p = self.position
        return write_fen_board(p.board, p.x, p.o)

    @property
    def shape(self) -> str:
        b = self.position.board
        return f"{b.rows}x{b.cols}"

    @property
    def blocks(self) -> int:
        return popcount(self.position.board.blocks)

    @property
    def empty(self) -> int:
        return popcount(self.position.empty)

    @property
    def verdict(self) -> str:
        """The canonical form, or the refusal in a word or two (loop, zugzwang, too large, out of time)."""
        if self.value is not None:
            return self.value.canonical
        return KIND_TEXT.get(self.kind or "", self.kind or "?")

    @property
    def loop_free(self) -> bool | None:
        """True with a value, False where play can repeat, None when the work stopped before
        knowing (a zugzwang found inside, a limit)."""
        return True if self.value is not None else False if self.kind == "loop" else None

    def text(self) -> str:
        v = self.value
        mean = number_text(v.mean) if v else "-"
        temp = number_text(v.temperature) if v else "-"
        return f"{self.shape:<5} {self.board:<12} {self.blocks:>6} {self.empty:>5}  {mean:>4} {temp:>4}  {self.verdict}"

    def to_json(self) -> dict:
        out: dict = {"board": self.board, "shape": self.shape, "blocks": self.blocks, "empty": self.empty,
                     "rules": self.position.rules.name, "loop_free": self.loop_free,
                     "seconds": round(self.seconds, 3)}
        if self.value is not None:
            out.update(self.value.to_json())
            out["states"] = self.value.states
        else:
            out.update({"canonical": None, "no_value": self.kind, "reason": self.reason})
        return out


HEADER = f"{'shape':<5} {'board':<12} {'blocks':>6} {'empty':>5}  {'mean':>4} {'temp':>4}  canonical form or why none"


def value_row(position: Position, timeout_each: float | None = DEFAULT_TIMEOUT_EACH,
              max_states: int = DEFAULT_MAX_STATES) -> Row:
    """The table's row of one board (its side to move is ignored)."""
    t = time.monotonic()
    deadline = t + timeout_each if timeout_each is not None else None
    try:
        v = game_value(position, max_states=max_states, deadline=deadline)
    except NoValue as exc:
        return Row(position, None, exc.kind, exc.reason, time.monotonic() - t)
    return Row(position, v, None, None, time.monotonic() - t)


def value_table(max_squares: int = DEFAULT_MAX_SQUARES, rules: Rules = CLASSIC,
                timeout_each: float | None = DEFAULT_TIMEOUT_EACH,
                max_states: int = DEFAULT_MAX_STATES) -> Iterator[Row]:
    """The rows of the table, one per board of :func:`table_positions`, as they are computed."""
    for p in table_positions(max_squares, rules):
        yield value_row(p, timeout_each, max_states)


def summary(rows: list[Row], seconds: float) -> str:
    """The closing line: boards, how many have a value, the refusals by kind, the time taken."""
    valued = sum(r.value is not None for r in rows)
    kinds: dict[str, int] = {}
    for r in rows:
        if r.value is None:
            name = KIND_TEXT.get(r.kind or "", r.kind or "?")
            kinds[name] = kinds.get(name, 0) + 1
    rest = "".join(f", {n} {k}" for k, n in sorted(kinds.items()))
    return f"{len(rows)} boards: {valued} with a canonical form{rest}; {seconds:.1f} s"

