"""Tablebases: the index, the tier solver against the reference and retro, un-moves, files,
probing, the commands, and the distributed build against the single-process one."""

import itertools
import json
import math
import random
import re

import numpy as np
import pytest

from solver.game.board import Board
from solver.app.cli import main
from solver.oracles.retro import RetroOracle
from solver.oracles.reference import ReferenceSolution
from solver.game.rules import CLASSIC, O, X, Position
from solver.tables.probe import MissingTableError, Tablebase, TableOracle, decode
from solver.tables.build import build, executor_for
from solver.tables.checks import check_tables, contents
from solver.tables.storage import tier_path
from solver.tables.game import AtaxxGame
from solver.tables.index import TableError, _byte_pext_pdep, dense_index
from solver.tiers.check import self_test, verify
from solver.tiers.solver import TierSolver
from solver.tiers.store import MemoryStore

SMALL = [Board(1, 5), Board(2, 3), Board(2, 4, 0b00100100), Board(3, 3, 1 << 4), Board(3, 3), Board(2, 2)]


def arrangements(board):
    """Every (x, o) arrangement of pieces on the playable squares."""
    squares = [sq for sq in range(board.size) if not board.is_block(sq)]
    for digits in itertools.product(range(3), repeat=len(squares)):
        x = sum(1 << sq for sq, d in zip(squares, digits) if d == 1)
        o = sum(1 << sq for sq, d in zip(squares, digits) if d == 2)
        yield x, o


def solved(board, **kw):
    store = MemoryStore()
    TierSolver(AtaxxGame(board), store, **kw).solve()
    return store


def stored(store, board, p):
    e, i = dense_index(board).number(p)
    return decode(int(store.load(e)[i]))


@pytest.mark.parametrize("board", SMALL, ids=repr)
def test_index_numbers_each_position_up_to_symmetry(board):
    ix = dense_index(board)
    seen = {}
    for x, o in arrangements(board):
        p = Position(board, x, o, X, 0, CLASSIC)
        e, i = ix.number(p)
        assert e == p.empty.bit_count() and 0 <= i < ix.tier_size(e)
        m, t, canonical = ix.position(e, i)
        assert canonical
        images = {(Board.map_mask(g, x), Board.map_mask(g, o)) for g in board.symmetries}
        assert (m, t) in images  # the number stands for an image of the position
        seen.setdefault((e, i), images)
        assert seen[(e, i)] == images  # and only for that orbit
    used = sum(ix.position(e, i)[2] for e in range(ix.n + 1) for i in range(ix.tier_size(e)))
    assert used == len(seen)  # every canonical number is some position


@pytest.mark.slow
@pytest.mark.parametrize("board", SMALL, ids=repr)
def test_tables_match_the_reference_on_every_position(board):
    store = solved(board)
    positions = [Position(board, x, o, turn, 0, CLASSIC) for x, o in arrangements(board) for turn in (X, O)]
    ref = ReferenceSolution(positions)
    infinite = 0
    for p in positions:
        v, d = ref.lookup(p)
        assert stored(store, board, p) == (v, d), p
        infinite += d == math.inf
    if board == Board(3, 3):
        assert infinite > 0  # cycles drawn by infinite play are among them


def test_tables_match_retro_on_3x4_from_the_start_with_either_side():
    board = Board(3, 4)
    store = solved(board)
    retro = RetroOracle(board, CLASSIC)
    start = Position.start(3, 4, CLASSIC)
    retro.prepare([start, start.replace(turn=O)])
    n = retro.n
    k1, k2 = retro.k1[:n].copy(), retro.k2[:n].copy()
    value, depth = retro.values(k1, k2, np.zeros(n, np.int64))
    tiers, numbers = dense_index(board).numbers(k1, k2)
    for e, i, v, d in zip(tiers.tolist(), numbers.tolist(), value.tolist(), depth.tolist()):
        tv, td = decode(int(store.load(e)[i]))
        assert (tv, td) == (v, math.inf if d >= 1 << 30 else d)
    assert k1.shape[0] > 20_000  # both sides share positions (colour inversion)


