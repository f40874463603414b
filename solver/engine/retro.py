"""The retrograde engine, compiled: every position reachable from the roots, solved exactly.

1. **Enumerate** breadth-first from the roots. Positions are canonical
   ``(mine, theirs)`` pairs (mover's side, least image over the board symmetries)
   in an open-addressing hash table of numpy arrays; each position's moves are
   stored as child indices (compressed rows). Under a rule set with a counter the
   counter is left out: the positions are boards, and :mod:`.counters` solves each
   at every counter value (steps 2 and 3 below are for the classic rules; the
   answers of both are *histories*, one triple per position under ``classic``).
2. **Tiers**: positions are grouped by their number of empty squares. A clone
   fills a square (the child lies in a tier already solved); a jump or a pass
   keeps the tier. Tiers are solved from the fullest boards back to the root.
3. **Inside a tier** (where jumps make cycles) values are resolved exactly by
   bucketed retrograde propagation with counters of unresolved successors. For
   k = 64 ... 1 in turn, a position whose child is lost by k (mover's side) is won
   by k; one whose every child is won by at least k is lost by k. Events are
   processed in order of depth: children in earlier tiers enter as events at
   their known depth, positions resolved in this tier join a first-in first-out
   queue; merging the two in depth order makes a winner's depth 1 + the least
   depth of its winning moves and a loser's 1 + the greatest (SPEC section 4).
   Then k = 0: a position whose every remaining child is a finished draw is a
   draw with 1 + the greatest of their depths. What is left is a draw by infinite
   play (depth INF): from it, neither side can force the game to end without
   giving the other more than 0. The rule applied to each event (:func:`settle`)
   is shared with the tablebases' tier solver (:mod:`.tier_kernels`), which
   resolves a tier the same way from generated un-moves instead of stored edges.

**One growing solution.** The oracle keeps a single table. A position asked
for later that is not in it (the same board with the other side to move, say)
is solved *incrementally*: the enumeration starts from it, and a position
already in the table is not expanded again. That is exact because the table is
closed under moves (every successor of a solved position is solved), so a
solved successor is, for the new positions, a child of known value and depth,
exactly like a child in an earlier tier; new positions get the next indices and
their own tiers. A board analysed without a side to move therefore costs one
enumeration of what the two roots reach, plus the few positions its summary
asks about that were not reached (measured: on the 3 x 5 start, 67 of 811,947).

Kernels take and return plain arrays and integers.
"""

import numpy as np
from numba import njit

from .bits import popcount, prefetch
from .kernels import canonical, game_status, grow, key_hash, moves_or_pass, play
from .solved import INF, MAX_MOVES, probe_slot, rebuild_table, slot_index
from .tier_kernels import NOT_FINAL, counting_order, settle

# Status codes returned by the kernels.
OK, OUT_OF_MEMORY, TOO_MANY_STATES, ABORTED = 0, 1, 2, 3

# Bytes per state and per edge, for the memory budget (enumeration + solving).
BYTES_PER_STATE = 8 + 8 + 4 + 2 + 8 + 4 * 2 + 1 + 4 + 4 + 4 + 4 + 8
BYTES_PER_EDGE = 4 + 4 + 4
# Under a counter, each board also gets a history (8 bytes a triple; a few triples on average,
# more under jump3): the enumeration is held to a budget that leaves room for 16.
HISTORY_BYTES = 16 * 8



