"""Tablebases inside the search: the search engines probe the tables of their board at their
leaves (solver/engine/tbprobe.py). Exactness against the search without tables on random
positions with more empty squares than the tables hold (so the probe answers interior leaves),
the probe counted, the arrays typed as the empty ones, other rules left alone."""

from __future__ import annotations

import json
import shutil

import numba
import numpy as np
import pytest

from solver import engine
from solver.game.bitboards import mover_bits
from solver.game.board import Board
from solver.app.cli import main
from solver.common.limits import Limits
from solver.game.rules import CLASSIC, UAI, O, X
from solver.oracles.search import SearchOracle, no_probe_tables
from solver.solve.solver import Solver
from solver.tables.probe import Tablebase
from solver.tables.checks import random_positions
from solver.tables.storage import DirectoryStore, tier_path
from solver.tables.game import AtaxxGame
from solver.tiers.solver import TierSolver

THREE_FIVE = Board(3, 5)
BLOCKED = Board(4, 4, (1 << 5) | (1 << 10))  # 4 x 4 with b2 and c3 blocked
TIERS = 4  # tables of tiers 0 .. 4


def partial_tables(board: Board, directory, tiers: int) -> None:
    """Tiers 0 .. ``tiers`` of ``board`` into ``directory``, by the builder's own tier solver."""
    TierSolver(AtaxxGame(board), DirectoryStore(directory, board)).solve(list(range(tiers + 1)))


@pytest.fixture(scope="module")
def tables_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("tables")
    partial_tables(THREE_FIVE, d, TIERS)
    partial_tables(BLOCKED, d, TIERS)
    return d


def summary(report):
    """What must not depend on the tables: per side, value, depth, preferred move and line."""
    out = []
    for s in report.sides:
        assert s.exact and s.evaluation is not None
        out.append((s.side, s.evaluation.value, s.evaluation.depth, s.best_move_name,
                    s.line.names() if s.line is not None else None))
    return out


def solve_both(positions, tables):
    """(summaries, probes and nodes) with and without the tables, one search per position."""
    small = Limits(max_memory=64 << 20)  # a small transposition table: quicker to make
    plain = Solver(algorithm="search", threads=1, limits=small)
    probed = Solver(algorithm="search", threads=1, limits=small, tables=tables)
    counts = {"plain": 0, "probed": 0, "probes": 0}
    got = []
    for q in positions:
        a, b = plain.analyzer(q), probed.analyzer(q)
        assert b.oracle.name == "search"  # the tables do not hold the position itself
        ra, rb = plain.solve(q, analyzer=a), probed.solve(q, analyzer=b)
        got.append((summary(ra), summary(rb)))
        counts["plain"] += a.oracle.states
        counts["probed"] += b.oracle.states
        counts["probes"] += b.oracle.counters()["table_probes"]
        assert a.oracle.counters()["table_probes"] == 0
    return got, counts


@pytest.mark.parametrize("board, seed", [pytest.param(THREE_FIVE, 3, marks=pytest.mark.slow), (BLOCKED, 5)],
                         ids=["3x5", "4x4-b2c3"])  # 3 x 5 (4.7 s of CPU) in the full suite: the quick suite's 3 minutes
def test_the_search_with_tables_at_its_leaves_agrees_with_the_search_without(tables_dir, board, seed):
    tb = Tablebase(tables_dir)
    assert tb.tiers_held(board) == TIERS + 1
    positions = random_positions(board, 8, (TIERS + 2, TIERS + 4), seed)
    assert {q.turn for q in positions} == {X, O}
    got, counts = solve_both(positions, tb)
    for (plain, probed), q in zip(got, positions):
        assert plain == probed, q
    assert counts["probes"] > 100
    assert counts["probed"] < counts["plain"] * 0.7, counts


