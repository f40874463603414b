"""What a solved position means: values, best moves, lines and orthodox summaries.

Everything here works from an *oracle* (:class:`solver.oracle.Oracle`): ``lookup(position)
-> (value for the side to move, depth)`` of exact values (the reference solver, a compiled
engine from :mod:`solver.engine`, or tablebases). The analysis itself is engine-agnostic and
implements SPEC sections 4 and 5. Two optional oracle methods make it fast: ``lookup_many``
(values in one call) and ``option_arrays`` (a side's options with forced passes, read from a
solved graph in one compiled pass; the plain search of :meth:`Analyzer.options` is what it is
tested against):

- :meth:`Analyzer.evaluate`: the value (from X's side), depth and outcome;
- :meth:`Analyzer.moves`: every legal move with the value it keeps, best first,
  with the optimal and preferred ones marked;
- :meth:`Analyzer.principal_variation`: the line of preferred moves;
- :meth:`Analyzer.stops`, :func:`outcome_class` and :meth:`Analyzer.orthodox`
  for a board without a side to move.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
import numpy as np

from .limits import LimitError, StateLimitError
from .notation import CUT, LOOP, Game, Number, Split, game_name, marks, signed, simplest_between
from .options import OptionArrays
from .oracle import Oracle, mover_value
from .rules import O, PASS, X, Move, Position, Side, move_order_key
from .scores import HALF, M, parent_score, value_threshold, widen

DEFAULT_ORTH_DEPTH = 8  # levels of the summary's tree (JSON, tree form) when no depth is given
SUMMARY_WIDTH = 100  # characters of the one-line summary when no depth is given
OPTION_LIMIT = 100_000  # boards explored while following forced passes inside one option


# -- values ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Evaluation:
    """The exact value of a position, from X's side, and its depth (None: infinite play)."""

    value: int
    depth: int | None

    @property
    def infinite(self) -> bool:
        return self.depth is None

    @property
    def outcome(self) -> str:
        """'x-wins', 'o-wins', 'draw' (the game ends level) or 'infinite-play'."""
        if self.value > 0:
            return "x-wins"
        if self.value < 0:
            return "o-wins"
        return "infinite-play" if self.infinite else "draw"

    def describe(self) -> str:
        if self.value > 0:
            return f"X wins by {self.value}"
        if self.value < 0:
            return f"O wins by {-self.value}"
        return "draw by infinite play" if self.infinite else "draw"


@dataclass(frozen=True)
class Interval:
    """What is proved about a value, from X's side: lower <= value <= upper (SPEC section 4.1).

    ``squares`` is the number of playable squares: a bound that is not proved is the widest,
    minus or plus ``squares``.
    """

    lower: int
    upper: int
    squares: int

    @classmethod
    def unknown(cls, squares: int) -> "Interval":
        return cls(-squares, squares, squares)

    @classmethod
    def from_mover(cls, turn: Side, lower: int, upper: int, squares: int) -> "Interval":
        """The interval (X's side) of bounds proved from the side to move's view."""
        return cls(lower, upper, squares) if turn == X else cls(-upper, -lower, squares)

    def for_mover(self, turn: Side) -> tuple[int, int]:
        """(lower, upper) from the side to move's view."""
        return (self.lower, self.upper) if turn == X else (-self.upper, -self.lower)

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    @property
    def outcome(self) -> str:
        """'x-wins', 'o-wins', 'draw' when proved; else 'x-at-least-draws', 'o-at-least-draws' or 'unknown'."""
        if self.lower > 0:
            return "x-wins"
        if self.upper < 0:
            return "o-wins"
        if self.lower == 0 == self.upper:
            return "draw"
        if self.lower >= 0:
            return "x-at-least-draws"
        if self.upper <= 0:
            return "o-at-least-draws"
        return "unknown"

    @property
    def outcome_proved(self) -> bool:
        return self.outcome in ("x-wins", "o-wins", "draw")

    def text(self) -> str:
        """'+3', or '+1..+49' (the interval in signed values)."""
        if self.exact:
            return signed(self.lower)
        return f"{signed(self.lower)}..{signed(self.upper)}"

    def describe(self) -> str:
        """In words: 'X wins by 3 to 7', 'O wins by at least 2', 'X at least draws', ..."""
        lo, hi, top = self.lower, self.upper, self.squares
        if self.exact:
            return Evaluation(lo, 0).describe()
        if lo > 0:
            return f"X wins by at least {lo}" if hi >= top else f"X wins by {lo} to {hi}"
        if hi < 0:
            return f"O wins by at least {-hi}" if lo <= -top else f"O wins by {-hi} to {-lo}"
        if lo == 0:
            return "X at least draws"
        if hi == 0:
            return "O at least draws"
        return "the outcome is not proved"


