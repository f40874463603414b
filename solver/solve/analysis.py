"""What a solved position means: values, best moves, lines and orthodox summaries.

Everything here works from an *oracle* (:class:`solver.oracles.oracle.Oracle`): ``lookup(position)
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

from solver.game.notation import (
    CUT,
    LOOP,
    Game,
    Number,
    Split,
    game_name,
    marks,
    signed,
    simplest_between,
)
from solver.common.words import Word
from solver.game.rules import PASS, Move, O, Position, Side, X, move_order_key
from solver.oracles.oracle import Oracle
from solver.oracles.side_options import OptionArrays

DEFAULT_ORTH_DEPTH = 8  # levels of the summary's tree (JSON, tree form) when no depth is given
SUMMARY_WIDTH = 100  # characters of the one-line summary when no depth is given
OPTION_LIMIT = 100_000  # boards explored while following forced passes inside one option


# -- values ---------------------------------------------------------------------------------------

class Outcome(Word):
    """What is proved about the outcome of a position (the ``outcome`` word of ``--json``)."""

    X_WINS = "x-wins"
    O_WINS = "o-wins"
    DRAW = "draw"                          # the game ends level
    INFINITE_PLAY = "infinite-play"        # a draw reached only by endless play
    X_AT_LEAST_DRAWS = "x-at-least-draws"  # (an interval: not proved further)
    O_AT_LEAST_DRAWS = "o-at-least-draws"
    UNKNOWN = "unknown"

    @property
    def proved(self) -> bool:
        """A win, a loss or a draw (for a side), not only a bound on it."""
        return self in (Outcome.X_WINS, Outcome.O_WINS, Outcome.DRAW, Outcome.INFINITE_PLAY)


# The words for a value or an interval, from one side's view: the one owner of them (the report's
# X-side sentences, the pictures' and the audit page's side-to-move sentences).
_X_WORDS = ("X wins by", "O wins by", "draw", "X at least draws", "O at least draws", "the outcome is not proved")
_MOVER_WORDS = ("wins by", "loses by", "draws", "at least draws", "at most draws", "has no proved outcome")


def interval_words(lo: int, hi: int, top: int, words: tuple[str, ...] = _X_WORDS) -> str:
    """``lo <= value <= hi`` in words, from the view whose value it is (``top``: the widest bound,
    the playable squares, which a bound that is not proved equals): 'wins by 3', 'wins by 3 to 7',
    'wins by at least 3', 'loses by ...', 'draws', 'at least draws', 'at most draws'."""
    win, lose, draw, at_least, at_most, unknown = words
    if lo == hi:
        return f"{win} {lo}" if lo > 0 else f"{lose} {-lo}" if lo < 0 else draw
    if lo > 0:
        return f"{win} at least {lo}" if hi >= top else f"{win} {lo} to {hi}"
    if hi < 0:
        return f"{lose} at least {-hi}" if lo <= -top else f"{lose} {-hi} to {-lo}"
    if lo == 0:
        return at_least
    if hi == 0:
        return at_most
    return unknown if words is _X_WORDS else f"{unknown} ({signed(lo)}..{signed(hi)} for it)"

@dataclass(frozen=True)
class Evaluation:
    """The exact value of a position, from X's side, and its depth (None: infinite play)."""

    value: int
    depth: int | None

    @property
    def infinite(self) -> bool:
        return self.depth is None

    @property
    def outcome(self) -> Outcome:
        """X_WINS, O_WINS, DRAW (the game ends level) or INFINITE_PLAY."""
        if self.value > 0:
            return Outcome.X_WINS
        if self.value < 0:
            return Outcome.O_WINS
        return Outcome.INFINITE_PLAY if self.infinite else Outcome.DRAW

    def describe(self) -> str:
        """'X wins by 3', 'O wins by 2', 'draw' or 'draw by infinite play'."""
        if self.value == 0 and self.infinite:
            return "draw by infinite play"
        return interval_words(self.value, self.value, abs(self.value))


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
    def outcome(self) -> Outcome:
        """X_WINS, O_WINS, DRAW when proved; else X_AT_LEAST_DRAWS, O_AT_LEAST_DRAWS or UNKNOWN."""
        if self.lower > 0:
            return Outcome.X_WINS
        if self.upper < 0:
            return Outcome.O_WINS
        if self.lower == 0 == self.upper:
            return Outcome.DRAW
        if self.lower >= 0:
            return Outcome.X_AT_LEAST_DRAWS
        if self.upper <= 0:
            return Outcome.O_AT_LEAST_DRAWS
        return Outcome.UNKNOWN

    @property
    def outcome_proved(self) -> bool:
        return self.outcome.proved

    def text(self) -> str:
        """'+3', or '+1..+49' (the interval in signed values)."""
        if self.exact:
            return signed(self.lower)
        return f"{signed(self.lower)}..{signed(self.upper)}"

    def describe(self) -> str:
        """In words, X's side: 'X wins by 3 to 7', 'O wins by at least 2', 'X at least draws', ..."""
        return interval_words(self.lower, self.upper, self.squares)

    def words_for(self, turn: Side) -> str:
        """In words, for the side to move ``turn``: 'wins by 3', 'loses by 2 to 5', 'draws',
        'at least draws', 'loses by at least 4', ..."""
        lo, hi = self.for_mover(turn)
        return interval_words(lo, hi, self.squares, _MOVER_WORDS)


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
