"""Checking an AI's moves against the exact values.

A *choice* is a position and the move some player chose there: from a ``move:``
header, from a game record walked move by move, or asked of a player (a UAI engine
or a built-in player) in each position of a file. Each choice in a position the
solver settles within the budget gets a :class:`Check`: the move's exact value, the
best value, the loss in points for the mover and a verdict:

- ``optimal``: the move keeps the value;
- ``inaccuracy``: it loses points but not the outcome (win, draw or loss stays);
- ``blunder``: it changes the outcome.

A player that answers nothing usable (an illegal or unparsable move, a crash, a
hang) gets a ``problem`` for that position instead.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from .analysis import Analyzer
from .engine import choose_oracle
from .formats import Entry, PositionFormatError, write_fen
from .limits import LimitError
from .rules import IllegalMoveError, InvalidMoveError, Position, X, side_name

@dataclass
class Check:
    player: str
    source: str
    line: int
    name: str | None
    position: Position
    move: str                 # as the player wrote it (normalised when legal)
    value: int | None = None  # X's side, after the move
    best: int | None = None   # X's side, the position's value
    best_move: str | None = None
    loss: int | None = None   # points the move gives away, for the mover (>= 0)
    verdict: str | None = None
    problem: str | None = None

    def to_json(self) -> dict:
        return {"player": self.player, "file": self.source, "line": self.line, "name": self.name,
                "fen": write_fen(self.position), "move": self.move, "value": self.value, "best": self.best,
                "best_move": self.best_move, "loss": self.loss, "verdict": self.verdict, "problem": self.problem}


@dataclass
class PlayerSummary:
    player: str
    checked: int = 0
    optimal: int = 0
    inaccuracies: int = 0
    blunders: int = 0
    problems: int = 0
    losses: list = field(default_factory=list)
    worst: list = field(default_factory=list)  # the checks with the largest losses

    @property
    def percent_optimal(self) -> float:
        return 100.0 * self.optimal / self.checked if self.checked else 0.0

    @property
    def mean_loss(self) -> float:
        return statistics.fmean(self.losses) if self.losses else 0.0

    def to_json(self) -> dict:
        return {"player": self.player, "checked": self.checked, "optimal": self.optimal,
                "percent_optimal": round(self.percent_optimal, 2), "mean_loss": round(self.mean_loss, 4),
                "inaccuracies": self.inaccuracies, "blunders": self.blunders, "problems": self.problems,
                "worst": [f"{c.source}:{c.line} {c.move} (-{c.loss})" for c in self.worst]}


def _outcome(v: int) -> int:
    return (v > 0) - (v < 0)


def _value(analyzer: Analyzer, p: Position) -> int:
    """X's value of p, without the depth when the oracle can give the value alone."""
    r = p.result()
    if r is not None:
        return r
    value_only = getattr(analyzer.oracle, "value", None)
    if value_only is not None:
        v = value_only(p)
        return v if p.turn == X else -v
    return analyzer.evaluate(p).value


def judge(analyzer: Analyzer, p: Position, move_text: str, check: Check) -> Check:
    """Fill ``check`` for the move ``move_text`` in ``p`` (raises LimitError when unsettled).
    A best move is worked out only for a move that is not optimal."""
    try:
        move = p.parse_move(move_text)
    except (InvalidMoveError, IllegalMoveError) as exc:
        check.problem = f"illegal or unparsable move: {exc}"
        return check
    sign = 1 if p.turn == X else -1
    best = _value(analyzer, p)
    played = _value(analyzer, p._apply(move))
    check.move = p.move_name(move)
    check.value, check.best = played, best
    check.loss = sign * (best - played)
    if check.loss == 0:
        check.verdict = "optimal"
        check.best_move = check.move
        return check
    check.verdict = "inaccuracy" if _outcome(best) == _outcome(played) else "blunder"
    # A move that keeps the value: the first in notation order (found by values alone, which is
    # much cheaper for the search engine than the depths the preferred move needs).
    # Likely moves first: the ones that leave the mover the most pieces.
    def gain(m):
        return -sign * p._apply(m).material()

    check.best_move = next(p.move_name(m) for m in sorted(p.legal_moves(), key=gain)
                           if _value(analyzer, p._apply(m)) == best)
    return check