def _mover_gets_more_than_draw(turn: Side, value: int) -> bool:
    return value > 0 if turn == X else value < 0


def _depth_key(depth: int | None) -> float:
    return math.inf if depth is None else depth


@dataclass
class MoveInfo:
    """A legal move with the exact value and depth of the game after it."""

    move: Move
    name: str
    value: int             # from X's side, with best play after the move
    depth: int | None      # plies to the end including this move; None for infinite play
    position: Position     # the position after the move
    optimal: bool = False  # keeps the value of the position
    preferred: bool = False  # the move the solver plays (SPEC section 4)
    dominated: bool = False  # its option is dominated by another one (SPEC section 5)
    stops: tuple[int, int] | None = None  # the stops of the board after the move, when computed

    def describe(self) -> str:
        return Evaluation(self.value, None if self.depth is None else self.depth - 1).describe()


@dataclass
class Line:
    """A principal variation: moves from ``start``; ``repeated`` if it stopped at a repetition."""

    start: Position
    moves: list[Move]
    end: Position
    repeated: bool = False

    def names(self) -> list[str]:
        out, p = [], self.start
        for m in self.moves:
            out.append(p.move_name(m))
            p = p.push(m)
        return out


# -- boards without a side to move ----------------------------------------------------------------

OUTCOME_CLASSES = {
    "x": "X wins whoever starts",
    "o": "O wins whoever starts",
    "first": "the first player wins",
    "second": "the second player wins",
    "draw": "draw",
}


def outcome_class(a: int, b: int) -> str:
    """Key of :data:`OUTCOME_CLASSES` from the stops a (X first) and b (O first)."""
    if a > 0 and b > 0:
        return "x"
    if a < 0 and b < 0:
        return "o"
    if a > 0 > b:
        return "first"
    if a < 0 < b:
        return "second"
    return "draw"


def proved_outcome_class(a: Interval, b: Interval) -> str | None:
    """The outcome class from what is proved with X and with O to move, if it is proved."""
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


@dataclass
class Option:
    """A board one side can reach by moving (and moving again while the other side must pass)."""

    moves: list[Move]
    position: Position  # the board with the other side to move
    first_key: tuple = ()

    def names(self, start: Position) -> list[str]:
        out, p = [], start
        for m in self.moves:
            out.append(p.move_name(m))
            p = p.push(m)
        return out


def _board_key(p: Position) -> tuple:
    """A board's key in the analyzer's caches: one analyzer may be asked about several boards."""
    return (p.board, p.rules, p.x, p.o, p.counter)


# -- an exact value by tests (oracles that prove bounds) -----------------------------------------
#
# An oracle that answers "can the mover force a composite score of at least s?" (the search
# engine) gives SPEC section 4's analysis without every move's value and depth: the depth is
# the score inside the value's band, the preferred move the first in notation order that
# reaches that score, the line the preferred moves followed.

OPTIMAL_BUDGET = 1 << 20  # nodes each move may take to show whether it keeps the value
# nodes each test of the depth may take: where jump wars can repeat, the longest loss is a long
# question (3 empty squares of a 7 x 7 board: 3 billion nodes); the value stays exact without it
DEPTH_BUDGET = 1 << 24


@dataclass(frozen=True)
class ExactLine:
    """The analysis of a position whose value is exact and not 0, by tests: the depth, the
    preferred move (SPEC section 4), the principal variation, the moves that keep the value and
    the ones that keep its depth too, ``tied_moves`` (each None when showing it for every move took
    more than its budget or a limit stopped it)."""

    depth: int
    best_move: Move
    line: list[Move]
    optimal_moves: list[Move] | None
    tied_moves: list[Move] | None = None


