"""Game values as combinatorial game theory writes them: the canonical form of a board without a
side to move, its left and right stops, mean and temperature, in CGSuite's input syntax.

The arithmetic (canonical forms, stops, thermographs) is pycgt's (PyPI, MIT, pure Python); it was
checked by hand before it was taken: {1|-1}+{1|-1} = 0, {0|*} = ^, {0|1} = 1/2, {5|} = 6,
{1|{3|-3}} = 2 (a reversible option bypassed), {{5|1}|-5} has stops 1 and -5, mean -1 and
temperature 4, +-{3|1} has mean 0 and temperature 2 (tests/test_gamevalue.py keeps these).

**The game built.** For a board B, G(B) is:

- B finished: the integer score of B;
- otherwise { G(B_X) | G(B_O) } over SPEC section 5's options with forced passes (X's move, then
  X's further moves while O has none, until O can move or the game is over; the same for O);
- a side with no move while the game goes on (X stuck: a = b, since X's turn is a forced pass):
  that side's only option is the number v(B), the value of the board with the other side to move,
  { v(B) | G(B_O) } for X stuck and { G(B_X) | v(B) } for O stuck. The naive { | G(B_O) } is a
  number below every option (CGT lets a player with no move lose, Ataxx makes it pass): on
  ``x.#o/.##.`` it gives a left stop of 2 where X first gets 1.

**Why its stops are the board's stops.** Let m_L(B), m_R(B) be the minimax values of this tree
(Left first / Right first, play ending at the integer leaves and at a stuck side's number). When
no sequence of options returns to a board, every line of Ataxx play from B is finite (it is a path
of options), so m_L(B) and m_R(B) are SPEC's stops a(B) and b(B) (v of the board with X / O to
move): an option is exactly a side's moves up to the other side's turn, and a stuck side's pass
leads to v(B) = the other side's value. Claim: if no board in the tree is a zugzwang
(m_L(H) >= m_R(H) everywhere), then LS(G(H)) = m_L(H) and RS(G(H)) = m_R(H) for every H.
Induction from the leaves (numbers), using that stops depend on the value only, so they may be
read from the form {G(H^L) | G(H^R)}: if G(H) is not a number, LS(G(H)) = max RS(G(H^L)) =
max m_R(H^L) = m_L(H), and likewise for RS. If G(H) equals a number x, no G(H^L) is >= x, so
RS(G(H^L)) <= x (RS(K) > x implies K > x), so m_L(H) <= x; likewise m_R(H) >= x; with
m_L(H) >= m_R(H) both equal x = LS = RS. (A stuck side's number option v has m_L = m_R = v.)
The tests check the claim against the solver's exact stops on random boards under every rule set.

**Where it is not faithful, it says so** (:class:`NoValue`, one line):

- a *zugzwang* board in the tree (a < b: neither side wants to move). No game of CGT has such
  stops (LS(G) >= RS(G) for every G: in a sum a player may move elsewhere, a single Ataxx game
  forces the move), so at the root no construction is faithful, and inside the tree the parent's
  stops may differ. The board is named.
- a *loop*: a sequence of options (of either side, in any order: in a sum a side may move twice
  in one component) returns to a board, as in a jump war, so the game is not short and has no
  canonical form. The repetition is named with its first board. A side that can move on forever
  while the other passes has endless play (worth 0) as one more choice: it is left out where a
  finite option is at least as good for that side (the minimax values are unchanged), and the
  board is refused as a loop otherwise. Chen's convention (he "ignored" loops and printed 0
  for ``x...o``) is an explicit option, ``cut_loops``: each repetition becomes the game 0, a
  zugzwang is kept, and the output counts and names the cuts; it is not the board's value.
- more than ``max_states`` boards, a deadline passed, or a board of more than :data:`MAX_SQUARES`
  playable squares.

The stops, outcome class and orthodox summary stay exact for all of these (the solver's report).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from fractions import Fraction

import pycgt
from pycgt import Game
from pycgt.thermal import thermograph

from solver.game.board import popcount
from solver.game.rules import PASS, Move, O, Position, Side, X, side_name
from solver.io.formats import write_grid

MAX_SQUARES = 16  # playable squares of a board whose game value is built (reference-solver sized)
DEFAULT_MAX_STATES = 100_000  # boards of the option graph


class NoValue(Exception):
    """The board has no faithful short canonical form; ``reason`` says why in one line, ``kind``
    is 'loop', 'zugzwang', 'states', 'time' or 'size'."""

    def __init__(self, kind: str, reason: str):
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


@dataclass(frozen=True)
class GameValue:
    """A board's canonical form (a pycgt Game), its CGSuite text, stops, mean and temperature."""

    game: Game
    left_stop: Fraction
    right_stop: Fraction
    mean: Fraction
    temperature: Fraction
    states: int  # boards of the option graph
    cuts: tuple[str, ...] = ()  # Chen's convention: the repetitions cut to 0
    cut_loops: bool = False  # built under Chen's convention (the stops are the cut game's)

    @property
    def canonical(self) -> str:
        """The canonical form in CGSuite's input syntax: ``{5|1||-5}``, ``+-9``, ``1/2``, ``*``, ``^``."""
        return cgsuite_name(self.game)

    def __str__(self) -> str:
        return self.canonical

    def text(self) -> list[str]:
        out = [f"canonical form{' (loops cut)' if self.cut_loops else ''}: {self.canonical}",
               f"  stops: left {number_text(self.left_stop)}, right {number_text(self.right_stop)}; "
               f"mean {number_text(self.mean)}, temperature {number_text(self.temperature)}"]
        if self.cut_loops:
            out.append(f"  Chen's convention: {len(self.cuts):,} repetition{'s' if len(self.cuts) != 1 else ''} "
                       f"cut to 0 and zugzwangs kept as CGT values them: the value of the game cut, not of the "
                       f"board (its stops are the solver's above)"
                       + (f"; the first: {self.cuts[0]}" if self.cuts else ""))
        return out

    def thermograph_svg(self) -> str:
        """The thermograph as an SVG picture: :func:`thermograph_svg`, titled with the canonical
        form in CGSuite syntax."""
        return thermograph_svg(self.game, self.canonical)

    def to_json(self) -> dict:
        out: dict = {"canonical": self.canonical, "left_stop": number_json(self.left_stop),
                     "right_stop": number_json(self.right_stop), "mean": number_json(self.mean),
                     "temperature": number_json(self.temperature)}
        if self.cut_loops:
            out["loops_cut"] = len(self.cuts)
            out["cuts"] = list(self.cuts[:10])  # the first ten
        return out


