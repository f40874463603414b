"""The move table (--moves), the game tree (--dot) and the board picture (--svg)."""

import io
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from solver.analysis import Analyzer
from solver.cli import main
from solver.solving import Solver
from solver.formats import parse_position
from solver.pictures import board_svg, game_tree_dot
from solver.reference import ReferenceOracle
from solver.rules import UAI, X

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
    assert len([c for c in root.iter(SVG + "circle")]) == 2
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
    r = subprocess.run(["dot", "-Tsvg", str(out)], capture_output=True, text=True, timeout=60)
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
