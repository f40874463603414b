"""The Solver: one object that chooses an algorithm for a position, runs it within limits and
returns a :class:`~solver.solve.report.Report` of what it proved.

>>> from solver import Limits, Solver
>>> report = Solver(limits=Limits(timeout=10)).solve("x...o")
>>> report.board.stops, str(report.board.orthodox)
((-3, 3), '0')

``ataxx-solve``, ``batch``, ``verify`` and ``bench`` are clients of this class: they choose
nothing and build no solver themselves. The algorithms (SPEC section 4):

- ``reference`` (:mod:`solver.oracles.reference`): plain Python, by definition; tiny positions.
- ``retro`` (:mod:`solver.oracles.retro`): every reachable position, solved backwards.
- ``search`` (:mod:`solver.oracles.search`): proofs by null-window tests, for boards too large
  to enumerate; under a limit it reports the interval it proved.
- ``auto`` (the default): the reference solver for a tiny estimate, retro when its tables fit
  the memory budget, the search otherwise (:func:`choose_algorithm`).

With ``tables`` (a :class:`~solver.tables.probe.Tablebase` or its directory), the positions the
tables hold are answered from them (the report's solver is ``tables``); the others are solved
as without them, except that the search probes the tables of the board at its leaves
(classic rules: :meth:`~solver.tables.probe.Tablebase.search_arrays`).
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Mapping
from math import comb
from pathlib import Path

from solver.cgt.gamevalue import DEFAULT_MAX_STATES, NoValue, game_value
from solver.common.limits import LimitError, Limits, default_memory_budget
from solver.game.rules import (
    CLASSIC,
    COUNTER_PLIES,
    O,
    Move,
    Position,
    Rules,
    Side,
    X,
    parse_rules,
    side_name,
)
from solver.io.formats import Entry, parse_position
from solver.oracles.exact import (
    DEPTH_BUDGET,
    DRAW_BUDGET,
    ExactLine,
    WalkLimitError,
    analysis_by_tests,
    draw_analysis_by_tests,
    optimal_by_tests,
)
from solver.oracles.oracle import STOP_REASONS, Oracle, ProgressCallback, StopReason, stop_reason
from solver.oracles.reference import ReferenceOracle
from solver.oracles.retro import RetroOracle
from solver.oracles.search import SearchOracle, load_probe_kernel
from solver.solve import certificate
from solver.solve.analysis import (
    Analyzer,
    Evaluation,
    Interval,
    Line,
    proved_outcome_class,
)
from solver.solve.report import BoardResult, Report, SideResult
from solver.tables.probe import Tablebase, TableOracle

ALGORITHMS = ("auto", "retro", "search", "reference")

# Bytes the retro engine needs per position of the estimate (the estimate is an upper
# bound; from the standard starts about a quarter of it is reachable, with ~15 moves each).
RETRO_BYTES_PER_ESTIMATED_STATE = 60
# Below this estimate the pure-Python reference is faster than loading the compiled engine.
TINY_ESTIMATE = 3000


def estimate_states(position: Position, boards: bool = False) -> int:
    """An upper bound on the positions reachable from ``position``: every way to fill the
    empty squares that are left or emptied later, up to symmetry, times the counter's range
    (not with ``boards``: the retro engine solves each board at every counter value at once).

    Jumps move empty squares anywhere, so a position with e empty squares can reach any
    board with at most e empty squares, coloured any way."""
    board = position.board
    s = board.playable.bit_count()
    e = position.empty.bit_count()
    total = sum(comb(s, k) * 2 ** (s - k) for k in range(e + 1))
    rules = position.rules
    if rules.counter is not None and not boards:
        total *= max(1, rules.limit - position.counter + 1) if rules.counter == COUNTER_PLIES else rules.limit + 1
    return max(1, total // len(board.symmetries))


def choose_algorithm(position: Position, max_memory: int | None = None) -> str:
    """The algorithm ``auto`` uses for a position: reference, retro or search."""
    budget = max_memory if max_memory is not None else default_memory_budget()
    if estimate_states(position) <= TINY_ESTIMATE:  # what the reference solver enumerates
        return "reference"
    return "retro" if estimate_states(position, boards=True) * RETRO_BYTES_PER_ESTIMATED_STATE <= budget else "search"


@functools.cache  # once per process for each algorithm and rule set
def warm_up(algorithm: str, rules: Rules = CLASSIC) -> None:
    """Compile (or load from the cache) the kernels an algorithm uses under ``rules`` (a counter
    has kernels of its own), so that a time limit and the time reported count the solving only:
    a whole solve of a tiny board for both sides, with and without the moves' values, since the
    analysis after the engine's run calls kernels of its own (the values of many positions at
    once, the options of the orthodox summary, the search's exact analysis). Warming up the
    engine alone left them to the first real solve: 12 to 25 s of the 4 x 3 board's reported
    time on a first run of positions/chen2002.txt (0.1 s on the next)."""
    if algorithm not in ("retro", "search"):
        return  # the reference solver compiles nothing; tables are probed by the caller's warm-up
    p = Position.start(1, 3, rules)
    for dominance in (False, True):
        oracle: Oracle = (RetroOracle(p.board, rules) if algorithm == "retro"
                          else SearchOracle(p.board, rules, tt_bits=10))
        _solve(Entry(p, (X, O)), Analyzer(oracle), None, dominance, False, None)
    if algorithm == "search":  # large boards race the proof-number search and the horizons' ladders
        search = SearchOracle(p.board, rules, tt_bits=10, budget_limit=8, threads=2)
        search.bounds(p)
        search.threads = 1
        search.bounds(p.replace(turn=O))
        dfpn = SearchOracle(p.board, rules, tt_bits=10, budget_limit=8, threads=1)
        dfpn.provers = [("D",)]  # the proof-number search alone: a tiny board's bounds never race it
        dfpn.test_answer(*dfpn._bits(p), 1)
        dfpn.tt_bits = 12
        dfpn._grow(1 << 10)  # the tables' growth (both tables: the proof numbers' exists now)
        search.guess_move(*search._bits(p))  # the table's move, asked for where no test proved one
        if rules.name == CLASSIC.name:
            load_probe_kernel()  # the driver's probe of the tablebases, used when there are some


class ConflictError(ValueError):
    """An argument that contradicts what the position says (its rules, its side to move); the
    message names both."""


def _where(entry: Entry) -> str:
    return "" if entry.source == "<input>" and entry.line == 1 else f" ({entry.source}:{entry.line})"


class Solver:
    """Solves positions: ``Solver(rules, algorithm, limits, progress, tables, orth_depth)``.

    ``rules``: the rule set of positions given as text without a ``rules:`` header (default:
    classic); a :class:`~solver.game.rules.Position` or an entry carries its own, and when
    ``rules`` is given, one under other rules is an error that names both (:class:`ConflictError`),
    never a silent choice. ``algorithm``: one of
    :data:`ALGORITHMS`. ``limits``: a :class:`~solver.common.limits.Limits` (states, memory,
    timeout per solve, deadline). ``progress``: called with a :class:`~solver.oracles.oracle.Progress`
    while an engine works (nothing is printed). ``tables``: answer from tablebases.
    ``orth_depth``: the depth of orthodox summaries (default: as deep as fits a line).
    ``threads``: how many threads one search uses (default: every processor).
    ``table_file``: a file the search resumes from, when it exists, and saves what it found to
    after each solve, so that several runs add up (:meth:`SearchOracle.save_tables`; raises
    :class:`~solver.oracles.searchfile.TableFileError` for a file it cannot use).
    """

    def __init__(self, rules: Rules | str | None = None, algorithm: str = "auto", limits: Limits | None = None,
                 progress: ProgressCallback | None = None, tables: Tablebase | str | Path | None = None,
                 orth_depth: int | None = None, threads: int | None = None,
                 table_file: str | Path | None = None):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r} (known: {', '.join(ALGORITHMS)})")
        self.rules_given = rules is not None  # then an entry under other rules is refused
        self.rules = CLASSIC if rules is None else parse_rules(rules) if isinstance(rules, str) else rules
        self.algorithm = algorithm
        self.limits = limits or Limits()
        self.progress = progress
        self.tables = Tablebase(tables) if isinstance(tables, (str, Path)) else tables
        self.orth_depth = orth_depth
        if self.limits.nodes is not None:
            if threads is not None and threads > 1:
                raise ValueError("a node budget (nodes) is the same on every machine only with one thread; "
                                 f"not {threads} threads")
            threads = 1
        self.threads = threads
        self.table_file = table_file

    def __repr__(self) -> str:
        return (f"Solver(rules={self.rules.name!r}, algorithm={self.algorithm!r}, limits={self.limits!r}"
                + (f", tables={str(self.tables.directory)!r}" if self.tables is not None else "") + ")")

    # -- what answers -------------------------------------------------------------------------

    def algorithm_for(self, position: Position) -> str:
        """The algorithm that answers for ``position``: 'tables' when the tables answer it
        (:meth:`~solver.tables.probe.Tablebase.answers_for`), else the one chosen."""
        if self.tables is not None and self.tables.answers_for(position):
            return "tables"
        if self.algorithm == "auto":
            return choose_algorithm(position, self.limits.max_memory)
        return self.algorithm

    def oracle(self, position: Position) -> Oracle:
        """A new oracle for positions on ``position``'s board under its rules, with the limits
        and the progress callback; its clock starts now (after the kernels are loaded, so a
        timeout counts the solving only)."""
        algorithm = self.algorithm_for(position)
        lim = self.limits
        oracle: Oracle
        if algorithm == "tables":
            assert self.tables is not None
            oracle = TableOracle(self.tables, position.board, position.rules)
        elif algorithm == "reference":
            oracle = ReferenceOracle(lim.state_limit, max_memory=lim.max_memory)
        elif algorithm == "retro":
            oracle = RetroOracle(position.board, position.rules, max_states=lim.state_limit, max_memory=lim.max_memory)
        else:
            probe = (self.tables.search_arrays(position.board, below=position.empty.bit_count())
                     if self.tables is not None and position.rules.name == CLASSIC.name else None)
            oracle = SearchOracle(position.board, position.rules, max_memory=lim.max_memory,
                                  node_limit=lim.state_limit or 0, threads=self.threads, probe_tables=probe,
                                  max_table=lim.search_table)
            if self.table_file is not None and os.path.exists(self.table_file):
                oracle.load_tables(self.table_file)
        warm_up(algorithm, position.rules)  # a first run compiles the kernels: not on the clock
        oracle.deadline = lim.deadline_from_now()
        oracle.progress = self.progress
        return oracle

    def analyzer(self, position: Position) -> Analyzer:
        """An :class:`~solver.solve.analysis.Analyzer` (SPEC sections 4 and 5) on a new :meth:`oracle`."""
        return Analyzer(self.oracle(position), orth_depth=self.orth_depth)

    def restart_clock(self, oracle: Oracle) -> None:
        """Give ``oracle`` a new deadline: ``timeout`` from now (for the next question); with a
        node budget (``limits.nodes``), the search's node limit restarts too: ``nodes`` more."""
        oracle.deadline = self.limits.deadline_from_now()
        if self.limits.nodes is not None and isinstance(oracle, SearchOracle):
            oracle.node_limit = oracle.states + (self.limits.state_limit or 0)

    def check_agrees(self, entry: Entry, sides: tuple[Side, ...] | None = None) -> None:
        """Raise :class:`ConflictError` when ``sides`` leave out the entry's side to move (an entry
        without one allows either), or when this Solver's rules were given and the entry's differ."""
        rules = entry.position.rules
        if self.rules_given and rules.name != self.rules.name:
            raise ConflictError(f"the position{_where(entry)} is under the {rules.name} rules, the Solver's are "
                                f"{self.rules.name}: read it under {self.rules.name} (or make the Solver "
                                f"without rules to solve it under its own)")
        if sides is not None and not entry.is_board and set(sides) != set(entry.sides):
            asked = " and ".join(side_name(s) for s in sides) or "no side"
            raise ConflictError(f"sides: {asked} to move asked, but the position{_where(entry)} has "
                                f"{side_name(entry.sides[0])} to move: leave out sides, or solve "
                                f"position.replace(turn=...) (an entry without a side to move allows either)")

    # -- solving ------------------------------------------------------------------------------

    def solve(self, what: Entry | Position | str, sides: tuple[Side, ...] | None = None, moves: bool = False,
              outcome_only: bool = False, known: Mapping[Side, SideResult] | None = None,
              analyzer: Analyzer | None = None, certify: bool = False, value: bool = False,
              cut_loops: bool = False) -> Report:
        """Solve a position: an :class:`~solver.io.formats.Entry` (read from a file), a
        :class:`~solver.game.rules.Position` (its side to move), or text in any input format (a
        board without a side to move is analysed for both sides).

        ``sides``: the sides to move to analyse (default: the entry's); with both, the board's
        stops, outcome class and orthodox summary too. ``moves``: every legal move's value, and
        which moves are dominated. ``outcome_only``: stop once the outcome is proved. ``known``:
        what an earlier run proved per side (a later search starts from it). ``analyzer``: solve
        with this one (from :meth:`analyzer`) instead of a new one, to reuse what it solved.
        ``certify``: also make a certificate of every bound proved (``report.claims``, each with
        the strategy that proves it, :mod:`solver.solve.certificate`; ``report.certificate_error``
        says why there is none when making it failed). ``value``: also the board's game value
        (``report.game_value``: canonical form, stops, mean, temperature, :mod:`solver.cgt.gamevalue`;
        ``report.game_value_note`` says why there is none), its work bounded by ``max_states``
        boards and by its own ``timeout``; ``cut_loops``: by Chen's convention instead (repetitions
        cut to 0, zugzwangs kept: the value of the game cut, which says so, never the default).

        Never raises for a limit (time, states, memory, Ctrl-C): each side then reports what
        was proved (its interval, the best move found and why it stopped). Raises
        :class:`ConflictError` when an argument contradicts what the position says: ``sides``
        that leave out its side to move, or this Solver's ``rules`` (when given) against the
        position's.
        """
        entry = _entry(what, self.rules)
        self.check_agrees(entry, sides)
        if analyzer is None:
            analyzer = self.analyzer(entry.position)
        report = _solve(entry, analyzer, sides, moves, outcome_only, known)
        if certify:
            _certify(report, analyzer.oracle)
        if value or cut_loops:
            try:
                report.game_value = game_value(entry.position, self.limits.max_states or DEFAULT_MAX_STATES,
                                               self.limits.deadline_from_now(), cut_loops)
            except NoValue as exc:
                report.game_value_note = exc.reason
            except KeyboardInterrupt:
                report.game_value_note = "not computed: interrupted"
        if self.table_file is not None and isinstance(analyzer.oracle, SearchOracle):
            analyzer.oracle.save_tables(self.table_file)  # OSError: the caller's
        return report


