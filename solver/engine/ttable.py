"""The search's transposition table, compiled: proved bounds, shared by every thread of a search.

Buckets of four entries (two cache lines); an entry is four 64-bit words:

- word 0: the check, ``mine ^ mix(word 1, word 2, word 3)`` (see below);
- word 1: the other side's pieces (the key's second half);
- word 2: the proved lower and upper bounds on the mover's composite score
  (:mod:`solver.common.scores`), two int32;
- word 3: the best move, the counter, one bound that holds only in a game cut
  after a horizon (its value, the plies left when it was found, which side of the
  score it bounds and how the cut scores), the log2 of the nodes its search took,
  and a "used" bit.

**Threads without locks** (Hyatt and Mann's lockless hashing): threads read and
write entries with plain 64-bit loads and stores. The first word binds the key to
the other three: an entry whose words come from two different stores (torn by a
write of another thread) fails the check, except with probability about 2**-64,
and reads as absent. So a probe only ever returns bounds that some search proved
for that very key; a store that races another may be lost, never mixed. A lost
bound costs work, never exactness.

A store replaces the entry with the same key (merging the bounds: both are
proved), else an unused one, else the one whose search was cheapest. On probing,
entries of the same board at other clocks are used under ``uai`` as the clock
fact allows (:mod:`solver.engine.search`).

**The counter field** is read according to the *clock kind* the caller passes:
``CLOCK_EXACT`` (0, cs61b and jump3) and ``CLOCK_UAI`` (1) key entries by the rule's
counter (under ``uai`` the proved bounds of other clocks are also read, by the clock
fact); ``CLOCK_NONE`` (2, classic: there is no counter) keys entries by the board
alone, and the field holds the *budget* of the entry's bound that holds only in a
budgeted game (the cut after that many plies without a clone, :mod:`.search`): such a
bound is read only by a search whose budget is no larger, and whose plies left in the
current run are no more (see ``search``'s docstring for why that is the condition).

**Where keys go** (:func:`layout`, :func:`bucket`): a key's bucket is its hash within the whole
table, except for the positions near the end (at most ``NEAR_EMPTY`` empty squares), whose
buckets are the table's first ``2**NEAR_BITS`` (8 MiB, within the processor's last-level cache
however large the table), so that the probes near the leaves wait less for memory (measured in
the README, "Where a node's time goes"). The choice of bucket only decides where an entry may be
lost to another; a probe still finds only bounds proved for its key.

Kernels take and return plain arrays and integers.
"""

import numpy as np
from numba import njit

from solver.common import scores

from .bits import popcount
from .kernels import key_hash, map_move

INF_SCORE = np.int64(scores.INF_SCORE)
CLOCK_EXACT, CLOCK_UAI, CLOCK_NONE = 0, 1, 2
ENTRY_WORDS = 4
BUCKET = 4
# The keys of positions near the end (this many empty squares or fewer) go to the table's first
# 2**NEAR_BITS buckets (8 MiB): see "Where keys go" above.
NEAR_EMPTY = 6
NEAR_BITS = 16  # (at most 19: see layout)

# packed fields of an entry's fourth word
_MOVE_BITS = 13
_CNT_SHIFT = 13
_HV_SHIFT = 21
_HR_SHIFT = 49
_HLOW_BIT = 57
_HWIN_BIT = 58
_WORK_SHIFT = 59  # 4 bits
_USED_BIT = 63
_HV_MASK = (1 << 28) - 1

_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)
K3 = np.uint64(0x165667B19E3779F9)  # also the salt of df-pn's keys


@njit(cache=True)
def mix(w1, w2, w3):
    h = (w1 * _K1) ^ (w2 * _K2) ^ (w3 * K3)
    return h ^ (h >> np.uint64(31))


