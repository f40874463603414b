"""A scripted program of the minimax assignment, for the tests of
`ataxx-solve verify --engine 'colon:CMD'`.

    python fake_colon.py MODE

It reads a board as a colon grid on standard input (`1:0:0:0:0:0:2:` a row, top row first; 0
empty, 1 its own pieces, 2 the opponent's, # a block; up to a blank line or the end of the
input), plays 1, and writes its move as `x0:y0:x1:y1:` (x the column from the left, y the row
from the top, from 0) and then the board after the move, as the assignment asks.

MODE: first (the first legal move), last (the last one), good (the solver's best move: small
boards only), illegal (onto an occupied square), offboard (to a square off the board), garbage
(no move line), two (two different move lines), hang (never answers), crash (exits with status
3 without a word), late-crash (writes a good move, then exits with status 3).
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from solver.solve.analysis import Analyzer  # noqa: E402
from solver.io.formats import parse_colon, write_colon  # noqa: E402
from solver.oracles.reference import ReferenceOracle  # noqa: E402
from solver.game.rules import X, Position  # noqa: E402


def main() -> None:
    mode = sys.argv[1]
    rows = []
    for line in sys.stdin:
        if not line.strip():
            break
        rows.append(line.rstrip("\n"))
    if mode == "hang":
        while True:
            time.sleep(1)
    if mode == "crash":
        sys.exit(3)
    board, x, o = parse_colon(list(enumerate(rows, 1)))
    p = Position(board, x, o, X)

    def coords(sq: int) -> str:
        return f"{board.file_of(sq)}:{board.rows - 1 - board.rank_of(sq)}:"

    legal = p.legal_moves()
    if mode == "garbage":
        print("thinking... the best move is the one in the middle")
        return
    if mode == "offboard":
        print(f"0:0:{board.cols}:0:")
        return
    if mode == "illegal":
        mine, theirs = (x & -x).bit_length() - 1, (o & -o).bit_length() - 1
        print(coords(mine) + coords(theirs))
        return
    if mode in ("good", "late-crash"):
        move = Analyzer(ReferenceOracle()).moves(p)[0].move
    else:
        move = legal[-1] if mode == "last" else legal[0]
    if move.is_clone:
        frm = next(sq for sq in range(board.rows * board.cols)
                   if x >> sq & 1 and board.neighbours[move.to] >> sq & 1)
    else:
        frm = move.frm
    print(coords(frm) + coords(move.to))
    if mode == "two":
        print(coords(move.to) + coords(frm))
    print(write_colon(p.push(move)))
    sys.stdout.flush()
    if mode == "late-crash":
        sys.exit(3)


if __name__ == "__main__":
    main()
