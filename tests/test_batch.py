"""ataxx-solve batch and cache: results, the cache, resuming a killed run, bad input."""

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solver.solve.batch import BatchOptions, interrupted, run_batch, worker_options
from solver.solve.cache import Cache, CacheError
from solver.app.cli import main
from solver.common.limits import total_memory

ROOT = Path(__file__).resolve().parent.parent
SUITES = sorted(str(p) for p in (ROOT / "positions").glob("*.txt")
                if "expect:" in p.read_text() and "--tables" not in p.read_text())  # tablebase files need tables
FACTS = ("value", "depth", "best_move")


def _lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _facts(rec):
    out = {side: tuple(s[k] for k in FACTS) for side, s in rec["sides"].items()}
    return out, rec.get("orthodox"), rec["line"]


@pytest.mark.slow
def test_position_files_with_expectations_pass_as_a_batch(tmp_path, capsys):
    assert SUITES, "no position file with expect: headers"
    status = main(["batch", *SUITES, "--jobs", "2", "--cache", str(tmp_path / "c.sqlite3")])
    out, err = capsys.readouterr()
    recs = _lines(out)
    assert status == 0, err
    assert all(r["ok"] and r["expect"]["ok"] for r in recs)
    assert [r["line"] for r in recs if r["file"] == SUITES[0]] == sorted(r["line"] for r in recs
                                                                         if r["file"] == SUITES[0])
    assert f"{len(recs)} positions" in err and "0 failed" in err


@pytest.mark.slow
def test_batch_matches_single_solves_and_the_cache(tmp_path, capsys):
    suite = str(ROOT / "positions" / "chen2002.txt")
    assert main([suite, "--json"]) == 0
    single = _lines(capsys.readouterr().out)
    cache = str(tmp_path / "c.sqlite3")
    assert main(["batch", suite, "--jobs", "1", "--cache", cache]) == 0
    first = _lines(capsys.readouterr().out)
    assert main(["batch", suite, "--jobs", "1", "--cache", cache]) == 0
    second, err = capsys.readouterr()
    second = _lines(second)
    assert "5 from the cache" in err and all(r["solver"] == "cache" for r in second)
    for s, a, b in zip(single, first, second):
        want = ({side: (v["value"], v["depth"], v["best_move"]) for side, v in s["sides"].items()},
                s["orthodox"], s["line"])
        assert _facts(a) == want and _facts(b) == want


def test_cache_maps_best_moves_through_symmetry(tmp_path):
    from solver.io.formats import parse_position

    cache = Cache(tmp_path / "c.sqlite3")
    text = "to-move: x\nx..\n...\n..o\n"
    f = tmp_path / "a.txt"
    f.write_text(text)
    run_batch([str(f)], BatchOptions(), cache=cache, stream=open(os.devnull, "w"))
    # The mirror image (and its colour inversion) are answered from the cache with mirrored moves.
    p = parse_position("to-move: x\n..x\n...\no..").position
    hit = cache.get_side(p)
    assert (hit.evaluation.value, hit.evaluation.depth, hit.best_move_name) == (9, 13, "b2") and hit.exact
    q = parse_position("to-move: o\no..\n...\n..x").position  # the colour inversion
    hit = cache.get_side(q)
    assert (hit.interval.lower, hit.interval.upper, hit.evaluation.depth, hit.best_move_name, hit.best_bound) == \
        (-9, -9, 13, "b2", -9)
    assert cache.get_side(parse_position("to-move: o\nx..\n.o.\n...").position) is None
    cache.close()


def test_bad_positions_are_skipped_and_counted(tmp_path, capsys):
    f = tmp_path / "mixed.txt"
    f.write_text("name: good\nx...o\n\nname: bad\nx..z\n\nname: wrong expectation\nexpect: x=5\nx...o\n")
    status = main(["batch", str(f), "--no-cache", "--jobs", "1"])
    out, err = capsys.readouterr()
    recs = _lines(out)
    assert status == 1  # two failures (issue 18 item 5: not 2, the status of a batch that cannot start)
    assert [r["ok"] for r in recs] == [True, False, False]
    assert [r["name"] for r in recs] == ["good", "bad", "wrong expectation"]  # a position not read keeps its name
    assert "unknown character" in recs[1]["error"]
    assert recs[2]["error"] == "expect x=5, solved -3"
    assert f"{f}:5:" in err and "2 failed" in err


def test_corrupt_and_foreign_caches_are_refused(tmp_path, capsys):
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(CacheError, match="not a usable ataxx-solver cache"):
        Cache(junk)
    foreign = tmp_path / "foreign.sqlite3"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE songs (title TEXT)")
    db.commit()
    db.close()
    with pytest.raises(CacheError, match="not an ataxx-solver cache"):
        Cache(foreign)
    f = tmp_path / "p.txt"
    f.write_text("x...o\n")
    assert main(["batch", str(f), "--cache", str(foreign)]) == 2
    assert "not an ataxx-solver cache" in capsys.readouterr().err
    assert main(["cache", "stats", "--cache", str(junk)]) == 2


