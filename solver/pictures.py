"""Pictures of solved positions: the game tree as Graphviz DOT, the board as SVG, and the
audit page of ``verify --html`` (HTML with the boards of the mistakes).

All are plain text written here (no Graphviz or drawing library is needed to
write them; ``dot`` renders the DOT file).
"""

from __future__ import annotations

from html import escape as html_escape
from xml.sax.saxutils import escape

from .analysis import Analyzer
from .formats import grid_rows, write_fen
from .notation import signed
from .rules import X, Position, side_name
from .verify import Check, PlayerSummary, Verifier

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


def _tint(gain: float) -> str:
    """A colour from red (gain -1: the worst square for the mover) to green (+1: the best)."""
    gain = max(-1.0, min(1.0, gain))
    if gain >= 0:
        r, g, b = int(255 - 120 * gain), 255, int(255 - 120 * gain)
    else:
        r, g, b = 255, int(255 + 120 * gain), int(255 + 120 * gain)
    return f"#{r:02x}{g:02x}{b:02x}"


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


def board_svg(analyzer: Analyzer, p: Position, tint: bool = True) -> str:
    """The board as SVG: pieces, blocks, coordinates, and (with ``tint``) each empty square the
    side to move can reach tinted by the best value it gets by moving there (green good, red
    bad for the mover; the value is written in the square). Without ``tint`` nothing is solved."""
    board = p.board
    values = square_values(analyzer, p) if tint and not p.is_over() else {}
    sign = 1 if p.turn == X else -1
    span = max((abs(v) for v in values.values()), default=1) or 1
    width = 2 * MARGIN + board.cols * CELL
    height = 2 * MARGIN + board.rows * CELL + 24
    result = p.result()
    if result is not None:
        title = f"game over: {signed(result)}"
    elif tint:
        title = f"{side_name(p.turn)} to move, value {signed(analyzer.evaluate(p).value)}"
    else:
        title = f"{side_name(p.turn)} to move"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
           f"<title>{escape(title)}</title>",
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>']
    for sq in range(board.size):
        f, r = board.file_of(sq), board.rank_of(sq)
        x = MARGIN + f * CELL
        y = MARGIN + (board.rows - 1 - r) * CELL
        name = board.square_name(sq)
        piece = p.piece_at(sq)
        if board.is_block(sq):
            fill, kind = "#555555", "block"
        elif piece is None and sq in values:
            fill, kind = _tint(sign * values[sq] / span), "empty"
        else:
            fill, kind = "#f4f4f4" if piece is None else "#e8e0c8", "empty" if piece is None else piece
        out.append(f'<rect class="square {kind}" id="sq-{name}" x="{x}" y="{y}" width="{CELL}" height="{CELL}" '
                   f'fill="{fill}" stroke="#888888"><title>{name}</title></rect>')
        cx, cy = x + CELL // 2, y + CELL // 2
        if piece is not None:
            colour = "#202020" if piece == X else "#fafafa"
            out.append(f'<circle class="piece {piece}" cx="{cx}" cy="{cy}" r="{CELL * 0.38:.1f}" fill="{colour}" '
                       'stroke="#202020" stroke-width="2"/>')
        elif sq in values:
            out.append(f'<text x="{cx}" y="{cy + 5}" text-anchor="middle" font-size="14">'
                       f"{signed(values[sq])}</text>")
    for f in range(board.cols):
        x = MARGIN + f * CELL + CELL // 2
        label = board.square_name(board.square(f, 0)).rstrip("0123456789")
        out.append(f'<text x="{x}" y="{MARGIN - 8}" text-anchor="middle" font-size="13">{label}</text>')
        out.append(f'<text x="{x}" y="{MARGIN + board.rows * CELL + 18}" text-anchor="middle" '
                   f'font-size="13">{label}</text>')
    for r in range(board.rows):
        y = MARGIN + (board.rows - 1 - r) * CELL + CELL // 2 + 5
        out.append(f'<text x="{MARGIN - 10}" y="{y}" text-anchor="middle" font-size="13">{r + 1}</text>')
        out.append(f'<text x="{width - MARGIN + 10}" y="{y}" text-anchor="middle" font-size="13">{r + 1}</text>')
    out.append(f'<text x="{MARGIN}" y="{height - 6}" font-size="14">{escape(title)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- the audit page (verify --html) -----------------------------------------------------------------------------------------

def html_report(checks: list[Check], summaries: list[PlayerSummary], verifier: Verifier, title: str) -> str:
    """The ``verify --html`` page, self-contained: the summary table, then each inaccuracy,
    blunder and unsettled move with its board."""
    escape = html_escape
    rows = "\n".join(
        f"<tr class=\"player\"><td>{escape(s.player)}</td><td>{s.checked}</td>"
        f"<td>{f'{s.percent_optimal:.1f}%' if s.checked else '-'}</td>"
        f"<td>{f'{s.mean_loss:.2f}' if s.checked else '-'}</td><td>{s.inaccuracies}</td><td>{s.blunders}</td><td>{s.unsettled}</td>"
        f"<td>{s.problems}</td></tr>"
        for s in summaries)
    cards = []
    for c in checks:
        if c.verdict in ("inaccuracy", "blunder", "unsettled") and c.value_interval and c.best_interval:
            analyzer = verifier.analyzer(c.position)
            # the tinted board needs every move's value: only where that is cheap (not the search)
            svg = board_svg(analyzer, c.position, tint=not analyzer.oracle.proves_bounds)
            loss = (f"loses {c.loss} point{'s' if c.loss != 1 else ''}" if c.loss is not None else
                    f"loses at least {c.min_loss} point{'s' if c.min_loss != 1 else ''}" if c.min_loss else
                    "not settled within the budget")
            best = f"best <b>{escape(c.best_move)}</b>" if c.best_move else "best"
            cards.append(
                f'<section class="mistake {c.verdict}"><h3>{escape(c.player)}: {c.verdict}, '
                f"{escape(c.source)}:{c.line}{' (' + escape(c.name) + ')' if c.name else ''}</h3>"
                f"<p>{side_name(c.position.turn)} to move. Played <b>{escape(c.move)}</b> "
                f"(value {c.value_interval.text()}); {best} (value {c.best_interval.text()}); {loss}.</p>"
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
<th>inaccuracies</th><th>blunders</th><th>unsettled</th><th>problems</th></tr></thead>
<tbody>
{rows}
</tbody></table>
<p>{verifier.unsettled} move(s) could not be settled within the budget: their intervals are shown.</p>
{''.join(cards)}
</body></html>
"""
