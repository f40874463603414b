"""The tier solver's compiled steps: game-agnostic, on plain arrays (see :mod:`solver.tiers.solver`).

Nothing here knows a game. A position is a number in its tier; a game hands over
its moves as compressed rows (``start``, ``slot``, ``child``: slot 0 is the same
tier, slot s >= 1 the s-th tier the moves leave to) and, for loopy tiers, its
un-moves the same way. Values are the mover's final score (an integer margin),
depths the plies to the end (SPEC section 4).

*Stored results* are uint16 codes: ``(value + VALUE_BIAS) << DEPTH_BITS | depth``,
with depth :data:`DEPTH_INF` for a draw by infinite play and 0 for "no position".
Values from -31 to +31 and depths up to 1022 fit; the solver refuses more.

*Cycle resolution inside a tier* is the retrograde propagation of
:mod:`.retro` (the rule of :func:`settle`, which the retro engine shares): for k from
the largest margin down to 0, events at level k are processed in order of depth; a
position whose child is lost by k is won by k at 1 + that child's depth, one whose last
unresolved child is won by k (or, at k = 0, drawn in finitely many plies) is lost by k
(drawn) at 1 + that depth. Children in other tiers are summarised per position by one
event, which is all the propagation can see of them: the best win (largest k, then least
depth) or, when no child elsewhere is lost, the last loss (least margin for the child's
mover, then greatest depth), since a counter reaches zero at its last event only (and
never while a win is pending). A child drawn by infinite play never resolves its parent.
What is never resolved is a draw by infinite play.

*The working set* of a tier is three bytes a number (:func:`summarise`): the uint16 code,
which holds an unresolved position's event until the position is settled, and a one-byte
counter of the moves left (:data:`COUNT_OVER` and a side table above 254).
:func:`apply_owned` settles the parents in one range of numbers, so threads (or workers)
owning disjoint ranges apply a step at once.
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
INF_CODE = (VALUE_BIAS << DEPTH_BITS) | DEPTH_INF   # a draw by infinite play (and: no event, below)
COUNT_OVER = 255                    # ``cnt``: the count is in the overflow table


@njit(cache=True)
def settle(j, w, d, t0, value, depth, cnt, fifo, tail):
    """A child of position t0 + j resolved with value w (its mover's side) at depth d.
    Returns the new queue length. Unresolved positions have depth -1 (the retro engine's arrays)."""
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
def pack(v, d):
    """The stored code of value v at depth d."""
    return np.uint16(((np.int64(v) + VALUE_BIAS) << DEPTH_BITS) | np.int64(d))


@njit(cache=True, nogil=True)
def summarise(final, inside, start, slot, child_code):
    """What the propagation needs of positions lo .. lo + n - 1, from their moves: three bytes
    a number, ``code`` (uint16) and ``cnt`` (uint8).

    ``inside[i]``: i's moves that stay in the tier; ``child_code[x]``: the stored code of
    edge x's child when it is in another tier (edges in slot 0 are skipped).

    A finished game or a number that is no position gets its final code and ``cnt`` 0 (settled).
    An unresolved position has ``cnt`` >= 1: its moves inside the tier, plus one for its event
    below, plus one if a child elsewhere is drawn by infinite play; its ``code`` holds, until it
    is settled, its one event from the children in other tiers, as the code it would be given
    by it: the best win (``pack(k, d)``, k > 0: a child lost by k at depth d, the largest k then
    least d) or, when there is none, the last loss (``pack(-k, d)``: the least margin k >= 0 a
    child wins by, then the greatest depth), or :data:`INF_CODE` for none. The last loss of a
    position with a win event is never needed: the win event is never counted down, so the
    counter cannot reach zero before the win settles the position. A position with no move and
    no event is never resolved: a draw by infinite play, settled at once. A count above 254 is
    stored as :data:`COUNT_OVER` and given in the overflow rows ``(ov_pos, ov_cnt)``.
    Returns (code, cnt, ov_pos, ov_cnt, kmax, finals): ``kmax`` the largest margin seen,
    ``finals`` the number of finished games."""
    n = final.shape[0]
    code = np.empty(n, np.uint16)
    cnt = np.zeros(n, np.uint8)
    ov_pos = np.empty(n, np.int64)
    ov_cnt = np.empty(n, np.int64)
    m = 0
    kmax = 0
    finals = 0
    for i in range(n):
        f = final[i]
        if f == UNUSED:
            code[i] = NO_POSITION
            continue
        if f != NOT_FINAL:
            code[i] = pack(f, 0)
            kmax = max(kmax, abs(np.int64(f)))
            finals += 1
            continue
        blocked = 0
        wk = 0
        wd = 0
        lk = -1
        ld = 0
        for x in range(start[i], start[i + 1]):
            if slot[x] == 0:
                continue
            w, d = decode(child_code[x])
            if d < 0:  # a draw by infinite play never resolves the parent
                blocked = 1
                continue
            kmax = max(kmax, abs(w))
            if w < 0:
                if -w > wk or (-w == wk and d < wd):
                    wk = -w
                    wd = d
            elif lk < 0 or w < lk or (w == lk and d > ld):
                lk = w
                ld = d
        c = np.int64(inside[i]) + blocked
        if wk > 0:
            code[i] = pack(wk, wd)
            c += 1
        elif lk >= 0:
            code[i] = pack(-lk, ld)
            c += 1
        else:
            code[i] = INF_CODE
        if c >= COUNT_OVER:
            cnt[i] = COUNT_OVER
            ov_pos[m] = i
            ov_cnt[m] = c
            m += 1
        else:
            cnt[i] = c  # 0: no move and no event, a draw by infinite play
    return code, cnt, ov_pos[:m].copy(), ov_cnt[:m].copy(), kmax, finals


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
def is_event(k, c):
    """Whether the code of an unresolved position holds an event of level k."""
    if (c & DEPTH_INF) == DEPTH_INF:
        return False
    v = np.int64(c >> DEPTH_BITS) - VALUE_BIAS
    return (v == k and k > 0) or v == -k


@njit(cache=True, nogil=True)
def level_census(k, lo, hi, code, cnt, like):
    """Level k in numbers lo .. hi - 1: the finished games with margin k (sorted, of the dtype
    of ``like``) and the number of events at each depth (:func:`summarise`)."""
    hist = np.zeros(DEPTH_INF + 1, np.int64)
    nt = 0
    for i in range(lo, hi):
        c = code[i]
        if cnt[i] == 0:
            if c != NO_POSITION and (c & DEPTH_INF) == 0 and abs(np.int64(c >> DEPTH_BITS) - VALUE_BIAS) == k:
                nt += 1
        elif is_event(k, c):
            hist[c & DEPTH_INF] += 1
    terms = np.empty(nt, like.dtype)
    a = 0
    for i in range(lo, hi if nt > 0 else lo):
        c = code[i]
        if cnt[i] == 0 and c != NO_POSITION and (c & DEPTH_INF) == 0 and \
                abs(np.int64(c >> DEPTH_BITS) - VALUE_BIAS) == k:
            terms[a] = i
            a += 1
    return terms, hist


@njit(cache=True, nogil=True)
def window_events(k, lo, hi, d0, d1, code, cnt, like):
    """The unresolved positions of lo .. hi - 1 with an event of level k at a depth d0 .. d1 - 1,
    sorted by depth then number (of the dtype of ``like``), and where each depth starts
    (``dstart[d - d0]``)."""
    dstart = np.zeros(d1 - d0 + 1, np.int64)
    for i in range(lo, hi):
        c = code[i]
        if cnt[i] != 0 and is_event(k, c):
            d = np.int64(c & DEPTH_INF)
            if d0 <= d < d1:
                dstart[d - d0 + 1] += 1
    for j in range(d1 - d0):
        dstart[j + 1] += dstart[j]
    fill = dstart[:-1].copy()
    out = np.empty(dstart[d1 - d0], like.dtype)
    for i in range(lo, hi if out.shape[0] > 0 else lo):
        c = code[i]
        if cnt[i] != 0 and is_event(k, c):
            d = np.int64(c & DEPTH_INF)
            if d0 <= d < d1:
                out[fill[d - d0]] = i
                fill[d - d0] += 1
    return out, dstart


@njit(cache=True, nogil=True)
def _listed_slot(c, unresolved):
    """Where :func:`all_levels` lists a number with code ``c``: a finished game of level k in
    slot k, an unresolved position whose event is of level k at depth d in slot VALUE_BIAS + k *
    (DEPTH_INF + 1) + d (the level of an event is its margin), or nowhere (-1)."""
    if c == NO_POSITION or (c & DEPTH_INF) == DEPTH_INF:
        return -1
    k = abs(np.int64(c >> DEPTH_BITS) - VALUE_BIAS)
    if unresolved:
        return VALUE_BIAS + k * (DEPTH_INF + 1) + np.int64(c & DEPTH_INF)
    return k if (c & DEPTH_INF) == 0 else -1


@njit(cache=True, nogil=True)
def all_levels(lo, hi, code, cnt, like):
    """Every level's finished games and events in numbers lo .. hi - 1 in one pass (a small
    tier's, instead of a census and a window for each level; the events of a position settled
    later are kept, and :func:`level_events` drops them): the finished games sorted by level
    then number and where level k starts (``tstart[k]``), the events sorted by level, depth
    and number and where level k and depth d start (``estart[k * (DEPTH_INF + 1) + d]``); of
    the dtype of ``like``."""
    slots = VALUE_BIAS + VALUE_BIAS * (DEPTH_INF + 1)
    start = np.zeros(slots + 1, np.int64)
    for i in range(lo, hi):
        j = _listed_slot(code[i], cnt[i] != 0)
        if j >= 0:
            start[j + 1] += 1
    for j in range(slots):
        start[j + 1] += start[j]
    out = np.empty(start[slots], like.dtype)
    fill = start[:-1].copy()
    for i in range(lo, hi):
        j = _listed_slot(code[i], cnt[i] != 0)
        if j >= 0:
            out[fill[j]] = i
            fill[j] += 1
    split = start[VALUE_BIAS]
    return out[:split], start[:VALUE_BIAS + 1], out[split:], start[VALUE_BIAS:] - split


@njit(cache=True, nogil=True)
def level_events(k, events, estart, cnt):
    """Level k's events from :func:`all_levels` whose positions are still unresolved, as
    :func:`window_events` gives them for depths 0 .. DEPTH_INF - 1 (the positions, where each
    depth starts), and the number at each depth (as :func:`level_census`)."""
    width = DEPTH_INF + 1
    hist = np.zeros(width, np.int64)
    dstart = np.zeros(width, np.int64)
    out = np.empty(estart[(k + 1) * width] - estart[k * width], events.dtype)
    tail = 0
    for d in range(DEPTH_INF):
        dstart[d] = tail
        for y in range(estart[k * width + d], estart[k * width + d + 1]):
            s = events[y]
            if cnt[s] != 0:
                out[tail] = s
                tail += 1
        hist[d] = tail - dstart[d]
    dstart[DEPTH_INF] = tail
    return out[:tail].copy(), dstart, hist


@njit(cache=True, nogil=True)
def settle_packed(s, w, d, code, cnt, ov_pos, ov_cnt, out, tail):
    """The rule of :func:`settle` on the tier solver's three bytes a number (:func:`summarise`):
    a child of position s resolved with value w (its mover's side) at depth d; a position
    settled is added to ``out``. Returns the new length of ``out``."""
    c = cnt[s]
    if c == 0:  # settled already
        return tail
    if w >= 0:  # the child's mover wins (or draws): one move fewer left to resolve
        if c == COUNT_OVER:
            j = np.searchsorted(ov_pos, s)
            ov_cnt[j] -= 1
            if ov_cnt[j] > 0:
                return tail
        else:
            cnt[s] = c - 1
            if c > 1:
                return tail
    # a child lost for its mover, or every move leads where the opponent has at least w
    code[s] = pack(-w, d + 1)
    cnt[s] = 0
    out[tail] = s
    return tail + 1


@njit(cache=True, nogil=True)
def apply_owned(lo, hi, events, d, front, pstart, parents, code, cnt, ov_pos, ov_cnt, ordered):
    """One step of the propagation for the positions lo .. hi - 1 (one owner's range):
    ``events`` (positions of the range whose event is at depth d) resolve, then the
    positions ``front`` (settled at depth d) resolve their parents in the range (``parents
    [pstart[i]:pstart[i + 1]]`` those of ``front[i]``, each once per move). Returns the
    positions settled (at depth d + 1), of the dtype of ``events``: sorted when ``ordered``
    (the next step then reads a large tier's codes in order), else in the order they settled
    (the codes do not depend on it: every settlement of a step is at one level and depth, and
    a loss settles only when the last move is resolved). Owners of disjoint ranges may run at
    once."""
    # room for every settlement without a pass to count them: a position settles once at most
    out = np.empty(min(events.shape[0] + parents.shape[0], hi - lo), events.dtype)
    tail = 0
    for e in events:
        tail = settle_packed(e, -(np.int64(code[e] >> DEPTH_BITS) - VALUE_BIAS), d, code, cnt, ov_pos, ov_cnt, out, tail)
    for i in range(front.shape[0]):
        c = code[front[i]]
        w = np.int64(c >> DEPTH_BITS) - VALUE_BIAS
        dc = np.int64(c & DEPTH_INF)
        for y in range(pstart[i], pstart[i + 1]):
            p = parents[y]
            if lo <= p < hi:
                tail = settle_packed(p, w, dc, code, cnt, ov_pos, ov_cnt, out, tail)
    res = out[:tail].copy()
    if ordered:
        res.sort()
    return res


@njit(cache=True, nogil=True)
def merge_sorted(parts_flat):
    """The numbers of one owner settled over several parts of a front, sorted (in place: a view
    of the next front)."""
    parts_flat.sort()
    return parts_flat


@njit(cache=True, nogil=True)
def finish(lo, hi, code, cnt):
    """Positions of lo .. hi - 1 never resolved become draws by infinite play; returns the
    largest finite depth."""
    maxd = 0
    for i in range(lo, hi):
        if cnt[i] != 0:
            code[i] = INF_CODE
            cnt[i] = 0
        elif (code[i] & DEPTH_INF) != DEPTH_INF:
            maxd = max(maxd, np.int64(code[i] & DEPTH_INF))
    return maxd


@njit(cache=True, nogil=True)
def check_chunk(lo, final, start, slot, child, own, child_code):
    """Check stored codes against the moves (the verification pass of :mod:`solver.tiers.solver`).

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
