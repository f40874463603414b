"""The solver as a UAI engine (``ataxx-solve uai``): the protocol loop on standard input and output.

UAI is UCI for Ataxx (libataxx, cuteataxx): ``uai`` (answered with ``id``, ``option`` and
``uaiok``; the compiled kernels start loading), ``isready`` (``readyok`` once the kernels are
loaded, at most :data:`WARM_UP_WAIT` s; answered at once while a search runs: the search runs
in a thread of its own), ``setoption name N value V``, ``uainewgame``,
``position startpos|fen F [moves M...]``, ``go`` (``movetime``, ``wtime``/``btime``/``winc``/
``binc``, ``nodes``, ``depth``, ``infinite``), ``stop`` and ``quit``. Every line written is
flushed. Commands it does not know are ignored, as UCI asks, and named once each on standard error.

Every ``go`` is answered by one ``bestmove``: ``stop``, ``quit``, ``uainewgame`` or a new ``position``
during a search stop it and answer it first; at the end of the input a search with a limit runs
to it and is answered, an infinite one is stopped and answered. A rejected ``position`` leaves
the last valid one (the start before any) and says so in an ``info string``; ``bestmove`` is
never a move illegal in the position held. Times and counts of ``go`` are clamped
(:data:`MAX_MS`, :data:`MAX_NODES`, :data:`MAX_DEPTH`).

What it plays: the position is solved with :class:`solver.solve.solver.Solver` under the time it
is given. Where the value is proved in time, a proved-optimal move; where only bounds are proved,
the move that proves the lower bound; where nothing is proved, the built-in greedy player's move
(:class:`solver.play.players.GreedyPlayer`, computed before the search starts), so that it always
has a move to give when its time is up. A watchdog gives ``bestmove`` at the end of the time
even when the search has not returned (the first search of a process loads the compiled
kernels, which can take seconds); the solver's own deadline comes earlier
(:data:`SOLVER_SHARE` of the time), so that it normally answers itself.

``info`` lines give ``nodes``, ``nps``, ``time`` (ms), ``pv`` and ``score cp`` (the value, the
final piece difference for the side to move, times 100), with ``lowerbound`` or ``upperbound``
when only a bound is proved, and an ``info string`` says the same in words.

The options: ``Hash`` (MiB, the memory the solver may use), ``Threads`` (search threads),
``Rules`` (``classic``, ``uai``, ``cs61b``, ``jump3``; default ``uai``, the rules UAI engines play),
``Tables`` (a tablebase directory: positions it covers are answered from it).

Decisions where UAI says nothing for an exact solver: ``go depth D`` is a node budget of
``D x`` :data:`NODES_PER_DEPTH` (repeatable on any machine); a bare ``go`` searches for
:data:`DEFAULT_MOVETIME` ms; with a clock the move gets a twentieth of the time left plus
three quarters of the increment, never more than half the time left.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from solver import __version__
from solver.common.limits import Limits
from solver.game.rules import PASS, RULE_SETS, UAI, Move, Position, Rules, X
from solver.oracles.oracle import Progress, ProgressCallback
from solver.oracles.search import SearchOracle, default_threads
from solver.play.players import GreedyPlayer
from solver.solve.analysis import Analyzer
from solver.solve.report import SideResult
from solver.solve.solver import Solver, warm_up
from solver.tables.index import TableError
from solver.tables.probe import MissingTableError, Tablebase

NAME = f"ataxx-solve {__version__}"
AUTHOR = "the ataxx-solver authors"
DEFAULT_HASH_MIB = 64
MAX_HASH_MIB = 1 << 20
DEFAULT_MOVETIME = 5000  # ms, for a bare 'go'
NODES_PER_DEPTH = 100_000
MOVES_TO_GO = 20  # a clock's time is shared as if this many moves were left
MIN_MARGIN = 0.05  # seconds kept back from every time limit (answering, the pipe, the GUI)
MARGIN_SHARE = 0.1  # and this share of the time given
SOLVER_SHARE = 0.85  # the solver's deadline, as a share of the time to think: it answers before the watchdog
WATCHDOG_GRACE = 0.2  # after 'stop': how long the search may take to answer before it is answered for
WARM_UP_WAIT = 60.0  # seconds 'isready' waits at most for the kernels to load (a first run compiles them)
INFO_EVERY = 1.0  # seconds between progress info lines


class Stopped(KeyboardInterrupt):
    """Raised by the progress callback to stop the solver ('stop', 'quit', a new 'go'): the
    solver treats it as Ctrl-C, stopping cleanly with what it proved."""


@dataclass
class GoLimits:
    """What a ``go`` command asked: times in ms, ``None`` where not given."""

    movetime: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    nodes: int | None = None
    depth: int | None = None
    infinite: bool = False


MAX_MS = 2**31 - 1  # times (movetime, wtime, btime, winc, binc) are clamped to 0 .. this (24.8 days)
MAX_NODES = 10**15  # nodes are clamped to 1 .. this
MAX_DEPTH = 10_000  # depth to 1 .. this (a node budget of depth x NODES_PER_DEPTH)
_CLAMP = {"movetime": (0, MAX_MS), "wtime": (0, MAX_MS), "btime": (0, MAX_MS), "winc": (0, MAX_MS),
          "binc": (0, MAX_MS), "nodes": (1, MAX_NODES), "depth": (1, MAX_DEPTH), "movestogo": (1, 10_000),
          "mate": (1, 10_000)}


def _clamped(text: str, low: int, high: int) -> int:
    """A whole number in ASCII digits (a sign allowed), clamped to ``low .. high`` without
    converting more digits than it needs (10^30 and a million digits clamp alike)."""
    sign, digits = (text[0], text[1:]) if text[:1] in "+-" else ("+", text)
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError
    digits = digits.lstrip("0") or "0"
    value = int(digits) if len(digits) <= 18 else 10**18
    return max(low, min(high, -value if sign == "-" else value))


def parse_go(words: list[str]) -> GoLimits:
    """The limits of ``go`` from its words (after ``go``); unknown words and their values are
    skipped (``go nodes N simulations N`` from python-ataxx). Every number is clamped to its
    range (:data:`MAX_MS` for times, a negative time is 0, :data:`MAX_NODES`, :data:`MAX_DEPTH`).
    Raises ValueError for a value that is not a whole number."""
    g = GoLimits()
    i = 0
    while i < len(words):
        w = words[i]
        if w == "infinite":
            g.infinite = True
            i += 1
            continue
        if w in _CLAMP:
            if i + 1 >= len(words):
                raise ValueError(f"go {w} needs a number")
            text = words[i + 1]
            try:
                value = _clamped(text, *_CLAMP[w])
            except ValueError:
                raise ValueError(f"go {w} needs a whole number, not {text[:20]!r}") from None
            if hasattr(g, w):
                setattr(g, w, value)
            i += 2
            continue
        i += 1  # unknown: skipped (a value after it is skipped as a word of its own)
    return g


def time_budget(g: GoLimits, turn: str) -> float | None:
    """Seconds to think for the side ``turn`` ('x' uses btime/binc, as in libataxx, where x is
    Black), ``None``: no time limit. The safety margin is already taken off."""
    if g.infinite:
        return None
    if g.movetime is not None:
        t = max(0, g.movetime) / 1000
    elif (g.btime if turn == "x" else g.wtime) is not None:
        left_ms = (g.btime if turn == "x" else g.wtime) or 0
        left = max(0, left_ms) / 1000
        inc = max(0, g.binc if turn == "x" else g.winc) / 1000
        t = min(left / MOVES_TO_GO + inc * 3 / 4, left / 2)
    elif g.nodes is not None or g.depth is not None:
        return None
    else:
        t = DEFAULT_MOVETIME / 1000
    return max(0.0, t - max(MIN_MARGIN, MARGIN_SHARE * t))


@dataclass
class BestMove:
    """The move to play and why: ``kind`` 'proved' (optimal, value proved), 'bound' (proves the
    lower bound), 'greedy' (nothing proved), 'pass' or 'over'."""

    move: Move | None
    kind: str
    lower: int | None = None  # the mover's proved interval
    upper: int | None = None
    pv: list[str] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    note: str = ""


class _Search:
    """One ``go``: a worker thread solving, a watchdog, and the answer given once."""

    def __init__(self, engine: "UAIServer", position: Position, g: GoLimits):
        self.engine = engine
        self.position = position
        self.go = g
        self.stop = threading.Event()
        self.answered = False
        self.done = threading.Event()  # set once bestmove is written
        self.start = time.monotonic()
        budget = time_budget(g, position.turn.value)
        self.hard_deadline = None if budget is None else self.start + budget
        self.deadline = None if budget is None else self.start + budget * SOLVER_SHARE
        self.choice = first_choice(position)  # before any search: the watchdog always has a move
        self.live: Progress | None = None
        self.last_info = self.start
        self.thread = threading.Thread(target=self._run, daemon=True, name="uai-search")
        self.watchdog: threading.Timer | None = None

    def begin(self) -> None:
        self.thread.start()
        if self.hard_deadline is not None:
            self.watchdog = threading.Timer(max(0.0, self.hard_deadline - time.monotonic()), self.timeout)
            self.watchdog.daemon = True
            self.watchdog.start()

    # -- the answer --------------------------------------------------------------------------

    def answer(self) -> None:
        """``bestmove`` with the best choice so far (once)."""
        with self.engine.lock:
            if self.answered:
                return
            self.answered = True
        if self.watchdog is not None:
            self.watchdog.cancel()
        c = self._best_now()
        p = self.position
        if not _answer_is_legal(p, c.move):  # never a move the position held does not allow
            c = first_choice(p)
        self.engine.send_info(c, p)
        self.engine.send("bestmove " + ("0000" if c.move is None else p.move_name(c.move)))
        self.done.set()

    def _best_now(self) -> BestMove:
        """The worker's choice, or one from the live progress when the worker has not finished."""
        c = self.choice
        live = self.live
        if c.kind == "greedy" and not c.seconds:  # the worker has not finished: its work so far
            c.seconds = time.monotonic() - self.start
            c.nodes = 0 if live is None else live.done
        if c.kind == "greedy" and live is not None and live.lower is not None and live.upper is not None:
            lo, hi = (live.lower, live.upper) if self.position.turn == X else (-live.upper, -live.lower)
            squares = self.position.board.playable.bit_count()
            c.lower, c.upper, c.nodes = lo, hi, live.done
            c.seconds = time.monotonic() - self.start
            if lo > -squares and live.best_move is not None and self.position.is_legal(live.best_move):
                c.move, c.kind = live.best_move, "bound"
                c.pv = [self.position.move_name(live.best_move)]
        return c

    def timeout(self) -> None:
        """The watchdog: time is up (the solver's own deadline came earlier): answer for the search."""
        self.stop.set()
        self.answer()

    def halt(self) -> None:
        """``stop``: stop the search and answer (at once if the search does not stop soon)."""
        self.stop.set()
        self.thread.join(WATCHDOG_GRACE)
        self.answer()

    # -- the worker --------------------------------------------------------------------------

    def _progress(self, prog: Progress) -> None:
        if self.stop.is_set():
            raise Stopped
        if prog.phase != "testing":  # (a test after the value has no interval: keep the search's)
            self.live = prog
        now = time.monotonic()
        if now - self.last_info >= INFO_EVERY:
            self.last_info = now
            ms = max(1, int((now - self.start) * 1000))  # since 'go', as the last info line counts it
            self.engine.send(f"info nodes {prog.done} nps {prog.done * 1000 // ms} time {ms}")

    def _run(self) -> None:
        try:
            self._solve()
        except Stopped:
            pass
        except Exception as exc:  # noqa: BLE001 - a bug must not lose the game on time: say it, play greedy
            self.engine.log(f"search failed: {type(exc).__name__}: {exc}")
        if self.go.infinite:
            self.stop.wait()  # UCI: no bestmove before 'stop' in an infinite search
        self.answer()

    def _solve(self) -> None:
        p = self.position
        if self.choice.kind in ("over", "pass") or (self.choice.kind == "only" and not self.go.infinite):
            return
        g = self.go
        nodes = g.nodes if g.nodes is not None else (None if g.depth is None else max(1, g.depth) * NODES_PER_DEPTH)
        solver, analyzer = self.engine.solver_for(p, self.deadline, nodes, self._progress)
        nodes0 = analyzer.oracle.states
        report = solver.solve(p, analyzer=analyzer)
        res = report.sides[0]
        used = analyzer.oracle.states - nodes0
        # the time since 'go' (as the progress lines give it: a GUI reads the last as the move's time)
        self.choice = choose(p, res, self.choice.move, used, time.monotonic() - self.start)


