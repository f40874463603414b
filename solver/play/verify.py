"""Checking an AI's moves against the exact values, or against proved bounds on them.

(The players it asks are in :mod:`solver.play.players`, the HTML report in :mod:`solver.app.pictures`.)

A *choice* is a position and the move some player chose there: from a ``move:``
header, from a game record walked move by move, or asked of a player (a UAI engine
or a built-in player) in each position of a file. Each choice gets a :class:`Check`
with what was proved about the position's value and the move's value (X's side,
exact values or intervals, SPEC section 4.1), and a verdict:

- ``optimal``: the move is proved to keep the value (the only legal move, a forced pass too, is
  optimal without a search: the position is worth what it leads to);
- ``inaccuracy``: it is proved to lose points but not the outcome (win, draw or loss stays);
- ``blunder``: it is proved to change the outcome;
- ``unsettled``: the budget ran out before any of these was proved (both intervals are kept).

A player that answers nothing usable (an illegal or unparsable move, or a UAI engine
that fails: :class:`solver.play.uai_client.EngineError`, a crash, a hang or garbage) gets a
``problem`` for that position instead.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Callable, Protocol, Sequence

from solver.common.words import Word
from solver.game.notation import Notation, signed
from solver.game.rules import (
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Position,
    X,
    side_name,
)
from solver.io.formats import Entry, MovesBefore, PositionFormatError, printable, write_fen
from solver.oracles.oracle import StopReason
from solver.oracles.search import SearchOracle
from solver.play.adapters import History
from solver.play.uai_client import EngineError
from solver.solve.analysis import Analyzer, Interval
from solver.solve.solver import Solver


class Verdict(Word):
    """The verdict on a judged move (the ``verdict`` word of ``--json``; module docstring)."""

    OPTIMAL = "optimal"
    INACCURACY = "inaccuracy"
    BLUNDER = "blunder"
    UNSETTLED = "unsettled"


class Asker(Protocol):
    """A player to ask for moves (:func:`solver.play.players.make_asker`: built-in players, UAI engines)."""

    name: str

    def bestmove(self, p: Position, history: History | None = None) -> str: ...

    def close(self) -> None: ...

@dataclass
class Check:
    player: str
    source: str
    line: int
    name: str | None
    position: Position
    move: str                 # as the player wrote it (normalised when legal)
    value: int | None = None  # X's side, after the move (when exact)
    best: int | None = None   # X's side, the position's value (when exact)
    best_move: str | None = None
    # when the position's value is not exact: a move the search proved to keep its bound for the
    # mover (at least best_interval.lower for X, at most best_interval.upper for O), else None
    found_move: str | None = None
    loss: int | None = None   # points the move gives away, for the mover (>= 0), when both values are exact
    verdict: Verdict | None = None
    problem: str | None = None
    value_interval: Interval | None = None  # what was proved about the move's value (X's side)
    best_interval: Interval | None = None   # ... and about the position's value
    last_move: Move | None = None  # the move that reached position in its game's record, when known
    in_game: bool = False  # the position is one of a game's: its lines number the move as PGN does

    @property
    def numbered_move(self) -> str:
        """The move, after its PGN number in a game ('83. c4e2', '82... b2c4': X moves first)."""
        if not self.in_game or not self.move:
            return self.move
        return f"{self.position.fullmove}{'.' if self.position.turn == X else '...'} {self.move}"

    def text(self) -> str | None:
        """The line ``verify`` prints for this check, or None for an optimal move (and a move judged
        without intervals): 'FILE:LINE: PLAYER: d5b7 is a blunder (-5; best f6e5 +3, loses 8)', the
        problem, or the intervals of an unsettled move."""
        head = f"{self.where}: {self.player}: "
        if self.problem:
            return f"{head}problem: {self.problem}"
        if self.value_interval is None or self.best_interval is None or self.verdict == Verdict.OPTIMAL:
            return None
        if self.verdict == Verdict.UNSETTLED:
            return (f"{head}{self.numbered_move} is unsettled (value after it {self.value_interval.text()}, "
                    f"position {self.best_interval.text()})")
        loss = self.loss if self.loss is not None else f"at least {self.min_loss}"
        best = f"best {self.best_move} " if self.best_move else "best "
        found = ""
        if self.found_move and not self.best_move:
            x = self.position.turn == X
            bound = self.best_interval.lower if x else self.best_interval.upper
            found = f", {self.found_move} {'at least' if x else 'at most'} {signed(bound)}"
        article = "a blunder" if self.verdict == Verdict.BLUNDER else "an inaccuracy"
        return (f"{head}{self.numbered_move} is {article} ({self.value_interval.text()}; {best}{self.best_interval.text()}"
                f"{found}, loses {loss})")

    @property
    def min_loss(self) -> int | None:
        """The fewest points the move is proved to lose (for the mover)."""
        if self.loss is not None:
            return self.loss
        if self.value_interval is None or self.best_interval is None:
            return None
        if self.position.turn == X:
            return max(0, self.best_interval.lower - self.value_interval.upper)
        return max(0, self.value_interval.lower - self.best_interval.upper)

    @property
    def where(self) -> str:
        """``file:line``, and the position's name when it has one (a game's position is named
        ``game 3 (Alice vs Bob), ply 12``: the moves of a PGN game often share one line)."""
        return f"{self.source}:{self.line}" + (f": {self.name}" if self.name else "")

    def written(self, notation: Notation) -> "Check":
        """This check with its moves (the move, the best move) and the sides in its player's name
        written in ``notation`` (:class:`~solver.game.notation.Notation`: cs61b writes ``a7-b6``, red, blue)."""
        if notation.name == "uai":
            return self
        return replace(self, player=notation.words(self.player), move=notation.move_text(self.position, self.move),
                       best_move=None if self.best_move is None else notation.move_text(self.position, self.best_move),
                       found_move=None if self.found_move is None else notation.move_text(self.position, self.found_move))

    def to_json(self) -> dict:
        out = {"player": self.player, "file": self.source, "line": self.line, "name": self.name,
               "fen": write_fen(self.position), "move": self.move, "value": self.value, "best": self.best,
               "best_move": self.best_move, "best_move_found": self.found_move, "loss": self.loss, "verdict": self.verdict, "problem": self.problem}
        for key, iv in (("value", self.value_interval), ("best", self.best_interval)):
            if iv is not None:
                out[f"{key}_lower"], out[f"{key}_upper"] = iv.lower, iv.upper
        return out


@dataclass
class PlayerSummary:
    """One player's moves: ``moves`` looked at = ``settled`` (a verdict proved: optimal, inaccuracy
    or blunder) + ``unsettled`` + ``problems``; the rates are of the settled moves."""

    player: str
    settled: int = 0
    optimal: int = 0
    inaccuracies: int = 0
    blunders: int = 0
    unsettled: int = 0
    problems: int = 0
    losses: list = field(default_factory=list)
    worst: list = field(default_factory=list)  # the checks with the largest losses

    @property
    def moves(self) -> int:
        """Every move of the player looked at, settled or not, and every problem."""
        return self.settled + self.unsettled + self.problems

    @property
    def checked(self) -> int:
        """The settled moves (the name before ``settled``; JSON keeps it too)."""
        return self.settled

    @property
    def percent_optimal(self) -> float:
        return 100.0 * self.optimal / self.settled if self.settled else 0.0

    @property
    def mean_loss(self) -> float:
        return statistics.fmean(self.losses) if self.losses else 0.0

    def to_json(self) -> dict:
        return {"player": self.player, "moves": self.moves, "settled": self.settled, "checked": self.settled,
                "optimal": self.optimal,
                # (null when nothing is settled, or no loss is exact: the table's '-', not a zero)
                "percent_optimal": round(self.percent_optimal, 2) if self.settled else None,
                "mean_loss": round(self.mean_loss, 4) if self.losses else None,
                "inaccuracies": self.inaccuracies, "blunders": self.blunders, "unsettled": self.unsettled,
                "problems": self.problems,
                "worst": [f"{c.source}:{c.line} {c.move} (-{c.min_loss})" for c in self.worst]}


def verdict(p: Position, best: Interval, played: Interval) -> Verdict:
    """The verdict on a move from what is proved about the position's value (``best``) and the
    move's value (``played``), both X's side: optimal, inaccuracy, blunder or unsettled."""
    # in the mover's frame: the position is worth [B_lo, B_hi], the move [m_lo, m_hi], m <= B
    b_lo, b_hi = best.for_mover(p.turn)
    m_lo, m_hi = played.for_mover(p.turn)
    if m_lo >= b_hi:
        return Verdict.OPTIMAL
    if (b_lo > 0 and m_hi <= 0) or (b_lo >= 0 and m_hi < 0):
        return Verdict.BLUNDER
    if m_hi < b_lo and (m_lo > 0 or b_hi < 0):
        return Verdict.INACCURACY
    return Verdict.UNSETTLED


def _interval(analyzer: Analyzer, p: Position) -> tuple[Interval, tuple[Move, int] | None]:
    """What is proved about p's value (X's side) within the budget, and the best move found with
    its proved bound (mover's side) when the oracle proves bounds; (Interval, (move, bound) or None)."""
    squares = p.board.playable.bit_count()
    r = p.result()
    if r is not None:
        return Interval(r, r, squares), None
    b = analyzer.oracle.bounds(p)
    if b.stopped == StopReason.INTERRUPT:
        raise KeyboardInterrupt
    best = None if b.best_move is None else (b.best_move, b.best_lower)
    return Interval.from_mover(p.turn, b.lower, b.upper, squares), best


@contextmanager
def _half_of_the_budget(analyzer: Analyzer) -> Iterator[None]:
    """Within the block, a search (an oracle that proves bounds) has half of what is left of its
    time and of its node budget; both are restored after it."""
    oracle = analyzer.oracle
    if not oracle.proves_bounds:
        yield
        return
    deadline = oracle.deadline
    searcher = oracle if isinstance(oracle, SearchOracle) else None
    node_limit = searcher.node_limit if searcher is not None else 0
    if deadline is not None:
        oracle.deadline = time.monotonic() + max(0.0, deadline - time.monotonic()) / 2
    if searcher is not None and node_limit:
        searcher.node_limit = searcher.states + max(1, (node_limit - searcher.states) // 2)
    try:
        yield
    finally:
        oracle.deadline = deadline
        if searcher is not None:
            searcher.node_limit = node_limit


def judge(analyzer: Analyzer, p: Position, move_text: str, check: Check) -> Check:
    """Fill ``check`` for the move ``move_text`` in ``p``: what is proved about the position's
    value and the move's, the verdict, and a move proved to keep the value for a move that
    does not (when one is found within the budget)."""
    try:
        move = p.parse_move(move_text)
    except (InvalidMoveError, IllegalMoveError) as exc:
        check.problem = f"illegal or unparsable move: {exc}"
        return check
    sign = 1 if p.turn == X else -1
    forced = len(p.legal_moves()) == 1  # the only move (a forced pass too): the position is worth what it is
    if forced:
        played, _ = _interval(analyzer, p.push(move))
        best, found = played, None
    else:  # the position first, in half of what is left: a hard move played must not leave it nothing
        with _half_of_the_budget(analyzer):
            best, found = _interval(analyzer, p)
        played, _ = _interval(analyzer, p.push(move))
    b_lo, b_hi = best.for_mover(p.turn)
    m_lo = played.for_mover(p.turn)[0]
    if b_lo < m_lo <= b_hi:  # the position is worth at least the move played: its bound may be the tighter
        best = Interval.from_mover(p.turn, m_lo, b_hi, best.squares)
    check.move = p.move_name(move)
    check.best_interval, check.value_interval = best, played
    check.best = best.lower if best.exact else None
    check.value = played.lower if played.exact else None
    if best.exact and played.exact:
        check.loss = sign * (best.lower - played.lower)
    check.verdict = Verdict.OPTIMAL if forced else verdict(p, best, played)
    if check.verdict == Verdict.OPTIMAL:
        check.best_move = check.move
    elif best.exact and found is not None and found[1] == sign * best.lower:
        check.best_move = p.move_name(found[0])  # the search proved it keeps the value
    elif (not best.exact and found is not None and found[0] != move
          and found[1] == best.for_mover(p.turn)[0] > -best.squares):
        check.found_move = p.move_name(found[0])  # it keeps the proved bound: named, short of the best
    elif best.exact and not analyzer.oracle.proves_bounds:
        # the first move, likeliest first (the most pieces left to the mover), that keeps the value
        def gain(m: Move) -> int:
            return -sign * p.push(m).material()

        for m in sorted(p.legal_moves(), key=gain):
            iv, _ = _interval(analyzer, p.push(m))
            if iv.exact and iv.lower == best.lower:
                check.best_move = p.move_name(m)
                break
    return check


@dataclass
class Choice:
    """A position to judge and where it came from; ``move`` is None when a player is asked."""

    entry: Entry
    position: Position
    move: str | None
    player: str | None
    history: History | None = None  # the game's start and the moves that reached the position


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
                                                      item.source, item.moves_line))
                    break
                try:
                    move = cur.parse_move(text)
                except (InvalidMoveError, IllegalMoveError) as exc:
                    errors.append(PositionFormatError(f"game record, move {k + 1}: {exc}", item.source, item.moves_line))
                    break
                player = item.player or f"{side_name(cur.turn)} in games"
                out.append(Choice(item, cur, None if ask else text, player, (p, MovesBefore(item.moves, k))))
                cur = cur.push(move)
            continue
        for side in sides:
            q = p.replace(turn=side)
            if q.is_over():
                continue
            if ask:
                out.append(Choice(item, q, None, None, item.history if q == item.position else None))
            elif item.move:
                out.append(Choice(item, q, item.move, item.player or "moves in the file"))
            for move in item.expect.get("bm", ()):  # an EPD suite's best moves (solver.io.epd) are judged too
                out.append(Choice(item, q, move, f"bm in {item.source}"))
    return out, errors


