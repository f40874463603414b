"""The answers of the server, from the Python API, computed in a worker thread within a budget.

:func:`analyse` answers ``GET /api/solve``: the value of a position and of every legal move, in
the shape of lila-tablebase's answer (``category``, ``value`` or ``lower``/``upper``, ``depth``,
``solver``, ``moves`` best first). Where it comes from:

1. the SQLite cache (:mod:`solver.solve.cache`): when every move's value and depth are there,
   the answer is made from them (``solver: cache``) and nothing is solved;
2. otherwise the :class:`~solver.solve.solver.Solver` solves the position (reference, retro,
   tables or search, as ``auto`` chooses), and each move's value comes from the move table
   of an exact engine, or, under the search, from a search of the position after it, each move
   with its share of the time left (the position itself first, with a third);
3. what was proved is written back to the cache (bounds only narrow there; an exact row is
   never replaced by bounds).

Values are from X's side, as everywhere in the project; ``category`` and the moves' verdicts
are the side to move's: ``win`` means the side to move wins (by playing the move, for a move).
A move's ``depth`` counts the move itself (``ataxx-solve --moves``' table); the position's is
plies to the end with best play; ``null`` with ``category`` "draw by infinite play".

:func:`board_facts` gives the board's stops, outcome class, orthodox summary and canonical value
(``--value``); :func:`verify_plan` and :func:`run_verify` are ``verify --json`` on a posted text.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from solver.app.pictures import Arrow, board_svg
from solver.app.web.inputs import BadInput
from solver.app.web.jobs import Job
from solver.common.limits import LimitError, Limits, TimeLimitError
from solver.common.scores import M
from solver.game.rules import CLASSIC, Move, O, Position, Rules, X, move_order_key
from solver.io.formats import Entry, printable, read_positions, write_fen
from solver.io.pgn import Game, Pick, looks_like_pgn, read_games
from solver.oracles.exact import DEPTH_BUDGET, exact_score
from solver.oracles.oracle import Oracle, stop_reason
from solver.oracles.reference import ReferenceOracle
from solver.oracles.search import SearchOracle
from solver.play.annotate import annotated_pgn
from solver.play.verify import Check, Choice, Verifier, choices_from_file, run_verify as verify_all, summarise, verdict
from solver.solve.analysis import OUTCOME_CLASSES, Analyzer, Evaluation, Interval
from solver.solve.cache import Cache, CacheError, side_row
from solver.solve.report import SideResult
from solver.solve.solver import Solver
from solver.tables.probe import Tablebase

ROOT_SHARE = 1 / 3          # of the budget, for the position itself under the search (the moves share the rest)
ANALYZERS_PER_WORKER = 4    # boards whose solved positions a worker keeps (the retro engine's graph, the search's table)
# The largest a request's search table grows (solve and verify): 512 MiB, as on the command line
# without --max-memory, whatever the worker's memory budget. Growing into fresh memory costs about 3 s
# a GiB on the machine measured: with the budget's 8 GiB (and 4 GiB of proof numbers) a 10 s request took 36 s.
SEARCH_TABLE_BYTES = 512 << 20
MAX_VERIFY_MOVES = 500      # moves judged in one request
SOURCE = "<request>"        # the file name verify's records give a posted text


@dataclass(frozen=True)
class Settings:
    """What the command line sets for every request."""

    rules: Rules = CLASSIC
    tables: str | None = None          # a directory of tablebases (checked when the server starts)
    tables_memory: int | None = None
    cache_path: Path | None = None     # None: no cache
    max_seconds: float = 10.0
    max_nodes: int | None = None
    max_memory: int | None = None      # per solve


# -- each worker's own: analyzers kept between requests, its cache connection, its tables ----------

class _Workshop(threading.local):
    def __init__(self) -> None:
        self.analyzers: OrderedDict[tuple, Analyzer] = OrderedDict()
        self.cache: Cache | None = None
        self.cache_path: Path | None = None
        self.tables: Tablebase | None = None
        self.tables_dir: str | None = None


_workshop = _Workshop()


def _cache(settings: Settings) -> Cache | None:
    ws = _workshop
    if settings.cache_path is None:
        return None
    if ws.cache is None or ws.cache_path != settings.cache_path:
        ws.cache = Cache(settings.cache_path)  # (sqlite3 connections stay in their thread)
        ws.cache_path = settings.cache_path
    return ws.cache


def _tables(settings: Settings) -> Tablebase | None:
    ws = _workshop
    if settings.tables is None:
        return None
    if ws.tables is None or ws.tables_dir != settings.tables:  # (a Tablebase reads files: one per thread)
        ws.tables = Tablebase(settings.tables, search_bytes=settings.tables_memory)
        ws.tables_dir = settings.tables
    return ws.tables


def _solver(settings: Settings, job: Job, rules: Rules, each_move: bool = False) -> Solver:
    """A request's Solver: one thread, the worker's memory, the search table capped, the tables;
    the job's node budget and deadline, or with ``each_move`` (a verify) the server's budget and
    time for each judged move."""
    nodes, deadline, timeout = (settings.max_nodes, None, settings.max_seconds) if each_move else \
        (job.nodes, job.deadline, None)
    limits = Limits(max_memory=settings.max_memory, search_table=SEARCH_TABLE_BYTES, nodes=nodes, deadline=deadline,
                    timeout=timeout)
    return Solver(rules, "auto", limits, progress=job.on_progress, tables=_tables(settings), threads=1)


def _analyzer(solver: Solver, p: Position, job: Job) -> tuple[Analyzer, tuple]:
    """The worker's analyzer for p's board, rules and algorithm (made once, kept for the next
    requests), its clock and node budget set to the job's, its progress reported to the job."""
    ws = _workshop
    key = (p.board, p.rules.name, solver.algorithm_for(p))
    analyzer = ws.analyzers.get(key)
    if analyzer is None:
        analyzer = solver.analyzer(p)
        ws.analyzers[key] = analyzer
        while len(ws.analyzers) > ANALYZERS_PER_WORKER:
            ws.analyzers.popitem(last=False)
    ws.analyzers.move_to_end(key)
    oracle = analyzer.oracle
    oracle.progress = job.on_progress
    oracle.deadline = job.deadline
    if isinstance(oracle, SearchOracle):
        oracle.node_limit = oracle.states + job.nodes if job.nodes else 0
    return analyzer, key


