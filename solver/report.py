"""Solving one input entry into a :class:`Report`, and printing reports as text or JSON.

The CLI prints what :func:`solve_entry` returns; the same objects are the Python
API for everything the CLI shows. The JSON keys are documented in README.md.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .analysis import OUTCOME_CLASSES, Analyzer, Evaluation, Line, MoveInfo, Summary, outcome_class
from .formats import Entry, write_fen, write_grid
from .notation import Game, game_name, game_to_json, marks, signed, tree_lines
from .rules import X, Position, side_name


@dataclass
class SideResult:
    """Everything about one side to move."""

    position: Position
    evaluation: Evaluation
    moves: list[MoveInfo]  # every legal move, best first
    line: Line

    @property
    def side(self) -> str:
        return self.position.turn

    @property
    def best(self) -> MoveInfo | None:
        return next((m for m in self.moves if m.preferred), None)

    @property
    def optimal(self) -> list[MoveInfo]:
        return [m for m in self.moves if m.optimal]


@dataclass
class BoardResult:
    """A board without a side to move: its stops, outcome class and orthodox summary."""

    stops: tuple[int, int]
    outcome_class: str
    summary: Summary

    @property
    def orthodox(self) -> Game:
        """The summary's tree (what JSON, batch and ``expect:`` use)."""
        return self.summary.tree


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


def check_expect(entry: Entry, sides: list[SideResult], board: BoardResult | None) -> list[str]:
    """The ``expect:`` items that the solution contradicts, as readable sentences."""
    return check_expect_values(entry, {s.side: s.evaluation.value for s in sides},
                               game_name(board.orthodox) if board else None)


def check_expect_values(entry: Entry, by_side: dict[str, int], orthodox: str | None) -> list[str]:
    """:func:`check_expect` from the values of the sides analysed and the orthodox summary's name."""
    failures = []
    for key, want in entry.expect.items():
        if key in ("x", "o"):
            got = by_side.get(key)
            if got is None:
                failures.append(f"expect {key}={want}, but {side_name(key)} to move was not analysed")
            elif got != want:
                failures.append(f"expect {key}={want}, solved {got}")
        elif key == "value":
            got = by_side.get(entry.position.turn) if len(by_side) == 1 else None
            if got is None:
                failures.append("expect value= needs a side to move")
            elif got != want:
                failures.append(f"expect value={want}, solved {got}")
        elif key == "orthodox":
            if orthodox is None:
                failures.append("expect orthodox= needs a board without a side to move")
            elif orthodox != want:
                failures.append(f"expect orthodox={want}, solved {orthodox}")
    return failures


def solve_entry(entry: Entry, analyzer: Analyzer, sides: tuple[str, ...] | None = None,
                dominance: bool = False) -> Report:
    """Solve an entry for the given sides (default: the entry's), with the board summary
    when both sides are analysed; with ``dominance``, the move lists say which moves are dominated."""
    start = time.perf_counter()
    sides = sides or entry.sides
    roots = [entry.position.replace(turn=s) for s in sides]
    analyzer.oracle.prepare(roots, both_sides=len(sides) == 2)
    results = []
    for p in roots:
        results.append(SideResult(p, analyzer.evaluate(p), analyzer.moves(p, dominance=dominance), analyzer.principal_variation(p)))
    board = None
    if len(sides) == 2:
        a, b = results[0].evaluation.value, results[1].evaluation.value
        board = BoardResult((a, b), outcome_class(a, b), analyzer.summary(entry.position))
    failures = check_expect(entry, results, board)
    return Report(entry, analyzer.oracle.name, results, board, analyzer.oracle.states,
                  time.perf_counter() - start, failures, getattr(analyzer.oracle, "unit", "positions"))


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
        ev = s.evaluation
        out.append(f"{side_name(s.side)} to move: {ev.describe()} (value {signed(ev.value)}), "
                   f"depth {_depth_text(ev.depth)}")
        if s.best is not None:
            others = [m.name for m in s.optimal if not m.preferred]
            extra = f" (also optimal: {', '.join(others)})" if others else ""
            out.append(f"  best move: {s.best.name}{extra}")
            out.append(f"  line: {line_text(s.line)}")
        else:
            out.append("  the game is over")
        if show_moves and s.moves:
            out.append("  moves (* preferred, = optimal; stops: the board's values with X / O to move):")
            out.extend(move_table_text(s))
    if report.board is not None:
        a, b = report.board.stops
        out.append(f"outcome class: {OUTCOME_CLASSES[report.board.outcome_class]} "
                   f"(X first: {signed(a)}, O first: {signed(b)})")
        out.extend(summary_text(report.board.summary, orth_tree))
    for f in report.expect_failures:
        out.append(f"EXPECT FAILED: {f}")
    if e.expect and not report.expect_failures:
        out.append("expect: ok")
    out.append(f"solved {report.states:,} {report.unit} in {report.seconds:.2f} s ({report.engine})")
    return "\n".join(out)


# -- JSON -----------------------------------------------------------------------------------------

def move_json(m: MoveInfo) -> dict:
    return {"move": m.name, "value": m.value, "outcome": Evaluation(m.value, None if m.depth is None else 0).outcome,
            "depth": m.depth, "optimal": m.optimal, "preferred": m.preferred, "dominated": m.dominated,
            "stops": None if m.stops is None else {"x": m.stops[0], "o": m.stops[1]}}


def side_json(s: SideResult, show_moves: bool = False) -> dict:
    ev = s.evaluation
    out = {
        "value": ev.value,
        "outcome": ev.outcome,
        "depth": ev.depth,
        "best_move": s.best.name if s.best else None,
        "optimal_moves": [m.name for m in s.optimal],
        "pv": s.line.names(),
        "pv_repeats": s.line.repeated,
    }
    if show_moves:
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
    if report.board is not None:
        a, b = report.board.stops
        out["stops"] = {"x": a, "o": b}
        out["outcome_class"] = report.board.outcome_class
        out["orthodox"] = game_name(report.board.orthodox)
        out["orthodox_tree"] = game_to_json(report.board.orthodox)
        out["orthodox_depth"] = report.board.summary.tree_depth
    if e.expect:
        out["expect"] = {"ok": not report.expect_failures, "failures": report.expect_failures}
    out["engine"] = report.engine
    out["states"] = report.states
    out["seconds"] = round(report.seconds, 6)
    return out