def _answer_is_legal(p: Position, move: Move | None) -> bool:
    """``bestmove`` with ``move`` (None: 0000) is legal in ``p``: 0000 only when the game is over
    or the mover must pass."""
    if move is None:
        return p.is_over() or p.legal_moves() == [PASS]
    return p.is_legal(move)


def first_choice(p: Position) -> BestMove:
    """The answer before any search: 0000 when the game is over or the mover must pass, the only
    legal move, or the greedy player's move."""
    if p.is_over():
        return BestMove(None, "over", note="the game is over")
    moves = p.legal_moves()
    if moves == [PASS]:
        return BestMove(None, "pass", note="no move but a pass")
    if len(moves) == 1:
        return BestMove(moves[0], "only", note="the only legal move")
    return BestMove(GreedyPlayer(seed=0).choose(p), "greedy", note="nothing proved: the greedy move")


def choose(p: Position, res: SideResult, fallback: Move | None, nodes: int, seconds: float) -> BestMove:
    """The move to play from a side's result (:class:`solver.solve.report.SideResult`): proved-optimal
    where the value is exact, else the move that proves the lower bound, else ``fallback``."""
    squares = p.board.playable.bit_count()
    lo, hi = res.interval.for_mover(p.turn)
    sign = 1 if p.turn == X else -1
    bound = None if res.best_bound is None else res.best_bound * sign
    line = [] if res.line is None else res.line.names()
    c = BestMove(fallback, "greedy", lo, hi, nodes=nodes, seconds=seconds)
    if lo == hi and res.optimal_moves:
        c.move = res.best_move if res.best_move in res.optimal_moves else res.optimal_moves[0]
        c.kind = "proved"
    elif lo == hi and res.best_move is not None and bound == lo:
        c.move, c.kind = res.best_move, "proved"
    elif lo > -squares and res.best_move is not None and bound is not None and bound >= lo:
        c.move, c.kind = res.best_move, "bound"
    if c.move is not None and not p.is_legal(c.move):  # never send an illegal move
        c.move, c.kind = fallback, "greedy"
    c.pv = line if c.kind == "proved" and line and c.move is not None and line[0] == p.move_name(c.move) \
        else ([] if c.move is None else [p.move_name(c.move)])
    if c.kind == "proved":
        c.note = f"proved: value {lo:+d} for the side to move, {p.move_name(c.move) if c.move else '0000'} is optimal"
    elif c.kind == "bound":
        c.note = f"proved {lo:+d}..{hi:+d} for the side to move; this move holds at least {lo:+d}"
    elif lo > -squares or hi < squares:  # bounds on the value, but no move proved to reach the lower one
        c.note = f"proved {lo:+d}..{hi:+d} for the side to move, no move proved to hold more: the greedy move"
    else:
        c.note = "nothing proved within the limits: the greedy move"
    if res.stopped and c.kind != "proved":
        c.note += f" (stopped: {res.stopped})"
    return c