def _certify(report: Report, oracle: Oracle) -> None:
    """The claims of every bound the report proved, with their strategies (without the solve's
    limits: the proofs were found, the certificate reads them back; Ctrl-C still stops it)."""
    try:
        with oracle.without_limits():
            for res in report.sides:
                for side, bound in certificate.claims_to_prove(res.position, res.interval.lower, res.interval.upper):
                    report.claims.append(certificate.extract(oracle, res.position, side, bound))
    except (certificate.CertificateError, LimitError) as exc:
        report.claims = []
        report.certificate_error = str(exc) or STOP_REASONS[stop_reason(exc)]
    except KeyboardInterrupt:
        report.claims = []
        report.certificate_error = "interrupted"


def _entry(what: Entry | Position | str, rules: Rules) -> Entry:
    if isinstance(what, Entry):
        return what
    if isinstance(what, Position):
        return Entry(what, (what.turn,))
    return parse_position(what, rules=rules)


def _solve(entry: Entry, analyzer: Analyzer, sides: tuple[Side, ...] | None, dominance: bool,
           outcome_only: bool, known: Mapping[Side, SideResult] | None) -> Report:
    """The work of :meth:`Solver.solve`. With an oracle that proves bounds (the search
    engine), each side's interval comes first (the outcome, then the margin), then, when it is
    exact, its depth, moves and line; otherwise the analysis of SPEC sections 4 and 5."""
    start = time.perf_counter()
    sides = sides or entry.sides
    roots = [entry.position.replace(turn=s) for s in sides]
    oracle = analyzer.oracle
    squares = entry.position.board.playable.bit_count()
    results = [SideResult(p, Interval.unknown(squares)) for p in roots]
    proves_bounds = oracle.proves_bounds
    limited = oracle.deadline is not None or bool(getattr(oracle, "node_limit", 0))
    stopped = None
    stop_message = None
    try:
        oracle.prepare(roots, both_sides=len(sides) == 2)
    except (LimitError, KeyboardInterrupt) as exc:
        stopped = stop_reason(exc)
        stop_message = str(exc) or None
    if stopped is None and proves_bounds:
        for res in results:
            hit = (known or {}).get(res.side)
            if hit is not None:
                p = res.position
                lower, upper = hit.interval.for_mover(p.turn)
                move = bound = None
                if hit.best_move is not None and hit.best_bound is not None and p.is_legal(hit.best_move):
                    move = hit.best_move
                    bound = hit.best_bound if p.turn == X else -hit.best_bound
                oracle.seed(p, lower, upper, move, bound)
        # 1. the interval of each side, the time left shared between the sides still to do
        deadline = oracle.deadline
        for k, res in enumerate(results):
            p = res.position
            result = p.result()
            if result is not None:
                res.interval = Interval(result, result, squares)
                continue
            if deadline is not None:
                oracle.deadline = time.monotonic() + (deadline - time.monotonic()) / (len(results) - k)
            nodes0, began = oracle.states, time.perf_counter()
            b = oracle.bounds(p, outcome_only=outcome_only)
            res.value_seconds = time.perf_counter() - began
            res.interval = Interval.from_mover(p.turn, b.lower, b.upper, squares)
            res.nodes = oracle.states - nodes0
            res.stopped = b.stopped
            res.stop_message = oracle.stop_message(b.stopped) if b.stopped else None
            if b.best_move is not None:
                res.best_move = b.best_move
                res.best_bound = b.best_lower if p.turn == X else -b.best_lower
            if b.stopped == StopReason.INTERRUPT:
                stopped = StopReason.INTERRUPT
                break
        oracle.deadline = deadline
    # 2. the whole analysis: value, depth, moves and line (exact intervals only, for the search engine)
    for res in results:
        p = res.position
        if stopped is not None or (proves_bounds and (outcome_only or not res.exact)):
            if stopped is not None and res.stopped is None and not res.exact:
                res.stopped, res.stop_message = stopped, stop_message
            continue
        nodes0, began = oracle.states, time.perf_counter()
        keeps = res.best_move if res.best_bound == res.interval.lower else None  # (a move known to keep the value)
        try:
            if proves_bounds and not p.is_over():
                fast = _exact_analysis(oracle, p, res.interval.lower * p.turn.sign, keeps, limited)
                end = p
                for m in fast.line:
                    end = end.push(m)
                res.optimal_moves = fast.optimal_moves
                res.tied_moves = fast.tied_moves
                res.evaluation = Evaluation(res.interval.lower, fast.depth)
                res.best_move, res.best_bound = fast.best_move, res.interval.lower
                res.line = Line(p, fast.line, end, repeated=fast.repeated)
                if dominance:  # every move's value and depth: a limit here keeps what is proved above
                    try:
                        res.moves = analyzer.moves(p, dominance=dominance)
                    except (LimitError, KeyboardInterrupt) as exc:
                        res.moves_stopped = stop_reason(exc)
                        res.moves_stop_message = oracle.stop_message(res.moves_stopped) or str(exc) or None
                        if res.moves_stopped == StopReason.INTERRUPT:
                            stopped = StopReason.INTERRUPT
            else:
                res.evaluation = analyzer.evaluate(p)
                res.interval = Interval(res.evaluation.value, res.evaluation.value, squares)
                res.moves = analyzer.moves(p, dominance=dominance)
                res.line = analyzer.principal_variation(p)
                res.optimal_moves = [m.move for m in res.moves if m.optimal]
                if res.best is not None:
                    res.best_move = res.best.move
                    res.best_bound = res.evaluation.value
                    res.tied_moves = [m.move for m in res.moves if m.optimal and m.depth == res.best.depth]
            res.stopped = None
        except (LimitError, KeyboardInterrupt) as exc:
            res.moves = []
            res.line = None
            res.stopped = stop_reason(exc)
            if hasattr(exc, "optimal_moves"):  # found before the depth's search went on to the limit
                res.optimal_moves = exc.optimal_moves
            elif res.stopped == StopReason.DEPTH:  # the value is exact: the moves that keep it, if they show soon
                try:
                    res.optimal_moves = optimal_by_tests(oracle, p, res.interval.lower * p.turn.sign, keeps)
                except KeyboardInterrupt:
                    res.stopped = StopReason.INTERRUPT
            if proves_bounds:  # the side's nodes count the analysis too; the message says why only
                res.nodes += oracle.states - nodes0
                if res.stopped != StopReason.DEPTH:
                    res.stop_message = oracle.stop_message(res.stopped) or None
                elif isinstance(exc, WalkLimitError):  # the walk's positions (they take memory)
                    res.stop_message = f"{exc} (the value is exact)"
                elif str(exc).startswith("the depth of this draw"):  # the walk's own budget
                    res.stop_message = f"{exc} (the value is exact; with --timeout or --nodes it may search until that limit)"
                else:
                    res.stop_message = (f"the depth needs a test of more than {DEPTH_BUDGET:,} nodes (the value is exact;"
                                        " with --timeout or --nodes the depth may search until that limit)")
            else:
                res.stop_message = str(exc) or None
            if res.stopped == StopReason.INTERRUPT:
                stopped = StopReason.INTERRUPT
        if proves_bounds:
            res.depth_seconds = time.perf_counter() - began
    board = None
    if len(sides) == 2:
        a, b2 = results[0].interval, results[1].interval
        stops = (a.lower, b2.lower) if a.exact and b2.exact else None
        orth = why = None
        if stops is not None and stopped is None and not outcome_only:
            try:
                orth = analyzer.summary(entry.position)
            except (LimitError, KeyboardInterrupt) as exc:
                why = str(exc) or STOP_REASONS[stop_reason(exc)]
                if isinstance(exc, KeyboardInterrupt):
                    results[0].stopped = results[0].stopped or StopReason.INTERRUPT
        board = BoardResult(stops, proved_outcome_class(a, b2), orth, stopped=why)
    for res in results:
        _moves_on_board(res)
    failures = check_expect(entry, results, board)
    return Report(entry, oracle.name, results, board, oracle.states, time.perf_counter() - start, failures,
                  oracle.unit)