# -- values ---------------------------------------------------------------------------------------

@dataclass
class Known:
    """What is proved about one position: its interval (X's side) and, when known, its depth
    (plies to the end; None: infinite play)."""

    interval: Interval
    depth: int | None = None
    depth_known: bool = False

    @property
    def exact(self) -> bool:
        return self.interval.exact

    @property
    def complete(self) -> bool:
        return self.interval.exact and self.depth_known

    @classmethod
    def unknown(cls, p: Position) -> "Known":
        return cls(Interval.unknown(p.board.playable.bit_count()))

    @classmethod
    def of(cls, s: SideResult | None, p: Position) -> "Known":
        if s is None:
            return cls.unknown(p)
        if s.evaluation is not None and s.interval.exact:
            return cls(s.interval, s.evaluation.depth, True)
        return cls(s.interval)


def _final(p: Position) -> Known | None:
    r = p.result()
    return None if r is None else Known(Interval(r, r, p.board.playable.bit_count()), 0, True)


def category(p: Position, k: Known) -> str:
    """win, loss, draw, draw by infinite play (the side to move's outcome, when proved) or unknown."""
    lo, hi = k.interval.for_mover(p.turn)
    if lo > 0:
        return "win"
    if hi < 0:
        return "loss"
    if lo == hi == 0:
        return "draw by infinite play" if k.depth_known and k.depth is None else "draw"
    return "unknown"


def words(k: Known) -> str:
    """The outcome in words, X's side: 'X wins by 3', 'O wins by 2 to 5', 'draw by infinite play'."""
    if k.exact and k.depth_known:
        return Evaluation(k.interval.lower, k.depth).describe()
    return k.interval.describe()


