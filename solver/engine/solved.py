"""The retro engine's solved positions: an open-addressing table of canonical keys, and the
answers read from it (compiled).

A row of the table is ``[mine, theirs, counter << 32 | index]`` (a free row has
:data:`EMPTY_SLOT` in column 2); keeping the key and the index in one row makes a lookup touch
one cache line. Position ``index``'s answers are its *history* (:mod:`.counters`): under a
rule set with a counter, a value and a depth that hold from some steps before the limit on.
:mod:`.retro` fills the table; :mod:`.options` reads it. Kernels take and return plain arrays
and integers.
"""

import numpy as np
from numba import njit

from .counters import entry_at
from .kernels import canonical, key_hash

INF = np.int32(1 << 30)  # the depth of a draw by infinite play
MAX_MOVES = 64 * 25
EMPTY_SLOT = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True)
def probe_slot(table, mask, a, b, c):
    """Slot of key (a, b, c) in the table, or of the empty slot where it would go.

    A row is [mine, theirs, counter << 32 | index]; a free row has EMPTY_SLOT in column 2.
    Keeping the key and the index in one row makes a lookup touch one cache line."""
    h = np.int64(key_hash(a, b, c) & np.uint64(mask))
    cc = np.uint64(c) << np.uint64(32)
    while True:
        tag = table[h, 2]
        if tag == EMPTY_SLOT or (table[h, 0] == a and table[h, 1] == b and (tag & np.uint64(0xFFFFFFFF00000000)) == cc):
            return h
        h = (h + 1) & mask


@njit(cache=True)
def slot_index(table, slot):
    tag = table[slot, 2]
    if tag == EMPTY_SLOT:
        return np.int64(-1)
    return np.int64(tag & np.uint64(0xFFFFFFFF))


@njit(cache=True)
def new_table(size):
    table = np.zeros((size, 3), np.uint64)
    table[:, 2] = EMPTY_SLOT
    return table


@njit(cache=True)
def rebuild_table(k1, k2, k3, n, size):
    """A table of ``size`` rows (a power of two) holding positions 0 .. n - 1."""
    table = new_table(size)
    mask = size - 1
    for j in range(n):
        h = probe_slot(table, mask, k1[j], k2[j], k3[j])
        table[h, 0] = k1[j]
        table[h, 1] = k2[j]
        table[h, 2] = (np.uint64(k3[j]) << np.uint64(32)) | np.uint64(j)
    return table


@njit(cache=True)
def lookup(table, qm, qt, canon):
    """Indices of positions (mover's pieces, other pieces), or -1 where not solved."""
    out = np.empty(qm.shape[0], np.int64)
    mask = table.shape[0] - 1
    for i in range(qm.shape[0]):
        cm, ct, _ = canonical(qm[i], qt[i], canon)
        out[i] = slot_index(table, probe_slot(table, mask, cm, ct, np.int32(0)))
    return out


@njit(cache=True)
def values_at(idx, qc, hstart, hk, hv, ha, hb, limit):
    """(values for the mover, depths) of positions ``idx`` with counters ``qc``: the history
    triple in force with limit - counter steps left (classic rules: limit 0, one triple)."""
    value = np.empty(idx.shape[0], np.int64)
    depth = np.empty(idx.shape[0], np.int64)
    for i in range(idx.shape[0]):
        k = max(np.int64(0), limit - qc[i])
        j = entry_at(hstart, hk, idx[i], k)
        value[i] = hv[j]
        depth[i] = ha[j] + np.int64(hb[j]) * k
    return value, depth


@njit(cache=True)
def position_value(table, canon, hstart, hk, hv, ha, hb, limit, m, t, c):
    """(solved, value for the mover, depth) of the position (m, t, c) (mover's pieces first)."""
    cm, ct, _ = canonical(m, t, canon)
    i = slot_index(table, probe_slot(table, table.shape[0] - 1, cm, ct, np.int32(0)))
    if i < 0:
        return False, np.int64(0), np.int64(0)
    k = max(np.int64(0), limit - c)
    j = entry_at(hstart, hk, i, k)
    return True, np.int64(hv[j]), np.int64(ha[j]) + np.int64(hb[j]) * k
