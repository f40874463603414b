"""The tier solver's steps when each owner of a range of a tier's numbers holds that range's
state on its own (a worker of a cluster: :mod:`solver.tiers.distributed`).

An owner keeps the codes and counters of its range (:func:`.tier_kernels.summarise`) indexed
from 0 (its *local* numbers: the tier's number less the start of its range). The positions it
settles at a depth (its part of the front) stay with it; their un-moves (global numbers, from
the game) are cut into one *bucket* per owner (:func:`route_parents`), each parent as its
owner's local number with the code of the settled child beside it, and each owner settles the
parents of the buckets it receives (:func:`apply_routed`) by the rule of
:func:`.tier_kernels.settle_packed`, exactly as :func:`.tier_kernels.apply_owned` does for one
owner's range of the whole tier.
"""

import numpy as np
from numba import njit

from .tier_kernels import DEPTH_BITS, DEPTH_INF, VALUE_BIAS, settle_packed


@njit(cache=True, nogil=True)
def route_parents(front, code, pstart, parents, bounds, like):
    """The un-moves of an owner's settled positions cut by owner: ``front`` (local numbers) and
    the owner's ``code``; ``parents[pstart[i]:pstart[i + 1]]`` the tier's numbers with a move to
    ``front[i]`` (once per move); ``bounds`` where each owner's range starts (one more: the
    tier's size). Returns (pos, pcode, ostart): owner j's parents are ``pos[ostart[j]:ostart[j +
    1]]`` (its local numbers, of the dtype of ``like``) and ``pcode`` the code of the child each
    was reached from, in the order of ``front``."""
    owners = bounds.shape[0] - 1
    total = pstart[front.shape[0]]
    dest = np.empty(total, np.int32)
    ostart = np.zeros(owners + 1, np.int64)
    for y in range(total):
        p = parents[y]
        a = 0
        b = owners  # bounds[a] <= p < bounds[b]
        while b - a > 1:
            m = (a + b) // 2
            if bounds[m] <= p:
                a = m
            else:
                b = m
        dest[y] = a
        ostart[a + 1] += 1
    for j in range(owners):
        ostart[j + 1] += ostart[j]
    fill = ostart[:-1].copy()
    pos = np.empty(total, like.dtype)
    pcode = np.empty(total, np.uint16)
    for i in range(front.shape[0]):
        c = code[front[i]]
        for y in range(pstart[i], pstart[i + 1]):
            j = dest[y]
            pos[fill[j]] = parents[y] - bounds[j]
            pcode[fill[j]] = c
            fill[j] += 1
    return pos, pcode, ostart


@njit(cache=True, nogil=True)
def apply_routed(events, d, pos, pcode, code, cnt, ov_pos, ov_cnt):
    """One step of the propagation in one owner's range (local numbers): ``events`` (positions
    whose event is at depth d) resolve, then each parent ``pos[y]`` hears from a child settled
    with code ``pcode[y]`` (at depth d). Returns the positions settled (at depth d + 1), sorted,
    of the dtype of ``events``."""
    out = np.empty(min(events.shape[0] + pos.shape[0], code.shape[0]), events.dtype)
    tail = 0
    for e in events:
        w = -(np.int64(code[e] >> DEPTH_BITS) - VALUE_BIAS)
        tail = settle_packed(e, w, d, code, cnt, ov_pos, ov_cnt, out, tail)
    for y in range(pos.shape[0]):
        c = pcode[y]
        w = np.int64(c >> DEPTH_BITS) - VALUE_BIAS
        tail = settle_packed(pos[y], w, np.int64(c & DEPTH_INF), code, cnt, ov_pos, ov_cnt, out, tail)
    res = out[:tail].copy()
    res.sort()
    return res
