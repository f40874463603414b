"""Every kernel compiled once, together: ``ataxx-solve compile``, and the first run of any command.

numba compiles a kernel the first time it is called and keeps it in its on-disk cache. Left to
itself, each path compiled its own kernels on its first use, each with a notice: a newcomer's
first solve, first ``--rules uai`` solve, first perft and first ``tables build`` each waited
(measured with numba's compile events, each path in an empty cache, CPU seconds at load 4: the
retro solve 28 s, of which the options' closure 11 s and the enumeration 8 s; ``--rules uai`` 40 s,
the counters' tier solver 17 s of it; the search 49 s, its alpha-beta test 31 s and its proof-number
test 10 s; ``tables build`` 25 s; perft 8 s; every kernel once, 120 s). Each kernel has one
signature (no specialisation is compiled twice): the time is numba typing and lowering big
functions and LLVM compiling them, not a number of variants.

So the command compiles every kernel the first time it needs one, together, after one notice
and under one progress bar, spread over the machine's processors (one process per group of
kernels, :data:`TASKS`, each a tiny run of a path, so that each kernel is compiled with the
argument types real runs give it); afterwards no command compiles. A marker per version of the
kernels (:func:`solver.engine.kernel_fingerprint`) says it was done. A library user may call
:func:`compile_kernels` the same way, or let each kernel compile when first used (with the
engine's notice).

Not compiled here: the kernels a Dask cluster's workers run for a routed tier build
(:mod:`solver.engine.tier_route`): the workers compile them, on their machines.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context

from solver import engine

LOGGER = logging.getLogger("solver")
NOTICE = ("compiling the solver's kernels, once for every command (a minute or two on two cores; later runs, "
          "and every other command, load them from the cache)")


def _retro_classic() -> None:
    from solver.game.rules import CLASSIC
    from solver.solve.solver import warm_up
    warm_up("retro", CLASSIC)


def _retro_counter() -> None:
    from solver.game.rules import UAI
    from solver.solve.solver import warm_up
    warm_up("retro", UAI)


def _search() -> None:
    from solver.game.rules import CLASSIC, UAI
    from solver.solve.solver import Solver, warm_up
    warm_up("search", CLASSIC)
    warm_up("search", UAI)
    Solver(algorithm="search", threads=1).solve("x.o\n...", certify=True)  # a certificate's strategies


def _perft() -> None:
    from solver.game.perft import perft
    from solver.game.rules import CLASSIC, UAI, Position
    for rules in (CLASSIC, UAI):
        perft(Position.start(3, 3, rules), 2)


def _tiers() -> None:
    from solver.game.board import Board
    from solver.game.rules import Position
    from solver.tables.build import build
    from solver.tables.checks import check_tables
    from solver.tables.game import AtaxxGame
    from solver.tables.probe import Tablebase
    from solver.tiers import solver as tier_solver
    from solver.tiers.store import MemoryStore

    board = Board(2, 3)
    # the steps of large tiers (windows of events, sorted fronts in parts, threads) and of the
    # un-move-less parents (an executor's count of a chunk's inside edges), on a small board
    tier_solver.SMALL_TIER, small = 0, tier_solver.SMALL_TIER  # (this worker process only)
    try:
        tier_solver.TierSolver(AtaxxGame(board), MemoryStore(), window_events=1, apply_threads=2, parallel_above=0,
                               unmove_part=1).solve()
    finally:
        tier_solver.SMALL_TIER = small
    TierSolver = tier_solver.TierSolver
    TierSolver(AtaxxGame(board), MemoryStore(), use_unmoves=False, distribute_above=0).solve()
    with tempfile.TemporaryDirectory(prefix="ataxx-compile-") as d:
        build(board, d)
        check_tables(board, d)
        tb = Tablebase(d)
        p = Position.start(2, 3)
        tb.probe_many([p])
        tb.answers([p])


def _with_tables() -> None:
    """What uses the tables with another engine (after both are compiled)."""
    from solver.game.board import Board
    from solver.solve.solver import Solver
    from solver.tables.build import build
    from solver.tables.checks import compare_with_retro, compare_with_search
    from solver.tables.probe import Tablebase

    board = Board(2, 3)
    with tempfile.TemporaryDirectory(prefix="ataxx-compile-") as d:
        build(board, d)
        tb = Tablebase(d)
        compare_with_retro(tb, board)
        compare_with_search(tb, board, 4, (1, 2), 13)
        Solver(algorithm="search", tables=tb, threads=1).solve("x.o\n.o.")  # the search probing the tables


def _last_plies() -> None:
    """The last plies' exact solvers (:mod:`solver.engine.lastplies`), called directly: whichever
    search kernel calls them, they are compiled with the argument types their callers give."""
    import numpy as np

    from solver.game.bitboards import board_arrays, mover_bits
    from solver.game.rules import CLASSIC, Position

    p = Position.from_fen("xo1/1ox")
    T = board_arrays(p.board, CLASSIC, symmetry=False)
    m, t = (np.uint64(b) for b in mover_bits(p))
    c = np.int64(p.counter)
    lp = engine.lastplies
    lp.last_test(m, t, c, np.int64(-1), np.int64(1), np.int64(12), T.playable, T.adj, T.jmp, T.reach, T.rules,
                 np.zeros(lp.NLCOUNT, np.int64))
    lp.static_bounds(m, t, c, T.playable, T.adj, T.reach, T.rules)
    lp.odd_regions(np.uint64(p.empty), T.adj)
    lp.captures(m, t, np.int64(2), T.adj)


def _fen_lines() -> None:
    from solver.io.fenlines import read_fen_lines
    with tempfile.TemporaryDirectory(prefix="ataxx-compile-") as d:
        path = os.path.join(d, "fens.txt")
        with open(path, "w") as f:
            f.write("x5o/7/7/7/7/7/o5x x 0 1\n" * 64)
        read_fen_lines(path)


# The groups of kernels, each compiled by a tiny run of its path, with their CPU seconds measured
# in an empty cache (the bar advances by them). A phase runs in parallel; the groups of a later
# phase use kernels of an earlier one (loaded from the cache, not compiled twice at once).
TASKS: dict[str, tuple[Callable[[], None], float]] = {
    "search": (_search, 45.0),
    "retro": (_retro_classic, 27.0),
    "tiers": (_tiers, 22.0),
    "perft": (_perft, 7.0),
    "fen lines": (_fen_lines, 2.0),
    "last plies": (_last_plies, 5.0),
    "counters": (_retro_counter, 17.0),
    "with tables": (_with_tables, 3.0),
}
PHASES = (("search", "retro", "tiers", "perft", "fen lines", "last plies"), ("counters", "with tables"))


def _run_task(name: str) -> tuple[str, float]:
    """In a worker process: one group compiled (into the on-disk cache); its CPU seconds."""
    logging.getLogger("solver").setLevel(logging.ERROR)  # (the engine's own notice: this module says it)
    start = time.process_time()
    TASKS[name][0]()
    return name, time.process_time() - start


def is_compiled() -> bool:
    """Whether every kernel of this version was compiled (and is in the cache) already."""
    return engine.all_compiled()


def compile_kernels(progress: Callable[[float, float, str], None] | None = None, processes: int | None = None,
                    force: bool = False) -> bool:
    """Compile every kernel (into numba's on-disk cache), :data:`TASKS` spread over ``processes``
    worker processes (default: the processors, at most as many as tasks); ``progress(done, total,
    task)`` after each task, in the expected CPU seconds. False when it was done already (and not
    ``force``): nothing then runs. The caller says so first (the command logs :data:`NOTICE`)."""
    if is_compiled() and not force:
        return False
    engine.drop_stale_kernels()  # before the workers start: none of them deletes another's work
    total = sum(cost for _, cost in TASKS.values())
    done = 0.0
    workers = max(1, min(processes or engine.processors(), max(len(phase) for phase in PHASES)))
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        for phase in PHASES:
            futures = [pool.submit(_run_task, name) for name in phase]
            for future in as_completed(futures):
                name, _ = future.result()  # a task's error is raised here: a bug, said by the command
                done += TASKS[name][1]
                if progress is not None:
                    progress(done, total, name)
    engine.record_all_compiled()
    return True


def ensure_compiled(draw: bool) -> None:
    """The command's first use of a kernel: :func:`compile_kernels` unless done, after one notice
    (logged), under one progress bar on a terminal (``draw``)."""
    if is_compiled():
        return
    LOGGER.warning(NOTICE)
    bar = None
    if draw:
        from tqdm import tqdm  # start-up: tqdm loads only when a bar is drawn

        bar = tqdm(desc="compiling", total=100, unit="%", leave=False, dynamic_ncols=True,
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} {postfix}")

    def advance(done: float, total: float, name: str) -> None:
        if bar is not None:
            bar.n = round(100 * done / total)
            bar.set_postfix_str(f"{name} done", refresh=True)

    start = time.perf_counter()
    try:
        compile_kernels(advance)
    finally:
        if bar is not None:
            bar.close()
    LOGGER.warning(f"compiled in {time.perf_counter() - start:.0f} s")
