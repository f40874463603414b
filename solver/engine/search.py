"""The search engine, compiled: exact alpha-beta for positions too large to enumerate.

How it stays exact
------------------
*Scores.* A position's score for the mover is ``u * M - d`` when the mover wins
by u > 0 in d plies, ``u * M + d`` when it loses by -u, and 0 for a draw
(M = 2**20). Maximising this score prefers the larger value, then the shorter
win or the longer loss: the preferences of SPEC section 4. A child's score s
becomes ``h(-s)`` for the parent, with h(w) = w - 1 for w > 0 and w + 1 for
w < 0 (one more ply), so search windows translate exactly (:func:`_widen`).

*Loops.* Under ``classic`` play may go on forever and is worth 0. The search
scores a position that repeats one already on the current line (from the root)
as 0. That truncated game has the same value as the real one: the side that
can force a result never needs to repeat a position (its attractor strategy
makes progress on every move), and the side that holds the other one off only
gains from a repetition that scores 0 when it is defending a bound <= 0.
Positions are compared by canonical key (symmetry and colour inversion), which
preserves this argument since equal keys have equal values.

*The transposition table* holds bounds on the true score, valid wherever the
position occurs. A result that used a repetition with a position above the
current node (on the path from the root) depends on that path, so it is not
stored: each call returns, with its score, the lowest ply of a repetition it
used, and a node stores its result only if that ply is its own or below
(a repetition of the node itself is part of its own game). Under rule sets with
a counter the game is finite and acyclic (every jump or pass moves the
counter on, every clone fills a square), so repetitions cannot happen.

*Finite proofs first.* On large boards a question "is the value at least k?"
is first put to the game cut after H plies, once with the cut scored as a loss
for the mover (a yes there is a yes in the real game: the mover forces a
finished game >= k within H plies) and once as a win (a no there is a no: the
other side forces a finished game < k). Neither answer can be wrong, only
missing; H starts at twice the empty squares, grows by 2 a few times, then
doubles up to ``HORIZON_LIMIT``, and what is still open goes to the search with
the repetition rule above. Results of a cut game are stored in the table with
the plies left (``tt_r``) and reused only where they stay valid. A line is cut
at once when it cannot end before the horizon (:func:`min_plies_to_end`).

*Limits.* A line deeper than ``MAX_PLY`` plies (long jump wars on big boards)
stops the search with a message instead of an answer; so do the node limit,
the deadline and Ctrl-C.

*Draws* have score 0 whatever their length; :class:`SearchOracle` finds a
draw's length (or that it is infinite) separately, by a depth-first walk of the
drawing moves.

Kernels take and return plain arrays and integers.
"""

import numpy as np
from numba import njit

from .bits import popcount
from .kernels import canonical, game_status, gen_moves, key_hash, map_move, min_plies_to_end, next_counter, play

M = np.int64(1 << 20)
HALF = M // 2
INF_SCORE = np.int64(1 << 40)
SYMMETRY_MAX_SQUARES = 25
HORIZON_LIMIT = 64
HORIZON_STEP = 2
HORIZON_SPAN = 6
CUT_SCORE = 65 * (1 << 20)  # a cut line scored beyond any real result (for finite proofs)
NO_REPETITION = np.int64(1 << 30)
MAX_PLY = 1200
MAX_MOVES = 64 * 25

# stats: nodes, deepest ply, node limit, stop reason (1 abort/time, 2 node limit, 3 too deep)
STOP_ABORT, STOP_NODES, STOP_DEPTH = 1, 2, 3


@njit(cache=True)
def _widen(x):
    """The bound on a child's negated score that corresponds to the parent's bound x."""
    if x > 0:
        return x + 1
    if x < 0:
        return x - 1
    return x


@njit(cache=True)
def _parent_score(w):
    """The parent's score when a child's negated score is w (one ply further from the end)."""
    if w > 0:
        return w - 1
    if w < 0:
        return w + 1
    return w


