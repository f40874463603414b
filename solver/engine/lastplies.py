"""The last plies, compiled and exact: no table, no move list, no allocation.

For the search kernels (:mod:`.search`, :mod:`.dfpn`) to call at a node with few empty
squares, instead of a frame of their own. Positions are ``(mine, theirs, counter)``
from the mover's side, scores composite (:mod:`solver.common.scores`: ``u * M - d`` for
a win by u in d plies, ``u * M + d`` for a loss, 0 a draw); a finished game scores its
material times M, and a parent sees a child's w as ``parent_score(-w)``, as in the
search. Plain functions of arrays and integers; none allocates.

What each gives, and where it is exact
--------------------------------------
:func:`last_test` answers the search's question on a window ``(al, be)`` (a null window
or wider) by a fail-soft alpha-beta over the real game, moves generated from the bit
sets in place (clones before jumps, each by what it captures). A line longer than
``plies`` plies, or a search past ``cnt[1]`` nodes, is *unknown*; a node whose answer
would need an unknown child is unknown too (a cut-off needs a known child, a fail-low
needs every child known). So a known answer is a result of finished games only:
exact under every rule set (the counter is applied at each ply as the rules say: the
uai clock's draw, the cs61b and jump3 limits, wipe-outs), with no repetition rule, no
clock fact and no horizon, and it rests on nothing above the node (a fact, for any
table). Under ``classic`` a jump war that repeats is cut by ``plies`` and so is
unknown: the caller searches such a node itself. Fail-soft as the search: a known
score ``v >= be`` is a lower bound, ``v <= al`` an upper bound, between them exact.

How far it reaches: with 1 to 3 empty squares a clone fills a square, so a line of
clones ends within the empty squares' count of plies (and passes between them); only
jumps (and passes) keep the count. ``plies`` bounds how long a jump war may be
followed; with few empty squares and alpha-beta, a war that one side can end at once
by a clone usually needs only a few plies to settle a test.

:func:`static_bounds` scores without search an ending where one side cannot move (no
empty square within its reach) and the other can fill every empty square by clones
(each empty square joined to its pieces through empty squares): the filler clones,
the other passes, until the board is full. That line can be forced, so it gives the
filler a lower bound (under a counter only where the line ends before the counter's
limit; never under wipe-out rules when a side is gone). It is the exact score when
the line's value is at least 0 and the passing side is *sealed* (every square within
its reach is its own or blocked: it can never move and never lose a piece, so no
line ends better for the filler, and no line ends sooner with that value). It is
returned as bounds ``(lo, hi)`` on the mover's composite score, ``hi`` INF_SCORE and
``lo`` -INF_SCORE where nothing is known.

Move-ordering helpers: :func:`odd_regions` (the empty squares in 8-connected empty
regions of odd size: region parity) and :func:`captures` (what a move to a square takes).
"""

import numpy as np
from numba import njit

from solver.common import scores

from .bits import lowest_square, popcount
from .kernels import game_status, material, next_counter, play

M = np.int64(scores.M)
INF_SCORE = np.int64(scores.INF_SCORE)
U0 = np.uint64(0)
U1 = np.uint64(1)

# cnt slots: nodes used (incremented), node limit (0: none), nodes where the answer was unknown
L_NODES, L_LIMIT, L_UNKNOWN = 0, 1, 2
NLCOUNT = 3

_widen = njit(cache=True)(scores.widen)
_parent_score = njit(cache=True)(scores.parent_score)


@njit(cache=True)
def _score_of(value, depth):
    if value > 0:
        return value * M - depth
    if value < 0:
        return value * M + depth
    return np.int64(0)


@njit(cache=True)
def captures(mine, theirs, to, adj):
    """How many of the other side's pieces a clone or jump to ``to`` takes."""
    return np.int64(popcount(adj[to] & theirs))


@njit(cache=True)
def odd_regions(empty, adj):
    """The squares of ``empty`` that lie in an 8-connected region of empty squares of odd size."""
    out = U0
    rest = empty
    while rest:
        region = U1 << lowest_square(rest)
        grew = region
        while grew:
            more = U0
            g = grew
            while g:
                more |= adj[lowest_square(g)]
                g &= g - U1
            grew = more & rest & ~region
            region |= grew
        rest &= ~region
        if popcount(region) & U1:
            out |= region
    return out


# -- a side that cannot move, and a filler ----------------------------------------------------

@njit(cache=True)
def _fillable(s, empty, adj):
    """Can the pieces ``s`` fill every square of ``empty`` by clones (each empty square joined
    to them through empty squares)?"""
    filled = s
    rest = empty
    grew = True
    while rest and grew:
        grew = False
        e = rest
        while e:
            sq = lowest_square(e)
            e &= e - U1
            if adj[sq] & filled:
                filled |= U1 << sq
                rest &= ~(U1 << sq)
                grew = True
    return rest == U0


@njit(cache=True)
def _reaches(pieces, squares, reach):
    e = squares
    while e:
        if reach[lowest_square(e)] & pieces:
            return True
        e &= e - U1
    return False


