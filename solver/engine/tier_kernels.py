"""The tier solver's compiled steps: game-agnostic, on plain arrays (see :mod:`solver.tiersolver`).

Nothing here knows a game. A position is a number in its tier; a game hands over
its moves as compressed rows (``start``, ``slot``, ``child``: slot 0 is the same
tier, slot s >= 1 the s-th tier the moves leave to) and, for loopy tiers, its
un-moves the same way. Values are the mover's final score (an integer margin),
depths the plies to the end (SPEC section 4).

*Stored results* are uint16 codes: ``(value + VALUE_BIAS) << DEPTH_BITS | depth``,
with depth :data:`DEPTH_INF` for a draw by infinite play and 0 for "no position".
Values from -31 to +31 and depths up to 1022 fit; the solver refuses more.

*Cycle resolution inside a tier* is the retrograde propagation of
:mod:`.retro` (:func:`settle` is shared): for k from the largest margin down to 0,
events at level k are processed in order of depth; a position whose child is lost
by k is won by k at 1 + that child's depth, one whose last unresolved child is won
by k (or, at k = 0, drawn in finitely many plies) is lost by k (drawn) at 1 + that
depth. Children in other tiers are summarised per position by two events, which is
all the propagation can see of them: the best win (largest k, then least depth)
and the last loss (least margin for the child's mover, then greatest depth),
since a counter reaches zero at its last event only. A child drawn by infinite
play never resolves its parent. What is never resolved is a draw by infinite play.
"""

import numpy as np
from numba import njit

VALUE_BIAS = 32
DEPTH_BITS = 10
DEPTH_INF = (1 << DEPTH_BITS) - 1   # stored depth of a draw by infinite play
MAX_DEPTH = DEPTH_INF - 1
MAX_VALUE = VALUE_BIAS - 1
NO_POSITION = 0                     # code of a number that is not a position
NOT_FINAL = np.int16(1000)          # ``final``: the game is not over
UNUSED = np.int16(-1000)            # ``final``: not a position


@njit(cache=True)
def settle(j, w, d, t0, value, depth, cnt, fifo, tail):
    """A child of position t0 + j resolved with value w (its mover's side) at depth d.
    Returns the new queue length. Unresolved positions have depth -1."""
    s = t0 + j
    if depth[s] != -1:
        return tail
    if w < 0:  # the child's mover loses: moving there wins
        value[s] = -w
        depth[s] = d + 1
        fifo[tail] = j
        return tail + 1
    cnt[j] -= 1
    if cnt[j] == 0:  # every move leads where the opponent has at least w (or, for w = 0, a draw)
        value[s] = -w
        depth[s] = d + 1
        fifo[tail] = j
        return tail + 1
    return tail


@njit(cache=True)
def counting_order(keys, nkeys):
    """Stable order of ``keys`` (ints in 0 .. nkeys - 1)."""
    count = np.zeros(nkeys + 1, np.int64)
    for k in keys:
        count[k + 1] += 1
    for i in range(nkeys):
        count[i + 1] += count[i]
    out = np.empty(keys.shape[0], np.int64)
    for i in range(keys.shape[0]):
        out[count[keys[i]]] = i
        count[keys[i]] += 1
    return out


@njit(cache=True)
def decode(code):
    """(value, depth) of a stored code; depth -1 for a draw by infinite play."""
    v = np.int64(code >> DEPTH_BITS) - VALUE_BIAS
    d = np.int64(code & DEPTH_INF)
    return v, (np.int64(-1) if d == DEPTH_INF else d)


@njit(cache=True, nogil=True)
def count_inside(start, slot):
    """Moves of each position that stay in the tier (slot 0)."""
    n = start.shape[0] - 1
    out = np.zeros(n, np.uint16)
    for i in range(n):
        for x in range(start[i], start[i + 1]):
            if slot[x] == 0:
                out[i] += 1
    return out


@njit(cache=True, nogil=True)
def gather_codes(slot, child, s, codes, out):
    """out[x] = codes[child[x]] for the edges x in slot s."""
    for x in range(child.shape[0]):
        if slot[x] == s:
            out[x] = codes[child[x]]


