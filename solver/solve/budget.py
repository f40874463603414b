"""No silent hours: which positions may take long to solve, and the budget given when no limit is.

A solve without a limit (no ``timeout``, ``nodes`` or ``max_states``) runs until it has proved
everything, which on a 7 x 7 board can take hours. Before such a solve, the commands ask
:func:`may_take_long`: the position goes to the search (the exact engines enumerate small boards
in seconds and the tables answer at once), and its :func:`work_estimate` is over
:data:`ESTIMATE_THRESHOLD`. Then ``solve`` and ``batch`` say at once that there is no limit and
what the estimate is; ``verify`` gives each judged move :data:`DEFAULT_MOVE_NODES` nodes of the
search unless told otherwise (``--no-limit``), so that its first verdict comes within a minute.

The estimate is the size of a full-width game tree in which every move fills a square: (m + 1)
to the power e, with e the empty squares and m the mean number of legal moves of the two sides
at the position (one more for the pass). It knows nothing of transpositions (which make the real
search smaller) nor of jump wars (which make it larger), so it is an order of magnitude that
says whether to warn, not a forecast of time: a board with 4 empty squares and 30 moves a side
(about 10^6) has taken from seconds to twenty minutes (issue 27).
"""

from __future__ import annotations

import dataclasses
from solver.common.limits import Limits
from solver.game.rules import O, X, Position

ESTIMATE_THRESHOLD = 10**5  # nodes of the estimate above which a solve without a limit is announced
DEFAULT_MOVE_NODES = 20_000_000  # verify's budget per judged move when no limit is given (about 5 s at 4 M/s)
MAX_ESTIMATE = 10**30  # the estimate is capped (a 7 x 7 start is about 10^54)


def work_estimate(p: Position) -> int:
    """The size of a full-width tree of clones to the end of the game (module docstring), at most
    :data:`MAX_ESTIMATE`; 1 for a finished game."""
    if p.is_over():
        return 1
    empty = p.empty.bit_count()
    moves = (len(p.replace(turn=X).legal_moves()) + len(p.replace(turn=O).legal_moves()) + 1) // 2
    estimate = 1
    for _ in range(empty):
        estimate *= moves + 1
        if estimate >= MAX_ESTIMATE:
            return MAX_ESTIMATE
    return estimate


def estimate_text(n: int) -> str:
    """'about 10^7 nodes' ('more than 10^30' at the cap, the number itself below 10,000)."""
    if n >= MAX_ESTIMATE:
        return "more than 10^30 nodes"
    if n < 10_000:
        return f"about {n:,} nodes"
    return f"about 10^{len(str(n)) - 1 + (int(str(n)[0]) >= 5)} nodes"


def unlimited(limits: Limits) -> bool:
    """No limit on the work: no timeout, deadline, node budget or ``max_states``."""
    return limits.timeout is None and limits.deadline is None and limits.nodes is None and limits.max_states is None


def may_take_long(algorithm: str, p: Position) -> bool:
    """Whether solving ``p`` with ``algorithm`` (:meth:`~solver.solve.solver.Solver.algorithm_for`)
    may take long: the search, and an estimate over :data:`ESTIMATE_THRESHOLD`."""
    return algorithm == "search" and work_estimate(p) > ESTIMATE_THRESHOLD


def no_limit_note(where: str, p: Position) -> str:
    """The line said at once before a long solve without a limit."""
    e = p.empty.bit_count()
    return (f"{where}: no limit given and the work may be long (estimate: {estimate_text(work_estimate(p))}, a "
            f"full-width tree of {e} empty square{'s' if e != 1 else ''}); --timeout SECONDS, --nodes N or "
            "--max-states N give one; Ctrl-C or SIGTERM stops it and prints what it proved")


DEFAULT_MOVE_SECONDS = 10.0  # the same when a search has several threads (a node budget needs one)


def default_budget(limits: Limits, threads: int | None = None) -> Limits:
    """``limits`` with verify's default budget per judged move: :data:`DEFAULT_MOVE_NODES` nodes
    (the same verdicts on any machine), or :data:`DEFAULT_MOVE_SECONDS` seconds when the search is
    given more than one thread."""
    if threads is not None and threads > 1:
        return dataclasses.replace(limits, timeout=DEFAULT_MOVE_SECONDS)
    return dataclasses.replace(limits, nodes=DEFAULT_MOVE_NODES)


def default_budget_note(limits: Limits, where: str, p: Position) -> str:
    """The line said once when verify applies its default budget (``where``, ``p``: the first
    judged position that may take long)."""
    each = (f"{limits.nodes:,} nodes of the search, on one thread" if limits.nodes is not None
            else f"{limits.timeout:g} s")
    return (f"no limit given and judging may be long ({where}: estimate {estimate_text(work_estimate(p))}): each "
            f"judged move gets at most {each}; --nodes N or --timeout SECONDS give another budget, --no-limit none")


def many_note(found: list[tuple[str, Position]], total: int) -> str:
    """The line said once before a batch without a limit in which ``found`` (where, position) may
    take long, of ``total`` positions: how many, and the largest estimate."""
    where, p = max(found, key=lambda f: work_estimate(f[1]))
    return (f"no limit given and {len(found):,} of {total:,} position{'s' if total != 1 else ''} may take long (the "
            f"largest estimate: {estimate_text(work_estimate(p))}, {where}); --timeout SECONDS or --nodes N give a "
            "limit per position; Ctrl-C stops and keeps what is solved")
