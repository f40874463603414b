"""A count of the work the readers do, so that a test bounds it by counting, never by timing.

Every reader of text (:mod:`solver.io.formats`, :mod:`solver.io.pgn`, :mod:`solver.io.epd`,
:mod:`solver.io.fenlines`, the FEN parsing of :mod:`solver.game.fen`) charges :func:`scanned` with
the number of characters each of its steps looks at: a ``split``, a ``find``, a ``strip``, a
regular expression match, one turn of a loop over characters. Nothing else changes the count, and
charging costs one addition per step (per line or per token, not per character).

    with counting() as work:
        read_positions(text)
    assert work.steps <= 40 * len(text) + 4_000

A reader is linear when, for every input, its count stays under a constant times the length of the
input plus a constant: a step that looked again at the rest of the input for each token, or a
regular expression that backtracked, would show as a count that grows with the square of the input.
The tests (``tests/test_fuzz.py``) hold that bound on hostile inputs at several sizes. The count is
the same on every machine and under any load, as a time is not.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class _Total:
    """The running count, for this process (readers run in one thread at a time per process)."""

    steps = 0


def scanned(n: int) -> None:
    """Charge ``n`` characters looked at (``n`` >= 0)."""
    _Total.steps += n


def total() -> int:
    """The characters looked at since the process started."""
    return _Total.steps


class Work:
    """The work done inside one :func:`counting` block: ``steps`` characters looked at."""

    __slots__ = ("start", "end")

    def __init__(self) -> None:
        self.start = _Total.steps
        self.end: int | None = None

    @property
    def steps(self) -> int:
        return (self.end if self.end is not None else _Total.steps) - self.start

    def __repr__(self) -> str:
        return f"Work(steps={self.steps})"


@contextmanager
def counting() -> Iterator[Work]:
    """The characters the readers look at inside the block (blocks may nest)."""
    work = Work()
    try:
        yield work
    finally:
        work.end = _Total.steps
