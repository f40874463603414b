"""What a tablebase build needs, said before it starts; a build beyond the memory budget refused."""

import os

import numpy as np
import pytest

from solver.game.board import Board
from solver.app.cli import main
from solver.tables import build as tablebuild
from solver.tables.build import BASE_BYTES, CHECKPOINT_BYTES, WORKING_BYTES, build, plan_build
from solver.tables.storage import DirectoryStore, resume_path, tier_path
from solver.tables.index import dense_index
from solver.tiers.resume import TierState


def test_the_plan_of_a_build(tmp_path):
    board = Board(3, 4)
    index = dense_index(board)
    plan = plan_build(board, tmp_path)
    assert plan.tiers == list(range(13)) and plan.entries == index.size == 137_781
    sizes = [index.tier_size(t) for t in range(13)]
    need = [BASE_BYTES + WORKING_BYTES * sizes[t] + (2 * sizes[t - 1] if t else 0) for t in range(13)]
    assert plan.memory == max(need) and plan.worst_tier == need.index(max(need))
    assert plan.checkpoint_disk == 2 * CHECKPOINT_BYTES * max(sizes)   # the next beside the last
    assert 0 < plan.disk - plan.checkpoint_disk < plan.entries and plan.cpu_seconds == pytest.approx(137_781 * 1.06e-6)
    build(Board(3, 3), tmp_path)
    assert plan_build(Board(3, 3), tmp_path).tiers == []
    tier_path(tmp_path, Board(3, 3), 9).unlink()
    assert plan_build(Board(3, 3), tmp_path).tiers == [9]


