"""Depth-first proof-number search (df-pn), compiled: the same tests as the alpha-beta search.

It answers the question of :mod:`.search`, "is the mover's score at least s?", by
Nagai's df-pn in its negamax form. Each node carries a *proof number* (how many
leaves at least must still be settled to show that its mover reaches its
threshold) and a *disproof number* (to show that it does not): a node is proved
when one of its children is disproved, disproved when all are proved; so
``pn(n) = min dn(child)`` and ``dn(n) = sum pn(child)``. The search always
expands the most-proving child under thresholds, as a depth-first search with a
transposition table, and stops when the root is proved or disproved. A child's
threshold is the parent's with the second-best child's number times 1 + 1/4
(Pawlewicz and Lew's 1 + epsilon trick, fewer re-expansions of the same subtree).
A new leaf gets proof number 1 and, as disproof number, its mover's number of
moves (each must be refuted). A child's threshold for the mover's score is the
parent's carried through :func:`solver.common.scores.widen`, as in the alpha-beta search.

Loops (graph history interaction)
---------------------------------
A position that repeats one on the current line scores 0, exactly as in the
alpha-beta search (its docstring proves why a test stays exact): it is proved
when 0 reaches its threshold, else disproved, and that result *rests on* the
repeated ancestor. Kishimoto and Mueller (2004) show that storing such a result
as if it held on every path gives wrong answers; here every result carries the
lowest ply of a repetition it rests on (a proof through a child, that child's;
a disproof, the lowest over all children), and only a result that rests on
nothing above its node is stored as settled, in this table and, as a proved
bound, in the alpha-beta search's table. A result that rests on an ancestor is
used on the current line only (its parent keeps it while it is on the line) and
searched again from another path. Proof and disproof numbers that are not
settled are only estimates, stored whatever their path: they guide the search
and never decide an answer.

The table
---------
Buckets of four entries of four 64-bit words, lockless as in :mod:`.ttable`:
the check word, the other side's pieces, the proof and disproof numbers (two
32-bit numbers, the largest meaning infinite), and the threshold, the counter,
the log2 of the work and a used bit. The threshold is part of the key: one
position is asked different questions (a value test at each band boundary, a
depth test anywhere). Settled entries are kept over estimates, then the costlier.
Children are also looked up in the alpha-beta table: a proved bound there settles
them at once.

Kernels take and return plain arrays and integers.
"""

import numpy as np
from numba import njit

from solver.common import scores

from . import ttable
from .bits import lowest_square, popcount, prefetch
from .frames import (
    grow_frames,
    line_bucket,
    line_pop,
    line_push,
    move_room,
    new_frames,
    new_line,
    repetition,
    room,
    work_log2,
)
from .kernels import (
    canonical,
    game_status,
    grow,
    key_hash,
    map_move_by,
    min_plies_to_end,
    next_counter,
    play,
)
from .lastplies import L_LIMIT, L_NODES, NLCOUNT, last_test
from .search import S_LAST, S_LASTNODES, S_TABLE, fill_out
from .tbprobe import T_MAX, table_score
from .ttable import K3, mix

INF = np.int64(1 << 40)  # a proof or disproof number that is infinite
STORED_INF = np.uint64(0xFFFFFFFF)
NONE = np.int64(1 << 40)  # "rests on nothing above"
MAX_MOVES = 64 * 21
BUCKET = 4

# stats slots (the alpha-beta search's layout where they mean the same)
S_NODES, S_MAXPLY, S_NODE_LIMIT, S_STOP = 0, 1, 2, 3
S_ROOTMOVE = 23
S_EXPANDED, S_REPS, S_SETTLED, S_PATHDEP = 15, 13, 9, 10
NSTATS = 25
STOP_ABORT, STOP_NODES, STOP_STACK = 1, 2, 3
# options (int64 array)
O_LOOPY, O_CLOCK, O_MAX_STACK, O_LAST, O_LAST_PLIES, O_LAST_NODES = range(6)

