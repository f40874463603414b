"""The search engine's driver: values, intervals and depths as sequences of null-window tests.

The compiled kernel (:mod:`solver.engine.search`, whose docstring gives the
correctness argument) answers one question, "is the mover's score at least s?",
with a proof. :class:`SearchOracle` (the oracle contract,
:class:`solver.oracle.Oracle`) turns answers into values: the outcome first, then
the margin by MTD(f), each test first by finite proofs under growing horizons,
then by the full search; scores are composite (:mod:`solver.scores`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from . import engine
from .bitboards import build_tables, code_move, large_zeros, move_code, mover_bits
from .board import Board
from .limits import LimitError, MemoryLimitError, StateLimitError, TimeLimitError, default_memory_budget
from .oracle import Bounds, ExactLine, Oracle, Progress, ProgressCallback, mover_value
from .rules import Move, Position, Rules, X
from .scores import CUT_SCORE, HALF, INF_SCORE, M, parent_score, score_class, value_threshold, widen

SYMMETRY_MAX_SQUARES = 25  # on larger boards symmetric transpositions are too rare to pay for the key
HORIZON_LIMIT = 255  # the largest horizon before the search without one (plies left fit a byte)
ETC_LEFT = 10  # enhanced transposition cut-offs at nodes with at least this many plies left (measured)
NEAR_LEFT = 8  # nodes with at most this many plies to the horizon use the small table (ETC_LEFT > NEAR_LEFT + 1)
NEAR_TABLE_BITS = 17  # 4 MiB
HORIZON_STEP = 2
HORIZON_SPAN = 6
HORIZON_GROWTH = 5  # quarters: each horizon past the first few is 5/4 of the last


class SearchStopped(Exception):
    """A test stopped before it had an answer (``reason``: 'time', 'interrupt', 'nodes', 'stack')."""

    def __init__(self, reason: str, nodes: int):
        super().__init__(reason)
        self.reason = reason
        self.nodes = nodes


@dataclass
class SearchBounds:
    """What a search proved about a position, from the mover's side (kernel move codes:
    :meth:`SearchOracle.bounds_of`; :meth:`SearchOracle.bounds` gives the oracle contract's
    :class:`solver.oracle.Bounds` with a :class:`solver.rules.Move`).

    ``lower <= value <= upper``; ``best_move`` (a kernel move code, or None when the
    game is over) is a move whose value is proved to be at least ``best_lower``.
    ``stopped`` says why the search ended before ``lower == upper`` (None if it did not).
    """

    lower: int
    upper: int
    best_move: int | None
    best_lower: int
    nodes: int
    seconds: float
    stopped: str | None = None
    outcome_seconds: float | None = None  # when the outcome was proved (since the start)

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


@dataclass
class SearchStatus:
    """What a search has proved so far, for the progress callback: the interval being narrowed
    (the mover's side) and the best move found (a code)."""

    lower: int
    upper: int
    best_move: int | None = None


class SearchOracle(Oracle):
    """Exact values and proved bounds by null-window tests (the oracle contract,
    :class:`solver.oracle.Oracle`, with ``proves_bounds``).

    :meth:`bounds_of` narrows an interval on the value until it is exact or a limit
    stops it, and always returns what it proved (:meth:`bounds` does it for a position).
    :meth:`value_of` and :meth:`lookup` give exact values (and depths) or raise a
    :class:`LimitError` that carries the bounds proved so far (``exc.bounds``).
    ``progress`` receives a :class:`solver.oracle.Progress` every 50 ms while a search runs.
    """

    name = "search"
    proves_bounds = True

    def __init__(self, board: Board, rules: Rules, max_memory: int | None = None, deadline: float | None = None,
                 node_limit: int = 0, symmetry: bool | None = None, tt_bits: int | None = None,
                 draw_walk_limit: int = 200_000, horizon_limit: int | None = None,
                 progress: ProgressCallback | None = None):
        super().__init__(deadline, progress)
        self.unit = "nodes"
        if symmetry is None:  # on large boards symmetric transpositions are too rare to pay for the key
            symmetry = board.size <= SYMMETRY_MAX_SQUARES
        self.tables = build_tables(board, rules, symmetry)
        self.rules = rules
        budget = max_memory if max_memory is not None else default_memory_budget()
        if tt_bits is None:
            # 32-byte entries: half the budget, at most 512 MiB unless a budget was given
            cap = budget // 2 if max_memory is not None else min(budget // 2, 512 << 20)
            tt_bits = 10
            while (engine.search.ENTRY_WORDS * 8) << (tt_bits + 1) <= cap and tt_bits < 34:
                tt_bits += 1
            tt_bits = min(tt_bits, max(12, 2 * board.size + 2))  # no point beyond the positions there are
        self.tt = large_zeros((1 << tt_bits, engine.search.ENTRY_WORDS), np.uint64)
        # Nodes a few plies from the horizon (most of them, each cheap to search again) use a small
        # table that stays in the processor's cache; the large one keeps the costly results. Measured
        # on the 7 x 7 endgames: the same nodes within 3%, and twice the nodes per second.
        near_bits = min(tt_bits - 2, NEAR_TABLE_BITS)
        self.near_left = NEAR_LEFT if near_bits >= 10 else 0
        self.ttn = np.zeros((1 << max(near_bits, 2), engine.search.ENTRY_WORDS), np.uint64)
        c_bits = max(10, min(20, tt_bits - 4))
        self.ck = large_zeros((1 << c_bits, 2), np.uint64)
        self.ci = large_zeros((1 << c_bits, engine.search.NC), np.int64)
        bytes_per_ply = engine.search.NF * 8 + 4 * 8 + engine.search.MAX_MOVES * 16
        self.max_stack = max(1024, (budget - self.tt.nbytes) // 2 // bytes_per_ply)
        self.history = np.zeros(8192, np.int64)
        self.stats = np.zeros(engine.search.NSTATS, np.int64)
        self.node_limit = node_limit or 0
        self.stats[engine.search.S_NODE_LIMIT] = self.node_limit
        self.draw_walk_limit = draw_walk_limit
        self.loopy = rules.is_loopy or rules.limit_is_draw  # classic, and uai (see the module docstring)
        self.clock_kind = 1 if rules.limit_is_draw else 0
        # Finite proofs with a horizon first on large boards, where long jump wars make the full
        # search explode; on small boards cycles close quickly: the full search at once.
        if horizon_limit is None:
            horizon_limit = HORIZON_LIMIT if board.size > SYMMETRY_MAX_SQUARES else 0
        self.horizon_limit = min(horizon_limit, 255)
        self.squares = board.playable.bit_count()
        self.etc_left = ETC_LEFT
        self._values: dict = {}
        self._results: dict = {}
        self._ladder: dict = {}
        self._scores: dict = {}  # (mine, theirs, counter) -> bounds on the composite score proved by tests
        self._bounds: dict = {}  # key -> (lower, upper, a move, its proved lower bound)
        self._proved: dict = {}  # key -> (a move, its proved lower bound) of exact positions
        self._status: SearchStatus | None = None
        self._root: Position | None = None  # the position :meth:`bounds` searches (for progress reports)
        self._start, self._start_nodes = time.monotonic(), 0
        self._draw_memo: dict = {}

    # -- bookkeeping ------------------------------------------------------------------------------

    @property
    def states(self) -> int:
        """Nodes searched so far."""
        return int(self.stats[engine.search.S_NODES])

    def counters(self) -> dict:
        """Search statistics: nodes, table probes and hits, cut-offs and how many came first."""
        st = self.stats
        return {"nodes": int(st[engine.search.S_NODES]), "probes": int(st[engine.search.S_PROBES]), "hits": int(st[engine.search.S_HITS]),
                "tt_cuts": int(st[engine.search.S_TTCUTS]), "cutoffs": int(st[engine.search.S_CUTS]), "first_move_cutoffs": int(st[engine.search.S_FIRSTCUTS]),
                "stores": int(st[engine.search.S_STORES]), "pending": int(st[engine.search.S_PENDING]), "validated": int(st[engine.search.S_VALIDATED]),
                "discarded": int(st[engine.search.S_DISCARDED]), "repetitions": int(st[engine.search.S_REPS]), "deepest": int(st[engine.search.S_MAXPLY]),
                "conditional_hits": int(st[engine.search.S_CHITS]), "terminal": int(st[engine.search.S_TERMINAL]), "horizon_cuts": int(st[engine.search.S_HCUTS]),
                "expanded": int(st[engine.search.S_VISITS]), "generated": int(st[engine.search.S_GENERATED]), "searched": int(st[engine.search.S_SEARCHED]),
                "tt_entries": int(self.tt.shape[0]), "tt_bytes": int(self.tt.nbytes)}

    def prepare(self, roots: list[Position], both_sides: bool = False) -> None:
        pass  # positions are searched when asked for

    def _key(self, mine, theirs, counter):
        T = self.tables
        cm, ct, _ = engine.kernels.canonical(np.uint64(mine), np.uint64(theirs), T.canon)
        return int(cm), int(ct), int(counter)

    @staticmethod
    def _bits(p: Position) -> tuple[int, int, int]:
        m, t = mover_bits(p)
        return m, t, p.counter

    def _tick(self, _progress: np.ndarray) -> None:
        if self.progress is not None and self._status is not None:
            st = self._status
            nodes = int(self.stats[engine.search.S_NODES]) - self._start_nodes
            root = self._root
            lo, hi = (st.lower, st.upper) if root is None or root.turn == X else (-st.upper, -st.lower)
            move = None if st.best_move is None else code_move(st.best_move)
            self.progress(Progress("searching", nodes, None, "nodes", time.monotonic() - self._start, root, lo, hi,
                                   move))

    # -- one test ---------------------------------------------------------------------------------

    def _run(self, mine, theirs, counter, s, horizon=0, horizon_score=0, node_limit=0) -> int:
        """One kernel call; raises :class:`SearchStopped` when it stops without an answer."""
        T = self.tables
        limit = self.node_limit
        if node_limit:
            limit = min(limit, node_limit) if limit else node_limit
        self.stats[engine.search.S_NODE_LIMIT] = limit
        run = engine.Run()
        try:
            r = run.call(engine.search.search_test, np.uint64(mine), np.uint64(theirs), np.int64(counter), np.int64(s),
                         np.int64(horizon), np.int64(horizon_score), self.loopy, np.int64(self.clock_kind),
                         T.playable, T.adj, T.jmp, T.reach, T.canon, T.symperm, T.syminv, T.rules, self.tt, self.ttn, np.int64(self.near_left), self.ck, self.ci, self.history, self.stats, run.abort, np.int64(self.max_stack),
                         np.int64(self.etc_left),
                         deadline=self.deadline, on_tick=self._tick)
        except KeyboardInterrupt:
            raise SearchStopped("interrupt", int(self.stats[engine.search.S_NODES])) from None
        reason = int(self.stats[engine.search.S_STOP])
        if reason == engine.search.STOP_ABORT:
            raise SearchStopped("time" if run.timed_out else "interrupt", int(self.stats[engine.search.S_NODES]))
        if reason == engine.search.STOP_NODES:
            raise SearchStopped("nodes" if self.node_limit and self.stats[engine.search.S_NODES] > self.node_limit else "budget",
                                int(self.stats[engine.search.S_NODES]))
        if reason == engine.search.STOP_STACK:
            raise SearchStopped("stack", int(self.stats[engine.search.S_NODES]))
        return int(r)

    def test(self, mine, theirs, counter, s, node_limit=0) -> tuple[bool, int]:
        """Is the mover's score at least s? (answer, a bound on the score that shows it).

        First by finite proofs (the game cut after H plies, the cut a loss for the side
        that needs more than a draw, then a win for it); then the full search with the
        repetition rule. Raises :class:`SearchStopped`.
        """
        empty = (int(self.tables.playable) & ~(int(mine) | int(theirs))).bit_count()
        first = max(4, 2 * empty)
        # a test stopped by a node budget goes on, when asked again, from the horizon it reached
        ladder = (int(mine), int(theirs), int(counter), int(s))
        horizon = self._ladder.get(ladder, first)
        p_is_mover = s > 0  # the side that needs more than a draw at this threshold
        while horizon <= self.horizon_limit:
            self._ladder[ladder] = horizon
            # the cut scored as a loss for P: a P success is real
            r = self._run(mine, theirs, counter, s, horizon, -CUT_SCORE if p_is_mover else CUT_SCORE, node_limit)
            if (r >= s) == p_is_mover:
                return r >= s, r
            r = self._run(mine, theirs, counter, s, horizon, CUT_SCORE if p_is_mover else -CUT_SCORE, node_limit)
            if (r >= s) != p_is_mover:
                return r >= s, r
            horizon = horizon + HORIZON_STEP if horizon < first + HORIZON_SPAN else \
                max(horizon + HORIZON_STEP, (horizon * HORIZON_GROWTH // 4) & ~1)
        r = self._run(mine, theirs, counter, s, 0, 0, node_limit)
        return r >= s, r

    # -- values and bounds ------------------------------------------------------------------------

    def _proved_move(self, mine, theirs, counter, k):
        """A move of the mover proved to keep a value of at least k (after a test said so), or None."""
        T = self.tables
        code = int(engine.search.tt_root_move(self.tt, np.uint64(mine), np.uint64(theirs), np.int64(counter), T.canon, T.syminv))
        moves = np.empty(engine.search.MAX_MOVES, np.int64)
        n = engine.kernels.gen_moves(np.uint64(mine), np.uint64(theirs), T.playable, T.adj, T.jmp, moves)
        codes = [int(x) for x in moves[:n]] or [-1]
        if code in codes:
            codes.remove(code)
            codes.insert(0, code)
        for c in codes:
            nm, nt = engine.kernels.play(np.uint64(mine), np.uint64(theirs), np.int64(c), T.adj)
            child_counter = int(engine.kernels.next_counter(np.int64(counter), np.int64(c), T.rules))
            # the child's mover must be held to a value of at most -k
            holds, _ = self.test(int(nm), int(nt), child_counter, value_threshold(1 - k))
            if not holds:
                return c
        return None

    def bounds_of(self, mine, theirs, counter, outcome_only=False, lower=None, upper=None) -> SearchBounds:
        """Narrow the interval on the mover's value by tests until it is exact (or, with
        ``outcome_only``, until the outcome is proved) or a limit stops the search.

        Never raises for a limit: the bounds proved so far come back with ``stopped`` set.
        The outcome first (does the mover win? does it at least draw?), then the margin
        from the bound found towards the material count, each test moving to the bound its
        fail-soft score proves (MTD(f)). Tests get node budgets that grow fourfold: a test
        over its budget yields to the next question (the middle of the interval), so an easy
        question is not held up by a hard one; the table keeps what an aborted test found.
        ``lower``/``upper``: bounds already known (from a cache).
        """
        mine, theirs, counter = int(mine), int(theirs), int(counter)
        start_nodes = int(self.stats[engine.search.S_NODES])
        t0 = time.monotonic()
        over, score = engine.kernels.game_status(np.uint64(mine), np.uint64(theirs), np.int64(counter), self.tables.playable,
                                  self.tables.reach, self.tables.rules)
        if over:
            return SearchBounds(int(score), int(score), None, int(score), 0, 0.0)
        S = self.squares
        lo = -S if lower is None else max(-S, lower)
        hi = S if upper is None else min(S, upper)
        best_move, best_lower = None, -S
        guess = max(lo, min(hi, mine.bit_count() - theirs.bit_count()))
        self._status = SearchStatus(lo, hi)
        self._start, self._start_nodes = t0, start_nodes
        stopped = None
        budget = 1 << 16
        target = None  # the next margin test, from the last fail-soft result
        outcome_at = 0.0 if (lo > 0 or hi < 0 or lo == hi == 0) else None

        def outcome_known(lo, hi):
            return lo > 0 or hi < 0 or (lo == 0 and hi == 0)

        def candidates(lo, hi):
            out = []
            if not outcome_known(lo, hi):
                out = [k for k in ((1, 0) if guess >= 1 else (0, 1)) if lo < k <= hi]
            elif not outcome_only:
                k = target if target is not None else (guess + 1 if guess >= lo + 1 else guess)
                out = [max(lo + 1, min(hi, k)), (lo + hi + 1) // 2]
            seen = []
            for k in out:
                if lo < k <= hi and k not in seen:
                    seen.append(k)
            return seen

        while True:
            todo = candidates(lo, hi)
            if not todo:
                break
            progressed = False
            for k in todo:
                self._status.lower, self._status.upper = lo, hi
                try:
                    holds, r = self.test(mine, theirs, counter, value_threshold(k),
                                         node_limit=int(self.stats[engine.search.S_NODES]) + budget)
                except SearchStopped as stop:
                    if stop.reason == "budget":
                        continue
                    stopped = stop.reason
                    break
                self._note_score(mine, theirs, counter, holds, r)
                if holds:
                    lo = max(lo, min(hi, max(k, score_class(r))))
                    target = lo + 1
                    if lo > best_lower:
                        try:
                            move = self._proved_move(mine, theirs, counter, lo)
                            if move is None and lo > k:
                                move = self._proved_move(mine, theirs, counter, k)
                                if move is not None:
                                    best_move, best_lower = move, k
                            elif move is not None:
                                best_move, best_lower = move, lo
                        except SearchStopped as stop:
                            if stop.reason != "budget":
                                stopped = stop.reason
                                break
                else:
                    hi = min(hi, max(lo, min(k - 1, score_class(r))))
                    target = hi
                guess = max(lo, min(hi, guess))
                if outcome_at is None and outcome_known(lo, hi):
                    outcome_at = time.monotonic() - t0
                self._status.lower, self._status.upper = lo, hi
                self._status.best_move = best_move
                progressed = True
                break
            if stopped is not None:
                break
            if not progressed:
                budget *= 4
        if best_move is None:
            best_move = self._guess_move(mine, theirs, counter)
        self._status = None
        done = lo == hi or (outcome_only and outcome_known(lo, hi))
        return SearchBounds(lo, hi, best_move, best_lower, int(self.stats[engine.search.S_NODES]) - start_nodes, time.monotonic() - t0,
                      None if done else stopped, outcome_at)

    def _note_score(self, mine, theirs, counter, holds: bool, r: int) -> None:
        """Keep the bound a test proved on a position's composite score (for its depth later)."""
        key = (mine, theirs, counter)
        lo, hi = self._scores.get(key, (-INF_SCORE, INF_SCORE))
        if holds:
            lo = max(lo, r)
        else:
            hi = min(hi, r)
        self._scores[key] = (lo, hi)

    def _guess_move(self, mine, theirs, counter):
        """The table's move for the position, else the first move in the search's order."""
        T = self.tables
        code = int(engine.search.tt_root_move(self.tt, np.uint64(mine), np.uint64(theirs), np.int64(counter), T.canon, T.syminv))
        if code != -2:
            return code
        moves = np.empty(engine.search.MAX_MOVES, np.int64)
        n = engine.kernels.gen_moves(np.uint64(mine), np.uint64(theirs), T.playable, T.adj, T.jmp, moves)
        if n == 0:
            return -1
        keys = [int(engine.search.order_key(np.uint64(mine), np.uint64(theirs), moves[i], np.int64(-2), T.adj, self.history))
                for i in range(n)]
        return int(moves[int(np.argmax(keys))])

    def bounds(self, p: Position, outcome_only: bool = False) -> Bounds:
        """:meth:`bounds_of` for a :class:`solver.rules.Position` (from its mover's side), starting
        from what earlier calls proved about it; an exact answer is kept for :meth:`lookup`."""
        mine, theirs, counter = self._bits(p)
        key = self._key(mine, theirs, counter)
        if key in self._values:
            u = self._values[key]
            known = self._proved.get(key)
            code = known[0] if known else None
            return Bounds(u, u, None if code is None else code_move(code), known[1] if known else u)
        lower, upper, move, move_lower = self._bounds.get(key, (None, None, None, None))
        self._root = p
        try:
            b = self.bounds_of(mine, theirs, counter, outcome_only, lower, upper)
        finally:
            self._root = None
        if move is not None and (b.best_lower < move_lower):
            b.best_move, b.best_lower = move, move_lower
        self._bounds[key] = (b.lower, b.upper, b.best_move if b.best_lower > -self.squares else None,
                             b.best_lower)
        if b.exact:
            self._values[key] = b.lower
            self._proved[key] = (b.best_move, b.best_lower)
        return Bounds(b.lower, b.upper, None if b.best_move is None else code_move(b.best_move), b.best_lower,
                      b.nodes, b.seconds, b.stopped, b.outcome_seconds)

    def seed(self, p: Position, lower: int, upper: int, move: Move | None = None,
             move_lower: int | None = None) -> None:
        """Start later searches of p from bounds proved before (the mover's side; a move with
        its proved lower bound), for example read from a cache."""
        key = self._key(*self._bits(p))
        old = self._bounds.get(key)
        if old is not None:
            lower, upper = max(lower, old[0]), min(upper, old[1])
            if old[2] is not None and (move is None or move_lower is None or old[3] > move_lower):
                self._bounds[key] = (lower, upper, old[2], old[3])
                return
        code = None if move is None else move_code(move)
        self._bounds[key] = (lower, upper, code, move_lower if code is not None else -self.squares)

    def value_of(self, mine, theirs, counter) -> int:
        """The value for the mover; raises LimitError with ``bounds``."""
        key = self._key(mine, theirs, counter)
        if key in self._values:
            return self._values[key]
        lower, upper, _, _ = self._bounds.get(key, (None, None, None, None))
        b = self.bounds_of(mine, theirs, counter, False, lower, upper)
        if not b.exact:
            self._bounds[key] = (b.lower, b.upper, None, -self.squares)
            raise self._limit_error(b)
        self._values[key] = b.lower
        return b.lower

    def stop_message(self, reason: str) -> str:  # noqa: D102 - the contract's
        """Why a search stopped, in a few words ('' for an interrupt)."""
        return {"time": "out of time", "nodes": f"the search went past {self.node_limit:,} nodes",
                "stack": f"a line of play outgrew the memory budget ({self.max_stack:,} plies)",
                "interrupt": ""}.get(reason, reason)

    def _limit_error(self, b: SearchBounds) -> BaseException:
        done = f"the search stopped after {int(self.stats[engine.search.S_NODES]):,} nodes"
        why = self.stop_message(b.stopped or "")
        err: BaseException
        if b.stopped == "interrupt":
            err = KeyboardInterrupt()
        elif b.stopped == "time":
            err = TimeLimitError(f"{done}: {why}")
        elif b.stopped == "nodes":
            err = StateLimitError(why, int(self.stats[engine.search.S_NODES]))
        elif b.stopped == "stack":
            err = MemoryLimitError(f"{done}: {why}")
        else:
            err = LimitError(done)
        err.bounds = b  # type: ignore[union-attr]  # what was proved, for a caller that wants it
        return err

    # -- depths, preferred moves and lines by tests -------------------------------------------

    def exact_analysis(self, p: Position, value: int) -> ExactLine:
        """The depth, optimal moves, preferred move and line of p, whose value for the mover is
        ``value`` (exact, not 0), by null-window tests: a test per move instead of every move's
        value and depth. Raises LimitError."""
        optimal = [m for m in p.legal_moves() if self.keeps_value(p, m, value)]
        score = self.exact_score(p)
        return ExactLine(abs(score - value * M), optimal, self.preferred(p, score), self.line(p, score))

    def exact_score(self, p) -> int:
        """The mover's exact composite score (value and depth) of a position that is not a draw
        by value; raises LimitError."""
        r = p.result()
        if r is not None:
            return mover_value(p, r) * M
        mine, theirs, counter = self._bits(p)
        u = self.value_of(mine, theirs, counter)
        if u == 0:
            return 0
        d = self.depth_of(mine, theirs, counter, u)
        return u * M - d if u > 0 else u * M + d

    def _test_or_raise(self, mine, theirs, counter, s, value: int = 0) -> tuple[bool, int]:
        """:meth:`test`, a stop raised as the limit error (with ``value`` as the bounds, when known)."""
        try:
            return self.test(mine, theirs, counter, s)
        except SearchStopped as stop:
            raise self._limit_error(SearchBounds(value, value, None, value, 0, 0.0, stop.reason)) from None

    def keeps(self, p, move, score: int) -> bool:
        """Does the move reach the mover's score ``score`` (an exact score of p, not 0)?"""
        c = p.push(move)
        r = c.result()
        if r is not None:
            child = mover_value(c, r) * M
            return parent_score(-child) >= score
        mine, theirs, counter = self._bits(c)
        # parent_score(-child) >= score  <=>  child <= -widen(score)  <=>  not (child >= -widen(score) + 1)
        return not self._test_or_raise(mine, theirs, counter, -widen(score) + 1)[0]

    def keeps_value(self, p, move, u: int) -> bool:
        """Does the move keep the mover's value u?"""
        c = p.push(move)
        r = c.result()
        if r is not None:
            return -mover_value(c, r) == u
        mine, theirs, counter = self._bits(c)
        return not self._test_or_raise(mine, theirs, counter, value_threshold(1 - u))[0]

    def preferred(self, p, score: int):
        """The preferred move (SPEC section 4) of a position whose exact score is ``score``
        (not a draw): the first move in notation order that reaches that score."""
        for m in p.legal_moves():
            if self.keeps(p, m, score):
                return m
        raise AssertionError("no move reaches the position's exact score")

    def line(self, p, score: int) -> list:
        """The principal variation from a position of exact score ``score`` (not a draw): each
        preferred move leads to the child's exact score, one ply nearer the end."""
        moves = []
        while not p.is_over():
            m = self.preferred(p, score)
            moves.append(m)
            p = p.push(m)
            score = -widen(score)
        return moves

    def value(self, p) -> int:
        """The value for the side to move."""
        r = p.result()
        if r is not None:
            return mover_value(p, r)
        return self.value_of(*self._bits(p))

    def lookup(self, p: Position) -> tuple[int, float]:
        key = self._key(*self._bits(p))
        if key in self._results:
            return self._results[key]
        r = p.result()
        if r is not None:
            result: tuple[int, float] = (mover_value(p, r), 0)
        else:
            mine, theirs, counter = self._bits(p)
            u = self.value_of(mine, theirs, counter)
            result = (u, self.depth_of(mine, theirs, counter, u) if u else self._draw_depth(p))
        self._results[key] = result
        return result

    def depth_of(self, mine, theirs, counter, u) -> int:
        """Depth of a position of known value u != 0: its exact score inside u's band, by
        null-window tests on the score from the best conceivable one down (MTD(f))."""
        lo = u * M - HALF + 1  # the score is at least lo ...
        hi = u * M + HALF - 1  # ... and at most hi
        if u > 0:
            hi = u * M - 1  # at least one ply
        else:
            lo = u * M + 1
        known_lo, known_hi = self._scores.get((int(mine), int(theirs), int(counter)), (lo, hi))
        lo, hi = max(lo, min(known_lo, hi)), min(hi, max(known_hi, lo))
        # MTD(f) from the proved lower bound: the fail-soft answers jump towards the score
        s = lo + 1
        while lo < hi:
            holds, r = self._test_or_raise(mine, theirs, counter, s, u)
            if holds:
                lo = max(lo, min(r, hi))
                s = lo + 1
            else:
                hi = min(hi, max(r, lo))
                s = hi
            s = max(lo + 1, min(s, hi))
        return abs(lo - u * M)
    def _draw_depth(self, p: Position) -> float:
        """Depth of a drawn position: 1 + the longest drawing child, infinite through a cycle."""
        memo = self._draw_memo
        on_path: set = set()
        walked = 0

        def drawing_children(q):
            out = []
            for m in q.legal_moves():
                c = q.push(m)
                if self.value(c) == 0:
                    out.append(c)
            return out

        # Iterative depth-first walk: frames of (key, children, next index, longest so far).
        def key_of(q):
            return self._key(*self._bits(q))

        root_key = key_of(p)
        if root_key in memo:
            return memo[root_key]
        stack: list[tuple] = [(root_key, drawing_children(p), 0, -1)]
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
