"""The search engine, compiled: null-window tests that prove bounds, for positions too large to enumerate.

Everything here answers one question, "is the mover's score at least s?" (a
*test*), by a fail-soft alpha-beta search in the null window (s - 1, s). The
answer is a proof: a *lower bound* when yes, an *upper bound* when no. Values,
outcomes, intervals and depths are sequences of tests (:class:`solver.oracles.search.SearchOracle`).

Scores
------
A position's score for the mover is ``u * M - d`` when the mover wins by u > 0
in d plies, ``u * M + d`` when it loses by -u, and 0 for a draw (M = 2**20).
Maximising it prefers the larger value, then the shorter win or the longer loss
(SPEC section 4). A child's score w becomes ``h(-w)`` for the parent, with
h(x) = x - 1 for x > 0 and x + 1 for x < 0, so windows translate exactly
(:func:`solver.common.scores.widen`). A test "is the value at least k?" puts s = k * M - M/2 (the
boundary between two values); a test inside a value's band asks about depth.
No threshold is ever 0, so every node of a test asks a yes/no question.

Loops (classic): the repetition rule
------------------------------------
Under ``classic`` play may go on forever and is worth 0. The search of the real
game scores a position that repeats one on the current line (compared by
canonical key) as 0. In a test this is exact. Call P the side for which 0 is
*not* enough (it needs a finished game better than 0 for it at the threshold)
and F the other side, for which 0 is enough. (1) If P can reach its threshold,
it has an attractor strategy that lowers its rank on every move, so it never
repeats a position: the same proof works under the rule. (2) If P cannot, F has
a strategy that keeps P from its threshold forever; under the rule, every line
that follows it ends in a finished game F is content with, or in a repetition,
which scores 0 and so also contents F. Repetitions of colour-inverted keys are
covered as well: equal keys have equal values for their movers.

Under a counter (``uai``, ``cs61b``, ``jump3``) every game ends: every jump or
pass moves the counter on (a pass under ``cs61b`` does not, but two passes in a
row end the game), every clone fills a square. The counter is part of every key,
so the search of the real game needs no repetition rule and every result is a
fact of its key. Under ``uai`` the limit scores 0 and the *clock fact* (SPEC
section 4.1) lets a bound proved at one clock answer the same board at others:
if a side can force at least v > 0 at clock c, it can at every lower clock, with
the same plays (its strategy never reaches the limit, which would give 0, so a
lower clock changes no line); if it can force at least v <= 0 at clock c, it can
at every higher clock (a line cut earlier by the limit ends in 0 >= v). Under
``cs61b`` and ``jump3`` the pieces are counted at the limit: there is no such
fact, and a bound holds for its own counter only.

Which results may be stored (graph history)
-------------------------------------------
P's successes never rest on a repetition (a repetition is a success for F).
An F success may rest on repetitions of positions above it on the current line.
Each call returns, with its score, the lowest ply of a repetition its result
rests on (``dep``). A result that rests on nothing above the node is a fact and
goes to the transposition table. One that rests on an ancestor A goes to the
*conditional table*, tagged with A's visit: it holds wherever A is still on the
line, so the rest of A's subtree reuses it (in a loop most results rest on the
loop's top, and without this every path through the loop is searched again).
When A's own result is known, A's F success validates what rested on it (the
positions F claimed, A included, form a set F never has to leave, so P cannot
reach its threshold from any of them): each such result is stored as a fact, or
now rests on what A rested on; a P success at A drops everything made below it
(it may have assumed F held at A). A repetition scores exactly the window's
boundary on F's side (the yes/no answer, nothing more), so every stored bound is
a proved bound.

Budgeted proofs (acyclic)
-------------------------
On large boards a test first looks for proofs in a *budgeted game*: the real game
cut when a *run* (the plies since the last clone, or since the root; under a
counter rule the counter itself, which is the run: the cut comes at counter B,
below the rule's limit) reaches the budget B. A clone fills a square, so a run
ends at most once per empty square: every line of a budgeted game is finite, and
a position with its run is a key whose results need no repetition at all. The
cut is scored against the side proving: as a loss for P (*P's game*: a P success
there is a P success in the real game, since P's strategy never reaches the cut)
or as a win for P (*F's game*: an F success there is real, F's strategy never
reaching the cut either). The other side's successes hold in that budgeted game
only ("weak" results); they are stored with their plies left in the run r and,
under classic, the budget B (kept in the entry's counter field, which classic
does not use), and read only where they still hold. In a game whose cut is a
loss for a node's mover, more room can only raise its score: a weak upper bound
(the mover's failure) found with (r, B) holds with (r', B') for r' <= r and
B' <= B (every line of the smaller game is a line of the larger one, or is cut
earlier, which is the mover's loss); the other way round for a cut that is a win
for the mover. Under a counter rule r = B - counter and the counter is in the key,
so r' <= r is the whole condition. Proved (real) results hold in every budgeted
game whatever its budget: a real success of the side proving is a leaf of a
strategy whose every leaf is real, so the proof it ends is real (the budgeted game
with some subtrees replaced by real results is still a game in which the prover's
strategy never reaches the cut); a real success of the other side holds in a game
whose cut favours it. The table's entries are thus exact for their key: the
budget widens in steps (:data:`solver.oracles.search.BUDGETS`) and every bound
proved at one step stays proved at the next.

The repetition rule still applies inside a budgeted game under ``classic`` and
``uai`` (a repeated board within a run, with the same side to move, scores 0 for
F as in the real game): a P success never rests on one; an F success in F's game
is a strategy of the real game under the rule, so it is real by the argument
above (under ``uai`` a repetition continued forever meets the clock's limit,
worth 0, as F needs); an F success in P's game that rests on a repeated board A
holds where A does: the repeated position is A's board with less room left in
the run, and less room only helps F in P's game, so the validation of the
conditional table stays sound. The same side to move is required (a
colour-inverted repetition would swap which side the cut counts against).
The search of the real game (no budget, with the repetition rule under classic) is
the *cycle-aware prover*: it alone proves what needs endless play (a draw by
infinite play, or a hold that only repeating a position keeps).

The transposition table
-----------------------
Proved bounds are kept in :mod:`.ttable`, one table shared by every thread of a
search (lockless entries). It starts small and grows between tests (the caller
moves its entries to a larger one, :func:`.ttable.rehash`). The keys of positions near
the end share the table's first buckets, which stay in cache (:func:`.ttable.layout`).

A test whose threshold asks for every square (a depth test of the largest value)
is cut as chess engines cut mates: a position cannot end in fewer plies than
:func:`kernels.min_plies_to_end` says (at least one), so a mover who needs the
largest value sooner than that fails at once, and so does one whose opponent
needs it (mate-distance pruning; exact, a bound on every line from the node).

Before searching a node's moves, the node's own table move is tried first
without generating the others (most cut-offs come from it); when it does not cut,
the other moves are generated, and at the test's first ``O_ETC_PLIES`` plies the
table is read for each child (enhanced transposition cut-offs): a child already
refuted cuts the node at once (deeper, the reads cost more than the cut-offs save).
A child that is over, or cut by the budget, is scored in place without a frame of
its own.

A side with no pieces (classic)
-------------------------------
Under ``classic`` a wiped-out side passes while the other fills what it can
reach. When every empty square lies in a region of empty squares (8-connected)
that touches the survivor, the rest of the game is known without search: the
survivor clones into every empty square, one per turn (each clone is adjacent to
its pieces; a jump would fill nothing), so it ends with every square, and the
end comes soonest that way: 2R - 1 plies with the survivor to move and R empty
squares, 2R with the wiped-out side to move (it passes first). The search scores
such a position as finished with that value and depth (:func:`fill_out`).

Tablebases at the leaves (classic)
----------------------------------
Given tablebases of the board (``tb``, :mod:`.tbprobe`), a child with at most ``tb_max``
empty squares is scored in place with its exact composite score, as a finished child
is: a fact that rests on nothing above (no repetition). Under a budget this stays
sound: a table leaf is a real result, which holds in every budgeted game.
``stats[S_TABLE]`` counts the probes.

The last plies
--------------
A child with at most ``O_LAST`` empty squares is first asked of :func:`.lastplies.last_test`,
a plain alpha-beta of the real game without table, move list or allocation, within a few plies
and nodes: a known answer is a result of finished games only (no repetition, no cut), a fact
that rests on nothing above, scored in place as a finished child is; and like every real
result it holds in every budgeted game (see above). An unknown answer costs its nodes (they
count as the search's) and the child is searched as usual. ``stats[S_LAST]`` counts the
children it answered, ``stats[S_LASTNODES]`` the nodes it visited: nodes that never reach
this kernel's frames.

Limits
------
There is no ply limit: the stack grows as needed (up to the memory budget).
A test stops, without an answer, at the node limit, on abort (deadline or
Ctrl-C), or when the stack outgrows its budget; whatever it stored stays valid.
:meth:`solver.oracles.search.SearchOracle.bounds_of` turns that into an interval that is always proved.

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
from .tbprobe import T_MAX, table_score

M = np.int64(scores.M)
INF_SCORE = np.int64(scores.INF_SCORE)
NONE = np.int64(1 << 40)  # "no repetition": the result rests on nothing above
MAX_MOVES = 64 * 21
ENTRY_WORDS = ttable.ENTRY_WORDS
BUCKET = ttable.BUCKET

# stats slots
S_NODES, S_MAXPLY, S_NODE_LIMIT, S_STOP, S_PROBES, S_HITS, S_TTCUTS, S_CUTS, S_FIRSTCUTS, S_STORES, \
    S_PENDING, S_VALIDATED, S_DISCARDED, S_REPS, S_ETC, S_VISITS, S_CHITS, S_TERMINAL, S_HCUTS, S_GENERATED, \
    S_SEARCHED, S_TTFIRST, S_FILLOUT, S_ROOTMOVE, S_TABLE, S_LAST, S_LASTNODES = range(27)
NSTATS = 27
# stop reasons
STOP_ABORT, STOP_NODES, STOP_STACK = 1, 2, 3
# options (int64 array)
O_BUDGET, O_CUT, O_LOOPY, O_CLOCK, O_MAX_STACK, O_ETC_PLIES, O_LAST, O_LAST_PLIES, O_LAST_NODES = range(9)
NOPTS = 9
# clock kinds: how an entry's counter field is read (:mod:`.ttable`)
CLOCK_EXACT, CLOCK_UAI, CLOCK_NONE = 0, 1, 2

# frame columns
F_C, F_AL, F_BE, F_BEST, F_BESTMV, F_DEP, F_I, F_N, F_MOFF, F_SYM, F_EMP, F_PST, F_NODES, F_LEFT, F_CUTW, \
    F_VISIT, F_GEN, F_RUN, F_PREV, F_HB, F_NOLAST = range(21)
NF = 21
BYTES_PER_PLY = NF * 8 + 4 * 8 + MAX_MOVES * 16

_widen = njit(cache=True)(scores.widen)
_parent_score = njit(cache=True)(scores.parent_score)


# -- a side with no pieces (classic) --------------------------------------------------------------

@njit(cache=True)
def fill_out(m, t, playable, adj, rules):
    """(known, mover's composite score): the rest of a classic game in which a side has no pieces,
    when every empty square can be filled by the survivor's clones (see the module docstring)."""
    if rules[0] != 0 or (m != 0 and t != 0) or (m | t) == 0:
        return False, np.int64(0)
    filled = m | t
    rest = playable & ~filled
    r = np.int64(popcount(rest))
    grew = True
    while rest and grew:
        grew = False
        e = rest
        while e:
            sq = lowest_square(e)
            e &= e - np.uint64(1)
            if adj[sq] & filled:
                filled |= np.uint64(1) << sq
                rest &= ~(np.uint64(1) << sq)
                grew = True
    if rest:
        return False, np.int64(0)
    if t == 0:
        return True, (np.int64(popcount(m)) + r) * M - (2 * r - 1)
    return True, -(np.int64(popcount(t)) + r) * M + 2 * r


# -- the conditional table: results that rest on a position still on the current line ------------
#
# ck[e] = (mine, theirs); ci[e] = (counter, value, lower?, plies left (0: proved), cut a win?, dep ply,
# visit id of the position at the dep ply, move, work, own visit id). own visit id 0: a free row.
C_CNT, C_VAL, C_LOW, C_HR, C_HWIN, C_DEP, C_DVISIT, C_MOVE, C_WORK, C_OWN = range(10)
NC = 10
C_PROBES = 8


@njit(cache=True)
def _c_alive(ci, e, fr, ply):
    d = ci[e, C_DEP]
    return ci[e, C_OWN] != 0 and d < ply and fr[d, F_VISIT] == ci[e, C_DVISIT]


@njit(cache=True)
def _c_mark(cflt, cm, ct, c):
    h = key_hash(cm, ct, np.int64(c))
    cflt[np.int64((h >> np.uint64(40)) & np.uint64(cflt.shape[0] - 1))] |= np.uint64(1) << (h & np.uint64(63))


@njit(cache=True)
def _c_marked(cflt, cm, ct, c):
    h = key_hash(cm, ct, np.int64(c))
    return (cflt[np.int64((h >> np.uint64(40)) & np.uint64(cflt.shape[0] - 1))] >> (h & np.uint64(63))) & np.uint64(1)


@njit(cache=True)
def c_probe(ck, ci, fr, ply, cm, ct, c):
    """Row of a live conditional result for (cm, ct, c), or -1."""
    mask = ck.shape[0] - 1
    h = np.int64(key_hash(cm, ct, np.int64(c)) & np.uint64(mask))
    for k in range(C_PROBES):
        e = (h + k) & mask
        if ci[e, C_OWN] != 0 and ck[e, 0] == cm and ck[e, 1] == ct and ci[e, C_CNT] == c and _c_alive(ci, e, fr, ply):
            return e
    return np.int64(-1)


@njit(cache=True)
def c_insert(ck, ci, fr, ply, cm, ct, c):
    """A row for a new conditional result (the same key's live row, a free or dead row), or -1."""
    mask = ck.shape[0] - 1
    h = np.int64(key_hash(cm, ct, np.int64(c)) & np.uint64(mask))
    free = np.int64(-1)
    for k in range(C_PROBES):
        e = (h + k) & mask
        if ci[e, C_OWN] != 0 and _c_alive(ci, e, fr, ply):
            if ck[e, 0] == cm and ck[e, 1] == ct and ci[e, C_CNT] == c:
                return e
        elif free < 0:
            free = e
    return free


# -- moves and their order ------------------------------------------------------------------------

@njit(cache=True)
def _is_legal(m, t, code, playable, adj, jmp):
    """Is the clone or jump ``code`` legal for the mover (a table move, checked before it is played)?"""
    if code < 0:
        return False
    to = code & 63
    if not ((playable & ~(m | t)) >> np.uint64(to)) & np.uint64(1):
        return False
    frm = (code >> 6) - 1
    if frm < 0:
        return (adj[to] & m) != 0
    return ((m >> np.uint64(frm)) & np.uint64(1)) != 0 and ((jmp[to] >> np.uint64(frm)) & np.uint64(1)) != 0


@njit(cache=True)
def order_key(mine, theirs, code, adj, history):
    """Larger first: clones and jumps by what they take and keep, then the history of cut-offs."""
    if code < 0:
        return np.int64(0)
    to = code & 63
    caps = np.int64(popcount(adj[to] & theirs))
    friends = np.int64(popcount(adj[to] & mine))
    frm = (code >> 6) - 1
    if frm < 0:
        key = 3000 + 400 * caps + 10 * friends
    else:
        exposed = np.int64(popcount(adj[frm] & mine))
        key = 400 * caps + 10 * friends - 120 * exposed
    return key * 65536 + min(history[code & 8191], np.int64(65535))


@njit(cache=True)
def _expand(m, t, playable, adj, jmp, history, mv, mo, moff):
    """Write the mover's moves from ``mv[moff]`` on with their order keys in ``mo``; return how
    many (a pass, -1, when there is none). Keys by destination: what a move there takes and keeps."""
    n = 0
    e = playable & ~(m | t)
    while e:
        to = np.int64(lowest_square(e))
        e &= e - np.uint64(1)
        a = adj[to]
        base = 400 * np.int64(popcount(a & t)) + 10 * np.int64(popcount(a & m))
        if a & m:
            mv[moff + n] = to
            mo[moff + n] = (3000 + base) * 65536 + min(history[to], np.int64(65535))
            n += 1
        o = jmp[to] & m
        while o:
            frm = np.int64(lowest_square(o))
            o &= o - np.uint64(1)
            code = (frm + 1) * 64 + to
            mv[moff + n] = code
            mo[moff + n] = (base - 120 * np.int64(popcount(adj[frm] & m))) * 65536 + \
                min(history[code & 8191], np.int64(65535))
            n += 1
    if n == 0:
        mv[moff] = -1
        mo[moff] = 0
        n = 1
    return n


@njit(cache=True)
def _pick(moves, order, lo, i, hi):
    """Bring the best remaining move of moves[lo + i: lo + hi] to place i and return it."""
    j = i
    for k in range(i + 1, hi):
        if order[lo + k] > order[lo + j]:
            j = k
    a = lo + i
    b = lo + j
    code = moves[b]
    moves[b] = moves[a]
    moves[a] = code
    kj = order[b]
    order[b] = order[a]
    order[a] = kj
    return code


@njit(cache=True)
def _etc(m, t, c, run, moff, first, n, mv, nsym, canon, adj, rules, tt, ttflat, nbmask, clock_kind, budget, ccutw,
         be, probe):
    """(best score, its move): the best the table proves for the mover through one of the moves
    ``mv[moff + first: moff + n]`` (for a cut-off), or (-INF, -2). ``run``: the node's run
    (plies since the last clone, or the rule's counter); ``budget``: the cut (0: none);
    ``ccutw``: how the cut scores for the children's mover."""
    for k in range(first, n):  # load the children's buckets first, then read them
        nm, nt = play(m, t, mv[moff + k], adj)
        if nsym > 1:
            nm, nt, _ = canonical(nm, nt, canon)
        prefetch(ttflat, ttable.bucket(nm, nt, nbmask) * ENTRY_WORDS)
    best = -INF_SCORE
    bmove = np.int64(-2)
    for k in range(first, n):
        code = mv[moff + k]
        nm, nt = play(m, t, code, adj)
        if nsym > 1:
            nm, nt, _ = canonical(nm, nt, canon)
        nc = next_counter(c, code, rules)
        cleft = np.int64(0)
        if budget > 0:
            cleft = budget - (nc if rules[1] != 0 else (np.int64(0) if 0 <= code < 64 else run + 1))
            if cleft <= 0:
                continue  # a cut: scored in place when searched
        ttable.probe(tt, ttable.bucket(nm, nt, nbmask), nm, nt, budget if clock_kind == CLOCK_NONE else nc,
                     clock_kind, cleft, ccutw, probe)
        if probe[1] < INF_SCORE:
            v = _parent_score(-probe[1])
            if v > best:
                best = v
                bmove = code
                if best >= be:
                    return best, bmove
    return best, bmove


# -- finishing a node -------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _finish(ply, best, dep, fr, fk1, fk2, pend, ptop, ck, ci, cflt, tt, nbmask, budget, clock_kind, symperm, stats):
    """Store a finished node's result (or keep it as conditional) and settle what rested on it;
    return the new top of the pending rows and the ply the result rests on (NONE: a fact)."""
    be = fr[ply, F_BE]
    high = best >= be
    f_side = high == (0 >= be)  # F's success (0 lies on the side of the result)
    cutw = fr[ply, F_CUTW]
    dq = dep if dep < ply else NONE
    pst = fr[ply, F_PST]
    # what this result is: a proved bound, or one that holds in the cut game only
    left = fr[ply, F_LEFT]
    hwin = np.int64(0) if cutw == 1 else np.int64(1)
    # a cut that is a loss for the mover makes its lower bounds real; a win, its upper bounds
    real = cutw == 0 or (high and cutw == 2) or ((not high) and cutw == 1)
    hr = np.int64(0) if real else max(np.int64(1), left)
    work = work_log2(stats[S_NODES] - fr[ply, F_NODES] + 1)
    tc = budget if clock_kind == CLOCK_NONE else fr[ply, F_C]  # the entry's counter field
    bm = fr[ply, F_BESTMV]
    cmove = map_move_by(bm, symperm, fr[ply, F_SYM]) if (high and bm != -2) else np.int64(-2)
    if f_side:
        # validate, or rest on what this node rests on, every result that rested on it
        w = pst
        for r in range(pst, ptop):
            e = pend[r, 0]
            if ci[e, C_OWN] != pend[r, 1]:
                continue  # overwritten meanwhile
            d = ci[e, C_DEP]
            nd = dq if d >= ply else min(d, dq)
            if nd == NONE:
                stats[S_VALIDATED] += 1
                ev = ci[e, C_VAL]
                elow = ci[e, C_LOW]
                ereal = ci[e, C_HR] == 0
                ttable.store(tt, ttable.bucket(ck[e, 0], ck[e, 1], nbmask), ck[e, 0], ck[e, 1], ci[e, C_CNT],
                             clock_kind, ev if (elow == 1 and ereal) else -INF_SCORE,
                             ev if (elow == 0 and ereal) else INF_SCORE,
                             ev, ci[e, C_HR], elow, ci[e, C_HWIN], ci[e, C_MOVE], ci[e, C_WORK])
                ci[e, C_OWN] = 0
            else:
                ci[e, C_DEP] = nd
                ci[e, C_DVISIT] = fr[nd, F_VISIT]
                pend[w, 0] = e
                pend[w, 1] = pend[r, 1]
                w += 1
        ptop = w
    else:
        # a P success: what rested on this node assumed F held here; drop all of it
        for r in range(pst, ptop):
            e = pend[r, 0]
            if ci[e, C_OWN] == pend[r, 1]:
                ci[e, C_OWN] = 0
                stats[S_DISCARDED] += 1
        ptop = pst
    if dq == NONE:
        stats[S_STORES] += 1
        lo = best if (high and real) else -INF_SCORE
        hi = best if ((not high) and real) else INF_SCORE
        ttable.store(tt, ttable.bucket(fk1[ply], fk2[ply], nbmask), fk1[ply], fk2[ply], tc, clock_kind,
                     lo, hi, best, hr, np.int64(1) if high else np.int64(0), hwin, cmove, work)
    elif ptop < pend.shape[0]:
        e = c_insert(ck, ci, fr, ply, fk1[ply], fk2[ply], tc)
        if e >= 0:
            stats[S_PENDING] += 1
            ck[e, 0] = fk1[ply]
            ck[e, 1] = fk2[ply]
            ci[e, C_CNT] = tc
            ci[e, C_VAL] = best
            ci[e, C_LOW] = 1 if high else 0
            ci[e, C_HR] = hr
            ci[e, C_HWIN] = hwin
            ci[e, C_DEP] = dq
            ci[e, C_DVISIT] = fr[dq, F_VISIT]
            ci[e, C_MOVE] = cmove
            ci[e, C_WORK] = work
            ci[e, C_OWN] = fr[ply, F_VISIT]
            pend[ptop, 0] = e
            pend[ptop, 1] = fr[ply, F_VISIT]
            ptop += 1
            _c_mark(cflt, fk1[ply], fk2[ply], tc)
    return ptop, dq


# -- the test -------------------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def search_test(mine, theirs, counter, s, geo, tt, local, opts, tb):
    """Fail-soft score of the position in the null window (s - 1, s), s never 0.

    ``geo`` = (playable, adj, jmp, reach, canon, symperm, syminv, rules): the board and the
    rules (:class:`solver.game.bitboards.Tables`); ``tt``: the shared table; ``local`` = (ck,
    ci, history, stats, abort): this thread's conditional table, history, counters
    and abort flag; ``opts`` (int64): the budget (0: the real game) and how its cut scores for
    the root's mover, whether the repetition rule applies, the clock kind (``CLOCK_*``: how the
    table reads its counter field), the stack's limit in plies, the plies from the test's root
    within which enhanced transposition cut-offs are tried, and the last plies' solver
    (:mod:`.lastplies`): the children with at most this many empty squares (0: none) it is
    asked about, the plies and the nodes it may take for each;
    ``tb``: the tablebases probed at the leaves (:mod:`.tbprobe`; ``tb_max`` -1: none).
    Returns the score, and in ``stats[S_ROOTMOVE]`` the root's best move (the move that proves
    a score at least s; -2 when the game is over at the root or the answer needed no move);
    ``stats[S_STOP]`` != 0 means it stopped without an answer.

    An explicit stack of frames (no recursion, no ply limit): the loop is in one of
    three states, entering the node of ``ply``, descending into the move at that
    node's index (a child that is over, or cut by the budget, is scored on the spot
    without a frame of its own), or taking a child's result (``ret_score``, ``ret_dep``).
    """
    playable, adj, jmp, reach, canon, symperm, syminv, rules = geo
    ck, ci, history, stats, abort = local
    budget = opts[O_BUDGET]
    cut_score = opts[O_CUT]
    counted = rules[1] != 0  # a counter rule: the run is the rule's counter (see the docstring)
    loopy = opts[O_LOOPY] != 0
    clock_kind = opts[O_CLOCK]
    max_stack = opts[O_MAX_STACK]
    etc_plies = opts[O_ETC_PLIES]
    last_max, last_plies, last_nodes = opts[O_LAST], opts[O_LAST_PLIES], opts[O_LAST_NODES]
    lcnt = np.zeros(NLCOUNT, np.int64)
    tb_max = tb[4][T_MAX]
    ENTER, DESCEND, RETURNED = 0, 1, 2
    stats[S_STOP] = 0
    stats[S_ROOTMOVE] = -2
    node_limit = stats[S_NODE_LIMIT]
    next_abort_check = stats[S_NODES] + 16384  # the abort flag is read every 16,384 nodes
    squares = np.int64(popcount(playable))
    nbmask = ttable.layout(tt.shape[0], squares)  # (the table's buckets: :func:`.ttable.bucket`)
    ttflat = tt.reshape(-1)  # the same entries as words, for prefetching
    nsym = symperm.shape[0]
    top = squares * M - M // 2  # a score above it is a value of every square
    cap = 256
    fr, fm, ft, fk1, fk2 = new_frames(cap, NF)
    line = new_line()  # the current line's keys, for the repetition rule
    mcap = 1 << 14
    mv = np.empty(mcap, np.int64)
    mo = np.empty(mcap, np.int64)
    pend = np.empty((ck.shape[0], 2), np.int64)  # conditional rows made on the current line: (row, own visit)
    ptop = 0
    cflt = np.zeros(1024, np.uint64)  # keys that may have a conditional row (cleared when none is live)
    cflt_used = False
    probe = np.empty(4, np.int64)

    fm[0] = mine
    ft[0] = theirs
    fr[0, F_C] = counter
    fr[0, F_RUN] = counter if counted else 0
    fr[0, F_NOLAST] = 65  # the last plies' solver is tried below this many empty squares
    fr[0, F_AL] = s - 1
    fr[0, F_BE] = s
    fr[0, F_MOFF] = 0
    ply = 0
    ret_score = np.int64(0)
    ret_dep = NONE
    stats[S_NODES] += 1
    over, score = game_status(mine, theirs, counter, playable, reach, rules)
    if over:
        return score * M
    known, fscore = fill_out(mine, theirs, playable, adj, rules)
    if known:
        return fscore
    if budget > 0 and fr[0, F_RUN] >= budget:
        return cut_score
    state = ENTER
    while True:
        if state == ENTER:
            # -- a node that is not over and not cut: the table, repetitions, then its moves --------
            m = fm[ply]
            t = ft[ply]
            c = fr[ply, F_C]
            al = fr[ply, F_AL]
            be = fr[ply, F_BE]
            if ply > stats[S_MAXPLY]:
                stats[S_MAXPLY] = ply
            hcut = cut_score if ply % 2 == 0 else -cut_score
            if nsym > 1:
                cm, ct, sym = canonical(m, t, canon)
            else:
                cm, ct, sym = m, t, np.int64(0)
            empties = np.int64(popcount(playable & ~(m | t)))
            left = budget - fr[ply, F_RUN] if budget > 0 else np.int64(0)
            cutw = np.int64(0) if budget == 0 else (np.int64(1) if hcut > 0 else np.int64(2))
            tc = budget if clock_kind == CLOCK_NONE else c  # the entry's counter field
            stats[S_PROBES] += 1
            ttable.probe(tt, ttable.bucket(cm, ct, nbmask), cm, ct, tc, clock_kind, left, cutw, probe)
            lo = probe[0]
            hi = probe[1]
            tt_move = probe[2]
            if probe[3] != 0:
                stats[S_HITS] += 1
            cdep = NONE
            if not (lo >= be or hi <= al) and ptop > 0 and _c_marked(cflt, cm, ct, tc):
                e = c_probe(ck, ci, fr, ply, cm, ct, tc)
                if e >= 0:
                    cv = ci[e, C_VAL]
                    chr_ = ci[e, C_HR]
                    usable = chr_ == 0
                    if not usable and cutw != 0 and ci[e, C_HWIN] + 1 == cutw:
                        if cutw == 2:
                            usable = left >= chr_ if ci[e, C_LOW] == 1 else left <= chr_
                        else:
                            usable = left <= chr_ if ci[e, C_LOW] == 1 else left >= chr_
                    if usable:
                        if ci[e, C_LOW] == 1 and cv >= be:
                            lo = cv
                            cdep = ci[e, C_DEP]
                        elif ci[e, C_LOW] == 0 and cv <= al:
                            hi = cv
                            cdep = ci[e, C_DEP]
                        if cdep != NONE:
                            stats[S_CHITS] += 1
                    if tt_move == -2 and ci[e, C_MOVE] != -2:
                        tt_move = ci[e, C_MOVE]
            if ply > 0 and (lo >= be or hi <= al or lo == hi):  # the root searches, to name its move
                stats[S_TTCUTS] += 1
                ret_score = lo if lo >= be else (hi if hi <= al else lo)
                ret_dep = cdep
                ply -= 1
                state = RETURNED
                continue
            if ply > 0 and (be > top or al < -top):
                # a value of every square at best (mate-distance pruning): the game lasts at least
                # another ply, and at least what min_plies_to_end says
                d = max(np.int64(1), min_plies_to_end(m, t, c, playable, reach, rules))
                if squares * M - d < be or -squares * M + d > al:
                    ret_score = squares * M - d if squares * M - d < be else -squares * M + d
                    ret_dep = NONE
                    ply -= 1
                    state = RETURNED
                    continue
            repeated = np.int64(-1)
            hb = np.int64(0)
            if loopy:
                hb = line_bucket(cm, ct)
                repeated = repetition(line, fr, F_PREV, F_EMP, fk1, fk2, ply, cm, ct, empties, hb,
                                      2 if budget > 0 else 1)
            if repeated >= 0:
                # exactly the boundary on F's side of the window (0 is never inside it)
                stats[S_REPS] += 1
                ret_score = be if 0 >= be else al
                ret_dep = np.int64(repeated)
                ply -= 1  # never the root: a repetition needs a position above
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
                mv = grow(mv, mcap)
                mo = grow(mo, mcap)
            fk1[ply] = cm
            fk2[ply] = ct
            if loopy:
                line_push(line, fr, F_PREV, F_HB, ply, hb)
            fr[ply, F_EMP] = empties
            fr[ply, F_SYM] = sym
            fr[ply, F_PST] = ptop
            fr[ply, F_NODES] = stats[S_NODES]
            fr[ply, F_LEFT] = left
            fr[ply, F_CUTW] = cutw
            stats[S_VISITS] += 1
            fr[ply, F_VISIT] = stats[S_VISITS]
            fr[ply, F_I] = 0
            fr[ply, F_BEST] = -INF_SCORE
            fr[ply, F_BESTMV] = -2
            fr[ply, F_DEP] = NONE
            if tt_move != -2:
                tt_move = map_move_by(tt_move, syminv, sym)
            if _is_legal(m, t, tt_move, playable, adj, jmp):
                # the table's move first, the others only if it does not cut
                stats[S_TTFIRST] += 1
                mv[moff] = tt_move
                fr[ply, F_N] = 1
                fr[ply, F_GEN] = 0
                state = DESCEND
                continue
            n = _expand(m, t, playable, adj, jmp, history, mv, mo, moff)
            stats[S_GENERATED] += n
            fr[ply, F_N] = n
            fr[ply, F_GEN] = 1
            if ply < etc_plies and n > 1:
                # enhanced transposition cut-off: a child the table already refutes
                etc_v, etc_mv = _etc(m, t, c, fr[ply, F_RUN], moff, 0, n, mv, nsym, canon, adj, rules, tt, ttflat,
                                     nbmask, clock_kind, budget, 3 - cutw if cutw != 0 else np.int64(0), be, probe)
                if etc_v >= be:
                    stats[S_ETC] += 1
                    ret_score = etc_v
                    ret_dep = NONE
                    if ply == 0:
                        stats[S_ROOTMOVE] = etc_mv
                        return ret_score
                    if loopy:
                        line_pop(line, fr, F_PREV, F_HB, ply)
                    ply -= 1
                    state = RETURNED
                    continue
            _pick(mv, mo, moff, 0, n)
            state = DESCEND
            continue
        if state == DESCEND:
            # -- play the move at this node's index; score a child that is over or cut here -------
            moff = fr[ply, F_MOFF]
            code = mv[moff + fr[ply, F_I]]
            nm, nt = play(fm[ply], ft[ply], code, adj)
            nc = next_counter(fr[ply, F_C], code, rules)
            stats[S_NODES] += 1
            if stats[S_NODES] > node_limit > 0:
                stats[S_STOP] = STOP_NODES
                return np.int64(0)
            if stats[S_NODES] >= next_abort_check:  # (the last plies' nodes come in steps)
                next_abort_check = stats[S_NODES] + 16384
                if abort[0] != 0:
                    stats[S_STOP] = STOP_ABORT
                    return np.int64(0)
            over, score = game_status(nm, nt, nc, playable, reach, rules)
            if over:
                stats[S_TERMINAL] += 1
                ret_score = score * M
                ret_dep = NONE
                state = RETURNED
                continue
            if nm == 0 or nt == 0:
                known, fscore = fill_out(nm, nt, playable, adj, rules)
                if known:
                    stats[S_FILLOUT] += 1
                    ret_score = fscore
                    ret_dep = NONE
                    state = RETURNED
                    continue
            cempty = np.int64(popcount(playable & ~(nm | nt)))
            if cempty <= tb_max:
                stats[S_TABLE] += 1  # the tables hold the child: its exact score, no search below it
                ret_score = table_score(nm, nt, tb)
                ret_dep = NONE
                state = RETURNED
                continue
            if cempty <= last_max and cempty < fr[ply, F_NOLAST]:  # the last plies, without the machinery
                w0 = lcnt[L_NODES]
                lcnt[L_LIMIT] = w0 + (last_nodes if node_limit <= 0 else
                                      max(1, min(last_nodes, node_limit - stats[S_NODES])))
                lw, lknown = last_test(nm, nt, nc, -_widen(fr[ply, F_BE]), -_widen(fr[ply, F_AL]), last_plies,
                                       playable, adj, jmp, reach, rules, lcnt)
                stats[S_LASTNODES] += lcnt[L_NODES] - w0
                stats[S_NODES] += lcnt[L_NODES] - w0 - 1
                if lknown:
                    stats[S_LAST] += 1  # a fact: finished games only (lastplies)
                    ret_score = lw
                    ret_dep = NONE
                    state = RETURNED
                    continue
                fr[ply, F_NOLAST] = cempty  # beyond its reach here: not again at this count in this subtree
            nrun = nc if counted else (np.int64(0) if 0 <= code < 64 else fr[ply, F_RUN] + 1)
            if budget > 0 and nrun >= budget:
                stats[S_HCUTS] += 1  # the budget is spent: the cut, scored against the side proving
                ret_score = -cut_score if ply % 2 == 0 else cut_score
                ret_dep = NONE
                state = RETURNED
                continue
            fm[ply + 1] = nm
            ft[ply + 1] = nt
            fr[ply + 1, F_C] = nc
            fr[ply + 1, F_RUN] = nrun
            fr[ply + 1, F_NOLAST] = fr[ply, F_NOLAST]
            fr[ply + 1, F_AL] = -_widen(fr[ply, F_BE])
            fr[ply + 1, F_BE] = -_widen(fr[ply, F_AL])
            fr[ply + 1, F_MOFF] = moff + fr[ply, F_N]
            ply += 1
            state = ENTER
            continue
        # -- state RETURNED: the child at this node's index returned (ret_score, ret_dep) ----------
        i = fr[ply, F_I]
        n = fr[ply, F_N]
        moff = fr[ply, F_MOFF]
        code = mv[moff + i]
        v = _parent_score(-ret_score)
        cutoff = False
        if v > fr[ply, F_BEST]:
            fr[ply, F_BEST] = v
            fr[ply, F_BESTMV] = code
        if v >= fr[ply, F_BE]:
            cutoff = True
            fr[ply, F_DEP] = ret_dep  # a cut rests on this child alone
            stats[S_CUTS] += 1
            if i == 0:
                stats[S_FIRSTCUTS] += 1
            if code >= 0:
                history[code & 8191] += 1 + n
        elif ret_dep < fr[ply, F_DEP]:
            fr[ply, F_DEP] = ret_dep  # a fail low rests on every child
        i += 1
        stats[S_SEARCHED] += 1
        if not cutoff and fr[ply, F_GEN] == 0:
            # the table's move did not cut: now the others (it stays first, already searched)
            m = fm[ply]
            t = ft[ply]
            n = _expand(m, t, playable, adj, jmp, history, mv, mo, moff)
            stats[S_GENERATED] += n
            for k in range(n):
                if mv[moff + k] == code:
                    mv[moff + k] = mv[moff]
                    mo[moff + k] = mo[moff]
                    mv[moff] = code
                    break
            fr[ply, F_N] = n
            fr[ply, F_GEN] = 1
            cutw = fr[ply, F_CUTW]
            if ply < etc_plies and n > 2:
                etc_v, etc_mv = _etc(m, t, fr[ply, F_C], fr[ply, F_RUN], moff, 1, n, mv, nsym, canon, adj, rules,
                                     tt, ttflat, nbmask, clock_kind, budget, 3 - cutw if cutw != 0 else np.int64(0),
                                     fr[ply, F_BE], probe)
                if etc_v >= fr[ply, F_BE]:
                    stats[S_ETC] += 1
                    fr[ply, F_BEST] = etc_v
                    fr[ply, F_BESTMV] = etc_mv
                    fr[ply, F_DEP] = NONE  # the cut rests on a fact of the table alone
                    cutoff = True
        if not cutoff and i < n:
            fr[ply, F_I] = i
            _pick(mv, mo, moff, i, n)
            state = DESCEND
            continue
        # -- the node is finished ------------------------------------------------------------------
        best = fr[ply, F_BEST]
        ptop, dq = _finish(ply, best, fr[ply, F_DEP], fr, fk1, fk2, pend, ptop, ck, ci, cflt, tt, nbmask,
                           budget, clock_kind, symperm, stats)
        if dq != NONE:
            cflt_used = True
        if ptop == 0 and cflt_used:
            cflt[:] = 0
            cflt_used = False
        ret_score = best
        ret_dep = dq
        if ply == 0:
            stats[S_ROOTMOVE] = fr[0, F_BESTMV]
            return ret_score
        if loopy:
            line_pop(line, fr, F_PREV, F_HB, ply)
        ply -= 1
        state = RETURNED


@njit(cache=True)
def table_move(tt, squares, mine, theirs, counter, clock_kind, canon, syminv):
    """The table's move for a position (in its own orientation) of a board of ``squares`` playable
    squares, or -2."""
    cm, ct, sym = canonical(mine, theirs, canon)
    return ttable.root_move(tt, squares, cm, ct, counter, clock_kind, sym, syminv)


@njit(cache=True)
def proof_from_table(mine, theirs, counter, s, geo, tt, clock_kind, tb):
    """(move, score): a move whose child's proved bounds in the table (or whose finished child, or
    the tablebases ``tb``) show the mover's score is at least s, with the best score so shown;
    (-2, 0) when none does."""
    playable, adj, jmp, reach, canon, symperm, syminv, rules = geo
    tb_max = tb[4][T_MAX]
    nbmask = ttable.layout(tt.shape[0], popcount(playable))
    nsym = symperm.shape[0]
    moves = np.empty(MAX_MOVES, np.int64)
    n = _expand(mine, theirs, playable, adj, jmp, np.zeros(8192, np.int64), moves, np.empty(MAX_MOVES, np.int64),
                0)
    probe = np.empty(4, np.int64)
    best = -INF_SCORE
    bmove = np.int64(-2)
    for k in range(n):
        code = moves[k]
        nm, nt = play(mine, theirs, code, adj)
        nc = next_counter(counter, code, rules)
        over, score = game_status(nm, nt, nc, playable, reach, rules)
        if over:
            hi = score * M
        else:
            known, fscore = fill_out(nm, nt, playable, adj, rules)
            if known:
                hi = fscore
            elif tb_max >= 0 and np.int64(popcount(playable & ~(nm | nt))) <= tb_max:
                hi = table_score(nm, nt, tb)
            else:
                if nsym > 1:
                    nm, nt, _ = canonical(nm, nt, canon)
                ttable.probe(tt, ttable.bucket(nm, nt, nbmask), nm, nt, nc, clock_kind, 0, 0, probe)
                hi = probe[1]
                if hi >= INF_SCORE:
                    continue
        v = _parent_score(-hi)
        if v > best:
            best = v
            bmove = code
    if best >= s:
        return bmove, best
    return np.int64(-2), np.int64(0)