def exact_score(oracle: Oracle, p: Position, value: int, budget: int = 0) -> int:
    """The mover's composite score of p, whose value for the mover is ``value`` (not 0): the score
    inside the value's band, by tests from what is known, each moving to the bound its answer
    proves (MTD(f)). Raises LimitError."""
    result = p.result()
    if result is not None:
        return mover_value(p, result) * M
    lo, hi = (value * M - HALF + 1, value * M - 1) if value > 0 else (value * M + 1, value * M + HALF - 1)
    known_lo, known_hi = oracle.score_bounds(p)
    lo, hi = max(lo, min(known_lo, hi)), min(hi, max(known_hi, lo))
    s = lo + 1
    while lo < hi:
        holds, r = oracle.score_test(p, s, budget)
        if holds:
            lo = max(lo, min(r, hi))
            s = lo + 1
        else:
            hi = min(hi, max(r, lo))
            s = hi
        s = max(lo + 1, min(s, hi))
    return lo


def keeps_score(oracle: Oracle, p: Position, move: Move, score: int, budget: int = 0) -> bool:
    """Does ``move`` reach the mover's composite score ``score`` (an exact score of p, not 0)?"""
    c = p.push(move)
    result = c.result()
    if result is not None:
        return parent_score(-mover_value(c, result) * M) >= score
    # parent_score(-child) >= score  <=>  child <= -widen(score)  <=>  not (child >= -widen(score) + 1)
    return not oracle.score_test(c, -widen(score) + 1, budget)[0]


def keeps_value(oracle: Oracle, p: Position, move: Move, value: int, budget: int = 0) -> bool:
    """Does ``move`` keep the mover's value ``value``?"""
    c = p.push(move)
    result = c.result()
    if result is not None:
        return -mover_value(c, result) == value
    return not oracle.score_test(c, value_threshold(1 - value), budget)[0]


def preferred_by_tests(oracle: Oracle, p: Position, score: int, budget: int = 0) -> Move:
    """The preferred move (SPEC section 4) of a position of exact composite score ``score`` (not a
    draw): the first move in notation order that reaches it."""
    for m in p.legal_moves():
        if keeps_score(oracle, p, m, score, budget):
            return m
    raise AssertionError("no move reaches the position's exact score")


def line_by_tests(oracle: Oracle, p: Position, score: int, budget: int = 0) -> list[Move]:
    """The principal variation of a position of exact score ``score`` (not a draw): each preferred
    move leads to the child's exact score, one ply nearer the end."""
    moves = []
    while not p.is_over():
        m = preferred_by_tests(oracle, p, score, budget)
        moves.append(m)
        p = p.push(m)
        score = -widen(score)
    return moves


def analysis_by_tests(oracle: Oracle, p: Position, value: int) -> ExactLine:
    """The depth, preferred move and line of p, whose value for the mover is ``value`` (exact, not
    0), then, within a budget per move, the moves that keep the value. Raises LimitError (before
    the line is known; :class:`~solver.limits.BudgetError` when a test of the depth, the preferred
    move or the line goes past :data:`DEPTH_BUDGET` nodes)."""
    score = exact_score(oracle, p, value, DEPTH_BUDGET)
    best = preferred_by_tests(oracle, p, score, DEPTH_BUDGET)
    line = line_by_tests(oracle, p, score, DEPTH_BUDGET)
    optimal: list[Move] | None = []
    tied: list[Move] | None = None
    try:
        for m in p.legal_moves():
            if m == best or keeps_value(oracle, p, m, value, OPTIMAL_BUDGET):
                optimal.append(m)  # type: ignore[union-attr]
    except LimitError:
        optimal = None
    if optimal is not None:
        try:  # the optimal moves that reach the exact score: the same value and depth as the best
            tied = [m for m in optimal if m == best or keeps_score(oracle, p, m, score, OPTIMAL_BUDGET)]
        except LimitError:
            tied = None
    return ExactLine(abs(score - value * M), best, line, optimal, tied)


