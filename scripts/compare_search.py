"""Compare a tablebase with the search engine on random positions with few empty squares.

    python3 scripts/compare_search.py --dir tables/ 4x5 --count 2000 --empty 1-4

Draws random positions of the board (each square X or O, then EMPTY squares emptied,
either side to move, games already over skipped), asks the tables and the search
engine (solver/engine/search.py) for the value for the side to move and compares.
Prints one line; exit status 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run from a checkout


def main(argv=None) -> int:
    from solver.engine.search import SearchOracle
    from solver.rules import CLASSIC, O, X, Position
    from solver.tablebase import Tablebase, parse_board_name

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("board", help="ROWSxCOLS")
    p.add_argument("--dir", required=True)
    p.add_argument("--blocks")
    p.add_argument("--count", type=int, default=2000)
    p.add_argument("--empty", default="1-4", help="range of empty squares, e.g. 1-4")
    p.add_argument("--seed", type=int, default=13)
    args = p.parse_args(argv)
    board = parse_board_name(args.board, args.blocks)
    lo, _, hi = args.empty.partition("-")
    lo, hi = int(lo), int(hi or lo)
    rng = random.Random(args.seed)
    squares = [sq for sq in range(board.size) if not board.is_block(sq)]
    positions = []
    while len(positions) < args.count:
        empty = set(rng.sample(squares, rng.randint(lo, hi)))
        x = o = 0
        for sq in squares:
            if sq not in empty:
                if rng.random() < 0.5:
                    x |= 1 << sq
                else:
                    o |= 1 << sq
        q = Position(board, x, o, rng.choice((X, O)), 0, CLASSIC)
        if not q.is_over():
            positions.append(q)
    tb = Tablebase(args.dir)
    t = time.perf_counter()
    tables = [v for v, _ in tb.probe_many(positions)]
    probe_s = time.perf_counter() - t
    search = SearchOracle(board, CLASSIC)
    t = time.perf_counter()
    found = []
    for k, q in enumerate(positions, start=1):
        found.append(search.value(q))
        if k % 100 == 0:
            print(f"  {k} searched, {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    search_s = time.perf_counter() - t
    bad = [q for q, a, b in zip(positions, tables, found) if a != b]
    print(f"{args.board}: {len(positions)} random positions with {lo} to {hi} empty squares; tables in {probe_s:.2f} s, "
          f"search in {search_s:.1f} s; {len(bad)} disagreements" + (f" (first: {bad[0]!r})" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
