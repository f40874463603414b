"""Rule sets with a counter, solved per board: every counter value at once (retro engine).

Under ``uai``, ``cs61b`` and ``jump3`` the counter is part of the position (SPEC
section 3), so a board has one value and one depth per counter value. Entering
each (board, counter) pair separately costs 25 to 200 times the boards. Here the
retro engine enumerates *boards* (the counter left out) and this module solves
each board for every counter value at once, storing only where its answer
changes.

**The recursion.** Let L be the limit and k = L - c the steps left before the
counter ends the game. Write f(s, k) = (V, D) for the value (mover's side) and
depth of board s with k steps left. Then

- f(s, k) = (score, 0) when s is over by position (a side wiped out under these
  rules, or nobody can move), whatever k;
- f(s, 0) = (0, 0) under ``uai``, (material, 0) under ``cs61b`` and ``jump3``;
- for k >= 1, each move gives the candidate (-V', 1 + D') with (V', D') = f(child,
  k') where k' = k - 1 for a move that advances the counter (a jump; a pass under
  ``uai`` and ``jump3``; every move under ``jump3``), k' = k for a pass under
  ``cs61b``, and k' = L for a move that resets it (a clone under ``uai`` and
  ``cs61b``); f(s, k) takes the greatest value, then among those the least depth
  if that value is > 0, else the greatest (SPEC section 4).

This is the reference solver's definition on the (board, counter) graph: that
graph has no cycle (a clone fills a square, a jump advances the counter, and a
``cs61b`` pass is followed by a move or the end), so its values and its
greatest-fixed-point depths are those of the plain recursion.

**Depths are affine pieces.** Store f(s, k) as a *history*: triples (V, a, b),
each from some k on, meaning depth a + b k with b in {0, 1}. Claim: every f(s, .)
is such a history, and it changes only at the k listed below. Seen from s at step
k, a child whose triple (V', a', b') holds at the step it is read gives the
candidate depth 1 + a' + b'(k - 1) = (1 + a' - b') + b' k for an advancing move,
(1 + a') + b' k for a ``cs61b`` pass, and the constant 1 + a' + b' L for a reset:
again slope 0 or 1. While no child's triple changes, the best value is fixed, and
the least (or greatest) of affine functions of slopes 0 and 1 is min(A0, A1 + k)
(or max(A0, A1 + k)), with A0, A1 the least (greatest) intercepts of each slope:
one switch, at k* = A0 - A1, from slope 1 to slope 0 (from slope 0 to slope 1).
Taking slope 0 on a tie for the least and slope 1 for the greatest, the triple of
s is constant between: a child's change (at step k' + 1 for an advancing move, at
k' for a ``cs61b`` pass), and k*. The base cases are constants: a finished board
(score, 0, 0), and the counter's end as (0 or material, 0, 1): depth 0 at k = 0,
written with slope 1 so that a board whose best line runs into the limit keeps
one triple (its depth is k, the steps left) instead of a new one each step. By
induction over k, recomputing a board only at those events gives every f(s, k).

Two refinements keep the events few; neither changes what is computed.

- *A change below the best does not move a parent.* f(p, k) depends only on the
  candidates of the best value (the others are beaten whatever their depths). So
  when a child's value, before and after its change, gives p a candidate strictly
  below p's current value, p's triple stays the result of the recursion and p is
  not recomputed for that change.
- *A guess of slope 1, checked.* A board whose best line shuffles inside the tier
  and leaves it as late as possible (or runs into the limit) has depth k + const;
  worked out from children that are themselves still on slope 0 pieces, it would
  get a new slope 0 triple at every step. So when a board's triple goes from
  (V, a, 0) at step k - 1 to (V, a + 1, 0) at step k, it is stored as (V, a + 1 - k, 1)
  (the same depth at k) and the board is recomputed at k + 1. Every read of a
  triple is at a step where it is right: at k by construction; at k + 1 the
  recomputation either gives the stored triple (it is then the recursion's own
  result from the children's triples and holds as above) or changes it like any
  change, scheduling the parents. Cycles of such boards then settle at once.

**Order.** Boards are grouped in tiers by empty squares, as for the classic
rules: a clone's child is in a fuller tier, solved before; jumps and passes stay
in the tier. A tier is simulated for k = 1 .. L: at step k, the boards scheduled
for it are recomputed from their children's triples at step k - 1 (all first,
then the changes are committed, so that every read sees step k - 1); a change
schedules the board's parents in the tier at k + 1 (a ``cs61b`` pass: at k, after
the other changes of step k); children outside the tier (a fuller tier, or a
board solved earlier) have complete histories, read directly, whose change
points are listed by step up front. Each board ends with a history of a few
triples; a lookup of (board, counter) takes the last triple at or below
k = L - counter.

Measured (3 x 4 start): ``uai`` 2.9 triples a board, ``cs61b`` 4.5; ``jump3`` 26:
with a limit of 200 plies that counts the pieces, who moves last matters, and on
small boards the answers of most boards differ for each of the last 20 to 35
plies (and some alternate with the parity of the plies left for good).

The differential tests compare every value and depth, at every reachable counter
value, with the reference solver (tests/test_engines.py, tests/test_rulesets.py).
"""

