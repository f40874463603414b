"""The tier solver's working set (issue 21): three bytes a number, a counter that overflows into a
side table, events loaded a window of depths at a time, the apply step on threads owning ranges of
the tier; the codes it writes are those of the 11-byte solver it replaced."""

import hashlib

import numpy as np
import pytest

from solver import engine
from solver.game.board import Board
from solver.tables.game import AtaxxGame
from solver.tiers.executors import LocalExecutor
from solver.tiers.solver import MIN_CHUNK, TierSolver
from solver.tiers.store import MemoryStore

NOT_FINAL, UNUSED = engine.tier_kernels.NOT_FINAL, engine.tier_kernels.UNUSED

# sha256 of every tier's codes, in order, as the solver before issue 21 wrote them (commit ce3ca6b)
DIGESTS = {Board(3, 4): "691f90d486dc2e56754f0457d5bf5975f3a4f033d495d63f166276f0eec320b6",
           Board(3, 3, 1 << 4): "1fc21dd1920d47d6139aafb2db9b30364a560a0d738cd4de062ebeddc1088d1c",
           Board(2, 5): "7af0e669bfebb142fc843b7cc69b9f4fcbc9b709351574b4db286982094c0451"}


def digest(store):
    h = hashlib.sha256()
    for t in sorted(store.tiers):
        h.update(store.load(t).tobytes())
    return h.hexdigest()


# 3 x 4 in the full suite only (the quick suite's 3 minutes, README): the other boards take each path
@pytest.mark.parametrize("board", [pytest.param(b, marks=pytest.mark.slow) if b == Board(3, 4) else b for b in DIGESTS],
                         ids=repr)
@pytest.mark.parametrize("kw", [{}, {"apply_threads": 2, "parallel_above": 0, "window_events": 1},
                                {"apply_threads": 3, "parallel_above": 0, "distribute_above": 64, "chunk_size": 999},
                                {"apply_threads": 2, "parallel_above": 64, "distribute_above": 32}],
                         ids=["default", "threads-windows", "three-owners-parts", "small-steps-one-call"])
def test_the_codes_are_those_of_the_solver_before(board, kw):
    store = MemoryStore()
    TierSolver(AtaxxGame(board), store, **kw).solve()
    assert digest(store) == DIGESTS[board]


@pytest.mark.parametrize("board", list(DIGESTS), ids=repr)
def test_a_large_tiers_census_and_sorted_fronts_give_the_codes_of_a_small_tiers_lists(board, monkeypatch):
    # a small tier lists every level's events in one pass and leaves its fronts in the order
    # they settled; a large one takes a census of the whole tier at each level, loads windows of
    # depths and sorts its fronts: both give the same codes
    monkeypatch.setattr("solver.tiers.solver.SMALL_TIER", 0)
    store = MemoryStore()
    TierSolver(AtaxxGame(board), store, apply_threads=2, parallel_above=64).solve()
    assert digest(store) == DIGESTS[board]


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_a_small_tier_is_scanned_in_chunks_for_every_worker(workers):
    solver = TierSolver(AtaxxGame(Board(2, 3)), MemoryStore(), executor=LocalExecutor(workers), chunk_size=1 << 18)
    for n in (0, 1, 5000, MIN_CHUNK * 4 * workers - 1, 100_000, 1 << 20, 3 << 20):
        chunks = solver._chunks(n)
        assert [lo for lo, _ in chunks] == [0, *(hi for _, hi in chunks)][:len(chunks)] and (chunks[-1][1] if chunks else 0) == n
        sizes = {hi - lo for lo, hi in chunks[:-1]}
        assert len(sizes) <= 1 and all(MIN_CHUNK <= s <= 1 << 18 for s in sizes)
        if n >= 4 * workers * (1 << 18):
            assert sizes == {1 << 18}           # a large tier keeps chunks of chunk_size
        elif n >= 4 * workers * MIN_CHUNK:
            assert len(chunks) >= 4 * workers   # a small one is cut so that every worker has chunks
    solver.executor.close()


