"""perft: the number of move sequences of a given length, as libataxx counts them.

A forced pass is one move; a finished game counts 1 at depth 0 and 0 deeper. Any
board and rule set; the field's numbers are for the ``uai`` rules (game over on a
wipe-out and at halfmove clock 100).

How it is fast:

- **The last ply is counted, not played**: at a node one ply from the end the count
  is the number of clone destinations (one popcount of the squares next to the
  mover's pieces) plus the number of (origin, destination) jumps (a popcount per
  piece), or 1 for a forced pass.
- **The last two plies in one loop** (:func:`_count_two`): a node two plies from
  the end plays each of its moves into registers and counts the reply at once; no
  move list, no stack frame.
- **Shifts instead of square loops**: the squares next to a set of squares are the
  union of eight shifts of it, each masked to the squares that stay on the board in
  that direction, for any board shape (:func:`geometry`); whether the game is over
  (an empty square within reach of some piece) is two such steps, plus the four
  three-square shifts under ``jump3``. Masks, shift amounts and rules travel as
  tuples of integers, so they stay in registers.
- **No allocation per move**: one move buffer per level of an explicit stack.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import lowest_square, popcount

MAX_DEPTH = 64
MAX_MOVES = 64 * 25  # jump3: up to 12 jump origins per empty square, plus the clone
U1 = np.uint64(1)
U3 = np.uint64(3)


@njit(cache=True, inline="always")
def _near(b, g):
    """The squares next to ``b`` (a king step away), by eight masked shifts (see :func:`geometry`)."""
    C, Cm, Cp = g[12], g[13], g[14]
    return (((b & g[0]) << U1) | ((b & g[1]) >> U1) | ((b & g[2]) << C) | ((b & g[3]) >> C)
            | ((b & g[4]) << Cp) | ((b & g[5]) << Cm) | ((b & g[6]) >> Cm) | ((b & g[7]) >> Cp))


@njit(cache=True, inline="always")
def _far(b, g):
    """The squares three steps along a row or a column from ``b`` (jump3; none otherwise)."""
    return ((b & g[8]) << U3) | ((b & g[9]) >> U3) | ((b & g[10]) << g[15]) | ((b & g[11]) >> g[15])


@njit(cache=True, inline="always")
def _over(mine, theirs, counter, playable, g, rules):
    """Is the game over? A wiped-out side (rule sets that say so), the counter at its limit, or
    no empty square within reach of a piece (two king steps, or three along a line)."""
    if rules[0] != 0 and (mine == 0 or theirs == 0):
        return True
    if rules[1] != 0 and counter >= rules[2]:
        return True
    both = mine | theirs
    near = _near(both, g)
    near |= _near(near, g) | _far(both, g)
    return (near & playable & ~both) == 0


@njit(cache=True, inline="always")
def _count(mine, theirs, counter, playable, jmp, g, rules):
    """Moves of the mover (the leaves one ply down): clones + jumps, 1 for a forced pass, 0 when over."""
    if _over(mine, theirs, counter, playable, g, rules):
        return np.int64(0)
    empty = playable & ~(mine | theirs)
    n = np.int64(popcount(_near(mine, g) & empty))
    m = mine
    while m:
        n += np.int64(popcount(jmp[lowest_square(m)] & empty))
        m &= m - U1
    return n if n > 0 else np.int64(1)


@njit(cache=True, inline="always")
def _next(counter, clone, rules):
    """The counter after a clone or a jump (see kernels.next_counter)."""
    kind = rules[1]
    if kind == 0:
        return counter
    if kind == 3 or not clone:
        return counter + 1
    return np.int64(0)


@njit(cache=True)
def _count_two(mine, theirs, counter, playable, adj, jmp, g, rules):
    """Leaves two plies down: each move played in registers, the reply counted."""
    if _over(mine, theirs, counter, playable, g, rules):
        return np.int64(0)
    empty = playable & ~(mine | theirs)
    total = np.int64(0)
    moved = False
    clones = _near(mine, g) & empty
    c1 = _next(counter, True, rules)
    while clones:
        sq = lowest_square(clones)
        clones &= clones - U1
        bit = U1 << sq
        flips = adj[sq] & theirs
        total += _count(theirs ^ flips, mine | bit | flips, c1, playable, jmp, g, rules)
        moved = True
    c2 = _next(counter, False, rules)
    m = mine
    while m:
        frm = lowest_square(m)
        m &= m - U1
        dests = jmp[frm] & empty
        base = mine ^ (U1 << frm)
        while dests:
            sq = lowest_square(dests)
            dests &= dests - U1
            flips = adj[sq] & theirs
            total += _count(theirs ^ flips, base | (U1 << sq) | flips, c2, playable, jmp, g, rules)
            moved = True
    if not moved:  # a forced pass (cs61b: the jump count stays)
        cp = counter if rules[1] == 2 else _next(counter, False, rules)
        total = _count(theirs, mine, cp, playable, jmp, g, rules)
    return total


@njit(cache=True)
def _moves(mine, theirs, playable, jmp, g, out):
    """The mover's moves (codes as in kernels.gen_moves: clone ``to``, jump ``(frm + 1) * 64 + to``,
    -1 a pass), any order; returns how many."""
    empty = playable & ~(mine | theirs)
    n = 0
    clones = _near(mine, g) & empty
    while clones:
        out[n] = np.int64(lowest_square(clones))
        n += 1
        clones &= clones - U1
    m = mine
    while m:
        frm = np.int64(lowest_square(m))
        m &= m - U1
        dests = jmp[frm] & empty
        while dests:
            out[n] = (frm + 1) * 64 + np.int64(lowest_square(dests))
            n += 1
            dests &= dests - U1
    if n == 0:
        out[0] = -1
        n = 1
    return n


@njit(cache=True, nogil=True)
def perft_count(mine, theirs, counter, depth, playable, adj, jmp, g, rules, abort):
    """Leaves of the move tree of ``depth`` plies from the mover's position (-1 if ``abort[0]`` was set)."""
    if depth == 0:
        return np.int64(1)
    if depth == 1:
        return _count(mine, theirs, counter, playable, jmp, g, rules)
    if depth == 2:
        return _count_two(mine, theirs, counter, playable, adj, jmp, g, rules)
    if _over(mine, theirs, counter, playable, g, rules):
        return np.int64(0)
    # Explicit stack: frame p holds the node p plies below the root and its move list; the
    # nodes two plies above the leaves are counted by _count_two.
    top = depth - 2
    ms = np.zeros(top, np.uint64)
    ts = np.zeros(top, np.uint64)
    cs = np.zeros(top, np.int64)
    moves = np.empty((top, MAX_MOVES), np.int64)
    nmoves = np.zeros(top, np.int64)
    nexti = np.zeros(top, np.int64)
    ms[0], ts[0], cs[0] = mine, theirs, counter
    nmoves[0] = _moves(mine, theirs, playable, jmp, g, moves[0])
    total = np.int64(0)
    p = 0
    while p >= 0:
        if nexti[p] >= nmoves[p]:
            p -= 1
            continue
        code = moves[p, nexti[p]]
        nexti[p] += 1
        m, t, c = ms[p], ts[p], cs[p]
        if code < 0:  # a pass
            cm, ct = t, m
            cc = c if rules[1] == 2 else _next(c, False, rules)
        else:
            to = code & 63
            frm = (code >> 6) - 1
            if frm >= 0:
                m ^= U1 << np.uint64(frm)
            flips = adj[to] & t
            cm, ct = t ^ flips, m | (U1 << np.uint64(to)) | flips
            cc = _next(c, frm < 0, rules)
        if p + 1 == top:
            total += _count_two(cm, ct, cc, playable, adj, jmp, g, rules)
            continue
        if _over(cm, ct, cc, playable, g, rules):
            continue
        if abort[0] != 0:
            return np.int64(-1)
        q = p + 1
        ms[q], ts[q], cs[q] = cm, ct, cc
        nmoves[q] = _moves(cm, ct, playable, jmp, g, moves[q])
        nexti[q] = 0
        p = q
    return total