def only_players(choices: list[Choice], names: Sequence[str]) -> list[Choice]:
    """The choices of the named players (``verify --player``: the mover's name from a game's
    ``[Black]``/``[White]`` tags or a ``player:`` header); ValueError for a name that has none."""
    players = {c.player or c.entry.player for c in choices}
    for name in names:
        if name not in players:
            known = sorted(p for p in players if p)
            raise ValueError(f"--player {printable(name)}: no game has a player of that name (players: "
                             f"{printable(', '.join(known)) if known else 'none named'})")
    return [c for c in choices if (c.player or c.entry.player) in names]


class Verifier:
    """Judges choices with a :class:`~solver.solve.solver.Solver`: one analyzer per board and rule set
    (so solved positions are shared), its clock restarted for each check."""

    def __init__(self, solver: Solver | None = None):
        self.solver = solver or Solver()
        self.analyzers: dict = {}
        self.unsettled = 0

    def analyzer(self, p: Position) -> Analyzer:
        key = (p.board, p.rules.name)
        if key not in self.analyzers:
            self.analyzers[key] = self.solver.analyzer(p)
        a = self.analyzers[key]
        self.solver.restart_clock(a.oracle)
        return a

    def check(self, choice: Choice, player: str, move_text: str) -> Check:
        """The check of one choice (verdict ``unsettled`` when the budget ran out first)."""
        e = choice.entry
        c = Check(player, e.source, e.line, e.name, choice.position, move_text,
                  last_move=e.last_move if choice.position == e.position else None, in_game=e.history is not None)
        c = judge(self.analyzer(choice.position), choice.position, move_text, c)
        if c.verdict == Verdict.UNSETTLED:
            self.unsettled += 1
        return c