import numpy as np
from numba import njit

from .bits import popcount
from .kernels import grow, grow_rows, material, reaches_empty
from .tier_kernels import NOT_FINAL

OK, OUT_OF_MEMORY, ABORTED = 0, 1, 3  # as in retro.py
ENTRY_BYTES = 8 + 20  # a history triple, and its line in a tier's log while the tier is solved
BIG = np.int64(1) << 40


@njit(cache=True, inline="always")
def entry_at(hstart, hk, s, k):
    """The index of the triple of board s in force with k steps left (the last one from k or
    before: a binary search, histories can be long under jump3)."""
    lo, hi = hstart[s], hstart[s + 1] - 1
    if hk[hi] <= k:  # most histories end early
        return hi
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if hk[mid] <= k:
            lo = mid
        else:
            hi = mid - 1
    return lo


@njit(cache=True)
def _drain(head, k, ev_s, ev_next, stamp, out, n):
    """Append the boards of bucket k to ``out[n:]``, each once a step (``stamp``); returns n."""
    ev = head[k]
    while ev >= 0:
        j = ev_s[ev]
        ev = ev_next[ev]
        if stamp[j] != k:
            stamp[j] = k
            out[n] = j
            n += 1
    return n


@njit(cache=True)
def _schedule(head, ev_s, ev_next, nev, k, j):
    """Put board j (of the tier) in bucket k, a linked list. Returns (ev_s, ev_next, nev)."""
    if nev == ev_s.shape[0]:
        ev_s = grow(ev_s, 2 * nev)
        ev_next = grow(ev_next, 2 * nev)
    ev_s[nev] = j
    ev_next[nev] = head[k]
    head[k] = nev
    return ev_s, ev_next, nev + 1


@njit(cache=True)
def _step(s, k, base, start, e0, ek, ei, ecv, eca, cur_v, cur_a, cur_b, xv, xa, xb):
    """f(s, k) for a board s that moves, from its children's triples at step k - 1: (V, a, b,
    k*), with k* the step where the choice of slope may switch (0: none). Edge x of the tier
    (``x - e0``) is of kind ``ek``: 0 a child in the tier (index ``ei``), 1 a child solved
    before that advances the counter (external number ``ei``: its triple at k - 1 is in
    ``xv``, ``xa``, ``xb``), 2 a clone that resets it (candidate value ``ecv``, constant
    depth ``eca``)."""
    best = np.int64(-1000)
    lo0 = lo1 = BIG  # least intercept of each slope among the candidates of the best value
    hi0 = hi1 = -BIG  # greatest
    for x in range(start[s - base] - e0, start[s - base + 1] - e0):
        kind = ek[x]
        i = ei[x]
        if kind == 0:  # a jump or a pass within the tier, read at step k - 1
            v, b = -cur_v[i], cur_b[i]
            alpha, beta = 1 + cur_a[i] - b, b
        elif kind == 1:  # a move that advances the counter, to a board solved before
            v, b = -xv[i], xb[i]
            alpha, beta = 1 + xa[i] - b, b
        else:  # a clone that resets the counter: the child with the whole count left
            v, alpha, beta = ecv[x], eca[x], np.int64(0)
        if v > best:
            best = v
            lo0 = lo1 = BIG
            hi0 = hi1 = -BIG
        if v == best:
            if beta == 0:
                lo0 = min(lo0, alpha)
                hi0 = max(hi0, alpha)
            else:
                lo1 = min(lo1, alpha)
                hi1 = max(hi1, alpha)
    if best > 0:  # the least depth: slope 1 while it is below every slope-0 candidate
        if lo1 < BIG and lo1 + k < lo0:
            return best, lo1, np.int64(1), (lo0 - lo1 if lo0 < BIG else np.int64(0))
        return best, lo0, np.int64(0), np.int64(0)
    if hi0 > -BIG and hi1 + k < hi0:  # the greatest depth: slope 0 until a slope-1 one reaches it
        return best, hi0, np.int64(0), (hi0 - hi1 if hi1 > -BIG else np.int64(0))
    return best, hi1, np.int64(1), np.int64(0)


