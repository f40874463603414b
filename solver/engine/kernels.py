"""The rules on bitboards, compiled: the inner loops every engine shares.

A position is ``(mine, theirs, counter)``: uint64 sets of the mover's and the
other side's pieces and the rule set's counter. Reading pieces from the mover's
side makes colour inversion free: values are the mover's. Moves are int64 codes:
``to`` for a clone, ``(frm + 1) * 64 + to`` for a jump, -1 for a pass.

``rules`` is the int64[4] array of :class:`solver.engine.tables.Tables`:
wipeout_ends, counter kind (0 none, 1 uai halfmove clock, 2 cs61b jumps,
3 jump3 plies), limit, limit_is_draw.
"""

import numpy as np
from numba import njit

from .bits import lowest_square, popcount

U0 = np.uint64(0)
U1 = np.uint64(1)
U8 = np.uint64(8)
U255 = np.uint64(255)
PASS = -1


@njit(cache=True)
def grow(arr, size):
    """A copy of the 1-d array ``arr`` with room for ``size`` items (growing buffers)."""
    out = np.empty(size, arr.dtype)
    out[: arr.shape[0]] = arr
    return out


@njit(cache=True)
def grow_rows(arr, rows):
    """A copy of the 2-d array ``arr`` with room for ``rows`` rows."""
    out = np.empty((rows, arr.shape[1]), arr.dtype)
    out[: arr.shape[0]] = arr
    return out


@njit(cache=True)
def material(mine, theirs):
    return np.int64(popcount(mine)) - np.int64(popcount(theirs))


@njit(cache=True)
def reaches_empty(pieces, empty, reach):
    """True when some empty square is a clone or a jump away from one of ``pieces``."""
    e = empty
    while e:
        if reach[lowest_square(e)] & pieces:
            return True
        e &= e - U1
    return False


@njit(cache=True)
def game_status(mine, theirs, counter, playable, reach, rules):
    """(over, final score for the mover). Nobody can move, or a wiped-out side under
    wipeout rules, ends the game with the pieces counted; the counter limit ends it
    with 0 under uai (unless it is over for the other reasons too) or counted."""
    diff = material(mine, theirs)
    if rules[0] != 0 and (mine == U0 or theirs == U0):
        return True, diff
    empty = playable & ~(mine | theirs)
    if not reaches_empty(mine | theirs, empty, reach):
        return True, diff
    if rules[1] != 0 and counter >= rules[2]:
        if rules[3] != 0:
            return True, np.int64(0)
        return True, diff
    return False, np.int64(0)


@njit(cache=True)
def gen_moves(mine, theirs, playable, adj, jmp, out):
    """Write the mover's clones and jumps into ``out``; return how many (0: the mover must pass)."""
    return gen_moves_at(mine, theirs, playable, adj, jmp, out, 0)


@njit(cache=True)
def gen_moves_at(mine, theirs, playable, adj, jmp, out, off):
    """:func:`gen_moves` writing from ``out[off]`` on (no array view: cheaper in hot loops)."""
    n = 0
    e = playable & ~(mine | theirs)
    while e:
        sq = np.int64(lowest_square(e))
        e &= e - U1
        if adj[sq] & mine:
            out[off + n] = sq
            n += 1
        o = jmp[sq] & mine
        while o:
            out[off + n] = (np.int64(lowest_square(o)) + 1) * 64 + sq
            n += 1
            o &= o - U1
    return n


@njit(cache=True)
def moves_or_pass(mine, theirs, playable, adj, jmp, out):
    """Like :func:`gen_moves`, but a mover without a move gets the pass (-1): returns >= 1."""
    n = gen_moves(mine, theirs, playable, adj, jmp, out)
    if n == 0:
        out[0] = PASS
        n = 1
    return n


