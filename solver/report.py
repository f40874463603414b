"""Solving one input entry into a :class:`Report`, and printing reports as text or JSON.

The CLI prints what :func:`solve_entry` returns; the same objects are the Python
API for everything the CLI shows. The JSON keys are documented in README.md.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .analysis import OUTCOME_CLASSES, Analyzer, Evaluation, Interval, Line, MoveInfo, Summary, outcome_class
from .formats import Entry, printable, write_fen, write_grid
from .notation import Game, game_name, game_to_json, marks, signed, tree_lines
from .rules import X, Move, Position, side_name


@dataclass
class SideResult:
    """Everything about one side to move.

    ``interval`` is what was proved about the value (X's side); when it is exact and the
    analysis ran to the end, ``evaluation`` (value and depth), ``moves`` (every legal move,
    best first) and ``line`` are there too. ``best_move`` is the preferred move when the
    analysis finished, else the best move the search found, whose value is proved to be at
    least (X to move) or at most (O to move) ``best_bound``. ``stopped`` says why the work
    ended early: 'time', 'nodes', 'memory' or 'interrupt' (None when nothing stopped it).
    """

    position: Position
    interval: Interval
    evaluation: Evaluation | None = None
    moves: list[MoveInfo] = field(default_factory=list)
    line: Line | None = None
    best_move: Move | None = None
    best_bound: int | None = None
    optimal_moves: list[Move] | None = None
    stopped: str | None = None
    stop_message: str | None = None
    nodes: int = 0

    @property
    def side(self) -> str:
        return self.position.turn

    @property
    def exact(self) -> bool:
        return self.interval.exact

    @property
    def best(self) -> MoveInfo | None:
        """The preferred move's row of the move table (when the table was made)."""
        return next((m for m in self.moves if m.preferred), None)

    @property
    def optimal_names(self) -> list[str]:
        return [self.position.move_name(m) for m in self.optimal_moves or []]

    @property
    def best_move_name(self) -> str | None:
        return None if self.best_move is None else self.position.move_name(self.best_move)


@dataclass
class BoardResult:
    """A board without a side to move: its stops, outcome class and orthodox summary
    (None where they are not proved)."""

    stops: tuple[int, int] | None
    outcome_class: str | None
    summary: Summary | None
    stopped: str | None = None  # why the summary was not computed, when a limit stopped it

    @property
    def orthodox(self) -> Game | None:
        """The summary's tree (what JSON, batch and ``expect:`` use), when it was computed."""
        return None if self.summary is None else self.summary.tree


@dataclass
class Report:
    entry: Entry
    engine: str
    sides: list[SideResult]
    board: BoardResult | None
    states: int
    seconds: float
    expect_failures: list[str] = field(default_factory=list)
    unit: str = "positions"  # what ``states`` counts (retro under a counter: boards, at every count)

    @property
    def position(self) -> Position:
        return self.entry.position

    @property
    def exact(self) -> bool:
        """Every side's value is proved exactly (and, for a board, its summary is known)."""
        return all(s.exact for s in self.sides) and (self.board is None or self.board.orthodox is not None)

    @property
    def outcomes_proved(self) -> bool:
        return all(s.interval.outcome_proved for s in self.sides)

    @property
    def interrupted(self) -> bool:
        return any(s.stopped == "interrupt" for s in self.sides)


def check_expect(entry: Entry, sides: list[SideResult], board: BoardResult | None) -> list[str]:
    """The ``expect:`` items that the solution contradicts or could not settle, as readable sentences."""
    return check_expect_values(entry, {s.side: (s.interval.lower, s.interval.upper) for s in sides},
                               game_name(board.orthodox) if board and board.orthodox else None)


def check_expect_values(entry: Entry, by_side: dict, orthodox: str | None) -> list[str]:
    """:func:`check_expect` from what was proved per side analysed (a value, or (lower, upper))
    and the orthodox summary's name."""
    failures = []
    for key, want in entry.expect.items():
        if key in ("x", "o", "value"):
            if key == "value" and len(by_side) != 1:
                failures.append("expect value= needs a side to move")
                continue
            side = entry.position.turn if key == "value" else key
            got = by_side.get(side)
            if got is None:
                failures.append(f"expect {key}={want}, but {side_name(key)} to move was not analysed")
                continue
            lower, upper = got if isinstance(got, tuple) else (got, got)
            if lower == upper:
                if lower != want:
                    failures.append(f"expect {key}={want}, solved {lower}")
            elif not lower <= want <= upper:
                failures.append(f"expect {key}={want}, proved {signed(lower)}..{signed(upper)}")
            else:
                failures.append(f"expect {key}={want} not settled: proved {signed(lower)}..{signed(upper)} only")
        elif key == "orthodox":
            if orthodox is None:
                failures.append("expect orthodox= needs a board without a side to move, solved exactly")
            elif orthodox != want:
                failures.append(f"expect orthodox={want}, solved {orthodox}")
    return failures


_STOP_REASONS = {"time": "out of time", "nodes": "the node limit", "budget": "the node limit",
                 "memory": "the memory budget", "stack": "the memory budget", "states": "the state limit",
                 "interrupt": "interrupted"}


def _stop_reason(exc: BaseException) -> str:
    from .limits import MemoryLimitError, StateLimitError, TimeLimitError

    if isinstance(exc, KeyboardInterrupt):
        return "interrupt"
    if isinstance(exc, TimeLimitError):
        return "time"
    if isinstance(exc, MemoryLimitError):
        return "memory"
    if isinstance(exc, StateLimitError):
        return "nodes" if "node" in str(exc) else "states"
    return "limit"


def _x_interval(p: Position, lower: int, upper: int, squares: int) -> Interval:
    return Interval(lower, upper, squares) if p.turn == X else Interval(-upper, -lower, squares)


def solve_entry(entry: Entry, analyzer: Analyzer, sides: tuple[str, ...] | None = None,
                dominance: bool = False, outcome_only: bool = False, progress=None, known: dict | None = None) -> Report:
    """Solve an entry for the given sides (default: the entry's), with the board summary
    when both sides are analysed; with ``dominance``, the move lists say which moves are dominated.

    Never raises for a limit (time, nodes, memory, Ctrl-C): each side then reports what was
    proved (its :class:`Interval`, the best move found and the reason it stopped). With an
    oracle that proves bounds (the search engine), each side's interval comes first (the
    outcome, then the margin), then, when it is exact, its depth, moves and line; with
    ``outcome_only``, the work stops once the outcome is proved. ``progress(side, status)``
    is called with the search's :class:`~solver.engine.search.SearchStatus` while it runs.
    ``known`` maps a side to what an earlier run proved (a :class:`~solver.cache.CachedSide`):
    the search starts from it.
    """
    from .limits import LimitError

    start = time.perf_counter()
    sides = sides or entry.sides
    roots = [entry.position.replace(turn=s) for s in sides]
    oracle = analyzer.oracle
    squares = entry.position.board.playable.bit_count()
    results = [SideResult(p, Interval.unknown(squares)) for p in roots]
    proves_bounds = hasattr(oracle, "bounds")
    stopped = None
    stop_message = None
    try:
        oracle.prepare(roots, both_sides=len(sides) == 2)
    except (LimitError, KeyboardInterrupt) as exc:
        stopped = _stop_reason(exc)
        stop_message = str(exc) or None
    if stopped is None and proves_bounds:
        for res in results:
            hit = (known or {}).get(res.side)
            if hit is not None:
                p = res.position
                lower, upper = (hit.lower, hit.upper) if p.turn == X else (-hit.upper, -hit.lower)
                move = bound = None
                if hit.best is not None and hit.best_bound is not None:
                    try:
                        move = p.parse_move(hit.best)
                        bound = hit.best_bound if p.turn == X else -hit.best_bound
                    except ValueError:
                        move = None
                oracle.seed(p, lower, upper, move, bound)
        # 1. the interval of each side, the time left shared between the sides still to do
        deadline = getattr(oracle, "deadline", None)
        for k, res in enumerate(results):
            p = res.position
            if p.is_over():
                res.interval = _x_interval(p, *([p.result() if p.turn == X else -p.result()] * 2), squares)
                continue
            if deadline is not None:
                oracle.deadline = time.monotonic() + (deadline - time.monotonic()) / (len(results) - k)
            oracle.progress = None if progress is None else (lambda st, side=p.turn: progress(side, st))
            nodes0 = oracle.states
            b = oracle.bounds(p, outcome_only=outcome_only)
            oracle.progress = None
            res.interval = _x_interval(p, b.lower, b.upper, squares)
            res.nodes = oracle.states - nodes0
            res.stopped = b.stopped
            res.stop_message = oracle.stop_message(b.stopped) if b.stopped else None
            if b.best_move is not None:
                from .engine.tables import code_move

                res.best_move = code_move(b.best_move)
                res.best_bound = b.best_lower if p.turn == X else -b.best_lower
            if b.stopped == "interrupt":
                stopped = "interrupt"
                break
        if deadline is not None:
            oracle.deadline = deadline
    # 2. the whole analysis: value, depth, moves and line (exact intervals only, for the search engine)
    for res in results:
        p = res.position
        if stopped is not None or (proves_bounds and (outcome_only or not res.exact)):
            if stopped is not None and res.stopped is None and not res.exact:
                res.stopped, res.stop_message = stopped, stop_message
            continue
        try:
            if proves_bounds and not dominance and res.interval.lower != 0 and not p.is_over():
                _analyse_by_tests(oracle, res)
            else:
                res.evaluation = analyzer.evaluate(p)
                res.interval = Interval(res.evaluation.value, res.evaluation.value, squares)
                res.moves = analyzer.moves(p, dominance=dominance)
                res.line = analyzer.principal_variation(p)
                res.optimal_moves = [m.move for m in res.moves if m.optimal]
                if res.best is not None:
                    res.best_move = res.best.move
                    res.best_bound = res.evaluation.value
            res.stopped = None
        except (LimitError, KeyboardInterrupt) as exc:
            res.moves = []
            res.line = None
            res.stopped = _stop_reason(exc)
            res.stop_message = str(exc) or None
            if res.stopped == "interrupt":
                stopped = "interrupt"
    board = None
    if len(sides) == 2:
        a, b = results[0].interval, results[1].interval
        stops = (a.lower, b.lower) if a.exact and b.exact else None
        orth = why = None
        if stops is not None and stopped is None and not outcome_only:
            try:
                orth = analyzer.summary(entry.position)
            except (LimitError, KeyboardInterrupt) as exc:
                why = str(exc) or _STOP_REASONS[_stop_reason(exc)]
                if isinstance(exc, KeyboardInterrupt):
                    results[0].stopped = results[0].stopped or "interrupt"
        board = BoardResult(stops, proved_outcome_class(a, b), orth, why)
    failures = check_expect(entry, results, board)
    return Report(entry, oracle.name, results, board, oracle.states, time.perf_counter() - start, failures,
                  getattr(oracle, "unit", "positions"))


def _analyse_by_tests(oracle, res: SideResult) -> None:
    """Depth, preferred move, optimal moves and line of a side whose value is exact and not 0,
    by null-window tests of the search engine (a test per move, instead of every move's
    value and depth)."""
    p = res.position
    value = res.interval.lower  # X's side
    u = value if p.turn == X else -value
    res.optimal_moves = [m for m in p.legal_moves() if oracle.keeps_value(p, m, u)]
    score = oracle.exact_score(p)
    depth = abs(score - u * (1 << 20))
    best = oracle.preferred(p, score)
    moves = oracle.line(p, score)
    end = p
    for m in moves:
        end = end._apply(m)
    res.evaluation = Evaluation(value, depth)
    res.best_move, res.best_bound = best, value
    res.line = Line(p, moves, end)


def proved_outcome_class(a: Interval, b: Interval) -> str | None:
    """The outcome class (SPEC section 5) from the intervals with X and with O to move, if they prove it."""
    if a.lower > 0 and b.lower > 0:
        return "x"
    if a.upper < 0 and b.upper < 0:
        return "o"
    if a.lower > 0 and b.upper < 0:
        return "first"
    if a.upper < 0 and b.lower > 0:
        return "second"
    if a.exact and b.exact:
        return outcome_class(a.lower, b.lower)
    return None


# -- text -----------------------------------------------------------------------------------------

def _depth_text(depth: int | None) -> str:
    return "infinite" if depth is None else str(depth)


def line_text(line: Line) -> str:
    names = " ".join(line.names()) or "(no moves: the game is over)"
    if line.repeated:
        return f"{names} (repeats: play goes on forever)"
    end = line.end.result()
    return f"{names} (ends {signed(end)})" if line.moves else names


def move_table_text(side: SideResult) -> list[str]:
    rows = []
    width = max((len(m.name) for m in side.moves), default=4)
    for m in side.moves:
        mark = "*" if m.preferred else "=" if m.optimal else " "
        note = f"  stops {signed(m.stops[0])}/{signed(m.stops[1])}" if m.stops else ""
        note += " dominated" if m.dominated else ""
        rows.append(f"    {mark} {m.name:<{width}}  {signed(m.value):>4}  {m.describe():<24} "
                    f"depth {_depth_text(m.depth)}{note}")
    return rows


_HINTS = {"time": "raise --timeout to go further", "nodes": "raise --max-states to go further",
          "states": "raise --max-states to go further", "memory": "raise --max-memory to go further"}


def stop_text(s: SideResult) -> str:
    """Why a side's work stopped, and what to raise to go further ('' if nothing stopped it)."""
    if s.stopped is None:
        return ""
    text = s.stop_message or _STOP_REASONS.get(s.stopped, s.stopped)
    hint = _HINTS.get(s.stopped)
    return f"{text} ({hint})" if hint else text


def side_text(s: SideResult, show_moves: bool = False) -> list[str]:
    out = []
    name = side_name(s.side)
    ev = s.evaluation
    if ev is not None and s.line is not None:
        out.append(f"{name} to move: {ev.describe()} (value {signed(ev.value)}), depth {_depth_text(ev.depth)}")
        if s.best_move is not None:
            others = [n for n in s.optimal_names if n != s.best_move_name]
            extra = f" (also optimal: {', '.join(others)})" if others else ""
            out.append(f"  best move: {s.best_move_name}{extra}")
            out.append(f"  line: {line_text(s.line)}")
        else:
            out.append("  the game is over")
        if show_moves and s.moves:
            out.append("  moves (* preferred, = optimal; stops: the board's values with X / O to move):")
            out.extend(move_table_text(s))
        return out
    iv = s.interval
    if iv.exact:
        out.append(f"{name} to move: {iv.describe()} (value {iv.text()}), depth not computed")
    else:
        out.append(f"{name} to move: {iv.describe()} (value {iv.text()}, not exact)")
    if iv.exact and s.optimal_moves:
        names = ", ".join(s.optimal_names)
        out.append(f"  optimal moves: {names} (the preferred one needs the depth)")
    elif s.best_move is not None:
        if iv.exact and s.best_bound == iv.lower:
            out.append(f"  optimal move: {s.best_move_name} (keeps the value; the preferred one needs the depth)")
        else:
            if s.best_bound is None or abs(s.best_bound) >= iv.squares:
                proved = "no bound proved for it"
            else:
                proved = f"value {'at least' if s.side == X else 'at most'} {signed(s.best_bound)}"
            out.append(f"  best move found: {s.best_move_name} ({proved})")
    why = stop_text(s)
    done = f" after {s.nodes:,} nodes" if s.nodes else ""
    out.append(f"  stopped{done}: {why}" if why else f"  proved in {s.nodes:,} nodes")
    return out


def summary_text(summary: Summary, tree: bool = False, width: int = 100) -> list[str]:
    """The orthodox summary for people: one line, or with ``tree`` an indented tree; then what
    its marks mean, when it has any."""
    if tree:
        out = ["orthodox summary (X: X's option, O: O's option):"]
        out += ["  " + line for line in tree_lines(summary.tree, width)]
        g, depth = summary.tree, summary.tree_depth
    else:
        g, depth = summary.line, summary.line_depth
        out = [f"orthodox summary: {game_name(g)}"]
    found = marks(g)
    if "cut" in found:
        more = "--orth-depth N" if tree else "--orth-depth N or --orth-format tree"
        out.append(f"  ...  = cut at depth {depth} ({more} shows more)")
    if "loop" in found:
        out.append("  loop = a board already on the path from the root (expanding it would repeat)")
    return out


def report_text(report: Report, show_moves: bool = False, orth_tree: bool = False) -> str:
    e = report.entry
    title = e.name or "position"
    out = [f"== {title} ({e.source}:{e.line}) ==", write_grid(e.position, coordinates=True)]
    counter = f", counter {e.position.counter}" if e.position.rules.counter else ""
    out.append(f"rules: {e.position.rules.name}{counter}")
    for s in report.sides:
        out.extend(side_text(s, show_moves))
    board = report.board
    if board is not None:
        if board.stops is not None:
            a, b = board.stops
            out.append(f"outcome class: {OUTCOME_CLASSES[board.outcome_class]} "
                       f"(X first: {signed(a)}, O first: {signed(b)})")
        elif board.outcome_class is not None:
            a, b = report.sides[0].interval, report.sides[1].interval
            out.append(f"outcome class: {OUTCOME_CLASSES[board.outcome_class]} "
                       f"(X first: {a.text()}, O first: {b.text()})")
        else:
            out.append("outcome class: not proved")
        if board.summary is not None:
            out.extend(summary_text(board.summary, orth_tree))
        else:
            out.append("orthodox summary: not computed" + (f" (stopped: {board.stopped})" if board.stopped else ""))
    for f in report.expect_failures:
        out.append(f"EXPECT FAILED: {f}")
    if e.expect and not report.expect_failures:
        out.append("expect: ok")
    what = "searched" if report.unit == "nodes" else "solved"
    out.append(f"{what} {report.states:,} {report.unit} in {report.seconds:.2f} s ({report.engine})")
    # Names, file names and expectations come from the input: no control character reaches a terminal.
    return "\n".join(printable(line) for line in "\n".join(out).split("\n"))


# -- JSON -----------------------------------------------------------------------------------------

def move_json(m: MoveInfo) -> dict:
    return {"move": m.name, "value": m.value, "outcome": Evaluation(m.value, None if m.depth is None else 0).outcome,
            "depth": m.depth, "optimal": m.optimal, "preferred": m.preferred, "dominated": m.dominated,
            "stops": None if m.stops is None else {"x": m.stops[0], "o": m.stops[1]}}


def side_json(s: SideResult, show_moves: bool = False) -> dict:
    """One side's facts: ``lower``, ``upper``, ``exact`` always; ``value`` only when exact; ``depth``
    only when known (null: infinite play); the rest when the analysis got that far."""
    iv = s.interval
    out: dict = {"lower": iv.lower, "upper": iv.upper, "exact": iv.exact}
    if iv.exact:
        out["value"] = iv.lower
    ev = s.evaluation
    out["outcome"] = ev.outcome if ev is not None else iv.outcome
    if ev is not None:
        out["depth"] = ev.depth
    out["best_move"] = s.best_move_name
    if s.best_move is not None and s.best_bound is not None and abs(s.best_bound) < iv.squares:
        out["best_move_bound"] = {"lower" if s.side == X else "upper": s.best_bound}
    if s.optimal_moves is not None:
        out["optimal_moves"] = s.optimal_names
    if s.line is not None:
        out["pv"] = s.line.names()
        out["pv_repeats"] = s.line.repeated
    if s.stopped is not None:
        out["stopped"] = s.stopped
    out["nodes"] = s.nodes
    if show_moves and s.moves:
        out["moves"] = [move_json(m) for m in s.moves]
    return out


def report_json(report: Report, show_moves: bool = False) -> dict:
    e = report.entry
    p = e.position
    out = {
        "name": e.name,
        "source": e.source,
        "line": e.line,
        "rules": p.rules.name,
        "fen": write_fen(p),
        "rows": p.board.rows,
        "cols": p.board.cols,
        "grid": write_grid(p).split("\n"),
        "counter": p.counter,
        "sides": {s.side: side_json(s, show_moves) for s in report.sides},
    }
    board = report.board
    if board is not None:
        if board.stops is not None:
            out["stops"] = {"x": board.stops[0], "o": board.stops[1]}
        out["outcome_class"] = board.outcome_class
        if board.summary is not None:
            out["orthodox"] = game_name(board.orthodox)
            out["orthodox_tree"] = game_to_json(board.orthodox)
            out["orthodox_depth"] = board.summary.tree_depth
    if e.expect:
        out["expect"] = {"ok": not report.expect_failures, "failures": report.expect_failures}
    out["exact"] = report.exact
    out["engine"] = report.engine
    out["states"] = report.states
    out["seconds"] = round(report.seconds, 6)
    return out