def test_cache_stats_and_clear(tmp_path, capsys):
    cache = str(tmp_path / "c.sqlite3")
    assert main(["batch", str(ROOT / "positions" / "chen2002.txt"), "--jobs", "1", "--cache", cache]) == 0
    capsys.readouterr()
    assert main(["cache", "stats", "--cache", cache, "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    # 10 sides to move, but x...o and 3 x 3 with O to move are colour inversions of X to move.
    assert st["positions"]["classic"] == {"side": 8, "board": 5} and st["total"] == 13
    assert main(["cache", "clear", "--cache", cache]) == 0
    assert "cleared 13" in capsys.readouterr().out
    assert main(["cache", "stats", "--cache", cache]) == 0
    assert "results: 0" in capsys.readouterr().out


def _slow_suite(path: Path, n: int) -> None:
    """n distinct 3 x 3 boards (both sides to move), each a fraction of a second for the reference solver."""
    from solver.game.board import Board
    from solver.io.formats import write_grid
    from solver.game.rules import Position

    blocks = [0, 1 << 4, 1 << 1, 1 << 3, (1 << 1) | (1 << 7)]
    out = []
    for k in range(n):
        board = Board(3, 3, blocks[k % len(blocks)])
        free = [s for s in range(9) if not board.blocks >> s & 1]
        x, o = 1 << free[k % 2], 1 << free[-1 - (k // 2) % 2]
        out.append(f"name: slow {k}\n{write_grid(Position(board, x, o))}\n")
    path.write_text("\n".join(out))


@pytest.mark.slow
def test_killed_run_resumes_without_losing_or_redoing_work(tmp_path):
    suite = tmp_path / "slow.txt"
    _slow_suite(suite, 10)
    out = tmp_path / "out.jsonl"
    cache = tmp_path / "c.sqlite3"
    cmd = [sys.executable, "-m", "solver", "batch", str(suite), "--out", str(out), "--cache", str(cache),
           "--jobs", "1", "--solver", "reference"]
    env = dict(os.environ)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    deadline = time.time() + 600
    while time.time() < deadline and (not out.exists() or out.read_text().count("\n") < 3):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = _lines(out.read_text())
    assert 3 <= len(before) < 10, "the run finished before it could be killed; make the suite slower"
    assert Cache(cache).stats()["total"] >= len(before)  # a valid database with what was solved
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert f"{len(before)} already in" in r.stderr
    after = _lines(out.read_text())
    assert [rec["name"] for rec in after] == [f"slow {k}" for k in range(10)]
    assert after[: len(before)] == before
    # A second identical run redoes nothing.
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert "10 already in" in r.stderr and _lines(out.read_text()) == after


HARD = "ooxxxx1/ooooooo/oxoxxxo/oxoooo1/oooooo1/oxxooo1/1xxxo1x x 0 39"  # 6 empty squares


@pytest.mark.slow
def test_a_stopped_position_is_reported_with_its_interval_and_a_later_run_starts_from_it(tmp_path):
    suite = tmp_path / "hard.txt"
    suite.write_text(f"name: hard\n{HARD}\n")
    cache = tmp_path / "c.sqlite3"

    def run():
        r = subprocess.run([sys.executable, "-m", "solver", "batch", str(suite), "--cache", str(cache),
                            "--max-states", "3000000", "--jobs", "1"], capture_output=True, text=True, cwd=ROOT)
        return r, json.loads(r.stdout)

    r, rec = run()
    side = rec["sides"]["x"]
    assert r.returncode == 1 and rec["ok"] is False and rec["exact"] is False and rec["stopped"] == "nodes"
    assert "value" not in side and side["lower"] <= side["upper"] < 49 and side["best_move"]
    assert "not solved exactly: X to move" in rec["error"]
    outcome = ", 1 with the outcome proved" if side["outcome"] in ("x-wins", "o-wins", "draw") else ""
    assert f"1 position, 0 solved, 1 failed (1 of them with proved bounds{outcome}, in the results)" in r.stderr
    r2, rec2 = run()
    side2 = rec2["sides"]["x"]
    assert side["lower"] <= side2["lower"] <= side2["upper"] <= side["upper"]  # starts from what was proved
    from solver.io.formats import parse_position

    hit = Cache(cache).get_side(parse_position(HARD).position)
    assert (hit.interval.lower, hit.interval.upper) == (side2["lower"], side2["upper"]) and not hit.exact


def test_the_cache_never_loses_what_it_proved(tmp_path):
    from solver.solve.analysis import Evaluation, Interval
    from solver.solve.cache import side_row
    from solver.io.formats import parse_position
    from solver.solve.report import SideResult

    p = parse_position("to-move: o\nx..\n...\n..o").position

    def row(lower, upper, depth=None, best=None, bound=None):
        ev = Evaluation(lower, depth) if depth is not None else None
        move = None if best is None else p.parse_move(best)
        ties = None if move is None else [move]  # (an exact row keeps its move with its ties only)
        return side_row(SideResult(p, Interval(lower, upper, 9), ev, best_move=move, best_bound=bound, tied_moves=ties))

    cache = Cache(tmp_path / "c.sqlite3")
    cache.put([row(-5, 9, None, "b2", -5)])      # O to move: X's value in -5..9, b2 keeps <= -5?
    cache.put([row(-9, 3)])                      # narrower above, wider below: the two meet
    hit = cache.get_side(p)
    assert (hit.interval.lower, hit.interval.upper, hit.exact, hit.best_move_name, hit.best_bound) == \
        (-5, 3, False, "b2", -5)
    cache.put([row(-9, -9, 13, "b2", -9)])       # exact now
    cache.put([row(-20, 20)])                    # a weaker run does not undo it
    hit = cache.get_side(p)
    assert (hit.interval.lower, hit.evaluation.depth, hit.best_move_name) == (-9, 13, "b2")
    cache.close()


def test_an_interrupt_is_seen_when_the_sides_stopped_for_different_reasons():
    assert interrupted({"stopped": "interrupt"}) and interrupted({"stopped": ["interrupt", "time"]})
    assert not interrupted({"stopped": ["nodes", "time"]}) and not interrupted({"stopped": "time"})
    assert not interrupted({"ok": True})


def test_the_fingerprint_reads_every_option():
    import dataclasses

    from solver.solve.batch import fingerprint
    from solver.io.formats import parse_position

    entry = parse_position("x...o")
    base = BatchOptions()
    values = ("search", 5, 1 << 30, 2.5, 3, "/tables", 1000, "cs61b", 1 << 34)
    prints = {f.name: fingerprint(entry, dataclasses.replace(base, **{f.name: v}))
              for f, v in zip(dataclasses.fields(BatchOptions), values, strict=True)}
    # the memory for the tables the search reads changes its speed, never a record
    assert prints.pop("tables_memory") == fingerprint(entry, base)
    assert len(set(prints.values()) | {fingerprint(entry, base)}) == len(dataclasses.fields(BatchOptions))
    assert dataclasses.asdict(base) == vars(base)  # plain values: vars() is the dict the digest reads


def test_a_record_proved_something_only_when_its_interval_is_narrower_than_all():
    from solver.solve.batch import _proved_something

    fen = "x10o/12 x 0 1"  # 24 squares (a two-digit run counts as one number)
    assert not _proved_something({"fen": fen, "sides": {"x": {"lower": -24, "upper": 24, "exact": False}}})
    assert _proved_something({"fen": fen, "sides": {"x": {"lower": -24, "upper": 23, "exact": False}}})
    assert _proved_something({"fen": "x1-o x 0 1", "sides": {"x": {"lower": -2, "upper": 3, "exact": False}}})
    assert not _proved_something({"fen": fen, "error": "unreadable"})


def test_the_closing_line_counts_failures_with_the_outcome_proved():
    """Issue 17: a failure that proved who wins is told apart from one that proved a bound only."""
    from solver.solve.batch import _proved_outcome, _proved_something
    fen = "x5o/7/7/7/7/7/o5x x 0 1"
    won = {"fen": fen, "sides": {"x": {"lower": 3, "upper": 9, "exact": False, "outcome": "x-wins"}}}
    drawn_or_better = {"fen": fen, "sides": {"x": {"lower": 0, "upper": 9, "exact": False,
                                                   "outcome": "x-at-least-draws"}}}
    widest = {"fen": fen, "sides": {"x": {"lower": -49, "upper": 49, "exact": False, "outcome": "unknown"}}}
    assert [_proved_outcome(r) for r in (won, drawn_or_better, widest)] == [True, False, False]
    assert [_proved_something(r) for r in (won, drawn_or_better, widest)] == [True, True, False]


@pytest.mark.parametrize("solver", ["search", "retro"])
def test_the_cache_gives_the_best_move_a_fresh_solve_gives(tmp_path, capsys, solver):
    """Issue 18 item 8: symmetric images share a cache row, but where several moves tie (the same
    value and depth) each image prefers the first of them in its own notation order (SPEC
    section 4), which need not be the image of the stored move."""
    f = tmp_path / "p.txt"
    # each line's images under the board's symmetries; the first one of each group fills the cache
    f.write_text("\n\n".join(["1xx/1oo o 50 1", "oo1/xx1 o 50 1", "1oo/1xx o 50 1", "xx1/oo1 x 50 1",
                              "o1x1/1oxo o 10 1", "oxo1/1x1o o 10 1", "1x1o/oxo1 o 10 1"]) + "\n")
    common = ["batch", str(f), "--rules", "jump3", "--solver", solver, "--jobs", "1"]
    assert main(common + ["--no-cache"]) == 0
    fresh = [_facts(r) for r in _lines(capsys.readouterr().out)]
    cache = str(tmp_path / "c.sqlite3")
    for run in range(2):  # the first run fills the cache (each group's images share a row), the second reads it
        assert main(common + ["--cache", cache]) == 0
        out, err = capsys.readouterr()
        recs = _lines(out)
        assert sum(r["solver"] == "cache" for r in recs) == (0 if run == 0 else 7), err
        assert [_facts(r) for r in recs] == fresh
    assert [r[0]["x" if " x " in line else "o"][2] for r, line in zip(fresh, f.read_text().split("\n\n"))] == \
        ["a1", "c1", "a1", "c1", "b2", "a1", "a2"]


def test_a_version_2_cache_forgets_its_exact_rows_moves_and_solves_them_again(tmp_path, capsys):
    """Version 2 kept one move per exact row (issue 18 item 8): opening it upgrades it to
    version 3 and drops those moves; a record that needs one solves the position again."""
    f = tmp_path / "p.txt"
    f.write_text("o1x1/1oxo o 10 1\n")
    path = tmp_path / "c.sqlite3"
    common = ["batch", str(f), "--rules", "jump3", "--jobs", "1", "--cache", str(path)]
    assert main(common) == 0
    fresh = _lines(capsys.readouterr().out)
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '2' WHERE name = 'version'")
    db.execute("UPDATE solved SET best = 'c2'")  # a version 2 row: one move, the wrong one for this image
    db.commit()
    db.close()
    assert main(common) == 0
    again = _lines(capsys.readouterr().out)
    assert again[0]["solver"] != "cache" and [_facts(r) for r in again] == [_facts(r) for r in fresh]
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM meta WHERE name = 'version'").fetchone() == ("3",)
    assert db.execute("SELECT best FROM solved").fetchall() == [("b2 d2",)]  # both ties, canonical orientation
    db.close()
    assert main(common) == 0
    assert [r["solver"] for r in _lines(capsys.readouterr().out)] == ["cache"]


def test_worker_processes_share_the_default_memory_for_the_tables_searches_read():
    quarter = total_memory() // 4
    tables = BatchOptions(tables="/tables")
    assert worker_options(tables, 1).tables_memory == max(1 << 30, quarter)
    assert worker_options(tables, 8).tables_memory == max(1 << 30, quarter // 8)   # not a quarter each
    assert worker_options(tables, 10 ** 6).tables_memory == 1 << 30
    assert worker_options(BatchOptions(tables="/tables", tables_memory=5 << 30), 8).tables_memory == 5 << 30
    assert worker_options(BatchOptions(), 8) == BatchOptions()


def test_a_batch_without_a_limit_says_at_once_what_may_take_long(tmp_path, monkeypatch):
    """No silent hours (issue 27 item 5): before any solve, one line with how many positions may
    take long and the largest estimate; nothing with a limit or when none may (the threshold is
    lowered here so that a board solved at once counts)."""
    from solver.solve import budget
    from solver.solve.batch import BatchOptions, run_batch
    easy = "ooxxxx1/ooooooo/oxoxxxo/oxooooo/oooooox/oxxooox/xxxxo1x x 0 41"  # 7 x 7, 2 empty squares
    f = tmp_path / "p.txt"
    f.write_text(f"{easy}\n\nx..\n...\n..o\n")
    said: list[str] = []
    run_batch([str(f)], BatchOptions(), jobs=1, stream=io.StringIO(), notice=said.append)
    assert said == []  # about 81 nodes: nothing to say
    monkeypatch.setattr(budget, "ESTIMATE_THRESHOLD", 10)
    run_batch([str(f)], BatchOptions(), jobs=1, stream=io.StringIO(), notice=said.append)
    assert said == [f"no limit given and 1 of 2 positions may take long (the largest estimate: about 81 nodes, "
                    f"{f}:1); --timeout SECONDS or --nodes N give a limit per position; Ctrl-C stops and keeps what "
                    "is solved"]
    said.clear()
    run_batch([str(f)], BatchOptions(timeout=60), jobs=1, stream=io.StringIO(), notice=said.append)
    assert said == []