class FanGame:
    """Tier 0: m finished games, number j scoring ``scores[j]`` for its mover. Tier 1: number 0 moves
    to each of 1 .. m (more moves than a byte counts), number j to tier 0's j - 1; with ``cycle``,
    number m + 1 moves to 0 and 0 to it (m + 1 moves)."""

    def __init__(self, scores, cycle=False):
        self.scores = list(scores)
        self.m = len(self.scores)
        self.cycle = cycle

    def tiers(self):
        return [0, 1]

    def tier_size(self, tier):
        return self.m if tier == 0 else self.m + 2

    def child_tiers(self, tier):
        return [0] if tier == 1 else []

    def moves(self, tier, i):
        if tier == 0:
            return self.scores[i], []
        if i == 0:
            return NOT_FINAL, [(0, j) for j in range(1, self.m + 1)] + ([(0, self.m + 1)] if self.cycle else [])
        if i <= self.m:
            return NOT_FINAL, [(1, i - 1)]
        return (NOT_FINAL, [(0, 0)]) if self.cycle else (UNUSED, [])

    def children(self, tier, lo, hi):
        final, start, slot, child = [], [0], [], []
        for i in range(lo, hi):
            f, moves = self.moves(tier, i)
            final.append(f)
            slot += [s for s, _ in moves]
            child += [c for _, c in moves]
            start.append(len(slot))
        return (np.array(final, np.int16), np.array(start, np.int64), np.array(slot, np.int64),
                np.array(child, np.int64))


class FanGameWithUnmoves(FanGame):
    def parents(self, tier, numbers):
        start, out = [0], []
        for x in numbers:
            out += [p for p in range(self.tier_size(tier)) for s, c in self.moves(tier, p)[1] if s == 0 and c == x]
            start.append(len(out))
        return np.array(start, np.int64), np.array(out, np.int64)


def values(store, tier):
    return [engine.tier_kernels.decode(int(c)) for c in store.load(tier)]


@pytest.mark.parametrize("cls", [FanGame, FanGameWithUnmoves])
def test_a_position_with_more_moves_than_a_byte_counts(cls):
    m = 300
    losing = [-(1 + j % 3) for j in range(m)]  # every child of tier 1's number 0 wins: it loses by the least, 1
    store = MemoryStore()
    TierSolver(cls(losing), store, apply_threads=2, parallel_above=0).solve()
    got = values(store, 1)
    assert got[0] == (-1, 2) and got[1:m + 1] == [(1 + j % 3, 1) for j in range(m)] and store.load(1)[m + 1] == 0
    winning = [1 + j % 3 for j in range(m)]    # every child loses: number 0 wins by the most, 3
    store = MemoryStore()
    TierSolver(cls(winning), store).solve()
    assert values(store, 1)[0] == (3, 2)
    # a cycle: 0 can move to m + 1, whose only move is back; 0 prefers endless play to losing by 1
    store = MemoryStore()
    TierSolver(cls(losing, cycle=True), store, window_events=1).solve()
    got = values(store, 1)
    assert got[0] == (0, -1) and got[m + 1] == (0, -1)


def test_the_working_set_is_three_bytes_a_number():
    n = 1000
    code, cnt, ov_pos, ov_cnt, kmax, finals = engine.tier_kernels.summarise(
        np.full(n, NOT_FINAL, np.int16), np.full(n, 300, np.uint16) * (np.arange(n) % 2 == 0),
        np.zeros(n + 1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.uint16))
    assert code.nbytes + cnt.nbytes == 3 * n
    assert ov_pos.tolist() == list(range(0, n, 2)) and set(ov_cnt.tolist()) == {300} and set(cnt.tolist()) == {0, 255}