@njit(cache=True, nogil=True)
def solve_tiers(known, final, start, child, tier_start, k1, k2, playable, reach, rules, hstart, hk, hv, ha, hb,
                nent, max_entries, progress, abort):
    """Histories of the new boards known .. n - 1 (ordered in tiers by retro.order_by_tier).

    ``hstart``, ``hk``, ``hv``, ``ha``, ``hb``: the histories so far (board s: entries
    hstart[s] .. hstart[s + 1] - 1, each from step hk on: value hv, depth ha + hb k), with
    ``nent`` entries; ``hstart`` has room for the new boards. Returns (status, hk, hv, ha, hb,
    nent), the entry arrays maybe regrown; OUT_OF_MEMORY past ``max_entries`` triples.
    ``progress[2]`` counts boards solved, ``progress[3]`` board recomputations.

    A change of a child whose value stays below the parent's, before and after, cannot change
    the parent (only the candidates of the best value count), so it does not schedule it.
    """
    kind, limit, draw_at_limit = rules[1], rules[2], rules[3]
    n = tier_start[65]
    xmark = np.full(n, -1, np.int64)  # boards solved before a tier, numbered within the tier
    xnum = np.zeros(n, np.int64)
    for e in range(65):
        t0, t1 = tier_start[e], tier_start[e + 1]
        if t1 == t0:
            continue
        size = t1 - t0
        cur_v = np.empty(size, np.int64)
        cur_a = np.empty(size, np.int64)
        cur_b = np.empty(size, np.int64)
        moves = np.zeros(size, np.bool_)  # not over: f is computed for k >= 1
        passer = np.zeros(size, np.bool_)  # cs61b: must pass, the count stays (same step)
        log = np.empty((2 * size + 16, 5), np.int32)  # the triples in order of k: board, k, V, a, b
        nlog = 0
        for j in range(size):
            s = t0 + j
            f = final[s - known]
            if f != NOT_FINAL:
                cur_v[j], cur_a[j], cur_b[j] = f, 0, 0
            else:
                moves[j] = True
                cur_v[j] = 0 if draw_at_limit != 0 else material(k1[s], k2[s])
                cur_a[j], cur_b[j] = 0, 1  # depth 0 at k = 0, read as the steps left (see above)
                if kind == 2 and not reaches_empty(k1[s], playable & ~(k1[s] | k2[s]), reach):
                    passer[j] = True
            log[nlog, 0], log[nlog, 1], log[nlog, 2], log[nlog, 3], log[nlog, 4] = j, 0, cur_v[j], cur_a[j], cur_b[j]
            nlog += 1
        # The tier's edges, classified once (``ek``, ``ei``: see _step; 3 for the child of a
        # cs61b pass solved before); parents, ``rev`` within the tier and ``xrev`` of the
        # children solved before that advance the counter (numbered 0 .. nx - 1 in ``xs``, read
        # at their change points, their triples at step k - 1 in ``xv``, ``xa``, ``xb``).
        e0 = start[t0 - known]
        ne = start[t1 - known] - e0
        ek = np.zeros(ne, np.int8)
        ei = np.zeros(ne, np.int64)
        ecv = np.zeros(ne, np.int64)
        eca = np.zeros(ne, np.int64)
        rstart = np.zeros(size + 1, np.int64)
        xs = np.empty(ne + 1, np.int64)
        xcount = np.zeros(ne + 2, np.int64)
        nx = 0
        for j in range(size):
            if not moves[j]:
                continue
            s = t0 + j
            for x in range(start[s - known], start[s - known + 1]):
                c = child[x]
                if t0 <= c < t1:
                    ei[x - e0] = c - t0
                    rstart[c - t0 + 1] += 1
                elif passer[j]:
                    ek[x - e0] = 3
                elif kind == 3 or np.int64(popcount(playable & ~(k1[c] | k2[c]))) == e:
                    if xmark[c] != e:
                        xmark[c] = e
                        xnum[c] = nx
                        xs[nx] = c
                        nx += 1
                    ek[x - e0] = 1
                    ei[x - e0] = xnum[c]
                    xcount[xnum[c] + 1] += 1
                else:
                    y = hstart[c + 1] - 1  # the child's triple with the whole count left
                    ek[x - e0] = 2
                    ecv[x - e0] = -np.int64(hv[y])
                    eca[x - e0] = 1 + np.int64(ha[y]) + np.int64(hb[y]) * limit
        for j in range(size):
            rstart[j + 1] += rstart[j]
        for i in range(nx):
            xcount[i + 1] += xcount[i]
        rev = np.empty(rstart[size], np.int64)
        xrev = np.empty(xcount[nx], np.int64)
        cursor = rstart[:size].copy()
        xcursor = xcount[:nx].copy()
        for j in range(size):
            if not moves[j]:
                continue
            s = t0 + j
            for x in range(start[s - known] - e0, start[s - known + 1] - e0):
                if ek[x] == 0:
                    rev[cursor[ei[x]]] = j
                    cursor[ei[x]] += 1
                elif ek[x] == 1:
                    xrev[xcursor[ei[x]]] = j
                    xcursor[ei[x]] += 1
        xv = np.empty(nx, np.int64)
        xa = np.empty(nx, np.int64)
        xb = np.empty(nx, np.int64)
        for i in range(nx):
            y = hstart[xs[i]]
            xv[i], xa[i], xb[i] = hv[y], ha[y], hb[y]
        # What to recompute at each step: ``nxt``, the boards scheduled for the next step (a
        # change below, a guess to check); ``head``, buckets (linked lists) for later steps (a
        # switch of slope); ``xat``, the children solved before whose triple changes, by step
        # (read at the step after); ``head2``, cs61b passes whose child was solved before.
        head = np.full(limit + 2, -1, np.int64)
        head2 = np.full(limit + 2, -1, np.int64)
        ev_s = np.empty(1024, np.int64)
        ev_next = np.empty(1024, np.int64)
        nev = 0
        xat_start = np.zeros(limit + 3, np.int64)
        for i in range(nx):
            c = xs[i]
            for y in range(hstart[c] + 1, hstart[c + 1]):
                if hk[y] + 1 <= limit:
                    xat_start[hk[y] + 2] += 1
        for k in range(limit + 2):
            xat_start[k + 1] += xat_start[k]
        xat = np.empty(xat_start[limit + 2], np.int64)  # (external number, entry) pairs: x * 2**32 + y
        xcur = xat_start.copy()
        for i in range(nx):
            c = xs[i]
            for y in range(hstart[c] + 1, hstart[c + 1]):
                if hk[y] + 1 <= limit:
                    xat[xcur[hk[y] + 1]] = (i << 32) | (y - hstart[c])
                    xcur[hk[y] + 1] += 1
        nxt = np.empty(size, np.int64)
        nnxt = 0
        for j in range(size):
            if passer[j]:
                c = child[start[t0 + j - known]]
                if not t0 <= c < t1:
                    for y in range(hstart[c] + 1, hstart[c + 1]):
                        ev_s, ev_next, nev = _schedule(head2, ev_s, ev_next, nev, hk[y], j)
        stamp = np.full(size, -1, np.int64)  # the last step at which the board was recomputed
        stamp2 = np.full(size, -1, np.int64)
        queued = np.full(size, -1, np.int64)  # the last step the board was put in a bucket for
        changed = np.full(size, -1, np.int64)  # the last step the board's triple changed
        tj = np.empty(size, np.int64)
        tv = np.empty(size, np.int64)
        ta = np.empty(size, np.int64)
        tb = np.empty(size, np.int64)
        plist = np.empty(size, np.int64)
        ch_j = np.empty(size, np.int64)  # the changes of a step, and the values before them
        ch_v = np.empty(size, np.int64)
        for k in range(1, limit + 1):
            # 1. The boards to recompute, from the triples of step k - 1.
            nt = 0
            if k == 1:
                for j in range(size):
                    if moves[j] and not passer[j]:
                        stamp[j] = k
                        tj[nt] = j
                        nt += 1
            else:
                for i in range(nnxt):
                    j = nxt[i]
                    if stamp[j] != k:
                        stamp[j] = k
                        tj[nt] = j
                        nt += 1
                nt = _drain(head, k, ev_s, ev_next, stamp, tj, nt)
                for w in range(xat_start[k], xat_start[k + 1]):
                    i = xat[w] >> 32
                    y = hstart[xs[i]] + (xat[w] & 0xFFFFFFFF)
                    old, new = -xv[i], -np.int64(hv[y])
                    xv[i], xa[i], xb[i] = hv[y], ha[y], hb[y]  # its triple at k - 1
                    for z in range(xcount[i], xcount[i + 1]):
                        j = xrev[z]
                        if stamp[j] != k and (old >= cur_v[j] or new >= cur_v[j]):
                            stamp[j] = k
                            tj[nt] = j
                            nt += 1
            nnxt = 0
            progress[3] += nt
            for i in range(nt):
                v, a, b, kstar = _step(t0 + tj[i], k, known, start, e0, ek, ei, ecv, eca, cur_v, cur_a, cur_b,
                                       xv, xa, xb)
                tv[i], ta[i], tb[i] = v, a, b
                if k < kstar <= limit:
                    ev_s, ev_next, nev = _schedule(head, ev_s, ev_next, nev, kstar, tj[i])
            # 2. Commit the changes: the boards that move, then the cs61b passes (same step).
            nch = 0
            npass = 0
            if k == 1:
                for j in range(size):
                    if passer[j]:
                        stamp2[j] = k
                        plist[npass] = j
                        npass += 1
            else:
                npass = _drain(head2, k, ev_s, ev_next, stamp2, plist, 0)
            for rnd in range(2):
                todo = nt if rnd == 0 else npass
                for i in range(todo):
                    if rnd == 0:
                        j, v, a, b = tj[i], tv[i], ta[i], tb[i]
                    else:
                        j = plist[i]
                        c = child[start[t0 + j - known]]
                        if t0 <= c < t1:
                            v, a, b = -cur_v[c - t0], 1 + cur_a[c - t0], cur_b[c - t0]
                        else:
                            y = entry_at(hstart, hk, c, k)
                            v, a, b = -np.int64(hv[y]), 1 + np.int64(ha[y]), np.int64(hb[y])
                    if v == cur_v[j] and a == cur_a[j] and b == cur_b[j]:
                        continue
                    if rnd == 0 and changed[j] == k - 1 and b == 0 and cur_b[j] == 0 and v == cur_v[j] \
                            and a == cur_a[j] + 1:
                        # The depth grew by one in one step: guess that it keeps growing (slope
                        # 1), and check the guess at the next step (see the module docstring).
                        a, b = a - k, np.int64(1)
                        if k < limit and queued[j] != k + 1:
                            queued[j] = k + 1
                            nxt[nnxt] = j
                            nnxt += 1
                    ch_j[nch], ch_v[nch] = j, cur_v[j]
                    nch += 1
                    changed[j] = k
                    cur_v[j], cur_a[j], cur_b[j] = v, a, b
                    if nlog == log.shape[0]:
                        log = grow_rows(log, 2 * nlog)
                    log[nlog, 0], log[nlog, 1], log[nlog, 2], log[nlog, 3], log[nlog, 4] = j, k, v, a, b
                    nlog += 1
                    if rnd == 0:  # its cs61b passes follow it at this step
                        for z in range(rstart[j], rstart[j + 1]):
                            q = rev[z]
                            if passer[q] and stamp2[q] != k:
                                stamp2[q] = k
                                plist[npass] = q
                                npass += 1
            # 3. Schedule the parents that a change can move, at the next step.
            if k < limit:
                for i in range(nch):
                    j, old = ch_j[i], -ch_v[i]
                    new = -cur_v[j]
                    for z in range(rstart[j], rstart[j + 1]):
                        q = rev[z]
                        if passer[q] or queued[q] == k + 1 or (old < cur_v[q] and new < cur_v[q]):
                            continue
                        queued[q] = k + 1
                        nxt[nnxt] = q
                        nnxt += 1
            if abort[0] != 0:
                return ABORTED, hk, hv, ha, hb, nent
            if nent + nlog > max_entries:
                return OUT_OF_MEMORY, hk, hv, ha, hb, nent
        # The tier's histories, board by board (the log is in order of k).
        count = np.zeros(size + 1, np.int64)
        for i in range(nlog):
            count[log[i, 0] + 1] += 1
        for j in range(size):
            count[j + 1] += count[j]
        if nent + nlog > hk.shape[0]:
            cap = max(nent + nlog, 2 * hk.shape[0])
            hk = grow(hk, cap)
            hv = grow(hv, cap)
            ha = grow(ha, cap)
            hb = grow(hb, cap)
        for j in range(size):
            hstart[t0 + j + 1] = nent + count[j + 1]
        for i in range(nlog):
            y = nent + count[log[i, 0]]
            count[log[i, 0]] += 1
            hk[y], hv[y], ha[y], hb[y] = log[i, 1], log[i, 2], log[i, 3], log[i, 4]
        nent += nlog
        progress[2] = t1 - known
    return OK, hk, hv, ha, hb, nent
