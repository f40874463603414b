"""Checking tables: against the engines, against the moves, and what a directory holds.

- :func:`compare_with_retro` and :func:`compare_with_search` check a directory's tables
  against the engines (``ataxx-solve tables compare``): every position against the retro
  engine, or random positions with few empty squares (:func:`random_positions`) against
  the search; :class:`Comparison` is their answer.
- :func:`check_tables` checks the stored tiers against the moves (the tier solver's
  :func:`solver.tiers.check.verify`: each value is the best over its children's, each
  depth one more than its preferred child's) (``ataxx-solve tables check``).
- :func:`contents` says what a directory holds, board by board (``ataxx-solve tables info``).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from solver.game.board import Board
from solver.game.rules import CLASSIC, O, Position, X
from solver.oracles.retro import RetroOracle
from solver.oracles.search import SearchOracle
from solver.tables.game import AtaxxGame
from solver.tables.index import TableError, dense_index
from solver.tables.probe import Tablebase, decode_many, infinite_depth
from solver.tables.storage import DirectoryStore, board_name
from solver.tiers.check import CheckReport, verify
from solver.tiers.executors import Executor
from solver.tiers.game import Progress

# -- against the engines ---------------------------------------------------------------------------

@dataclass
class Comparison:
    """Tables against an engine: positions compared, how many disagree (value, or value and
    depth), the first that does, and the seconds taken."""

    against: str
    positions: int
    disagreements: int
    first: Position | None
    seconds: float


def compare_with_retro(tablebase: Tablebase, board: Board, start: bool = False) -> Comparison:
    """Every position of ``board`` (or, with ``start``, every position reachable from the
    standard start with either side to move): the value and depth the tables store against the
    retro engine's (:mod:`solver.engine.retro`)."""

    t0 = time.perf_counter()
    retro = RetroOracle(board, CLASSIC)
    if start:
        x, o = Position.start(board.rows, board.cols).x, Position.start(board.rows, board.cols).o
        root = Position(board, x & board.playable, o & board.playable, X, 0, CLASSIC)
        retro.prepare([root, root.replace(turn=O)])
        mine, theirs = retro.k1[:retro.n].copy(), retro.k2[:retro.n].copy()
    else:
        index = dense_index(board)
        found = [index.position(e, i) for e in range(index.n + 1) for i in range(index.tier_size(e))]
        mine = np.array([m for m, _, ok in found if ok], np.uint64)
        theirs = np.array([t for _, t, ok in found if ok], np.uint64)
    counters = np.zeros(mine.shape[0], np.int64)
    value, depth = retro.values(mine, theirs, counters)
    stored_value, stored_depth = decode_many(tablebase.probe_codes(board, mine, theirs))
    infinite = depth >= 1 << 30  # the retro engine's depth of a draw by infinite play
    bad = (stored_value != value) | np.where(infinite, stored_depth != infinite_depth(), stored_depth != depth)
    first = None
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        first = Position(board, int(mine[j]), int(theirs[j]), X, 0, CLASSIC)
    return Comparison("retro", int(mine.shape[0]), int(bad.sum()), first, time.perf_counter() - t0)


def random_positions(board: Board, count: int, empty: tuple[int, int], seed: int) -> list[Position]:
    """``count`` random positions of ``board`` that are not over: each playable square X or O,
    then ``empty[0]`` to ``empty[1]`` of them emptied, either side to move (seeded)."""
    rng = random.Random(seed)
    squares = [sq for sq in range(board.size) if not board.is_block(sq)]
    out: list[Position] = []
    while len(out) < count:
        emptied = set(rng.sample(squares, rng.randint(*empty)))
        x = o = 0
        for sq in squares:
            if sq not in emptied:
                if rng.random() < 0.5:
                    x |= 1 << sq
                else:
                    o |= 1 << sq
        q = Position(board, x, o, rng.choice((X, O)), 0, CLASSIC)
        if not q.is_over():
            out.append(q)
    return out


def compare_with_search(tablebase: Tablebase, board: Board, count: int = 2000, empty: tuple[int, int] = (1, 4),
                        seed: int = 13, progress: Callable[[int], None] | None = None) -> Comparison:
    """Random positions of ``board`` with few empty squares (:func:`random_positions`): the
    value the tables store against the search engine's (:mod:`solver.engine.search`).
    ``progress(k)`` after each position searched."""

    t0 = time.perf_counter()
    positions = random_positions(board, count, empty, seed)
    stored = [v for v, _ in tablebase.probe_many(positions)]
    search = SearchOracle(board, CLASSIC)
    first, bad = None, 0
    for k, (q, v) in enumerate(zip(positions, stored), start=1):
        if search.value(q) != v:
            bad += 1
            first = first or q
        if progress is not None:
            progress(k)
    return Comparison("search", len(positions), bad, first, time.perf_counter() - t0)



# -- against the moves, and what a directory holds -------------------------------------------------

def check_tables(board: Board, directory: str | Path, executor: Executor | None = None,
                 progress: Progress | None = None, tiers: list[int] | None = None) -> CheckReport:
    """Check the stored tiers of ``board`` in ``directory`` (all, or ``tiers``) against the moves
    (:func:`solver.tiers.check.verify`). Raises :class:`TableError` when a tier to check, or a
    child tier it needs, is missing or damaged."""
    store = DirectoryStore(Path(directory), board)
    game = AtaxxGame(board)
    tiers = game.tiers() if tiers is None else tiers
    needed = sorted(set(tiers) | {c for t in tiers for c in game.child_tiers(t)})
    missing = [t for t in needed if not store.has(t)]
    if missing:
        raise TableError(f"{directory} lacks tiers {', '.join(map(str, missing))} of {board_name(board)}")
    return verify(game, store, executor=executor, progress=progress, tiers=tiers)


@dataclass
class BoardTables:
    """What a directory holds for one board: its tiers, their entries and bytes on disk."""

    board: Board
    tiers: list[int]
    entries: int
    bytes_on_disk: int


def contents(tablebase: Tablebase) -> list[BoardTables]:
    """The boards of a directory's tables (by rows, columns and blocks)."""
    out = []
    for key, board in sorted(tablebase.boards.items()):
        files = sorted((k[3], f) for k, f in tablebase.files.items() if k[:3] == key)
        out.append(BoardTables(board, [t for t, _ in files], sum(f.entries for _, f in files),
                               sum(f.path.stat().st_size for _, f in files)))
    return out
