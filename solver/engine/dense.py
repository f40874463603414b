"""Ataxx's side of the tablebases, compiled: a perfect index of every position, moves and un-moves.

The index (the arrays are built by :class:`solver.tables.index.DenseIndex`): the playable
squares are split into a small set S (at most 8 squares, a union of orbits of the
board's symmetries) and the rest R. Each square is empty, the mover's or the other
side's (colour inversion is folded in by reading pieces from the mover's side).

- The arrangement on S is read as a base-3 number (0 empty, 1 mine, 2 theirs) and
  reduced to its *class*: the least number among its images under the symmetries.
  ``symmask[a]`` says which symmetries take arrangement ``a`` to its class.
- Tier ``e`` holds the positions with ``e`` empty squares. Inside a tier, positions
  are numbered class by class (``offset[e, c]``); inside a class, the R part is
  numbered by the rank of its empty squares (colex order of combinations) times
  ``2 ** occupied`` plus the mover's pieces on the occupied R squares read as bits.
- The canonical form of a position: apply a symmetry that takes its S part to the
  class (usually one), and when several do (the class has a non-trivial stabiliser),
  the one that gives the least R number. Numbers that are not canonical forms are
  *unused* (:data:`UNUSED`); they cost their two bytes and nothing else.

Every step is a table lookup: the R part's empty set is ranked and unranked by tables
of its 2 ** |R| subsets, its colours gathered and spread by 8-bit pext/pdep tables, and
a symmetry applied while gathering (``rbyte`` holds each symmetry's image). The arrays
travel as one tuple, ``ix`` (built by :class:`solver.tables.index.DenseIndex`).

Moves are the kernels' codes (:mod:`.kernels`); a clone leaves the tier for tier
``e - 1``, a jump or a pass stays in it. Un-moves (:func:`tier_parents`) give, for a
position, every position of its own tier that reaches it by a jump or a pass, each
parent once per move it has to the position.

Kernels take and return plain arrays and integers.
"""

import numpy as np
from numba import njit

from .bits import lowest_square, popcount
from .kernels import game_status, grow, moves_or_pass, play, reaches_empty
from .tier_kernels import NOT_FINAL, UNUSED  # the ``final`` codes the tier solver reads

U0 = np.uint64(0)
U1 = np.uint64(1)
U255 = np.uint64(255)
MAX_MOVES = 64 * 25


@njit(cache=True, inline='always')
def _gather(bits, table, nbytes):
    """The bits of a board word mapped through per-byte tables (compress or expand)."""
    out = U0
    for b in range(nbytes):
        out |= table[b, (bits >> np.uint64(8 * b)) & U255]
    return out


@njit(cache=True, inline='always')
def _pext(x, m, nbytes, bits8):
    """The bits of x at the squares of m, packed (lowest first): BMI2's pext, by 8-bit tables."""
    out = U0
    shift = U0
    for b in range(nbytes):
        mb = (m >> np.uint64(8 * b)) & U255
        out |= np.uint64(bits8[0, mb * 256 + ((x >> np.uint64(8 * b)) & U255)]) << shift
        shift += popcount(mb)
    return out


@njit(cache=True, inline='always')
def _pdep(v, m, nbytes, bits8):
    """The low bits of v spread onto the squares of m (lowest first): BMI2's pdep, by 8-bit tables."""
    out = U0
    shift = U0
    for b in range(nbytes):
        mb = (m >> np.uint64(8 * b)) & U255
        out |= np.uint64(bits8[1, mb * 256 + ((v >> shift) & U255)]) << np.uint64(8 * b)
        shift += popcount(mb)
    return out


@njit(cache=True, inline='always')
def _r_number(rm, rt, r, rbytes, rank, bits8):
    """Number of the R part: rank of the empty set among the sets of its size (colex) times
    2 ** occupied, plus the mover's pieces among the occupied squares read as bits (lowest
    square first). ``rm``/``rt`` are R-local."""
    occ = rm | rt
    empty = ((U1 << np.uint64(r)) - U1) & ~occ
    k = np.int64(popcount(occ))
    return (np.int64(rank[empty]) << k) | np.int64(_pext(rm, occ, rbytes, bits8))