@dataclass
class Choice:
    """A position to judge and where it came from; ``move`` is None when a player is asked."""

    entry: Entry
    position: Position
    move: str | None
    player: str | None


def choices_from_file(items: list, ask: bool) -> tuple[list[Choice], list[PositionFormatError]]:
    """The choices of a position file. With ``ask``, every position (and every position along a
    game record) is a question for the players; otherwise the recorded moves are the choices."""
    out, errors = [], []
    for item in items:
        if isinstance(item, PositionFormatError):
            errors.append(item)
            continue
        p = item.position.replace(turn=item.sides[0]) if len(item.sides) == 1 else item.position
        sides = item.sides
        if item.moves:  # a game record: walk it
            cur = p
            for k, text in enumerate(item.moves):
                if cur.is_over():
                    errors.append(PositionFormatError(f"move {k + 1} ({text}) comes after the end of the game",
                                                      item.source, item.line))
                    break
                try:
                    move = cur.parse_move(text)
                except (InvalidMoveError, IllegalMoveError) as exc:
                    errors.append(PositionFormatError(f"game record, move {k + 1}: {exc}", item.source, item.line))
                    break
                player = item.player or f"{side_name(cur.turn)} in games"
                out.append(Choice(item, cur, None if ask else text, player))
                cur = cur._apply(move)
            continue
        for side in sides:
            q = p.replace(turn=side)
            if q.is_over():
                continue
            if ask:
                out.append(Choice(item, q, None, None))
            elif item.move:
                out.append(Choice(item, q, item.move, item.player or "moves in the file"))
    return out, errors


class Verifier:
    """Judges choices, one oracle per board and rule set (so solved positions are shared)."""

    def __init__(self, engine: str = "auto", max_states: int | None = None, max_memory: int | None = None,
                 timeout: float | None = None, tables=None):
        self.engine, self.max_states, self.max_memory, self.timeout = engine, max_states, max_memory, timeout
        self.tables = tables
        self.analyzers: dict = {}
        self.unsettled = 0

    def analyzer(self, p: Position) -> Analyzer:
        key = (p.board, p.rules.name)
        if key not in self.analyzers:
            deadline = time.monotonic() + self.timeout if self.timeout else None
            self.analyzers[key] = Analyzer(choose_oracle(p, self.engine, max_states=self.max_states,
                                                         max_memory=self.max_memory, deadline=deadline,
                                                         tables=self.tables))
        a = self.analyzers[key]
        if self.timeout and hasattr(a.oracle, "deadline"):
            a.oracle.deadline = time.monotonic() + self.timeout
        return a

    def check(self, choice: Choice, player: str, move_text: str) -> Check | None:
        """The check of one choice, or None when the position cannot be settled within the budget."""
        e = choice.entry
        c = Check(player, e.source, e.line, e.name, choice.position, move_text)
        try:
            return judge(self.analyzer(choice.position), choice.position, move_text, c)
        except LimitError:
            self.analyzers.pop((choice.position.board, choice.position.rules.name), None)
            self.unsettled += 1
            return None


def summarise(checks: list[Check], worst: int = 3, players: list[str] = ()) -> list[PlayerSummary]:
    """One summary per player (every name in ``players`` gets a row, checked or not)."""
    by: dict[str, PlayerSummary] = {name: PlayerSummary(name) for name in players}
    for c in checks:
        s = by.setdefault(c.player, PlayerSummary(c.player))
        if c.problem:
            s.problems += 1
            continue
        s.checked += 1
        s.losses.append(c.loss)
        s.optimal += c.verdict == "optimal"
        s.inaccuracies += c.verdict == "inaccuracy"
        s.blunders += c.verdict == "blunder"
    for s in by.values():
        bad = sorted((c for c in checks if c.player == s.player and c.loss), key=lambda c: -c.loss)
        s.worst = bad[:worst]
    return list(by.values())


def summary_table(summaries: list[PlayerSummary]) -> str:
    head = ("player", "checked", "optimal", "mean loss", "inaccuracies", "blunders", "problems")
    rows = [(s.player, str(s.checked), f"{s.percent_optimal:.1f}%", f"{s.mean_loss:.2f}", str(s.inaccuracies),
             str(s.blunders), str(s.problems)) for s in summaries]
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in [head] + rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for s in summaries:
        if s.worst:
            lines.append(f"worst of {s.player}: " + "; ".join(f"{c.source}:{c.line} {c.move} loses {c.loss}"
                                                              for c in s.worst))
    return "\n".join(lines)


