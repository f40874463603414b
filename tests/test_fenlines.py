"""Files of FEN lines read in bulk (solver.io.fenlines) and answered from tables in bulk (batch
--tables): the same entries as the ordinary parser, the same records as the present path; and
--tables everywhere: what the tables hold answered from them, the rest solved."""

import io
import json
from pathlib import Path
import random
import re

import pytest

from solver.solve import batch
from solver.solve.batch import BatchOptions, run_batch
from solver.game.board import Board
from solver.app.cli import main
from solver.io.fenlines import read_fen_lines
from solver.io.formats import Entry, read_file
from solver.game.rules import O, X, Position, parse_rules
from solver.solve.solver import Solver
from solver.tables.probe import Tablebase
from solver.tables.build import build
from solver.tables.checks import random_positions
from solver.tables.storage import tier_path


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    d = tmp_path_factory.mktemp("tb")
    for board in (Board(3, 3), Board(3, 3, 1 << 4), Board(3, 4)):
        build(board, d)
    return d


def odd_fen(p: Position, rng: random.Random) -> str:
    """A FEN of p as users write it: upper case, b/w, dots, tabs, counters, carriage returns."""
    board = p.fen().split()[0]
    if rng.random() < 0.3:
        board = board.replace("x", rng.choice("xXbB")).replace("o", rng.choice("oOwW"))
    if rng.random() < 0.3:
        board = re.sub(r"[0-9]+", lambda m: "." * int(m.group()), board)
    side = {X: rng.choice("xXbB"), O: rng.choice("oOwW")}[p.turn]
    tail = rng.choice([f" {side}", f" {side} 0", f" {side}\t3 7", f"  {side} 12 1 ", f" {side} 0 1\r"])
    return board + tail


def sample_lines(rng: random.Random, large: bool = True) -> list[str]:
    """Random positions written in many ways, positions of a board no table holds (2 x 2) and lines
    for the ordinary parser; ``large``: the 7 x 7 start too (which batch would search for long)."""
    lines = []
    for board in (Board(3, 3), Board(3, 3, 1 << 4), Board(4, 3), Board(3, 4), Board(2, 2)):
        for p in random_positions(board, 60, (0, board.playable.bit_count() - 1), rng.randrange(1000)):
            lines.append(p.fen() if rng.random() < 0.5 else odd_fen(p, rng))
    # over games, full boards, lines for the ordinary parser (errors too)
    lines += ["startpos"] if large else []
    lines += ["xxx/xxx/xxo x 0 1", "3/3/3 o", "xox/oxo/xox o 0 1", "x2/3/2o x 0 0", "x2/3/2o z",
              "x2/3/2oo x", "x..", "x2/3/2o x 0 1 moves b2", "x2/3/2o x 0 0000000001", "x-x/3/o-o x",
              "x.o/.x./oxo", "3/1-1/2x"]  # (and two boards without a side to move, solved as always)
    rng.shuffle(lines)
    return lines


def entries_equal(a, b) -> bool:
    if isinstance(a, Entry) != isinstance(b, Entry):
        return False
    if isinstance(a, Entry):
        return (a.position, a.sides, a.line, a.source, a.name, a.moves) == (b.position, b.sides, b.line, b.source,
                                                                             b.name, b.moves)
    return (a.message, a.line, a.source) == (b.message, b.line, b.source)


def test_fen_lines_read_in_bulk_as_the_parser_reads_them(tmp_path):
    rng = random.Random(5)
    f = tmp_path / "lines.txt"
    f.write_text("\n\n".join(sample_lines(rng)) + "\n")
    fl = read_fen_lines(str(f))
    assert fl is not None
    bulk = [fl.entry(item) if isinstance(item, int) else item for item in fl.items]
    plain = read_file(str(f))
    assert len(bulk) == len(plain) > 300
    assert all(entries_equal(a, b) for a, b in zip(bulk, plain))
    for k in range(len(fl.board_fen)):  # the canonical board is the one the parser writes
        assert fl.board_fen[k] == fl.entry(k).position.fen().split()[0]
    assert sum(isinstance(item, int) for item in fl.items) > 290


