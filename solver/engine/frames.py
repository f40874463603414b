"""The explicit stack the search kernels share, compiled: frames, their growth, repetitions, work.

The alpha-beta search (:mod:`.search`) and the proof-number search (:mod:`.dfpn`) walk the game
with an explicit stack instead of recursion (no ply limit; a numba function cannot recurse
cheaply). Each keeps, per ply, a row of int64 columns of its own (``fr``) and four uint64 arrays
that both need: the position (``fm``, ``ft``: the mover's and the other side's pieces) and its
canonical key (``fk1``, ``fk2``). Their moves live in one flat buffer per column, a frame's
moves from its offset on. This module is the one owner of how those arrays are made and grown
and of the repetition scan over them (issue 28: the code was copied in both kernels).

- :func:`new_frames` makes the stack for ``cap`` plies; :func:`grow_frames` doubles it when a
  line reaches its end, or says that it may not (the budget in plies, :data:`STOP_STACK`).
- :func:`repetition` finds the ply of the current line, above ``ply``, whose canonical key is
  the node's, through an index of the line's keys (:func:`new_line`, :func:`line_push`,
  :func:`line_pop`): each frame is chained to the ply before it with a key in the same bucket,
  so a node looks at a few plies, not at the whole run (a jump war of a real-game search can be
  tens of thousands of plies deep, and a scan of the run at every node took most of the time).
  Only positions with as many empty squares can repeat (a clone fills one, nothing empties
  one), so the walk stops at the first ply with another count (column ``emp``).
- :func:`work_log2` is the log2 of the nodes a node's search took, the tables' replacement key.

Kernels take and return plain arrays and integers.
"""

import numpy as np
from numba import njit

from .kernels import grow, grow_rows, key_hash


@njit(cache=True)
def new_frames(cap, ncols):
    """(fr, fm, ft, fk1, fk2): a stack of ``cap`` plies with ``ncols`` int64 columns per frame."""
    return (np.zeros((cap, ncols), np.int64), np.empty(cap, np.uint64), np.empty(cap, np.uint64),
            np.empty(cap, np.uint64), np.empty(cap, np.uint64))


@njit(cache=True)
def grow_frames(fr, fm, ft, fk1, fk2, cap):
    """The stack's arrays with room for ``cap`` plies (copies of what they hold)."""
    return grow_rows(fr, cap), grow(fm, cap), grow(ft, cap), grow(fk1, cap), grow(fk2, cap)


@njit(cache=True)
def room(ply, cap, max_stack):
    """The stack's new size when ply + 1 does not fit (twice the old), ``cap`` when it does, and 0
    when twice the old would pass ``max_stack`` plies (the caller stops: out of memory)."""
    if ply + 1 < cap:
        return cap
    if 2 * cap > max_stack:
        return np.int64(0)
    return 2 * cap


@njit(cache=True)
def move_room(moff, per_frame, mcap):
    """The move buffers' new size when a frame's moves from ``moff`` may not fit (``mcap`` when they do)."""
    if moff + per_frame <= mcap:
        return mcap
    return 2 * mcap + per_frame


LINE_BITS = 16  # buckets of the line's index


@njit(cache=True)
def new_line():
    """The index of the current line's keys: for each bucket, the deepest ply on the line whose
    key falls in it (-1: none). Each frame keeps the ply before it in its bucket (a chain)."""
    return np.full(1 << LINE_BITS, -1, np.int64)


@njit(cache=True)
def line_bucket(cm, ct):
    """The bucket of a canonical key in the line's index."""
    return np.int64(key_hash(cm, ct, np.int64(0)) >> np.uint64(64 - LINE_BITS))


@njit(cache=True)
def line_push(line, fr, prev, col_bucket, ply, b):
    """Put the frame of ``ply`` (bucket ``b``) on the line's index; column ``prev`` keeps the
    ply it hides, ``col_bucket`` its bucket (for :func:`line_pop`)."""
    fr[ply, prev] = line[b]
    fr[ply, col_bucket] = b
    line[b] = ply


@njit(cache=True)
def line_pop(line, fr, prev, col_bucket, ply):
    """Take the frame of ``ply`` off the line's index (it is leaving the line)."""
    line[fr[ply, col_bucket]] = fr[ply, prev]


@njit(cache=True)
def repetition(line, fr, prev, emp, fk1, fk2, ply, cm, ct, empties, b, step):
    """The nearest ply above ``ply`` on the current line, a multiple of ``step`` plies apart
    (step 2: the same side to move, not only the same position from the mover's side), whose
    canonical key is (cm, ct) in bucket ``b``, or -1. Only plies of the same bucket are visited
    (the chain of the line's index), and only while they have as many empty squares (column
    ``emp``): a line never empties a square, so a ply with more lies before the run began and so
    does every ply above it."""
    i = line[b]
    while i >= 0 and fr[i, emp] == empties:
        if fk1[i] == cm and fk2[i] == ct and (ply - i) % step == 0:
            return i
        i = fr[i, prev]
    return np.int64(-1)


@njit(cache=True)
def work_log2(nodes):
    """floor(log2(nodes)), at most 15: how much a result cost (kept over cheaper ones)."""
    work = np.int64(0)
    while nodes > 1 and work < 15:
        nodes >>= 1
        work += 1
    return work