@njit(cache=True)
def _order_moves(mine, theirs, n, moves, order, ply, tt_move, adj, history):
    """Keys for move ordering: the table's move, then clones and jumps by what they take and keep."""
    for i in range(n):
        code = moves[ply, i]
        if code == tt_move:
            key = np.int64(1 << 40)
        elif code < 0:
            key = np.int64(0)
        else:
            to = code & 63
            caps = np.int64(popcount(adj[to] & theirs))
            friends = np.int64(popcount(adj[to] & mine))
            frm = (code >> 6) - 1
            if frm < 0:
                key = 3000 + 400 * caps + 10 * friends
            else:
                exposed = np.int64(popcount(adj[frm] & mine))
                key = 400 * caps + 10 * friends - 120 * exposed
            key = key * 65536 + min(history[code & 4095], np.int64(65535))
        order[ply, i] = key


@njit(cache=True)
def _pick(moves, order, ply, i, n):
    """Bring the best remaining move to place i and return it."""
    j = i
    for k in range(i + 1, n):
        if order[ply, k] > order[ply, j]:
            j = k
    code = moves[ply, j]
    moves[ply, j] = moves[ply, i]
    moves[ply, i] = code
    kj = order[ply, j]
    order[ply, j] = order[ply, i]
    order[ply, i] = kj
    return code


