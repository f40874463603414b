"""What one test of the search answers, or why it stopped, and what a search proved: the small
records :mod:`solver.oracles.search` passes between its provers, its tests and its callers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


class SearchStopped(Exception):
    """A test stopped before it had an answer (``reason``: 'time', 'interrupt', 'nodes', 'budget',
    'stack')."""

    def __init__(self, reason: str, nodes: int):
        super().__init__(reason)
        self.reason = reason
        self.nodes = nodes


def raise_stop(kernel: Any, reason: int, abort: np.ndarray, nodes: int) -> None:
    """Raise :class:`SearchStopped` for a kernel's stop code (its module's ``STOP_*``), if any."""
    if reason == kernel.STOP_ABORT:
        raise SearchStopped("cancelled" if abort[0] == 2 else "abort", nodes)
    if reason == kernel.STOP_NODES:
        raise SearchStopped("limit", nodes)
    if reason == kernel.STOP_STACK:
        raise SearchStopped("stack", nodes)


@dataclass
class SearchBounds:
    """What a search proved about a position, from the mover's side (kernel move codes:
    :meth:`SearchOracle.bounds_of`; :meth:`SearchOracle.bounds` gives the oracle contract's
    :class:`solver.oracles.oracle.Bounds` with a :class:`solver.game.rules.Move`).

    ``lower <= value <= upper``; ``best_move`` (a kernel move code, or None when the
    game is over) is a move whose value is proved to be at least ``best_lower``.
    ``stopped`` says why the search ended before ``lower == upper`` (None if it did not).
    """

    lower: int
    upper: int
    best_move: int | None
    best_lower: int
    nodes: int
    seconds: float
    stopped: str | None = None
    outcome_seconds: float | None = None  # when the outcome was proved (since the start)
    outcome_nodes: int | None = None  # the nodes searched by then

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


@dataclass
class SearchStatus:
    """What a search has proved so far, for the progress callback: the interval being narrowed
    (the mover's side) and the best move found (a code)."""

    lower: int
    upper: int
    best_move: int | None = None


@dataclass
class Answer:
    """A test's answer: does the mover's score reach the threshold, the fail-soft score that shows
    it, and the move that proves it (a code; None when the answer is no or needed no move)."""

    holds: bool
    score: int
    move: int | None
