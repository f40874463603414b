"""Building tables: what a build needs, said before it starts, and the build itself.

- :func:`plan_build` says what building a board into a directory will take (the tiers
  still to build, memory, disk, CPU) from the measured rates below, reading nothing but
  the names of the files; :class:`BuildPlan` is its answer.
- :func:`build` solves a board into a directory with the tier solver
  (:mod:`solver.tiers.solver`, Ataxx as its game: :mod:`solver.tables.game`), one file per
  tier written when the tier is done (:mod:`solver.tables.storage`), and the state of the tier
  under way saved beside them every ``checkpoint_seconds`` and when it is stopped
  (:mod:`solver.tiers.resume`), so an interrupted build resumes where it stopped, within its tier.
- :func:`executor_for` says where the tier solver's chunks run: threads of this process
  or a Dask cluster (:mod:`solver.tiers.cluster`; there each worker keeps and resolves a range of
  each tier, :mod:`solver.tiers.distributed`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from solver.game.board import Board
from solver.tables.game import AtaxxGame
from solver.tables.index import TableError, dense_index
from solver.tables.storage import DirectoryStore, board_name, resume_path, tier_path
from solver.tiers.allocator import give_back_freed_memory
from solver.tiers.cluster import DaskExecutor, cluster_for
from solver.tiers.distributed import RoutedTierSolver
from solver.tiers.executors import Executor, LocalExecutor
from solver.tiers.game import DEFAULT_CHUNK, Progress
from solver.tiers.solver import TierSolver

# -- building --------------------------------------------------------------------------------------

@dataclass
class BuildReport:
    """What :func:`build` did: the tiers built now and those already there, the positions
    solved now, the entries of the tiers asked for (the board's in all, without ``tiers``), the
    seconds taken and the bytes on disk of those tiers; ``resumed``: the tiers resumed from a
    checkpoint, each with where it was (:meth:`solver.tiers.resume.TierState.describe`)."""

    board: Board
    tiers_built: list[int]
    tiers_skipped: list[int]
    positions: int
    entries: int
    seconds: float
    bytes_on_disk: int
    resumed: dict[int, str] = field(default_factory=dict)


LOCAL_DISTRIBUTE_ABOVE = 1024
# a build with a tier of this many numbers or more to solve has freed memory go back to the system
# at once, from its start (:mod:`solver.tiers.allocator`; the setting is for the whole process, so the
# small tiers before pay its system time too): less memory at the peak (4.3 bytes a number instead
# of 4.7 to 5.4 on tier 4 of 4 x 5, before the writer's copy went)
LEAN_ABOVE = 1 << 24
CHECKPOINT_SECONDS = 600.0   # a tier's state saved at most every 10 minutes (and when stopped)


def build(board: Board, directory: str | Path, executor: Executor | None = None, progress: Progress | None = None,
          should_stop: Callable[[], bool] | None = None, chunk_size: int | None = None,
          tiers: list[int] | None = None, checkpoint_seconds: float = CHECKPOINT_SECONDS) -> BuildReport:
    """Solve every position of ``board`` (classic rules) into ``directory``, or those of
    ``tiers`` (numbers of empty squares, from 0: a tier needs the one below it, built now or
    there already), resuming after the tiers already there and, within a tier, from its
    checkpoint (``4x5-e07.resume``: saved every ``checkpoint_seconds`` and when ``should_stop()``
    stops the build, which then raises :class:`solver.tiers.resume.TierInterrupted`). Refuses a
    directory whose files for this board were not written by a compatible build (another format
    or numbering), and a checkpoint that is not one of its tier's."""

    directory = Path(directory)
    game = AtaxxGame(board)
    tiers = game.tiers() if tiers is None else sorted(tiers)
    store = DirectoryStore(directory, board, write_behind=True)  # a tier's file written while the next is solved
    try:
        return _build(game, directory, store, executor, progress, should_stop, chunk_size, tiers, checkpoint_seconds)
    finally:
        store.close()


def _build(game: AtaxxGame, directory: Path, store: DirectoryStore, executor: Executor | None,
           progress: Progress | None, should_stop: Callable[[], bool] | None, chunk_size: int | None,
           tiers: list[int], checkpoint_seconds: float) -> BuildReport:
    board = game.board
    lacking = [t - 1 for t in tiers if t > 0 and t - 1 not in tiers and not store.has(t - 1)]
    if lacking:
        raise TableError(f"{directory} lacks tier {lacking[0]} of {board_name(board)}, which tier {lacking[0] + 1} "
                         f"is solved from: build it too")
    checkpoints = store.checkpoints()
    for t in tiers:   # (a checkpoint of another board or build refused before any work, not hours into it)
        if not store.path(t).exists():
            checkpoints.check(t)
    directory.mkdir(parents=True, exist_ok=True)
    lean = any(game.tier_size(t) >= LEAN_ABOVE for t in tiers if not store.has(t))
    if lean:
        give_back_freed_memory()
    # on a cluster, each worker keeps, scans and resolves a range of each tier (the routed
    # resolution: no checkpoint within a tier there); in threads, a front's un-moves are worth
    # sharing out from 1,024 positions on (about 0.6 ms of work)
    solver: TierSolver
    if isinstance(executor, DaskExecutor):
        solver = RoutedTierSolver(game, store, executor, chunk_size=chunk_size or DEFAULT_CHUNK,
                                  progress=progress, should_stop=should_stop)
        if lean:   # (the workers hold the tier's ranges)
            solver.give_back_freed_memory()
    else:
        solver = TierSolver(game, store, executor=executor, chunk_size=chunk_size or DEFAULT_CHUNK,
                            progress=progress, should_stop=should_stop, checkpoints=checkpoints,
                            checkpoint_seconds=checkpoint_seconds)
    if executor is None or isinstance(executor, LocalExecutor):
        solver.distribute_above = LOCAL_DISTRIBUTE_ABOVE
    report = solver.solve(tiers)
    store.flush()
    if isinstance(solver, RoutedTierSolver):   # (a checkpoint left by a build in one process: its tier is written)
        for done in report.tiers:
            checkpoints.discard(done.tier)
    disk = sum(store.path(t).stat().st_size for t in tiers)
    return BuildReport(board, [t.tier for t in report.tiers], report.skipped, report.positions,
                       sum(store.index.tier_size(t) for t in tiers),
                       report.seconds, disk, {t.tier: t.resumed for t in report.tiers if t.resumed})


# -- what a build needs ----------------------------------------------------------------------------

# Measured (README, "Tablebases"): a tier's working set takes 3 bytes per number (the codes and
# a one-byte counter) and, with the events, fronts and un-moves of a step, peaked at 3.31 bytes a
# number on tier 4 of 4 x 5 (82.6 million numbers; 4.66 before freed memory went back to the
# system at once, :data:`LEAN_ABOVE`, and the file writer stopped copying the tier),
# beside its child tier's codes (2 bytes a number); the process itself (Python, numba, the index) about 300 MiB (a 4 x 4 build peaks at
# 244 to 262 MiB); on disk 0.26 bytes per entry (4 x 4; 0.18 on 4 x 5); CPU per number 1.06 us on
# 4 x 4 (one thread), 2.0 us on the large tiers of 4 x 5, and about 2.7 us expected on 5 x 5
# (1.4 times the moves of 4 x 5; tier 1 of 5 x 5 took 0.98 us a number).
WORKING_BYTES = 4
BASE_BYTES = 300 << 20
DISK_BYTES_PER_ENTRY = 0.26
# A tier's checkpoint (solver/tiers/resume.py) holds 3 bytes a number (codes and counters) and a front
# of settled positions at 4 bytes each: at most a quarter of the tier in the fronts measured (4 x 4:
# 0.04 to 0.21 of a tier's numbers, up to 0.32 in tiers of fewer than 30,000), so 4 bytes a number;
# twice that while a tier is built, as the next checkpoint is written beside the last before it
# replaces it.
CHECKPOINT_BYTES = 4


def cpu_per_number(entries: int) -> float:
    """Seconds of CPU per number of a board with ``entries`` numbers in all (the measured rates)."""
    return 1.06e-6 if entries <= 10 ** 8 else 2.0e-6 if entries <= 10 ** 10 else 2.7e-6


@dataclass
class BuildPlan:
    """What building ``board`` into a directory needs: the tiers still to build, their entries,
    the memory of the largest step (``worst_tier``), the disk (the tables, and ``checkpoint_disk``
    of it for the checkpoints of the largest tier while it is built) and the CPU seconds (from
    :data:`WORKING_BYTES`, :data:`DISK_BYTES_PER_ENTRY`, :data:`CHECKPOINT_BYTES` and
    :func:`cpu_per_number`); ``resume``: the tiers with a checkpoint to resume from."""

    board: Board
    tiers: list[int]
    entries: int
    memory: int
    worst_tier: int | None
    disk: int
    cpu_seconds: float
    checkpoint_disk: int = 0
    resume: list[int] = field(default_factory=list)

    def describe(self) -> str:
        if not self.tiers:
            return f"{board_name(self.board)}: every tier is already built"
        resume = "".join(f"; tier {t} resumes from its checkpoint" for t in self.resume)
        split = (f" ({bytes_text(self.disk - self.checkpoint_disk)} of tables, {bytes_text(self.checkpoint_disk)} of "
                 "checkpoints while a tier is built)" if self.checkpoint_disk else "")
        return (f"{board_name(self.board)}: {len(self.tiers)} tier{'s' if len(self.tiers) != 1 else ''} to build, {self.entries:,} entries; needs about "
                f"{bytes_text(self.memory)} of memory (tier {self.worst_tier}), {bytes_text(self.disk)} of disk{split} and "
                f"{seconds_text(self.cpu_seconds)} of CPU ({self.cpu_seconds / self.entries * 1e6:.2f} us a number)"
                f"{resume}")


def bytes_text(n: float) -> str:
    """``1.5 GiB``, ``12.0 MiB``, ``512 bytes``."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{int(n)} bytes"


def seconds_text(t: float) -> str:
    """``92.4 hours``, ``3.5 minutes``, ``0.2 s``."""
    return f"{t / 3600:,.1f} hours" if t >= 3600 else f"{t / 60:.1f} minutes" if t >= 60 else f"{t:.1f} s"


def plan_build(board: Board, directory: str | Path, tiers: list[int] | None = None,
               checkpoints: bool = True) -> BuildPlan:
    """What :func:`build` of ``board`` (or of its ``tiers``) into ``directory`` will need (the
    tiers whose files are there are not built again; ``checkpoints`` False: a build on a
    cluster, which neither writes nor resumes from checkpoints). Reads nothing but the names of
    the files."""
    index = dense_index(board)
    tiers = [t for t in (range(index.n + 1) if tiers is None else sorted(tiers))
             if not tier_path(Path(directory), board, t).exists()]
    entries = sum(index.tier_size(t) for t in tiers)
    need = {t: BASE_BYTES + WORKING_BYTES * index.tier_size(t) + (2 * index.tier_size(t - 1) if t else 0)
            for t in tiers}
    worst = max(need, key=lambda t: need[t]) if need else None
    saves = 2 * CHECKPOINT_BYTES * max((index.tier_size(t) for t in tiers), default=0) if checkpoints else 0
    return BuildPlan(board, tiers, entries, need[worst] if worst is not None else 0, worst,
                     int(entries * DISK_BYTES_PER_ENTRY) + saves, entries * cpu_per_number(index.size),
                     saves, [t for t in tiers if checkpoints and resume_path(Path(directory), board, t).exists()])


# -- where it runs ---------------------------------------------------------------------------------

@contextlib.contextmanager
def executor_for(jobs: int = 1, cluster: str | None = None) -> Iterator[Executor]:
    """Where the tier solver's chunks run, as a context manager: ``jobs`` threads of this
    process, or a Dask cluster (``local:N`` or a scheduler address, :func:`solver.tiers.cluster.cluster_for`;
    raises :class:`solver.tiers.cluster.ClusterError` when it cannot start). Closed on exit."""
    context: contextlib.AbstractContextManager[Executor] = (
        cluster_for(cluster) if cluster else contextlib.nullcontext(LocalExecutor(jobs)))
    with context as executor:
        try:
            yield executor
        finally:
            executor.close()