def _value_fields(k: Known) -> dict:
    iv = k.interval
    out: dict = {"value": iv.lower} if iv.exact else {"lower": iv.lower, "upper": iv.upper}
    if k.depth_known:
        out["depth"] = k.depth
    return out


def _pref_depth(winning: bool, depth: int | None, known: bool) -> float:
    """SPEC section 4's preference between moves of one value: the shortest win, the longest
    loss or draw (infinite play longest of all); a depth not known last."""
    if not known:
        return math.inf
    d = math.inf if depth is None else depth
    return d if winning else -d


def ranked(p: Position, moves: dict[Move, Known], root: Known) -> list[tuple[Move, Known]]:
    """The moves best first: by the value the mover is proved to get (lower bound, then upper), then
    SPEC section 4's preference by depth (from the position's value: shortest first when it wins),
    then notation order (the solver's move table, for exact values)."""
    winning = root.interval.for_mover(p.turn)[0] > 0

    def key(item: tuple[Move, Known]) -> tuple:
        m, k = item
        lo, hi = k.interval.for_mover(p.turn)
        return (-lo, -hi, _pref_depth(winning, None if k.depth is None else k.depth + 1, k.depth_known),
                move_order_key(p.board, m))

    return sorted(moves.items(), key=key)


def root_from_moves(p: Position, moves: dict[Move, Known], direct: Known) -> Known:
    """What the moves prove about the position (the mover gets the best of them), with what was
    proved of it directly: the interval narrowed by both; the depth from the preferred move when
    every move is exact with its depth (SPEC section 4), else the direct one."""
    if not moves:
        return direct
    squares = p.board.playable.bit_count()
    lows, highs = zip(*(k.interval.for_mover(p.turn) for k in moves.values()))
    lo_m, hi_m = max(lows), max(highs)
    d_lo, d_hi = direct.interval.for_mover(p.turn)
    lo_m, hi_m = max(lo_m, d_lo), min(hi_m, d_hi)
    if lo_m > hi_m:  # cannot happen with correct proofs: keep the direct answer
        return direct
    iv = Interval.from_mover(p.turn, lo_m, hi_m, squares)
    if direct.complete:
        return Known(iv, direct.depth, True)
    if iv.exact and all(k.complete for k in moves.values()):
        best = ranked(p, moves, Known(iv))[0][1]
        return Known(iv, None if best.depth is None else best.depth + 1, True)
    return Known(iv)


# -- the analysis of one position -------------------------------------------------------------------

