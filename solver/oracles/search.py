"""The search engine's driver: values, intervals and depths as sequences of null-window tests.

The compiled kernel (:mod:`solver.engine.search`, whose docstring gives the
correctness argument) answers one question, "is the mover's score at least s?",
with a proof; scores are composite (:mod:`solver.common.scores`). :class:`SearchOracle`
(the oracle contract, :class:`solver.oracles.oracle.Oracle`) turns answers into values.

A test is a race of provers
---------------------------
Three kinds of prover answer a test, each with a real answer either way:

- *the proof-number search* (:mod:`solver.engine.dfpn`): df-pn, which expands the
  most-proving node and so finds small proofs where the prover has few good moves
  and the defender many;
- *the ladders of budgets* (:mod:`solver.engine.search`): alpha-beta in the game cut
  when a run of plies without a clone reaches a budget (:data:`BUDGETS`; under a
  counter rule, when the counter reaches it), *P's ladder* scoring the cut as a loss
  for P, the side that needs more than a draw at the threshold (a P success there is
  real), *F's ladder* as a win for P (an F success is real). Every budgeted game is
  finite, so its table entries are exact for their key and a bound proved at one
  budget stays proved at the next; they win where short jump wars decide;
- *the search of the real game* (the same kernel without a budget): under classic the
  cycle-aware prover (the repetition rule and the conditional table), the only one
  that proves what needs endless play (a draw by infinite play, a hold that only
  repeating a position keeps); under a counter rule a plain alpha-beta, every game
  being finite. It wins where the table closes the jump wars' loops quickly.

They probe the tablebases of the board at their leaves when they are given
(``probe_tables``, classic rules only): a position with at most as many empty squares
as the tables hold is scored at once with its exact value and depth
(:mod:`solver.engine.tbprobe`).

With two or more threads they race (df-pn and the real game taking turns on the even
threads, the ladders on the odd ones), sharing the alpha-beta table (df-pn reads proved
bounds from it and writes its settled results to it), and the first answer ends the
test. On one thread the three take turns. Provers that share a thread take turns in
node slices that grow fourfold, each resuming where it stopped (df-pn from its table,
a ladder from its budget, the real game from what the table keeps). On small boards
(20 squares or fewer) the search of the real game answers at once.

A test may be given a node budget: over it, the test stops without an answer and
resumes later from the budgets it reached. The nodes of every thread count.
:attr:`SearchOracle.proofs` counts which prover (and budget) answered each test.

Bounds, outcomes and values
---------------------------
:meth:`SearchOracle.bounds_of` narrows an interval on the mover's value: first
what the moves that end the game prove (a move after which the game is over, or
can only be filled in by the side left, has a known result), then the outcome (is
the value at least 1? at least 0?), then the margin by MTD(f), each test moving
to the bound its fail-soft score proves (:mod:`solver.oracles.narrowing` chooses
each test). Tests get node budgets that grow fourfold: a test over its budget
yields to an easier question. A test that
proves a lower bound names the move that proves it (the kernel's root move), so
the best move reported always carries its bound.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from typing import Callable

import numpy as np

from solver import engine
from solver.common.limits import (
    BudgetError,
    LimitError,
    MemoryLimitError,
    StateLimitError,
    TimeLimitError,
    default_memory_budget,
)
from solver.common.scores import (
    CUT_SCORE,
    INF_SCORE,
    M,
    parent_score,
    score_class,
    value_threshold,
    widen,
)
from solver.game.bitboards import (
    build_tables,
    code_move,
    large_zeros,
    move_code,
    mover_bits,
)
from solver.game.board import Board
from solver.game.rules import CLASSIC, Move, Position, Rules, X
from solver.oracles.exact import DRAW_WALK_LIMIT, draw_depth, exact_score
from solver.oracles.narrowing import Narrowing
from solver.oracles.search_answers import Answer, SearchBounds, SearchStatus, SearchStopped, raise_stop
from solver.oracles.searchfile import board_id, read_search_file, write_search_file
from solver.oracles.oracle import (
    Bounds,
    Oracle,
    Progress,
    ProgressCallback,
    mover_value,
)

SYMMETRY_MAX_SQUARES = 25  # on larger boards symmetric transpositions are too rare to pay for the key
SMALL_BOARD = 20  # squares: up to this many, the search without a budget answers at once (cycles close quickly)
BUDGETS = (2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 250)  # plies of a run without a clone
BUDGET_LIMIT = BUDGETS[-1]  # the largest budget before the search of the real game (plies left fit a byte)
# enhanced transposition cut-offs at a test's first plies only (6-empty engine games, one thread, 60 M nodes:
# 3 exact against 2 at every node, in 17 to 25 % less CPU under classic and uai; 8 empty: 13 % less)
ETC_PLIES = 4
LAST_EMPTY, LAST_PLIES = 3, 8  # children with at most 3 empty squares: the last plies' solver first, 8 plies
# the nodes it may take for one child: a child it cannot settle (a jump war) costs them all. With 2,000, the
# 6-empty engine games under uai (20 s, both cores) had 3 of 10 exact; with 300, 4 (those 3 1.4 to 3 times sooner).
LAST_NODES = 300
FIRST_BUDGET = 1 << 16  # nodes of a test's first try in bounds_of (then four times more each round)
# nodes of each prover's first turn when several share a thread; against 1 << 18 (6-empty engine games, one
# thread, 150 M nodes): uai 4 of 10 exact against 3, classic 4 and 4 (three sooner, one later); 8 empty: the same
FIRST_SLICE = 1 << 16
FIRST_TABLE_BITS = 16  # the table's first size: 2 MiB (it grows fourfold as the nodes call for it)
ENTRIES_PER_NODE = 4  # table entries for each node a search may take
MIN_SLICE = 1 << 14  # the fewest nodes a thread searches between two looks at the table's size
# a test after the value (depth, line, moves) first searches the real game for this many nodes in the
# calling thread: most of a depth walk's small tests end within them, and handing a test to the worker
# threads costs more than such a test (the tests of bounds_of do not: there it proved a little less)
INLINE_NODES = 1 << 12
# how fast the table grows (fresh memory and its entries moved), counted low: a growth that would end
# past the deadline is not begun (measured 0.4 to 0.7 GiB a second here; `--timeout 0.5` ran 2.1 s)
GROW_BYTES_PER_SECOND = 256 << 20


def no_probe_tables() -> tuple:
    """The kernels' ``tb`` argument when there are no tablebases (``tb_max`` -1: nothing is
    probed): empty arrays of the very types :meth:`solver.tables.probe.Tablebase.search_arrays`
    gives, so that the kernels are compiled once for both."""
    u64, i64 = np.uint64, np.int64
    ix = (np.uint64(0), np.zeros((1, 256), u64), np.zeros((1, 256), u64), np.zeros((1, 256), u64),
          np.zeros(1, i64), np.zeros(1, i64), np.zeros(1, i64), np.zeros(1, u64), np.zeros(1, u64), np.zeros(1, i64),
          np.zeros((1, 1), i64), np.zeros(1, i64), np.zeros(1, u64), np.zeros(1, i64), np.zeros((1, 1), i64),
          np.zeros(1, i64), np.zeros((2, 1), np.uint8), np.zeros((1, 256), u64), np.zeros(4, i64))
    topt = np.zeros(engine.tbprobe.NTOPT, i64)
    topt[engine.tbprobe.T_MAX] = -1
    return (ix, np.zeros(1, np.uint16), np.zeros(1, i64), np.zeros((1, 256), u64), topt)


def load_probe_kernel() -> None:
    """Compile (or load) the tablebase probe the driver calls itself (:meth:`SearchOracle._ending_moves`),
    so that a first solve with tables does not count it."""
    empty = np.zeros(0, np.uint64)
    engine.tbprobe.table_scores(empty, empty, no_probe_tables())


def default_threads() -> int:
    """The processors this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class _Thread:
    """One search thread's own arrays: the conditional table, the history of cut-offs and the
    counters (:mod:`solver.engine.search`)."""

    def __init__(self, c_bits: int):
        S = engine.search
        self.ck = large_zeros((1 << c_bits, 2), np.uint64)
        self.ci = large_zeros((1 << c_bits, S.NC), np.int64)
        self.history = np.zeros(8192, np.int64)
        self.stats = np.zeros(S.NSTATS, np.int64)

    @property
    def nodes(self) -> int:
        return int(self.stats[engine.search.S_NODES])