def score_words(c: BestMove, squares: int) -> str:
    """The ``score`` part of an info line ('' when nothing is proved)."""
    lo, hi = c.lower, c.upper
    if lo is None or hi is None:
        return ""
    if lo == hi:
        return f"score cp {lo * 100}"
    if lo > -squares:
        return f"score cp {lo * 100} lowerbound"
    if hi < squares:
        return f"score cp {hi * 100} upperbound"
    return ""


class UAIServer:
    """The protocol: :meth:`handle` one line (False after ``quit``), :meth:`run` over a stream."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None):
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.lock = threading.Lock()
        self.write_lock = threading.Lock()
        self.hash_mib = DEFAULT_HASH_MIB
        self.threads = 1
        self.rules: Rules = UAI
        self.tables: Tablebase | None = None
        self.position: Position = Position.start(7, 7, UAI)  # the last valid position given
        self.position_words: list[str] = ["startpos"]
        self.search: _Search | None = None
        self.unknown: set[str] = set()
        self._cached: tuple[tuple, Analyzer] | None = None  # (key, analyzer) of the last board searched
        self.warming: threading.Thread | None = None

    # -- output ------------------------------------------------------------------------------

    def send(self, line: str) -> None:
        with self.write_lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (OSError, ValueError):
                pass  # the GUI went away: nothing to tell

    def log(self, message: str) -> None:
        try:
            print(f"ataxx-solve uai: {message}", file=self.err, flush=True)
        except (OSError, ValueError):
            pass

    def send_info(self, c: BestMove, p: Position) -> None:
        ms = max(1, int(c.seconds * 1000))
        words = [f"info nodes {c.nodes}", f"nps {c.nodes * 1000 // ms}", f"time {ms}"]
        score = score_words(c, p.board.playable.bit_count())
        if score:
            words.append(score)
        if c.pv:
            words.append("pv " + " ".join(c.pv))
        self.send(" ".join(words))
        self.send(f"info string {c.note or c.kind}")

    # -- solving -----------------------------------------------------------------------------

    def solver_for(self, p: Position, deadline: float | None, nodes: int | None,
                   progress: ProgressCallback) -> tuple[Solver, Analyzer]:
        """A solver for ``p`` with the options and limits, and an analyzer to solve with (the last
        board's one again when the board, rules and options are the same and no search still runs on it:
        what it proved is kept)."""
        threads = 1 if nodes is not None else self.threads
        limits = Limits(max_memory=self.hash_mib << 20, deadline=deadline, nodes=nodes)
        tables = self.tables
        if tables is not None:
            try:
                tables.probe(p)
            except MissingTableError:
                tables = None
            except TableError as exc:
                self.log(f"Tables: {exc}")
                tables = None
        solver = Solver(p.rules, limits=limits, progress=progress, tables=tables, threads=threads)
        key: tuple = (p.board, p.rules, threads, self.hash_mib, None if tables is None else str(tables.directory),
               solver.algorithm_for(p))
        if key[-1] != "search":  # the other engines take their limits when made
            key += (nodes,)
        if self._cached is not None and self._cached[0] == key:
            analyzer = self._cached[1]
            oracle = analyzer.oracle
            warm_up(solver.algorithm_for(p), p.rules)
            oracle.deadline = limits.deadline_from_now()
            oracle.progress = progress
            if isinstance(oracle, SearchOracle):
                oracle.node_limit = oracle.states + nodes if nodes is not None else 0
        else:
            self._cached = None
            analyzer = solver.analyzer(p)
            self._cached = (key, analyzer)
        return solver, analyzer

    # -- commands ----------------------------------------------------------------------------

    def run(self, stream: TextIO | None = None) -> int:
        """Read commands until ``quit`` or the end of the input; the exit status (0)."""
        stream = stream if stream is not None else sys.stdin
        for line in stream:
            if not self.handle(line):
                return 0
        # the end of the input: a search with a limit runs to it and is answered; an infinite one
        # (which only 'stop' would end) is stopped and answered at once
        s = self.search
        if s is not None and not s.go.infinite:
            s.done.wait()
        self._stop_search(answer=True)
        return 0

    def handle(self, line: str) -> bool:
        """Carry out one command line; False after ``quit``."""
        words = line.split()
        if not words:
            return True
        cmd, rest = words[0], words[1:]
        if cmd == "uai":
            self.send(f"id name {NAME}")
            self.send(f"id author {AUTHOR}")
            self.send(f"option name Hash type spin default {DEFAULT_HASH_MIB} min 1 max {MAX_HASH_MIB}")
            self.send(f"option name Threads type spin default 1 min 1 max {max(1, default_threads())}")
            self.send(f"option name Rules type combo default uai {' '.join('var ' + r for r in RULE_SETS)}")
            self.send("option name Tables type string default <empty>")
            self.send("uaiok")
            self._start_warm_up()
        elif cmd == "isready":
            warming = self.warming
            if warming is not None and self.search is None:  # not while searching: then at once
                warming.join(WARM_UP_WAIT)
            self.send("readyok")
        elif cmd == "uainewgame":
            self._stop_search(answer=True)
            self._cached = None
        elif cmd == "setoption":
            self._setoption(rest)
        elif cmd == "position":
            self._stop_search(answer=True)  # the search was for the position before: answered first
            self._position(rest)
        elif cmd == "go":
            self._go(rest)
        elif cmd == "stop":
            self._stop_search(answer=True)
        elif cmd == "quit":
            self._stop_search(answer=True)  # a go is always answered, then the engine leaves
            return False
        elif cmd not in self.unknown:
            self.unknown.add(cmd)
            self.log(f"unknown command {cmd[:40]!r} ignored")
        return True

    def _start_warm_up(self) -> None:
        """Load the compiled kernels of the engines under the current rules in a thread (once per
        process and rule set): ``isready`` waits for it, so that a GUI's clock, started after
        ``readyok``, does not pay for it."""
        rules = self.rules

        def warm() -> None:
            try:
                for algorithm in ("search", "retro"):
                    warm_up(algorithm, rules)
            except Exception as exc:  # noqa: BLE001 - the first search would say it again
                self.log(f"warm-up failed: {type(exc).__name__}: {exc}")

        self.warming = threading.Thread(target=warm, daemon=True, name="uai-warm-up")
        self.warming.start()

    def _error(self, where: str, message: str) -> None:
        self.log(f"{where}: {message}")
        self.send(f"info string error: {where}: {message}")

    def _setoption(self, words: list[str]) -> None:
        text = " ".join(words)
        if not words or words[0] != "name":
            self._error("setoption", f"expected 'setoption name N value V', not {text[:60]!r}")
            return
        name_words: list[str] = []
        value_words: list[str] = []
        target: list[str] | None = None
        for w in words[1:]:
            if w == "value" and target is None:
                target = value_words
                continue
            (target if target is not None else name_words).append(w)
        name, value = " ".join(name_words).lower(), " ".join(value_words)
        try:
            if name == "hash":
                self.hash_mib = _whole(value, "Hash", 1, MAX_HASH_MIB)
            elif name == "threads":
                self.threads = _whole(value, "Threads", 1, max(1, default_threads()))  # the advertised range
            elif name == "rules":
                if value.lower() not in RULE_SETS:
                    raise ValueError(f"Rules must be one of {', '.join(RULE_SETS)}, not {value[:40]!r}")
                self.rules = RULE_SETS[value.lower()]
                self._start_warm_up()
                self._rules_changed()  # the position again, under the new rules
            elif name == "tables":
                if value in ("", "<empty>"):
                    self.tables = None
                elif not Path(value).is_dir():
                    raise ValueError(f"Tables: {value[:80]!r} is not a directory")
                else:
                    self.tables = Tablebase(value)
            else:
                raise ValueError(f"unknown option {name[:40]!r} (known: Hash, Threads, Rules, Tables)")
        except (ValueError, TableError) as exc:
            self._error("setoption", str(exc))

    def _position(self, words: list[str]) -> None:
        """Set the position; a rejected ``position`` leaves the last valid one (said in an ``info
        string``), so that ``go`` never plays from a position half set."""
        try:
            p = self._parse_position(words, self.rules)
        except ValueError as exc:
            text = str(exc).removeprefix("position ")  # a FEN's error names its source, 'position fen'
            held = self.position
            self._error("position", f"{text} (the position stays the last valid one: {held.fen()})")
            return
        self.position = p
        self.position_words = list(words)

    def _rules_changed(self) -> None:
        """The last valid position again under the new rules (its start if it is not one under them)."""
        try:
            self.position = self._parse_position(self.position_words, self.rules)
        except ValueError as exc:
            self.position = Position.start(7, 7, self.rules)
            self.position_words = ["startpos"]
            self._error("position", f"{str(exc).removeprefix('position ')} under the rules "
                                    f"{self.rules.name} (the position is now the start)")

    @staticmethod
    def _parse_position(words: list[str], rules: Rules) -> Position:
        if not words:
            raise ValueError("expected 'startpos' or 'fen F', then optionally 'moves M...'")
        if "moves" in words:
            k = words.index("moves")
            head, moves = words[:k], words[k + 1:]
        else:
            head, moves = words, []
        if head and head[0] == "startpos" and len(head) == 1:
            p = Position.start(7, 7, rules)
        elif head and head[0] == "fen" and len(head) > 1:
            p = Position.from_fen(" ".join(head[1:]), rules, source="position fen")
        else:
            raise ValueError(f"expected 'startpos' or 'fen F', not {' '.join(head)[:60]!r}")
        for n, text in enumerate(moves, 1):
            try:
                p = p.play(p.parse_move(text))
            except ValueError as exc:
                raise ValueError(f"move {n} ({text[:20]!r}): {exc}") from None
        return p

    def _go(self, words: list[str]) -> None:
        self._stop_search(answer=True)
        try:
            g = parse_go(words)
        except ValueError as exc:
            self._error("go", str(exc))
            g = GoLimits(movetime=DEFAULT_MOVETIME)
        self.search = _Search(self, self.position, g)
        self.search.begin()

    def _stop_search(self, answer: bool) -> None:
        s = self.search
        if s is None:
            return
        self.search = None
        if answer:
            s.halt()
        else:
            with self.lock:
                s.answered = True
            s.stop.set()
        if s.thread.is_alive():
            # answered but not yet stopped (a kernel past its time on a loaded machine): the next
            # search must not share its analyzer, whose oracle it is still searching
            self._cached = None


def _whole(text: str, name: str, low: int, high: int) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 10) or not low <= int(text) <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, not {text[:40]!r}")
    return int(text)


def main(stream: TextIO | None = None) -> int:
    """``ataxx-solve uai``: the protocol on standard input and output until ``quit``."""
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    return UAIServer().run(stream)