def test_routed_buckets_settle_what_one_owner_of_the_whole_tier_settles():
    """route_parents cuts a front's un-moves by owner; apply_routed in each owner's range (local
    numbers) settles what apply_owned settles over the whole tier."""
    tk, tr = engine.tier_kernels, engine.tier_route
    n, bounds = 8, np.array([0, 3, 8], np.int64)
    code = np.full(n, tk.INF_CODE, np.uint16)
    cnt = np.array([2, 1, 3, 1, 1, 2, 0, 0], np.uint8)
    code[6], code[7] = tk.pack(-2, 3), tk.pack(2, 3)   # settled at depth 3: lost by 2, won by 2 (its mover)
    code[4] = tk.pack(2, 3)                            # 4's event: a child elsewhere lost by 2 at depth 3
    ov_pos, ov_cnt = np.zeros(0, np.int64), np.zeros(0, np.int64)
    front = np.array([6, 7], np.uint32)
    pstart, parents = np.array([0, 3, 7]), np.array([0, 1, 5, 1, 2, 3, 3])
    like = np.zeros(0, np.uint32)
    whole_code, whole_cnt = code.copy(), cnt.copy()
    whole = tk.apply_owned(0, n, np.array([4], np.uint32), 3, front, pstart, parents, whole_code, whole_cnt,
                           ov_pos, ov_cnt, True)
    assert whole.tolist() == [0, 1, 3, 4, 5]   # 2 has a move left; 3 lost both its moves to 7
    # owner 1 holds 3 .. 7 (local 0 .. 4) and the front; owner 0 holds 0 .. 2
    mine = [(code[lo:hi].copy(), cnt[lo:hi].copy()) for lo, hi in [(0, 3), (3, 8)]]
    pos, pcode, ostart = tr.route_parents(front - 3, mine[1][0], pstart, parents, bounds, like)
    assert ostart.tolist() == [0, 4, 7]
    assert pos[:4].tolist() == [0, 1, 1, 2] and pos[4:].tolist() == [2, 0, 0]
    assert pcode.tolist() == [code[6]] * 2 + [code[7]] * 2 + [code[6]] + [code[7]] * 2
    got = []
    for j, events in enumerate([like, np.array([1], np.uint32)]):
        a, b = ostart[j], ostart[j + 1]
        out = tr.apply_routed(events, 3, pos[a:b], pcode[a:b], mine[j][0], mine[j][1], ov_pos, ov_cnt)
        got += (out + bounds[j]).tolist()
    assert got == whole.tolist()
    assert np.array_equal(np.concatenate([c for c, _ in mine]), whole_code)
    assert np.array_equal(np.concatenate([k for _, k in mine]), whole_cnt)


@pytest.mark.parametrize("workers,threads,board", [
    pytest.param(2, 1, Board(2, 3), marks=pytest.mark.slow), pytest.param(1, 3, Board(2, 5), marks=pytest.mark.slow)],
    ids=["two-workers", "three-owners-on-one"])
def test_a_routed_build_gives_the_codes_of_one_process(workers, threads, board):
    """Each worker thread owns a range of every tier (owner_min=1), windows of one event: the
    codes of one process, and no owner left on the workers afterwards. Two owners pass their
    steps' buckets whole; three take each bucket out on its maker's worker. (A cluster starts in
    about 5 s here, and its workers load the kernels in as many again.)"""
    pytest.importorskip("distributed")
    from solver.tiers.cluster import LocalDaskCluster
    from solver.tiers.distributed import RoutedTierSolver

    one = MemoryStore()
    TierSolver(AtaxxGame(board), one).solve()
    with LocalDaskCluster(workers, threads_per_worker=threads) as executor:
        solver = RoutedTierSolver(AtaxxGame(board), MemoryStore(), executor, owner_min=1, window_events=1)
        assert len(solver.slots()) == workers * threads and len(set(solver.slots())) == workers
        report = solver.solve()
        held = executor.client.run(lambda: len(__import__("solver.tiers.distributed").tiers.distributed._OWNERS))
    assert digest(solver.store) == digest(one) == DIGESTS.get(board, digest(one))
    assert report.tiers[3].max_front > 0 and all(t.worker_cpu_seconds > 0 for t in report.tiers)
    assert list(held.values()) == [0] * workers


@pytest.mark.slow
@pytest.mark.parametrize("board", ["3x5", "4x4"])
def test_a_two_worker_cluster_build_writes_the_same_files(tmp_path, capsys, caplog, board):
    """`tables build --cluster local:2` resolves each tier on the workers, each owning a range
    (solver.tiers.distributed), and writes the files of a one-thread build, byte for byte."""
    pytest.importorskip("distributed")
    import logging

    from solver.app.cli import main

    one, two = tmp_path / "one", tmp_path / "two"
    assert main(["tables", "build", board, "--dir", str(one), "--jobs", "1"]) == 0
    with caplog.at_level(logging.INFO, logger="solver.tiers.distributed"):
        assert main(["tables", "build", board, "--dir", str(two), "--cluster", "local:2"]) == 0
    assert any("2 owners on 2 workers" in r.getMessage() for r in caplog.records)
    names = sorted(p.name for p in one.iterdir())
    assert names and names == sorted(p.name for p in two.iterdir())
    assert all((one / name).read_bytes() == (two / name).read_bytes() for name in names)
