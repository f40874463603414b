"""The C++ baseline beside the bench (solver/app/alphabeta.cpp, solver/app/baseline.py): built
with g++ into a directory of its own, its perft is SPEC section 9's, its values under uai are
the reference solver's on small boards and the search's on 7 x 7 boards with few empty
squares; the bench prints its figures beneath a row."""

from __future__ import annotations

import platform
import random
import re
import shutil
import subprocess

import pytest
from helpers import random_positions

from solver.app import baseline, bench
from solver.common.limits import Limits, StateLimitError
from solver.game.bitboards import mover_bits
from solver.game.rules import UAI
from solver.io.formats import parse_fen, write_fen
from solver.oracles.reference import ReferenceSolution
from solver.solve.solver import Solver

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed: the C++ baseline "
                                                                   "cannot be built (CI has it)")


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    built = baseline.build(tmp_path_factory.mktemp("alphabeta"))
    assert built.path is not None, built.reason
    return built.path


@needs_gxx
def test_built_outside_the_source_tree_once(program, tmp_path_factory):
    assert baseline.SOURCE.parent not in program.parents
    again = baseline.build(program.parent)
    assert again.path == program


@needs_gxx
def test_built_for_this_processor_or_else_portable(program, tmp_path, monkeypatch):
    """The program is built for this processor (the popcount instruction, as numba's kernels
    have it); where the compiler refuses the first flags, with the next, and it still runs."""
    if platform.machine() == "x86_64":  # (objdump comes with g++'s binutils)
        assert "popcnt" in subprocess.run(["objdump", "-d", str(program)], capture_output=True, text=True).stdout
    monkeypatch.setattr(baseline, "FLAGS", (["-O2", "-mno-such-processor-flag"], ["-O2"]))
    built = baseline.build(tmp_path)
    assert built.path is not None and built.path.parent == tmp_path, built.reason
    assert baseline.perft(built.path, "x5o/7/7/7/7/7/o5x x 0 1", 2) == [16, 256]
    assert [p.name for p in tmp_path.iterdir()] == [built.path.name]  # (no temporary file left)


@needs_gxx
@pytest.mark.parametrize("fen, counts", [
    ("x5o/7/7/7/7/7/o5x x 0 1", [16, 256, 6460, 155888]),
    ("x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1", [14, 196, 4184, 86528]),
    ("7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1", [1, 75, 249, 14270]),
    ("x5o/7/7/7/7/7/o5x x 100 1", [0, 0, 0, 0]),
    ("7/7/7/7/-------/-------/x5o x 0 1", [2, 4, 13, 30, 73, 174]),
])
def test_perft_is_the_spec_table(program, fen, counts):
    assert baseline.perft(program, fen, len(counts)) == counts


def _value(p) -> int | None:
    try:
        ref = ReferenceSolution([p], max_states=5_000)
    except StateLimitError:
        return None  # too large for the reference
    return ref.lookup(p)[0]


@needs_gxx
def test_values_are_the_reference_solvers_on_small_boards(program):
    shapes = [(2, 3), (3, 3), (2, 4), (3, 4), (1, 6)]
    positions, values = [], []
    for p in random_positions(31, 80, shapes=shapes, rules=UAI, fill=(0.4, 0.3, 0.3)):
        p = p.replace(counter=UAI.limit - 1 - p.counter % 12)
        v = _value(p) if p.result() is None else None
        if v is not None:
            positions.append(p)
            values.append(v)
    results = baseline.solve(program, [write_fen(p) for p in positions], 30.0)
    assert len(positions) > 30
    for p, v, r in zip(positions, values, results):
        assert r["exact"] and r["lower"] == r["upper"] == v, (write_fen(p), r)
        assert r["nodes"] >= 1 and r["outcome_seconds"] is not None


@pytest.mark.slow
@needs_gxx
def test_values_are_the_searchs_on_7x7_endings(program):
    rng = random.Random(7)
    positions = []
    for e in bench._suite_positions(bench.ENGINE_GAMES_FILE, 4, "uai"):
        p = e[1]
        while p.empty.bit_count() > 2 and p.result() is None:  # played on at random to two empty squares,
            p = p.play(rng.choice(p.legal_moves()))
        p = p.replace(counter=88 + rng.randrange(10))  # jump wars of a few plies: both search quickly
        if p.result() is None:
            positions.append(p)
    results = baseline.solve(program, [write_fen(p) for p in positions[:8]], 20.0)
    compared = 0
    for p, r in zip(positions, results):
        oracle = Solver(algorithm="search", limits=Limits(timeout=20.0)).oracle(p)
        m, t = mover_bits(p)
        b = oracle.bounds_of(m, t, p.counter)
        assert r["lower"] <= b.upper and b.lower <= r["upper"], (write_fen(p), r, b)  # proved bounds meet
        if b.exact and r["exact"]:
            assert r["lower"] == b.lower, (write_fen(p), r, b)
            compared += 1
    assert compared >= 3


