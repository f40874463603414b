"""A solved position: what was proved about it (:class:`Report`, :class:`SideResult`,
:class:`BoardResult`), and its forms for people (:func:`report_text`) and programs
(:func:`report_json`, :func:`side_json`).

:class:`SideResult` is the one definition of a solved side to move: the ``--json`` output,
the records of ``batch`` (solved, from the cache or from tables) and the rows of the cache
(:func:`solver.solve.cache.side_row`, read back by :meth:`solver.solve.cache.Cache.get_side`) are all made
from it. :class:`solver.solve.solver.Solver` makes the reports. The JSON keys are documented in README.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from solver.cgt.gamevalue import GameValue
from solver.game.notation import (
    UAI_NOTATION,
    Game,
    Notation,
    game_name,
    game_to_json,
    marks,
    signed,
    tree_lines,
)
from solver.game.rules import Move, Position, Side, X
from solver.io.formats import Entry, printable, write_fen, write_grid
from solver.oracles.oracle import STOP_REASONS, StopReason
from solver.solve.analysis import (
    OUTCOME_CLASSES,
    Evaluation,
    Interval,
    Line,
    MoveInfo,
    Summary,
)
from solver.solve.certificate import Claim


@dataclass
class SideResult:
    """Everything about one side to move.

    ``interval`` is what was proved about the value (X's side); when it is exact and the
    analysis ran to the end, ``evaluation`` (value and depth), ``moves`` (every legal move,
    best first) and ``line`` are there too. ``best_move`` is the preferred move when the
    analysis finished, else the best move the search found, whose value is proved to be at
    least (X to move) or at most (O to move) ``best_bound``. ``stopped`` says why the work
    ended early: 'time', 'nodes', 'states', 'memory', 'stack' (a line of play outgrew the memory
    budget) or 'interrupt' (None when nothing stopped it).
    """

    position: Position
    interval: Interval
    evaluation: Evaluation | None = None
    moves: list[MoveInfo] = field(default_factory=list)
    line: Line | None = None
    best_move: Move | None = None
    best_bound: int | None = None
    optimal_moves: list[Move] | None = None
    # The optimal moves exactly as preferred as best_move (the same depth: SPEC section 4 then
    # takes the first in notation order); None when not known. A symmetric image of the
    # position prefers the first of their images, which need not be best_move's image: the
    # cache keeps them all so that what it gives back is what a fresh solve gives.
    tied_moves: list[Move] | None = None
    stopped: str | None = None  # why the side is not exact: a StopReason (a str, the JSON word)
    stop_message: str | None = None
    nodes: int = 0
    # Seconds spent on this side by the search engine: proving the interval (the value, when it is
    # exact), then the analysis of an exact value (depth, moves, line); None when not done here.
    value_seconds: float | None = None
    depth_seconds: float | None = None
    # Why the move table (``moves``, asked for) is missing though the value, depth and line are
    # known: a StopReason, and its message
    moves_stopped: str | None = None
    moves_stop_message: str | None = None

    @property
    def side(self) -> Side:
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
    (None where they are not proved). ``orthodox_text``: the summary's name when only the name
    is known (read from the cache)."""

    stops: tuple[int, int] | None
    outcome_class: str | None
    summary: Summary | None
    orthodox_text: str | None = None
    stopped: str | None = None  # why the summary was not computed, when a limit stopped it

    @property
    def orthodox(self) -> Game | None:
        """The summary's tree (its ``str()`` is the notation, ``5|1||-5``), when it was computed."""
        return None if self.summary is None else self.summary.tree

    @property
    def orthodox_name(self) -> str | None:
        """The summary in notation (what JSON, batch and ``expect:`` use), when it is known."""
        return game_name(self.summary.tree) if self.summary is not None else self.orthodox_text


@dataclass
class Report:
    """What was proved about one input position: a :class:`SideResult` per side to move, and
    for a board without a side to move its :class:`BoardResult`. ``solver`` names the
    algorithm that answered (``reference``, ``retro``, ``search``, ``tables``, or ``cache``),
    ``states`` counts its work in ``unit``. ``str(report)`` is the text the command prints."""

    entry: Entry
    solver: str
    sides: list[SideResult]
    board: BoardResult | None
    states: int
    seconds: float
    expect_failures: list[str] = field(default_factory=list)
    unit: str = "positions"  # what ``states`` counts (retro under a counter: boards, at every count)
    claims: list[Claim] = field(default_factory=list)  # certificates of the bounds proved, when asked for
    certificate_error: str | None = None
    # the board's game value (canonical form, stops, mean, temperature), when asked for
    # (Solver.solve(value=True)); else why it has none, in one line (a loop, a zugzwang, a limit)
    game_value: GameValue | None = None
    game_value_note: str | None = None

    @property
    def position(self) -> Position:
        return self.entry.position

    @property
    def exact(self) -> bool:
        """Every side's value is proved exactly (and, for a board, its summary is known)."""
        return all(s.exact for s in self.sides) and (self.board is None or self.board.orthodox_name is not None)

    @property
    def outcomes_proved(self) -> bool:
        return all(s.interval.outcome_proved for s in self.sides)

    @property
    def interrupted(self) -> bool:
        return any(s.stopped == StopReason.INTERRUPT for s in self.sides)

    def stopped_text(self, outcome_only: bool = False, notation: Notation = UAI_NOTATION) -> str | None:
        """None when the report settled what was asked (every side exact, or with ``outcome_only``
        every outcome proved); else the line that says why not and what was proved: 'stopped: out of
        time (raise --timeout to go further); proved X to move +1..+49'."""
        if (self.outcomes_proved if outcome_only else self.exact):
            return None  # (a depth or a move table a limit stopped is said in the side's lines)
        open_ = [s for s in self.sides if not (s.exact or (outcome_only and s.interval.outcome_proved))]
        reasons = list(dict.fromkeys(stop_text(s) for s in open_ if s.stopped is not None))
        proved = ", ".join(f"{notation.side(s.side)} to move {notation.words(s.interval.text())}" for s in open_)
        return f"stopped: {'; '.join(reasons) or 'not solved'}" + (f"; proved {proved}" if proved else "")

    def side(self, side: Side) -> SideResult:
        """The result for one side to move (KeyError if that side was not analysed)."""
        for s in self.sides:
            if s.side == side:
                return s
        raise KeyError(side)

    def __str__(self) -> str:
        return report_text(self)


# -- text -----------------------------------------------------------------------------------------

def _depth_text(depth: int | None) -> str:
    return "infinite" if depth is None else str(depth)


def line_text(line: Line, notation: Notation = UAI_NOTATION) -> str:
    names = " ".join(notation.line(line.start, line.moves)) or "(no moves: the game is over)"
    if line.repeated:
        return f"{names} (repeats: play goes on forever)"
    end = line.end.result()
    return f"{names} (ends {signed(end)})" if line.moves and end is not None else names


def move_table_text(side: SideResult, notation: Notation = UAI_NOTATION) -> list[str]:
    rows = []
    names = [notation.move(side.position, m.move) for m in side.moves]
    width = max((len(n) for n in names), default=4)
    for m, name in zip(side.moves, names):
        mark = "*" if m.preferred else "=" if m.optimal else " "
        note = f"  stops {signed(m.stops[0])}/{signed(m.stops[1])}" if m.stops else ""
        note += " dominated" if m.dominated else ""
        rows.append(f"    {mark} {name:<{width}}  {signed(m.value):>4}  {notation.words(m.describe()):<24} "
                    f"depth {_depth_text(m.depth)}{note}")
    return rows


_HINTS = {"time": "raise --timeout to go further", "nodes": "raise --nodes or --max-states to go further",
          "states": "raise --max-states to go further", "memory": "raise --max-memory to go further",
          "stack": "raise --max-memory to go further"}


def _why(stopped: str | None, message: str | None) -> str:
    if stopped is None:
        return ""
    text = message or STOP_REASONS.get(stopped, stopped)
    hint = _HINTS.get(stopped)
    return f"{text} ({hint})" if hint else text


def moves_stop_text(s: SideResult) -> str:
    """Why the move table stopped, and what to raise to go further ('' if it did not)."""
    return _why(s.moves_stopped, s.moves_stop_message)


def stop_text(s: SideResult) -> str:
    """Why a side's work stopped, and what to raise to go further ('' if nothing stopped it)."""
    return _why(s.stopped, s.stop_message)


def side_text(s: SideResult, show_moves: bool = False, notation: Notation = UAI_NOTATION) -> list[str]:
    """The lines about one side to move; ``notation`` writes its moves and names its sides."""
    return [notation.words(line) for line in _side_lines(s, show_moves, notation)]


def _side_lines(s: SideResult, show_moves: bool, notation: Notation) -> list[str]:
    out = []
    name = notation.side(s.side)
    ev = s.evaluation
    best_name = None if s.best_move is None else notation.move(s.position, s.best_move)
    optimal = [notation.move(s.position, m) for m in s.optimal_moves or []]
    if ev is not None and s.line is not None:
        out.append(f"{name} to move: {ev.describe()} (value {signed(ev.value)}), depth {_depth_text(ev.depth)}")
        if s.best_move is not None:
            others = [n for n in optimal if n != best_name]
            extra = f" (also optimal: {', '.join(others)})" if others else ""
            out.append(f"  best move: {best_name}{extra}")
            out.append(f"  line: {line_text(s.line, notation)}")
        else:
            out.append("  the game is over")
        if show_moves and s.moves:
            out.append("  moves (* preferred, = optimal; stops: the board's values with X / O to move):")
            out.extend(move_table_text(s, notation))
        elif show_moves and s.moves_stopped is not None:
            out.append(f"  moves: not computed (stopped: {moves_stop_text(s)})")
        return out
    iv = s.interval
    if iv.exact:
        out.append(f"{name} to move: {iv.describe()} (value {iv.text()}), depth not computed")
    else:
        out.append(f"{name} to move: {iv.describe()} (value {iv.text()}, not exact)")
    if iv.exact and s.optimal_moves:
        names = ", ".join(optimal)
        out.append(f"  optimal moves: {names} (the preferred one needs the depth)")
    elif s.best_move is not None:
        if iv.exact and s.best_bound == iv.lower:
            out.append(f"  optimal move: {best_name} (keeps the value; the preferred one needs the depth)")
        else:
            if s.best_bound is None or abs(s.best_bound) >= iv.squares:
                proved = "no bound proved for it"
            else:
                proved = f"value {'at least' if s.side == X else 'at most'} {signed(s.best_bound)}"
            out.append(f"  best move found: {best_name} ({proved})")
    if show_moves:
        out.append("  moves: not computed (each move's value and depth need the analysis that stopped)")
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


def report_text(report: Report, show_moves: bool = False, orth_tree: bool = False,
                notation: Notation = UAI_NOTATION) -> str:
    """The report for people; ``notation`` (:class:`~solver.game.notation.Notation`) writes the moves
    and names the sides (cs61b: ``a7-b6``, red and blue)."""
    e = report.entry
    title = e.name or "position"
    out = [f"== {title} ({e.source}:{e.line}) ==", write_grid(e.position, coordinates=True, pieces=notation.pieces)]
    counter = f", counter {e.position.counter}" if e.position.rules.counter else ""
    out.append(f"rules: {e.position.rules.name}{counter}")
    for s in report.sides:
        out.extend(side_text(s, show_moves, notation))
    board = report.board
    if board is not None:
        if board.outcome_class is not None:
            a, b = report.sides[0].interval, report.sides[1].interval
            out.append(notation.words(f"outcome class: {OUTCOME_CLASSES[board.outcome_class]} "
                                      f"(X first: {a.text()}, O first: {b.text()})"))
        else:
            out.append("outcome class: not proved")
        if board.summary is not None:
            out.extend(summary_text(board.summary, orth_tree))
        else:
            out.append("orthodox summary: not computed" + (f" (stopped: {board.stopped})" if board.stopped else ""))
    if report.game_value is not None:
        out.extend(report.game_value.text())
    elif report.game_value_note is not None:
        out.append(report.game_value_note)
    for f in report.expect_failures:
        out.append(f"EXPECT FAILED: {f}")
    if e.expect and not report.expect_failures:
        out.append("expect: ok")
    what = "searched" if report.unit == "nodes" else "solved"
    out.append(f"{what} {report.states:,} {report.unit} in {report.seconds:.2f} s ({report.solver})" + time_split(report))
    # Names, file names and expectations come from the input: no control character reaches a terminal.
    return "\n".join(printable(line) for line in "\n".join(out).split("\n"))


def time_split(report: Report) -> str:
    """``: the value in A s, the depth in B s`` when the search proved a value and then analysed it
    (its depth, moves and line), and the whole took a second or more; else nothing."""
    timed = [s for s in report.sides if s.value_seconds is not None and s.depth_seconds is not None]
    if not timed or report.seconds < 1:
        return ""
    value = sum(s.value_seconds or 0.0 for s in timed)
    depth = sum(s.depth_seconds or 0.0 for s in timed)
    plural = "s" if len(timed) > 1 else ""
    return f": the value{plural} in {value:.2f} s, the depth{plural} in {depth:.2f} s"


# -- JSON -----------------------------------------------------------------------------------------

def move_json(m: MoveInfo, name: str | None = None) -> dict:
    return {"move": m.name if name is None else name, "value": m.value, "outcome": Evaluation(m.value, None if m.depth is None else 0).outcome,
            "depth": m.depth, "optimal": m.optimal, "preferred": m.preferred, "dominated": m.dominated,
            "stops": None if m.stops is None else {"x": m.stops[0], "o": m.stops[1]}}


def side_json(s: SideResult, show_moves: bool = False, notation: Notation = UAI_NOTATION) -> dict:
    """One side's facts: ``lower``, ``upper``, ``exact`` always; ``value`` only when exact; ``depth``
    only when known (null: infinite play); the rest when the analysis got that far. The moves
    are written in ``notation`` (the keys are the same in every notation)."""
    iv = s.interval
    out: dict = {"lower": iv.lower, "upper": iv.upper, "exact": iv.exact}
    if iv.exact:
        out["value"] = iv.lower
    ev = s.evaluation
    out["outcome"] = ev.outcome if ev is not None else iv.outcome
    if ev is not None:
        out["depth"] = ev.depth
    out["best_move"] = None if s.best_move is None else notation.move(s.position, s.best_move)
    vacuous = -iv.squares if s.side == X else iv.squares  # a bound that says nothing
    if s.best_move is not None and s.best_bound is not None and s.best_bound != vacuous:
        out["best_move_bound"] = {"lower" if s.side == X else "upper": s.best_bound}
    if s.optimal_moves is not None:
        out["optimal_moves"] = [notation.move(s.position, m) for m in s.optimal_moves]
    if s.line is not None:
        out["pv"] = notation.line(s.line.start, s.line.moves)
        out["pv_repeats"] = s.line.repeated
    if s.stopped is not None:
        out["stopped"] = s.stopped
    out["nodes"] = s.nodes
    if s.value_seconds is not None:
        out["value_seconds"] = round(s.value_seconds, 4)
    if s.depth_seconds is not None:
        out["depth_seconds"] = round(s.depth_seconds, 4)
    if show_moves and s.moves:
        out["moves"] = [move_json(m, notation.move(s.position, m.move)) for m in s.moves]
    elif show_moves and s.moves_stopped is not None:
        out["moves_stopped"] = s.moves_stopped
    return out


def report_json(report: Report, show_moves: bool = False, notation: Notation = UAI_NOTATION) -> dict[str, Any]:
    e = report.entry
    p = e.position
    out: dict[str, Any] = {
        "name": e.name,
        "source": e.source,
        "line": e.line,
        "rules": p.rules.name,
        "fen": write_fen(p),
        "rows": p.board.rows,
        "cols": p.board.cols,
        "grid": write_grid(p).split("\n"),
        "counter": p.counter,
        "sides": {s.side.value: side_json(s, show_moves, notation) for s in report.sides},
    }
    board = report.board
    if board is not None:
        if board.stops is not None:
            out["stops"] = {"x": board.stops[0], "o": board.stops[1]}
        out["outcome_class"] = board.outcome_class
        if board.summary is not None:
            out["orthodox"] = game_name(board.summary.tree)
            out["orthodox_tree"] = game_to_json(board.summary.tree)
            out["orthodox_depth"] = board.summary.tree_depth
    if report.game_value is not None:
        out.update(report.game_value.to_json())
    elif report.game_value_note is not None:
        out["canonical"] = None
        out["canonical_note"] = report.game_value_note
    if e.expect:
        out["expect"] = {"ok": not report.expect_failures, "failures": report.expect_failures}
    out["exact"] = report.exact
    out["solver"] = report.solver
    out["states"] = report.states
    out["seconds"] = round(report.seconds, 6)
    return out