@njit(cache=True, nogil=True)
def enumerate_graph(roots_m, roots_t, roots_c, table, k1, k2, k3, known, playable, adj, jmp, reach, canon, rules,
                    max_states, max_bytes, progress, abort):
    """Breadth-first enumeration of what the roots reach beyond the first ``known`` positions.

    ``table`` and ``k1``, ``k2``, ``k3`` (keys, with spare capacity) hold the positions solved
    so far, indices 0 .. known - 1; those are not expanded (their successors are known). New
    positions get the next indices. Returns (status, table, k1, k2, k3, n, final, start,
    child): the (maybe regrown) table and key arrays, the new count n, and for each new
    position s: ``final[s - known]``, the mover's final score if the game is over, else
    NOT_FINAL, and ``child[start[s - known]:start[s - known + 1]]``, the indices of the
    positions after each move. The counter is left out (always 0): under the classic rules it
    plays no part, and rule sets with a counter are solved per board by :mod:`.counters`.
    ``progress[0]`` counts positions,
    ``progress[1]`` expanded ones.
    """
    cap = k1.shape[0]
    tcap = table.shape[0]
    mask = tcap - 1
    n = known
    fcap = 1024
    final = np.empty(fcap, np.int16)
    start = np.empty(fcap + 1, np.int64)
    ecap = 4096
    child = np.empty(ecap, np.int32)
    edges = 0
    status = OK
    moves = np.empty(MAX_MOVES, np.int64)
    size = max(MAX_MOVES, roots_m.shape[0])
    todo_m = np.empty(size, np.uint64)  # positions to insert: the roots, then the children of ``s``
    todo_t = np.empty(size, np.uint64)
    todo_c = np.empty(size, np.int64)
    for r in range(roots_m.shape[0]):
        todo_m[r], todo_t[r], _ = canonical(roots_m[r], roots_t[r], canon)
        todo_c[r] = roots_c[r]
    ntodo = roots_m.shape[0]
    nchildren = 0  # the first ``nchildren`` todo entries are edges of ``s``
    head = known
    while True:
        for i in range(ntodo):
            a, b, c2 = todo_m[i], todo_t[i], np.int32(todo_c[i])
            slot = probe_slot(table, mask, a, b, c2)
            idx = slot_index(table, slot)
            if idx < 0:
                if n >= max_states:
                    status = TOO_MANY_STATES
                    break
                if n == cap:
                    cap *= 2
                    k1 = grow(k1, cap)
                    k2 = grow(k2, cap)
                    k3 = grow(k3, cap)
                if n - known == fcap:
                    fcap *= 2
                    final = grow(final, fcap)
                    start = grow(start, fcap + 1)
                idx = n
                k1[n], k2[n], k3[n] = a, b, c2
                table[slot, 0] = a
                table[slot, 1] = b
                table[slot, 2] = (np.uint64(c2) << np.uint64(32)) | np.uint64(n)
                n += 1
                if 2 * n > tcap:
                    tcap *= 2
                    mask = tcap - 1
                    table = rebuild_table(k1, k2, k3, n, tcap)
            if i < nchildren:
                child[edges] = idx
                edges += 1
        if status != OK or head >= n:
            break
        if ((head - known) & 4095) == 0:
            progress[0] = n
            progress[1] = head
            used = cap * BYTES_PER_STATE + tcap * 24 + ecap * BYTES_PER_EDGE
            if used > max_bytes:
                status = OUT_OF_MEMORY
                break
            if abort[0] != 0:
                status = ABORTED
                break
        # Expand the next new position.
        s = head
        head += 1
        m, t, c = k1[s], k2[s], np.int64(k3[s])
        start[s - known] = edges
        over, score = game_status(m, t, c, playable, reach, rules)
        nchildren = 0
        if over:
            final[s - known] = score
        else:
            final[s - known] = NOT_FINAL
            nchildren = moves_or_pass(m, t, playable, adj, jmp, moves)
            if edges + nchildren > ecap:
                while edges + nchildren > ecap:
                    ecap *= 2
                child = grow(child, ecap)
            flat = table.reshape(-1)
            for i in range(nchildren):
                a, b = play(m, t, moves[i], adj)
                cm, ct, _ = canonical(a, b, canon)
                nc = 0  # boards: the counter is not part of the key
                todo_m[i], todo_t[i], todo_c[i] = cm, ct, nc
                # start loading the child's table row while the other children are computed
                prefetch(flat, 3 * np.int64(key_hash(cm, ct, np.int32(nc)) & np.uint64(mask)))
        ntodo = nchildren
    progress[0] = n
    progress[1] = head
    start[n - known] = edges
    return status, table, k1, k2, k3, n, final[: n - known].copy(), start[: n - known + 1].copy(), \
        child[:edges].copy()


@njit(cache=True, nogil=True)
def order_by_tier(known, n, k1, k2, k3, final, start, child, table, playable):
    """Renumber the new positions (known .. n - 1) so that each tier (number of empty squares)
    is one contiguous range, fullest boards first. Keys are permuted in place and the table
    updated; returns (final, start, child, tier_start): tier ``e`` is
    ``tier_start[e]:tier_start[e + 1]`` (global indices)."""
    m = n - known
    tier_start = np.zeros(66, np.int64)
    empties = np.empty(m, np.int64)
    for j in range(m):
        e = np.int64(popcount(playable & ~(k1[known + j] | k2[known + j])))
        empties[j] = e
        tier_start[e + 1] += 1
    for e in range(65):
        tier_start[e + 1] += tier_start[e]
    newid = np.empty(m, np.int32)  # new position j goes to known + newid[j]
    cursor = tier_start.copy()
    for j in range(m):
        newid[j] = cursor[empties[j]]
        cursor[empties[j]] += 1
    mask = table.shape[0] - 1
    low = np.uint64(0xFFFFFFFF)
    for j in range(m):
        h = probe_slot(table, mask, k1[known + j], k2[known + j], k3[known + j])
        table[h, 2] = (table[h, 2] & ~low) | np.uint64(known + newid[j])
    o1 = k1[known:n].copy()
    o2 = k2[known:n].copy()
    o3 = k3[known:n].copy()
    nf = np.empty(m, np.int16)
    nstart = np.zeros(m + 1, np.int64)
    for j in range(m):
        t = newid[j]
        k1[known + t], k2[known + t], k3[known + t], nf[t] = o1[j], o2[j], o3[j], final[j]
        nstart[t + 1] = start[j + 1] - start[j]
    for t in range(m):
        nstart[t + 1] += nstart[t]
    nchild = np.empty(child.shape[0], np.int32)
    for j in range(m):
        base = nstart[newid[j]]
        for e in range(start[j], start[j + 1]):
            c = child[e]
            nchild[base + e - start[j]] = c if c < known else known + newid[c - known]
    for e in range(66):
        tier_start[e] += known
    return nf, nstart, nchild, tier_start