@needs_gxx
def test_a_bad_position_is_one_line_and_a_failure(program):
    proc = subprocess.run([str(program), "solve", "1"], input="x5o/7/6 x 0 1\n", capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == ["alphabeta: not a FEN: x5o/7/6 x 0 1"]


def test_without_gxx_the_bench_says_why(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert baseline.build().reason == "g++ not found"
    p = parse_fen("x5o/7/7/7/7/7/o5x x 0 1", UAI)
    b = bench._baseline([p], 1.0)
    assert b == {"skipped": "g++ not found"}
    row = bench.Row("engine games, 8 empties", "search/all", 1000, 2.0, 1 << 20, "outcome 1/1", positions=1,
                    baseline=b)
    lines = bench.table([row]).splitlines()
    assert lines[0].split() == ["case", "solver", "positions", "states", "seconds", "states/s", "peak", "memory"]
    assert "skipped: g++ not found" in lines[3] and lines[3].startswith("  c++ alpha-beta")


def test_the_baseline_sub_row_has_the_rows_columns():
    b = {"positions": 2, "outcome": 2, "exact": 1, "outcome_seconds": [0.5, 1.5], "exact_seconds": [2.0],
         "nodes": 5_000_000, "cpu": 1.0, "peak_bytes": 64 << 20, "timeout": 60.0, "results": []}
    row = bench.Row("engine games, 8 empties", "search/all", 1000, 2.0, 1 << 20, "outcome 1/2", positions=2,
                    baseline=b)
    line = bench.table([row]).splitlines()[3].split()
    assert line[:9] == ["c++", "alpha-beta", "(uai),", "same", "positions", "c++/1", "2", "5,000,000", "1.00"]
    assert line[9:12] == ["5,000,000", "64", "MiB"]
    assert "exact 1/2 (median 2.00 s)" in bench.table([row]) and "5.00M nodes/s per core" in bench.table([row])


@pytest.mark.slow  # 3 s of CPU: the quick suite's 3 minutes (README)
def test_an_endgame_row_names_the_provers_that_answered():
    p = parse_fen("xxxoxxx/xxxoxxx/1x-x-oo/xxxxxoo/xx-x-oo/ooxxxoo/oo3oo o 0 34")
    (r,) = bench._search_suite([("game 8", p)], 30.0, 1)
    assert r["lower"] == r["upper"] and r["exact"] is not None
    assert r["proofs"] and all(k in ("D", "C") or (k[0] in "PF" and k[1] == "@") for k in r["proofs"])
    note = bench._proofs_note([{"proofs": {"P@4": 2, "F@4": 1, "F@12": 3, "D": 5}}, {"proofs": {"P@6": 1, "C": 1}}])
    assert note == "tests answered by budget 4: 3, budget 6: 1, budget 12: 3, proof numbers: 5, real game: 1"
    assert bench._proofs_note([{"proofs": {}}]) == "tests answered by none"


@pytest.mark.slow  # 3.4 s of CPU: the quick suite's 3 minutes (README)
def test_an_endgame_row_counts_what_the_last_plies_answered(tmp_path, monkeypatch):
    suite = tmp_path / "suite.txt"
    suite.write_text("name: a\nxxxoxxx/xxxoxxx/1x-x-oo/xxxxxoo/xx-x-oo/ooxxxoo/oo3oo o 0 34\n\n"
                     "name: b\noooxoxx/oooxoxx/xxoxxxx/xxxxxoo/xoxxxoo/ooxxxo1/2xoo1x x 0 39\n")
    monkeypatch.setattr(bench, "_baseline", lambda positions, timeout: {"skipped": "not asked"})
    row = bench._endgames(suite, "two", 4, 30.0, None, 1)
    assert row.positions == 2 and "exact 2/2" in row.note
    last = re.search(r"last plies: ([0-9,]+) children in ([0-9]+)% of the nodes", row.note)
    assert last is not None and int(last[1].replace(",", "")) > 0
    assert "; tests answered by " in row.note
