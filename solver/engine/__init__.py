"""Choosing the solver behind the analysis (the oracle of exact values).

Engines: ``reference`` (pure Python, :mod:`solver.reference`). ``auto`` picks
the best engine for the position.
"""

from __future__ import annotations

from ..reference import ReferenceOracle
from ..rules import Position

ENGINES = ("auto", "reference")


def choose_oracle(position: Position, engine: str = "auto", max_states: int | None = None):
    """An oracle able to solve ``position`` (and positions on the same board and rules)."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (known: {', '.join(ENGINES)})")
    return ReferenceOracle(max_states)