def test_a_transposed_board_is_searched_with_the_tables_of_its_transpose(tables_dir):
    tb = Tablebase(tables_dir)
    turned = Board(5, 3)
    arrays = tb.search_arrays(turned)
    assert arrays is not None and arrays[4].tolist() == [TIERS, 1, 2]
    positions = random_positions(turned, 5, (TIERS + 2, TIERS + 3), 11)
    got, counts = solve_both(positions, tb)
    assert all(plain == probed for plain, probed in got)
    assert counts["probes"] > 0 and counts["probed"] < counts["plain"]


def test_the_kernel_scores_positions_as_the_tables_store_them(tables_dir):
    tb = Tablebase(tables_dir)
    for board in (THREE_FIVE, Board(5, 3), BLOCKED):
        positions = random_positions(board, 300, (0, TIERS), 2)
        bits = [mover_bits(q) for q in positions]
        mine = np.array([b[0] for b in bits], np.uint64)
        theirs = np.array([b[1] for b in bits], np.uint64)
        got = engine.tbprobe.table_scores(mine, theirs, tb.search_arrays(board))
        want = [v * (1 << 20) - d if v > 0 else v * (1 << 20) + d if v < 0 else 0
                for v, d in tb.probe_many(positions)]
        assert got.tolist() == want


def test_the_arrays_have_the_types_of_the_empty_ones_and_a_memory_cap(tables_dir):
    tb = Tablebase(tables_dir)
    full, empty = tb.search_arrays(THREE_FIVE), no_probe_tables()
    flat = lambda t: [numba.typeof(a) for a in (*t[0], *t[1:])]  # noqa: E731
    assert flat(full) == flat(empty)  # one compiled kernel for both
    assert full[4].tolist() == [TIERS, 0, 2] and empty[4][0] == -1
    assert full[2].tolist()[-1] == full[1].shape[0]
    # a cap on the bytes: only the tiers that fit (two bytes a number), from tier 0
    sizes = np.diff(full[2])
    small = tb.search_arrays(THREE_FIVE, max_bytes=2 * int(sizes[:3].sum()))
    assert small[4][0] == 2 and small[1].shape[0] == sizes[:3].sum()
    assert tb.search_arrays(THREE_FIVE, max_bytes=1) is None
    assert tb.search_arrays(Board(3, 4)) is None
    # the cap stops it short of the tiers a position asks for: read once, not again for each position
    capped = tb.search_arrays(THREE_FIVE, max_bytes=2 * int(sizes[:3].sum()), below=TIERS + 1)
    assert capped is small
    fresh = Tablebase(tables_dir, search_bytes=2 * int(sizes[:3].sum()))
    first = fresh.search_arrays(THREE_FIVE, below=TIERS + 1)
    assert first[4][0] == 2 and fresh.search_arrays(THREE_FIVE, below=TIERS + 1) is first


def test_the_search_reads_only_the_tiers_below_its_position(tables_dir):
    tb = Tablebase(tables_dir)
    assert tb.search_bytes >= 1 << 30
    two = tb.search_arrays(THREE_FIVE, below=2)    # a position with 2 empty squares meets tiers 0 and 1
    assert two[4][0] == 1 and two[1].shape[0] == two[2][2]
    assert tb.search_arrays(THREE_FIVE, below=1) is two   # fewer tiers: those already read serve
    more = tb.search_arrays(THREE_FIVE, below=TIERS + 3)  # more than the tables hold: all of them
    assert more[4][0] == TIERS and more is not two
    assert tb.search_arrays(THREE_FIVE, below=2) is more
    q = random_positions(THREE_FIVE, 1, (TIERS + 2, TIERS + 2), 6)[0]
    asked = []
    read = tb.search_arrays
    tb.search_arrays = lambda board, **kw: asked.append(kw) or read(board, **kw)  # type: ignore[method-assign]
    Solver(algorithm="search", threads=1, tables=tb).analyzer(q)
    assert asked == [{"below": TIERS + 2}]  # the solver asks for the tiers below its position


