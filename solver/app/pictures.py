"""Pictures of solved positions: the game tree as Graphviz DOT, the board as SVG (tinted by
the value of every move, moves drawn as arrows, a legend), and the audit page of ``verify
--html`` (HTML with the boards of the mistakes, each with its verdict in words).

All are plain text written here (no Graphviz or drawing library is needed to
write them; ``dot`` renders the DOT file).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from html import escape as html_escape
from typing import Callable, Mapping, Sequence
from xml.sax.saxutils import escape

from solver.common.limits import LimitError
from solver.game.notation import signed
from solver.game.rules import (
    IllegalMoveError,
    InvalidMoveError,
    Move,
    O,
    Position,
    Side,
    X,
    move_order_key,
    side_name,
)
from solver.io.formats import grid_rows, write_fen
from solver.oracles.oracle import StopReason
from solver.oracles.search import SearchOracle
from solver.play.verify import Check, PlayerSummary, Verdict, Verifier
from solver.solve.analysis import Analyzer, Interval, Outcome
from solver.solve.report import SideResult

DEFAULT_TREE_DEPTH = 2


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def game_tree_dot(analyzer: Analyzer, root: Position, depth: int = DEFAULT_TREE_DEPTH) -> str:
    """The solved game tree from ``root`` to ``depth`` plies as a DOT digraph.

    One node per distinct position (a position reached twice is drawn once), labelled
    with its board, the side to move and its value; one edge per legal move, labelled
    with the move; the optimal moves are drawn bold. Finished games are drawn as boxes
    with double borders.
    """
    ids: dict[Position, str] = {}
    nodes: list[str] = []
    edges: list[str] = []

    def node(p: Position) -> str:
        if p in ids:
            return ids[p]
        name = f"n{len(ids)}"
        ids[p] = name
        ev = analyzer.evaluate(p)
        rows = grid_rows(p.board, p.x, p.o)
        if p.is_over():
            caption = f"game over: {signed(ev.value)}"
        else:
            caption = f"{side_name(p.turn)} to move: {signed(ev.value)}"
        label = "\\l".join(rows) + "\\l" + caption.replace('"', "")
        shape = "box, peripheries=2" if p.is_over() else "box"
        nodes.append(f'  {name} [shape={shape}, fontname="monospace", label="{label}\\l"];')
        return name

    frontier = [root]
    node(root)
    expanded: set = set()
    for _ in range(depth):
        if not frontier:
            break
        nxt = []
        for p in frontier:
            if p in expanded or p.is_over():
                continue
            expanded.add(p)
            for info in analyzer.moves(p, order="notation"):
                c = info.position
                seen = c in ids
                style = ", style=bold, penwidth=2.5" if info.optimal else ""
                edges.append(f"  {ids[p]} -> {node(c)} [label={_dot_quote(info.name)}{style}];")
                if not seen:
                    nxt.append(c)
        frontier = nxt
    head = ["digraph ataxx {", '  graph [rankdir=TB, fontname="monospace"];', '  edge [fontname="monospace"];']
    return "\n".join(head + nodes + edges + ["}"]) + "\n"


# -- SVG ------------------------------------------------------------------------------------------

CELL = 48
MARGIN = 28
LEGEND_WIDTH = 320  # the legend's column, right of the board
LINE = 20           # one line of the legend

# The moves drawn on a board, after python-chess's svg module: a jump is an arrow with a head
# from its square to its target, a clone (it has no from-square) a ring on the square it fills.
# Each kind has its colour and stroke, so that the two tell apart without colour too.
ARROW_STYLES = {  # kind: (colour, dashes or "", what the legend calls it)
    "played": ("#1f4fa8", "", "played"),
    "best": ("#e07000", "9 5", "best"),
}
LAST_MOVE_COLOUR = "#d9b400"  # the frame of the last move's squares (python-chess's lastmove mark)
# A square whose value is only bounded (the budget ran out): tinted by what the interval proves
# for the mover, in paler and greyer shades than an exact value's (an exact win has full green,
# an exact loss full red, so the two never meet), and pale blue while the outcome is open.
UNSOLVED_FILL = "#dcdcf0"     # the interval spans the draw: the outcome is not proved
BOUNDED_WIN_FILL = "#d4f0d4"  # the interval is above the draw: the mover wins there, by an amount not proved
BOUNDED_LOSS_FILL = "#f6d6d6"  # below the draw: the mover loses there
# An empty square the mover cannot move to, on a tinted board: grey, apart from a draw's white.
UNREACHED_FILL = "#c8c8c8"
EMPTY_FILL = "#f4f4f4"  # an empty square on a board without tints
RING, RING_SMALL = 0.46, 0.37  # a clone's ring, the played one and the other, as shares of a square (a label fits inside)
HEAD, TIP_MARGIN, SHAFT = 0.5, 0.26, 0.16  # a jump's head, the gap from its tip to the centre, its shaft (shares)


@dataclass(frozen=True)
class Arrow:
    """A move to draw on a board: ``kind`` is a key of :data:`ARROW_STYLES` ('played', 'best')."""

    move: Move
    kind: str = "played"

    def __post_init__(self) -> None:
        if self.kind not in ARROW_STYLES:
            raise ValueError(f"arrow kind {self.kind!r}: not one of {', '.join(ARROW_STYLES)}")


def _tint(gain: float) -> str:
    """A colour from red (gain -1: the worst square for the mover) to green (+1: the best)."""
    gain = max(-1.0, min(1.0, gain))
    if gain >= 0:
        r, g, b = int(255 - 120 * gain), 255, int(255 - 120 * gain)
    else:
        r, g, b = 255, int(255 + 120 * gain), int(255 + 120 * gain)
    return f"#{r:02x}{g:02x}{b:02x}"


def unreached_squares(p: Position, squares: Mapping[int, Interval]) -> set[int]:
    """The empty squares the mover cannot move to, on a board tinted by ``squares`` (none on an
    untinted board, where every empty square is plain)."""
    if not squares:
        return set()
    return {sq for sq in range(p.board.size) if p.empty >> sq & 1 and sq not in squares}


def move_intervals(analyzer: Analyzer, p: Position, seconds: float | None = None,
                   nodes: int | None = None) -> dict[Move, Interval]:
    """What is proved about the value (X's side) after each legal move of ``p``: exact values
    from an oracle that solves exactly (:meth:`Analyzer.moves`); from one that proves bounds
    (the search), each move's interval within the oracle's limits (its deadline and node
    budget: a move it had no time for gets the widest interval). Empty when the game is over.

    ``seconds``: at most that long in all (besides the oracle's own deadline), shared evenly
    between the moves under the search, so that one hard move does not leave the others
    unsolved; ``nodes``: at most that many nodes of the search in all, shared the same way (what
    is proved is then the same on any machine). An interrupt (Ctrl-C) propagates as KeyboardInterrupt; a limit raises LimitError
    from an exact oracle."""
    if p.is_over():
        return {}
    squares = p.board.playable.bit_count()
    oracle = analyzer.oracle
    deadline = oracle.deadline
    searcher = oracle if isinstance(oracle, SearchOracle) else None
    node_limit = searcher.node_limit if searcher is not None else 0
    moves = p.legal_moves()
    try:
        if not oracle.proves_bounds:
            if seconds is not None:
                oracle.deadline = _sooner(deadline, time.monotonic() + seconds)
            return {i.move: Interval(i.value, i.value, squares) for i in analyzer.moves(p, order="notation")}
        out: dict[Move, Interval] = {}
        for m in moves:
            c = p.push(m)
            r = c.result()
            if r is not None:
                out[m] = Interval(r, r, squares)
                continue
            if seconds is not None:
                oracle.deadline = _sooner(deadline, time.monotonic() + seconds / len(moves))
            if nodes is not None and searcher is not None:
                share = searcher.states + max(1, nodes // len(moves))
                searcher.node_limit = min(node_limit, share) if node_limit else share
            b = oracle.bounds(c)
            if b.stopped == StopReason.INTERRUPT:
                raise KeyboardInterrupt
            out[m] = Interval.from_mover(c.turn, b.lower, b.upper, squares)
        return out
    finally:
        oracle.deadline = deadline
        if searcher is not None:
            searcher.node_limit = node_limit


def _sooner(a: float | None, b: float) -> float:
    return b if a is None else min(a, b)


def _mover_key(p: Position, iv: Interval) -> tuple[int, int]:
    lo, hi = iv.for_mover(p.turn)
    return lo, hi


def narrowed_value(p: Position, values: Mapping[Move, Interval] | None,
                   value: Interval | None = None) -> Interval | None:
    """What the moves' intervals prove about the position's value (the best move's: for the mover, at
    least the highest lower bound and at most the highest upper bound), within ``value`` when that
    is known too (both are proved, so their common part is); None when neither is known. The
    moves' intervals bound the value only when every legal move has one."""
    if not values or p.is_over() or set(values) != set(p.legal_moves()):
        return value
    lo = max(_mover_key(p, iv)[0] for iv in values.values())
    hi = max(_mover_key(p, iv)[1] for iv in values.values())
    if value is not None:
        vlo, vhi = value.for_mover(p.turn)
        lo, hi = max(lo, vlo), min(hi, vhi)
        if lo > hi:  # (cannot happen between two proofs; the judged value is then shown alone)
            return value
    return Interval.from_mover(p.turn, lo, hi, p.board.playable.bit_count())


def square_intervals(p: Position, values: Mapping[Move, Interval]) -> dict[int, Interval]:
    """For each square the mover can move to: what is proved about the best value (X's side) it
    gets by moving there, from the intervals of the moves there: for the mover, at least the
    highest lower bound and at most the highest upper bound (exact when every move there is)."""
    lows: dict[int, int] = {}
    highs: dict[int, int] = {}
    for m, iv in values.items():
        if m.is_pass:
            continue
        lo, hi = iv.for_mover(p.turn)
        lows[m.to] = max(lows.get(m.to, lo), lo)
        highs[m.to] = max(highs.get(m.to, hi), hi)
    squares = p.board.playable.bit_count()
    return {sq: Interval.from_mover(p.turn, lows[sq], highs[sq], squares) for sq in lows}


def square_values(analyzer: Analyzer, p: Position) -> dict[int, int]:
    """For each empty square the mover can move to: the best value (X's side) it gets by moving there."""
    sign = 1 if p.turn == X else -1
    best: dict[int, int] = {}
    for info in analyzer.moves(p, order="notation"):
        if info.move.is_pass:
            continue
        to = info.move.to
        if to not in best or sign * info.value > sign * best[to]:
            best[to] = info.value
    return best


def best_move(analyzer: Analyzer, p: Position, values: Mapping[Move, Interval] | None = None) -> Move | None:
    """The move the solver prefers (SPEC section 4) from an exact oracle; from one that proves
    bounds, a move proved to keep the value (``values``, from :func:`move_intervals`, when all
    exact); None when the game is over or no such move is proved."""
    if p.is_over():
        return None
    if not analyzer.oracle.proves_bounds:
        return next((i.move for i in analyzer.moves(p) if i.preferred), None)
    if not values or not all(iv.exact for iv in values.values()):
        return None
    top = max(_mover_key(p, iv) for iv in values.values())
    return min((m for m, iv in values.items() if _mover_key(p, iv) == top), key=lambda m: move_order_key(p.board, m))


def _centre(p: Position, sq: int) -> tuple[float, float]:
    board = p.board
    return (MARGIN + board.file_of(sq) * CELL + CELL / 2,
            MARGIN + (board.rows - 1 - board.rank_of(sq)) * CELL + CELL / 2)


def _move_kind(m: Move) -> str:
    return "pass" if m.is_pass else "clone" if m.is_clone else "jump"


def _arrow_svg(p: Position, a: Arrow, at: tuple[float, float] | None = None) -> str:
    """One arrow (python-chess's geometry: a shaft and a triangular head short of the target's
    centre); a clone is a ring on its square. ``at``: draw a sample for the legend there instead."""
    colour, dashes, _ = ARROW_STYLES[a.kind]
    m = a.move
    if m.is_pass:
        return ""
    dash = f' stroke-dasharray="{dashes}"' if dashes else ""
    small = a.kind != "played"  # two rings on one square stay apart
    if at is not None:
        tx, ty = at[0] + 28, at[1]
        fx, fy = at[0] - 2, at[1]
        attrs = f'class="legend-arrow {a.kind} {_move_kind(m)}"'
    else:
        tx, ty = _centre(p, m.to)
        fx, fy = _centre(p, m.frm) if m.is_jump else (tx, ty)
        name = p.board.square_name
        attrs = (f'class="arrow {a.kind} {_move_kind(m)}" data-move="{p.move_name(m)}"'
                 + (f' data-from="{name(m.frm)}"' if m.is_jump else "") + f' data-to="{name(m.to)}"')
    if m.is_clone:
        r = (RING_SMALL if small else RING) * CELL * (0.4 if at is not None else 1.0)
        cx = tx - 16 if at is not None else tx
        return (f'<g {attrs} opacity="0.9"><circle cx="{cx:.1f}" cy="{ty:.1f}" r="{r:.1f}" fill="none" '
                f'stroke="{colour}" stroke-width="{CELL * (0.05 if at is not None else 0.08):.1f}"{dash}/></g>')
    scale = 0.35 if at is not None else 1.0
    dx, dy = tx - fx, ty - fy
    h = math.hypot(dx, dy)
    size, margin, width = HEAD * CELL * scale, TIP_MARGIN * CELL * scale, SHAFT * CELL * scale
    sx, sy = tx - dx * (size + margin) / h, ty - dy * (size + margin) / h
    xtip, ytip = tx - dx * margin / h, ty - dy * margin / h
    half = 0.5 * size / h
    head = [(xtip, ytip), (sx + dy * half, sy - dx * half), (sx - dy * half, sy + dx * half)]
    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in head)
    return (f'<g {attrs} opacity="0.85"><line x1="{fx:.1f}" y1="{fy:.1f}" x2="{sx:.1f}" y2="{sy:.1f}" '
            f'stroke="{colour}" stroke-width="{width:.1f}" stroke-linecap="butt"{dash}/>'
            f'<polygon points="{points}" fill="{colour}"/></g>')


# -- where a square's value is written: clear of the arrows, rings and frames drawn over the board --

# A shape drawn on the board, for the labels to keep clear of: ("segment", x1, y1, x2, y2, half width),
# ("ring", cx, cy, r, half width) or ("triangle", x1, y1, x2, y2, x3, y3).
Shape = tuple


def _arrow_shapes(p: Position, a: Arrow) -> list[Shape]:
    """The shapes of an arrow as :func:`_arrow_svg` draws it on the board."""
    m = a.move
    if m.is_pass:
        return []
    tx, ty = _centre(p, m.to)
    if m.is_clone:
        r = (RING_SMALL if a.kind != "played" else RING) * CELL
        return [("ring", tx, ty, r, CELL * 0.04)]
    fx, fy = _centre(p, m.frm)
    dx, dy = tx - fx, ty - fy
    h = math.hypot(dx, dy)
    size, margin, width = HEAD * CELL, TIP_MARGIN * CELL, SHAFT * CELL
    sx, sy = tx - dx * (size + margin) / h, ty - dy * (size + margin) / h
    xtip, ytip = tx - dx * margin / h, ty - dy * margin / h
    half = 0.5 * size / h
    return [("segment", fx, fy, sx, sy, width / 2),
            ("triangle", xtip, ytip, sx + dy * half, sy - dx * half, sx - dy * half, sy + dx * half)]


def _frame_shapes(p: Position, last_move: Move | None) -> list[Shape]:
    """The gold frames of the move before, as segments (their stroke is 5 wide, 3 in from the edge)."""
    if last_move is None or last_move.is_pass:
        return []
    out: list[Shape] = []
    for sq in (last_move.to,) if last_move.is_clone else (last_move.frm, last_move.to):
        x, y = _centre(p, sq)
        e = CELL / 2 - 5.5
        corners = [(x - e, y - e), (x + e, y - e), (x + e, y + e), (x - e, y + e)]
        out += [("segment", *corners[k], *corners[(k + 1) % 4], 2.5) for k in range(4)]
    return out


def _segment_distance(px: float, py: float, x1: float, y1: float, x2: float, y2: float) -> float:
    dx, dy = x2 - x1, y2 - y1
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((px - x1) * dx + (py - y1) * dy) / length))
    return math.hypot(px - x1 - t * dx, py - y1 - t * dy)