@njit(cache=True)
def layout(rows, squares):
    """Where a table of ``rows`` entries puts the keys of a board of ``squares`` playable squares,
    one integer for :func:`bucket`: the buckets' mask, and the number of pieces from which a key
    is *near the end* (at most ``NEAR_EMPTY`` empty squares), with the mask of the near region."""
    mask = np.int64(rows // BUCKET - 1)
    near_mask = min(mask, np.int64((1 << NEAR_BITS) - 1))
    near_pieces = max(np.int64(0), np.int64(squares) - NEAR_EMPTY)
    return mask | (near_pieces << 36) | (near_mask << 44) if near_pieces > 0 else mask


@njit(cache=True)
def bucket(cm, ct, where):
    """The first entry of the bucket of a canonical key, in the table's :func:`layout`."""
    mask = where & ((np.int64(1) << 36) - 1)
    near_pieces = (where >> 36) & 0xFF
    if near_pieces > 0 and np.int64(popcount(cm | ct)) >= near_pieces:
        mask = where >> 44  # (a key near the end: the first buckets)
    return np.int64(key_hash(cm, ct, np.int64(0)) & np.uint64(mask)) * BUCKET


@njit(cache=True)
def pack_bounds(lo, hi):
    return (np.uint64(lo) & np.uint64(0xFFFFFFFF)) | (np.uint64(hi) << np.uint64(32))


@njit(cache=True)
def unpack_lo(w):
    return np.int64(np.int32(w & np.uint64(0xFFFFFFFF)))


@njit(cache=True)
def unpack_hi(w):
    return np.int64(np.int32(w >> np.uint64(32)))


@njit(cache=True)
def pack_info(move, counter, hval, hr, hlow, hwin, work):
    w = np.uint64(move + 2) & np.uint64((1 << _MOVE_BITS) - 1)
    w |= (np.uint64(counter) & np.uint64(255)) << np.uint64(_CNT_SHIFT)
    w |= (np.uint64(hval) & np.uint64(_HV_MASK)) << np.uint64(_HV_SHIFT)
    w |= (np.uint64(hr) & np.uint64(255)) << np.uint64(_HR_SHIFT)
    w |= np.uint64(hlow) << np.uint64(_HLOW_BIT)
    w |= np.uint64(hwin) << np.uint64(_HWIN_BIT)
    w |= (np.uint64(min(work, 15)) & np.uint64(15)) << np.uint64(_WORK_SHIFT)
    w |= np.uint64(1) << np.uint64(_USED_BIT)
    return w


@njit(cache=True)
def info_move(w):
    return np.int64(w & np.uint64((1 << _MOVE_BITS) - 1)) - 2


@njit(cache=True)
def info_counter(w):
    return np.int64((w >> np.uint64(_CNT_SHIFT)) & np.uint64(255))


@njit(cache=True)
def info_hval(w):
    v = np.int64((w >> np.uint64(_HV_SHIFT)) & np.uint64(_HV_MASK))
    if v >= (1 << 27):
        v -= 1 << 28
    return v


@njit(cache=True)
def info_hr(w):
    return np.int64((w >> np.uint64(_HR_SHIFT)) & np.uint64(255))


@njit(cache=True)
def info_flag(w, bit):
    return np.int64((w >> np.uint64(bit)) & np.uint64(1))


@njit(cache=True)
def info_work(w):
    return np.int64((w >> np.uint64(_WORK_SHIFT)) & np.uint64(15))


@njit(cache=True)
def _clock_lower_ok(lo, c_entry, c):
    """The clock fact: a lower bound proved at clock c_entry holds at clock c."""
    if lo > 0:
        return c <= c_entry
    return c >= c_entry


@njit(cache=True)
def _clock_upper_ok(hi, c_entry, c):
    if hi < 0:
        return c <= c_entry
    return c >= c_entry


@njit(cache=True)
def _valid(w0, w1, w2, w3, cm):
    return w3 != 0 and (w0 ^ mix(w1, w2, w3)) == cm


@njit(cache=True)
def _same_key(ce, c, clock_kind):
    """Does an entry whose counter field is ``ce`` hold the key with counter ``c``?"""
    return clock_kind == CLOCK_NONE or ce == c


@njit(cache=True)
def probe(tt, base, cm, ct, c, clock_kind, left, cutw, out):
    """Bounds on the mover's score from the table: out = [lo, hi, move, found].

    ``clock_kind``: 0 the counter must match, 1 the uai clock fact, 2 no counter (``c`` is then
    the searching budget, compared with the entry's). ``left``/``cutw``: plies left before the
    cut and how the cut scores for the mover (0 no cut, 1 a win, 2 a loss) for the bounds that
    hold only in a cut game.
    """
    lo = -INF_SCORE
    hi = INF_SCORE
    move = np.int64(-2)
    found = 0
    for k in range(BUCKET):
        e = base + k
        w1 = tt[e, 1]
        if w1 != ct:
            continue
        w0 = tt[e, 0]
        w2 = tt[e, 2]
        w3 = tt[e, 3]
        if not _valid(w0, w1, w2, w3, cm):
            continue
        ce = info_counter(w3)
        elo = unpack_lo(w2)
        ehi = unpack_hi(w2)
        same = _same_key(ce, c, clock_kind)
        if same or clock_kind == CLOCK_UAI:
            if same or _clock_lower_ok(elo, ce, c):
                lo = max(lo, elo)
            if same or _clock_upper_ok(ehi, ce, c):
                hi = min(hi, ehi)
        if not same:
            continue
        found = 1
        mv = info_move(w3)
        if mv != -2:
            move = mv
        hr = info_hr(w3)
        if hr > 0 and cutw != 0 and (clock_kind != CLOCK_NONE or c <= ce):
            hwin = info_flag(w3, _HWIN_BIT) + 1  # stored as 0 = a win, 1 = a loss
            if hwin == cutw:
                hv = info_hval(w3)
                hlow = info_flag(w3, _HLOW_BIT)
                # a cut that is a loss for the mover: more plies left only help it
                if cutw == 2:
                    if hlow == 1 and left >= hr:
                        lo = max(lo, hv)
                    elif hlow == 0 and left <= hr:
                        hi = min(hi, hv)
                else:
                    if hlow == 1 and left <= hr:
                        lo = max(lo, hv)
                    elif hlow == 0 and left >= hr:
                        hi = min(hi, hv)
    out[0] = lo
    out[1] = hi
    out[2] = move
    out[3] = found


@njit(cache=True)
def store(tt, base, cm, ct, c, clock_kind, lo, hi, hval, hr, hlow, hwin, move, work):
    """Store proved bounds (lo/hi; -INF/INF for none) and optionally one cut-game bound
    (hr > 0) for (cm, ct, c). Merges with an entry of the same key. Under ``CLOCK_NONE``
    ``c`` is the budget of the cut-game bound (kept with it)."""
    same = -1
    empty = -1
    cheap = -1
    cwork = np.int64(99)
    sw2 = np.uint64(0)
    sw3 = np.uint64(0)
    for k in range(BUCKET):
        e = base + k
        w0 = tt[e, 0]
        w1 = tt[e, 1]
        w2 = tt[e, 2]
        w3 = tt[e, 3]
        if w3 == 0:
            if empty < 0:
                empty = e
            continue
        if w1 == ct and (w0 ^ mix(w1, w2, w3)) == cm and _same_key(info_counter(w3), c, clock_kind):
            same = e
            sw2 = w2
            sw3 = w3
            break
        wk = info_work(w3)
        if wk < cwork:
            cheap = e
            cwork = wk
    victim = same if same >= 0 else (empty if empty >= 0 else cheap)
    if same >= 0:
        lo = max(lo, unpack_lo(sw2))
        hi = min(hi, unpack_hi(sw2))
        if hr == 0 and info_hr(sw3) > 0:  # keep the old cut-game bound
            hval = info_hval(sw3)
            hr = info_hr(sw3)
            hlow = info_flag(sw3, _HLOW_BIT)
            hwin = info_flag(sw3, _HWIN_BIT)
            if clock_kind == CLOCK_NONE:
                c = info_counter(sw3)  # and its budget
        if move == -2:
            move = info_move(sw3)
        work = max(work, info_work(sw3))
    if lo > hi:  # cannot happen with proved bounds; keep the table consistent anyway
        hi = lo
    w2 = pack_bounds(lo, hi)
    w3 = pack_info(move, c, hval, hr, hlow, hwin, work)
    tt[victim, 1] = ct
    tt[victim, 2] = w2
    tt[victim, 3] = w3
    tt[victim, 0] = cm ^ mix(ct, w2, w3)


@njit(cache=True)
def root_move(tt, squares, cm, ct, counter, clock_kind, sym, syminv):
    """The table's move for a canonical key (mapped back by symmetry ``sym``), or -2."""
    base = bucket(cm, ct, layout(tt.shape[0], squares))
    for k in range(BUCKET):
        e = base + k
        w0 = tt[e, 0]
        w1 = tt[e, 1]
        w2 = tt[e, 2]
        w3 = tt[e, 3]
        if w1 == ct and _valid(w0, w1, w2, w3, cm) and _same_key(info_counter(w3), counter, clock_kind):
            mv = info_move(w3)
            if mv == -2:
                return mv
            return map_move(mv, syminv[sym])
    return np.int64(-2)


@njit(cache=True)
def entry_bounds(tt, squares, cm, ct, counter, clock_kind):
    """(lo, hi, found) of the entry for a canonical key and counter (no clock fact, no cut bounds)."""
    base = bucket(cm, ct, layout(tt.shape[0], squares))
    for k in range(BUCKET):
        e = base + k
        w0 = tt[e, 0]
        w1 = tt[e, 1]
        w2 = tt[e, 2]
        w3 = tt[e, 3]
        if w1 == ct and _valid(w0, w1, w2, w3, cm) and _same_key(info_counter(w3), counter, clock_kind):
            return unpack_lo(w2), unpack_hi(w2), 1
    return -INF_SCORE, INF_SCORE, 0


@njit(cache=True)
def rehash(old, new, squares):
    """Move every entry of ``old`` into ``new``, a zeroed table four (or more) times larger that no
    thread is using (both of a board of ``squares`` playable squares): an entry's key is read back
    from its words (word 0 binds it to the other three), its bucket found again. A bucket of
    ``old`` spreads over buckets of ``new`` that only it feeds (but in the near region, which
    keeps its size: there the costlier entries stay)."""
    mask = layout(new.shape[0], squares)
    for e in range(old.shape[0]):
        w3 = old[e, 3]
        if w3 == 0:
            continue
        w0 = old[e, 0]
        w1 = old[e, 1]
        w2 = old[e, 2]
        base = bucket(w0 ^ mix(w1, w2, w3), w1, mask)
        victim = -1
        cwork = info_work(w3)
        for k in range(BUCKET):
            if new[base + k, 3] == 0:
                victim = base + k
                break
            wk = info_work(new[base + k, 3])
            if wk < cwork:
                victim = base + k
                cwork = wk
        if victim >= 0:
            new[victim, 0] = w0
            new[victim, 1] = w1
            new[victim, 2] = w2
            new[victim, 3] = w3