def test_5x5_is_refused_in_one_line_and_nothing_is_written(tmp_path, capsys):
    d = tmp_path / "t55"
    assert main(["tables", "build", "5x5", "--dir", str(d), "--max-memory", "64G"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and not d.exists()
    assert err == ("ataxx-solve tables: 5x5: 26 tiers to build, 123,199,715,502 entries; needs about 109.6 GiB of "
                   "memory (tier 8), 181.0 GiB of disk (29.8 GiB of tables, 151.1 GiB of checkpoints while a tier is "
                   "built) and 92.4 hours of CPU (2.70 us a number): more memory than the "
                   "budget of 64.0 GiB (--max-memory SIZE sets it, --force builds anyway); nothing built\n")


def test_a_build_within_the_budget_says_what_it_needs_first(tmp_path, capsys):
    d = tmp_path / "t"
    assert main(["tables", "build", "2x3", "--dir", str(d), "--max-memory", "100M"]) == 2
    assert "more memory than the budget of 100.0 MiB" in capsys.readouterr().err and not d.exists()
    assert main(["tables", "build", "2x3", "--dir", str(d), "--max-memory", "100M", "--force", "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("ataxx-solve tables: 2x3: 7 tiers to build, ") and "of CPU" in err
    assert out.startswith("2x3: 7 tiers built, 0 already there")
    assert main(["tables", "build", "2x3", "--dir", str(d), "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.startswith("2x3: 0 tiers built, 7 already there")


def test_some_tiers_only(tmp_path, capsys):
    d = tmp_path / "t"
    index = dense_index(Board(5, 5))
    plan = plan_build(Board(5, 5), d, [0, 1, 2, 3])
    assert plan.tiers == [0, 1, 2, 3] and plan.entries == sum(index.tier_size(t) for t in range(4)) == 2_031_288_320
    assert plan.worst_tier == 3 and plan.memory == BASE_BYTES + WORKING_BYTES * 1_527_644_160 + 2 * 421_265_408
    assert main(["tables", "build", "5x5", "--dir", str(d), "--tiers", "0-3", "--max-memory", "1G"]) == 2
    assert capsys.readouterr().err.startswith("ataxx-solve tables: 5x5: 4 tiers to build, 2,031,288,320 entries; "
                                              "needs about 6.8 GiB of memory (tier 3)")
    assert main(["tables", "build", "5x5", "--dir", str(d), "--tiers", "3", "--max-memory", "1G"]) == 2
    assert capsys.readouterr().err.startswith("ataxx-solve tables: 5x5: 1 tier to build, 1,527,644,160 entries; ")
    assert main(["tables", "build", "3x3", "--dir", str(d), "--tiers", "2-3", "--jobs", "1"]) == 2
    assert capsys.readouterr().err.endswith("lacks tier 1 of 3x3, which tier 2 is solved from: build it too\n")
    assert not d.exists()
    assert main(["tables", "build", "3x3", "--dir", str(d), "--tiers", "0-2", "--jobs", "1"]) == 0
    assert capsys.readouterr().out.startswith("3x3: 3 tiers built, 0 already there")
    assert main(["tables", "build", "3x3", "--dir", str(d), "--tiers", "3", "--jobs", "1"]) == 0
    index3 = dense_index(Board(3, 3))  # the closing line counts the entries of the tier built, not the board's
    assert f"3x3: 1 tier built, 0 already there; {index3.tier_size(3):,} entries, " in capsys.readouterr().out
    assert sorted(p.name for p in d.iterdir()) == [f"3x3-e0{t}.atb" for t in range(4)]
    with pytest.raises(SystemExit):
        main(["tables", "build", "3x3", "--dir", str(d), "--tiers", "4-12"])
    assert "tiers go from 0 to 9, not 4-12" in capsys.readouterr().err


def test_a_dir_that_is_a_file_is_refused_in_one_line(tmp_path, capsys):
    f = tmp_path / "three.txt"
    f.write_text("x..\n...\n..o\n")
    assert main(["tables", "build", "2x3", "--dir", str(f)]) == 2
    err = capsys.readouterr().err
    assert err == f"ataxx-solve tables: --dir: {f}: not a directory (a build writes its tables into a directory)\n"
    assert f.read_text() == "x..\n...\n..o\n"


def test_a_large_tier_makes_the_build_give_freed_memory_back(tmp_path, monkeypatch):
    asked = []
    monkeypatch.setattr(tablebuild, "give_back_freed_memory", lambda: asked.append(True) or True)
    monkeypatch.setattr(tablebuild, "LEAN_ABOVE", 10 ** 9)
    build(Board(2, 3), tmp_path / "small")
    assert asked == []
    monkeypatch.setattr(tablebuild, "LEAN_ABOVE", 60)   # 2 x 3 has tiers of 71 numbers
    build(Board(2, 3), tmp_path / "large")
    assert asked == [True]


@pytest.mark.slow  # a Dask cluster starts (the full suite runs it)
def test_a_large_tier_on_a_cluster_makes_the_workers_give_freed_memory_back(tmp_path, monkeypatch):
    """On a cluster the workers hold the tier's ranges (solver.tiers.distributed): their allocators are
    told too, not only the driver's (left alone here: the driver is this test process)."""
    pytest.importorskip("distributed")
    from solver.tiers.cluster import LocalDaskCluster

    monkeypatch.setattr(tablebuild, "give_back_freed_memory", lambda: True)
    monkeypatch.setattr(tablebuild, "LEAN_ABOVE", 60)   # 2 x 3 has tiers of 71 numbers
    # a checkpoint left by a build in one process: the cluster neither resumes from it nor leaves it
    board = Board(2, 3)
    n = dense_index(board).tier_size(5)
    store = DirectoryStore(tmp_path, board)
    store.checkpoints().save(TierState(5, n, 0, np.zeros(n, np.uint16), np.zeros(n, np.uint8),
                                       np.zeros(0, np.int64), np.zeros(0, np.int64), 0, 0))
    assert plan_build(board, tmp_path).resume == [5]
    plan = plan_build(board, tmp_path, checkpoints=False)
    assert plan.resume == [] and plan.checkpoint_disk == 0 and "checkpoint" not in plan.describe()
    environ = dict(os.environ)
    with LocalDaskCluster(1) as executor:
        told = lambda: __import__("solver.tiers.allocator").tiers.allocator._lean  # noqa: E731
        assert list(executor.client.run(told).values()) == [False]
        build(board, tmp_path, executor=executor)
        assert list(executor.client.run(told).values()) == [True]
    assert not resume_path(tmp_path, board, 5).exists() and tier_path(tmp_path, board, 5).exists()
    assert dict(os.environ) == environ  # what Dask's nannies set for their workers is not left here
