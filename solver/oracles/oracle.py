"""The oracle contract: what the analysis needs from a solver, and what it may use when offered.

An *oracle* answers questions about exact values of positions on one board under one rule
set. The reference solver (:mod:`solver.oracles.reference`), the retrograde engine
(:mod:`solver.oracles.retro`), the search engine (:mod:`solver.oracles.search`) and the
tablebases (:mod:`solver.tables.probe`) each implement :class:`Oracle`. As in GamesmanOne's
tier solver API, every member is marked:

- REQUIRED (abstract): :attr:`Oracle.states`, :meth:`Oracle.prepare`, :meth:`Oracle.lookup`.
- OPTIONAL, with a default that is correct for any oracle (an oracle overrides it to be
  faster, or to prove more under a limit): :meth:`~Oracle.lookup_many`, :meth:`~Oracle.value`,
  :meth:`~Oracle.bounds`, :meth:`~Oracle.seed`, :meth:`~Oracle.score_test`,
  :meth:`~Oracle.score_bounds`, :meth:`~Oracle.option_arrays`, :meth:`~Oracle.proving_move`,
  :meth:`~Oracle.stop_message`.
- Attributes every oracle has: ``name`` (what reports call it), ``unit`` (what ``states``
  counts), ``proves_bounds`` (``bounds`` narrows an interval under a limit rather than
  answering exactly or not at all), ``deadline`` (a ``time.monotonic()`` value the caller may
  move between questions) and ``progress`` (a callback that receives :class:`Progress`).

The tests check that the optional methods of each engine agree with the defaults.
"""

from __future__ import annotations

import contextlib
import math
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Callable, ClassVar

from solver.common.limits import (
    BudgetError,
    LimitError,
    MemoryLimitError,
    StateLimitError,
    TimeLimitError,
)
from solver.common.scores import INF_SCORE, M, parent_score, score_of
from solver.common.words import Word
from solver.game.rules import Move, Position, Side, X
from solver.oracles.side_options import OptionArrays


@dataclass(frozen=True)
class Progress:
    """What an engine has done so far, for a progress callback (the library never prints it).

    ``phase``: 'enumerating' or 'solving' (the retro engine; ``done`` counts positions, of
    ``total`` when known), or 'searching' (the search engine; ``done`` counts nodes, and
    ``position`` is the root searched, ``lower``/``upper`` what is proved so far about its
    value, from X's side, and ``best_move`` the best move found), or 'testing' (the search engine's
    tests after a value: its depth, a line, a move's bound; ``done`` counts nodes, no interval).
    """

    phase: str
    done: int
    total: int | None = None
    unit: str = "positions"
    seconds: float = 0.0
    position: Position | None = None
    lower: int | None = None
    upper: int | None = None
    best_move: Move | None = None

    @property
    def side(self) -> Side | None:
        return None if self.position is None else self.position.turn

    @property
    def best_move_name(self) -> str | None:
        if self.best_move is None or self.position is None:
            return None
        return self.position.move_name(self.best_move)


ProgressCallback = Callable[[Progress], None]


@dataclass
class Bounds:
    """What an oracle proved about a position's value, from the mover's side (SPEC section 4.1).

    ``lower <= value <= upper``; ``best_move`` (None when the game is over or no move was
    found) is a move whose value is proved to be at least ``best_lower``. ``stopped`` says why
    the work ended before ``lower == upper`` ('time', 'nodes', 'states', 'memory', 'stack',
    'interrupt'; None when it did not).
    """

    lower: int
    upper: int
    best_move: Move | None
    best_lower: int
    nodes: int = 0
    seconds: float = 0.0
    stopped: str | None = None  # a StopReason (the search answers its words, equal to the members)
    outcome_seconds: float | None = None

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


class StopReason(Word):
    """Why the work stopped before everything was proved: the ``stopped`` word of a side's result,
    of :class:`Bounds` and of ``--json`` (a member equals its word)."""

    TIME = "time"            # out of time (a timeout, a deadline)
    NODES = "nodes"          # the node limit of the search
    BUDGET = "budget"        # a test's own node budget (the search's exact analysis)
    MEMORY = "memory"        # the memory budget
    STACK = "stack"          # the search's stack, grown to the memory budget
    STATES = "states"        # the state limit of an enumerating solver
    INTERRUPT = "interrupt"  # Ctrl-C or SIGTERM
    DEPTH = "depth"          # a test of the depth went past its node budget (the value is exact)
    LIMIT = "limit"          # another limit

    @property
    def text(self) -> str:
        """In a few words: 'out of time', 'the node limit', ..."""
        return STOP_REASONS[self]


STOP_REASONS: dict[str, str] = {StopReason.TIME: "out of time", StopReason.NODES: "the node limit",
                StopReason.BUDGET: "the node limit", StopReason.MEMORY: "the memory budget",
                StopReason.STACK: "the memory budget", StopReason.STATES: "the state limit",
                StopReason.INTERRUPT: "interrupted",
                StopReason.DEPTH: "a test of the depth went past its node budget (the value is exact)",
                StopReason.LIMIT: "a limit"}