def summarise(checks: list[Check], worst: int = 3, players: Sequence[str] = ()) -> list[PlayerSummary]:
    """One summary per player (every name in ``players`` gets a row, checked or not)."""
    by: dict[str, PlayerSummary] = {name: PlayerSummary(name) for name in players}
    for c in checks:
        s = by.setdefault(c.player, PlayerSummary(c.player))
        if c.problem:
            s.problems += 1
            continue
        if c.verdict == Verdict.UNSETTLED:
            s.unsettled += 1
            continue
        s.settled += 1
        if c.loss is not None:
            s.losses.append(c.loss)
        s.optimal += c.verdict == Verdict.OPTIMAL
        s.inaccuracies += c.verdict == Verdict.INACCURACY
        s.blunders += c.verdict == Verdict.BLUNDER
    for s in by.values():
        bad = sorted((c for c in checks if c.player == s.player and c.min_loss), key=lambda c: -(c.min_loss or 0))
        s.worst = bad[:worst]
    return list(by.values())


def summary_table(summaries: list[PlayerSummary]) -> str:
    """The summary per player: ``moves`` looked at, of which ``settled`` (a verdict proved), the
    share of the settled ones optimal, their mean loss, then the counts of each verdict."""
    head = ("player", "moves", "settled", "optimal", "mean loss", "inaccuracies", "blunders", "unsettled",
            "problems")
    # a player with nothing settled (every answer a problem, or every move unsettled) has no rate: '-'
    rows = [(s.player, str(s.moves), str(s.settled), f"{s.percent_optimal:.1f}%" if s.settled else "-",
             f"{s.mean_loss:.2f}" if s.settled else "-", str(s.inaccuracies),
             str(s.blunders), str(s.unsettled), str(s.problems)) for s in summaries]
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in [head] + rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for s in summaries:
        if s.worst:
            lines.append(f"worst of {s.player}: " + "; ".join(
                f"{c.where} {c.move} loses {c.loss if c.loss is not None else f'at least {c.min_loss}'}"
                for c in s.worst))
    return "\n".join(printable(line) for line in lines)


def run_verify(choices: list[Choice], askers: Sequence[Asker], verifier: Verifier,
               on_check: Callable[[Check], None] | None = None, into: list[Check] | None = None) -> list[Check]:
    """Check every choice: the recorded move, or each asker's answer. ``on_check(check)`` after each.
    Checks are appended to ``into`` (a new list by default) as they are made, so that a caller
    interrupted by Ctrl-C keeps those done so far."""
    checks = [] if into is None else into

    def add(c: Check) -> None:
        checks.append(c)
        if on_check:
            on_check(c)

    for choice in choices:
        if choice.move is not None:
            add(verifier.check(choice, choice.player or "moves in the file", choice.move))
            continue
        for asker in askers:
            try:
                text = asker.bestmove(choice.position, choice.history)
            except EngineError as exc:  # crashed, hung, garbage, or could not start: a problem
                e = choice.entry
                add(Check(asker.name, e.source, e.line, e.name, choice.position, "", problem=str(exc)))
                continue
            add(verifier.check(choice, asker.name, text))
    return checks