@njit(cache=True)
def _solve_tier(t0, t1, base, final, start, child, value, depth):
    """Solve positions t0 .. t1 - 1 (one tier); ``final`` and ``start`` are indexed by s - base,
    ``value`` and ``depth`` globally (children outside the tier are solved already)."""
    L = t1 - t0
    cnt = np.zeros(L, np.int32)
    rstart = np.zeros(L + 1, np.int64)
    ne = 0
    for s in range(t0, t1):
        if final[s - base] != NOT_FINAL:
            continue
        cnt[s - t0] = start[s - base + 1] - start[s - base]
        for e in range(start[s - base], start[s - base + 1]):
            c = child[e]
            if t0 <= c < t1:
                rstart[c - t0 + 1] += 1
            elif depth[c] < INF:  # a child drawn by infinite play never resolves its parent
                ne += 1
    for j in range(L):
        rstart[j + 1] += rstart[j]
    rev = np.empty(rstart[L], np.int32)
    cursor = rstart[:L].copy()
    ext_parent = np.empty(ne, np.int32)
    ext_val = np.empty(ne, np.int32)
    ext_depth = np.empty(ne, np.int32)
    ne = 0
    kmax = 0
    nterm = 0
    maxdepth = 0
    for s in range(t0, t1):
        j = s - t0
        if final[s - base] != NOT_FINAL:
            value[s] = final[s - base]
            depth[s] = 0
            nterm += 1
            kmax = max(kmax, abs(np.int64(final[s - base])))
            continue
        for e in range(start[s - base], start[s - base + 1]):
            c = child[e]
            if t0 <= c < t1:
                rev[cursor[c - t0]] = j
                cursor[c - t0] += 1
            elif depth[c] < INF:
                ext_parent[ne] = j
                ext_val[ne] = value[c]
                ext_depth[ne] = depth[c]
                kmax = max(kmax, abs(np.int64(value[c])))
                maxdepth = max(maxdepth, np.int64(depth[c]))
                ne += 1
    # Events from earlier tiers: by |value| downwards, then depth upwards (two counting sorts).
    by_depth = counting_order(ext_depth.astype(np.int64), maxdepth + 1)
    kkeys = np.empty(ne, np.int64)
    for i in range(ne):
        kkeys[i] = 64 - abs(ext_val[by_depth[i]])
    eorder = by_depth[counting_order(kkeys, 65)]
    terms = np.empty(nterm, np.int64)
    tkeys = np.empty(nterm, np.int64)
    t = 0
    for s in range(t0, t1):
        if final[s - base] != NOT_FINAL:
            terms[t] = s - t0
            tkeys[t] = 64 - abs(np.int64(final[s - base]))
            t += 1
    torder = terms[counting_order(tkeys, 65)]

    fifo = np.empty(L, np.int32)
    pe = 0
    pt = 0
    for k in range(kmax, -1, -1):
        head = 0
        tail = 0
        while pt < nterm and abs(np.int64(value[t0 + torder[pt]])) == k:
            fifo[tail] = torder[pt]
            tail += 1
            pt += 1
        end = pe
        while end < ne and abs(ext_val[eorder[end]]) == k:
            end += 1
        while head < tail or pe < end:
            if head < tail and (pe >= end or depth[t0 + fifo[head]] <= ext_depth[eorder[pe]]):
                j = fifo[head]
                head += 1
                w = np.int64(value[t0 + j])
                d = np.int64(depth[t0 + j])
                for x in range(rstart[j], rstart[j + 1]):
                    tail = settle(rev[x], w, d, t0, value, depth, cnt, fifo, tail)
            else:
                e = eorder[pe]
                pe += 1
                tail = settle(ext_parent[e], np.int64(ext_val[e]), np.int64(ext_depth[e]), t0, value, depth,
                               cnt, fifo, tail)
        pe = end
    for s in range(t0, t1):
        if depth[s] < 0:  # never resolved: a draw by infinite play
            value[s] = 0
            depth[s] = INF


@njit(cache=True, nogil=True)
def solve_graph(known, final, start, child, tier_start, value, depth, progress, abort):
    """Values (mover's side) and depths of the new positions (from ``known`` on, ordered by
    :func:`order_by_tier`), written into ``value`` and ``depth``, tier by tier. Returns the status."""
    for s in range(known, tier_start[65]):
        depth[s] = -1
    status = OK
    for e in range(65):
        t0, t1 = tier_start[e], tier_start[e + 1]
        if t1 > t0:
            _solve_tier(t0, t1, known, final, start, child, value, depth)
        progress[2] = t1 - known
        if abort[0] != 0:
            status = ABORTED
            break
    return status