def _hits(px: float, py: float, shape: Shape, pad: float) -> bool:
    """Whether the point (px, py) is on ``shape`` or within ``pad`` of it."""
    kind = shape[0]
    if kind == "segment":
        _, x1, y1, x2, y2, half = shape
        return _segment_distance(px, py, x1, y1, x2, y2) <= half + pad
    if kind == "ring":
        _, cx, cy, r, half = shape
        return abs(math.hypot(px - cx, py - cy) - r) <= half + pad
    _, x1, y1, x2, y2, x3, y3 = shape
    d1 = (px - x2) * (y1 - y2) - (x1 - x2) * (py - y2)
    d2 = (px - x3) * (y2 - y3) - (x2 - x3) * (py - y3)
    d3 = (px - x1) * (y3 - y1) - (x3 - x1) * (py - y1)
    inside = not ((d1 < 0 or d2 < 0 or d3 < 0) and (d1 > 0 or d2 > 0 or d3 > 0))
    return inside or min(_segment_distance(px, py, x1, y1, x2, y2), _segment_distance(px, py, x2, y2, x3, y3),
                         _segment_distance(px, py, x3, y3, x1, y1)) <= pad


LABEL_PAD = 1.5  # the least gap, in pixels, between a value written in a square and an arrow, ring or frame