@pytest.mark.parametrize("text", ["name: a\nx2/3/2o x\n", "; c\n\nx2/3/2o x\n", "x2/3/2o x\nx2/3/2o o\n",
                                  "x..\n...\n..o\n", "x2/3/2o x\n  \nx2/3/2o o\n", "x2/3/2o x\n\n\u00e9\n", "", "\n\n", "[Event \"a\"]\n"])
def test_other_files_are_left_to_the_ordinary_reader(tmp_path, text):
    f = tmp_path / "f.txt"
    f.write_text(text)
    assert read_fen_lines(str(f)) is None
    assert read_fen_lines(str(f), fmt="grid") is None


def record_lines(files, options, monkeypatch, bulk: bool, out=None):
    monkeypatch.setattr(batch, "_TABLES", {})  # (a board's "states" counts the probes of the process's tables)
    if not bulk:
        monkeypatch.setattr(batch, "read_fen_lines", lambda *a, **k: None)
    sink = io.StringIO()
    summary = run_batch([str(f) for f in files], options, jobs=1, stream=None if out else sink, out_path=out)
    monkeypatch.undo()
    text = open(out).read() if out else sink.getvalue()
    return summary, [re.sub(r'"seconds": [^,}]*', '"seconds": 0', line) for line in text.splitlines()]


def test_batch_from_tables_in_bulk_writes_the_records_of_the_present_path(tmp_path, tables, monkeypatch):
    rng = random.Random(7)
    files = []
    for n in range(2):  # two files: the second's positions follow the first's
        f = tmp_path / f"p{n}.txt"
        f.write_text("\n\n".join(sample_lines(rng, large=False)) + "\n")
        files.append(f)
    options = BatchOptions(tables=str(tables))
    fast_summary, fast = record_lines(files, options, monkeypatch, bulk=True)
    slow_summary, slow = record_lines(files, options, monkeypatch, bulk=False)
    assert len(fast) == len(slow) > 600
    assert fast == slow
    assert (fast_summary.solved, fast_summary.failed) == (slow_summary.solved, slow_summary.failed)
    recs = [json.loads(line) for line in fast]
    from_tables = [r for r in recs if r.get("solver") == "tables"]
    assert len(from_tables) > 450 and {r["to_move"] for r in from_tables} == {"x", "o", "both"}
    assert any(r["fen"].startswith("3/1-1/3") or "-" in r["fen"].split()[0] for r in from_tables)  # blocks
    assert any(r["sides"][r["to_move"]]["best_move"] is None for r in from_tables)  # games over
    assert any(r["fen"].count("/") == 3 for r in from_tables)  # 4 x 3, from the 3 x 4 tables turned


def test_bulk_records_resume(tmp_path, tables, monkeypatch):
    rng = random.Random(9)
    f = tmp_path / "p.txt"
    f.write_text("\n\n".join(p.fen() for p in random_positions(Board(3, 4), 300, (1, 6), 3)) + "\n")
    out = str(tmp_path / "out.jsonl")
    options = BatchOptions(tables=str(tables))
    first, lines = record_lines([f], options, monkeypatch, bulk=True, out=out)
    assert (first.solved, first.resumed) == (300, 0)
    with open(out) as fh:  # an interrupted run: a third of the records and half a line
        kept = fh.read().splitlines()[:100]
    with open(out, "w") as fh:
        fh.write("\n".join(kept) + "\n" + kept[100 - rng.randrange(1, 50)][:20])
    again, relines = record_lines([f], options, monkeypatch, bulk=True, out=out)
    assert (again.solved, again.resumed) == (300, 100)
    assert relines == lines


# -- --tables everywhere: what the tables hold from them, the rest solved -----------------------------

