"""Where the tier solver keeps solved tiers: the :class:`TierStore` interface and a store in memory.

A store has ``has(t)``, ``load(t)`` (the tier's uint16 codes, :mod:`solver.engine.tier_kernels`),
``save(t, codes)`` and ``release()`` (the tiers loaded will not be read again before the next
save: a store that keeps one in memory lets it go). A solve skips the tiers the store already has, so an interrupted build
resumes at the first tier not saved, and within it from its checkpoint when the solver has
checkpoints (:mod:`solver.tiers.resume`). Ataxx's files are :class:`solver.tables.storage.DirectoryStore`.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class TierStore(Protocol):
    def has(self, tier: int) -> bool: ...

    def load(self, tier: int) -> np.ndarray: ...

    def save(self, tier: int, codes: np.ndarray) -> None: ...

    def release(self) -> None: ...


class MemoryStore:
    """Solved tiers kept in a dict (tests, the cluster's comparison, small games)."""

    def __init__(self) -> None:
        self.tiers: dict[int, np.ndarray] = {}

    def has(self, tier: int) -> bool:
        return tier in self.tiers

    def load(self, tier: int) -> np.ndarray:
        return self.tiers[tier]

    def save(self, tier: int, codes: np.ndarray) -> None:
        self.tiers[tier] = codes

    def release(self) -> None:
        """Nothing: this store is the tiers in memory."""