@dataclass
class Analysis:
    """A position, what is proved about it and each of its moves, and who proved it."""

    position: Position
    root: Known
    moves: dict[Move, Known]
    solver: str
    nodes: int = 0
    seconds: float = 0.0
    stopped: str | None = None

    @property
    def complete(self) -> bool:
        return self.root.complete and all(k.complete for k in self.moves.values())

    def best_move(self) -> Move | None:
        """The preferred move (SPEC section 4), when it is proved: its value exact, every other
        move proved worse, or proved as good with both depths known (then the depth decides)."""
        p = self.position
        order = ranked(p, self.moves, self.root)
        if not order or not order[0][1].exact:
            return None
        m, k = order[0]
        v = k.interval.for_mover(p.turn)[0]
        for _, o in order[1:]:
            if o.interval.for_mover(p.turn)[1] >= v and not (o.exact and o.complete and k.complete):
                return None
        return m

    def best_move_found(self) -> Move | None:
        """A move proved to keep the position's proved bound for the mover (the first ranked), when
        that bound says something: as ``solve``'s 'best move found' (None when nothing is proved)."""
        p = self.position
        order = ranked(p, self.moves, self.root)
        if not order:
            return None
        m, k = order[0]
        low = self.root.interval.for_mover(p.turn)[0]
        return m if low > -self.root.interval.squares and k.interval.for_mover(p.turn)[0] >= low else None

    def to_json(self) -> dict:
        p = self.position
        root = self.root
        forced = len(self.moves) == 1
        out: dict = {"fen": write_fen(p), "rules": p.rules.name, "turn": p.turn.value,
                     "category": category(p, root), **_value_fields(root), "words": words(root),
                     "exact": root.exact, "solver": self.solver}
        best = self.best_move()
        out["best_move"] = None if best is None else p.move_name(best)
        found = None if best is not None else self.best_move_found()
        out["best_move_found"] = None if found is None else p.move_name(found)
        moves = []
        for m, k in ranked(p, self.moves, root):
            row = {"uci": p.move_name(m), "category": category(p, k), **_value_fields(k), "words": words(k)}
            if "depth" in row and row["depth"] is not None:
                row["depth"] += 1  # the move itself
            row["verdict"] = "optimal" if forced else verdict(p, root.interval, k.interval)
            moves.append(row)
        out["moves"] = moves
        out["complete"] = self.complete
        if self.stopped:
            out["stopped"] = self.stopped
        out["nodes"] = self.nodes
        out["seconds"] = round(self.seconds, 4)
        return out

    def svg(self, last_move: Move | None = None) -> str:
        """The board as ``--svg`` draws it (:func:`solver.app.pictures.board_svg`, no legend): each
        square the mover can reach tinted by the best value of moving there, intervals pale (red,
        green, or blue where they span the draw)."""
        p = self.position
        values = {m: k.interval for m, k in self.moves.items()}
        best = self.best_move()
        arrows = [] if best is None or best.is_pass else [Arrow(best, "best")]
        # (the analyzer is not used: the values are given)
        return board_svg(Analyzer(ReferenceOracle()), p, tint=True, arrows=arrows, last_move=last_move,
                         legend=False, values=values, value=self.root.interval if not p.is_over() else None)


def _from_cache(cache: Cache | None, p: Position) -> SideResult | None:
    if cache is None:
        return None
    try:
        return cache.get_side(p)
    except CacheError:
        return None


def cached_analysis(settings: Settings, p: Position) -> tuple[Analysis | None, dict[Move, SideResult | None]]:
    """The analysis of p from the cache alone, when every move's value and depth are there (None
    otherwise), and what the cache knows of each move's position."""
    cache = _cache(settings)
    moves = p.legal_moves() if not p.is_over() else []
    known: dict[Move, SideResult | None] = {}
    values: dict[Move, Known] = {}
    for m in moves:
        c = p.push(m)
        final = _final(c)
        if final is not None:
            values[m] = final
            continue
        known[m] = _from_cache(cache, c)
        values[m] = Known.of(known[m], c)
    final = _final(p)
    if final is not None:
        return Analysis(p, final, {}, "rules"), known
    if all(k.complete for k in values.values()):
        root = root_from_moves(p, values, Known.unknown(p))
        return Analysis(p, root, values, "cache"), known
    return None, known


class _Clocked:
    """The oracle's null-window tests for :func:`exact_score`, each refused past the oracle's
    deadline. (Each test stops at the deadline, but one answered from the search's table returns
    before the kernel looks at the clock; measured on a 7 x 7 endgame with 2 empty squares: after
    the position's own solve, the depth of a move's position went up its value's band one score
    a test, 10 nodes each, 300,000 tests and more; a new oracle answers it in 430 nodes.)"""

    def __init__(self, oracle: SearchOracle | Oracle):
        self.oracle = oracle

    def score_bounds(self, p: Position) -> tuple[int, int]:
        return self.oracle.score_bounds(p)

    def score_test(self, p: Position, s: int, budget: int = 0) -> tuple[bool, int]:
        if self.oracle.deadline is not None and time.monotonic() > self.oracle.deadline:
            raise TimeLimitError("the depth: out of time")
        return self.oracle.score_test(p, s, budget)


