"""The move table (--moves), the game tree (--dot) and the board picture (--svg)."""

import io
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from solver.solve.analysis import Analyzer
from solver.app.cli import main
from solver.solve.solver import Solver
from solver.io.formats import parse_position
from solver.app.pictures import (Arrow, best_move, board_svg, check_svg, game_tree_dot, move_intervals,
                             verdict_words)
from solver.oracles.reference import ReferenceOracle
from solver.game.rules import UAI, X
from solver.play.verify import Check, Verifier, judge

SVG = "{http://www.w3.org/2000/svg}"


def _analyzer():
    return Analyzer(ReferenceOracle())


@pytest.mark.slow
@pytest.mark.parametrize("text,rules", [("to-move: x\nx..\n...\n..o", None), ("to-move: o\nx.#o\n.##.", None),
                                        ("to-move: x\nx..o\n#..#", UAI), ("to-move: o\nx....o\n.#....", None)])
def test_move_table_values_match_solving_each_child(text, rules):
    p = parse_position(text, rules=rules or parse_position(text).position.rules).position
    a = _analyzer()
    infos = a.moves(p, dominance=True)
    assert {i.move for i in infos} == set(p.legal_moves())
    fresh = Solver(algorithm="retro").analyzer(p)
    for i in infos:
        child = fresh.evaluate(p.push(i.move))
        assert (i.value, i.depth) == (child.value, None if child.depth is None else child.depth + 1), i.name
        assert i.optimal == (i.value == a.evaluate(p).value)
    sign = 1 if p.turn == X else -1
    assert [sign * i.value for i in infos] == sorted((sign * i.value for i in infos), reverse=True)
    assert sum(i.preferred for i in infos) == 1


def test_dominated_moves_are_marked():
    p = parse_position("to-move: x\nx..\n...\n..o").position
    infos = {i.name: i for i in _analyzer().moves(p, dominance=True)}
    # b2 takes the centre: X wins by 9 whoever moves next. a2 leaves a hot board that O wins.
    assert infos["b2"].stops == (9, 9) and infos["a2"].stops == (9, -9)
    assert infos["a2"].dominated and not infos["b2"].dominated
    for i in infos.values():
        better = [j for j in infos.values() if j.stops[0] >= i.stops[0] and j.stops[1] >= i.stops[1]
                  and j.stops != i.stops]
        assert i.dominated == bool(better)


def test_move_table_from_the_cli(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"to-move: x\nx..\n...\n..o\n")))
    assert main(["--moves"]) == 0
    out = capsys.readouterr().out
    assert "moves (* preferred, = optimal" in out
    assert "* b2      +9  X wins by 9              depth 13  stops +9/+9" in out
    assert "a2      -9  O wins by 9              depth 12  stops +9/-9 dominated" in out


@pytest.mark.slow
def test_svg_has_one_square_per_board_square(tmp_path):
    p = parse_position("to-move: x\nx..#\n#...\n...o").position
    svg = board_svg(_analyzer(), p)
    root = ET.fromstring(svg)
    squares = [r for r in root.iter(SVG + "rect") if "square" in r.get("class", "").split()]
    assert len(squares) == 12
    assert sum("block" in r.get("class") for r in squares) == 2
    assert len([c for c in root.iter(SVG + "circle") if "piece" in c.get("class", "").split()]) == 2
    ids = {r.get("id") for r in squares}
    assert {"sq-a3", "sq-d1", "sq-d3"} <= ids
    # The square of the best move is green, the worst red.
    moves = _analyzer().moves(p)
    best, worst = moves[0].move.to, moves[-1].move.to
    fill = {r.get("id"): r.get("fill") for r in squares}
    name = p.board.square_name
    assert fill[f"sq-{name(best)}"] != fill[f"sq-{name(worst)}"]


def _dot_nodes(text):
    return [line for line in text.splitlines() if line.strip().startswith("n") and "[shape=" in line]