def stop_reason(exc: BaseException) -> StopReason:
    """The ``stopped`` word for a limit error or an interrupt."""
    if isinstance(exc, KeyboardInterrupt):
        return StopReason.INTERRUPT
    if isinstance(exc, TimeLimitError):
        return StopReason.TIME
    if isinstance(exc, MemoryLimitError):
        return StopReason.MEMORY
    if isinstance(exc, BudgetError):
        return StopReason.DEPTH
    if isinstance(exc, StateLimitError):
        return StopReason.NODES if "node" in str(exc) else StopReason.STATES
    return StopReason.LIMIT


def mover_value(p: Position, score: int) -> int:
    """A final score (X's side) from the side to move's view."""
    return score if p.turn == X else -score


class Oracle(ABC):
    """Exact values of positions on one board under one rule set (see the module docstring)."""

    name: ClassVar[str] = "oracle"
    proves_bounds: ClassVar[bool] = False
    unit: str = "positions"

    def __init__(self, deadline: float | None = None, progress: ProgressCallback | None = None):
        self.deadline = deadline
        self.progress = progress

    # -- REQUIRED -------------------------------------------------------------------------------

    @property
    @abstractmethod
    def states(self) -> int:
        """Positions solved so far (what :attr:`unit` names)."""

    @abstractmethod
    def prepare(self, roots: list[Position], both_sides: bool = False) -> None:
        """Solve these roots now. ``both_sides`` says that boards they reach will be asked about
        with either side to move: an oracle may solve those now (the reference solver does) or
        when they are asked for (the retro engine extends its solution). Raises LimitError."""

    @abstractmethod
    def lookup(self, position: Position) -> tuple[int, float]:
        """(value for the side to move, depth or math.inf for a draw by infinite play).
        Raises LimitError when a limit stops the work first."""

    # -- OPTIONAL -------------------------------------------------------------------------------

    def lookup_many(self, positions: list[Position]) -> list[tuple[int, float]]:
        """:meth:`lookup` for many positions (one call into compiled code, where it can)."""
        return [self.lookup(p) for p in positions]

    def value(self, position: Position) -> int:
        """The value for the side to move (an oracle may skip the depth). Raises LimitError."""
        r = position.result()
        if r is not None:
            return mover_value(position, r)
        return self.lookup(position)[0]

    def bounds(self, position: Position, outcome_only: bool = False) -> Bounds:
        """What can be proved about the value for the side to move within the limits. Default:
        the exact value, or the widest interval with ``stopped`` set when a limit comes first
        (an interrupt propagates). An oracle with ``proves_bounds`` narrows an interval instead."""
        squares = position.board.playable.bit_count()
        try:
            u = self.value(position)
        except LimitError as exc:
            return Bounds(-squares, squares, None, -squares, stopped=stop_reason(exc))
        return Bounds(u, u, None, u)

    def seed(self, position: Position, lower: int, upper: int, move: Move | None = None,
             move_lower: int | None = None) -> None:
        """Start later work on ``position`` from bounds proved before (the mover's side; a move
        with its proved lower bound), for example read from a cache. Default: ignored."""

    def score_test(self, position: Position, s: int, budget: int = 0) -> tuple[bool, int]:
        """Can the side to move force a composite score (value and depth, :mod:`solver.common.scores`)
        of at least ``s``? (the answer, a proved bound on the score that shows it). ``budget``:
        nodes the question may take, where the oracle counts them (past it: :class:`solver.common.limits.BudgetError`).
        Default: the exact score from :meth:`lookup`. Raises LimitError."""
        result = position.result()
        if result is not None:
            score = mover_value(position, result) * M
        else:
            value, depth = self.lookup(position)
            score = 0 if math.isinf(depth) else score_of(value, int(depth))
        return score >= s, score

    def score_bounds(self, position: Position) -> tuple[int, int]:
        """What is already known about the mover's composite score, without work (default: nothing)."""
        return -INF_SCORE, INF_SCORE

    def option_arrays(self, board: Position, side: Side, keep: int | None, limit: int) -> OptionArrays | None:
        """The options of ``side`` from ``board`` (SPEC section 5) read from a solved graph in one
        pass; None (the default) when the oracle has no graph to read them from, and the
        analysis searches them itself."""
        return None

    @contextlib.contextmanager
    def without_limits(self) -> Iterator[None]:
        """Within it, no deadline (and no node or state limit where the oracle has one): for work that
        only reads back what was proved (a certificate). Ctrl-C still stops it."""
        deadline, self.deadline = self.deadline, None
        try:
            yield
        finally:
            self.deadline = deadline

    def proving_move(self, position: Position, s: int) -> tuple[Move, int] | None:
        """A move of the side to move that proves its composite score (value and depth,
        :mod:`solver.common.scores`, the mover's view) is at least ``s``, with the score it proves; None
        when no move does. Default: from :meth:`lookup` of every move (the best one). Raises
        LimitError."""
        best: tuple[Move, int] | None = None
        for move in position.legal_moves():
            child = position.push(move)
            result = child.result()
            if result is not None:
                cs = mover_value(child, result) * M
            else:
                value, depth = self.lookup(child)
                cs = 0 if math.isinf(depth) else score_of(value, int(depth))
            score = parent_score(-cs)
            if best is None or score > best[1]:
                best = (move, score)
        return best if best is not None and best[1] >= s else None

    def stop_message(self, reason: str) -> str:
        """Why the work stopped, in a few words ('' for an interrupt)."""
        return "" if reason == StopReason.INTERRUPT else STOP_REASONS.get(reason, reason)