@njit(cache=True, inline='always')
def index_of(mine, theirs, ix):
    """(tier, number) of a position in the dense index ``ix`` (see :class:`solver.tables.index.DenseIndex`)."""
    e, i, _ = _index_sym(mine, theirs, ix)
    return e, i


@njit(cache=True, inline='always')
def _index_sym(mine, theirs, ix):
    """(tier, number, stab): ``stab`` is how many symmetries map the position onto itself.

    The symmetries that take the S part ``a`` to its class (``symmask[a]``) are g0 Stab(a) for
    any one g0 of them; two of them, g and h, give the same image of the position exactly when
    their R numbers agree, so the ones that give the least image are g0 Stab(P): counting the
    ties of the least R number counts the stabiliser of P.

    ``rbyte[g * nbytes + b, v]``: the R-local bits of the image under symmetry g of board
    byte b with value v, so that a symmetry and the R gathering are one lookup per byte."""
    (playable, sbyte, rbyte, rexp, tern, class_of, symmask, class_m, class_t, class_code, offset, rank, unrank,
     combs, group, cstart, bits8, symbytes, meta) = ix
    nbytes, r, rbytes = meta[0], meta[1], meta[3]
    e = np.int64(popcount(playable & ~(mine | theirs)))
    a = tern[_gather(mine, sbyte, nbytes)] + 2 * tern[_gather(theirs, sbyte, nbytes)]
    mask = symmask[a]
    best = np.int64(-1)
    stab = 0
    g = 0
    while mask:
        if mask & 1:
            rm = U0
            rt = U0
            for b in range(nbytes):
                row = g * nbytes + b
                rm |= rbyte[row, (mine >> np.uint64(8 * b)) & U255]
                rt |= rbyte[row, (theirs >> np.uint64(8 * b)) & U255]
            num = _r_number(rm, rt, r, rbytes, rank, bits8)
            if best < 0 or num < best:
                best = num
                stab = 1
            elif num == best:
                stab += 1
        mask >>= 1
        g += 1
    return e, offset[e, class_of[a]] + best, stab


@njit(cache=True)
def is_canonical(e, idx, mine, theirs, ix):
    """Whether number ``idx`` (decoded as mine, theirs) is a canonical position, not an unused number."""
    return index_of(mine, theirs, ix)[1] == idx


@njit(cache=True, inline='always')
def position_of(e, idx, ix):
    """(mine, theirs, sure) of number ``idx`` of tier ``e``: the inverse of :func:`index_of` on
    canonical positions. ``sure``: the number is certainly a canonical position (its class has
    no symmetry); otherwise :func:`is_canonical` tells."""
    sm, st, occ, sub, left, sure = _block_of(e, idx, ix)
    return sub | sm, (occ & ~sub) | st, sure


@njit(cache=True, inline='always')
def _block_of(e, idx, ix):
    """Number ``idx`` of tier ``e`` decoded as (sm, st, occ, sub, left, sure): the S part's
    pieces (mover's, other side's), the occupied squares of R and the mover's among them (board
    bits: the position is ``sub | sm``, ``(occ & ~sub) | st``), the numbers from ``idx`` to the
    end of its *block*, and ``sure`` (:func:`position_of`).

    A block is the 2 ** k numbers of one class and one set of empty squares in R (k occupied),
    in the order of the mover's pieces on R read as bits: the next number's ``sub`` is the next
    subset of ``occ``, ``(sub - occ) & occ`` (so a range is decoded without a division a number).

    Classes are numbered by their empty squares in S, so that the classes of a tier come in
    groups of equal size: ``group[e, g]`` is where the classes with g empty squares in S start."""
    (playable, sbyte, rbyte, rexp, tern, class_of, symmask, class_m, class_t, class_code, offset, rank, unrank,
     combs, group, cstart, bits8, symbytes, meta) = ix
    r = meta[1]
    g = 0
    while idx >= group[e, g + 1]:
        g += 1
    er = e - g
    k = r - er
    size = (combs[er + 1] - combs[er]) << k  # numbers per class: R parts with er empty squares
    within = idx - group[e, g]
    q = within // size
    within -= q * size
    c = cstart[g] + q
    empty = unrank[combs[er] + (within >> k)]
    col = within & ((np.int64(1) << k) - 1)
    occ = ((U1 << np.uint64(r)) - U1) & ~empty
    rm = _pdep(np.uint64(col), occ, meta[3], bits8)
    sm = symmask[class_code[c]]
    return (class_m[c], class_t[c], _gather(occ, rexp, meta[3]), _gather(rm, rexp, meta[3]),
            (np.int64(1) << k) - col, (sm & (sm - 1)) == 0)