@njit(cache=True, nogil=True)
def summarise(final, inside, start, slot, child_code):
    """What the propagation needs of positions lo .. lo + n - 1, from their moves.

    ``inside[i]``: i's moves that stay in the tier; ``child_code[x]``: the stored code of
    edge x's child when it is in another tier (edges in slot 0 are skipped).
    Returns (value, depth, cnt, wk, wd, lk, ld, kmax): terminal positions resolved
    (depth 0), others unresolved (depth -1), unused ones depth -2; ``cnt`` the moves
    inside the tier, plus one for each event below, plus one if a child elsewhere is
    drawn by infinite play (a winning child never counts down: it settles); (wk, wd)
    the best win event (wk 0: none), (lk, ld) the last loss event (lk -1: none);
    ``kmax`` the largest margin seen."""
    n = final.shape[0]
    value = np.zeros(n, np.int8)
    depth = np.full(n, -1, np.int16)
    cnt = np.zeros(n, np.uint16)
    wk = np.zeros(n, np.int8)
    wd = np.zeros(n, np.int16)
    lk = np.full(n, -1, np.int8)
    ld = np.zeros(n, np.int16)
    kmax = 0
    for i in range(n):
        f = final[i]
        if f == UNUSED:
            depth[i] = -2
            continue
        if f != NOT_FINAL:
            value[i] = f
            depth[i] = 0
            kmax = max(kmax, abs(np.int64(f)))
            continue
        blocked = 0
        for x in range(start[i], start[i + 1]):
            if slot[x] == 0:
                continue
            w, d = decode(child_code[x])
            if d < 0:  # a draw by infinite play never resolves the parent
                blocked = 1
                continue
            kmax = max(kmax, abs(w))
            if w < 0:
                if -w > wk[i] or (-w == wk[i] and d < wd[i]):
                    wk[i] = -w
                    wd[i] = d
            elif lk[i] < 0 or w < lk[i] or (w == lk[i] and d > ld[i]):
                lk[i] = w
                ld[i] = d
        cnt[i] = inside[i] + (1 if lk[i] >= 0 else 0) + (1 if wk[i] > 0 else 0) + blocked
    return value, depth, cnt, wk, wd, lk, ld, kmax


@njit(cache=True, nogil=True)
def internal_edges(lo, start, slot, child):
    """The (child, parent) pairs of the moves inside the tier, for solving without un-moves."""
    n = start.shape[0] - 1
    kids = np.empty(start[n], np.int64)
    pars = np.empty(start[n], np.int64)
    k = 0
    for i in range(n):
        for x in range(start[i], start[i + 1]):
            if slot[x] == 0:
                kids[k] = child[x]
                pars[k] = lo + i
                k += 1
    return kids[:k].copy(), pars[:k].copy()


@njit(cache=True, nogil=True)
def reverse_rows(n, kids, pars):
    """Compressed rows of parents by child (a counting sort of the pairs)."""
    order = counting_order(kids, n)
    rstart = np.zeros(n + 1, np.int64)
    for c in kids:
        rstart[c + 1] += 1
    for j in range(n):
        rstart[j + 1] += rstart[j]
    return rstart, pars[order]


@njit(cache=True, nogil=True)
def gather_rows(idxs, rstart, rows):
    """Rows ``idxs`` of compressed rows, as compressed rows."""
    n = idxs.shape[0]
    start = np.empty(n + 1, np.int64)
    total = 0
    for i in range(n):
        start[i] = total
        total += rstart[idxs[i] + 1] - rstart[idxs[i]]
    start[n] = total
    out = np.empty(total, np.int64)
    for i in range(n):
        out[start[i]:start[i + 1]] = rows[rstart[idxs[i]]:rstart[idxs[i] + 1]]
    return start, out


@njit(cache=True, nogil=True)
def level_events(k, value, depth, wk, wd, lk, ld):
    """Events of level k: (terminal positions with margin k, then the positions whose summarised
    children give an event at level k as (position, w, depth) sorted by depth)."""
    n = value.shape[0]
    nt = 0
    ne = 0
    maxd = 0
    for i in range(n):
        if depth[i] == 0 and abs(np.int64(value[i])) == k:
            nt += 1
        if depth[i] == -1:
            if wk[i] == k and k > 0:
                ne += 1
                maxd = max(maxd, np.int64(wd[i]))
            if lk[i] == k:
                ne += 1
                maxd = max(maxd, np.int64(ld[i]))
    terms = np.empty(nt, np.int64)
    eidx = np.empty(ne, np.int64)
    ew = np.empty(ne, np.int8)
    ed = np.empty(ne, np.int16)
    a = 0
    b = 0
    for i in range(n):
        if depth[i] == 0 and abs(np.int64(value[i])) == k:
            terms[a] = i
            a += 1
        if depth[i] == -1:
            if wk[i] == k and k > 0:
                eidx[b] = i
                ew[b] = -k
                ed[b] = wd[i]
                b += 1
            if lk[i] == k:
                eidx[b] = i
                ew[b] = k
                ed[b] = ld[i]
                b += 1
    o = counting_order(ed, maxd + 1)  # by depth, stable
    return terms, eidx[o], ew[o], ed[o]


@njit(cache=True, nogil=True)
def apply_events(eidx, ew, d, value, depth, cnt):
    """Children in other tiers resolving their parents (events at depth d); returns the positions
    resolved (at depth d + 1)."""
    out = np.empty(eidx.shape[0], np.int64)
    tail = 0
    for i in range(eidx.shape[0]):
        tail = settle(eidx[i], np.int64(ew[i]), d, 0, value, depth, cnt, out, tail)
    return out[:tail].copy()