def draw_depth(oracle: Oracle, p: Position, memo: dict, limit: int) -> float:
    """Depth of a drawn position (value 0) from values alone: 1 + the longest drawing child,
    infinite through a cycle (a draw by infinite play); ``memo`` keeps what earlier walks found.
    Raises StateLimitError past ``limit`` positions walked."""
    on_path: set = set()
    walked = 0

    def drawing_children(q: Position) -> list[Position]:
        return [c for c in (q.push(m) for m in q.legal_moves()) if oracle.value(c) == 0]

    root_key = p.key()
    if root_key in memo:
        return float(memo[root_key])
    # iterative depth-first walk: frames of (key, children, next index, longest so far)
    stack: list[tuple] = [(root_key, drawing_children(p), 0, -1)]
    on_path.add(root_key)
    result = None
    while stack:
        key, children, i, longest = stack.pop()
        if result is not None:  # a child just finished
            longest = max(longest, result)
            result = None
            i += 1
        if longest == math.inf or i >= len(children):
            depth = math.inf if longest == math.inf else longest + 1
            memo[key] = depth
            on_path.discard(key)
            result = depth
            continue
        c = children[i]
        if c.is_over():
            stack.append((key, children, i + 1, max(longest, 0)))
            continue
        ck = c.key()
        if ck in on_path:
            stack.append((key, children, i + 1, math.inf))
            continue
        if ck in memo:
            stack.append((key, children, i + 1, max(longest, memo[ck])))
            continue
        walked += 1
        if walked > limit:
            raise StateLimitError(f"the length of this draw needs more than {limit:,} positions walked", walked)
        stack.append((key, children, i, longest))
        on_path.add(ck)
        stack.append((ck, drawing_children(c), 0, -1))
    return float(memo[root_key])


# -- the analyzer ---------------------------------------------------------------------------------

