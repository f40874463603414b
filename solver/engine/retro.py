"""The retrograde engine, compiled: every position reachable from the roots, solved exactly.

1. **Enumerate** breadth-first from the roots. Positions are canonical
   ``(mine, theirs, counter)`` triples (mover's side, least image over the board
   symmetries) in an open-addressing hash table of numpy arrays; each position's
   moves are stored as child indices (compressed rows). With ``both_sides``,
   every board reached is also entered with the other side to move.
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

Kernels take and return plain arrays and integers.
"""

import numpy as np
from numba import njit

from .bits import popcount, prefetch
from .kernels import canonical, game_status, grow, key_hash, moves_or_pass, next_counter, play
from .tier_kernels import counting_order, settle

INF = np.int32(1 << 30)
NOT_FINAL = np.int16(1000)  # ``final`` of a position whose game is not over
MAX_MOVES = 64 * 25

# Status codes returned by the kernels.
OK, OUT_OF_MEMORY, TOO_MANY_STATES, ABORTED = 0, 1, 2, 3

# Bytes per state and per edge, for the memory budget (enumeration + solving).
BYTES_PER_STATE = 8 + 8 + 4 + 2 + 8 + 4 * 2 + 1 + 4 + 4 + 4 + 4 + 8
BYTES_PER_EDGE = 4 + 4 + 4


EMPTY_SLOT = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True)
def _probe(table, mask, a, b, c):
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
def _slot_index(table, slot):
    tag = table[slot, 2]
    if tag == EMPTY_SLOT:
        return np.int64(-1)
    return np.int64(tag & np.uint64(0xFFFFFFFF))


@njit(cache=True)
def _new_table(size):
    table = np.zeros((size, 3), np.uint64)
    table[:, 2] = EMPTY_SLOT
    return table


@njit(cache=True, nogil=True)
def enumerate_graph(roots_m, roots_t, roots_c, playable, adj, jmp, reach, canon, rules,
                    both_sides, max_states, max_bytes, progress, abort):
    """Breadth-first enumeration. Returns (status, k1, k2, k3, final, start, child, table).

    ``final[s]``: the mover's final score if the game is over, else NOT_FINAL;
    ``child[start[s]:start[s + 1]]``: indices of the positions after each move.
    ``progress[0]`` counts positions found, ``progress[1]`` positions expanded.
    """
    cap = 1024
    k1 = np.empty(cap, np.uint64)
    k2 = np.empty(cap, np.uint64)
    k3 = np.empty(cap, np.int32)
    final = np.empty(cap, np.int16)
    start = np.empty(cap + 1, np.int64)
    ecap = 4096
    child = np.empty(ecap, np.int32)
    tcap = 2048
    table = _new_table(tcap)
    mask = tcap - 1
    n = 0
    edges = 0
    status = OK
    moves = np.empty(MAX_MOVES, np.int64)
    size = max(MAX_MOVES + 1, roots_m.shape[0])
    todo_m = np.empty(size, np.uint64)  # positions to insert: children of ``s``, then maybe its flip
    todo_t = np.empty(size, np.uint64)
    todo_c = np.empty(size, np.int64)
    for r in range(roots_m.shape[0]):
        todo_m[r], todo_t[r], _ = canonical(roots_m[r], roots_t[r], canon)
        todo_c[r] = roots_c[r]
    ntodo = roots_m.shape[0]
    nchildren = 0  # the first ``nchildren`` todo entries are edges of ``s``
    s = -1
    head = 0
    while True:
        for i in range(ntodo):
            a, b, c2 = todo_m[i], todo_t[i], np.int32(todo_c[i])
            slot = _probe(table, mask, a, b, c2)
            idx = _slot_index(table, slot)
            if idx < 0:
                if n >= max_states:
                    status = TOO_MANY_STATES
                    break
                if n == cap:
                    cap *= 2
                    k1 = grow(k1, cap)
                    k2 = grow(k2, cap)
                    k3 = grow(k3, cap)
                    final = grow(final, cap)
                    start = grow(start, cap + 1)
                idx = n
                k1[n], k2[n], k3[n] = a, b, c2
                table[slot, 0] = a
                table[slot, 1] = b
                table[slot, 2] = (np.uint64(c2) << np.uint64(32)) | np.uint64(n)
                n += 1
                if 2 * n > tcap:
                    tcap *= 2
                    mask = tcap - 1
                    table = _new_table(tcap)
                    for j in range(n):
                        h = _probe(table, mask, k1[j], k2[j], k3[j])
                        table[h, 0] = k1[j]
                        table[h, 1] = k2[j]
                        table[h, 2] = (np.uint64(k3[j]) << np.uint64(32)) | np.uint64(j)
            if i < nchildren:
                child[edges] = idx
                edges += 1
        if status != OK or head >= n:
            break
        if (head & 4095) == 0:
            progress[0] = n
            progress[1] = head
            used = cap * BYTES_PER_STATE + tcap * 24 + ecap * BYTES_PER_EDGE
            if used > max_bytes:
                status = OUT_OF_MEMORY
                break
            if abort[0] != 0:
                status = ABORTED
                break
        # Expand the next position.
        s = head
        head += 1
        m, t, c = k1[s], k2[s], np.int64(k3[s])
        start[s] = edges
        over, score = game_status(m, t, c, playable, reach, rules)
        nchildren = 0
        if over:
            final[s] = score
        else:
            final[s] = NOT_FINAL
            nchildren = moves_or_pass(m, t, playable, adj, jmp, moves)
            if edges + nchildren > ecap:
                while edges + nchildren > ecap:
                    ecap *= 2
                child = grow(child, ecap)
            flat = table.reshape(-1)
            for i in range(nchildren):
                a, b = play(m, t, moves[i], adj)
                cm, ct, _ = canonical(a, b, canon)
                nc = next_counter(c, moves[i], rules)
                todo_m[i], todo_t[i], todo_c[i] = cm, ct, nc
                # start loading the child's table row while the other children are computed
                prefetch(flat, 3 * np.int64(key_hash(cm, ct, np.int32(nc)) & np.uint64(mask)))
        ntodo = nchildren
        if both_sides:
            todo_m[ntodo], todo_t[ntodo], _ = canonical(t, m, canon)
            todo_c[ntodo] = c
            ntodo += 1
    progress[0] = n
    progress[1] = head
    start[n] = edges
    return status, k1[:n].copy(), k2[:n].copy(), k3[:n].copy(), final[:n].copy(), start[: n + 1].copy(), \
        child[:edges].copy(), table