@njit(cache=True, nogil=True)
def apply_parents(front, pstart, parents, value, depth, cnt):
    """Positions ``front`` (resolved, all at one depth) resolving their parents in the tier
    (each parent listed once per move it has to the child); returns the positions resolved."""
    out = np.empty(parents.shape[0], np.int64)
    tail = 0
    for i in range(front.shape[0]):
        c = front[i]
        w = np.int64(value[c])
        d = np.int64(depth[c])
        for y in range(pstart[i], pstart[i + 1]):
            tail = settle(parents[y], w, d, 0, value, depth, cnt, out, tail)
    return out[:tail].copy()


@njit(cache=True, nogil=True)
def encode(value, depth):
    """Stored codes of a solved tier; positions never resolved are draws by infinite play.
    Returns (codes, largest finite depth)."""
    n = value.shape[0]
    out = np.empty(n, np.uint16)
    maxd = 0
    for i in range(n):
        d = np.int64(depth[i])
        if d == -2:
            out[i] = NO_POSITION
        elif d == -1:
            out[i] = (VALUE_BIAS << DEPTH_BITS) | DEPTH_INF
        else:
            maxd = max(maxd, d)
            out[i] = ((np.int64(value[i]) + VALUE_BIAS) << DEPTH_BITS) | min(d, MAX_DEPTH)
    return out, maxd


@njit(cache=True, nogil=True)
def check_chunk(lo, final, start, slot, child, own, child_code):
    """Check stored codes against the moves (the verification pass of :mod:`solver.tiersolver`).

    For every position: a finished game stores its score at depth 0; otherwise the value is
    the best over the children; a decided position (value != 0) or a finite draw has a finite
    depth equal to 1 + the least depth of its optimal children (winner) or the greatest (others);
    a draw by infinite play has an optimal child drawn by infinite play (and, by the first rule,
    no child that wins for the mover). Returns (positions checked, failures, first failure or -1)."""
    n = final.shape[0]
    checked = 0
    bad = 0
    first = np.int64(-1)
    for i in range(n):
        code = own[lo + i]
        f = final[i]
        if f == UNUSED:
            if code != NO_POSITION:
                bad += 1
                first = lo + i if first < 0 else first
            continue
        checked += 1
        if code == NO_POSITION:
            bad += 1
            first = lo + i if first < 0 else first
            continue
        v, d = decode(code)
        if f != NOT_FINAL:
            if v != f or d != 0:
                bad += 1
                first = lo + i if first < 0 else first
            continue
        best = np.int64(-1000)
        for x in range(start[i], start[i + 1]):
            c = own[child[x]] if slot[x] == 0 else child_code[x]
            cv, cd = decode(c)
            best = max(best, -cv)
        lo_d = np.int64(1 << 40)
        hi_d = np.int64(-1)
        inf_opt = False
        for x in range(start[i], start[i + 1]):
            c = own[child[x]] if slot[x] == 0 else child_code[x]
            cv, cd = decode(c)
            if -cv != best:
                continue
            if cd < 0:
                inf_opt = True
            else:
                lo_d = min(lo_d, cd)
                hi_d = max(hi_d, cd)
        ok = v == best
        if ok:
            if d < 0:
                ok = v == 0 and inf_opt
            elif v > 0:
                ok = lo_d < (1 << 40) and d == lo_d + 1
            else:
                ok = (not inf_opt) and d == hi_d + 1
        if not ok:
            bad += 1
            first = lo + i if first < 0 else first
    return checked, bad, first


@njit(cache=True, nogil=True)
def preferred_children(start, child_code, order):
    """For each position, the edge of its preferred move (SPEC section 4), or -1 when it has none:
    among the moves that keep the best value, the least depth when the mover wins and the
    greatest otherwise (a draw by infinite play counts as the greatest), then the least
    ``order`` (notation order). Returns (edge, value, depth) with depth -1 for infinite play."""
    n = start.shape[0] - 1
    edge = np.full(n, -1, np.int64)
    value = np.zeros(n, np.int64)
    depth = np.zeros(n, np.int64)
    for i in range(n):
        best = np.int64(-1000)
        for x in range(start[i], start[i + 1]):
            v, d = decode(child_code[x])
            best = max(best, -v)
        pick = np.int64(-1)
        pick_d = np.int64(0)
        for x in range(start[i], start[i + 1]):
            v, d = decode(child_code[x])
            if -v != best:
                continue
            dd = np.int64(1 << 40) if d < 0 else d
            if pick < 0:
                better = True
            elif best > 0:
                better = dd < pick_d or (dd == pick_d and order[x] < order[pick])
            else:
                better = dd > pick_d or (dd == pick_d and order[x] < order[pick])
            if better:
                pick = x
                pick_d = dd
        edge[i] = pick
        if pick >= 0:
            value[i] = best
            depth[i] = -1 if pick_d == (1 << 40) else pick_d + 1
    return edge, value, depth