def label_box(x: float, baseline: float, text: str, size: float) -> tuple[float, float, float, float]:
    """The box (left, top, right, bottom) a centred label of ``size`` px covers (digits, signs and
    dots of a sans-serif font: 0.6 em wide at most, 0.75 em above the baseline)."""
    half = 0.3 * size * len(text)
    return x - half, baseline - 0.75 * size, x + half, baseline + 0.05 * size


def _box_hits(box: tuple[float, float, float, float], shapes: Sequence[Shape]) -> int:
    """How many points of a grid over ``box`` (at most 3 px apart) touch ``shapes``: 0 when clear."""
    left, top, right, bottom = box
    nx, ny = max(2, math.ceil((right - left) / 3)), max(2, math.ceil((bottom - top) / 3))
    points = [(left + (right - left) * i / nx, top + (bottom - top) * j / ny) for i in range(nx + 1)
              for j in range(ny + 1)]
    return sum(any(_hits(px, py, shape, LABEL_PAD) for shape in shapes) for px, py in points)


Label = list[tuple[float, float, str, float]]  # a label's lines: centre x, baseline y, text, font size


def label_places(p: Position, sq: int, iv: Interval) -> list[Label]:
    """Where the value of square ``sq`` may be written, best first: each a list of lines (centre x,
    baseline y, text, font size): in the middle, along the top or the bottom edge, in two lines."""
    cx, cy = _centre(p, sq)
    top, bottom, left, right = cy - CELL / 2, cy + CELL / 2, cx - CELL / 2, cx + CELL / 2
    text = iv.text()

    def corners(t: str, size: float) -> list[Label]:
        half = 0.3 * size * len(t)  # near the corners, then inside a frame of the move before
        return [[(x, y, t, size)] for inset in (3, 8.5) for x in (left + inset + half, right - inset - half)
                for y in (top + inset + 0.75 * size, bottom - inset)]

    def one(x: float, y: float, t: str, size: float) -> Label:
        return [(x, y, t, size)]

    if iv.exact:
        return ([one(cx, cy + 5, text, 14), one(cx, cy + 4, text, 11), one(cx, top + 11, text, 11),
                 one(cx, bottom - 3, text, 11)] + corners(text, 11) + corners(text, 9)
                + [one(cx, cy + 3, text, 9), one(cx, cy + 3, text, 8)])  # the last two: inside a small ring
    lo, hi = signed(iv.lower), signed(iv.upper)

    def two(x: float, y1: float, y2: float, size: float) -> Label:  # the bounds in two lines
        return [(x, y1, lo + "..", size), (x, y2, hi, size)]

    return ([one(cx, cy + 4, text, 10), one(cx, top + 10, text, 9), one(cx, bottom - 3, text, 9),
             two(cx, top + 10, bottom - 3, 9), two(cx, cy - 1, cy + 9, 9), two(left + 12, top + 10, bottom - 3, 9),
             two(right - 12, top + 10, bottom - 3, 9), two(cx, cy - 6, cy + 12.5, 9)] + corners(text, 8)
            + [two(cx, cy - 0.5, cy + 7.5, 8), two(cx, cy - 6, cy + 12, 8)]  # across a shaft, in a ring
            # beside a shaft through the middle: the lower bound above the upper, in a narrow column
            + [[(x, cy - 1, lo, 8), (x, cy + 8, hi, 8)] for x in (left + 10, right - 10)])
    lo, hi = signed(iv.lower), signed(iv.upper)
    places = ([[(cx, cy + 4, text, 10)], [(cx, top + 10, text, 9)], [(cx, bottom - 3, text, 9)],
             [(cx, top + 10, lo + "..", 9), (cx, bottom - 3, hi, 9)],
             [(cx, cy - 1, lo + "..", 9), (cx, cy + 9, hi, 9)]]
            + [[(x, top + 10, lo + "..", 9), (x, bottom - 3, hi, 9)] for x in (left + 12, right - 12)]
              + corners(text, 8) + [[(cx, cy - 0.5, lo + "..", 8), (cx, cy + 7.5, hi, 8)]])
    return places