@njit(cache=True, nogil=True)
def tier_children(e, lo, hi, ix, adj, jmp, reach, rules):
    """The moves of numbers lo .. hi - 1 of tier ``e``: (final, start, slot, child).

    ``final[i]``: the mover's final score if the game is over, NOT_FINAL if not, UNUSED for a
    number that is not a position; ``child[start[i]:start[i + 1]]`` the numbers of the positions
    after each move, in tier ``e`` (``slot`` 0: jumps and passes) or ``e - 1`` (``slot`` 1: clones)."""
    playable = ix[0]
    n = hi - lo
    final = np.empty(n, np.int16)
    start = np.empty(n + 1, np.int64)
    cap = max(np.int64(16), n * 16)
    slot = np.empty(cap, np.int8)
    child = np.empty(cap, np.int64)
    moves = np.empty(MAX_MOVES, np.int64)
    edges = 0
    left = np.int64(0)  # numbers left in the block of the last number
    sm = st = occ = sub = U0
    sure = False
    for i in range(n):
        start[i] = edges
        # the number's status, written out (a helper returning (mine, theirs, final) took twice the time)
        if left == 0:  # the first number of a block (or of the range): decoded whole
            sm, st, occ, sub, left, sure = _block_of(e, lo + i, ix)
        else:
            sub = (sub - occ) & occ
        left -= 1
        m = sub | sm
        t = (occ & ~sub) | st
        if not sure and not is_canonical(e, lo + i, m, t, ix):
            final[i] = UNUSED
            continue
        over, score = game_status(m, t, 0, playable, reach, rules)
        if over:
            final[i] = np.int16(score)
            continue
        final[i] = NOT_FINAL
        k = moves_or_pass(m, t, playable, adj, jmp, moves)
        if edges + k > cap:
            while edges + k > cap:
                cap *= 2
            slot, child = grow(slot, cap), grow(child, cap)
        for j in range(k):
            a, b = play(m, t, moves[j], adj)
            e2, idx = index_of(a, b, ix)
            slot[edges] = 0 if e2 == e else 1
            child[edges] = idx
            edges += 1
    start[n] = edges
    return final, start, slot[:edges].copy(), child[:edges].copy()