# frame columns
F_C, F_S, F_THPN, F_THDN, F_MOFF, F_N, F_SEL, F_EMP, F_SYM, F_NODES, F_PREV, F_HB, F_NOLAST = range(13)
NF = 13
BYTES_PER_PLY = NF * 8 + 4 * 8 + MAX_MOVES * 32

_widen = njit(cache=True)(scores.widen)


# -- the table -----------------------------------------------------------------------------------------

@njit(cache=True)
def _bucket(cm, ct, c, s, mask):
    return np.int64(key_hash(cm, ct ^ (np.uint64(s) * K3), np.int64(c)) & np.uint64(mask)) * BUCKET


@njit(cache=True)
def _to_stored(x):
    if x >= INF:
        return STORED_INF
    return np.uint64(min(x, np.int64(0xFFFFFFFE)))


@njit(cache=True)
def _from_stored(w):
    if w == STORED_INF:
        return INF
    return np.int64(w)


@njit(cache=True)
def _info(s, c, work):
    return (np.uint64(s) & np.uint64(0xFFFFFFFF)) | ((np.uint64(c) & np.uint64(255)) << np.uint64(32)) | \
        ((np.uint64(min(work, 15)) & np.uint64(15)) << np.uint64(40)) | (np.uint64(1) << np.uint64(63))


@njit(cache=True)
def _info_s(w):
    return np.int64(np.int32(w & np.uint64(0xFFFFFFFF)))


@njit(cache=True)
def _info_c(w):
    return np.int64((w >> np.uint64(32)) & np.uint64(255))


@njit(cache=True)
def _info_work(w):
    return np.int64((w >> np.uint64(40)) & np.uint64(15))