class SearchOracle(Oracle):
    """Exact values and proved bounds by null-window tests (the oracle contract,
    :class:`solver.oracles.oracle.Oracle`, with ``proves_bounds``).

    :meth:`bounds_of` narrows an interval on the value until it is exact or a limit
    stops it, and always returns what it proved (:meth:`bounds` does it for a position).
    :meth:`value_of` and :meth:`lookup` give exact values (and depths) or raise a
    :class:`LimitError` that carries the bounds proved so far (``exc.bounds``).
    ``progress`` receives a :class:`solver.oracles.oracle.Progress` every 50 ms while a search runs.
    ``threads``: how many threads search at once (default: every processor).
    ``max_table``: the most bytes the table grows to (:class:`~solver.common.limits.Limits`' ``search_table``).
    ``probe_tables``: the tablebases of ``board`` probed at the leaves, as the kernels take them
    (``Tablebase.search_arrays(board)``, :mod:`solver.tables.probe`); used under the classic rules only
    (a counter may end a game the tables value otherwise), ignored under the others.
    """

    name = "search"
    proves_bounds = True

    def __init__(self, board: Board, rules: Rules, max_memory: int | None = None, deadline: float | None = None,
                 node_limit: int = 0, symmetry: bool | None = None, tt_bits: int | None = None,
                 draw_walk_limit: int = DRAW_WALK_LIMIT, budget_limit: int | None = None,
                 progress: ProgressCallback | None = None, threads: int | None = None,
                 probe_tables: tuple | None = None, max_table: int | None = None):
        super().__init__(deadline, progress)
        S = engine.search
        self.unit = "nodes"
        if symmetry is None:
            symmetry = board.size <= SYMMETRY_MAX_SQUARES
        self.tables = build_tables(board, rules, symmetry)
        T = self.tables
        self.geo = (T.playable, T.adj, T.jmp, T.reach, T.canon, T.symperm, T.syminv, T.rules)
        self.rules = rules
        self.tb = probe_tables if probe_tables is not None and rules.name == CLASSIC.name else no_probe_tables()
        self.threads = max(1, threads if threads is not None else default_threads())
        budget = max_memory if max_memory is not None else default_memory_budget()
        if tt_bits is not None:
            start_bits = tt_bits  # a size asked for: it stays
        else:
            # 32-byte entries: half the budget, at most 512 MiB unless a budget was given; at most max_table
            cap = min(budget // 2, 512 << 20 if max_memory is None else budget, max_table or budget)
            tt_bits = 10
            while (S.ENTRY_WORDS * 8) << (tt_bits + 1) <= cap and tt_bits < 34:
                tt_bits += 1
            tt_bits = min(tt_bits, max(12, 2 * board.size + 2))  # no point beyond the positions there are
            if node_limit:  # nor beyond what the nodes can store: a small run clears no large table
                tt_bits = min(tt_bits, max(12, (ENTRIES_PER_NODE * node_limit - 1).bit_length()))
            start_bits = min(tt_bits, FIRST_TABLE_BITS)
        # The table starts small and grows (fourfold, to tt_bits) as the nodes searched call for it
        # (:meth:`_grow`): a search of a thousand nodes writes no 512 MiB of fresh memory.
        self.tt_bits = tt_bits
        self.tt = large_zeros((1 << start_bits, S.ENTRY_WORDS), np.uint64)
        c_bits = max(10, min(18, tt_bits - 4))
        self.workers = [_Thread(c_bits) for _ in range(self.threads)]
        per_thread = sum(a.nbytes for a in (self.workers[0].ck, self.workers[0].ci))
        tt_most = (S.ENTRY_WORDS * 8) << self.tt_bits
        self.max_stack = max(1024, (budget - tt_most - self.threads * per_thread) // 2 // self.threads
                             // S.BYTES_PER_PLY)
        self.node_limit = node_limit or 0
        self.draw_walk_limit = draw_walk_limit
        # Only classic play can go on forever: there the search of the real game needs the repetition
        # rule; under a counter every game ends, and keys with the counter are exact without one.
        self.loopy = rules.is_loopy
        self.clock_kind = S.CLOCK_UAI if rules.limit_is_draw else (S.CLOCK_EXACT if rules.counter else S.CLOCK_NONE)
        # Budgeted proofs first on large boards, where long jump wars make the search of the real
        # game explode; on small boards cycles close quickly: the real game at once.
        if budget_limit is None:
            budget_limit = BUDGET_LIMIT if board.size > SMALL_BOARD else 0
        self.budget_limit = min(budget_limit, BUDGET_LIMIT)
        self.squares = board.playable.bit_count()
        self.etc_plies = ETC_PLIES
        self._values: dict = {}
        self._results: dict = {}
        self._ladder: dict = {}  # (mine, theirs, counter, s, prover) -> the next budget to try
        self.repetitions = True  # the repetition rule in budgeted games (see the kernel's docstring)
        self._inline_tick = 0.0  # when the last small test in the calling thread gave the progress
        self.last_empty = LAST_EMPTY  # the last plies' solver (engine/lastplies.py) below this (0: none)
        self.proofs: dict = {}  # (prover, budget) -> tests it answered: 'P'/'F' at a budget, 'C' the real game, 'D'

        self.dtt: np.ndarray | None = None  # the proof-number search's table, made when first used
        self.provers: list[tuple[str, ...]] | None = None  # the provers per thread (None: the default)
        self._scores: dict = {}  # (mine, theirs, counter) -> bounds on the composite score proved by tests
        self._bounds: dict = {}  # canonical key -> (lower, upper, a move (canonical), its proved lower bound)
        self._status: SearchStatus | None = None
        self._root: Position | None = None  # the position :meth:`bounds` searches (for progress reports)
        self._start, self._start_nodes = time.monotonic(), 0
        self._draw_memo: dict = {}
        self._overflowed: set = set()  # tests (mine, theirs, counter, s) whose real-game line outgrew the stack

    # -- bookkeeping ------------------------------------------------------------------------------

    @property
    def stats(self) -> np.ndarray:
        """The kernel's counters, summed over the threads."""
        return np.sum([w.stats for w in self.workers], axis=0)

    @property
    def states(self) -> int:
        """Nodes searched so far (every thread)."""
        return sum(w.nodes for w in self.workers)

    def counters(self) -> dict:
        """Search statistics: nodes, table probes and hits, cut-offs and how many came first."""
        S = engine.search
        st = self.stats
        names = {"nodes": S.S_NODES, "probes": S.S_PROBES, "hits": S.S_HITS, "tt_cuts": S.S_TTCUTS,
                 "cutoffs": S.S_CUTS, "first_move_cutoffs": S.S_FIRSTCUTS, "stores": S.S_STORES,
                 "pending": S.S_PENDING, "validated": S.S_VALIDATED, "discarded": S.S_DISCARDED,
                 "repetitions": S.S_REPS, "conditional_hits": S.S_CHITS, "terminal": S.S_TERMINAL,
                 "filled_out": S.S_FILLOUT, "horizon_cuts": S.S_HCUTS, "expanded": S.S_VISITS,
                 "table_move_first": S.S_TTFIRST, "generated": S.S_GENERATED, "searched": S.S_SEARCHED,
                 "etc_cuts": S.S_ETC, "table_probes": S.S_TABLE, "last_plies": S.S_LAST,
                 "last_plies_nodes": S.S_LASTNODES}
        out = {name: int(st[slot]) for name, slot in names.items()}
        out["deepest"] = max(int(w.stats[S.S_MAXPLY]) for w in self.workers)
        out["tt_entries"] = int(self.tt.shape[0])
        out["tt_bytes"] = int(self.tt.nbytes)
        out["threads"] = self.threads
        return out

    def prepare(self, roots: list[Position], both_sides: bool = False) -> None:
        pass  # positions are searched when asked for

    def _key(self, mine: int, theirs: int, counter: int) -> tuple[int, int, int, int]:
        """(canonical mine, canonical theirs, counter, the symmetry that maps the position to it)."""
        cm, ct, sym = engine.kernels.canonical(np.uint64(mine), np.uint64(theirs), self.tables.canon)
        return int(cm), int(ct), int(counter), int(sym)

    def _to_canonical(self, code: int | None, sym: int) -> int | None:
        return None if code is None else int(engine.kernels.map_move(np.int64(code), self.tables.symperm[sym]))

    def _from_canonical(self, code: int | None, sym: int) -> int | None:
        return None if code is None else int(engine.kernels.map_move(np.int64(code), self.tables.syminv[sym]))

    @staticmethod
    def _bits(p: Position) -> tuple[int, int, int]:
        m, t = mover_bits(p)
        return m, t, p.counter

    def _tick(self, _progress: np.ndarray) -> None:
        if self.progress is None:
            return
        nodes = self.states - self._start_nodes
        if self._status is None:  # a test after the value (its depth, a line, a move's bound)
            self.progress(Progress("testing", nodes, None, "nodes", time.monotonic() - self._start, self._root))
        else:
            st = self._status
            root = self._root
            lo, hi = (st.lower, st.upper) if root is None or root.turn == X else (-st.upper, -st.lower)
            move = None if st.best_move is None else code_move(st.best_move)
            self.progress(Progress("searching", nodes, None, "nodes", time.monotonic() - self._start, root, lo, hi,
                                   move))

    # -- one test ---------------------------------------------------------------------------------

    def _kernel(self, w: _Thread, abort: np.ndarray, mine: int, theirs: int, counter: int, s: int, budget: int,
                cut: int, limit: int) -> tuple[int, int]:
        """One kernel call on thread ``w`` (in the calling thread): (score, root move code) in the game
        cut when a run reaches ``budget`` (0: the real game), the cut scored ``cut`` for the root's
        mover. Raises :class:`SearchStopped` when it stops without an answer ('cancelled' when
        another thread's answer, or the caller, stopped it: ``abort[0]`` 2)."""
        S = engine.search
        w.stats[S.S_NODE_LIMIT] = limit
        # the repetition rule: in the real game under classic (cycle-aware); in every budgeted game,
        # where a repetition inside a run counts against the side proving, as the cut does
        loopy = int(self.loopy) if budget == 0 else int(self.repetitions and (self.loopy or self.rules.limit_is_draw))
        opts = np.array([budget, cut, loopy, self.clock_kind, self.max_stack, self.etc_plies,
                         self.last_empty, LAST_PLIES, LAST_NODES], np.int64)
        r = S.search_test(np.uint64(mine), np.uint64(theirs), np.int64(counter), np.int64(s), self.geo, self.tt,
                          (w.ck, w.ci, w.history, w.stats, abort), opts, self.tb)
        raise_stop(S, int(w.stats[S.S_STOP]), abort, w.nodes)
        return int(r), int(w.stats[S.S_ROOTMOVE])

    def _grow(self, nodes: int) -> None:
        """Make the table large enough for a search of ``nodes`` nodes in all (up to its largest
        size), fourfold at a time, moving its entries over. Only while no thread is searching."""
        want = ENTRIES_PER_NODE * nodes
        bits = self.tt.shape[0].bit_length() - 1
        if bits >= self.tt_bits or want <= 1 << bits:
            return
        while (1 << bits) < want and bits < self.tt_bits:
            bits = min(bits + 2, self.tt_bits)
        size = (1 << bits) * engine.search.ENTRY_WORDS * 8 * (1.5 if self.dtt is not None else 1)
        if self.deadline is not None and time.monotonic() + size / GROW_BYTES_PER_SECOND > self.deadline:
            return  # (it would not end before the deadline: the search goes on in the table it has)
        tt = large_zeros((1 << bits, engine.search.ENTRY_WORDS), np.uint64)
        engine.ttable.rehash(self.tt, tt, np.int64(self.squares))
        self.tt = tt
        if self.dtt is not None:
            dtt = large_zeros((tt.shape[0] // 2, engine.search.ENTRY_WORDS), np.uint64)
            engine.dfpn.table_rehash(self.dtt, dtt)
            self.dtt = dtt

    def _dfpn(self, w: _Thread, abort: np.ndarray, mine: int, theirs: int, counter: int, s: int,
              limit: int) -> Answer:
        """One proof-number search (:mod:`solver.engine.dfpn`) on thread ``w``: always a real answer.
        Raises :class:`SearchStopped`."""
        D = engine.dfpn
        if self.dtt is None:
            self.dtt = large_zeros((self.tt.shape[0] // 2, engine.search.ENTRY_WORDS), np.uint64)
        w.stats[D.S_NODE_LIMIT] = limit
        opts = np.array([int(self.loopy), self.clock_kind, self.max_stack, self.last_empty, LAST_PLIES, LAST_NODES],
                        np.int64)
        r = int(D.dfpn_test(np.uint64(mine), np.uint64(theirs), np.int64(counter), np.int64(s), self.geo, self.tt,
                            self.dtt, (w.stats, abort), opts, self.tb))
        raise_stop(D, int(w.stats[D.S_STOP]), abort, w.nodes)
        self._note_proof("D", 0)
        holds = r >= s
        move = int(w.stats[D.S_ROOTMOVE])
        return Answer(holds, r, move if holds and move != -2 else None)

    def budgets(self, counter: int) -> list[int]:
        """The budgets the ladders climb for a position with ``counter``: plies of a run without a
        clone under classic; under a counter rule the counter's value at the cut (the counter is
        the run), each below the rule's own limit (past it the game is the real one)."""
        if self.rules.counter:
            return [counter + b for b in BUDGETS if b <= self.budget_limit and counter + b < self.rules.limit]
        return [b for b in BUDGETS if b <= self.budget_limit]

    def _note_proof(self, prover: str, budget: int) -> None:
        key = (prover, budget)
        self.proofs[key] = self.proofs.get(key, 0) + 1

    def _prove(self, w: _Thread, abort: np.ndarray, provers: tuple[str, ...], mine: int, theirs: int, counter: int,
               s: int, limit: int, won: Callable[[], bool]) -> Answer:
        """Run ``provers`` on thread ``w`` until one gives a real answer: 'D' the proof-number search,
        'P' and 'F' the alpha-beta ladders of budgets (taking turns at each budget), 'C' the search
        of the real game (the cycle-aware prover under classic). Ladders without 'C' end with the
        search of the real game. With more than one of the three kinds (proof numbers, ladders,
        the real game) on one thread they take turns in node slices that grow fourfold, each
        resuming where it stopped (the proof numbers from their table, a ladder from its budget,
        the real game from what the table keeps). A kind whose line outgrows the stack leaves the
        turns to the others. ``won`` says that another thread has answered. Raises :class:`SearchStopped`."""
        ladders = tuple(p for p in provers if p in ("P", "F"))
        kinds = [k for k, there in (("D", "D" in provers), ("ladders", bool(ladders)), ("C", "C" in provers)) if there]
        if not kinds:
            kinds = ["C"]
        if len(kinds) == 1:
            a = self._run_kind(kinds[0], w, abort, ladders, mine, theirs, counter, s, limit, won, True)
            return a if a is not None else self._real(w, abort, mine, theirs, counter, s, limit)
        size = FIRST_SLICE
        while True:
            for kind in list(kinds):
                cap = w.nodes + size
                if limit:
                    cap = min(cap, limit)
                try:
                    a = self._run_kind(kind, w, abort, ladders, mine, theirs, counter, s, cap, won, False)
                except SearchStopped as stop:
                    reason = stop.reason
                    del stop  # (a frame holding what it raises makes a cycle that keeps self)
                    if reason == "stack" and kind in ("C", "D") and len(kinds) > 1:
                        kinds.remove(kind)  # a line of play outgrew the stack: the other provers go on
                        continue
                    if reason != "limit" or (limit and w.nodes >= limit):
                        raise
                    continue
                if a is not None:
                    return a
                kinds.remove(kind)  # a ladder past its last budget: the others go on
            if not kinds:
                return self._real(w, abort, mine, theirs, counter, s, limit)
            size *= 4

    def _run_kind(self, kind: str, w: _Thread, abort: np.ndarray, ladders: tuple[str, ...], mine: int, theirs: int,
                  counter: int, s: int, limit: int, won: Callable[[], bool], then_real: bool) -> Answer | None:
        """One prover kind of :meth:`_prove` up to ``limit`` nodes: its answer, or None when a ladder
        has climbed past its last budget (and ``then_real`` is false)."""
        if kind == "D":
            return self._dfpn(w, abort, mine, theirs, counter, s, limit)
        if kind == "C":
            return self._real(w, abort, mine, theirs, counter, s, limit)
        a = self._ladders(w, abort, ladders, mine, theirs, counter, s, limit, won)
        if a is None and then_real:
            return self._real(w, abort, mine, theirs, counter, s, limit)
        return a

    def _real(self, w: _Thread, abort: np.ndarray, mine: int, theirs: int, counter: int, s: int,
              limit: int) -> Answer:
        """The search of the real game (the cycle-aware prover under classic). Raises
        :class:`SearchStopped`."""
        key = (mine, theirs, counter, s)
        if key in self._overflowed:  # (its line outgrew the stack before: not tried again)
            raise SearchStopped("stack", w.nodes)
        try:
            r, move = self._kernel(w, abort, mine, theirs, counter, s, 0, 0, limit)
        except SearchStopped as stop:
            if stop.reason == "stack":
                self._overflowed.add(key)
            raise
        self._note_proof("C", 0)
        holds = r >= s
        return Answer(holds, r, move if holds and move != -2 else None)

    def _ladders(self, w: _Thread, abort: np.ndarray, provers: tuple[str, ...], mine: int, theirs: int,
                 counter: int, s: int, limit: int, won: Callable[[], bool]) -> Answer | None:
        """The alpha-beta provers' ladders of budgets, taking turns at each: an answer, or None past
        the last budget. Raises :class:`SearchStopped`."""
        p_is_mover = s > 0  # the side that needs more than a draw at this threshold
        budgets = self.budgets(counter)
        while budgets:
            tried = False
            for prover in provers:
                key = (mine, theirs, counter, s, prover)
                step = self._ladder.get(key, 0)
                if step >= len(budgets):
                    continue
                tried = True
                # P's prover cuts the game as a loss for P (a P success is real), F's as a win for P
                cut = -CUT_SCORE if (prover == "P") == p_is_mover else CUT_SCORE
                r, move = self._kernel(w, abort, mine, theirs, counter, s, budgets[step], cut, limit)
                holds = r >= s
                if holds == p_is_mover if prover == "P" else holds != p_is_mover:
                    self._note_proof(prover, budgets[step] - (counter if self.rules.counter else 0))
                    return Answer(holds, r, move if holds and move != -2 else None)
                if won():
                    raise SearchStopped("cancelled", w.nodes)
                if self._ladder.get(key, 0) == step:  # another thread may have climbed further
                    self._ladder[key] = step + 1
            if not tried:
                break
        return None

    def test_answer(self, mine: int, theirs: int, counter: int, s: int, budget: int = 0,
                    inline: bool = False) -> Answer:
        """Is the mover's score at least s? The race of provers (module docstring) on every thread.
        ``budget``: nodes this test may take (every thread's count; 0: none beyond the oracle's
        limit). Raises :class:`SearchStopped` ('time', 'interrupt', 'nodes' for the oracle's
        limit, 'budget', 'stack'). It runs in slices while the table may grow: when the nodes
        call for a larger table (:meth:`_grow`) the threads stop, and go on from what it keeps.
        No test begins once the oracle's node limit or deadline is past (a small test would end
        before its kernels' first look at the stop flag, and a depth walk asks a great many).
        ``inline``: first :meth:`_inline` (the tests after the value, most of them small)."""
        mine, theirs, counter = int(mine), int(theirs), int(counter)
        nthreads = self.threads if self.budget_limit > 0 else 1  # on small boards one search answers
        workers = self.workers[:nthreads]
        total = self.states
        if self.node_limit and total >= self.node_limit:
            raise SearchStopped("nodes", total)
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise SearchStopped("time", total)
        if inline and self.provers is None:
            a = self._inline(workers[0], mine, theirs, counter, s, budget)
            if a is not None:
                return a
            if budget:  # (the nodes it took count against the test's budget)
                budget = max(1, budget - (self.states - total))
            total = self.states
        limits = []
        for w in workers:
            cap = 0
            if budget:
                cap = w.nodes + max(1, budget // nthreads)
            if self.node_limit:
                left = max(1, (self.node_limit - total) // nthreads)
                cap = min(cap, w.nodes + left) if cap else w.nodes + left
            limits.append(cap)
        while True:
            self._grow(self.states)
            full = self.tt.shape[0] >= 1 << self.tt_bits
            room = max(0, self.tt.shape[0] // ENTRIES_PER_NODE - self.states)  # nodes before it should grow
            slices = [w.nodes + max(MIN_SLICE, room // nthreads) for w in workers]
            caps = [c if full or (c and c <= g) else g for c, g in zip(limits, slices)]
            try:
                return self._race(workers, mine, theirs, counter, s, caps)
            except SearchStopped as stop:
                reason = stop.reason
                del stop  # (as in _prove)
                if reason not in ("budget", "nodes") or full or all(c == l for c, l in zip(caps, limits)):
                    raise
                if self.node_limit and self.states >= self.node_limit:
                    raise SearchStopped("nodes", self.states) from None
                if all(l and w.nodes >= l for w, l in zip(workers, limits)):
                    raise SearchStopped("budget", self.states) from None

    def _inline(self, w: _Thread, mine: int, theirs: int, counter: int, s: int, budget: int) -> Answer | None:
        """The first :data:`INLINE_NODES` nodes of a test: the search of the real game in the calling
        thread (no thread handed the work, no race); its answer, or None when it needs more."""
        cap = INLINE_NODES
        if budget:
            cap = min(cap, max(1, budget // 2))
        if self.node_limit:
            cap = min(cap, max(1, self.node_limit - self.states))
        engine.announce_compilation("search_test")
        try:
            a = self._real(w, np.zeros(1, np.int64), mine, theirs, counter, s, w.nodes + cap)
        except SearchStopped as stop:
            if stop.reason not in ("limit", "stack"):
                raise
            return None
        except KeyboardInterrupt:
            raise SearchStopped("interrupt", self.states) from None
        finally:
            engine.record_compilation()
            now = time.monotonic()
            if now - self._inline_tick >= 0.05:  # the progress callback, as a race's ticks give it
                self._inline_tick = now
                self._tick(w.stats)
        return a

    def _race(self, workers: list[_Thread], mine: int, theirs: int, counter: int, s: int,
              limits: list[int]) -> Answer:
        """The provers of :meth:`test_answer` on ``workers``, each up to its node count in ``limits``
        (0: none): the first answer. Raises :class:`SearchStopped`."""
        nthreads = len(workers)
        run = engine.Run()
        lock = threading.Lock()
        answer: list[Answer] = []

        def won() -> bool:
            return bool(answer)

        def job(k: int, provers: tuple[str, ...]) -> Callable[[], Answer]:
            def go() -> Answer:
                a = self._prove(workers[k], run.abort, provers, mine, theirs, counter, s, limits[k], won)
                with lock:
                    if not answer:
                        answer.append(a)
                        run.abort[0] = 2  # stop the others
                return a
            return go

        if self.provers is not None:
            jobs = [job(k, self.provers[k]) for k in range(min(nthreads, len(self.provers)))]
        elif self.budget_limit == 0:
            jobs = [job(0, ("P", "F"))]  # small boards: the search of the real game, at once
        elif nthreads == 1:
            jobs = [job(0, ("D", "P", "F", "C"))]
        else:
            jobs = [job(k, ("D", "C") if k % 2 == 0 else ("P", "F")) for k in range(nthreads)]
        try:
            results = run.call_many(jobs, deadline=self.deadline, on_tick=self._tick, kernel="search_test")
        except KeyboardInterrupt:
            raise SearchStopped("interrupt", self.states) from None
        if answer:
            return answer[0]
        if run.timed_out:
            raise SearchStopped("time", self.states)
        reasons = [r.reason for r in results if isinstance(r, SearchStopped)]
        for r in results:
            if not isinstance(r, (SearchStopped, Answer)):
                raise r  # a bug: not a limit
        if reasons and all(r == "stack" for r in reasons):  # (a thread whose line outgrew the stack
            raise SearchStopped("stack", self.states)      # ends; the others may go on)
        if "abort" in reasons:
            raise SearchStopped("interrupt", self.states)
        if self.node_limit and self.states >= self.node_limit:
            raise SearchStopped("nodes", self.states)
        raise SearchStopped("budget", self.states)

    def test(self, mine: int, theirs: int, counter: int, s: int, node_limit: int = 0) -> tuple[bool, int]:
        """Is the mover's score at least s? (answer, a bound on the score that shows it).
        ``node_limit``: nodes this test may take. Raises :class:`SearchStopped`."""
        a = self.test_answer(mine, theirs, counter, s, node_limit)
        return a.holds, a.score

    # -- values and bounds ------------------------------------------------------------------------

    def _ending_moves(self, mine: int, theirs: int, counter: int) -> tuple[int, int | None, int]:
        """(best score, its move, moves) over the moves after which the game is over, can only be
        filled in by the side left (classic), or that the tablebases hold: their results are known
        without a search."""
        T = self.tables
        tb_max = int(self.tb[4][engine.tbprobe.T_MAX])
        moves = np.empty(engine.search.MAX_MOVES, np.int64)
        n = int(engine.kernels.gen_moves(np.uint64(mine), np.uint64(theirs), T.playable, T.adj, T.jmp, moves))
        known_moves: list[tuple[int, int]] = []  # (move, the child's score)
        held: list[tuple[int, int, int]] = []    # (move, child) of the children the tablebases hold
        for code in (int(c) for c in moves[:n]):
            nm, nt = (np.uint64(x) for x in engine.kernels.play(np.uint64(mine), np.uint64(theirs), np.int64(code),
                                                                 T.adj))
            nc = np.int64(engine.kernels.next_counter(np.int64(counter), np.int64(code), T.rules))
            over, score = engine.kernels.game_status(nm, nt, nc, T.playable, T.reach, T.rules)
            if over:
                known_moves.append((code, int(score) * M))
                continue
            known, child = engine.search.fill_out(nm, nt, T.playable, T.adj, T.rules)
            if known:
                known_moves.append((code, int(child)))
            elif (int(T.playable) & ~int(nm | nt)).bit_count() <= tb_max:
                held.append((code, int(nm), int(nt)))
        if held:
            scores = engine.tbprobe.table_scores(np.array([h[1] for h in held], np.uint64),
                                                 np.array([h[2] for h in held], np.uint64), self.tb)
            known_moves += [(h[0], int(sc)) for h, sc in zip(held, scores)]
        best, best_move = -INF_SCORE, None
        order = {int(c): k for k, c in enumerate(moves[:n])}
        for code, child in sorted(known_moves, key=lambda mc: order[mc[0]]):  # the first best in move order
            v = parent_score(-child)
            if v > best:
                best, best_move = v, code
        return best, best_move, n

    def bounds_of(self, mine: int, theirs: int, counter: int, outcome_only: bool = False,
                  lower: int | None = None, upper: int | None = None, move: int | None = None,
                  move_lower: int | None = None) -> SearchBounds:
        """Narrow the interval on the mover's value by tests until it is exact (or, with
        ``outcome_only``, until the outcome is proved) or a limit stops the search.

        Never raises for a limit: the bounds proved so far come back with ``stopped`` set.
        First what the moves that end the game prove, then the outcome (does the mover win?
        does it at least draw?), then the margin (:class:`~solver.oracles.narrowing.Narrowing`
        chooses each test). Tests get node budgets that grow fourfold: a test over its budget
        yields to the next question (the middle of the interval), so an easy question is not
        held up by a hard one; the table keeps what an aborted test found. ``lower``/``upper``:
        bounds already known (from a cache), ``move``/``move_lower``: a move known to prove
        ``move_lower``.
        """
        mine, theirs, counter = int(mine), int(theirs), int(counter)
        start_nodes = self.states
        t0 = time.monotonic()
        T = self.tables
        over, score = engine.kernels.game_status(np.uint64(mine), np.uint64(theirs), np.int64(counter), T.playable,
                                                 T.reach, T.rules)
        if over:
            return SearchBounds(int(score), int(score), None, int(score), 0, 0.0)
        known, fscore = engine.search.fill_out(np.uint64(mine), np.uint64(theirs), T.playable, T.adj, T.rules)
        if known:
            u = score_class(int(fscore))
            self._note_score(mine, theirs, counter, True, int(fscore))
            self._note_score(mine, theirs, counter, False, int(fscore))
            return SearchBounds(u, u, self._ending_moves(mine, theirs, counter)[1], u, 0, 0.0, None, 0.0)
        S = self.squares
        lo = -S if lower is None else max(-S, lower)
        hi = S if upper is None else min(S, upper)
        best_move, best_lower = (move, move_lower) if move is not None and move_lower is not None else (None, -S)
        # moves that end the game: proved at once
        ending, ending_move, nmoves = self._ending_moves(mine, theirs, counter)
        if ending_move is not None:
            u = score_class(ending)
            if u >= lo:
                lo = max(lo, u)
                self._note_score(mine, theirs, counter, True, ending)
            if u > best_lower:
                best_move, best_lower = ending_move, u
        if nmoves == 0 and best_move is None:
            best_move = -1  # a forced pass
        n = Narrowing(lo, hi, mine.bit_count() - theirs.bit_count(), outcome_only)
        self._status = SearchStatus(lo, hi, best_move)
        self._start, self._start_nodes = t0, start_nodes
        stopped = None
        budget = FIRST_BUDGET
        outcome_at = 0.0 if n.outcome_known() else None
        outcome_nodes = 0 if outcome_at is not None else None
        while not n.done:
            progressed = False
            for k in n.candidates():
                try:
                    a = self.test_answer(mine, theirs, counter, value_threshold(k), budget)
                except SearchStopped as stop:
                    if stop.reason == "budget":
                        continue
                    stopped = stop.reason
                    break
                self._note_score(mine, theirs, counter, a.holds, a.score)
                n.record(k, a.holds, score_class(a.score))
                if a.holds and a.move is not None and n.lo > best_lower:
                    best_move, best_lower = a.move, n.lo
                if outcome_at is None and n.outcome_known():
                    outcome_at = time.monotonic() - t0
                    outcome_nodes = self.states - start_nodes
                self._status.lower, self._status.upper = n.lo, n.hi
                self._status.best_move = best_move
                progressed = True
                break
            if stopped is not None:
                break
            if not progressed:
                budget *= 4
        if best_move is None:
            best_move = self.guess_move(mine, theirs, counter)
        self._status = None
        lo, hi = n.lo, n.hi
        return SearchBounds(lo, hi, best_move, best_lower, self.states - start_nodes, time.monotonic() - t0,
                            None if n.done else stopped, outcome_at, outcome_nodes)

    def _note_score(self, mine: int, theirs: int, counter: int, holds: bool, r: int) -> None:
        """Keep the bound a test proved on a position's composite score (for its depth later)."""
        key = (mine, theirs, counter)
        lo, hi = self._scores.get(key, (-INF_SCORE, INF_SCORE))
        if holds:
            lo = max(lo, r)
        else:
            hi = min(hi, r)
        self._scores[key] = (lo, hi)

    def guess_move(self, mine: int, theirs: int, counter: int) -> int:
        """The table's move for the position, else the first move in the search's order."""
        T = self.tables
        code = int(engine.search.table_move(self.tt, np.int64(self.squares), np.uint64(mine), np.uint64(theirs),
                                            np.int64(counter), np.int64(self.clock_kind), T.canon, T.syminv))
        moves = np.empty(engine.search.MAX_MOVES, np.int64)
        n = int(engine.kernels.gen_moves(np.uint64(mine), np.uint64(theirs), T.playable, T.adj, T.jmp, moves))
        if n == 0:
            return -1
        if code in moves[:n]:
            return code
        history = self.workers[0].history
        keys = [int(engine.search.order_key(np.uint64(mine), np.uint64(theirs), moves[i], T.adj, history))
                for i in range(n)]
        return int(moves[int(np.argmax(keys))])

    def bounds(self, p: Position, outcome_only: bool = False) -> Bounds:
        """:meth:`bounds_of` for a :class:`solver.game.rules.Position` (from its mover's side), starting
        from what earlier calls proved about it (moves are kept in the canonical orientation, so a
        symmetric or colour-inverted position gets them back in its own); an exact answer is kept
        for :meth:`lookup`."""
        mine, theirs, counter = self._bits(p)
        cm, ct, c, sym = self._key(mine, theirs, counter)
        key = (cm, ct, c)
        lower, upper, cmove, move_lower = self._bounds.get(key, (None, None, None, None))
        if lower is not None and lower == upper and cmove is not None:
            code = self._from_canonical(cmove, sym)
            return Bounds(lower, lower, None if code is None else code_move(code), move_lower)
        self._root = p
        try:
            b = self.bounds_of(mine, theirs, counter, outcome_only, lower, upper,
                               self._from_canonical(cmove, sym), move_lower)
        finally:
            self._root = None
        self._bounds[key] = (b.lower, b.upper, self._to_canonical(b.best_move, sym), b.best_lower)
        if b.exact:
            self._values[key] = b.lower
        return Bounds(b.lower, b.upper, None if b.best_move is None else code_move(b.best_move), b.best_lower,
                      b.nodes, b.seconds, b.stopped, b.outcome_seconds)

    def seed(self, p: Position, lower: int, upper: int, move: Move | None = None,
             move_lower: int | None = None) -> None:
        """Start later searches of p from bounds proved before (the mover's side; a move with
        its proved lower bound), for example read from a cache."""
        cm, ct, c, sym = self._key(*self._bits(p))
        key = (cm, ct, c)
        old = self._bounds.get(key)
        code = None if move is None else self._to_canonical(move_code(move), sym)
        bound = move_lower if code is not None and move_lower is not None else -self.squares
        if old is not None:
            lower, upper = max(lower, old[0]), min(upper, old[1])
            if old[2] is not None and old[3] >= bound:
                code, bound = old[2], old[3]
        self._bounds[key] = (lower, upper, code, bound)

    def value_of(self, mine: int, theirs: int, counter: int) -> int:
        """The value for the mover; raises LimitError with ``bounds``."""
        cm, ct, c, sym = self._key(mine, theirs, counter)
        key = (cm, ct, c)
        if key in self._values:
            return int(self._values[key])
        lower, upper, cmove, move_lower = self._bounds.get(key, (None, None, None, None))
        b = self.bounds_of(mine, theirs, counter, False, lower, upper, self._from_canonical(cmove, sym), move_lower)
        self._bounds[key] = (b.lower, b.upper, self._to_canonical(b.best_move, sym), b.best_lower)
        if not b.exact:
            raise self._limit_error(b)
        self._values[key] = b.lower
        return b.lower

    @contextlib.contextmanager
    def without_limits(self) -> Iterator[None]:
        """No deadline and no node limit within it (:meth:`solver.oracles.oracle.Oracle.without_limits`)."""
        limit, self.node_limit = self.node_limit, 0
        try:
            with super().without_limits():
                yield
        finally:
            self.node_limit = limit

    def proving_move(self, position: Position, s: int) -> tuple[Move, int] | None:
        """A move that proves the mover's score is at least s, with the score it proves: from the
        table's proved bounds when they show it (no search), else by a test. Raises LimitError."""
        mine, theirs, counter = self._bits(position)
        code, score = engine.search.proof_from_table(np.uint64(mine), np.uint64(theirs), np.int64(counter),
                                                      np.int64(s), self.geo, self.tt, np.int64(self.clock_kind),
                                                      self.tb)
        if int(code) != -2:
            return code_move(int(code)), int(score)
        a = self._test_or_raise(mine, theirs, counter, s)
        if not a[0]:
            return None
        code, score = engine.search.proof_from_table(np.uint64(mine), np.uint64(theirs), np.int64(counter),
                                                      np.int64(s), self.geo, self.tt, np.int64(self.clock_kind),
                                                      self.tb)
        if int(code) != -2:
            return code_move(int(code)), int(score)
        for move in position.legal_moves():  # the test's own move was not kept: ask each move
            child = position.push(move)
            result = child.result()
            if result is not None:
                if parent_score(-mover_value(child, result) * M) >= s:
                    return move, parent_score(-mover_value(child, result) * M)
                continue
            cm, ct, cc = self._bits(child)
            if not self._test_or_raise(cm, ct, cc, -widen(s) + 1)[0]:
                return move, s
        return None

    # -- a search saved to disk ------------------------------------------------------------------

    def save_tables(self, path: str | os.PathLike[str]) -> None:
        """Write what this search has found (its tables, the budgets its ladders reached and the
        bounds it proved) to ``path``, whole or not at all, so that a later run resumes from it
        (:meth:`load_tables`). Raises OSError."""
        header = {"board": board_id(self.tables.board), "rules": self.rules.name,
                  "symmetry": int(self.tables.nsym > 1), "nodes": self.states,
                  "ladder": [[*k[:4], k[4], v] for k, v in self._ladder.items()],
                  "scores": [[*k, *v] for k, v in self._scores.items()],
                  "bounds": [[*k, *v] for k, v in self._bounds.items()]}
        write_search_file(path, header, self.tt, self.dtt if self.dtt is not None else self.tt[:0])

    def load_tables(self, path: str | os.PathLike[str]) -> int:
        """Resume from what :meth:`save_tables` wrote: the tables (of the size they were saved at),
        the ladders' budgets and the bounds proved; returns the nodes that work took. Raises
        :class:`TableFileError` for a file of another board, rules or format, or a damaged one."""
        found, tt, dtt = read_search_file(path, board_id(self.tables.board), self.rules.name,
                                          int(self.tables.nsym > 1), engine.search.ENTRY_WORDS)
        self.tt = large_zeros(tt.shape, np.uint64)
        self.tt[:] = tt
        if dtt is not None:
            self.dtt = large_zeros(dtt.shape, np.uint64)
            self.dtt[:] = dtt
        self._ladder.update(found["ladder"])
        self._scores.update(found["scores"])
        self._bounds.update(found["bounds"])
        return found["nodes"]

    def stop_message(self, reason: str) -> str:  # noqa: D102 - the contract's
        """Why a search stopped, in a few words ('' for an interrupt)."""
        return {"time": "out of time", "nodes": f"the search went past {self.node_limit:,} nodes",
                "stack": f"a line of play outgrew the memory budget ({self.max_stack:,} plies)",
                "interrupt": ""}.get(reason, reason)

    def _limit_error(self, b: SearchBounds) -> BaseException:
        done = f"the search stopped after {self.states:,} nodes"
        why = self.stop_message(b.stopped or "")
        err: BaseException
        if b.stopped == "interrupt":
            err = KeyboardInterrupt()
        elif b.stopped == "time":
            err = TimeLimitError(f"{done}: {why}")
        elif b.stopped == "nodes":
            err = StateLimitError(why, self.states)
        elif b.stopped == "stack":
            err = MemoryLimitError(f"{done}: {why}")
        else:
            err = LimitError(done)
        err.bounds = b  # type: ignore[union-attr]  # what was proved, for a caller that wants it
        return err

    # -- depths, preferred moves and lines by tests -------------------------------------------

    def score_test(self, position: Position, s: int, budget: int = 0) -> tuple[bool, int]:
        """Can the mover force a composite score of at least ``s``? (the oracle contract: a test,
        its bound kept for later questions about the same position). Raises LimitError
        (:class:`solver.common.limits.BudgetError` past ``budget`` nodes)."""
        result = position.result()
        if result is not None:
            score = mover_value(position, result) * M
            return score >= s, score
        mine, theirs, counter = self._bits(position)
        try:
            a = self.test_answer(mine, theirs, counter, s, budget, inline=True)
        except SearchStopped as stop:
            if stop.reason == "budget":
                raise BudgetError(f"the question went past {budget:,} nodes") from None
            raise self._limit_error(SearchBounds(0, 0, None, 0, 0, 0.0, stop.reason)) from None
        self._note_score(mine, theirs, counter, a.holds, a.score)
        return a.holds, a.score

    def score_bounds(self, position: Position) -> tuple[int, int]:
        """The bounds on the mover's composite score that tests have proved so far."""
        return self._scores.get(self._bits(position), (-INF_SCORE, INF_SCORE))

    def _test_or_raise(self, mine: int, theirs: int, counter: int, s: int, value: int = 0) -> tuple[bool, int]:
        """:meth:`test`, a stop raised as the limit error (with ``value`` as the bounds, when known)."""
        try:
            return self.test(mine, theirs, counter, s)
        except SearchStopped as stop:
            raise self._limit_error(SearchBounds(value, value, None, value, 0, 0.0, stop.reason)) from None

    def value(self, p: Position) -> int:
        """The value for the side to move."""
        r = p.result()
        if r is not None:
            return mover_value(p, r)
        return self.value_of(*self._bits(p))

    def lookup(self, p: Position) -> tuple[int, float]:
        key = self._key(*self._bits(p))[:3]
        if key in self._results:
            return self._results[key]
        r = p.result()
        if r is not None:
            result: tuple[int, float] = (mover_value(p, r), 0)
        else:
            mine, theirs, counter = self._bits(p)
            u = self.value_of(mine, theirs, counter)
            if u:
                result = (u, abs(exact_score(self, p, u) - u * M))
            else:
                result = (u, draw_depth(self, p, self._draw_memo, self.draw_walk_limit))
        self._results[key] = result
        return result
