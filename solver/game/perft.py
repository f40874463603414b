"""perft: the number of move sequences of a given length, as libataxx counts them.

A forced pass is one move; a finished game counts 1 at depth 0 and 0 deeper. The
count is compiled (:mod:`solver.engine.perft`, whose docstring says how it is fast);
this is its front end.
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np

from solver import engine
from solver.game.bitboards import board_arrays, mover_bits
from solver.game.board import Board
from solver.game.rules import Position

MAX_DEPTH = 64


def geometry(board: Board, jump3: bool) -> tuple[np.uint64, ...]:
    """The shifts that move square sets on ``board`` (squares ``rank * cols + file``): for the
    steps E, W, N, S, NE, NW, SE, SW and, under ``jump3``, three squares E, W, N, S, the mask
    of the squares that stay on the board (0 for the three-square steps otherwise), then the
    shift amounts cols, cols - 1, cols + 1 and 3 * cols. Kernels take it as a tuple of
    integers (scalars in registers, which made perft three times faster than arrays)."""
    steps = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1),
             (3, 0), (-3, 0), (0, 3), (0, -3)]
    masks = []
    for k, (df, dr) in enumerate(steps):
        mask = 0
        if k < 8 or jump3:
            for sq in range(board.size):
                f, r = board.file_of(sq) + df, board.rank_of(sq) + dr
                if 0 <= f < board.cols and 0 <= r < board.rows:
                    mask |= 1 << sq
        masks.append(mask)
    # A shift by 64 or more is undefined; it happens only with an empty mask (a step off a
    # board of one row), where any shift gives 0.
    amounts = [min(x, 63) for x in (board.cols, board.cols - 1, board.cols + 1, 3 * board.cols)]
    return tuple(np.uint64(x) for x in masks + amounts)


@overload
def perft(position: Position, depth: int, divide: Literal[False] = False, deadline: float | None = None) -> int: ...


@overload
def perft(position: Position, depth: int, divide: Literal[True], deadline: float | None = None
          ) -> tuple[int, list[tuple[str, int]]]: ...


def perft(position: Position, depth: int, divide: bool = False,
          deadline: float | None = None) -> int | tuple[int, list[tuple[str, int]]]:
    """The perft count of ``position`` to ``depth`` plies; with ``divide``, (total, a list of
    (move name, count) for each first move, in the order :meth:`Position.legal_moves` gives).
    Ctrl-C or ``deadline`` (a time.monotonic() value) stops it cleanly."""
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"perft depth must be between 0 and {MAX_DEPTH}, not {depth}")
    T = board_arrays(position.board, position.rules, symmetry=False)
    g = geometry(position.board, position.rules.jump3)
    rules = tuple(np.int64(x) for x in T.rules[:3])  # wipeout_ends, counter kind, limit: scalars

    def count(p: Position, d: int) -> int:
        m, t = mover_bits(p)
        run = engine.Run()
        n = run.call(engine.perft.perft_count, np.uint64(m), np.uint64(t), np.int64(p.counter), np.int64(d), T.playable, T.adj,
                     T.jmp, g, rules, run.abort, deadline=deadline)
        if n < 0:
            raise run.stopped(f"perft {depth} stopped")
        return int(n)

    if not divide:
        return count(position, depth)
    if depth == 0 or position.is_over():
        return count(position, depth), []
    rows = [(position.move_name(mv), count(position.play(mv), depth - 1)) for mv in position.legal_moves()]
    return sum(c for _, c in rows), rows