@njit(cache=True)
def static_bounds(mine, theirs, counter, playable, adj, reach, rules):
    """(lo, hi): bounds on the mover's composite score when one side cannot move and the other
    fills every empty square by clones (module docstring); (-INF_SCORE, INF_SCORE) otherwise.
    The position must not be over (:func:`kernels.game_status`)."""
    none_lo, none_hi = -INF_SCORE, INF_SCORE
    empty = playable & ~(mine | theirs)
    r = np.int64(popcount(empty))
    if r == 0 or mine == U0 or theirs == U0:
        return none_lo, none_hi
    mover_moves = _reaches(mine, empty, reach)
    other_moves = _reaches(theirs, empty, reach)
    if mover_moves == other_moves:
        return none_lo, none_hi
    if mover_moves:
        s, q, d = mine, theirs, 2 * r - 1
    else:
        s, q, d = theirs, mine, 2 * r
    if not _fillable(s, empty, adj):
        return none_lo, none_hi
    # the counter along the line: fill, pass, fill, ... (passes first when the mover passes)
    kind = rules[1]
    if kind == 1:  # uai: a clone resets the clock, a pass adds one
        if rules[2] <= 1 or (not mover_moves and counter + 1 >= rules[2]):
            return none_lo, none_hi
    elif kind == 3:  # jump3: every ply counts
        if counter + d - 1 >= rules[2]:
            return none_lo, none_hi
    v = np.int64(popcount(s)) + r - np.int64(popcount(q))
    lo = _score_of(v, d)  # the filler's, from its side
    hi = INF_SCORE
    if v >= 0:
        sealed = True
        qq = q
        while qq:
            if reach[lowest_square(qq)] & playable & ~q:
                sealed = False
                break
            qq &= qq - U1
        if sealed:
            hi = lo
    if mover_moves:
        return lo, hi
    return (-hi if hi < INF_SCORE else none_lo), -lo


# -- the last plies, searched --------------------------------------------------------------------

@njit(cache=True)
def last_test(mine, theirs, counter, al, be, plies, playable, adj, jmp, reach, rules, cnt):
    """(score, known): the mover's fail-soft score in the window (al, be), searched through at
    most ``plies`` more plies and ``cnt[L_LIMIT]`` nodes in all (0: no node limit); known False
    when that was not enough (module docstring). ``cnt[L_NODES]`` counts the nodes (this one
    included), ``cnt[L_UNKNOWN]`` the unknown answers."""
    cnt[L_NODES] += 1
    over, score = game_status(mine, theirs, counter, playable, reach, rules)
    if over:
        return score * M, True
    if plies <= 0 or (cnt[L_LIMIT] > 0 and cnt[L_NODES] > cnt[L_LIMIT]):
        cnt[L_UNKNOWN] += 1
        return np.int64(0), False
    empty = playable & ~(mine | theirs)
    wipeout = rules[0] != 0
    best = -INF_SCORE
    all_known = True
    moved = False
    # the empty squares (at most a few), by what a move there takes: the most first
    e0 = U0
    e1 = U0
    e2 = U0
    k0 = np.int64(-1)
    k1 = np.int64(-1)
    k2 = np.int64(-1)
    rest = U0
    e = empty
    while e:
        b = e & (~e + U1)
        e ^= b
        k = np.int64(popcount(adj[lowest_square(b)] & theirs))
        if k > k0:
            rest |= e2
            e2, k2 = e1, k1
            e1, k1 = e0, k0
            e0, k0 = b, k
        elif k > k1:
            rest |= e2
            e2, k2 = e1, k1
            e1, k1 = b, k
        elif k > k2:
            rest |= e2
            e2, k2 = b, k
        else:
            rest |= b
    # clones, then jumps; the squares past the third in board order
    for phase in range(2):
        for slot in range(4):
            if slot == 0:
                sqs = e0
            elif slot == 1:
                sqs = e1
            elif slot == 2:
                sqs = e2
            else:
                sqs = rest
            while sqs:
                to = np.int64(lowest_square(sqs))
                sqs &= sqs - U1
                if phase == 0:
                    if adj[to] & mine:
                        moved = True
                        nm, nt = play(mine, theirs, to, adj)
                        if empty == U1 << to or (wipeout and nm == U0):
                            cnt[L_NODES] += 1  # the child is over (a full board, or a side gone): counted here
                            w, known = material(nm, nt) * M, True
                        else:
                            w, known = last_test(nm, nt, next_counter(counter, to, rules), -_widen(be),
                                                 -_widen(al), plies - 1, playable, adj, jmp, reach, rules, cnt)
                        s = _parent_score(-w)
                        if known:
                            if s >= be:
                                return s, True
                            if s > best:
                                best = s
                        else:
                            all_known = False
                            if cnt[L_LIMIT] > 0 and cnt[L_NODES] >= cnt[L_LIMIT]:
                                cnt[L_UNKNOWN] += 1  # out of nodes: no sibling is tried
                                return np.int64(0), False
                else:
                    src = jmp[to] & mine
                    while src:
                        frm = np.int64(lowest_square(src))
                        src &= src - U1
                        moved = True
                        code = (frm + 1) * 64 + to
                        nm, nt = play(mine, theirs, code, adj)
                        if wipeout and nm == U0:
                            cnt[L_NODES] += 1  # the child is over: the other side is gone
                            w, known = material(nm, nt) * M, True
                        else:
                            w, known = last_test(nm, nt, next_counter(counter, code, rules), -_widen(be),
                                                 -_widen(al), plies - 1, playable, adj, jmp, reach, rules, cnt)
                        s = _parent_score(-w)
                        if known:
                            if s >= be:
                                return s, True
                            if s > best:
                                best = s
                        else:
                            all_known = False
                            if cnt[L_LIMIT] > 0 and cnt[L_NODES] >= cnt[L_LIMIT]:
                                cnt[L_UNKNOWN] += 1  # out of nodes: no sibling is tried
                                return np.int64(0), False
    if not moved:  # the mover passes
        w, known = last_test(theirs, mine, next_counter(counter, np.int64(-1), rules), -_widen(be), -_widen(al),
                             plies - 1, playable, adj, jmp, reach, rules, cnt)
        if known:
            return _parent_score(-w), True
        all_known = False
    if all_known:
        return best, True
    cnt[L_UNKNOWN] += 1
    return np.int64(0), False