def test_tables_answer_what_they_hold_and_the_rest_is_solved(tmp_path, tables, capsys):
    """solve, batch and verify with --tables: the 3 x 3 board from the tables (solver 'tables'),
    Chen's other boards solved as without them (status 0, where a board the tables do not hold was
    refused with status 2)."""
    assert main(["positions/chen2002.txt", "--tables", str(tables), "--json"]) == 0
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["solver"] for r in recs] == ["reference", "tables", "reference", "retro", "retro"]
    assert [r["orthodox"] for r in recs] == ["0", "9|-9", "5|1||-5", "10|-10", "8|-8"]
    assert main(["positions/chen2002.txt", "--tables", str(tables)]) == 0
    out = capsys.readouterr().out
    assert out.count("(tables)\n") == 1 and out.count("(reference)\n") == 2
    f = tmp_path / "p.txt"
    f.write_text("x2/3/2o x\n\nx3o x\n\nx2/3/2o o\n\nx3/3o o\n")
    assert main(["batch", str(f), "--tables", str(tables), "--jobs", "1"]) == 0
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["solver"] for r in recs][:3] == ["tables", "reference", "tables"] and recs[3]["solver"] != "tables"
    assert [r["sides"][r["to_move"]]["value"] for r in recs][:3] == [9, -3, -9] and all(r["ok"] for r in recs)
    g = tmp_path / "v.txt"
    g.write_text("move: b2\nx2/3/2o x\n\nmove: b1\nx3o x\n")
    assert main(["verify", str(g), "--tables", str(tables)]) == 0


def test_tables_with_tiers_missing_answer_the_positions_below(tmp_path, capsys):
    """A directory with tiers 0 to 3 of 3 x 3 (a build stopped there) answers the positions with
    at most 3 empty squares; the others are solved."""
    d = tmp_path / "tb"
    build(Board(3, 3), d)
    for t in range(4, 10):
        tier_path(d, Board(3, 3), t).unlink()
    tb = Tablebase(d)
    assert tb.tiers_held(Board(3, 3)) == 4 and tb.tiers_held(Board(3, 4)) == 0
    near = Position.from_fen("xox/o1x/x1o x")
    far = Position.from_fen("x2/3/2o x")
    assert tb.answers_for(near) and not tb.answers_for(far)
    assert not tb.answers_for(Position.from_fen("x2/3/2o x", rules=parse_rules("cs61b")))
    f = tmp_path / "p.txt"
    f.write_text(f"{near.fen()}\n\n{far.fen()}\n")
    capsys.readouterr()
    assert main(["batch", str(f), "--tables", str(d), "--jobs", "1"]) == 0
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["solver"] for r in recs] == ["tables", "reference"] and recs[1]["sides"]["x"]["value"] == 9
    assert Solver(tables=tb).solve(far.fen()).solver == "reference"
    assert Solver(tables=tb).solve(near.fen()).solver == "tables"


def test_the_readme_tables_example_holds_boards_the_4x4_tables_hold():
    """The README's --tables example named positions/chen2002.txt, of which no board is an open
    4 x 4: the tables answered nothing (issue 30 item 13). Its file is now of open 4 x 4 boards."""
    from solver.io.formats import read_file
    entries = read_file("positions/tables-4x4.txt")
    assert len(entries) == 8
    for e in entries:
        p = e.position
        assert (p.board.rows, p.board.cols, p.board.playable.bit_count()) == (4, 4, 16) and len(e.sides) == 1
        assert "value" in e.expect
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "$ ataxx-solve --tables tables/ positions/tables-4x4.txt" in readme
    assert "--tables tables/ positions/chen2002.txt" not in readme


@pytest.mark.slow
def test_the_readme_tables_example_runs_as_written(tmp_path, capsys):
    """``ataxx-solve --tables DIR positions/tables-4x4.txt`` after building 4 x 4 (about 10 s):
    every answer from the tables, every expect: held."""
    d = tmp_path / "tables"
    assert main(["tables", "build", "4x4", "--dir", str(d)]) == 0
    capsys.readouterr()
    assert main(["--tables", str(d), "positions/tables-4x4.txt", "--json"]) == 0
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(recs) == 8 and {r["solver"] for r in recs} == {"tables"}
    assert all(r["expect"]["ok"] for r in recs), recs


@pytest.mark.slow
def test_the_5x5_positions_hold_the_values_of_the_5x5_tables_by_the_search(capsys):
    """positions/tables-5x5.txt: values read from the 5 x 5 tables (tiers 0-2, built for it) as
    expect:, and the search finds the same (issue 30 item 14): every expect held, each within a
    budget of a million nodes (the largest took 105,412)."""
    entries = read_file("positions/tables-5x5.txt")
    assert len(entries) == 8 and all((e.position.board.rows, e.position.board.cols) == (5, 5) for e in entries)
    assert main(["positions/tables-5x5.txt", "--solver", "search", "--nodes", "1000000", "--json"]) == 0
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(recs) == 8 and all(r["expect"]["ok"] for r in recs)
