"""The compiled engines, and the choice of an algorithm for a position.

- ``retro`` (:mod:`.retro`): enumerate every reachable position and solve them
  all by retrograde analysis. Small boards; gives the whole table.
- ``search`` (:mod:`.search`): alpha-beta search with a transposition table.
  Positions whose reachable graph is far too large to enumerate (7 x 7 endgames).
- ``reference`` (:mod:`solver.reference`): the plain-Python oracle the others are
  tested against.

``auto`` estimates the reachable graph (:func:`estimate_states`): a tiny one goes
to the reference solver (it answers in milliseconds, while loading the compiled
engine costs about a second), one whose tables fit the memory budget to retro,
anything larger to search (:func:`choose_algorithm`; :class:`solver.solving.Solver`
makes the oracle). Every numba kernel lives in this package; nothing outside it
imports numba, and importing this package alone does not load it.
"""

from __future__ import annotations

import functools
from math import comb

from ..limits import default_memory_budget
from ..rules import CLASSIC, COUNTER_PLIES, Position, Rules

ALGORITHMS = ("auto", "retro", "search", "reference")

# Bytes the retro engine needs per position of the estimate (the estimate is an upper
# bound; from the standard starts about a quarter of it is reachable, with ~15 moves each).
RETRO_BYTES_PER_ESTIMATED_STATE = 60
# Below this estimate the pure-Python reference is faster than loading the compiled engine.
TINY_ESTIMATE = 3000


def estimate_states(position: Position, boards: bool = False) -> int:
    """An upper bound on the positions reachable from ``position``: every way to fill the
    empty squares that are left or emptied later, up to symmetry, times the counter's range
    (not with ``boards``: the retro engine solves each board at every counter value at once).

    Jumps move empty squares anywhere, so a position with e empty squares can reach any
    board with at most e empty squares, coloured any way."""
    board = position.board
    s = board.playable.bit_count()
    e = position.empty.bit_count()
    total = sum(comb(s, k) * 2 ** (s - k) for k in range(e + 1))
    rules = position.rules
    if rules.counter is not None and not boards:
        total *= max(1, rules.limit - position.counter + 1) if rules.counter == COUNTER_PLIES else rules.limit + 1
    return max(1, total // len(board.symmetries))


def choose_algorithm(position: Position, max_memory: int | None = None) -> str:
    """The algorithm ``auto`` uses for a position: reference, retro or search."""
    budget = max_memory if max_memory is not None else default_memory_budget()
    if estimate_states(position) <= TINY_ESTIMATE:  # what the reference solver enumerates
        return "reference"
    return "retro" if estimate_states(position, boards=True) * RETRO_BYTES_PER_ESTIMATED_STATE <= budget else "search"


@functools.cache  # once per process for each algorithm and rule set
def warm_up(algorithm: str, rules: Rules = CLASSIC) -> None:
    """Compile (or load from the cache) the kernels an algorithm uses under ``rules`` (a counter
    has kernels of its own), on a tiny position, so that a time limit and the time reported
    count the solving only."""
    p = Position.start(1, 3, rules)
    if algorithm == "retro":
        # Start-up: importing a compiled engine loads numba; only when that engine is used.
        from .retro import RetroOracle

        RetroOracle(p.board, rules).prepare([p])
    elif algorithm == "search":
        from .search import SearchOracle  # start-up, as above

        SearchOracle(p.board, rules, tt_bits=10).bounds(p)