@njit(cache=True, nogil=True)
def search_root(mine, theirs, counter, alpha, beta, horizon, horizon_score, playable, adj, jmp, reach, canon, symperm,
                syminv, rules, tt_k1, tt_k2, tt_k3, tt_lo, tt_hi, tt_mv, tt_r, frames, fkeys, moves, order, history,
                stats, abort):
    """Fail-soft alpha-beta score of the position in the window (alpha, beta).

    With ``horizon`` > 0 the game is cut after that many plies and repetitions are not
    looked for; the cut scores ``horizon_score`` for the root's mover (so minus that for
    the other side); table entries then carry how the cut scores and the plies left.
    When the cut is a loss for a node's mover, more plies can only raise its score: a
    lower bound found with r plies left holds with more, an upper bound with fewer (and
    the other way round when the cut is a win), so entries are reused across horizons.

    The recursion runs on an explicit stack: ``frames`` (MAX_PLY x 16 int64) and
    ``fkeys`` (MAX_PLY x 2 uint64, the canonical keys on the path), with ``moves``
    and ``order`` (MAX_PLY x MAX_MOVES) for each ply's moves.
    """
    # frame columns
    COUNTER, ALPHA, BETA, A, BEST, BESTMV, LOWL, LOWU, I, N, SLOT, SYM, EMPTIES, KEY3, LEFT = range(15)
    stats[3] = 0
    ply = 0
    frames[0, COUNTER] = counter
    frames[0, ALPHA] = alpha
    frames[0, BETA] = beta
    fm = np.empty(MAX_PLY, np.uint64)
    ft = np.empty(MAX_PLY, np.uint64)
    fm[0] = mine
    ft[0] = theirs
    entering = True
    ret_score = np.int64(0)
    ret_dl = NO_REPETITION  # lowest ply of a repetition the score depends on, as a lower bound
    ret_du = NO_REPETITION  # ... and as an upper bound
    while True:
        if entering:
            # -- arrive at the node of this ply ---------------------------------------------
            entering = False
            m = fm[ply]
            t = ft[ply]
            c = frames[ply, COUNTER]
            al = frames[ply, ALPHA]
            be = frames[ply, BETA]
            stats[0] += 1
            if (stats[0] & 16383) == 0:
                if abort[0] != 0:
                    stats[3] = STOP_ABORT
                elif stats[2] > 0 and stats[0] > stats[2]:
                    stats[3] = STOP_NODES
            if stats[3] != 0:
                return np.int64(0)
            if ply > stats[1]:
                stats[1] = ply
            over, score = game_status(m, t, c, playable, reach, rules)
            if over:
                ret_score, ret_dl, ret_du = score * M, NO_REPETITION, NO_REPETITION
            elif horizon > 0 and (ply >= horizon or horizon - ply < min_plies_to_end(m, t, c, playable, reach, rules)):
                # every line from here reaches the cut before the game can end
                hcut = horizon_score if ply % 2 == 0 else -horizon_score
                ret_score, ret_dl, ret_du = hcut, NO_REPETITION, NO_REPETITION
            elif ply >= MAX_PLY - 1:
                stats[3] = STOP_DEPTH
                return np.int64(0)
            else:
                cm, ct, sym = canonical(m, t, canon)
                empties = np.int64(popcount(playable & ~(m | t)))
                repeated = -1
                left = horizon - ply
                mode = 0
                if horizon == 0:
                    key3 = c
                else:  # how the cut scores for this node's mover: 1 a win, 2 a loss, 0 (then plies left too)
                    hcut = horizon_score if ply % 2 == 0 else -horizon_score
                    mode = 0 if hcut == 0 else (1 if hcut > 0 else 2)
                    key3 = c + (np.int64(mode) << 32)
                    if mode == 0:
                        key3 += (left + 1) << 20
                if rules[1] == 0 and horizon == 0:  # loopy rules: a repetition on the current line scores 0
                    i = ply - 1
                    while i >= 0 and frames[i, EMPTIES] == empties:
                        if fkeys[i, 0] == cm and fkeys[i, 1] == ct:
                            repeated = i
                            break
                        i -= 1
                if repeated >= 0:
                    ret_score, ret_dl, ret_du = np.int64(0), np.int64(repeated), np.int64(repeated)
                else:
                    fkeys[ply, 0] = cm
                    fkeys[ply, 1] = ct
                    frames[ply, EMPTIES] = empties
                    frames[ply, SYM] = sym
                    mask = tt_k1.shape[0] - 1
                    slot = np.int64(key_hash(cm, ct, key3) & np.uint64(mask))
                    frames[ply, SLOT] = slot
                    frames[ply, KEY3] = key3
                    tt_move = np.int64(-2)
                    frames[ply, LEFT] = left
                    hit = tt_k3[slot] == key3 and tt_k1[slot] == cm and tt_k2[slot] == ct
                    cut = False
                    if hit:
                        lo = tt_lo[slot]
                        hi = tt_hi[slot]
                        if mode == 2:  # more plies can only help this mover
                            if left < tt_r[slot]:
                                lo = -INF_SCORE
                            if left > tt_r[slot]:
                                hi = INF_SCORE
                        elif mode == 1:  # more plies can only hurt this mover
                            if left > tt_r[slot]:
                                lo = -INF_SCORE
                            if left < tt_r[slot]:
                                hi = INF_SCORE
                        if lo >= be:
                            ret_score, cut = lo, True
                        elif hi <= al:
                            ret_score, cut = hi, True
                        elif lo == hi:
                            ret_score, cut = lo, True
                        elif tt_mv[slot] != -2:
                            tt_move = map_move(tt_mv[slot], syminv[sym])
                    if cut:
                        ret_dl, ret_du = NO_REPETITION, NO_REPETITION
                    else:
                        n = gen_moves(m, t, playable, adj, jmp, moves[ply])
                        if n == 0:
                            moves[ply, 0] = -1
                            n = 1
                        _order_moves(m, t, n, moves, order, ply, tt_move, adj, history)
                        frames[ply, N] = n
                        frames[ply, I] = 0
                        frames[ply, BEST] = -INF_SCORE
                        frames[ply, BESTMV] = -2
                        frames[ply, LOWL] = NO_REPETITION
                        frames[ply, LOWU] = NO_REPETITION
                        frames[ply, A] = al
                        # descend into the first move
                        code = _pick(moves, order, ply, 0, n)
                        nm, nt = play(m, t, code, adj)
                        fm[ply + 1] = nm
                        ft[ply + 1] = nt
                        frames[ply + 1, COUNTER] = next_counter(c, code, rules)
                        frames[ply + 1, ALPHA] = -_widen(be)
                        frames[ply + 1, BETA] = -_widen(al)
                        ply += 1
                        entering = True
                        continue
        else:
            # -- a child returned (ret_score, ret_dl, ret_du) to the node of this ply --------
            # This node's lower bound rests on its best child's upper bound (ret_du of that
            # child); its upper bound rests on every child's lower bound (ret_dl of each).
            i = frames[ply, I]
            n = frames[ply, N]
            code = moves[ply, i]
            v = _parent_score(-ret_score)
            if ret_dl < frames[ply, LOWU]:
                frames[ply, LOWU] = ret_dl
            cutoff = False
            if v == frames[ply, BEST] and ret_du > frames[ply, LOWL]:
                frames[ply, LOWL] = ret_du
            if v > frames[ply, BEST]:
                frames[ply, BEST] = v
                frames[ply, BESTMV] = code
                frames[ply, LOWL] = ret_du
                if v > frames[ply, A]:
                    frames[ply, A] = v
                    if v >= frames[ply, BETA]:
                        cutoff = True
                        if code >= 0:
                            history[code & 4095] += 16
            i += 1
            if not cutoff and i < n:
                frames[ply, I] = i
                code = _pick(moves, order, ply, i, n)
                m = fm[ply]
                t = ft[ply]
                nm, nt = play(m, t, code, adj)
                fm[ply + 1] = nm
                ft[ply + 1] = nt
                frames[ply + 1, COUNTER] = next_counter(frames[ply, COUNTER], code, rules)
                frames[ply + 1, ALPHA] = -_widen(frames[ply, BETA])
                frames[ply + 1, BETA] = -_widen(frames[ply, A])
                ply += 1
                entering = True
                continue
            # -- the node is finished: store what holds everywhere, then return ----------------
            best = frames[ply, BEST]
            dl = frames[ply, LOWL]
            du = frames[ply, LOWU]
            al = frames[ply, ALPHA]
            be = frames[ply, BETA]
            # A lower bound when the node failed high or is exact; an upper bound when every
            # move was searched. Each half is stored only if it depends on nothing above.
            lo = best if (best > al and dl >= ply) else -INF_SCORE
            hi = best if (best < be and du >= ply) else INF_SCORE
            if lo != -INF_SCORE or hi != INF_SCORE:
                slot = frames[ply, SLOT]
                # The slot may have been taken by another position while the moves were searched.
                hit = tt_k3[slot] == frames[ply, KEY3] and tt_k1[slot] == fkeys[ply, 0] \
                    and tt_k2[slot] == fkeys[ply, 1] and tt_r[slot] == frames[ply, LEFT]
                if hit:
                    lo = max(lo, tt_lo[slot])
                    hi = min(hi, tt_hi[slot])
                tt_k1[slot] = fkeys[ply, 0]
                tt_k2[slot] = fkeys[ply, 1]
                tt_k3[slot] = frames[ply, KEY3]
                tt_lo[slot] = lo
                tt_hi[slot] = hi
                tt_r[slot] = frames[ply, LEFT]
                if best > al or not hit:
                    tt_mv[slot] = map_move(frames[ply, BESTMV], symperm[frames[ply, SYM]])
            ret_score = best
            ret_dl = dl if dl < ply else NO_REPETITION
            ret_du = du if du < ply else NO_REPETITION
        # -- return from this ply -----------------------------------------------------------------
        if ply == 0:
            return ret_score
        ply -= 1