# -- HTML -----------------------------------------------------------------------------------------

def html_report(checks: list[Check], summaries: list[PlayerSummary], verifier: Verifier, title: str) -> str:
    """A self-contained page: the summary table, then each inaccuracy and blunder with its board."""
    from html import escape

    from .pictures import board_svg

    rows = "\n".join(
        f"<tr class=\"player\"><td>{escape(s.player)}</td><td>{s.checked}</td><td>{s.percent_optimal:.1f}%</td>"
        f"<td>{s.mean_loss:.2f}</td><td>{s.inaccuracies}</td><td>{s.blunders}</td><td>{s.problems}</td></tr>"
        for s in summaries)
    cards = []
    for c in checks:
        if c.verdict in ("inaccuracy", "blunder"):
            svg = board_svg(verifier.analyzer(c.position), c.position)
            cards.append(
                f'<section class="mistake {c.verdict}"><h3>{escape(c.player)}: {c.verdict}, '
                f"{escape(c.source)}:{c.line}{' (' + escape(c.name) + ')' if c.name else ''}</h3>"
                f"<p>{side_name(c.position.turn)} to move. Played <b>{escape(c.move)}</b> "
                f"(value {c.value:+d}); best <b>{escape(c.best_move or '')}</b> (value {c.best:+d}); "
                f"loses {c.loss} point{'s' if c.loss != 1 else ''}.</p>"
                f"<p><code>{escape(write_fen(c.position))}</code></p>{svg}</section>")
        elif c.problem:
            cards.append(f'<section class="problem"><h3>{escape(c.player)}: problem, {escape(c.source)}:{c.line}'
                         f"</h3><p>{escape(c.problem)}</p></section>")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #999; padding: 0.3em 0.8em; text-align: right; }}
td:first-child, th:first-child {{ text-align: left; }}
.blunder h3 {{ color: #b00000; }} .inaccuracy h3 {{ color: #a06000; }}
section {{ margin: 1.5em 0; }}
</style></head>
<body>
<h1>{escape(title)}</h1>
<table id="summary"><thead><tr><th>player</th><th>checked</th><th>optimal</th><th>mean loss</th>
<th>inaccuracies</th><th>blunders</th><th>problems</th></tr></thead>
<tbody>
{rows}
</tbody></table>
<p>{verifier.unsettled} position(s) could not be settled within the budget and were not checked.</p>
{''.join(cards)}
</body></html>
"""


# -- players to ask -------------------------------------------------------------------------------

class BuiltinAsker:
    """A built-in player (:mod:`solver.players`) as something to ask for moves."""

    def __init__(self, spec: str, seed: int = 0):
        from .players import make_player

        self.player = make_player(spec, seed)
        self.name = "builtin:" + spec.split(":", 1)[1] if spec.startswith("builtin:") else spec

    def bestmove(self, p: Position) -> str:
        return p.move_name(self.player.choose(p))

    def close(self) -> None:
        pass


class EngineAsker:
    """A UAI engine as something to ask for moves."""

    def __init__(self, command: str, go: str, timeout: float):
        from .uai import UAIEngine

        self.engine = UAIEngine(command, go=go, timeout=timeout)
        self.name = command

    def bestmove(self, p: Position) -> str:
        return self.engine.bestmove(write_fen(p))

    def close(self) -> None:
        self.engine.close()


def run_verify(choices: list[Choice], askers: list, verifier: Verifier, on_check=None) -> list[Check]:
    """Check every choice: the recorded move, or each asker's answer. ``on_check(check)`` after each."""
    from .uai import EngineProblem

    checks = []

    def add(c: Check | None) -> None:
        if c is not None:
            checks.append(c)
            if on_check:
                on_check(c)

    for choice in choices:
        if choice.move is not None:
            add(verifier.check(choice, choice.player, choice.move))
            continue
        for asker in askers:
            try:
                text = asker.bestmove(choice.position)
            except EngineProblem as exc:
                e = choice.entry
                add(Check(asker.name, e.source, e.line, e.name, choice.position, "", problem=str(exc)))
                continue
            add(verifier.check(choice, asker.name, text))
    return checks