@njit(cache=True, nogil=True)
def tier_scan(e, lo, hi, ix, adj, jmp, reach, rules):
    """What the solver needs of numbers lo .. hi - 1 of tier ``e`` when it has un-moves:
    (final, inside, start, slot, child) with ``inside[i]`` the number of moves that stay in
    the tier (jumps, or 1 for a pass) and only the clones listed (all in slot 1: tier e - 1)."""
    playable = ix[0]
    n = hi - lo
    final = np.empty(n, np.int16)
    inside = np.zeros(n, np.uint16)
    start = np.empty(n + 1, np.int64)
    cap = max(np.int64(16), n * (e + 1))
    child = np.empty(cap, np.int64)
    edges = 0
    left = np.int64(0)  # numbers left in the block of the last number
    sm = st = occ = sub = U0
    sure = False
    for i in range(n):
        start[i] = edges
        # the number's status, written out (a helper returning (mine, theirs, final) took twice the time)
        if left == 0:  # the first number of a block (or of the range): decoded whole
            sm, st, occ, sub, left, sure = _block_of(e, lo + i, ix)
        else:
            sub = (sub - occ) & occ
        left -= 1
        m = sub | sm
        t = (occ & ~sub) | st
        if not sure and not is_canonical(e, lo + i, m, t, ix):
            final[i] = UNUSED
            continue
        over, score = game_status(m, t, 0, playable, reach, rules)
        if over:
            final[i] = np.int16(score)
            continue
        final[i] = NOT_FINAL
        jumps = 0
        x = playable & ~(m | t)
        while x:
            sq = lowest_square(x)
            x &= x - U1
            jumps += popcount(jmp[sq] & m)
            if adj[sq] & m:
                a, b = play(m, t, np.int64(sq), adj)
                child[edges] = index_of(a, b, ix)[1]
                edges += 1
        inside[i] = jumps if (jumps > 0 or edges > start[i]) else 1  # no move at all: a pass
    start[n] = edges
    return final, inside, start, np.ones(edges, np.int8), child[:edges].copy()


@njit(cache=True)
def _unmoves(mc, tc, playable, adj, jmp, reach, pm, pt):
    """The positions (mover's pieces, other pieces) that reach (mc, tc) by a jump or a pass,
    written to pm, pt; returns how many (with repeats)."""
    k = 0
    empty = playable & ~(mc | tc)
    # the parent passed: it had no move and the game was not over (the other side had one)
    if not reaches_empty(tc, empty, reach) and reaches_empty(mc, empty, reach):
        pm[k] = tc
        pt[k] = mc
        k += 1
    # the parent jumped from ``frm`` to ``to`` and turned the pieces ``flips`` next to ``to``
    x = tc
    while x:
        to = lowest_square(x)
        x &= x - U1
        if adj[to] & mc:  # a piece of the side to move next to ``to`` would have been turned
            continue
        around = adj[to] & tc
        origins = jmp[to] & empty
        while origins:
            frm = lowest_square(origins)
            origins &= origins - U1
            base = (tc ^ (U1 << to)) | (U1 << frm)
            flips = around
            while True:  # every subset of ``around``
                if k == pm.shape[0]:
                    return -1
                pm[k] = base ^ flips
                pt[k] = mc | flips
                k += 1
                if flips == U0:
                    break
                flips = (flips - U1) & around
    return k


@njit(cache=True, inline='always')
def _sort_pairs(num, stab, m):
    """num[:m] sorted in place, stab[:m] along with it (a few dozen parents as a rule: by
    insertion, which beats an argsort's allocations; by argsort when there are many)."""
    if m > 64:
        order = np.argsort(num[:m])
        num[:m], stab[:m] = num[:m][order], stab[:m][order]
        return
    for j in range(1, m):
        x, y = num[j], stab[j]
        q = j - 1
        while q >= 0 and num[q] > x:
            num[q + 1], stab[q + 1] = num[q], stab[q]
            q -= 1
        num[q + 1], stab[q + 1] = x, y


