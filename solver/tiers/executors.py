"""Where the tier solver's chunks run, and the tasks it sends there.

An *executor* has ``workers``, ``share(obj)`` (data every task reads, such as the child tiers:
nothing to do in one process, scattered once on a cluster), ``map(fn, jobs)`` (``fn(*job)`` for
each job, yielded in order, a bounded number in flight) and ``close()``. :class:`LocalExecutor`
runs them in threads of this process (the kernels release the GIL);
:class:`solver.tiers.cluster.DaskExecutor` on a Dask cluster. The tasks are top-level functions, so
that a cluster can ship them: a chunk of a tier scanned or checked against the stored child
tiers, the un-moves of a part of a front.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Iterator, Protocol

import numpy as np

from solver import engine
from solver.tiers.game import TierGame, outside_moves, unmoves


class Executor(Protocol):
    workers: int

    def share(self, obj: Any) -> Any: ...

    def map(self, fn: Callable[..., Any], jobs: list[tuple[Any, ...]]) -> Iterator[Any]: ...

    def close(self) -> None: ...


class LocalExecutor:
    """Runs chunks in threads of this process (the kernels release the GIL)."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)
        self.pool = ThreadPoolExecutor(self.workers) if self.workers > 1 else None

    def share(self, obj: Any) -> Any:
        """Data every task reads (a tier of results): nothing to do in one process."""
        return obj

    def map(self, fn: Callable[..., Any], jobs: list[tuple[Any, ...]]) -> Iterator[Any]:
        """``fn(*job)`` for each job, yielded in order, with a bounded number in flight."""
        if self.pool is None:
            for job in jobs:
                yield fn(*job)
            return
        window = 2 * self.workers
        pending: list[Future[Any]] = []
        for job in jobs:
            pending.append(self.pool.submit(fn, *job))
            if len(pending) >= window:
                yield pending.pop(0).result()
        for f in pending:
            yield f.result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


# -- the tasks -------------------------------------------------------------------------------------

def child_codes(slot: np.ndarray, child: np.ndarray, tables: list[np.ndarray]) -> np.ndarray:
    """The stored code of each edge's child in another tier (0 for edges inside the tier)."""
    out = np.zeros(child.shape[0], np.uint16)
    for s, codes in enumerate(tables, start=1):
        engine.tier_kernels.gather_codes(slot, child, s, codes, out)
    return out


def scan_chunk(game: TierGame, tier: int, lo: int, hi: int, tables: list[np.ndarray],
               with_unmoves: bool) -> tuple[tuple[Any, ...], tuple[np.ndarray, np.ndarray] | None]:
    """Summary of numbers lo .. hi - 1 (see :func:`tier_kernels.summarise`); without un-moves,
    also the tier's internal edges (from the full lists of children)."""
    if with_unmoves and hasattr(game, "outside_children"):
        final, inside, start, slot, child = outside_moves(game, tier, lo, hi)
    else:
        final, start, slot, child = game.children(tier, lo, hi)
        inside = engine.tier_kernels.count_inside(start, slot)
    summary = engine.tier_kernels.summarise(final, inside, start, slot, child_codes(slot, child, tables))
    edges = None if with_unmoves else engine.tier_kernels.internal_edges(lo, start, slot, child)
    return summary, edges


def parents_chunk(game: TierGame, tier: int, numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The un-moves of a part of a front (numbers of any integer type: the game is given int64,
    widened here, on the task's thread or worker)."""
    return unmoves(game, tier, np.asarray(numbers, np.int64))


def check_chunk(game: TierGame, tier: int, lo: int, hi: int, own: np.ndarray,
                tables: list[np.ndarray]) -> tuple[int, int, int]:
    """Numbers lo .. hi - 1 of a stored tier checked against the moves (:func:`tier_kernels.check_chunk`)."""
    final, start, slot, child = game.children(tier, lo, hi)
    checked, bad, first = engine.tier_kernels.check_chunk(lo, final, start, slot, child, own,
                                                          child_codes(slot, child, tables))
    return int(checked), int(bad), int(first)