def _child(analyzer: Analyzer, c: Position, hint: SideResult | None, depth: bool) -> tuple[Known, str | None]:
    """What the search proves about a move's position within the oracle's limits: its interval,
    and with ``depth`` its depth when the value is exact; and why it stopped short ('time',
    'nodes', ...; None). Raises KeyboardInterrupt when stopped."""
    oracle = analyzer.oracle
    squares = c.board.playable.bit_count()
    if hint is not None and isinstance(oracle, SearchOracle):
        lo, hi = hint.interval.for_mover(c.turn)
        oracle.seed(c, lo, hi)
    b = oracle.bounds(c)
    if b.stopped == "interrupt":
        raise KeyboardInterrupt
    iv = Interval.from_mover(c.turn, b.lower, b.upper, squares)
    if not iv.exact or not depth:
        return Known(iv), b.stopped
    try:
        if b.lower != 0:
            score = exact_score(_Clocked(oracle), c, b.lower, DEPTH_BUDGET)  # type: ignore[arg-type]
            return Known(iv, abs(score - b.lower * M), True), None
        return Known(iv, analyzer.evaluate(c).depth, True), None
    except LimitError as exc:
        return Known(iv), stop_reason(exc)


def _best_move_bound(p: Position, side: SideResult, values: dict[Move, Known]) -> tuple[Move, Known] | None:
    """The bound the solve proved for its best move (``side.best_bound``: the root's bound that this
    move holds), as that move's narrowed interval; None when it narrows nothing."""
    m, bound = side.best_move, side.best_bound
    if m is None or bound is None or m not in values or values[m].complete:
        return None
    iv = values[m].interval
    lower, upper = (max(iv.lower, bound), iv.upper) if p.turn == X else (iv.lower, min(iv.upper, bound))
    if lower > upper or (lower, upper) == (iv.lower, iv.upper):
        return None
    return m, Known(Interval(lower, upper, iv.squares))


