"""Running the tier solver on a Dask cluster (the optional ``cluster`` extra).

Why Dask rather than Ray: the solver's work is plain functions over numpy arrays
(a chunk of a tier in, a summary out), which is what ``Client.submit`` and
``Client.scatter`` do with no actors or object store to manage; Dask installs from
PyPI as pure Python (no large binary wheels), starts a :class:`LocalCluster` in a
second or two (so the test suite can run a real two-worker cluster), and a
multi-node cluster is one ``dask scheduler`` plus one ``dask worker ADDRESS`` per
node. Ray would do as well but weighs far more to install and start.

What runs where: a table build on a cluster (:func:`solver.tables.build.build`) uses
:class:`solver.tiers.distributed.RoutedTierSolver`: each worker owns a range of the tier, keeps its
state, scans and resolves it, and sends the un-moves of the positions it settles to the
owners of their parents; the driver only coordinates and writes the files. With
:class:`solver.tiers.solver.TierSolver` (the API) the driver owns the tier being solved and
each worker scans chunks of it against the child tier (shipped once per tier with
``scatter``) and computes the un-moves of chunks of each frontier. The game object travels
as its board; each worker builds the index once.

Dask is imported only here, and only when a cluster is asked for.
"""

from __future__ import annotations

import logging
import os
from types import ModuleType
from typing import Any, Callable, Iterable, Iterator, Literal, TypeVar

LOGGER = logging.getLogger(__name__)

T = TypeVar("T")


class ClusterError(RuntimeError):
    """Dask is missing or the cluster cannot be reached."""


def _dask() -> ModuleType:
    try:
        import distributed  # optional (pip install .[cluster]): imported only when a cluster is used
    except ImportError:
        raise ClusterError("the cluster needs Dask: pip install 'ataxx-solver[cluster]' "
                           "(or: pip install 'dask[distributed]')") from None
    return distributed


class DaskExecutor:
    """The tier solver's executor on a Dask client: ``map`` keeps a bounded number of tasks in
    flight and yields results in order; ``share`` scatters data to every worker once."""

    def __init__(self, client: Any, in_flight_per_worker: int = 2) -> None:
        self.client = client
        self.workers = max(1, len(client.nthreads()))  # (not scheduler_info(): see RoutedTierSolver.workers_now)
        self.window = in_flight_per_worker * self.workers

    def share(self, obj: Any) -> Any:
        if isinstance(obj, list):
            return [self.client.scatter(x, broadcast=True) for x in obj]
        return self.client.scatter(obj, broadcast=True)

    def map(self, fn: Callable[..., T], jobs: Iterable[tuple[Any, ...]]) -> Iterator[T]:
        pending: list[Any] = []  # futures
        for job in jobs:
            pending.append(self.client.submit(fn, *job, pure=False))
            if len(pending) >= self.window:
                yield pending.pop(0).result()
        for f in pending:
            yield f.result()

    def close(self) -> None:
        pass


class LocalDaskCluster:
    """A Dask cluster of ``workers`` processes on this machine (a context manager), with its
    executor: ``with LocalDaskCluster(2) as ex: TierSolver(game, store, executor=ex)``."""

    def __init__(self, workers: int = 2, threads_per_worker: int = 1, memory_limit: str | int = "auto") -> None:
        self.args = dict(n_workers=workers, threads_per_worker=threads_per_worker, memory_limit=memory_limit,
                         processes=True, dashboard_address=None)
        self.cluster: Any = None  # distributed.LocalCluster
        self.client: Any = None   # distributed.Client
        self._environ: dict[str, str] | None = None  # this process's environment before the cluster

    def __enter__(self) -> DaskExecutor:
        distributed = _dask()
        # Dask's nannies set variables for their workers (MALLOC_TRIM_THRESHOLD_, OMP_NUM_THREADS,
        # ...) in this process's environment: put back as they were when the cluster closes
        self._environ = dict(os.environ)
        self.cluster = distributed.LocalCluster(**self.args)
        self.client = distributed.Client(self.cluster)
        return DaskExecutor(self.client)

    def __exit__(self, *exc: object) -> Literal[False]:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        if self._environ is not None:
            os.environ.clear()
            os.environ.update(self._environ)
            self._environ = None
        return False


class RemoteDaskCluster:
    """An existing Dask scheduler (``tcp://host:8786``), as a context manager giving an executor."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.client: Any = None  # distributed.Client

    def __enter__(self) -> DaskExecutor:
        distributed = _dask()
        try:
            self.client = distributed.Client(self.address, timeout=30)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {self.address}: {exc}") from None
        return DaskExecutor(self.client)

    def __exit__(self, *exc: object) -> Literal[False]:
        if self.client is not None:
            self.client.close()
        return False


def cluster_for(spec: str) -> LocalDaskCluster | RemoteDaskCluster:
    """``local:N`` (N worker processes here) or a scheduler address."""
    if spec.startswith("local:"):
        try:
            n = int(spec[len("local:"):])
        except ValueError:
            raise ClusterError(f"{spec!r}: write local:N with N the number of workers") from None
        if n < 1:
            raise ClusterError(f"{spec!r}: at least one worker")
        return LocalDaskCluster(n)
    return RemoteDaskCluster(spec)