def test_dot_tree_has_one_node_per_position():
    p = parse_position("to-move: x\nx..\n...\n..o").position
    a = _analyzer()
    dot = game_tree_dot(a, p, depth=2)
    children = {p.push(m) for m in p.legal_moves()}
    grandchildren = {c.push(m) for c in children for m in c.legal_moves()}
    assert len(_dot_nodes(dot)) == len({p} | children | grandchildren)
    edges = [line for line in dot.splitlines() if "->" in line]
    assert len(edges) == len(p.legal_moves()) + sum(len(c.legal_moves()) for c in children)
    bold = [e for e in edges if "style=bold" in e and e.strip().startswith("n0 ->")]
    assert sorted(e.split('label="')[1].split('"')[0] for e in bold) == ["a3b1", "a3c2", "b2"]


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed (apt-get install graphviz)")
def test_dot_file_loads_in_graphviz(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x.#o\n.##.\n")))
    out = tmp_path / "tree.dot"
    assert main(["--dot", str(out), "--tree-depth", "3"]) == 0
    r = subprocess.run(["dot", "-Tsvg", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    rendered = ET.fromstring(r.stdout)
    groups = [g for g in rendered.iter(SVG + "g") if g.get("class") == "node"]
    assert len(groups) == len(_dot_nodes(out.read_text()))


def test_pictures_from_the_cli_for_several_positions(tmp_path, capsys):
    f = tmp_path / "two.txt"
    f.write_text("x...o\n\nto-move: o\nx..\n...\n..o\n")
    svg = tmp_path / "b.svg"
    assert main([str(f), "--svg", str(svg)]) == 0
    assert svg.exists() and (tmp_path / "b-2.svg").exists()
    ET.parse(svg)
    assert main([str(f), "--svg", str(tmp_path / "missing" / "b.svg")]) == 2
    assert "cannot write" in capsys.readouterr().err


# -- arrows, legend, the audit page (issue 19 item 5) ---------------------------------------------------------------

THREE = "to-move: x\nx..\n...\n..o"


def _by_class(root, word, tag="g"):
    return [e for e in root.iter(SVG + tag) if word in e.get("class", "").split()]


def _legend_text(root):
    legend = _by_class(root, "legend")
    assert len(legend) == 1
    return [t.text for t in legend[0].iter(SVG + "text")]


def test_svg_draws_played_and_best_moves_a_last_move_and_a_legend():
    p = parse_position(THREE).position
    jump, clone, before = p.parse_move("a3c2"), p.parse_move("b2"), p.parse_move("a2")
    svg = board_svg(_analyzer(), p, arrows=[Arrow(jump, "played"), Arrow(clone, "best")], last_move=before,
                    players={X: "alice"})
    root = ET.fromstring(svg)
    arrows = _by_class(root, "arrow")
    assert [(a.get("class"), a.get("data-from"), a.get("data-to")) for a in arrows] == [
        ("arrow played jump", "a3", "c2"), ("arrow best clone", None, "b2")]
    # a jump is a shaft with a head; a clone a ring on its square
    assert len(list(arrows[0].iter(SVG + "line"))) == 1 and len(list(arrows[0].iter(SVG + "polygon"))) == 1
    ring = next(arrows[1].iter(SVG + "circle"))
    assert ring.get("fill") == "none" and ring.get("stroke-dasharray")
    assert next(arrows[0].iter(SVG + "line")).get("stroke") != ring.get("stroke")  # two colours
    head = next(arrows[0].iter(SVG + "polygon")).get("points").split()
    tip = tuple(map(float, head[0].split(",")))
    # the head points into c2 (file c, rank 2: the right square of the middle row of 3 x 3)
    assert 28 + 2 * 48 < tip[0] < 28 + 3 * 48 and 28 + 48 < tip[1] < 28 + 2 * 48
    frames = _by_class(root, "last-move", "rect")
    assert [f.get("data-square") for f in frames] == ["a2"]
    text = _legend_text(root)
    assert "X (Black in PGN), to move: alice" in text and "O (White in PGN)" in text
    assert "played: a3c2 (a jump)" in text and "best: b2 (a clone)" in text
    assert "the move before: a2" in text and "X moving there: loses ... wins" in text
    # every empty square X can reach is tinted, with its value written: here all 7
    tinted = [r for r in root.iter(SVG + "rect") if "tinted" in r.get("class", "").split()]
    assert len(tinted) == 7
    values = {t.text for t in root.iter(SVG + "text") if t.get("class") == "value"}
    assert {"+9", "-9"} <= values


def test_svg_without_arrows_draws_the_best_move_and_can_leave_the_legend_out():
    p = parse_position("to-move: o\nx..\n...\n..o").position
    a = _analyzer()
    best = next(i for i in a.moves(p) if i.preferred)
    root = ET.fromstring(board_svg(a, p))
    arrows = _by_class(root, "arrow")
    assert [(x.get("class").split()[1], x.get("data-move")) for x in arrows] == [("best", best.name)]
    assert "best: " + best.name + " (a clone)" in _legend_text(root)
    bare = ET.fromstring(board_svg(a, p, legend=False, arrows=[]))
    assert not _by_class(bare, "legend") and not _by_class(bare, "arrow")
    assert int(bare.get("width")) < int(root.get("width"))
    with pytest.raises(ValueError, match="arrow kind"):
        Arrow(best.move, "worst")


def test_blocks_and_an_untinted_board_in_the_legend():
    p = parse_position("to-move: x\nx.#o\n.##.").position
    text = _legend_text(ET.fromstring(board_svg(_analyzer(), p, tint=False)))
    assert "block (no piece goes there)" in text
    assert not any("moving there" in t for t in text)


def test_search_tint_is_the_exact_tint():
    """An oracle that proves bounds (the search) tints from each move's interval: exact here."""
    p = parse_position("to-move: x\nx.#o\n.##.").position
    exact = move_intervals(_analyzer(), p)
    searched = move_intervals(Solver(algorithm="search").analyzer(p), p)
    assert searched == exact and all(iv.exact for iv in exact.values())
    root = ET.fromstring(board_svg(Solver(algorithm="search").analyzer(p), p))
    assert [a.get("data-move") for a in _by_class(root, "arrow")] == ["b2"]  # the one move keeping +1
    assert best_move(_analyzer(), p) == p.parse_move("b2")
    assert root.find(SVG + "title").text == "X to move, value +1"


@pytest.mark.parametrize("turn,moves,squares", [
    ("x", ("a2", "b3", "b2", "a3c3"), ("a2", "b3", "b2", "c3")),
    ("o", ("b1", "c2", "b2", "c1a1"), ("b1", "c2", "b2", "a1"))])
def test_a_bounded_square_is_tinted_by_the_outcome_it_proves(turn, moves, squares):
    """A square only bounded: pale red when the whole interval loses for the mover, pale green when
    it wins, pale blue only when it spans the draw (every bounded square was pale blue), in
    shades that no exact value takes; the legend names each one shown. The same intervals (X's
    side) are a loss for X and a win for O."""
    from solver.app import pictures
    from solver.solve.analysis import Interval
    p = parse_position(f"to-move: {turn}\nx..\n...\n..o").position
    below, above, spanning, exact = (Interval(-9, -1, 9), Interval(1, 9, 9), Interval(-1, 1, 9), Interval(3, 3, 9))
    values = {p.parse_move(m): iv for m, iv in zip(moves, (below, above, spanning, exact))}
    root = ET.fromstring(board_svg(_analyzer(), p, values=values))
    rects = {r.get("id")[3:]: r for r in root.iter(SVG + "rect") if (r.get("id") or "").startswith("sq-")}
    shown = [(rects[sq].get("class"), rects[sq].get("fill")) for sq in squares]
    loss = ("square empty bounded loss", pictures.BOUNDED_LOSS_FILL)
    win = ("square empty bounded win", pictures.BOUNDED_WIN_FILL)
    assert shown == [loss if turn == "x" else win, win if turn == "x" else loss,
                     ("square empty bounded open", pictures.UNSOLVED_FILL),
                     ("square empty tinted", pictures._tint(1.0 if turn == "x" else -1.0))]
    mover = turn.upper()
    assert {f"only bounded, {mover} wins: low..high", f"only bounded, {mover} loses: low..high",
            "only bounded: low..high (ran out of budget)"} <= set(_legend_text(root))
    # no exact value takes a bounded square's shade: exact wins keep full green, exact losses full red
    shades = {pictures._tint(g / 100) for g in range(-100, 101)}
    assert not {pictures.BOUNDED_WIN_FILL, pictures.BOUNDED_LOSS_FILL, pictures.UNSOLVED_FILL} & shades


def _judged(text, move):
    p = parse_position(text).position
    v = Verifier(Solver(algorithm="reference"))
    return v, judge(v.analyzer(p), p, move, Check("alice", "f.txt", 1, None, p, move))


def test_verdicts_in_words():
    v, c = _judged(THREE, "a2")
    assert verdict_words(c) == ("a2 is a blunder: it loses by 9; best b2 wins by 9 "
                                "(18 points given away; the value, X's side, +9 to -9)")
    _, c = _judged(THREE, "b2")
    assert verdict_words(c) == "b2 is optimal: it wins by 9, the most the position gives (value +9)"
    # O to move: the words are O's, the values X's
    _, c = _judged("to-move: o\nx...o", "e1c1")
    assert verdict_words(c) == ("e1c1 is an inaccuracy: it loses by 5; best d1 loses by 3 "
                                "(2 points given away; the value, X's side, +3 to +5)")
    root = ET.fromstring(check_svg(v, _judged(THREE, "a2")[1]))
    assert [(a.get("class"), a.get("data-to")) for a in _by_class(root, "arrow")] == [
        ("arrow played clone", "a2"), ("arrow best clone", "b2")]


def test_audit_page_shows_tint_arrows_verdict_and_legend(tmp_path):
    f = tmp_path / "game.txt"
    # X's a2 throws the game away; O's answer b1 gives it back
    f.write_text("name: a short game\nmoves: a2 b1\nto-move: x\nx..\n...\n..o\n")
    html = tmp_path / "audit.html"
    assert main(["verify", str(f), "--html", str(html)]) == 0
    text = html.read_text()
    assert "How to read the boards" in text and "dashed orange" in text
    assert "X to move: a2 is a blunder: it loses by 9; best b2 wins by 9" in text
    sections = text.split('<section class="mistake')[1:]
    assert sections
    first = ET.fromstring(sections[0][sections[0].index("<svg"):sections[0].index("</svg>") + 6])
    assert [(a.get("class"), a.get("data-to")) for a in _by_class(first, "arrow")] == [
        ("arrow played clone", "a2"), ("arrow best clone", "b2")]
    assert [r for r in first.iter(SVG + "rect") if "tinted" in r.get("class", "").split()]
    assert "X (Black in PGN), to move: X in games" in _legend_text(first)
    assert not _by_class(first, "last-move", "rect")
    assert len(sections) == 2  # O's b1 shows X's a2 as the move before
    second = ET.fromstring(sections[1][sections[1].index("<svg"):sections[1].index("</svg>") + 6])
    assert [r.get("data-square") for r in _by_class(second, "last-move", "rect")] == ["a2"]
    assert [(a.get("class"), a.get("data-to")) for a in _by_class(second, "arrow")] == [
        ("arrow played clone", "b1"), ("arrow best clone", "b2")]
    assert "O (White in PGN), to move: O in games" in _legend_text(second)
    assert "O to move: b1 is a blunder: it loses by 9; best b2 wins by 9 (18 points given away; " \
           "the value, X&#x27;s side, -9 to +9)" in text


def _png_pixels(data):
    """The (r, g, b) pixels of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes)."""
    import struct
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, pixels = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        pixels.extend(tuple(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return pixels


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed (apt-get install chromium)")
def test_audit_page_renders_in_headless_chromium(tmp_path):
    """The page as a person sees it: Chromium draws it, and the picture has the tints (green and
    red squares), the played move (blue) and the best move (orange)."""
    f = tmp_path / "games.txt"
    f.write_text("name: a short game\nmoves: a2 b1\nto-move: x\nx..\n...\n..o\n\n"
                 "name: a jump\nmoves: e1c1\nto-move: o\nx...o\n")
    html = tmp_path / "audit.html"
    assert main(["verify", str(f), "--html", str(html)]) == 0
    png = tmp_path / "audit.png"
    r = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--window-size=900,1800", f"--screenshot={png}", html.as_uri()],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and png.exists(), r.stderr[-500:]
    pixels = _png_pixels(png.read_bytes())
    assert len(pixels) == 900 * 1800

    def count(test):
        return sum(1 for p in pixels if test(*p))

    assert count(lambda r, g, b: r < 150 and g == 255 and b < 150) > 2000     # green squares (a win)
    assert count(lambda r, g, b: r == 255 and g < 150 and b < 150) > 2000     # red squares (a loss)
    assert count(lambda r, g, b: b > r + 80 and b > g + 40) > 200             # the blue arrows and rings
    assert count(lambda r, g, b: r > 200 and 90 < g < 170 and b < 80) > 200   # the orange ones
    assert count(lambda r, g, b: r > 190 and 160 < g < 200 and b < 60) > 100  # the gold frame


def test_unsettled_verdict_in_words():
    from solver.solve.analysis import Interval
    p = parse_position("to-move: o\nx...o").position
    c = Check("bob", "f.txt", 1, None, p, "d1", verdict="unsettled", value_interval=Interval(-1, 3, 5),
              best_interval=Interval(-5, 1, 5))
    assert verdict_words(c) == (
        "d1 is unsettled: after it O has no proved outcome (-3..+1 for it); with the best move O has no "
        "proved outcome (-1..+5 for it); the budget ran out before a loss of points was proved or ruled out "
        "(values, X's side: -5..+1 the position, -1..+3 the move)")
    c = Check("bob", "f.txt", 1, None, p, "d1", verdict="blunder", value_interval=Interval(1, 5, 5),
              best_interval=Interval(-5, -1, 5))
    assert verdict_words(c) == ("d1 is a blunder: it loses by at least 1; the best move wins by at least 1 "
                                "(at least 2 points given away; the value, X's side, -5..-1 to +1..+5)")


def test_a_square_is_exact_only_when_every_move_there_is():
    from solver.solve.analysis import Interval
    from solver.app.pictures import square_intervals
    p = parse_position("to-move: x\nx.x\n...\n..o").position
    a1 = p.board.square(0, 0)
    v = {p.parse_move("a3a1"): Interval(3, 3, 9), p.parse_move("c3a1"): Interval(-1, 5, 9)}
    assert square_intervals(p, v) == {a1: Interval(3, 5, 9)}       # X gets at least 3, at most 5 there
    v[p.parse_move("c3a1")] = Interval(-9, 1, 9)
    assert square_intervals(p, v) == {a1: Interval(3, 3, 9)}       # the other move cannot beat 3
    # the same intervals with O to move (only the squares matter here): O's best is at least a loss by 3
    # and at most a win by 1, so X's side -1..+3
    q = p.replace(turn=parse_position("to-move: o\nx..").position.turn)
    w = {p.parse_move("a3a1"): Interval(3, 3, 9), p.parse_move("c3a1"): Interval(-1, 5, 9)}
    assert square_intervals(q, w) == {a1: Interval(-1, 3, 9)}


def test_under_a_node_budget_the_audit_board_is_the_same_every_time():
    """verify --nodes: the tint's search shares the node budget between the moves and takes no
    time share, so the picture does not depend on the machine's speed (two fresh runs agree)."""
    from solver.io.formats import parse_fen
    from solver.common.limits import Limits
    p = parse_fen("x1xxooo/xx1xooo/xxxoooo/xxxoxxx/oooooxx/oooooxx/o1oooxx o 0 94")
    pictures = []
    for _ in range(2):
        v = Verifier(Solver(algorithm="search", limits=Limits(nodes=3000)))
        c = judge(v.analyzer(p), p, "e6c6", Check("bob", "f.txt", 1, None, p, "e6c6"))
        pictures.append(check_svg(v, c))
    assert pictures[0] == pictures[1]
    root = ET.fromstring(pictures[0])
    assert [a.get("data-move") for a in _by_class(root, "arrow")][0] == "e6c6"
    assert [r for r in root.iter(SVG + "rect") if "empty" in r.get("class", "").split()
            and ({"tinted", "bounded"} & set(r.get("class").split()))]


def test_svg_of_a_game_position_frames_the_move_before(tmp_path, capsys):
    game = tmp_path / "game.pgn"
    game.write_text('[Black "Alice"]\n[White "Bob"]\n[FEN "x1o/3/3 x 0 1"]\n\n1. a2 c2 *\n')  # 3 x 3: quick
    svg = tmp_path / "g.svg"
    assert main([str(game), "--svg", str(svg), "--solver", "retro"]) == 0
    text = svg.read_text()
    assert 'class="last-move" data-square="c2"' in text and "before: c2" in text


# -- the audit page as judged (issue 30 item 8) ------------------------------------------------------------

BLUNDER = "xxxooox/xxxooox/ooooo1x/oooxxxx/ooooxox/1ooxxxx/xooxxx1 x 0 87"  # e3f5 loses by 3; g7f5 wins by 5


def _blunder_check():
    from solver.io.formats import parse_fen
    from solver.solve.analysis import Interval
    p = parse_fen(BLUNDER)
    n = p.board.playable.bit_count()
    c = Check("black0", "g.pgn", 9, None, p, "e3f5", value=-3, best=5, best_move="g7f5", loss=8, verdict="blunder",
              value_interval=Interval(-3, -3, n), best_interval=Interval(5, 5, n))
    return p, n, c


def _values_by_square(root):
    out = {}
    for t in root.iter(SVG + "text"):
        if t.get("class") == "value":
            out[t.get("data-square")] = out.get(t.get("data-square"), "") + t.text
    return out


def test_the_audit_board_tints_with_what_the_verdict_proved(monkeypatch):
    """The tint's own budget proved only '-3..+49' and '+5..+49' for the two moves to f5; the
    verdict proved -3 and +5: the board shows +5 (exact, tinted), and no square more than the
    position's +5 (was: f5 pale blue, '+5..+49')."""
    from solver.app import pictures
    from solver.common.limits import Limits
    from solver.solve.analysis import Interval
    p, n, c = _blunder_check()
    starved = {m: Interval(-n, n, n) for m in p.legal_moves()}
    starved[p.parse_move("e3f5")] = Interval(-3, n, n)
    starved[p.parse_move("g7f5")] = Interval(5, n, n)
    monkeypatch.setattr(pictures, "move_intervals", lambda *a, **k: dict(starved))
    root = ET.fromstring(check_svg(Verifier(Solver(algorithm="search", limits=Limits(nodes=1000))), c))
    values = _values_by_square(root)
    assert values["f5"] == "+5"
    f5 = next(r for r in root.iter(SVG + "rect") if r.get("id") == "sq-f5")
    assert "tinted" in f5.get("class").split() and f5.get("fill").startswith("#") and f5.get("fill") != \
        pictures.UNSOLVED_FILL
    assert values["a2"] == f"-{n}..+5" and values["g1"] == f"-{n}..+5"  # no move beats the position's +5
    assert pictures.judged_intervals(c, starved)[p.parse_move("e3f5")] == Interval(-3, -3, n)


def _shapes_in(root):
    """The arrows, rings and frames drawn on a board, read back from the SVG: (kind, numbers)."""
    out = []
    for g in root.iter(SVG + "g"):
        if not (g.get("class") or "").startswith("arrow "):
            continue
        for line in g.iter(SVG + "line"):
            out.append(("segment", *(float(line.get(k)) for k in ("x1", "y1", "x2", "y2")),
                        float(line.get("stroke-width")) / 2))
        for poly in g.iter(SVG + "polygon"):
            pts = [tuple(map(float, xy.split(","))) for xy in poly.get("points").split()]
            out.append(("triangle", *pts[0], *pts[1], *pts[2]))
        for c in g.iter(SVG + "circle"):
            out.append(("ring", float(c.get("cx")), float(c.get("cy")), float(c.get("r")),
                        float(c.get("stroke-width")) / 2))
    return out


def _touches(px, py, shape):
    import math

    def seg(px, py, x1, y1, x2, y2):
        dx, dy = x2 - x1, y2 - y1
        t = max(0.0, min(1.0, ((px - x1) * dx + (py - y1) * dy) / (dx * dx + dy * dy or 1)))
        return math.hypot(px - x1 - t * dx, py - y1 - t * dy)

    if shape[0] == "segment":
        return seg(px, py, *shape[1:5]) <= shape[5]
    if shape[0] == "ring":
        return abs(math.hypot(px - shape[1], py - shape[2]) - shape[3]) <= shape[4]
    (x1, y1, x2, y2, x3, y3) = shape[1:]
    s = [(px - b[0]) * (a[1] - b[1]) - (a[0] - b[0]) * (py - b[1])
         for a, b in (((x1, y1), (x2, y2)), ((x2, y2), (x3, y3)), ((x3, y3), (x1, y1)))]
    return all(v >= 0 for v in s) or all(v <= 0 for v in s)


def _label_overlaps(svg):
    """The value labels (a box: 0.6 em a character, 0.75 em above the baseline) that touch an arrow or ring."""
    root = ET.fromstring(svg)
    shapes = _shapes_in(root)
    bad = []
    for t in root.iter(SVG + "text"):
        if t.get("class") != "value":
            continue
        x, y, size = float(t.get("x")), float(t.get("y")), float(t.get("font-size"))
        half = 0.3 * size * len(t.text)
        points = [(x - half + 2 * half * i / 8, y - 0.75 * size + 0.75 * size * j / 3) for i in range(9)
                  for j in range(4)]
        if any(_touches(px, py, s) for s in shapes for px, py in points):
            bad.append((t.get("data-square"), t.text))
    return bad


def test_value_labels_keep_clear_of_the_arrows_and_rings(monkeypatch):
    """Two heads into f5 (the played jump and the best one) covered the '+5..+49' written in its middle;
    labels now take the first place in the square clear of every arrow, ring and frame."""
    from solver.app import pictures
    from solver.common.limits import Limits
    from solver.solve.analysis import Interval
    p, n, c = _blunder_check()
    v = Verifier(Solver(algorithm="search", limits=Limits(nodes=1000)))
    wide = {m: Interval(-n, n, n) for m in p.legal_moves()}
    monkeypatch.setattr(pictures, "move_intervals", lambda *a, **k: dict(wide))
    for check in (c, replace(c, best_move=None, best_interval=Interval(-n, n, n),
                             value_interval=Interval(-n, n, n))):
        svg = check_svg(v, check, last_move=p.parse_move("a2"))
        assert "f5" in _values_by_square(ET.fromstring(svg)) and _label_overlaps(svg) == []
    # clones: the played ring and the best ring on squares with intervals, on a small board
    q = parse_position("to-move: x\nx...\n....\n...o").position
    iv = {m: Interval(-12, 12, 12) for m in q.legal_moves()}
    for arrows in ([Arrow(q.parse_move("b3"), "played"), Arrow(q.parse_move("b2"), "best")],
                   [Arrow(q.parse_move("b2"), "played"), Arrow(q.parse_move("a3a1"), "best")]):  # a shaft over a2
        svg = board_svg(_analyzer(), q, values=iv, arrows=arrows)
        assert _label_overlaps(svg) == [], arrows


from dataclasses import replace  # noqa: E402



PLAYED_JUMP = "xo1o/1xox/oxx1 x 0 1"  # X's jump b1d1 draws (0); the clone to d1 wins by 4; the best move by 8


def test_the_played_jump_s_square_shows_the_played_move_s_value():
    """X's jump b1d1 ends where X's clone to d1 does, and the clone is worth more; the best move
    ends elsewhere. The square d1, the end of the only arrow there, shows the value of the move
    played (was: the clone's, so the arrow of a move judged 'a blunder: it draws' ended on '+4')."""
    p = parse_position(PLAYED_JUMP).position
    v = Verifier(Solver(algorithm="reference"))
    c = judge(v.analyzer(p), p, "b1d1", Check("alice", "g.pgn", 1, None, p, "b1d1"))
    values = {i.move: i.value for i in v.analyzer(p).moves(p)}
    d1 = p.board.parse_square("d1")
    assert values[p.parse_move("b1d1")] == 0 and max(v for m, v in values.items() if m.to == d1) == 4
    assert c.verdict == "blunder" and c.best == 8 and p.parse_move(c.best_move).to != d1
    squares = _values_by_square(ET.fromstring(check_svg(v, c)))
    assert squares["d1"] == "0"
    assert squares[c.best_move[-2:]] == "+8"


def test_an_empty_square_the_mover_cannot_reach_is_grey_and_named_in_the_legend():
    """On a tinted board a draw's square is white: an empty square the mover cannot move to is
    another colour, and the legend says what it is; an untinted board keeps plain empty squares."""
    from solver.app import pictures
    p = parse_position("to-move: x\nx...\n....\n...o").position  # X (a3) reaches files a to c, not d3 or d2
    root = ET.fromstring(board_svg(_analyzer(), p))
    rects = {r.get("id"): r for r in root.iter(SVG + "rect") if r.get("id", "").startswith("sq-")}
    unreached = {k[3:] for k, r in rects.items() if r.get("class") == "square empty unreached"}
    tinted = {k[3:] for k, r in rects.items() if "tinted" in r.get("class").split()}
    assert unreached == {"d3", "d2"} and len(tinted) == 8
    assert {rects["sq-" + sq].get("fill") for sq in unreached} == {pictures.UNREACHED_FILL}
    assert pictures.UNREACHED_FILL not in {r.get("fill") for k, r in rects.items() if k[3:] in tinted}
    assert "empty, but X cannot move there" in _legend_text(root)
    plain = ET.fromstring(board_svg(_analyzer(), p, tint=False))
    assert not any("unreached" in r.get("class", "") for r in plain.iter(SVG + "rect"))
    assert not any("cannot move there" in t for t in _legend_text(plain))


def test_the_audit_page_says_when_the_board_proved_more_than_the_verdict(monkeypatch):
    """An unsettled move's verdict proved only that the position is worth -3..+49 to X; the
    board's tint, with its own budget, proved every move's value (the best +5). The board's
    caption gives +5, and the page says under the verdict that the board proved more (was: the
    verdict's '-3..+49' alone, beside a board tinted with the exact values)."""
    from solver.app import pictures
    from solver.common.limits import Limits
    from solver.solve.analysis import Interval
    p, n, c = _blunder_check()
    c.verdict, c.best_interval, c.loss = "unsettled", Interval(-3, n, n), None
    values = {m: Interval(-7, -7, n) for m in p.legal_moves()}
    values[p.parse_move("e3f5")] = Interval(-3, -3, n)
    values[p.parse_move("g7f5")] = Interval(5, 5, n)
    monkeypatch.setattr(pictures, "move_intervals", lambda *a, **k: dict(values))
    v = Verifier(Solver(algorithm="search", limits=Limits(nodes=1000)))
    svg, shown = pictures.check_board(v, c)
    assert shown == Interval(5, 5, n)
    assert ET.fromstring(svg).find(SVG + "title").text == "X to move, value +5"
    page = pictures.html_report([c], [], v, "t")
    assert "The board's own search proved more: X wins by 5 (value +5)." in page
    values = {m: Interval(-7, n, n) for m in values}  # narrower than the verdict's, outcome unknown:
    values[p.parse_move("g7f5")] = Interval(-1, n, n)  # the interval alone, not words that repeat it
    assert "The board's own search proved more: the value is -1..+49, X's side." in pictures.html_report([c], [], v, "t")
    del values[p.parse_move("a2")]  # (a move without an interval: the moves bound nothing)
    assert pictures.check_board(v, c)[1] == c.best_interval
    assert "proved more" not in pictures.html_report([c], [], v, "t")


def test_the_first_judged_board_of_a_game_frames_the_move_before_from_the_record(monkeypatch):
    """A game judged from its middle (verify --empty): its first board has no check before it, but
    the game's record has the move that reached it, and the page frames it as on the later boards
    (a user's trial: the first board of each game had no frame)."""
    from solver.app.pictures import last_moves
    from solver.io.formats import read_positions
    from solver.io.pgn import Pick
    from solver.play import verify

    entries = read_positions('[FEN "x2/3/2o x 0 1"]\n\n1. a2 b1 2. b2 *\n', "g.pgn", pick=Pick(ply=2))
    (e,) = entries
    monkeypatch.setattr(verify, "judge", lambda analyzer, p, move, c: c)
    v = Verifier(Solver(algorithm="reference"))
    c = v.check(verify.Choice(e, e.position, "b2", None), "p", "b2")
    before = last_moves([c])
    assert list(before) == [0] and e.position.move_name(before[0]) == "b1"
    other = e.position.replace(x=e.position.o, o=e.position.x)  # not the position the record reached
    assert last_moves([v.check(verify.Choice(e, other, "b2", None), "p", "b2")]) == {}
    assert last_moves([Check("p", e.source, e.line, e.name, e.position, "b2")]) == {}


# -- --svg after a solve that ran out of its limits (a user's trial) --------------------------------------


def _spent_analyzer(p):
    """A search whose time is already over: every move it is asked about stays -49..+49."""
    import time
    from solver.common.limits import Limits
    return Solver(algorithm="search", limits=Limits(deadline=time.monotonic() - 1)).analyzer(p)


def test_svg_of_an_exact_value_found_before_the_time_ran_out_shows_that_value(tmp_path):
    """Under --timeout the value was proved (+5, best g7f5) but not the depth, and no time was left:
    the board said 'value -49..+49', every square -49..+49 and no best move. It shows what the
    solve proved: the value, the best move's arrow and value, and no move above the value."""
    from solver.app.outputs import Outputs
    from solver.io.formats import Entry
    from solver.solve.analysis import Interval
    from solver.solve.report import Report, SideResult
    p, n, _ = _blunder_check()
    side = SideResult(p, Interval(5, 5, n), best_move=p.parse_move("g7f5"), best_bound=5)
    report = Report(Entry(p, (X,)), "search", [side], None, 0, 1.0)
    path = tmp_path / "b.svg"
    assert Outputs(svg=str(path)).write(report, _spent_analyzer(p), 1).lines == [f"wrote {path}"]
    root = ET.fromstring(path.read_text())
    assert root.find(SVG + "title").text == "X to move, value +5"
    assert [a.get("data-move") for a in _by_class(root, "arrow")] == ["g7f5"]
    shown = _values_by_square(root)
    assert shown.pop("f5") == "+5" and shown and set(shown.values()) == {"-49..+5"}


def test_svg_of_a_solve_with_every_move_s_value_draws_them_without_searching_again(tmp_path):
    """When the solve's analysis gave every move's exact value, the board shows those values, not
    what a search with no time left could prove."""
    from solver.app.outputs import Outputs
    text = "to-move: x\nx.#o\n.##."
    report = Solver(algorithm="reference").solve(text)
    p = report.sides[0].position
    path = tmp_path / "b.svg"
    Outputs(svg=str(path)).write(report, _spent_analyzer(p), 1)
    root = ET.fromstring(path.read_text())
    want = ET.fromstring(board_svg(_analyzer(), p))
    assert root.find(SVG + "title").text == want.find(SVG + "title").text == "X to move, value +1"
    assert _values_by_square(root) == _values_by_square(want) and all(".." not in v for v in _values_by_square(root).values())
    assert [a.get("data-move") for a in _by_class(root, "arrow")] == ["b2"]


def test_the_picture_of_a_value_without_its_moves_searches_them_for_a_bounded_time(monkeypatch, tmp_path):
    """A value proved without the moves' values (the depth test too large, no limit given): --svg
    searched every move to the end, without a limit, for as long as that took. It searches them
    for at most PICTURE_SECONDS."""
    from solver.app import outputs, pictures
    from solver.io.formats import Entry
    from solver.solve.analysis import Interval
    from solver.solve.report import Report, SideResult
    asked = []
    monkeypatch.setattr(pictures, "move_intervals", lambda analyzer, p, seconds=None, nodes=None: asked.append(seconds) or {})
    p, n, _ = _blunder_check()
    report = Report(Entry(p, (X,)), "search", [SideResult(p, Interval(5, 5, n))], None, 0, 1.0)
    outputs.Outputs(svg=str(tmp_path / "b.svg")).write(report, _spent_analyzer(p), 1)
    assert asked == [outputs.PICTURE_SECONDS] and 0 < outputs.PICTURE_SECONDS <= 60