def analyse(settings: Settings, job: Job, p: Position) -> Analysis:
    """The analysis of p (see the module's docstring), within the job's budget; the job's state
    gets the analysis so far (``partial``) as moves are proved. What was proved is written to
    the cache."""
    start = time.perf_counter()
    done, known = cached_analysis(settings, p)
    if done is not None:
        return done
    moves = p.legal_moves()
    squares = p.board.playable.bit_count()
    values: dict[Move, Known] = {}
    for m in moves:
        c = p.push(m)
        values[m] = _final(c) or Known.of(known.get(m), c)
    root_known = _from_cache(_cache(settings), p)
    result = Analysis(p, root_from_moves(p, values, Known.of(root_known, p)), dict(values), "cache")
    if job.stop_requested or job.seconds_left() <= 0:
        result.stopped = "interrupt" if job.stop_requested else "time"
        return result
    solver = _solver(settings, job, p.rules)
    analyzer, key = _analyzer(solver, p, job)
    oracle = analyzer.oracle
    nodes0 = oracle.states
    job.node_count = lambda: oracle.states - nodes0  # (the page's progress line: the whole analysis's)
    search = isinstance(oracle, SearchOracle)
    job.update(phase="solving", partial=Analysis(p, result.root, dict(values), "cache", stopped="time"))
    if search:
        oracle.deadline = time.monotonic() + max(0.0, job.seconds_left()) * ROOT_SHARE
        if job.nodes:
            assert isinstance(oracle, SearchOracle)
            oracle.node_limit = oracle.states + max(1, int(job.nodes * ROOT_SHARE))
    report = solver.solve(Entry(p, (p.turn,)), analyzer=analyzer,
                          known={p.turn: root_known} if root_known is not None else None)
    side = report.sides[0]
    result.solver = report.solver
    written: list[SideResult] = []
    if side.interval.lower > -squares or side.interval.upper < squares:
        written.append(side)
    stopped = side.stopped
    if side.stopped and not search:
        _workshop.analyzers.pop(key, None)  # (an engine stopped half way is not asked again)
    direct = Known(side.interval, side.evaluation.depth, True) if side.evaluation is not None else Known(side.interval)
    proved = _best_move_bound(p, side, values)
    if proved is not None:  # (the root's bound, proved with its move: that move's row shows it)
        best, narrowed = proved
        values[best] = narrowed
        written.append(SideResult(p.push(best), narrowed.interval))
    result.root = root_from_moves(p, values, direct)
    if side.moves:  # an exact engine's move table (or the search's, for a draw): every move at once
        for info in side.moves:
            c = info.position
            child = Known(Interval(info.value, info.value, squares), None if info.depth is None else info.depth - 1, True)
            if _final(c) is None and not values[info.move].complete:
                written.append(SideResult(c, child.interval, Evaluation(info.value, child.depth)))
            values[info.move] = child
    elif search and stopped != "interrupt":
        # each move's position in turn (the best move found first), with an even share of what is
        # left: first every move's value (the tints), then the depths of those proved exact
        order = sorted(moves, key=lambda m: (m != side.best_move, move_order_key(p.board, m)))
        nodes_left = [job.nodes - (oracle.states - nodes0)] if job.nodes else None
        for depths in (False, True):
            todo = [m for m in order if (values[m].exact and not values[m].complete) == depths
                    and not values[m].complete]
            for k, m in enumerate(todo):
                left = job.seconds_left()
                if job.stop_requested or left <= 0:
                    stopped = "interrupt" if job.stop_requested else "time"
                    break
                c = p.push(m)
                oracle.deadline = time.monotonic() + left / (len(todo) - k)
                used = oracle.states
                if nodes_left is not None:
                    assert isinstance(oracle, SearchOracle)
                    oracle.node_limit = oracle.states + max(1, nodes_left[0] // (len(todo) - k))
                job.update(searching=p.move_name(m))
                prior = values[m]
                try:
                    got, why = _child(analyzer, c, known.get(m), depth=depths)
                except KeyboardInterrupt:
                    stopped = "interrupt"
                    break
                finally:
                    if nodes_left is not None:
                        nodes_left[0] -= oracle.states - used
                if not got.exact:  # (what the cache knew still holds)
                    got = Known(Interval(max(got.interval.lower, prior.interval.lower),
                                         min(got.interval.upper, prior.interval.upper), squares))
                if not got.complete:
                    stopped = stopped or why or ("time" if depths or not got.exact else None)
                if got.interval != prior.interval or got.complete != prior.complete:
                    written.append(SideResult(c, got.interval, Evaluation(got.interval.lower, got.depth)
                                              if got.complete else None))
                values[m] = got
                result.root = root_from_moves(p, values, direct)
                job.update(partial=Analysis(p, result.root, dict(values), result.solver, stopped="time"))
            if stopped == "interrupt":
                break
    oracle.deadline = job.deadline
    result.root = root_from_moves(p, values, direct)
    result.moves = values
    result.nodes = oracle.states - nodes0
    result.seconds = time.perf_counter() - start
    result.stopped = None if result.complete else (stopped or ("time" if job.seconds_left() <= 0 else None))
    _write(settings, written)
    return result


def _write(settings: Settings, rows: list[SideResult]) -> None:
    """Write what was proved to the cache (it keeps the better of old and new: bounds only narrow,
    an exact row is never replaced by bounds)."""
    cache = _cache(settings)
    if cache is None or not rows:
        return
    try:
        cache.put([side_row(s) for s in rows])
    except CacheError:
        pass  # (a cache that cannot be written: the answer stands)


# -- the board: stops, outcome class, orthodox summary, canonical value -----------------------------

def board_facts(settings: Settings, job: Job, p: Position) -> dict:
    """The board of p with either side to move: its stops (or intervals), outcome class, orthodox
    summary (SPEC section 5) and game value (canonical form, mean, temperature), where they can be
    had within the budget (each missing one with a note saying why)."""
    board = p.replace(turn=X)
    solver = _solver(settings, job, p.rules)
    analyzer, _ = _analyzer(solver, board, job)
    report = solver.solve(Entry(board, (X, O)), analyzer=analyzer, value=True)
    out: dict = {"fen": write_fen(board), "rules": p.rules.name, "solver": report.solver}
    for s in report.sides:
        out[s.side.value] = {**_value_fields(Known(s.interval)), "words": s.interval.describe()}
    b = report.board
    if b is not None and b.outcome_class is not None:  # (the word of solve --json; the page shows the words)
        out["outcome_class"] = b.outcome_class
        out["outcome_class_words"] = OUTCOME_CLASSES[b.outcome_class]
    else:
        out["outcome_class"] = out["outcome_class_words"] = None
    if b is not None and b.orthodox_name is not None:
        out["orthodox"] = b.orthodox_name
    else:
        out["orthodox"] = None
        out["orthodox_note"] = ("not computed: " + b.stopped if b is not None and b.stopped
                                else "not computed: the stops are not both proved within the budget")
    if report.game_value is not None:
        out.update(report.game_value.to_json())
    else:
        out["canonical"] = None
        out["canonical_note"] = report.game_value_note or "not computed"
    if any(s.stopped == "interrupt" for s in report.sides):
        out["stopped"] = "interrupt"
    return out


# -- verify ---------------------------------------------------------------------------------------

@dataclass
class VerifyPlan:
    """The moves of a posted text to judge (``verify``'s choices), and its PGN games, if any."""

    choices: list[Choice]
    games: list[tuple[str, Game]]
    errors: list[str]
    rules: Rules


def verify_plan(text: str, rules: Rules, game: int | None = None) -> VerifyPlan:
    """The choices ``verify`` makes of a text (PGN games' moves, game records, ``move:`` headers),
    only those of game number ``game`` when given. BadInput when there is nothing to judge."""
    items = read_positions(text, SOURCE, "auto", rules, Pick(None, None, True))
    choices, errors = choices_from_file(items, ask=False)
    lines = [printable(str(e)) for e in errors]
    pgn = [g for g in read_games(text, SOURCE, rules) if isinstance(g, Game)] if looks_like_pgn(text) else []
    if game is not None:
        label = next((g.label for g in pgn if g.number == game), None)
        if label is None:
            raise BadInput("game", f"no game {game} in the text ({len(pgn)} game(s) read)")
        choices = [c for c in choices if c.entry.name is not None and c.entry.name.startswith(f"{label}, ply ")]
        pgn = [g for g in pgn if g.number == game]
    games = [(SOURCE, g) for g in pgn]
    if not choices:
        raise BadInput("body", lines[0] if lines else "nothing to judge: no PGN game, game record (moves:) or move: header")
    if len(choices) > MAX_VERIFY_MOVES:
        raise BadInput("body", f"{len(choices):,} moves to judge; at most {MAX_VERIFY_MOVES:,} in one request")
    return VerifyPlan(choices, games, lines, rules)


def run_verify(settings: Settings, job: Job, plan: VerifyPlan) -> dict:
    """Judge every choice of the plan as ``verify --json`` does (each move within the budget, as
    ``verify --timeout``/``--nodes`` give each move), adding each record to the job as it is made,
    after an ``input_error`` record for each part of the text that could not be read (``verify``'s
    error lines); then the summary record, with the count of those. Returns the annotated PGN (PGN games) and the counts."""
    solver = _solver(settings, job, plan.rules, each_move=True)
    verifier = Verifier(solver)
    checks: list[Check] = []

    def show(c: Check) -> None:
        job.add_record(c.to_json())
        job.update(judged=len(checks))
        job.check_stop()

    for line in plan.errors:  # what could not be read (a game is judged up to its bad move), first
        job.add_record({"input_error": line})
    interrupted = False
    try:
        verify_all(plan.choices, [], verifier, on_check=show, into=checks)
    except KeyboardInterrupt:
        interrupted = True
    summaries = summarise(checks)
    job.add_record({"summary": [s.to_json() for s in summaries], "unsettled": verifier.unsettled,
                    "input_errors": len(plan.errors), **({"stopped": "interrupt"} if interrupted else {})})
    pgn = annotated_pgn(plan.games, checks) if plan.games else None
    return {"annotated": pgn, "checks": len(checks), "interrupted": interrupted}