class Analyzer:
    """SPEC sections 4 and 5 on top of an oracle of exact values."""

    def __init__(self, oracle: Oracle, orth_depth: int | None = None, bulk: bool = True,
                 orth_width: int = SUMMARY_WIDTH):
        self.oracle = oracle
        # The depth of orthodox summaries; None: as deep as fits in ``orth_width`` characters on
        # one line, and at least DEFAULT_ORTH_DEPTH for the whole tree (see :meth:`summary`).
        self.orth_depth = orth_depth
        self.orth_width = orth_width
        self._stops: dict = {}
        self._best: dict = {}
        # Read options from the oracle's solved graph when it can (``option_arrays``); the plain
        # search of :meth:`options` otherwise, or with ``bulk=False`` (the tests compare the two).
        self.bulk = bulk

    # -- single positions -----------------------------------------------------------------------

    def evaluate(self, p: Position) -> Evaluation:
        result = p.result()
        if result is not None:
            return Evaluation(result, 0)
        u, d = self.oracle.lookup(p)
        return Evaluation(u if p.turn == X else -u, None if d == math.inf else int(d))

    def evaluate_many(self, positions: list[Position]) -> list[Evaluation]:
        """:meth:`evaluate` for several positions (one call into the oracle)."""
        open_ = [q for q in positions if q.result() is None]
        found = dict(zip(map(id, open_), self.oracle.lookup_many(open_))) if open_ else {}
        out = []
        for q in positions:
            r = q.result()
            if r is not None:
                out.append(Evaluation(r, 0))
            else:
                u, d = found[id(q)]
                out.append(Evaluation(u if q.turn == X else -u, None if d == math.inf else int(d)))
        return out

    def moves(self, p: Position, order: str = "best", dominance: bool = False) -> list[MoveInfo]:
        """Every legal move with its value, best first (or in notation order with order='notation');
        with ``dominance``, also the stops of each move's board and which moves are dominated."""
        infos = []
        moves = p.legal_moves()
        children = [p.push(m) for m in moves]
        for m, c, e in zip(moves, children, self.evaluate_many(children)):
            infos.append(MoveInfo(m, p.move_name(m), e.value, None if e.depth is None else e.depth + 1, c))
        if not infos:
            return infos
        sign = 1 if p.turn == X else -1
        best = max(sign * i.value for i in infos) * sign
        for i in infos:
            i.optimal = i.value == best
        self._preferred(p, infos).preferred = True
        if dominance:
            self.mark_dominated(p, infos)
        if order == "best":
            infos.sort(key=lambda i: (-sign * i.value, self._pref_depth(p, best, i.depth),
                                      move_order_key(p.board, i.move)))
        return infos

    def mark_dominated(self, p: Position, infos: list[MoveInfo]) -> None:
        """Mark the moves whose options are dominated (SPEC section 5): another move leads to
        a board whose two stops are both at least as good for the mover, one of them better."""
        sign = 1 if p.turn == X else -1
        stops = []
        for i in infos:
            a, b = self.stops(i.position)
            stops.append((sign * a, sign * b))
        for i, (a, b) in zip(infos, stops):
            i.stops = (sign * a, sign * b)
            i.dominated = any(a2 >= a and b2 >= b and (a2, b2) != (a, b) for a2, b2 in stops)

    @staticmethod
    def _pref_depth(p: Position, value: int, depth: int | None) -> float:
        d = _depth_key(depth)
        return d if _mover_gets_more_than_draw(p.turn, value) else -d

    def _preferred(self, p: Position, infos: list[MoveInfo]) -> MoveInfo:
        optimal = [i for i in infos if i.optimal]
        return min(optimal, key=lambda i: (self._pref_depth(p, i.value, i.depth), move_order_key(p.board, i.move)))

    def best_move(self, p: Position) -> Move | None:
        infos = self.moves(p, order="notation")
        return next((i.move for i in infos if i.preferred), None)

    def principal_variation(self, p: Position, max_plies: int | None = None) -> Line:
        """The preferred moves from p to the end of the game, or to the first repeated position."""
        seen = {p}
        moves: list[Move] = []
        cur = p
        while not cur.is_over():
            if max_plies is not None and len(moves) >= max_plies:
                break
            m = self.best_move(cur)
            assert m is not None  # the game is not over: there is a legal move, the pass included
            cur = cur.push(m)
            moves.append(m)
            if cur in seen:
                return Line(p, moves, cur, repeated=True)
            seen.add(cur)
        return Line(p, moves, cur)

    # -- boards without a side to move ----------------------------------------------------------

    def stops(self, board: Position) -> tuple[int, int]:
        """(value with X to move, value with O to move) of the board."""
        key = _board_key(board)
        if key not in self._stops:
            self._stops[key] = (self.evaluate(board.replace(turn=X)).value,
                                self.evaluate(board.replace(turn=O)).value)
        return self._stops[key]

    def options(self, board: Position, side: Side, keep: int | None = None) -> list[Option]:
        """The boards ``side`` can reach: one move, then more while the other side must pass.

        Options reaching the same board are merged (the shortest sequence, then the first in
        notation order, stands for them).
        With ``keep``, only options whose value (the other side to move) is ``keep`` are
        wanted, so the search does not follow passes through positions worth anything else:
        the values along such a sequence can only move away from ``keep``.
        """
        start = board.replace(turn=side)
        found: dict[tuple, Option] = {}
        seen: set = set()
        frontier: list[tuple[Position, list[Move]]] = [(start, [])]  # positions with ``side`` to move, and the moves that led there
        while frontier:
            children = [(r.push(m), seq + [m]) for r, seq in frontier for m in r.legal_moves()]
            if keep is not None:
                values = self.evaluate_many([q for q, _ in children])
                children = [c for c, e in zip(children, values) if e.value == keep]
            frontier = []
            for q, seq in children:  # q has the other side to move
                if not q.is_over() and q.legal_moves() == [PASS]:
                    r = q.push(PASS)  # back to ``side``
                    if not r.is_over():
                        if r not in seen:
                            seen.add(r)
                            if len(seen) > OPTION_LIMIT:
                                raise RuntimeError(f"more than {OPTION_LIMIT:,} boards inside one option")
                            frontier.append((r, seq + [PASS]))
                        continue
                    q = r
                key = _board_key(q)
                if key not in found:
                    found[key] = Option(seq, q, tuple(move_order_key(board.board, m) for m in seq))
        return list(found.values())

    def best_option(self, board: Position, side: Side, keep: int) -> Option | None:
        """X's (or O's) best option of a hot board: keeps the stop ``keep``, then the best stop
        for ``side`` when it moves again, then the preferred move of SPEC section 4."""
        key = (_board_key(board), side, keep)
        if key not in self._best:
            self._best[key] = self._best_option(board, side, keep)
        return self._best[key]

    def _best_option(self, board: Position, side: Side, keep: int) -> Option | None:
        arrays = self.oracle.option_arrays(board, side, keep, OPTION_LIMIT) if self.bulk else None
        if arrays is not None:
            if arrays.count == 0:
                arrays = self.oracle.option_arrays(board, side, None, OPTION_LIMIT)
            return None if arrays is None else self._best_option_bulk(board, side, keep, arrays)
        opts = self.options(board, side, keep) or self.options(board, side)
        if not opts:
            return None
        sign = 1 if side == X else -1
        rated = []
        for opt in opts:
            ev_next = self.evaluate(opt.position)  # the other side to move
            again = self.evaluate(opt.position.replace(turn=side)).value if not opt.position.is_over() else ev_next.value
            depth = None if ev_next.depth is None else ev_next.depth + len(opt.moves)
            rated.append((opt, ev_next.value, again, depth))
        keeping = [r for r in rated if r[1] == keep] or rated
        winning = sign * keep > 0

        def rank(r: tuple[Option, int, int, int | None]) -> tuple:
            opt, value, again, depth = r
            d = _depth_key(depth)
            return (-sign * value, -sign * again, d if winning else -d, opt.first_key)

        return min(keeping, key=rank)[0]

    @staticmethod
    def _best_option_bulk(board: Position, side: Side, keep: int, t: OptionArrays) -> Option | None:
        """:meth:`best_option` from the oracle's ``option_arrays`` (those keeping ``keep``, or all
        when none does): the same options as :meth:`options`, ranked by the same keys (values
        from ``side``'s view there)."""
        if t.count == 0:
            return None
        sign = 1 if side == X else -1
        keeping = np.flatnonzero(t.value == sign * keep)
        if keeping.size == 0:
            keeping = np.arange(t.count)
        depth = t.depth[keeping] + t.length[keeping]  # float: inf for infinite play
        if sign * keep <= 0:  # not winning: the longest first (infinite play first of all)
            depth = -depth
        order = np.lexsort((t.rank[keeping], depth, -t.again[keeping], -t.value[keeping]))
        j = int(keeping[order[0]])
        moves = t.moves(j)
        mine, theirs = int(t.mine[j]), int(t.theirs[j])
        x, o = (mine, theirs) if side == X else (theirs, mine)
        turn = side if t.on_move[j] else side.other
        position = Position(board.board, x, o, turn, int(t.counter[j]), board.rules)
        return Option(moves, position, tuple(move_order_key(board.board, m) for m in moves))

    def orthodox(self, board: Position, depth: int | None = None) -> Game:
        """The orthodox summary Orth(B) of SPEC section 5, to ``depth`` levels (default: the
        analyzer's ``orth_depth``, or DEFAULT_ORTH_DEPTH)."""
        if depth is None:
            depth = DEFAULT_ORTH_DEPTH if self.orth_depth is None else self.orth_depth
        return self._orth(board, [], depth)

    def summary(self, board: Position) -> "Summary":
        """The orthodox summary for people and programs: to ``orth_depth`` levels when it is
        set; otherwise the line is as deep as fits in ``orth_width`` characters and the tree is
        as deep as that and at least DEFAULT_ORTH_DEPTH levels."""
        if self.orth_depth is not None:
            tree = self.orthodox(board, self.orth_depth)
            return Summary(tree, self.orth_depth, tree, self.orth_depth)
        depth, line = 1, self.orthodox(board, 1)
        while "cut" in marks(line):  # each level deeper makes a summary with a cut longer
            deeper = self.orthodox(board, depth + 1)
            if len(game_name(deeper)) > self.orth_width:
                break
            depth, line = depth + 1, deeper
        tree_depth = max(depth, DEFAULT_ORTH_DEPTH)
        return Summary(line, depth, self.orthodox(board, tree_depth), tree_depth)

    def _orth(self, board: Position, path: list[tuple], left: int) -> Game:
        result = board.replace(turn=X).result()
        if result is not None:
            return Number(result)
        a, b = self.stops(board)
        if a == b:
            return Number(a)
        if a < b:
            return Number(simplest_between(a, b))
        key = _board_key(board)
        if key in path:
            return LOOP
        if left <= 0:
            return CUT
        bx = self.best_option(board, X, a)
        bo = self.best_option(board, O, b)
        path = path + [key]
        return Split(self._orth(bx.position, path, left - 1) if bx else CUT,
                     self._orth(bo.position, path, left - 1) if bo else CUT)


@dataclass(frozen=True)
class Summary:
    """An orthodox summary two ways: ``line``, ``line_depth`` levels deep, to print on one line;
    ``tree``, ``tree_depth`` levels deep (at least as deep), for the tree form and JSON."""

    line: Game
    line_depth: int
    tree: Game
    tree_depth: int