def _exact_analysis(oracle: Oracle, p: Position, value: int, keeps: Move | None, limited: bool) -> ExactLine:
    """The depth, preferred move, line and optimal moves of p (its value for the mover exact),
    by tests, first within the depth's own node budgets. Where the caller set a limit (a time or
    node limit: how long it chose to wait), past a budget the moves that keep the value are found
    (as without a limit), then the depth is searched again until the limit; a limit that stops
    that search raises with those moves in its ``optimal_moves``. Raises LimitError."""
    def analysis(budget: int, draw_budget: int) -> ExactLine:
        if value:
            return analysis_by_tests(oracle, p, value, budget)
        return draw_analysis_by_tests(oracle, p, draw_budget, test_budget=budget)

    try:
        return analysis(DEPTH_BUDGET, DRAW_BUDGET)
    except LimitError as exc:  # (a draw's walk past its positions would stop there again)
        if not limited or stop_reason(exc) != StopReason.DEPTH or isinstance(exc, WalkLimitError):
            raise
    optimal = optimal_by_tests(oracle, p, value, keeps)
    try:
        return analysis(0, 0)
    except (LimitError, KeyboardInterrupt) as exc:
        exc.optimal_moves = optimal  # type: ignore[union-attr]
        raise


def _moves_on_board(res: SideResult) -> None:
    """Every move of ``res`` knowing its board (engines answer bare squares), so that it prints as notation."""
    board = res.position.board
    if res.best_move is not None:
        res.best_move = res.best_move.on(board)
    for name in ("optimal_moves", "tied_moves"):
        moves = getattr(res, name)
        if moves is not None:
            setattr(res, name, [m.on(board) for m in moves])
    if res.line is not None:
        res.line.moves[:] = [m.on(board) for m in res.line.moves]