@pytest.mark.slow
@pytest.mark.parametrize("board", [Board(3, 3), Board(3, 3, 1 << 4), Board(2, 4), Board(3, 4)], ids=repr)
def test_unmoves_agree_with_moves_and_solve_alike(board):
    ix = dense_index(board)
    game = AtaxxGame(board)
    rng = random.Random(5)
    for e in range(ix.n + 1):
        size = ix.tier_size(e)
        sample = range(size) if size <= 400 else rng.sample(range(size), 400)
        assert self_test(game, e, sample) == []
    with_unmoves = solved(board)
    without = solved(board, use_unmoves=False)
    assert all(np.array_equal(with_unmoves.load(e), without.load(e)) for e in game.tiers())


def test_the_check_pass_accepts_true_tables_and_catches_false_values():
    board = Board(3, 3)
    store = solved(board)
    game = AtaxxGame(board)
    assert verify(game, store).failures == 0
    # a draw by infinite play claimed as a win inside its cycle: locally it can look right, the depth rule catches it
    ix = dense_index(board)
    p = Position.from_fen("1xo/1xx/x1o x 0 1")
    e, i = ix.number(p)
    assert decode(int(store.load(e)[i])) == (0, math.inf)
    codes = store.load(e).copy()
    codes[i] = (1 + 32) << 10 | 5
    store.save(e, codes)
    report = verify(game, store)
    assert report.failures >= 1 and report.first[0][0] == e