def _value_label(p: Position, sq: int, iv: Interval, arrows: Sequence[Shape], frames: Sequence[Shape]) -> str:
    """The value of a square as SVG text, at its first place (:func:`label_places`) clear of the
    ``arrows`` and ``frames`` (:func:`_arrow_shapes`, :func:`_frame_shapes`); where none is clear
    of the arrows, the least covered, on a white halo."""
    places = label_places(p, sq, iv)

    def hits(lines: Label, among: Sequence[Shape]) -> int:
        return sum(_box_hits(label_box(x, y, t, size), among) for x, y, t, size in lines)

    # the first place clear of everything, else the first clear of the arrows (over a frame), else
    # the one the arrows cover least
    covered = [(hits(lines, arrows), hits(lines, frames), k) for k, lines in enumerate(places)]
    best = min(covered)
    halo = best[0] > 0
    lines = places[best[2]]
    extra = ' stroke="white" stroke-width="3" paint-order="stroke"' if halo else ""
    name = p.board.square_name(sq)
    return "".join(f'<text class="value" data-square="{name}" x="{x:.1f}" y="{y:.1f}" text-anchor="middle" '
                   f'font-size="{size}"{extra}>{escape(t)}</text>' for x, y, t, size in lines)


BOUNDED_FILLS = {"win": BOUNDED_WIN_FILL, "loss": BOUNDED_LOSS_FILL, "open": UNSOLVED_FILL}


def bounded_kind(p: Position, iv: Interval) -> str:
    """What an interval that is not exact proves for the mover (by :attr:`Interval.outcome`):
    'win', 'loss', or 'open' while it spans the draw (its tint: :data:`BOUNDED_FILLS`)."""
    winner = {Outcome.X_WINS: X, Outcome.O_WINS: O}.get(iv.outcome)
    return "open" if winner is None else "win" if winner == p.turn else "loss"


