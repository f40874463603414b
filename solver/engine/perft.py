"""perft: the number of move sequences of a given length, as libataxx counts them.

A forced pass is one move; a finished game counts 1 at depth 0 and 0 deeper. The
last ply is counted without being played: at a node one ply from the end the
count is the number of clone destinations plus the number of (origin, destination)
jumps, or 1 for a forced pass. Any board and rule set; the field's numbers are for
the ``uai`` rules (game over on a wipe-out and at halfmove clock 100).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import lowest_square, popcount
from .kernels import game_status, gen_moves, next_counter, play

MAX_DEPTH = 64
MAX_MOVES = 64 * 25  # jump3: up to 12 jump origins per empty square, plus the clone


@njit(cache=True)
def _count_last_ply(mine, theirs, counter, playable, adj, jmp, reach, rules):
    over, _ = game_status(mine, theirs, counter, playable, reach, rules)
    if over:
        return np.int64(0)
    empty = playable & ~(mine | theirs)
    grown = np.uint64(0)
    jumps = np.int64(0)
    m = mine
    while m:
        sq = lowest_square(m)
        grown |= adj[sq]
        jumps += popcount(jmp[sq] & empty)
        m &= m - np.uint64(1)
    n = np.int64(popcount(grown & empty)) + jumps
    return n if n > 0 else np.int64(1)


@njit(cache=True, nogil=True)
def perft_count(mine, theirs, counter, depth, playable, adj, jmp, reach, rules, abort):
    """Leaves of the move tree of ``depth`` plies from the mover's position (-1 if ``abort[0]`` was set)."""
    if depth == 0:
        return np.int64(1)
    if depth == 1:
        return _count_last_ply(mine, theirs, counter, playable, adj, jmp, reach, rules)
    over, _ = game_status(mine, theirs, counter, playable, reach, rules)
    if over:
        return np.int64(0)
    # Explicit stack: frame p holds the node p plies below the root and its move list.
    ms = np.zeros(depth, np.uint64)
    ts = np.zeros(depth, np.uint64)
    cs = np.zeros(depth, np.int64)
    moves = np.empty((depth, MAX_MOVES), np.int64)
    nmoves = np.zeros(depth, np.int64)
    nexti = np.zeros(depth, np.int64)
    ms[0], ts[0], cs[0] = mine, theirs, counter
    n = gen_moves(mine, theirs, playable, adj, jmp, moves[0])
    if n == 0:
        moves[0, 0] = -1
        n = 1
    nmoves[0] = n
    total = np.int64(0)
    p = 0
    while p >= 0:
        if nexti[p] >= nmoves[p]:
            p -= 1
            continue
        code = moves[p, nexti[p]]
        nexti[p] += 1
        cm, ct = play(ms[p], ts[p], code, adj)
        cc = next_counter(cs[p], code, rules)
        left = depth - p - 1  # plies below the child
        if left == 1:
            total += _count_last_ply(cm, ct, cc, playable, adj, jmp, reach, rules)
            continue
        over, _ = game_status(cm, ct, cc, playable, reach, rules)
        if over:
            continue
        if abort[0] != 0:
            return np.int64(-1)
        q = p + 1
        ms[q], ts[q], cs[q] = cm, ct, cc
        n = gen_moves(cm, ct, playable, adj, jmp, moves[q])
        if n == 0:
            moves[q, 0] = -1
            n = 1
        nmoves[q] = n
        nexti[q] = 0
        p = q
    return total


def perft(position, depth: int, divide: bool = False, deadline: float | None = None):
    """The perft count of ``position`` to ``depth`` plies; with ``divide``, (total, a list of
    (move name, count) for each first move, in the order :meth:`Position.legal_moves` gives).
    Ctrl-C or ``deadline`` (a time.monotonic() value) stops it cleanly."""
    from .runtime import Run
    from .tables import build_tables, mover_bits

    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"perft depth must be between 0 and {MAX_DEPTH}, not {depth}")
    T = build_tables(position.board, position.rules, symmetry=False)

    def count(p, d):
        m, t = mover_bits(p)
        run = Run()
        n = run.call(perft_count, np.uint64(m), np.uint64(t), np.int64(p.counter), np.int64(d), T.playable, T.adj,
                     T.jmp, T.reach, T.rules, run.abort, deadline=deadline)
        if n < 0:
            raise run.stopped(f"perft {depth} stopped")
        return int(n)

    if not divide:
        return count(position, depth)
    if depth == 0 or position.is_over():
        return count(position, depth), []
    rows = [(position.move_name(mv), count(position.play(mv), depth - 1)) for mv in position.legal_moves()]
    return sum(c for _, c in rows), rows
