"""Compare the tablebase of a board with the retro engine on every position of the board.

    python3 scripts/compare_tables.py 3x5            # about a minute and 1.5 GiB
    python3 scripts/compare_tables.py 4x4 --start    # positions reachable from the start only

Builds the tables in memory (single process), then lets the retro engine solve every
canonical position (or, with --start, every position reachable from the standard start
with either side to move) and compares value and depth position by position. Prints
one line; exit status 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout


def main(argv=None) -> int:
    from solver.engine.retro import RetroOracle
    from solver.rules import CLASSIC, Position, X
    from solver.tablebase import AtaxxGame, dense_index, decode, parse_board_name
    from solver.tiersolver import LocalExecutor, MemoryStore, TierSolver

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("board", help="ROWSxCOLS")
    p.add_argument("--blocks", help="blocked squares, e.g. b2,c2")
    p.add_argument("--start", action="store_true", help="only the positions reachable from the standard start")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args(argv)
    board = parse_board_name(args.board, args.blocks)
    index = dense_index(board)
    t = time.perf_counter()
    store = MemoryStore()
    TierSolver(AtaxxGame(board), store, executor=LocalExecutor(args.jobs)).solve()
    built = time.perf_counter() - t
    retro = RetroOracle(board, CLASSIC)
    t = time.perf_counter()
    if args.start:
        start = Position.start(board.rows, board.cols, CLASSIC)
        if board.blocks:
            start = Position(board, start.x, start.o, X, 0, CLASSIC)
        retro.prepare([start], both_sides=True)
        k1, k2 = retro.solutions[0][0], retro.solutions[0][1]
        mine, theirs = k1, k2
    else:
        mine, theirs = [], []
        for e in range(index.n + 1):
            for i in range(index.tier_size(e)):
                m, o, ok = index.position(e, i)
                if ok:
                    mine.append(m)
                    theirs.append(o)
        mine, theirs = np.array(mine, np.uint64), np.array(theirs, np.uint64)
        positions = [Position(board, int(m), int(o), X, 0, CLASSIC) for m, o in zip(mine, theirs)]
        retro.prepare(positions)
    k1, k2, _, value, depth, _ = retro.solutions[0]
    solved = time.perf_counter() - t
    tiers, numbers = index.numbers(k1, k2)
    bad = 0
    inf = 1 << 30
    for e in np.unique(tiers):
        sel = tiers == e
        for code, v, d in zip(store.load(int(e))[numbers[sel]].tolist(), value[sel].tolist(), depth[sel].tolist()):
            tv, td = decode(code)
            if tv != v or (td != d and not (d >= inf and td == float("inf"))):
                bad += 1
    what = "reachable from the start" if args.start else "in all"
    print(f"{args.board}: {k1.shape[0]:,} positions {what}; tables built in {built:.1f} s, retro solved them in "
          f"{solved:.1f} s; {bad:,} disagreements (value or depth)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
