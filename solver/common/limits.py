"""Limits on the work: positions, memory, time. Exceeding one stops cleanly with a message."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass


class LimitError(RuntimeError):
    """The work was stopped by a limit; the message says which and how far it got."""


class StateLimitError(LimitError):
    def __init__(self, message: str, states: int = 0):
        super().__init__(message)
        self.states = states


class MemoryLimitError(LimitError):
    pass


class TimeLimitError(LimitError):
    pass


class BudgetError(LimitError):
    """One question went past the nodes it was given (the work as a whole may go on)."""


@dataclass(frozen=True)
class Limits:
    """Limits on the work of one solve: ``max_states`` positions solved (or nodes searched),
    ``max_memory`` bytes for the tables, ``timeout`` seconds from the start of each solve, and
    a ``deadline`` (a ``time.monotonic()`` value) for all of them; None: no limit (memory:
    three quarters of the machine). A limit stops the work cleanly: what was proved is reported.

    ``search_table``: the most bytes the search's table grows to (None: half of ``max_memory``
    when it is given, else half the machine's budget up to 512 MiB). A server that gives each
    worker a large ``max_memory`` caps it: growing a table into fresh memory costs seconds a GiB.

    ``nodes``: a node budget for each question (a solve; in ``verify``, each check), the same
    on every machine: the :class:`~solver.solve.solver.Solver` searches on one thread and restarts
    the budget with each question, so that what is proved depends on the input only, not on
    the machine's speed or load (unlike ``timeout``)."""

    max_states: int | None = None
    max_memory: int | None = None
    timeout: float | None = None
    deadline: float | None = None
    nodes: int | None = None
    search_table: int | None = None

    @property
    def state_limit(self) -> int | None:
        """The smaller of ``max_states`` and ``nodes`` (None: neither is set)."""
        given = [n for n in (self.max_states, self.nodes) if n is not None]
        return min(given) if given else None

    @property
    def timed(self) -> bool:
        return self.timeout is not None or self.deadline is not None

    def deadline_from_now(self) -> float | None:
        """The deadline of a solve starting now: ``timeout`` from now, or ``deadline`` if earlier."""
        ends = [t for t in (self.deadline, None if self.timeout is None else time.monotonic() + self.timeout)
                if t is not None]
        return min(ends) if ends else None


def total_memory() -> int:
    """Bytes of physical memory (or 8 GiB if the system will not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def default_memory_budget() -> int:
    return total_memory() * 3 // 4


_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30,
          "t": 1 << 40, "tb": 1 << 40}


SECONDS_TEXT = re.compile(r"[0-9]{1,12}(\.[0-9]{0,9})?|\.[0-9]{1,9}")  # a number of seconds as typed: 2, 0.5, .5
MAX_SIZE = 1 << 50  # 1024T: larger sizes are typing mistakes, and a float would lose them


def parse_size(text: str) -> int:
    """Bytes from '512M', '2G', '1.5GB', '1000000' (ASCII digits, at most :data:`MAX_SIZE`)."""
    shown = repr(text) if len(text) <= 40 else f"{text[:40]!r}..."
    m = re.fullmatch(r"\s*([0-9]{1,20}(?:\.[0-9]{1,20})?)\s*([a-zA-Z]{0,2})\s*", text)
    if not m or m.group(2).lower() not in _UNITS:
        raise ValueError(f"{shown} is not a size (write e.g. 512M or 2G)")
    value = float(m.group(1)) * _UNITS[m.group(2).lower()]
    if value > MAX_SIZE:
        raise ValueError(f"a size must be at most 1024T, not {shown}")
    if int(value) <= 0:
        raise ValueError(f"a size must be positive, not {shown}")
    return int(value)


def size_name(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"