def test_build_resume_files_and_refusals(tmp_path, capsys):
    d = tmp_path / "tb"
    assert main(["tables", "build", "2x4", "--dir", str(d), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "2x4: 9 tiers built, 0 already there" in out
    first = tier_path(d, Board(2, 4), 3)
    head = first.read_bytes().split(b"\n", 2)
    assert head[0] == b"ATAXX-TABLE 1"
    header = json.loads(head[1])
    assert header["board"] == {"rows": 2, "cols": 4, "blocks": []} and header["rules"] == "classic"
    assert header["tier"] == 3 and header["checksum"].startswith("crc32:")
    # an interrupted build lost tier 5: the same command rebuilds that tier only, identically
    lost = tier_path(d, Board(2, 4), 5)
    data = lost.read_bytes()
    lost.unlink()
    assert main(["tables", "build", "2x4", "--dir", str(d), "--jobs", "1"]) == 0
    assert "1 tier built, 8 already there" in capsys.readouterr().out
    assert lost.read_bytes() == data
    assert main(["tables", "check", "2x4", "--dir", str(d)]) == 0
    assert ", 0 failures" in capsys.readouterr().out
    # a damaged file is refused with one line, and never overwritten
    raw = bytearray(lost.read_bytes())
    raw[-1] ^= 0xFF
    lost.write_bytes(bytes(raw))
    assert main(["tables", "build", "2x4", "--dir", str(d)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "checksum mismatch" in err and lost.read_bytes() == bytes(raw)
    lost.write_bytes(data)
    # a file of another board under this board's name
    other = tmp_path / "other"
    assert main(["tables", "build", "2x3", "--dir", str(other), "--jobs", "1"]) == 0
    capsys.readouterr()
    tier_path(other, Board(2, 3), 2).replace(tier_path(d, Board(2, 4), 2))
    assert main(["tables", "build", "2x4", "--dir", str(d)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a table of the 2x3 board, not 2x4" in err


@pytest.mark.slow
def test_solve_batch_and_verify_answer_from_tables(tmp_path, capsys, monkeypatch):
    d = tmp_path / "tb"
    assert main(["tables", "build", "3x3", "--dir", str(d), "--jobs", "2"]) == 0
    capsys.readouterr()
    f = tmp_path / "p.txt"
    f.write_text("x..\n...\n..o\n\nname: cycle\n1xo/1xx/x1o x 0 1\n\nmove: b2\nx2/3/2o x 0 1\n")
    assert main([str(f), "--json", "--tables", str(d)]) == 0
    from_tables = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert main([str(f), "--json", "--solver", "retro"]) == 0
    from_retro = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [t["solver"] for t in from_tables] == ["tables"] * 3
    for a, b in zip(from_tables, from_retro):
        assert a["sides"] == b["sides"] and a.get("orthodox") == b.get("orthodox")
    assert from_tables[0]["orthodox"] == "9|-9" and from_tables[1]["sides"]["x"]["outcome"] == "infinite-play"
    assert main(["batch", str(f), "--tables", str(d), "--jobs", "1"]) == 0
    recs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    keys = ("lower", "upper", "exact", "value", "outcome", "depth", "best_move")
    assert [{k: {x: v[x] for x in keys} for k, v in r["sides"].items()} for r in recs] == \
        [{k: {x: v[x] for x in keys} for k, v in t["sides"].items()} for t in from_tables]
    assert main(["verify", str(f), "--tables", str(d)]) == 0
    # another board: solved as without tables
    g = tmp_path / "q.txt"
    g.write_text("x...o\n")
    assert main([str(g), "--tables", str(d)]) == 0
    assert "orthodox summary: 0\nsolved" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="^2$") as info:
        main([str(g), "--tables", str(tmp_path / "none")])
    assert info.value.code == 2
    assert capsys.readouterr().err == f"ataxx-solve: --tables: {tmp_path / 'none'}: no such directory\n"


def test_probe_api_and_command(tmp_path, capsys, monkeypatch):
    d = tmp_path / "tb"
    build(Board(3, 3), d)
    tb = Tablebase(d)
    p = Position.from_fen("x2/3/2o x 0 1")
    assert tb.probe(p) == (9, 13)
    assert tb.probe(p.replace(turn=O)) == (9, 13)  # the mover's value: O to move wins by 9 too
    q = Position.start(3, 4, CLASSIC)
    assert tb.get(q) is None and tb.get(q, "none") == "none"
    missing = f"^no table for the 3x4 board in {re.escape(str(d))} \\(it has: 3x3\\)$"
    with pytest.raises(MissingTableError, match=missing):
        tb.probe(q)
    assert TableOracle(tb, p.board).lookup_many([p, p.replace(turn=O)]) == [(9, 13), (9, 13)]
    monkeypatch.setattr("sys.stdin", __import__("io").TextIOWrapper(__import__("io").BytesIO(b"x2/3/2o x 0 1\n")))
    assert main(["tables", "probe", "--dir", str(d)]) == 0
    out, err = capsys.readouterr()
    assert out == "x2/3/2o x 0 1  +9  depth 13\n" and "probed 1 position in" in err
    assert "per second" not in err  # a rate of one position was noise ('(0 per second)', issue 30 item 12)
    from solver.app.commands.tables import rate_text
    assert rate_text(1, 2.166) == "" and rate_text(5_000, 0.01) == "" and rate_text(5_000, 0.5) == " (10,000 per second)"
    with pytest.raises(TableError, match="missing: no such directory$"):
        Tablebase(tmp_path / "missing")


def test_the_tables_command_is_a_client_of_library_calls(tmp_path, capsys):
    """check, info and probe print what check_tables, contents and probe_many return."""
    d = tmp_path / "tb"
    board = Board(2, 3)
    with executor_for(jobs=2) as executor:
        build(board, d, executor=executor)
    report = check_tables(board, d)
    assert report.failures == 0 and report.checked > 0
    assert main(["tables", "check", "2x3", "--dir", str(d), "--jobs", "1"]) == 0
    assert f"2x3 (all tiers): {report.checked:,} positions checked in " in capsys.readouterr().out
    (held,) = contents(Tablebase(d))
    assert (held.board, held.tiers, held.entries) == (board, list(range(7)), dense_index(board).size)
    assert main(["tables", "info", "--dir", str(d)]) == 0
    assert capsys.readouterr().out.startswith("2x3: tiers 0, 1, 2, 3, 4, 5, 6; ")
    # positions of several boards, one of them without tables: each board probed at once, in input order
    f = tmp_path / "p.txt"
    f.write_text("x1o/3 x 0 1\n\nx...o\n\nto-move: o\nx2/2o\n")
    assert main(["tables", "probe", "--dir", str(d), str(f)]) == 2
    out, err = capsys.readouterr()
    tb = Tablebase(d)
    want = [tb.probe(Position.from_fen("x1o/3 x 0 1")), tb.probe(Position.from_fen("x2/2o o 0 1"))]
    assert out.splitlines() == [f"x1o/3 x 0 1  {want[0][0]:+d}  depth {want[0][1]}",
                                f"x2/2o o 0 1  {-want[1][0]:+d}  depth {want[1][1]}"]
    assert err.startswith(f"{f}:3: no table for the 1x5 board in {d}") and err.count("\n") == 2
    tier_path(d, board, 1).unlink()
    with pytest.raises(TableError, match=f"^{d} lacks tiers 1 of 2x3$"):
        check_tables(board, d, tiers=[2])


def test_a_transposed_board_is_answered_by_the_tables_of_its_transpose(tmp_path):
    build(Board(2, 4, 0b00100100), tmp_path)  # blocks c1 and b2
    tb = Tablebase(tmp_path)
    turned = Board(4, 2, 0b00011000)  # the same board reflected in its diagonal: blocks b2 and a3
    positions = [Position(turned, x, o, turn, 0, CLASSIC) for x, o in arrangements(turned) for turn in (X, O)]
    assert tb.covers(turned) and not tb.covers(Board(4, 2))
    ref = ReferenceSolution(positions)
    assert tb.probe_many(positions) == [ref.lookup(p) for p in positions]


@pytest.mark.slow
def test_distributed_build_equals_the_single_process_build():
    from solver.tiers.cluster import LocalDaskCluster

    boards = [Board(3, 4), Board(3, 5)]
    single = {b: solved(b) for b in boards}
    with LocalDaskCluster(2) as executor:
        assert executor.workers == 2
        for b in boards:
            store = MemoryStore()
            TierSolver(AtaxxGame(b), store, executor=executor, chunk_size=1 << 18, distribute_above=1 << 16).solve()
            for e in AtaxxGame(b).tiers():
                assert np.array_equal(store.load(e), single[b].load(e)), (b, e)


@pytest.mark.slow
@pytest.mark.parametrize("signal_name,status", [("SIGINT", 130), ("SIGTERM", 143)])
def test_an_interrupted_build_stops_cleanly_and_resumes(tmp_path, signal_name, status):
    """Ctrl-C, or SIGTERM (handled the same way, issue 18 item 4), stops the build at its next step."""
    import signal
    import subprocess
    import sys
    import time

    d = tmp_path / "tb"
    proc = subprocess.Popen([sys.executable, "-m", "solver", "tables", "build", "3x5", "--dir", str(d), "--jobs", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600
    while not tier_path(d, Board(3, 5), 3).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(getattr(signal, signal_name))
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == status, err
    assert err.strip().endswith("run the same command again to resume") and "Traceback" not in err
    done = sorted(p.name for p in d.glob("*.atb"))
    assert 4 <= len(done) < 16 and not list(d.glob("*.partial"))
    assert main(["tables", "build", "3x5", "--dir", str(d), "--jobs", "1"]) == 0
    assert len(list(d.glob("*.atb"))) == 16


def test_the_byte_pext_and_pdep_tables_gather_and_spread_the_bits_of_a_mask():
    bits8 = _byte_pext_pdep()
    rng = random.Random(21)
    for _ in range(2000):
        mask, v = rng.randrange(256), rng.randrange(256)
        squares = [i for i in range(8) if mask >> i & 1]
        assert bits8[0, mask * 256 + v] == sum(1 << j for j, i in enumerate(squares) if v >> i & 1)
        assert bits8[1, mask * 256 + v] == sum(1 << i for j, i in enumerate(squares) if v >> j & 1)
    assert bits8[0, 0b10100000 * 256 + 0b10000000] == 0b10
    assert bits8[1, 0b10100000 * 256 + 0b01] == 0b00100000