@njit(cache=True)
def table_probe(dtt, cm, ct, c, s):
    """(pn, dn, found) for a key and threshold."""
    base = _bucket(cm, ct, c, s, dtt.shape[0] // BUCKET - 1)
    for k in range(BUCKET):
        e = base + k
        w1 = dtt[e, 1]
        if w1 != ct:
            continue
        w0 = dtt[e, 0]
        w2 = dtt[e, 2]
        w3 = dtt[e, 3]
        if w3 == 0 or (w0 ^ mix(w1, w2, w3)) != cm:
            continue
        if _info_s(w3) != s or _info_c(w3) != c:
            continue
        return _from_stored(w2 & np.uint64(0xFFFFFFFF)), _from_stored(w2 >> np.uint64(32)), True
    return np.int64(1), np.int64(1), False


@njit(cache=True)
def table_store(dtt, cm, ct, c, s, pn, dn, work):
    """Keep (pn, dn) for a key and threshold: over the same key, an unused entry, else the
    cheapest estimate (settled entries are kept over estimates)."""
    base = _bucket(cm, ct, c, s, dtt.shape[0] // BUCKET - 1)
    victim = -1
    vscore = np.int64(1 << 30)
    for k in range(BUCKET):
        e = base + k
        w0 = dtt[e, 0]
        w1 = dtt[e, 1]
        w2 = dtt[e, 2]
        w3 = dtt[e, 3]
        if w3 == 0:
            if vscore > -1:
                victim = e
                vscore = -1
            continue
        if w1 == ct and (w0 ^ mix(w1, w2, w3)) == cm and _info_s(w3) == s and _info_c(w3) == c:
            victim = e
            break
        settled = (w2 & np.uint64(0xFFFFFFFF)) == 0 or (w2 >> np.uint64(32)) == 0
        score = _info_work(w3) + (16 if settled else 0)
        if score < vscore:
            victim = e
            vscore = score
    w2 = _to_stored(pn) | (_to_stored(dn) << np.uint64(32))
    w3 = _info(s, c, work)
    dtt[victim, 1] = ct
    dtt[victim, 2] = w2
    dtt[victim, 3] = w3
    dtt[victim, 0] = cm ^ mix(ct, w2, w3)


@njit(cache=True)
def table_rehash(old, new):
    """Move every entry of ``old`` into ``new``, a larger zeroed table no thread is using (the
    key, counter and threshold are read back from the entry's words); in a full bucket the
    costlier entries stay."""
    mask = new.shape[0] // BUCKET - 1
    for e in range(old.shape[0]):
        w3 = old[e, 3]
        if w3 == 0:
            continue
        w0 = old[e, 0]
        w1 = old[e, 1]
        w2 = old[e, 2]
        base = _bucket(w0 ^ mix(w1, w2, w3), w1, _info_c(w3), _info_s(w3), mask)
        victim = -1
        cwork = _info_work(w3)
        for k in range(BUCKET):
            if new[base + k, 3] == 0:
                victim = base + k
                break
            wk = _info_work(new[base + k, 3])
            if wk < cwork:
                victim = base + k
                cwork = wk
        if victim >= 0:
            new[victim, 0] = w0
            new[victim, 1] = w1
            new[victim, 2] = w2
            new[victim, 3] = w3


# -- leaves -----------------------------------------------------------------------------------------

@njit(cache=True)
def count_moves(m, t, playable, adj, jmp):
    """The mover's number of moves (1 for a forced pass)."""
    n = np.int64(0)
    e = playable & ~(m | t)
    while e:
        sq = lowest_square(e)
        e &= e - np.uint64(1)
        if adj[sq] & m:
            n += 1
        n += np.int64(popcount(jmp[sq] & m))
    return max(n, np.int64(1))


@njit(cache=True)
def _gen(m, t, playable, adj, jmp, mv, moff):
    """The mover's moves from ``mv[moff]`` on, clones first; a pass (-1) when there is none."""
    n = 0
    e = playable & ~(m | t)
    while e:
        to = np.int64(lowest_square(e))
        e &= e - np.uint64(1)
        if adj[to] & m:
            mv[moff + n] = to
            n += 1
    e = playable & ~(m | t)
    while e:
        to = np.int64(lowest_square(e))
        e &= e - np.uint64(1)
        o = jmp[to] & m
        while o:
            frm = np.int64(lowest_square(o))
            o &= o - np.uint64(1)
            mv[moff + n] = (frm + 1) * 64 + to
            n += 1
    if n == 0:
        mv[moff] = -1
        n = 1
    return n


# -- the test -----------------------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def dfpn_test(mine, theirs, counter, s, geo, tt, dtt, local, opts, tb):
    """Is the mover's score at least s (never 0)? Returns s when proved (a lower bound on the
    score), s - 1 when disproved (an upper bound); ``stats[S_ROOTMOVE]`` the move that proves it
    (-2 when there is none); ``stats[S_STOP]`` != 0 when it stopped without an answer.

    ``geo``: as :func:`.search.search_test`; ``tt``: the alpha-beta table (read for proved
    bounds, written with settled results); ``dtt``: this search's table; ``local`` = (stats,
    abort); ``opts`` (int64): the repetition rule, the clock kind, the stack's limit in plies, and
    the last plies' solver's empty squares (0: not used), plies and nodes (as :mod:`.search`);
    ``tb``: the tablebases probed at the leaves, as in :func:`.search.search_test` (a child they
    hold is proved or disproved at once by its exact score).
    """
    playable, adj, jmp, reach, canon, symperm, syminv, rules = geo
    stats, abort = local
    loopy = opts[O_LOOPY] != 0
    clock_kind = opts[O_CLOCK]
    max_stack = opts[O_MAX_STACK]
    last_max, last_plies, last_nodes = opts[O_LAST], opts[O_LAST_PLIES], opts[O_LAST_NODES]
    lcnt = np.zeros(NLCOUNT, np.int64)
    tb_max = tb[4][T_MAX]
    ENTER, LOOP, RETURNED = 0, 1, 2
    stats[S_STOP] = 0
    stats[S_ROOTMOVE] = -2
    node_limit = stats[S_NODE_LIMIT]
    squares = np.int64(popcount(playable))
    nbmask = ttable.layout(tt.shape[0], squares)
    nsym = symperm.shape[0]
    top = squares * scores.M - scores.HALF  # a threshold above it asks for every square
    cap = 256
    fr, fm, ft, fk1, fk2 = new_frames(cap, NF)
    line = new_line()  # the current line's keys, for the repetition rule
    mcap = 1 << 14
    cmv = np.empty(mcap, np.int64)
    cpn = np.empty(mcap, np.int64)
    cdn = np.empty(mcap, np.int64)
    cdep = np.empty(mcap, np.int64)
    probe = np.empty(4, np.int64)
    kid_mine = np.empty(MAX_MOVES, np.uint64)  # the children's pieces while a node is expanded
    kid_theirs = np.empty(MAX_MOVES, np.uint64)
    ttflat = tt.reshape(-1)  # the tables' entries as words, for prefetching
    dttflat = dtt.reshape(-1)

    over, score = game_status(mine, theirs, counter, playable, reach, rules)
    if over:
        return s if score * scores.M >= s else s - 1
    known, fscore = fill_out(mine, theirs, playable, adj, rules)
    if known:
        return s if fscore >= s else s - 1
    fm[0] = mine
    ft[0] = theirs
    fr[0, F_C] = counter
    fr[0, F_S] = s
    fr[0, F_THPN] = INF
    fr[0, F_THDN] = INF
    fr[0, F_MOFF] = 0
    fr[0, F_NOLAST] = 65  # the last plies' solver is tried below this many empty squares
    ply = 0
    ret_pn = np.int64(0)
    ret_dn = np.int64(0)
    ret_dep = NONE
    state = ENTER
    while True:
        if state == ENTER:
            m = fm[ply]
            t = ft[ply]
            c = fr[ply, F_C]
            sn = fr[ply, F_S]
            if ply > stats[S_MAXPLY]:
                stats[S_MAXPLY] = ply
            if nsym > 1:
                cm, ct, sym = canonical(m, t, canon)
            else:
                cm, ct, sym = m, t, np.int64(0)
            empties = np.int64(popcount(playable & ~(m | t)))
            if sn > top or sn <= -top:
                # every square at best, and not before the game can end (mate-distance pruning)
                d = max(np.int64(1), min_plies_to_end(m, t, c, playable, reach, rules))
                if sn > squares * scores.M - d:
                    ret_pn, ret_dn, ret_dep = INF, np.int64(0), NONE
                    if ply == 0:
                        return sn - 1
                    ply -= 1
                    state = RETURNED
                    continue
                if sn <= -squares * scores.M + d:
                    ret_pn, ret_dn, ret_dep = np.int64(0), INF, NONE
                    if ply == 0:
                        return sn
                    ply -= 1
                    state = RETURNED
                    continue
            repeated = np.int64(-1)
            hb = np.int64(0)
            if loopy:
                hb = line_bucket(cm, ct)
                repeated = repetition(line, fr, F_PREV, F_EMP, fk1, fk2, ply, cm, ct, empties, hb, 1)
            if repeated >= 0:
                stats[S_REPS] += 1
                if 0 >= sn:
                    ret_pn, ret_dn = np.int64(0), INF
                else:
                    ret_pn, ret_dn = INF, np.int64(0)
                ret_dep = np.int64(repeated)
                ply -= 1
                state = RETURNED
                continue
            grown = room(ply, cap, max_stack)
            if grown == 0:
                stats[S_STOP] = STOP_STACK
                return np.int64(0)
            if grown != cap:
                cap = grown
                fr, fm, ft, fk1, fk2 = grow_frames(fr, fm, ft, fk1, fk2, cap)
            moff = fr[ply, F_MOFF]
            grown = move_room(moff, MAX_MOVES, mcap)
            if grown != mcap:
                mcap = grown
                cmv = grow(cmv, mcap)
                cpn = grow(cpn, mcap)
                cdn = grow(cdn, mcap)
                cdep = grow(cdep, mcap)
            fk1[ply] = cm
            fk2[ply] = ct
            if loopy:
                line_push(line, fr, F_PREV, F_HB, ply, hb)
            fr[ply, F_EMP] = empties
            fr[ply, F_SYM] = sym
            fr[ply, F_NODES] = stats[S_NODES]
            stats[S_EXPANDED] += 1
            n = _gen(m, t, playable, adj, jmp, cmv, moff)
            fr[ply, F_N] = n
            sc = -_widen(sn) + 1  # each child's threshold: the parent is proved when a child is disproved
            # first every probed child's buckets in both tables are prefetched: their cache misses
            # overlap (one after another, each waits its own)
            dmask = dtt.shape[0] // BUCKET - 1
            for k in range(n):
                code = cmv[moff + k]
                nm, nt = play(m, t, code, adj)
                kid_mine[k] = nm
                kid_theirs[k] = nt
                cempty = np.int64(popcount(playable & ~(nm | nt)))
                if cempty > last_max and cempty > tb_max:
                    if nsym > 1:
                        ccm, cct, _ = canonical(nm, nt, canon)
                    else:
                        ccm, cct = nm, nt
                    prefetch(dttflat, _bucket(ccm, cct, next_counter(c, code, rules), sc, dmask) * 4)
                    prefetch(ttflat, ttable.bucket(ccm, cct, nbmask) * ttable.ENTRY_WORDS)
            for k in range(n):
                code = cmv[moff + k]
                nm = kid_mine[k]
                nt = kid_theirs[k]
                nc = next_counter(c, code, rules)
                stats[S_NODES] += 1
                if stats[S_NODES] > node_limit > 0:  # mid-expansion: nothing of this node is stored yet
                    stats[S_STOP] = STOP_NODES
                    return np.int64(0)
                cdep[moff + k] = NONE
                over, score = game_status(nm, nt, nc, playable, reach, rules)
                if over:
                    proved = score * scores.M >= sc
                    cpn[moff + k] = 0 if proved else INF
                    cdn[moff + k] = INF if proved else 0
                    continue
                if nm == 0 or nt == 0:
                    known, fscore = fill_out(nm, nt, playable, adj, rules)
                    if known:
                        proved = fscore >= sc
                        cpn[moff + k] = 0 if proved else INF
                        cdn[moff + k] = INF if proved else 0
                        continue
                cempty = np.int64(popcount(playable & ~(nm | nt)))
                if cempty <= tb_max:
                    stats[S_TABLE] += 1  # the tables hold the child: proved or disproved at once
                    proved = table_score(nm, nt, tb) >= sc
                    cpn[moff + k] = 0 if proved else INF
                    cdn[moff + k] = INF if proved else 0
                    continue
                if cempty <= last_max and cempty < fr[ply, F_NOLAST]:  # the last plies: a known answer is a fact
                    w0 = lcnt[L_NODES]
                    lcnt[L_LIMIT] = w0 + (last_nodes if node_limit <= 0 else
                                          max(1, min(last_nodes, node_limit - stats[S_NODES])))
                    lw, lknown = last_test(nm, nt, nc, sc - 1, sc, last_plies, playable, adj, jmp, reach, rules,
                                           lcnt)
                    stats[S_LASTNODES] += lcnt[L_NODES] - w0
                    stats[S_NODES] += lcnt[L_NODES] - w0 - 1
                    if lknown:
                        stats[S_LAST] += 1
                        proved = lw >= sc
                        cpn[moff + k] = 0 if proved else INF
                        cdn[moff + k] = INF if proved else 0
                        continue
                    fr[ply, F_NOLAST] = cempty  # beyond its reach here: not again at this count below this node
                if nsym > 1:
                    ccm, cct, _ = canonical(nm, nt, canon)
                else:
                    ccm, cct = nm, nt
                pn, dn, found = table_probe(dtt, ccm, cct, nc, sc)
                if not found or (pn != 0 and dn != 0):
                    ttable.probe(tt, ttable.bucket(ccm, cct, nbmask), ccm, cct, nc, clock_kind, 0, 0, probe)
                    if probe[0] >= sc:
                        pn, dn = np.int64(0), INF
                    elif probe[1] < sc:
                        pn, dn = INF, np.int64(0)
                    elif not found:
                        pn, dn = np.int64(1), count_moves(nm, nt, playable, adj, jmp)
                cpn[moff + k] = pn
                cdn[moff + k] = dn
            state = LOOP
            continue
        if state == RETURNED:
            k = fr[ply, F_SEL]
            moff = fr[ply, F_MOFF]
            cpn[moff + k] = ret_pn
            cdn[moff + k] = ret_dn
            cdep[moff + k] = ret_dep
            state = LOOP
            continue
        # -- state LOOP: the node's numbers from its children's; stop, or go down the most-proving ---
        moff = fr[ply, F_MOFF]
        n = fr[ply, F_N]
        pn_n = INF
        dn_n = np.int64(0)
        best = -1
        dn2 = INF
        for k in range(n):
            d = cdn[moff + k]
            if d < pn_n:
                dn2 = pn_n
                pn_n = d
                best = k
            elif d < dn2:
                dn2 = d
            p = cpn[moff + k]
            if p >= INF or dn_n >= INF:
                dn_n = INF
            else:
                dn_n = min(dn_n + p, INF - 1)
        thpn = fr[ply, F_THPN]
        thdn = fr[ply, F_THDN]
        if pn_n == 0 or dn_n == 0 or pn_n >= thpn or dn_n >= thdn:
            # -- the node is done for now: its numbers, what they rest on, the table --------------
            dep = NONE
            if pn_n == 0:
                dep = np.int64(-1)
                for k in range(n):  # a proof through the disproved child that rests on the least
                    if cdn[moff + k] == 0 and cdep[moff + k] > dep:
                        dep = cdep[moff + k]
                        best = k
            elif dn_n == 0:
                for k in range(n):  # a disproof rests on every child
                    dep = min(dep, cdep[moff + k])
            dq = dep if dep < ply else NONE
            settled = pn_n == 0 or dn_n == 0
            if settled and dq != NONE:
                stats[S_PATHDEP] += 1
            else:
                work = work_log2(stats[S_NODES] - fr[ply, F_NODES] + 1)
                table_store(dtt, fk1[ply], fk2[ply], fr[ply, F_C], fr[ply, F_S], pn_n, dn_n, work)
                if settled:
                    stats[S_SETTLED] += 1
                    sn = fr[ply, F_S]
                    move = np.int64(-2)
                    if pn_n == 0:
                        move = map_move_by(cmv[moff + best], symperm, fr[ply, F_SYM])
                    ttable.store(tt, ttable.bucket(fk1[ply], fk2[ply], nbmask), fk1[ply], fk2[ply], fr[ply, F_C],
                                 clock_kind, sn if pn_n == 0 else -scores.INF_SCORE,
                                 sn - 1 if dn_n == 0 else scores.INF_SCORE, 0, 0, 0, 0, move, work)
            if ply == 0:
                if pn_n == 0:
                    stats[S_ROOTMOVE] = cmv[moff + best]
                    return fr[0, F_S]
                if dn_n == 0:
                    return fr[0, F_S] - 1
                # the root's thresholds are infinite: cannot happen
                stats[S_STOP] = STOP_NODES
                return np.int64(0)
            ret_pn = pn_n
            ret_dn = dn_n
            ret_dep = dq
            if loopy:
                line_pop(line, fr, F_PREV, F_HB, ply)
            ply -= 1
            state = RETURNED
            continue
        if stats[S_NODES] > node_limit > 0:
            stats[S_STOP] = STOP_NODES
            return np.int64(0)
        if abort[0] != 0:
            stats[S_STOP] = STOP_ABORT
            return np.int64(0)
        # the most-proving child, under thresholds (1 + 1/4 of the second best)
        fr[ply, F_SEL] = best
        cthpn = thdn - dn_n + cpn[moff + best] if thdn < INF else INF
        cthdn = min(thpn, max(dn2 + 1, dn2 + dn2 // 4)) if dn2 < INF else thpn
        code = cmv[moff + best]
        nm, nt = play(fm[ply], ft[ply], code, adj)
        fm[ply + 1] = nm
        ft[ply + 1] = nt
        fr[ply + 1, F_C] = next_counter(fr[ply, F_C], code, rules)
        fr[ply + 1, F_S] = -_widen(fr[ply, F_S]) + 1
        fr[ply + 1, F_THPN] = cthpn
        fr[ply + 1, F_THDN] = cthdn
        fr[ply + 1, F_MOFF] = moff + n
        fr[ply + 1, F_NOLAST] = fr[ply, F_NOLAST]
        ply += 1
        state = ENTER