@njit(cache=True, nogil=True)
def order_by_tier(k1, k2, k3, final, start, child, table, playable):
    """Renumber the positions so that each tier (number of empty squares) is one contiguous
    range, fullest boards first. Returns (k1, k2, k3, final, start, child, tier_start):
    tier ``e`` is ``tier_start[e]:tier_start[e + 1]``. The hash table is updated in place."""
    n = k1.shape[0]
    tier_start = np.zeros(66, np.int64)
    empties = np.empty(n, np.int64)
    for s in range(n):
        e = np.int64(popcount(playable & ~(k1[s] | k2[s])))
        empties[s] = e
        tier_start[e + 1] += 1
    for e in range(65):
        tier_start[e + 1] += tier_start[e]
    newid = np.empty(n, np.int32)
    cursor = tier_start.copy()
    for s in range(n):
        newid[s] = cursor[empties[s]]
        cursor[empties[s]] += 1
    n1 = np.empty(n, np.uint64)
    n2 = np.empty(n, np.uint64)
    n3 = np.empty(n, np.int32)
    nf = np.empty(n, np.int16)
    nstart = np.zeros(n + 1, np.int64)
    for s in range(n):
        t = newid[s]
        n1[t], n2[t], n3[t], nf[t] = k1[s], k2[s], k3[s], final[s]
        nstart[t + 1] = start[s + 1] - start[s]
    for t in range(n):
        nstart[t + 1] += nstart[t]
    nchild = np.empty(child.shape[0], np.int32)
    for s in range(n):
        base = nstart[newid[s]]
        for e in range(start[s], start[s + 1]):
            nchild[base + e - start[s]] = newid[child[e]]
    low = np.uint64(0xFFFFFFFF)
    for h in range(table.shape[0]):
        tag = table[h, 2]
        if tag != EMPTY_SLOT:
            table[h, 2] = (tag & ~low) | np.uint64(newid[np.int64(tag & low)])
    return n1, n2, n3, nf, nstart, nchild, tier_start


@njit(cache=True)
def _solve_tier(t0, t1, final, start, child, value, depth):
    L = t1 - t0
    cnt = np.zeros(L, np.int32)
    rstart = np.zeros(L + 1, np.int64)
    ne = 0
    for s in range(t0, t1):
        if final[s] != NOT_FINAL:
            continue
        cnt[s - t0] = start[s + 1] - start[s]
        for e in range(start[s], start[s + 1]):
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
        if final[s] != NOT_FINAL:
            value[s] = final[s]
            depth[s] = 0
            nterm += 1
            kmax = max(kmax, abs(np.int64(final[s])))
            continue
        for e in range(start[s], start[s + 1]):
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
        if final[s] != NOT_FINAL:
            terms[t] = s - t0
            tkeys[t] = 64 - abs(np.int64(final[s]))
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
def solve_graph(final, start, child, tier_start, progress, abort):
    """Values (mover's side) and depths of every position, tier by tier (positions ordered by
    :func:`order_by_tier`). Returns (status, value, depth)."""
    n = final.shape[0]
    value = np.zeros(n, np.int8)
    depth = np.full(n, -1, np.int32)
    status = OK
    for e in range(65):
        t0, t1 = tier_start[e], tier_start[e + 1]
        if t1 > t0:
            _solve_tier(t0, t1, final, start, child, value, depth)
        progress[2] = t1
        if abort[0] != 0:
            status = ABORTED
            break
    return status, value, depth