def _clip(text: str, n: int = 18) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def board_svg(analyzer: Analyzer, p: Position, tint: bool = True, arrows: Sequence[Arrow] | None = None,
              last_move: Move | None = None, legend: bool = True,
              players: Mapping[Side, str] | None = None,
              values: Mapping[Move, Interval] | None = None, value: Interval | None = None,
              shown: Move | None = None) -> str:
    """The board as SVG: pieces, blocks, coordinates, and (with ``tint``) each empty square the
    side to move can reach tinted by the best value it gets by moving there (green: the mover
    wins, red: loses, white: a draw; deeper for more points; the value, X's side, is written in
    the square; a square whose value is only bounded shows its interval, pale red when it is
    below the draw for the mover, pale green above it, pale blue when it spans the draw).

    ``arrows``: the moves to draw (:class:`Arrow`); None draws the best move (when ``tint``
    gives it). ``last_move``: the move that led here (a prior position's move), its squares
    framed. ``legend``: a column right of the board says who X and O are (``players`` names
    them), what the colours, arrows and frames mean. ``values``: the moves' intervals when
    already known (:func:`move_intervals`); ``value``: the position's, for the caption, when
    known (else it is read from the moves' intervals). ``shown``: a move (the move played, on the
    audit page) whose square shows that move's value rather than the best one there, so that its
    arrow ends on what its verdict says. Without ``tint`` nothing is solved."""
    board = p.board
    if tint and not p.is_over():
        if values is None:
            values = move_intervals(analyzer, p)
    else:
        values = {}
    squares = square_intervals(p, values)
    if shown is not None and not shown.is_pass and shown in values:
        squares[shown.to] = values[shown]
    if arrows is None:
        best = best_move(analyzer, p, values) if values else None
        arrows = [] if best is None or best.is_pass else [Arrow(best, "best")]
    sign = 1 if p.turn == X else -1
    span = max((abs(iv.lower) for iv in squares.values() if iv.exact), default=1) or 1
    board_width = 2 * MARGIN + board.cols * CELL
    board_height = 2 * MARGIN + board.rows * CELL + 24
    result = p.result()
    if result is not None:
        title = f"game over: {signed(result)}"
    elif tint:
        title = f"{side_name(p.turn)} to move"
        shown_value = narrowed_value(p, values, value)
        if shown_value is not None:
            title += f", value {shown_value.text()}"
    else:
        title = f"{side_name(p.turn)} to move"
    items = _legend_items(p, squares, arrows, last_move, players or {}) if legend else []
    width = board_width + (LEGEND_WIDTH if legend else 0)
    height = max(board_height, 16 + LINE * len(items))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
           f"<title>{escape(title)}</title>",
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>']
    numbers: list[tuple[int, Interval]] = []
    unreached = unreached_squares(p, squares)
    for sq in range(board.size):
        f, r = board.file_of(sq), board.rank_of(sq)
        x = MARGIN + f * CELL
        y = MARGIN + (board.rows - 1 - r) * CELL
        name = board.square_name(sq)
        piece = p.piece_at(sq)
        iv = squares.get(sq)
        if board.is_block(sq):
            fill, kind = "#555555", "block"
        elif piece is None and iv is not None:
            bounded = None if iv.exact else bounded_kind(p, iv)
            fill = _tint(sign * iv.lower / span) if bounded is None else BOUNDED_FILLS[bounded]
            kind = "empty tinted" if bounded is None else f"empty bounded {bounded}"
        elif piece is None:
            fill, kind = (UNREACHED_FILL, "empty unreached") if sq in unreached else (EMPTY_FILL, "empty")
        else:
            fill, kind = "#e8e0c8", piece
        out.append(f'<rect class="square {kind}" id="sq-{name}" x="{x}" y="{y}" width="{CELL}" height="{CELL}" '
                   f'fill="{fill}" stroke="#888888"><title>{name}</title></rect>')
        cx, cy = x + CELL // 2, y + CELL // 2
        if piece is not None:
            colour = "#202020" if piece == X else "#fafafa"
            out.append(f'<circle class="piece {piece}" cx="{cx}" cy="{cy}" r="{CELL * 0.38:.1f}" fill="{colour}" '
                       'stroke="#202020" stroke-width="2"/>')
        elif iv is not None:  # (written after the arrows, placed clear of them)
            numbers.append((sq, iv))
    if last_move is not None and not last_move.is_pass:
        for sq in (last_move.to,) if last_move.is_clone else (last_move.frm, last_move.to):
            mx, my = _centre(p, sq)
            out.append(f'<rect class="last-move" data-square="{board.square_name(sq)}" x="{mx - CELL / 2 + 3:.1f}" '
                       f'y="{my - CELL / 2 + 3:.1f}" width="{CELL - 6}" height="{CELL - 6}" fill="none" '
                       f'stroke="{LAST_MOVE_COLOUR}" stroke-width="5"/>')
    for a in arrows:
        out.append(_arrow_svg(p, a))
    shapes = [shape for a in arrows for shape in _arrow_shapes(p, a)]
    frames = _frame_shapes(p, last_move)
    for sq, iv in numbers:
        out.append(_value_label(p, sq, iv, shapes, frames))
    for f in range(board.cols):
        x = MARGIN + f * CELL + CELL // 2
        label = board.square_name(board.square(f, 0)).rstrip("0123456789")
        out.append(f'<text x="{x}" y="{MARGIN - 8}" text-anchor="middle" font-size="13">{label}</text>')
        out.append(f'<text x="{x}" y="{MARGIN + board.rows * CELL + 18}" text-anchor="middle" '
                   f'font-size="13">{label}</text>')
    for r in range(board.rows):
        y = MARGIN + (board.rows - 1 - r) * CELL + CELL // 2 + 5
        out.append(f'<text x="{MARGIN - 10}" y="{y}" text-anchor="middle" font-size="13">{r + 1}</text>')
        out.append(f'<text x="{board_width - MARGIN + 10}" y="{y}" text-anchor="middle" font-size="13">{r + 1}</text>')
    out.append(f'<text class="caption" x="{MARGIN}" y="{board_height - 6}" font-size="14">{escape(title)}</text>')
    if items:
        out.append('<g class="legend">')
        x0 = board_width + 4
        for k, (icon, text) in enumerate(items):
            y = 16 + LINE * k  # the baseline of the line's text
            out.append(icon(x0, y - 5))
            out.append(f'<text x="{x0 + 40}" y="{y}" font-size="13">{escape(text)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


Icon = Callable[[float, float], str]


def _arrow_icon(p: Position, a: Arrow) -> Icon:
    return lambda x, y: _arrow_svg(p, a, at=(x + 4, y))


def _legend_items(p: Position, squares: Mapping[int, Interval], arrows: Sequence[Arrow],
                  last_move: Move | None, players: Mapping[Side, str]) -> list[tuple[Icon, str]]:
    """The legend's lines: an icon drawn at (x, y: the middle of the line) and its text."""
    mover = side_name(p.turn)

    def piece(colour: str) -> Icon:
        return lambda x, y: (f'<circle cx="{x + 12:.1f}" cy="{y:.1f}" r="8" fill="{colour}" '
                             'stroke="#202020" stroke-width="1.5"/>')

    def swatch(fill: str, stroke: str = "#888888", width: float = 1) -> Icon:
        return lambda x, y: (f'<rect x="{x + 4:.1f}" y="{y - 8:.1f}" width="16" height="16" fill="{fill}" '
                             f'stroke="{stroke}" stroke-width="{width}"/>')

    def gradient(x: float, y: float) -> str:
        return "".join(f'<rect x="{x + 4 + 6 * k:.1f}" y="{y - 8:.1f}" width="6" height="16" fill="{_tint(g)}"/>'
                       for k, g in enumerate((-1.0, -0.5, 0.0, 0.5, 1.0)))

    items: list[tuple[Icon, str]] = []
    for side, colour, pgn in ((X, "#202020", "Black"), (O, "#fafafa", "White")):
        name = players.get(side)
        text = f"{side_name(side)} ({pgn} in PGN)" + (", to move" if p.turn == side and not p.is_over() else "")
        items.append((piece(colour), text + (f": {_clip(name)}" if name else "")))
    if any(p.board.is_block(sq) for sq in range(p.board.size)):
        items.append((swatch("#555555"), "block (no piece goes there)"))
    if any(iv.exact for iv in squares.values()):
        items.append((gradient, f"{mover} moving there: loses ... wins"))
        items.append((swatch(_tint(0.0)), "white: a draw; deeper: more points"))
        items.append((lambda x, y: f'<text x="{x + 2:.1f}" y="{y + 5:.1f}" font-size="12">+3</text>',
                      "the value after it (X's side)"))
    if unreached_squares(p, squares):
        items.append((swatch(UNREACHED_FILL), f"empty, but {mover} cannot move there"))
    bounded = {bounded_kind(p, iv) for iv in squares.values() if not iv.exact}
    for kind, text in (("win", f"only bounded, {mover} wins: low..high"),
                       ("loss", f"only bounded, {mover} loses: low..high"),
                       ("open", "only bounded: low..high (ran out of budget)")):
        if kind in bounded:
            items.append((swatch(BOUNDED_FILLS[kind]), text))
    for a in arrows:
        what = ARROW_STYLES[a.kind][2]
        how = {"jump": "a jump", "clone": "a clone", "pass": "a pass"}[_move_kind(a.move)]
        items.append((_arrow_icon(p, a), f"{what}: {p.move_name(a.move)} ({how})"))
    if last_move is not None:
        items.append((swatch("none", LAST_MOVE_COLOUR, 3), f"the move before: {p.move_name(last_move)}"))
    return items


# -- the audit page (verify --html) -----------------------------------------------------------------------------------------

def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


def mover_words(p: Position, iv: Interval) -> str:
    """What ``iv`` (X's side) means for the side to move of ``p``: :meth:`Interval.words_for`."""
    return iv.words_for(p.turn)


def verdict_words(c: Check) -> str:
    """The verdict on a check in words, for people: 'd5b7 is a blunder: it loses by 5; best f6e5
    wins by 3 (8 points given away; the value, X's side, +3 to -5)'."""
    if c.problem:
        return f"{c.player}'s answer is a problem: {c.problem}"
    if c.verdict is None or c.value_interval is None or c.best_interval is None:
        return f"{c.move}: not judged"
    p, played, best = c.position, c.value_interval, c.best_interval
    if c.verdict == Verdict.OPTIMAL:
        return f"{c.move} is optimal: it {mover_words(p, played)}, the most the position gives (value {played.text()})"
    if c.verdict == Verdict.UNSETTLED:
        mover = side_name(p.turn)
        return (f"{c.move} is unsettled: after it {mover} {mover_words(p, played)}; with the best move {mover} "
                f"{mover_words(p, best)}; the budget ran out before a loss of points was proved or ruled out "
                f"(values, X's side: {best.text()} the position, {played.text()} the move)")
    article = "an" if c.verdict == Verdict.INACCURACY else "a"
    best_part = f"best {c.best_move} {mover_words(p, best)}" if c.best_move else f"the best move {mover_words(p, best)}"
    if c.found_move and not c.best_move:  # a move proved to keep the position's bound, named
        low, high = best.for_mover(p.turn)
        kept = Interval.from_mover(p.turn, low, best.squares, best.squares)
        best_part = f"best found {c.found_move} {mover_words(p, kept)}" + (
            "" if high == best.squares else f" (the best move {mover_words(p, best)})")
    given = _points(c.loss) if c.loss is not None else f"at least {_points(c.min_loss or 0)}"
    return (f"{c.move} is {article} {c.verdict}: it {mover_words(p, played)}; {best_part} "
            f"({given} given away; the value, X's side, {best.text()} to {played.text()})")


def _parsed(p: Position, text: str) -> Move | None:
    try:
        return p.parse_move(text)
    except (InvalidMoveError, IllegalMoveError):
        return None


def check_arrows(c: Check) -> list[Arrow]:
    """The arrows of a check: the move played, and the best move when it is another one."""
    out = []
    played = _parsed(c.position, c.move) if c.move else None
    if played is not None:
        out.append(Arrow(played, "played"))
    best = _parsed(c.position, c.best_move) if c.best_move else None
    if best is not None and best != played:
        out.append(Arrow(best, "best"))
    return out


def last_moves(checks: Sequence[Check]) -> dict[int, Move]:
    """For the index of each check whose position the check before it led to (the moves of a
    game judged in turn), or that its game's record reached: the move that led there."""
    out: dict[int, Move] = {}
    for k, c in enumerate(checks):
        prev = checks[k - 1] if k else None
        m = c.last_move
        if m is None and prev is not None and not prev.problem and prev.source == c.source:
            m = _parsed(prev.position, prev.move)
            if m is not None and prev.position.push(m) != c.position:
                m = None
        if m is not None:
            out[k] = m
    return out


TINT_SECONDS = 10.0  # the most time the tint of one board of the audit page takes


def check_svg(verifier: Verifier, c: Check, last_move: Move | None = None, tint: bool = True,
              legend: bool = True, seconds: float | None = TINT_SECONDS) -> str:
    """The board of a check as SVG: tinted with the value of every move (within the verifier's
    limits, its clock restarted, and at most ``seconds``, or under a node budget that budget
    and no time: under the search a move not solved in its share is shown with its interval; under an exact solver a limit leaves the squares
    untinted), the move played and the best move as arrows, the move before it framed, and the
    legend (the mover named)."""
    return check_board(verifier, c, last_move, tint, legend, seconds)[0]


def check_board(verifier: Verifier, c: Check, last_move: Move | None = None, tint: bool = True,
                legend: bool = True, seconds: float | None = TINT_SECONDS) -> tuple[str, Interval | None]:
    """:func:`check_svg`, and the position's value as the board shows it: the judged one
    (``c.best_interval``), narrowed by what the tint proved of every move."""
    analyzer = verifier.analyzer(c.position)
    values: Mapping[Move, Interval] | None = None
    nodes = verifier.solver.limits.nodes
    if tint:
        try:  # under a node budget (--nodes) the tint is the same on any machine: no time share
            values = move_intervals(analyzer, c.position, None if nodes is not None else seconds, nodes)
        except LimitError:
            values = {}
    judged = judged_intervals(c, values or {})
    arrows = check_arrows(c)
    played = next((a.move for a in arrows if a.kind == "played"), None)
    if played is not None and any(a.move.to == played.to for a in arrows if a.kind != "played"):
        played = None  # the best move ends there too: the square shows the best, as everywhere
    svg = board_svg(analyzer, c.position, tint=tint or bool(judged), arrows=arrows, last_move=last_move,
                    legend=legend, players={c.position.turn: c.player}, values=judged, value=c.best_interval,
                    shown=played)
    return svg, narrowed_value(c.position, judged, c.best_interval)


def judged_intervals(c: Check, values: Mapping[Move, Interval]) -> dict[Move, Interval]:
    """The moves' intervals (:func:`move_intervals`) narrowed by what judging the check proved: the
    move played is worth ``c.value_interval``, the best move named ``c.best_interval``, and no
    move more, for the mover, than the position (``c.best_interval``). So the board shows the
    values its verdict states ('loses by 7; best d6 wins by 1'), never the wider intervals of the
    tint's own, shorter, budget."""
    p = c.position
    known = [(_parsed(p, text), proved) for text, proved in ((c.move, c.value_interval), (c.best_move, c.best_interval))
             if text and proved is not None]
    return proved_intervals(p, values, c.best_interval, [(m, iv) for m, iv in known if m is not None])


def proved_intervals(p: Position, values: Mapping[Move, Interval], value: Interval | None,
                     known: Sequence[tuple[Move, Interval]] = ()) -> dict[Move, Interval]:
    """The moves' intervals narrowed by what else was proved: no move is worth more, for the mover,
    than the position (``value``, when known), and each move of ``known`` lies in its interval
    there too (their common part; the known interval alone if they do not meet, which two proofs
    cannot do). A known move without an interval in ``values`` gets the known one."""
    out = dict(values)
    squares = p.board.playable.bit_count()
    if value is not None:  # a move is worth at most the position, for the mover
        top = value.for_mover(p.turn)[1]
        for m, iv in out.items():
            lo, hi = iv.for_mover(p.turn)
            out[m] = Interval.from_mover(p.turn, min(lo, top), min(hi, top), squares)
    for move, proved in known:
        have = out.get(move)
        if have is None:
            out[move] = proved
            continue
        lower, upper = max(have.lower, proved.lower), min(have.upper, proved.upper)
        out[move] = Interval(lower, upper, squares) if lower <= upper else proved
    return out


def side_svg(analyzer: Analyzer, s: SideResult, last_move: Move | None = None,
             seconds: float | None = None) -> str:
    """The board of a solved side (``--svg``) as :func:`board_svg` draws it, with what the solve
    proved: the position's value in the caption, each move's exact value when the analysis gave
    them all (no search again), else the moves' intervals that the oracle proves within what is
    left of its limits and at most ``seconds`` in all, narrowed by the value and by the best
    move's proved bound; the best move's arrow when it is proved to keep the value."""
    p = s.position
    squares = p.board.playable.bit_count()
    if s.moves:
        values: dict[Move, Interval] = {i.move: Interval(i.value, i.value, squares) for i in s.moves}
    else:
        try:
            values = move_intervals(analyzer, p, seconds)
        except LimitError:
            values = {}
    known: list[tuple[Move, Interval]] = []
    arrows: list[Arrow] | None = None
    if s.best_move is not None and s.best_bound is not None:
        low, high = s.interval.for_mover(p.turn)
        bound = s.best_bound if p.turn == X else -s.best_bound
        if low <= bound <= high:
            known.append((s.best_move, Interval.from_mover(p.turn, bound, high, squares)))
            if bound == high and not s.best_move.is_pass:
                arrows = [Arrow(s.best_move, "best")]
    values = proved_intervals(p, values, s.interval, known)
    return board_svg(analyzer, p, arrows=arrows, last_move=last_move, values=values, value=s.interval)


PAGE_LEGEND = f"""<section id="legend"><h2>How to read the boards</h2>
<ul>
<li>X, the black discs, moves first (Black in the PGN of libataxx and python-ataxx); O, the white discs, second
(White). Grey squares are blocks. Values are X's side: +5 means X ends 5 pieces ahead.</li>
<li>Each empty square the side to move can reach is tinted by the best it gets by moving there: green, it wins;
red, it loses; white, a draw; the deeper the colour, the more points. The number is the value after that move;
where the move played ends, its own value (a jump there may be worse than a clone), unless the best move ends there
too. A square with an interval was only bounded within the budget: pale red when every value in it loses for the
side to move, pale green when every value wins, pale blue when it spans the draw. An empty square the side to move
cannot move to is grey.</li>
<li><span style="color:{ARROW_STYLES['played'][0]}">&#9644; solid blue</span>: the move played;
<span style="color:{ARROW_STYLES['best'][0]}">&#9644; dashed orange</span>: the best move. A jump is an arrow
from the square it leaves; a clone, a ring on the square it fills.
A <span style="color:{LAST_MOVE_COLOUR}">gold frame</span> marks the move before (in a game).</li>
</ul></section>
"""


def report_boards(checks: list[Check]) -> int:
    """How many boards the ``verify --html`` page draws (and, tinted, solves): one for each
    inaccuracy, blunder and unsettled move with both intervals known."""
    return sum(1 for c in checks if _has_board(c))


def _has_board(c: Check) -> bool:
    return c.verdict in (Verdict.INACCURACY, Verdict.BLUNDER, Verdict.UNSETTLED) and bool(c.value_interval) \
        and bool(c.best_interval)


def html_report(checks: list[Check], summaries: list[PlayerSummary], verifier: Verifier, title: str,
                tint: bool = True, tint_seconds: float | None = TINT_SECONDS,
                on_board: Callable[[int, int], None] | None = None) -> str:
    """The ``verify --html`` page, self-contained: the summary table, how to read the boards, then
    each inaccuracy, blunder and unsettled move with its verdict in words and its board
    (:func:`check_svg`: tinted, the played and best moves drawn). Tinting solves every move of
    those positions within the verifier's limits; without ``tint``, or after Ctrl-C while it
    does, the boards are drawn untinted; each board's tint takes at most ``tint_seconds``.
    ``on_board(k, n)`` is called before the k-th board (from 1) of the n it draws (progress)."""
    escape = html_escape
    rows = "\n".join(
        f"<tr class=\"player\"><td>{escape(s.player)}</td><td>{s.moves}</td><td>{s.settled}</td>"
        f"<td>{f'{s.percent_optimal:.1f}%' if s.settled else '-'}</td>"
        f"<td>{f'{s.mean_loss:.2f}' if s.settled else '-'}</td><td>{s.inaccuracies}</td><td>{s.blunders}</td><td>{s.unsettled}</td>"
        f"<td>{s.problems}</td></tr>"
        for s in summaries)
    before = last_moves(checks)
    cards = []
    total = report_boards(checks)
    drawn = 0
    for k, c in enumerate(checks):
        if _has_board(c):
            drawn += 1
            if on_board is not None:
                on_board(drawn, total)
            try:
                svg, shown = check_board(verifier, c, before.get(k), tint=tint, seconds=tint_seconds)
            except KeyboardInterrupt:  # Ctrl-C while solving the moves: the rest untinted
                tint = False
                svg, shown = check_board(verifier, c, before.get(k), tint=False)
            more = ""
            if shown is not None and shown != c.best_interval:  # (the tint's own search proved more)
                # (with the outcome unknown, words would only repeat the interval)
                proved = (f"the value is {shown.text()}, X's side" if shown.outcome == Outcome.UNKNOWN
                          else f"{side_name(c.position.turn)} {mover_words(c.position, shown)} (value {shown.text()})")
                more = f' <span class="tint-value">The board\'s own search proved more: {proved}.</span>'
            cards.append(
                f'<section class="mistake {c.verdict}"><h3>{escape(c.player)}: {c.verdict}, '
                f"{escape(c.source)}:{c.line}{' (' + escape(c.name) + ')' if c.name else ''}</h3>"
                f'<p class="verdict">{side_name(c.position.turn)} to move: {escape(verdict_words(c))}.{more}</p>'
                f"<p><code>{escape(write_fen(c.position))}</code></p>{svg}</section>")
        elif c.problem:
            cards.append(f'<section class="problem"><h3>{escape(c.player)}: problem, {escape(c.source)}:{c.line}'
                         f"</h3><p>{escape(c.problem)}</p></section>")
    unsettled = (f"<p>{verifier.unsettled} move(s) could not be settled within the budget: their intervals are "
                 "shown.</p>" if verifier.unsettled else "<p>Every judged move was settled.</p>")
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
<table id="summary"><thead><tr><th>player</th><th>moves</th><th>settled</th><th>optimal</th><th>mean loss</th>
<th>inaccuracies</th><th>blunders</th><th>unsettled</th><th>problems</th></tr></thead>
<tbody>
{rows}
</tbody></table>
{unsettled}
{PAGE_LEGEND}
{''.join(cards)}
</body></html>
"""