def thermograph_svg(game: Game, title: str | None = None, width: int = 480, height: int = 350,
                    margin: int = 46) -> str:
    """The thermograph of ``game`` as SVG, drawn as combinatorial game theory draws it (Winning
    Ways, CGSuite): temperature upward and values increasing to the LEFT, so that Left's wall
    (Left is X) is on the left and Right's (O) on the right; the mast dashed, the point where the
    walls meet marked, and a legend saying so. ``title``: the caption (default pycgt's name)."""
    graph = thermograph(game)
    temperature = graph.temperature
    top = temperature if temperature > 0 else Fraction(1)  # a number is cold: show a little above 0
    headroom = top + top / 4

    def wall(line: pycgt.thermal.PiecewiseLinear) -> list[tuple[Fraction, Fraction]]:
        ts = [t for t in line.breakpoints if t <= headroom]
        if not ts or ts[0] != 0:
            ts.insert(0, Fraction(0))
        if ts[-1] != headroom:
            ts.append(headroom)
        return [(line(t), t) for t in ts]

    left, right = wall(graph.left), wall(graph.right)
    values = [v for v, _ in left + right] + [graph.mast]
    low, high = min(values), max(values)
    if low == high:
        low, high = low - 1, high + 1
    span = high - low
    plot_bottom = height - margin - 30

    def x(value: Fraction) -> float:  # the highest value at the left edge
        return margin + float((high - value) / span) * (width - 2 * margin)

    def y(t: Fraction) -> float:
        return plot_bottom - float(t / headroom) * (plot_bottom - margin)

    def path(points: list[tuple[Fraction, Fraction]]) -> str:
        return " ".join(f"{'M' if i == 0 else 'L'}{x(v):.2f},{y(t):.2f}" for i, (v, t) in enumerate(points))

    blue, red, grey = "#1f77b4", "#d62728", "#666"
    caption = title if title is not None else pycgt.render(game)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'font-family="system-ui, sans-serif">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<line class="axis" x1="{margin}" y1="{plot_bottom}" x2="{width - margin}" y2="{plot_bottom}" stroke="#999" '
        'stroke-width="1"/>',
        f'<line class="mast" x1="{x(graph.mast):.2f}" y1="{plot_bottom}" x2="{x(graph.mast):.2f}" y2="{margin / 2:.2f}" '
        'stroke="#ddd" stroke-width="1" stroke-dasharray="3 3"/>',
        f'<path class="wall left" d="{path(left)}" fill="none" stroke="{blue}" stroke-width="2.5"/>',
        f'<path class="wall right" d="{path(right)}" fill="none" stroke="{red}" stroke-width="2.5"/>',
    ]
    if temperature > 0:
        parts.append(f'<circle cx="{x(graph.mast):.2f}" cy="{y(temperature):.2f}" r="3.5" fill="#333"/>')
    parts += [
        f'<text x="{width / 2:.0f}" y="{margin / 2 + 4:.0f}" text-anchor="middle" font-size="14" fill="#222">'
        f"{_escape(caption)}</text>",
        f'<text class="high" x="{margin}" y="{plot_bottom + 16}" text-anchor="middle" font-size="11" fill="{grey}">'
        f"{_escape(number_text(high))}</text>",
        f'<text class="low" x="{width - margin}" y="{plot_bottom + 16}" text-anchor="middle" font-size="11" '
        f'fill="{grey}">{_escape(number_text(low))}</text>',
        f'<text x="{x(left[0][0]):.2f}" y="{plot_bottom + 30}" text-anchor="middle" font-size="11" fill="{blue}">'
        "Left (X)</text>",
        f'<text x="{x(right[0][0]):.2f}" y="{plot_bottom + 30}" text-anchor="middle" font-size="11" fill="{red}">'
        "Right (O)</text>",
        f'<text class="legend" x="{width / 2:.0f}" y="{height - 22}" text-anchor="middle" font-size="11" '
        f'fill="{grey}">values increase to the left: Left\'s wall on the left, as in Winning Ways and CGSuite;</text>',
        f'<text x="{width / 2:.0f}" y="{height - 8}" text-anchor="middle" font-size="11" fill="{grey}">'
        f"temperature upward: {number_text(temperature)}, mean {number_text(graph.mast)}</text>",
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def number_text(x: Fraction | int) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def number_json(x: Fraction | int) -> int | str:
    """An integer as a JSON number, a dyadic fraction as its text ('-1/2')."""
    x = Fraction(x)
    return x.numerator if x.denominator == 1 else number_text(x)


# -- options -------------------------------------------------------------------------------------

def _board_key(p: Position) -> tuple:
    return (p.x, p.o, p.counter)


def side_options(board: Position, side: Side) -> tuple[list[tuple[list[Move], Position]], list[str] | None]:
    """SPEC section 5's options of ``side``: a move, then more while the other side must pass;
    (the moves, the board reached). Boards reached twice are merged (the first sequence names
    them). Second: None, or the moves of a repetition when ``side`` can move on forever while the
    other side passes (endless play, worth 0, is then one more choice of ``side``)."""
    found: dict[tuple, tuple[list[Move], Position]] = {}
    seen: set = set()
    endless: list[str] | None = None
    start = board.replace(turn=side)
    if start.legal_moves() == [PASS]:
        return [], None  # stuck: no option (the game built gives it one, see build_game)
    seen.add(_board_key(start))
    frontier: list[tuple[Position, list[Move]]] = [(start, [])]
    while frontier:
        nxt = []
        for r, seq in frontier:
            for m in r.legal_moves():
                q, moves = r.push(m), seq + [m]
                if not q.is_over() and q.legal_moves() == [PASS]:
                    r2 = q.push(PASS)
                    if not r2.is_over():
                        if _board_key(r2) in seen:
                            if endless is None:
                                endless = _names(board.replace(turn=side), moves + [PASS])
                            continue
                        seen.add(_board_key(r2))
                        nxt.append((r2, moves + [PASS]))
                        continue
                    q = r2
                found.setdefault(_board_key(q), (moves, q))
        frontier = nxt
    return list(found.values()), endless


def _names(start: Position, moves: list[Move]) -> list[str]:
    out, p = [], start
    for m in moves:
        out.append(p.move_name(m))
        p = p.push(m)
    return out


# -- the game ------------------------------------------------------------------------------------

@dataclass
class _Node:
    game: Game
    a: int  # minimax value, X first
    b: int  # minimax value, O first


_ZERO_NODE = _Node(pycgt.ZERO, 0, 0)  # a repetition cut to 0 (Chen's convention)


def build_game(board: Position, max_states: int = DEFAULT_MAX_STATES, deadline: float | None = None,
               cut_loops: bool = False) -> tuple[Game, int, int, int, list[str]]:
    """(G(board) in canonical form, a, b, boards, cuts) as the module docstring builds it: a and b
    are the tree's minimax values (SPEC's stops). ``deadline``: a ``time.monotonic()`` value.
    Raises :class:`NoValue` (a loop, a zugzwang, a limit).

    ``cut_loops``: Chen's convention instead (never the default): an option that returns to a
    board on the line, and a side's endless play while the other passes, become the game 0; a
    zugzwang is kept as CGT values it. ``cuts`` then names each repetition cut (else it is empty);
    a board is reused only where its game does not depend on the line above it."""
    playable = popcount(board.board.playable)
    if playable > MAX_SQUARES:
        raise NoValue("size", f"no canonical form computed: {playable} playable squares "
                              f"(game values are built for boards of at most {MAX_SQUARES})")
    done: dict[tuple, _Node] = {}
    path: dict[tuple, int] = {}  # board on the current line -> its index in ``line``
    line: list[tuple[Side, list[Move], Position]] = []
    cuts: list[str] = []
    visits = [0]

    def repetition(key: tuple) -> str:
        first = path[key]
        names = []
        for side, moves, prev in line[first:]:
            names.append(f"{side_name(side)} " + " ".join(_names(prev.replace(turn=side), moves)))
        return f"from {_grid_line(line[first][2])}, " + ", ".join(names)

    def visit(p: Position) -> tuple[_Node, float]:
        """The board's node, and the least index on the line of a board its game was cut at."""
        key = _board_key(p)
        if key in done:
            return done[key], math.inf
        result = p.replace(turn=X).result()
        if result is not None:
            node = _Node(pycgt.integer(result), result, result)
            done[key] = node
            return node, math.inf
        if deadline is not None and time.monotonic() > deadline:
            raise NoValue("time", f"no canonical form computed: out of time after {visits[0]:,} boards "
                                  f"(raise --timeout to go further)")
        if visits[0] >= max_states:
            raise NoValue("states", f"no canonical form computed: more than {max_states:,} boards "
                                    f"(raise --max-states to go further)")
        visits[0] += 1
        here = path[key] = len(line)
        low: float = math.inf
        children: dict[Side, list[_Node]] = {}
        endless: dict[Side, list[str] | None] = {}
        for side in (X, O):
            kids = []
            options, endless[side] = side_options(p, side)
            for moves, q in options:
                qk = _board_key(q)
                line.append((side, moves, p))
                if qk in path:
                    what = repetition(qk)
                    if not cut_loops:
                        raise NoValue("loop", f"no canonical form: play can repeat ({what} returns to a board "
                                              f"already on the line)")
                    cuts.append(what)
                    kids.append(_ZERO_NODE)
                    low = min(low, path[qk])
                else:
                    node, sub = visit(q)
                    kids.append(node)
                    low = min(low, sub)
                line.pop()
            seq = endless[side]
            if seq is not None and cut_loops:
                cuts.append(f"{side_name(side)} moves on forever while {side_name(side.other)} passes, "
                            f"{' '.join(seq)} at {_grid_line(p)}")
                kids.append(_ZERO_NODE)
                low = min(low, here)  # the sequence starts on this board
            children[side] = kids
        del path[key]
        xs, os_ = children[X], children[O]
        for side in (X, O):
            seq = endless[side]
            if seq is not None and not children[side]:
                _endless(p, side, seq, False)
        if xs and os_:
            a, b = max(c.b for c in xs), min(c.a for c in os_)
            left, right = [c.game for c in xs], [c.game for c in os_]
        elif os_:  # X stuck: its turn is a pass, the board's value is O's
            a = b = min(c.a for c in os_)
            left, right = [pycgt.integer(b)], [c.game for c in os_]
        else:
            a = b = max(c.b for c in xs)
            left, right = [c.game for c in xs], [pycgt.integer(a)]
        for side, best in ((X, a), (O, -b)):
            seq = endless[side]
            if seq is not None and best < 0 and not cut_loops:  # endless play (0) beats every finite option
                _endless(p, side, seq, True)
        if a < b and not cut_loops:
            counter = f" at counter {p.counter}" if p.rules.counter else ""
            where = "the board is a zugzwang" if _board_key(p) == _board_key(board) else \
                f"a board of its game is a zugzwang, {_grid_line(p)}{counter}"
            raise NoValue("zugzwang", f"no faithful canonical form: {where} (X first {a:+d}, O first {b:+d}; "
                                      f"a CGT game's left stop is never below its right stop)")
        node = _Node(pycgt.game(left, right), a, b)
        if low >= here:  # no cut above this board: its game is the same from any line
            done[key] = node
            low = math.inf
        return node, low

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        root, _ = visit(board)
    finally:
        sys.setrecursionlimit(limit)
    return root.game, root.a, root.b, len(done), cuts


def _endless(p: Position, side: Side, seq: list[str], ends: bool) -> None:
    why = "and prefers that draw" if ends else "and cannot end the game"
    raise NoValue("loop", f"no canonical form: play can repeat ({side_name(side)} moves on forever while "
                          f"{side_name(side.other)} passes, {' '.join(seq)} at {_grid_line(p)}, {why})")


def _grid_line(p: Position) -> str:
    """The board on one line, rows top first separated by '/' (the grid format's rows)."""
    return "/".join(write_grid(p).split("\n"))


def game_value(board: Position, max_states: int = DEFAULT_MAX_STATES, deadline: float | None = None,
               cut_loops: bool = False) -> GameValue:
    """The canonical form, stops, mean and temperature of a board (its side to move is ignored).
    Raises :class:`NoValue` with the reason where there is no faithful short value, or where
    ``max_states`` boards or the ``deadline`` (``time.monotonic()``) stopped the work.
    ``cut_loops``: Chen's convention (:func:`build_game`); the value's ``cuts`` name what was cut,
    and its stops are then those of the game cut, not the board's."""
    g, a, b, states, cuts = build_game(board, max_states, deadline, cut_loops)
    ls, rs = Fraction(pycgt.left_stop(g)), Fraction(pycgt.right_stop(g))
    if (ls, rs) != (a, b) and not cut_loops:  # the module docstring proves this never happens
        raise AssertionError(f"stops {ls}, {rs} of the game built differ from the tree's {a}, {b}")
    return GameValue(g, ls, rs, Fraction(pycgt.mean(g)), Fraction(pycgt.temperature(g)), states, tuple(cuts),
                     cut_loops)


# -- CGSuite syntax ------------------------------------------------------------------------------

def _atomic(g: Game) -> str | None:
    x = pycgt.as_number(g)
    if x is not None:
        return number_text(x)
    for name, h in _NAMED:
        if g == h:
            return name
    if len(g.left) == 1 and len(g.right) == 1:  # +-x for a number x > 0
        (gl,), (gr,) = tuple(g.left), tuple(g.right)
        x, y = pycgt.as_number(gl), pycgt.as_number(gr)
        if x is not None and y is not None and x == -y and x > 0:
            return "+-" + number_text(x)
    return None


_NAMED = [("*", pycgt.STAR), ("^", pycgt.UP), ("v", pycgt.DOWN),
          ("^*", pycgt.add(pycgt.UP, pycgt.STAR)), ("v*", pycgt.add(pycgt.DOWN, pycgt.STAR))] + \
         [(f"*{n}", pycgt.nimber(n)) for n in range(2, 8)]


def _body(g: Game) -> tuple[str, int]:
    """The split of g without its braces and its number of bars (the outermost split has most)."""
    inner = 0
    sides = []
    for opts in (g.left, g.right):
        parts = []
        for h in sorted(opts, key=lambda h: (-pycgt.left_stop(h), cgsuite_name(h))):
            name = _atomic(h)
            if name is None:
                if len(opts) == 1 and len(h.left) == 1 and len(h.right) == 1:
                    text, bars = _body(h)
                    inner = max(inner, bars)
                    name = text
                else:
                    name = "{" + _body(h)[0] + "}"
            parts.append(name)
        sides.append(",".join(parts))
    bars = inner + 1
    return sides[0] + "|" * bars + sides[1], bars


def cgsuite_name(g: Game) -> str:
    """g in CGSuite's input syntax: ``5``, ``-1/2``, ``*``, ``*2``, ``^``, ``v*``, ``+-9``,
    ``{5|1||-5}`` (an option alone on its side written without braces, the outer split with
    more bars), ``{1,*|0}``."""
    name = _atomic(g)
    return name if name is not None else "{" + _body(g)[0] + "}"


def parse_cgsuite(text: str) -> Game:
    """A game from the syntax :func:`cgsuite_name` writes (and CGSuite reads): numbers (``-3``,
    ``1/2``), ``*``, ``*n``, ``^``, ``v``, ``^*``, ``v*``, ``+-x``, and splits ``{L|R}`` with
    options separated by commas and nested splits written with more bars (``{5|1||-5}``).
    Raises ValueError naming what it cannot read."""
    t = text.strip()
    if not t:
        raise ValueError("an empty game")
    if t.count("{") != t.count("}") or _close(t, 0) == -1:
        raise ValueError(f"unbalanced braces in {text!r}")
    if t.startswith("{") and _close(t, 0) == len(t) - 1:
        return _parse_split(t[1:-1])
    if t.startswith("+-"):
        x = parse_cgsuite(t[2:])
        return pycgt.game([x], [pycgt.negate(x)])
    for name, h in _NAMED:
        if t == name:
            return h
    if "|" in t or "," in t:
        return _parse_split(t)
    try:
        q = Fraction(t)
    except ValueError:
        raise ValueError(f"not a game: {text!r}") from None
    if q.denominator & (q.denominator - 1):
        raise ValueError(f"not a dyadic rational: {text!r}")
    return pycgt.number(q)


def _close(t: str, i: int) -> int:
    depth = 0
    for j in range(i, len(t)):
        depth += {"{": 1, "}": -1}.get(t[j], 0)
        if depth == 0:
            return j
    return -1


def _parse_split(t: str) -> Game:
    """``L|R`` at the top level: the longest run of bars splits it (it must be the only one)."""
    depth, runs, j = 0, [], 0
    while j < len(t):
        ch = t[j]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "|" and depth == 0:
            k = j
            while k < len(t) and t[k] == "|":
                k += 1
            runs.append((k - j, j, k))
            j = k
            continue
        j += 1
    if not runs:
        raise ValueError(f"no '|' in {t!r}")
    longest = max(r[0] for r in runs)
    top = [r for r in runs if r[0] == longest]
    if len(top) > 1:
        raise ValueError(f"two splits of {longest} bars at one level in {t!r}")
    _, i, k = top[0]
    return pycgt.game(_parse_options(t[:i]), _parse_options(t[k:]))


def _parse_options(t: str) -> list[Game]:
    t = t.strip()
    if not t:
        return []
    parts, depth, start = [], 0, 0
    for j, ch in enumerate(t):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(t[start:j])
            start = j + 1
    parts.append(t[start:])
    return [parse_cgsuite(p) for p in parts]