@njit(cache=True)
def lookup(table, k1, k2, k3, qm, qt, qc, canon):
    """Indices of positions (mover's pieces, other pieces, counter), or -1 where not enumerated."""
    out = np.empty(qm.shape[0], np.int64)
    mask = table.shape[0] - 1
    for i in range(qm.shape[0]):
        cm, ct, _ = canonical(qm[i], qt[i], canon)
        out[i] = _slot_index(table, _probe(table, mask, cm, ct, np.int32(qc[i])))
    return out


# -- the public side ------------------------------------------------------------------------------

class RetroOracle:
    """Exact values by enumeration and retrograde solving (the analysis's oracle interface).

    ``prepare(roots)`` solves everything reachable from the roots; a lookup of a
    position not reached yet solves it (and what it reaches) as a new root.
    """

    name = "retro"

    def __init__(self, board, rules, max_states=None, max_memory=None, deadline=None, symmetry=True):
        from ..limits import default_memory_budget
        from .tables import build_tables

        self.tables = build_tables(board, rules, symmetry)
        self.max_states = max_states if max_states is not None else (1 << 31) - 2
        self.max_memory = max_memory if max_memory is not None else default_memory_budget()
        self.deadline = deadline
        self.solutions = []  # (k1, k2, k3, value, depth, table)
        self.edges = 0

    @property
    def states(self) -> int:
        return sum(s[0].shape[0] for s in self.solutions)

    def _index(self, positions):
        from .tables import mover_bits

        qm = np.array([mover_bits(p)[0] for p in positions], np.uint64)
        qt = np.array([mover_bits(p)[1] for p in positions], np.uint64)
        qc = np.array([p.counter for p in positions], np.int64)
        found = [(-1, None)] * len(positions)
        for sol in self.solutions:
            idx = lookup(sol[5], sol[0], sol[1], sol[2], qm, qt, qc, self.tables.canon)
            found = [f if f[0] >= 0 or i < 0 else (int(i), sol) for f, i in zip(found, idx)]
        return found

    def prepare(self, roots, both_sides=False) -> None:
        missing = [r for r, (i, _) in zip(roots, self._index(roots)) if i < 0]
        if missing:
            self._solve(missing, both_sides)

    def lookup(self, position):
        (i, sol), = self._index([position])
        if i < 0:
            self._solve([position], both_sides=True)
            (i, sol), = self._index([position])
        d = int(sol[4][i])
        return int(sol[3][i]), (float("inf") if d >= INF else d)

    def lookup_many(self, positions):
        """Values and depths of many positions at once (each must be solvable)."""
        found = self._index(positions)
        missing = [p for p, (i, _) in zip(positions, found) if i < 0]
        if missing:
            self._solve(missing, both_sides=True)
            found = self._index(positions)
        out = []
        for i, sol in found:
            d = int(sol[4][i])
            out.append((int(sol[3][i]), float("inf") if d >= INF else d))
        return out

    def _solve(self, roots, both_sides) -> None:
        from ..limits import MemoryLimitError, StateLimitError, size_name
        from .runtime import Run, progress_bar
        from .tables import mover_bits

        T = self.tables
        rm = np.array([mover_bits(p)[0] for p in roots], np.uint64)
        rt = np.array([mover_bits(p)[1] for p in roots], np.uint64)
        rc = np.array([p.counter for p in roots], np.int64)
        run = Run()
        with progress_bar("enumerating", "positions") as bar:
            status, k1, k2, k3, final, start, child, table = run.call(
                enumerate_graph, rm, rt, rc, T.playable, T.adj, T.jmp, T.reach, T.canon, T.rules,
                both_sides, self.max_states, self.max_memory, run.progress, run.abort,
                deadline=self.deadline, on_tick=lambda pr: bar.update_to(pr[0]))
        found = int(run.progress[0])
        if status == TOO_MANY_STATES:
            raise StateLimitError(f"more than {self.max_states:,} positions are reachable", found)
        if status == OUT_OF_MEMORY:
            raise MemoryLimitError(f"the tables outgrew the memory budget of {size_name(self.max_memory)} after "
                                   f"{found:,} positions ({int(run.progress[1]):,} expanded)")
        if status == ABORTED:
            raise run.stopped(f"enumeration stopped after {found:,} positions")
        n = k1.shape[0]
        k1, k2, k3, final, start, child, tier_start = run.call(order_by_tier, k1, k2, k3, final, start, child,
                                                                 table, T.playable)
        with progress_bar("solving", "positions", total=n) as bar:
            status, value, depth = run.call(solve_graph, final, start, child, tier_start, run.progress,
                                            run.abort, deadline=self.deadline,
                                            on_tick=lambda pr: bar.update_to(pr[2]))
        if status == ABORTED:
            raise run.stopped(f"solving stopped after {int(run.progress[2]):,} of {n:,} positions")
        self.edges += child.shape[0]
        self.solutions.append((k1, k2, k3, value, depth, table))