@njit(cache=True)
def play(mine, theirs, code, adj):
    """The position after the move, from the next mover's side: (next mine, next theirs)."""
    if code < 0:
        return theirs, mine
    to = code & 63
    frm = (code >> 6) - 1
    if frm >= 0:
        mine ^= U1 << np.uint64(frm)
    flips = adj[to] & theirs
    return theirs ^ flips, mine | (U1 << np.uint64(to)) | flips


@njit(cache=True)
def next_counter(counter, code, rules):
    kind = rules[1]
    if kind == 0:
        return np.int64(0)
    if kind == 3:
        return counter + 1
    if 0 <= code < 64:  # a clone resets both the halfmove clock and the jump count
        return np.int64(0)
    if code < 0 and kind == 2:  # cs61b: a pass leaves the jump count alone
        return counter
    return counter + 1


@njit(cache=True)
def transform(bits, table, row, nchunks):
    """Image of a bit set under one symmetry: OR of the images of its bytes."""
    out = U0
    for b in range(nchunks):
        out |= table[row + b, bits & U255]
        bits >>= U8
    return out


@njit(cache=True)
def canonical(mine, theirs, canon):
    """(mine, theirs, s): the least image of the position over the board symmetries, ordered by
    mine then theirs, and the symmetry ``s`` that gives it (see :class:`tables.Tables`)."""
    symbytes, packbytes, meta = canon
    nsym, nbytes, npack = meta[0], meta[1], meta[2]
    if npack > 0:  # one word per position: a branch-free minimum
        n = np.uint64(meta[3])
        best = (mine << n) | theirs
        bs = 0
        w = best
        for s in range(1, nsym):
            o = transform(w, packbytes, s * npack, npack)
            lt = o < best
            best = min(o, best)
            bs = s if lt else bs
        return best >> n, best & ((U1 << n) - U1), bs
    bm, bt, bs = mine, theirs, 0
    for s in range(1, nsym):
        m = transform(mine, symbytes, s * nbytes, nbytes)
        if m > bm:
            continue
        t = transform(theirs, symbytes, s * nbytes, nbytes)
        if m < bm or t < bt:
            bm, bt, bs = m, t, s
    return bm, bt, bs


@njit(cache=True)
def key_hash(k1, k2, k3):
    h = k1 * np.uint64(0x9E3779B97F4A7C15)
    h ^= (k2 + np.uint64(k3)) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(29)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(32)
    return h


@njit(cache=True)
def map_move(code, perm):
    """A move code under a square permutation."""
    if code < 0:
        return code
    to = perm[code & 63]
    frm = (code >> 6) - 1
    if frm < 0:
        return to
    return (perm[frm] + 1) * 64 + to


@njit(cache=True)
def map_move_by(code, perms, s):
    """A move code under the permutation ``perms[s]`` (no array view: cheaper in hot loops)."""
    if code < 0 or s == 0:
        return code
    to = perms[s, code & 63]
    frm = (code >> 6) - 1
    if frm < 0:
        return to
    return (perms[s, frm] + 1) * 64 + to


@njit(cache=True)
def min_plies_to_end(mine, theirs, counter, playable, reach, rules):
    """A lower bound on the plies before the game can be over.

    Each ply fills at most one square and moves at most one piece; the game goes on
    while an empty square has a piece within reach. So every empty square must be
    filled (a ply each) or lose every piece near it (a ply each); a wipe-out needs
    the smaller side captured (at most 8 a ply); a counter moves at most 1 a ply.
    """
    occupied = mine | theirs
    e = playable & ~occupied
    bound = np.int64(popcount(e))
    while e:
        near = np.int64(popcount(reach[lowest_square(e)] & occupied))
        if near < bound:
            bound = near
        e &= e - U1
    if rules[0] != 0:
        fewer = min(np.int64(popcount(mine)), np.int64(popcount(theirs)))
        bound = min(bound, (fewer + 7) // 8)
    if rules[1] != 0:
        bound = min(bound, max(np.int64(0), rules[2] - counter))
    return bound