def check_expect(entry: Entry, sides: list[SideResult], board: BoardResult | None) -> list[str]:
    """The ``expect:`` items that the solution contradicts or could not settle, as readable sentences."""
    failures = []
    by_side = {s.side: s.interval for s in sides}
    orthodox = None if board is None else board.orthodox_name
    for key, want in entry.expect.items():
        if key in ("x", "o", "value"):
            if key == "value" and len(by_side) != 1:
                failures.append("expect value= needs a side to move")
                continue
            side = entry.position.turn if key == "value" else Side(key)
            got = by_side.get(side)
            if got is None:
                failures.append(f"expect {key}={want}, but {side_name(side)} to move was not analysed")
                continue
            lower, upper = got.lower, got.upper
            if lower == upper:
                if lower != want:
                    failures.append(f"expect {key}={want}, solved {lower}")
            elif not lower <= want <= upper:
                failures.append(f"expect {key}={want}, proved {got.text()}")
            else:
                failures.append(f"expect {key}={want} not settled: proved {got.text()} only")
        elif key in ("ce", "bm"):  # an EPD line's (solver.io.epd): the value from the side to move, the best moves
            res = next((s for s in sides if s.side == entry.position.turn), None)
            if res is None or not res.exact:
                failures.append(f"EPD {key} not settled: proved {res.interval.text() if res else 'nothing'} only")
            elif key == "ce" and res.interval.lower * entry.position.turn.sign != want:
                failures.append(f"EPD ce {want}, solved {res.interval.lower * entry.position.turn.sign} "
                                "(from the side to move)")
            elif key == "bm" and res.optimal_moves is None:
                failures.append("EPD bm not settled: the optimal moves are not known (only the preferred one)")
            elif key == "bm":
                optimal = res.optimal_names
                wrong = [m for m in want if m not in optimal]
                missing = [m for m in optimal if m not in want]
                if wrong:
                    failures.append(f"EPD bm {' '.join(wrong)} not optimal (optimal: {' '.join(optimal) or 'none'})")
                if missing:
                    failures.append(f"EPD bm leaves out the optimal move(s) {' '.join(missing)}")
        elif key == "orthodox":
            if orthodox is None:
                failures.append("expect orthodox= needs a board without a side to move, solved exactly")
            elif orthodox != want:
                failures.append(f"expect orthodox={want}, solved {orthodox}")
    return failures