# -- the public side ------------------------------------------------------------------------------

def score_class(score: int) -> int:
    """The value u of a composite score u * M -+ depth."""
    return (int(score) + int(HALF)) // int(M)


class SearchOracle:
    """Exact values by alpha-beta search (the analysis's oracle interface).

    ``value(p)`` finds the value with null-window tests at the boundaries between
    values (each answers "is the value at least k?"); ``lookup(p)`` adds the depth:
    for a decided position by one more search inside the value's band of scores,
    for a draw by walking the drawing moves (a cycle among them means infinite play).
    """

    name = "search"

    def __init__(self, board, rules, max_memory=None, deadline=None, node_limit=0, symmetry=None, tt_bits=None,
                 draw_walk_limit=200_000, horizon_limit=None):
        from ..limits import default_memory_budget
        from .tables import build_tables

        if symmetry is None:  # on large boards symmetric transpositions are too rare to pay for the key
            symmetry = board.size <= SYMMETRY_MAX_SQUARES
        self.tables = build_tables(board, rules, symmetry)
        budget = max_memory if max_memory is not None else default_memory_budget()
        if tt_bits is None:
            tt_bits = min(24, max(16, board.size // 2 + 4))
        entry = 8 * 7
        while tt_bits > 10 and (entry << tt_bits) + (2 * MAX_PLY * MAX_MOVES * 8) > budget:
            tt_bits -= 1
        size = 1 << tt_bits
        self.tt = (np.zeros(size, np.uint64), np.zeros(size, np.uint64), np.full(size, -1, np.int64),
                   np.zeros(size, np.int64), np.zeros(size, np.int64), np.full(size, -2, np.int64),
                   np.zeros(size, np.int64))
        self.work = (np.zeros((MAX_PLY, 16), np.int64), np.zeros((MAX_PLY, 2), np.uint64),
                     np.empty((MAX_PLY, MAX_MOVES), np.int64), np.empty((MAX_PLY, MAX_MOVES), np.int64))
        self.history = np.zeros(4096, np.int64)
        self.stats = np.zeros(4, np.int64)
        self.stats[2] = node_limit
        self.deadline = deadline
        self.draw_walk_limit = draw_walk_limit
        # Finite proofs with a horizon first on large boards, where long jump wars make the search
        # with the repetition rule (or, under a counter, the whole finite game) explode; up to this
        # horizon, then that search. On small boards cycles close quickly: that search at once.
        if horizon_limit is None:
            horizon_limit = HORIZON_LIMIT if board.size > SYMMETRY_MAX_SQUARES else 0
        self.horizon_limit = horizon_limit
        self._values: dict = {}
        self._results: dict = {}

    @property
    def states(self) -> int:
        """Nodes searched so far."""
        return int(self.stats[0])

    def prepare(self, roots, both_sides=False) -> None:
        pass  # positions are searched when asked for

    def _key(self, mine, theirs, counter):
        from .kernels import canonical

        T = self.tables
        cm, ct, _ = canonical(np.uint64(mine), np.uint64(theirs), T.canon)
        return int(cm), int(ct), int(counter)

    def _score(self, mine, theirs, counter, alpha, beta, horizon=0, horizon_score=0) -> int:
        from ..limits import StateLimitError
        from .runtime import Run

        T = self.tables
        run = Run()
        r = run.call(search_root, np.uint64(mine), np.uint64(theirs), np.int64(counter), np.int64(alpha),
                     np.int64(beta), np.int64(horizon), np.int64(horizon_score), T.playable, T.adj, T.jmp, T.reach, T.canon, T.symperm, T.syminv,
                     T.rules, *self.tt, *self.work, self.history, self.stats, run.abort,
                     deadline=self.deadline)
        reason = int(self.stats[3])
        if reason == STOP_ABORT:
            raise run.stopped(f"the search stopped after {int(self.stats[0]):,} nodes")
        if reason == STOP_NODES:
            raise StateLimitError(f"the search went past {int(self.stats[2]):,} nodes", int(self.stats[0]))
        if reason == STOP_DEPTH:
            raise StateLimitError(f"a line of play went deeper than {MAX_PLY} plies", int(self.stats[0]))
        return int(r)

    def _bits(self, p):
        from .tables import mover_bits

        m, t = mover_bits(p)
        return m, t, p.counter

    def test(self, mine, theirs, counter, k) -> tuple[bool, int]:
        """Is the mover's value at least k? (answer, a bound on the score that shows it).

        First by finite proofs: with the game cut after H plies, if the mover reaches k
        even when the cut counts as a loss for it, the value is at least k; if the mover
        stays below k even when the cut counts as a win, the other side forces a finished
        game below k. H doubles until one of them holds. Only a question whose answer
        rests on play that never ends (classic rules) is left to the search with the
        repetition rule.
        """
        t = k * int(M) - int(HALF)
        # Horizons from the fewest plies that can fill the board if only one side clones: a few
        # small steps (most answers come there), then doubling (each step costs a multiple of the
        # last, and an answer that rests on play that never ends is settled by no horizon).
        empty = (int(self.tables.playable) & ~(int(mine) | int(theirs))).bit_count()
        first = horizon = max(4, 2 * empty)
        while horizon <= self.horizon_limit:
            r = self._score(mine, theirs, counter, t - 1, t, horizon, -CUT_SCORE)
            if r >= t:
                return True, r
            r = self._score(mine, theirs, counter, t - 1, t, horizon, CUT_SCORE)
            if r < t:
                return False, r
            horizon = horizon + HORIZON_STEP if horizon < first + HORIZON_SPAN else 2 * horizon
        r = self._score(mine, theirs, counter, t - 1, t)
        return r >= t, r

    def value_of(self, mine, theirs, counter) -> tuple[int, int]:
        """(value for the mover, a score in that value's band) by threshold tests."""
        key = self._key(mine, theirs, counter)
        if key in self._values:
            return self._values[key]
        S = self.tables.board.playable.bit_count()
        lo, hi = -S, S
        k = max(lo + 1, min(hi, mine.bit_count() - theirs.bit_count()))
        band_score = None
        while lo < hi:
            k = max(lo + 1, min(k, hi))
            holds, r = self.test(mine, theirs, counter, k)
            if holds:
                lo = max(k, min(hi, score_class(r)))
                band_score = r
                k = lo + 1
            else:
                hi = min(k - 1, max(lo, score_class(r)))
                k = hi
        self._values[key] = (lo, band_score)
        return lo, band_score

    def value(self, p) -> int:
        """The value for the side to move."""
        r = p.result()
        if r is not None:
            return r if p.turn == "x" else -r
        return self.value_of(*self._bits(p))[0]

    def lookup(self, p):
        key = self._key(*self._bits(p))
        if key in self._results:
            return self._results[key]
        r = p.result()
        if r is not None:
            result = (r if p.turn == "x" else -r, 0)
        else:
            mine, theirs, counter = self._bits(p)
            u, _ = self.value_of(mine, theirs, counter)
            result = (u, self._decided_depth(mine, theirs, counter, u) if u else self._draw_depth(p))
        self._results[key] = result
        return result

    def _decided_depth(self, mine, theirs, counter, u) -> int:
        """Depth of a position of known value u != 0: the exact score inside u's band.

        Under loopy rules the game is cut at a horizon of H plies (0 there, no repetition
        rule). If H is at least the depth, that truncated game has the same score as the
        real one (the winner finishes in time; the loser gains nothing by reaching the
        horizon that it could not get by looping); otherwise the loser reaches the horizon
        and the score leaves u's band, and H is doubled. Counters make the game finite:
        there the search needs no horizon.
        """
        lo = u * int(M) - int(HALF)
        if not self.tables.rules_obj.is_loopy:
            return abs(self._score(mine, theirs, counter, lo - 1, lo + int(M)) - u * int(M))
        horizon = 16
        while True:
            s = self._score(mine, theirs, counter, lo - 1, lo + int(M), horizon)
            if score_class(s) == u and s != 0:
                return abs(s - u * int(M))
            if horizon >= MAX_PLY - 2:
                from ..limits import StateLimitError

                raise StateLimitError(f"the winning line is longer than {MAX_PLY} plies", int(self.stats[0]))
            horizon = min(2 * horizon, MAX_PLY - 2)

    def _draw_depth(self, p) -> float:
        """Depth of a drawn position: 1 + the longest drawing child, infinite through a cycle."""
        from ..limits import StateLimitError

        memo = self._draw_memo = getattr(self, "_draw_memo", {})
        on_path: set = set()
        walked = 0

        def drawing_children(q):
            out = []
            for m in q.legal_moves():
                c = q._apply(m)
                if self.value(c) == 0:
                    out.append(c)
            return out

        # Iterative depth-first walk: frames of (key, children, next index, longest so far).
        def key_of(q):
            return self._key(*self._bits(q))

        root_key = key_of(p)
        if root_key in memo:
            return memo[root_key]
        stack = [(root_key, drawing_children(p), 0, -1)]
        on_path.add(root_key)
        result = None
        while stack:
            key, children, i, longest = stack.pop()
            if result is not None:  # a child just finished
                longest = max(longest, result)
                result = None
                i += 1
            if longest == float("inf") or i >= len(children):
                value = float("inf") if longest == float("inf") else longest + 1
                memo[key] = value
                on_path.discard(key)
                result = value
                continue
            c = children[i]
            if c.is_over():
                stack.append((key, children, i + 1, max(longest, 0)))
                continue
            ck = key_of(c)
            if ck in on_path:
                stack.append((key, children, i + 1, float("inf")))
                continue
            if ck in memo:
                stack.append((key, children, i + 1, max(longest, memo[ck])))
                continue
            walked += 1
            if walked > self.draw_walk_limit:
                raise StateLimitError(f"the length of this draw needs more than {self.draw_walk_limit:,} positions "
                                      "walked", walked)
            stack.append((key, children, i, longest))
            on_path.add(ck)
            stack.append((ck, drawing_children(c), 0, -1))
        return memo[root_key]