def test_no_probe_without_tables_or_under_other_rules(tables_dir):
    tb = Tablebase(tables_dir)
    arrays = tb.search_arrays(THREE_FIVE)
    q = random_positions(THREE_FIVE, 1, (TIERS + 2, TIERS + 2), 4)[0]
    uai = q.replace(rules=UAI)
    oracle = SearchOracle(THREE_FIVE, UAI, threads=1, probe_tables=arrays)  # the clock: tables may not hold
    assert oracle.tb[4][0] == -1
    oracle.bounds(uai)
    assert oracle.counters()["table_probes"] == 0
    # through the Solver: under uai the search gets no tables
    analyzer = Solver(UAI, algorithm="search", threads=1, tables=tb).analyzer(uai)
    assert analyzer.oracle.tb[4][0] == -1
    classic = Solver(algorithm="search", threads=1, tables=tb).analyzer(q)
    assert classic.oracle.tb[4][0] == TIERS


def test_the_command_line_tables_feed_the_search(tables_dir, tmp_path, capsys):
    q = random_positions(THREE_FIVE, 1, (TIERS + 3, TIERS + 3), 9)[0]
    f = tmp_path / "p.txt"
    f.write_text(q.fen() + "\n")
    outs = []
    for extra in ([], ["--tables", str(tables_dir)], ["--tables", str(tables_dir), "--tables-memory", "1K"]):
        assert main(["--solver", "search", "--json", "--max-memory", "64M", *extra, str(f)]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    plain, probed, starved = outs
    assert starved["states"] == plain["states"]  # no tier fits in 1 KiB: the search probes nothing
    assert plain["solver"] == probed["solver"] == "search"
    for side in (plain, probed):
        for result in side["sides"].values():
            del result["nodes"], result["value_seconds"], result["depth_seconds"]
    assert plain["sides"] == probed["sides"]
    assert plain["states"] > probed["states"]


def test_a_damaged_tier_is_one_line_for_its_position_and_the_others_are_solved(tables_dir, tmp_path, capsys):
    d = tmp_path / "tables"
    shutil.copytree(tables_dir, d)
    path = tier_path(d, THREE_FIVE, 2)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF  # inside the last compressed block: the checksum no longer holds
    path.write_bytes(bytes(data))
    q = random_positions(THREE_FIVE, 1, (TIERS + 2, TIERS + 2), 9)[0]
    f = tmp_path / "p.txt"
    f.write_text(f"{q.fen()}\n\nx1o x 0 1\n")
    assert main(["--solver", "search", "--max-memory", "64M", "--tables", str(d), str(f)]) == 2
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if "checksum" in line]
    assert len(lines) == 1 and lines[0].startswith(f"{f}:1: ") and str(path) in lines[0], err
    assert "Traceback" not in err
    assert f"({f}:3)" in out and "X wins by 3 (value +3)" in out and f"({f}:1)" not in out


# df-pn (5 s of CPU) in the full suite: the quick suite's 3 minutes (README)
@pytest.mark.parametrize("provers", [pytest.param(("D",), marks=pytest.mark.slow), ("P", "F")],
                         ids=["df-pn", "ladders"])
def test_df_pn_and_the_horizon_ladders_probe_the_tables_too(tables_dir, provers):
    """Small boards search without a horizon on one prover; here each prover alone, the ladders
    with horizons, so that both kernels meet table leaves (and the ladders their cut)."""
    tb = Tablebase(tables_dir)
    arrays = tb.search_arrays(THREE_FIVE)
    nodes = {}
    for label, probe in (("plain", None), ("tables", arrays)):
        found, nodes[label] = [], 0
        for q in random_positions(THREE_FIVE, 6, (TIERS + 2, TIERS + 3), 17):
            oracle = SearchOracle(THREE_FIVE, CLASSIC, threads=1, tt_bits=16, budget_limit=12, probe_tables=probe)
            oracle.provers = [provers]
            b = oracle.bounds(q)
            found.append((b.lower, b.upper))
            nodes[label] += oracle.states
            assert (oracle.counters()["table_probes"] > 0) == (probe is not None)
        if label == "plain":
            want = found
    assert found == want and all(lo == hi for lo, hi in found)
    assert nodes["tables"] < nodes["plain"]