@njit(cache=True, nogil=True)
def tier_parents(e, idxs, ix, adj, jmp, reach, rules):
    """Un-moves: for each number of tier ``e`` in ``idxs``, the numbers of the positions of tier
    ``e`` with a jump or a pass to it, each listed once per such move, as (start, parent).

    The un-moves of the child C give the pairs (P', move) with P' * move = C exactly; a
    canonical parent P arises U times (from the images of P). The moves of P that lead to
    an image of C number M = U * |Stab(P)| / |Stab(C)| (count the pairs (g, move) with
    P * move = g C both ways), which is U unless a stabiliser is not trivial."""
    playable = ix[0]
    n = idxs.shape[0]
    start = np.empty(n + 1, np.int64)
    cap = max(np.int64(16), n * 16)
    out = np.empty(cap, np.int64)
    size = 1024
    pm = np.empty(size, np.uint64)
    pt = np.empty(size, np.uint64)
    num = np.empty(size, np.int64)
    stab = np.empty(size, np.int64)
    k = 0
    for i in range(n):
        start[i] = k
        mc, tc, sure = position_of(e, idxs[i], ix)  # the child; ``tc`` are the pieces of the side that moved
        m = _unmoves(mc, tc, playable, adj, jmp, reach, pm, pt)
        while m < 0:
            size *= 2
            pm = np.empty(size, np.uint64)
            pt = np.empty(size, np.uint64)
            num = np.empty(size, np.int64)
            stab = np.empty(size, np.int64)
            m = _unmoves(mc, tc, playable, adj, jmp, reach, pm, pt)
        ones = True   # every parent's stabiliser trivial
        for j in range(m):
            _e, num[j], stab[j] = _index_sym(pm[j], pt[j], ix)
            ones = ones and stab[j] == 1
        sc = 1 if sure else _index_sym(mc, tc, ix)[2]
        total = m
        if not ones:
            total = 0
            for j in range(m):
                total += stab[j]
            total //= sc  # an upper bound on the entries: each parent's U * Stab(P) / Stab(C)
        if k + total > cap:
            while k + total > cap:
                cap *= 2
            out = grow(out, cap)
        if sc == 1:  # M = U * Stab(P): each of the U arrivals at P listed Stab(P) times, in any order
            if ones:
                for j in range(m):
                    out[k + j] = num[j]
                k += m
            else:
                for j in range(m):
                    for _ in range(stab[j]):
                        out[k] = num[j]
                        k += 1
            continue
        _sort_pairs(num, stab, m)
        j = 0
        while j < m:
            u = 1
            while j + u < m and num[j + u] == num[j]:
                u += 1
            mult = u * stab[j] // sc
            for _ in range(mult):
                out[k] = num[j]
                k += 1
            j += u
    start[n] = k
    return start, (out[:k] if 2 * k >= out.shape[0] else out[:k].copy())  # (a copy when it saves half)


@njit(cache=True, nogil=True)
def probe_numbers(mine, theirs, ix):
    """(tier, number) of many positions (mover's pieces, other pieces)."""
    n = mine.shape[0]
    tiers = np.empty(n, np.int64)
    nums = np.empty(n, np.int64)
    for i in range(n):
        tiers[i], nums[i] = index_of(mine[i], theirs[i], ix)
    return tiers, nums


@njit(cache=True, nogil=True)
def position_children(mine, theirs, ix, adj, jmp, reach, rules):
    """The moves of many positions (mover's pieces, other pieces), for answering from tables:
    (final, start, move, tier, number): ``final[i]`` the mover's score if the game is over
    (else NOT_FINAL); the moves of i are ``move[start[i]:start[i + 1]]`` (kernel codes, -1 a
    pass) leading to number ``number[...]`` of tier ``tier[...]``."""
    playable = ix[0]
    n = mine.shape[0]
    final = np.empty(n, np.int16)
    start = np.empty(n + 1, np.int64)
    cap = max(np.int64(16), n * 24)
    move = np.empty(cap, np.int64)
    tier = np.empty(cap, np.int64)
    number = np.empty(cap, np.int64)
    buf = np.empty(MAX_MOVES, np.int64)
    k = 0
    for i in range(n):
        start[i] = k
        m, t = mine[i], theirs[i]
        over, score = game_status(m, t, 0, playable, reach, rules)
        if over:
            final[i] = score
            continue
        final[i] = NOT_FINAL
        c = moves_or_pass(m, t, playable, adj, jmp, buf)
        if k + c > cap:
            while k + c > cap:
                cap *= 2
            move, tier, number = grow(move, cap), grow(tier, cap), grow(number, cap)
        for j in range(c):
            a, b = play(m, t, buf[j], adj)
            move[k] = buf[j]
            tier[k], number[k] = index_of(a, b, ix)
            k += 1
    start[n] = k
    return final, start, move[:k].copy(), tier[:k].copy(), number[:k].copy()
