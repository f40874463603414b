"""A table build resumes within a tier (issue 21, item 4): the state saved at step boundaries (the
scan's chunks, the resolution's depths) every so often and when stopped, in a checkpoint file
written whole and refused when it is not its tier's; a resumed tier is byte-identical."""

import hashlib
import signal
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import solver.tiers.resume as tierresume
from solver.game.board import Board
from solver.app.cli import main
from solver.app.commands.tables import build_stop_handler
from solver.tables.build import CHECKPOINT_BYTES, build, plan_build
from solver.tables.storage import DirectoryStore, board_name, parse_board_name, resume_path, tier_path
from solver.tables.game import AtaxxGame
from solver.tables.index import dense_index
from solver.tiers.resume import CheckpointError, MemoryCheckpoints, TierInterrupted, TierState
from solver.tiers.solver import TierSolver
from solver.tiers.store import MemoryStore


def digest(store):
    h = hashlib.sha256()
    for t in sorted(store.tiers):
        h.update(store.load(t).tobytes())
    return h.hexdigest()


def kind(s: TierState) -> str:
    if s.scanning:
        return "scan-end" if s.scanned == s.entries else "mid-scan"
    if s.depth > 0:
        return "mid-level"
    return "after-scan" if s.level == s.kmax else "between-levels"


class Recording(MemoryCheckpoints):
    def __init__(self):
        super().__init__()
        self.kinds = []

    def save(self, state):
        self.kinds.append(kind(state))
        return super().save(state)


@pytest.mark.parametrize("board", [pytest.param(Board(3, 4), marks=pytest.mark.slow), Board(3, 3, 1 << 4), Board(2, 5)],
                         ids=repr)  # (3 x 4 in the full suite only: the quick suite's 3 minutes)
def test_stopped_at_every_step_boundary_the_tables_are_those_of_one_solve(board):
    whole = MemoryStore()
    TierSolver(AtaxxGame(board), whole, chunk_size=200).solve()
    store, saved = MemoryStore(), Recording()
    stops = 0
    # (each solve another number of apply threads and windows of events: the state holds neither)
    kws = [{"chunk_size": 200}, {"chunk_size": 300, "apply_threads": 3, "parallel_above": 0, "window_events": 1}]
    while True:  # every boundary saves and stops: each step is done in a solve of its own
        try:
            TierSolver(AtaxxGame(board), store, checkpoints=saved, checkpoint_seconds=0, should_stop=lambda: True,
                       **kws[stops % 2]).solve()
            break
        except TierInterrupted as exc:
            stops += 1
            assert exc.path == saved.where(exc.tier) and exc.tier in saved.states
            assert len(exc.solved) <= 1 and exc.skipped + exc.solved == sorted(store.tiers)
    assert digest(store) == digest(whole) and saved.states == {}
    assert stops == len(saved.kinds) > 50
    assert {"mid-scan", "scan-end", "after-scan", "mid-level", "between-levels"} <= set(saved.kinds)


def test_a_checkpoint_every_so_often_without_a_stop_changes_nothing():
    board = Board(3, 4)
    whole, store, saved = MemoryStore(), MemoryStore(), Recording()
    TierSolver(AtaxxGame(board), whole).solve()
    TierSolver(AtaxxGame(board), store, checkpoints=saved, checkpoint_seconds=0).solve()
    assert digest(store) == digest(whole) and len(saved.kinds) > 50 and saved.states == {}
    later = Recording()
    TierSolver(AtaxxGame(board), MemoryStore(), checkpoints=later, checkpoint_seconds=3600).solve()
    assert later.kinds == []   # (none due in an hour)


def test_a_stop_without_checkpoints_loses_the_tier_only():
    store = MemoryStore()
    with pytest.raises(TierInterrupted) as caught:
        TierSolver(AtaxxGame(Board(3, 3)), store, should_stop=lambda: 3 in store.tiers).solve()
    assert caught.value.tier == 4 and caught.value.path is None and caught.value.solved == [0, 1, 2, 3]


# -- files -----------------------------------------------------------------------------------------

def stop_at(monkeypatch, targets):
    """A should_stop that answers True at the boundaries whose state matches the next target
    (tier, kind), one target a build; the states are seen through StepCheckpointer.boundary."""
    flag = []
    orig = tierresume.StepCheckpointer.boundary

    def boundary(self, state):
        s = state()
        if targets and (s.tier, kind(s)) == targets[0]:
            targets.pop(0)
            flag.append(1)
        return orig(self, lambda: s)

    monkeypatch.setattr(tierresume.StepCheckpointer, "boundary", boundary)

    def should_stop():
        return bool(flag and flag.pop())

    return should_stop


@pytest.mark.parametrize("board", [Board(3, 4), parse_board_name("4x4", "b2,c3")], ids=board_name)
def test_a_build_stopped_after_the_scan_mid_level_and_between_levels_writes_the_same_files(tmp_path, monkeypatch,
                                                                                        board):
    last = dense_index(board).n
    one, two = tmp_path / "one", tmp_path / "two"
    build(board, one, chunk_size=2048)
    targets = [(3, "mid-scan"), (3, "scan-end"), (3, "after-scan"), (3, "mid-level"), (3, "mid-level"),
               (3, "between-levels"), (5, "mid-level")]
    should_stop = stop_at(monkeypatch, targets)
    stops = []
    while True:
        try:
            report = build(board, two, chunk_size=2048, should_stop=should_stop, checkpoint_seconds=3600)
            break
        except TierInterrupted as exc:
            stops.append((exc.tier, exc.where))
            assert exc.path == str(resume_path(two, board, exc.tier)) and resume_path(two, board, exc.tier).exists()
            assert not tier_path(two, board, exc.tier).exists()
    assert targets == [] and len(stops) == 7
    assert stops[0][1].endswith("numbers scanned") and stops[1][1] == f"{dense_index(board).tier_size(3):,} of " \
        f"{dense_index(board).tier_size(3):,} numbers scanned" and "positions settled, level" in stops[3][1]
    assert report.tiers_built == list(range(5, last + 1)) and list(report.resumed) == [5]
    assert report.resumed[5] == stops[-1][1]
    names = sorted(p.name for p in one.iterdir())
    assert names == sorted(p.name for p in two.iterdir()) == [tier_path(one, board, t).name for t in range(last + 1)]
    assert all((one / name).read_bytes() == (two / name).read_bytes() for name in names)


def test_the_file_is_written_and_read_a_chunk_at_a_time(tmp_path, monkeypatch):
    board = Board(3, 3)
    store = DirectoryStore(tmp_path, board)
    cps = store.checkpoints()
    n = 1001
    rng = np.random.default_rng(5)
    s = TierState(4, n, n, rng.integers(0, 1 << 16, n, dtype=np.uint16), rng.integers(0, 256, n, dtype=np.uint8),
                  np.array([3, 70], np.int64), np.array([300, 301], np.int64), 9, 77, 2, 5,
                  rng.integers(0, 99, 1024, dtype=np.int64), np.array([1, 5, 900], np.uint32), 800, 12, 13)
    monkeypatch.setattr(tierresume, "CHUNK_BYTES", 7)
    assert cps.save(s) == str(resume_path(tmp_path, board, 4))
    with pytest.raises(CheckpointError, match="a checkpoint of 1001 numbers, tier 4 has 1,002"):
        cps.load(4, n + 1)
    back = cps.load(4, n)
    for name in ("code", "cnt", "ov_pos", "ov_cnt", "hist", "front"):
        got, want = getattr(back, name), getattr(s, name)
        assert np.array_equal(got, want) and got.dtype == want.dtype
    assert (back.kmax, back.settled, back.level, back.depth, back.positions, back.max_front) == (9, 77, 2, 5, 800, 12)
    assert back.describe() == "77 of 800 positions settled, level 2, depth 5"
    cps.discard(4)
    assert not resume_path(tmp_path, board, 4).exists() and cps.load(4, n) is None


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """A 3 x 3 build stopped in tier 4: the directory, its checkpoint's bytes, the files of a whole build."""
    d = tmp_path_factory.mktemp("stopped")
    whole = tmp_path_factory.mktemp("whole")
    build(Board(3, 3), whole)
    # (tiers 0-3 first, then a stop at tier 4's first boundary: a stop keyed to tier 3's file
    # appearing would race the store writing that file behind, and could come in tier 5)
    build(Board(3, 3), d, tiers=[0, 1, 2, 3])
    with pytest.raises(TierInterrupted) as caught:
        build(Board(3, 3), d, should_stop=lambda: True, checkpoint_seconds=3600)
    assert caught.value.tier == 4 and caught.value.path is not None
    path = resume_path(d, Board(3, 3), 4)
    return d, path.read_bytes(), whole


def damage(raw, how):
    head_end = raw.index(b"\n", raw.index(b"\n") + 1) + 1
    if how == "truncated":
        return raw[:-5]
    if how == "data":   # one bit of the codes
        return raw[:head_end + 3] + bytes([raw[head_end + 3] ^ 1]) + raw[head_end + 4:]
    if how == "header":  # the depth to resume at
        return raw.replace(b'"depth": ', b'"depth": 1', 1)
    if how == "foreign":
        return b"my notes\n"
    if how == "format":
        return raw.replace(b"TIER-CHECKPOINT 1", b"TIER-CHECKPOINT 7", 1)
    raise AssertionError(how)


@pytest.mark.parametrize("how,says", [
    ("truncated", "truncated"),
    ("data", "checksum mismatch (a damaged checkpoint: delete it to build tier 4 from its start)"),
    ("header", "checksum mismatch"),
    ("foreign", "not a checkpoint this program wrote (delete it to build tier 4 from its start, or move it away)"),
    ("format", "checkpoint format 7, this program reads format 1")])
def test_a_damaged_or_foreign_checkpoint_is_refused_in_one_line_and_left_alone(stopped, tmp_path, capsys, how, says):
    d, raw, _ = stopped
    for f in d.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    path = resume_path(tmp_path, Board(3, 3), 4)
    path.write_bytes(damage(raw, how))
    assert main(["tables", "build", "3x3", "--dir", str(tmp_path), "--jobs", "1"]) == 2
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(lines) == 2 and lines[0].startswith("ataxx-solve tables: 3x3: ")
    assert lines[1].startswith(f"ataxx-solve tables: {path}: ") and says in lines[1]
    assert path.read_bytes() == damage(raw, how) and not tier_path(tmp_path, Board(3, 3), 4).exists()


def test_a_checkpoint_of_another_board_or_tier_is_refused(stopped, tmp_path):
    d, raw, _ = stopped
    other = resume_path(tmp_path, Board(3, 3), 5)
    other.write_bytes(raw)
    with pytest.raises(CheckpointError, match=r"3x3-e05.resume: a checkpoint of tier 4, not 5 \(delete it"):
        DirectoryStore(tmp_path, Board(3, 3)).checkpoints().load(5, dense_index(Board(3, 3)).tier_size(5))
    blocked = Board(3, 3, 1 << 4)
    renamed = resume_path(tmp_path, blocked, 4)
    renamed.write_bytes(raw)
    with pytest.raises(CheckpointError, match="a checkpoint of board '3x3', not '3x3-b2'"):
        build(blocked, tmp_path)
    assert renamed.read_bytes() == raw and not tier_path(tmp_path, blocked, 0).exists()   # refused before any work


@pytest.mark.parametrize("change", [{"depth": 1023}, {"level": 10}, {"settled": 2000},
                                    {"front": np.array([1, 5, 1001], np.uint32)},
                                    {"ov_pos": np.array([70, 3], np.int64)}, {"ov_pos": np.array([3, 1001], np.int64)}])
def test_a_checkpoint_with_a_right_checksum_and_a_state_no_solve_leaves_is_refused(tmp_path, change):
    cps = DirectoryStore(tmp_path, Board(3, 3)).checkpoints()
    n = 1001
    fields = dict(tier=4, entries=n, scanned=n, code=np.zeros(n, np.uint16), cnt=np.zeros(n, np.uint8),
                  ov_pos=np.array([3, 70], np.int64), ov_cnt=np.array([300, 301], np.int64), kmax=9, settled=77,
                  level=2, depth=5, hist=np.zeros(1024, np.int64), front=np.array([1, 5, 900], np.uint32))
    cps.save(TierState(**fields))
    assert cps.load(4, n) is not None
    cps.save(TierState(**{**fields, **change}))   # (saved as given: the checksum is right)
    with pytest.raises(CheckpointError, match="a state no solve leaves"):
        cps.load(4, n)


def test_a_file_the_program_did_not_write_is_never_replaced(tmp_path):
    cps = DirectoryStore(tmp_path, Board(3, 3)).checkpoints()
    path = resume_path(tmp_path, Board(3, 3), 2)
    path.write_text("keep me\n")
    s = TierState(2, 10, 10, np.zeros(10, np.uint16), np.zeros(10, np.uint8), np.zeros(0, np.int64),
                  np.zeros(0, np.int64), 0, 0)
    with pytest.raises(CheckpointError, match="not a checkpoint this program wrote for tier 2: not replaced"):
        cps.save(s)
    cps.discard(2)
    assert path.read_text() == "keep me\n" and sorted(p.name for p in tmp_path.iterdir()) == [path.name]


# -- the command -----------------------------------------------------------------------------------

def interrupt_at(monkeypatch, tier, which, sig=signal.SIGINT):
    """The signal ``sig`` sent to this process at a boundary of ``tier`` (``which``: a kind)."""
    orig = tierresume.StepCheckpointer.boundary
    sent = []

    def boundary(self, state):
        s = state()
        if not sent and s.tier == tier and kind(s) == which:
            sent.append(1)
            signal.raise_signal(sig)
        return orig(self, lambda: s)

    monkeypatch.setattr(tierresume.StepCheckpointer, "boundary", boundary)


def test_the_command_stops_with_a_checkpoint_and_resumes_from_it(tmp_path, capsys, monkeypatch, stopped):
    d = tmp_path / "t"
    interrupt_at(monkeypatch, 4, "mid-level")
    assert main(["tables", "build", "3x3", "--dir", str(d), "--jobs", "1"]) == 130
    out, err = capsys.readouterr()
    path = resume_path(d, Board(3, 3), 4)
    settled = err.splitlines()[-1]
    assert out == "" and settled.startswith(f"ataxx-solve tables: interrupted: 4 tiers built (tiers 0-3), tier 4 "
                                            f"checkpointed in {path} (") and " positions settled, level " in settled
    assert settled.endswith("): run the same command again to resume") and path.exists()
    where = settled[settled.index("(", settled.index("checkpointed")) + 1:settled.rindex(")")]
    monkeypatch.undo()
    assert main(["tables", "build", "3x3", "--dir", str(d), "--jobs", "1", "-v"]) == 0
    out, err = capsys.readouterr()
    assert f"tier 4: resuming from {path} ({where})" in err and "tier 4 resumes from its checkpoint" in err
    assert out.startswith(f"3x3: 6 tiers built (tier 4 resumed from its checkpoint: {where}), 4 already there; ")
    whole = stopped[2]
    assert sorted(p.name for p in d.iterdir()) == sorted(p.name for p in whole.iterdir())
    assert all((d / p.name).read_bytes() == p.read_bytes() for p in whole.iterdir())


def test_sigterm_in_the_scan_checkpoints_and_exits_143(tmp_path, capsys, monkeypatch):
    d = tmp_path / "t"
    interrupt_at(monkeypatch, 0, "scan-end", signal.SIGTERM)
    assert main(["tables", "build", "3x3", "--dir", str(d), "--jobs", "1"]) == 143
    n = dense_index(Board(3, 3)).tier_size(0)
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"ataxx-solve tables: interrupted: 0 tiers built, tier 0 checkpointed in {resume_path(d, Board(3, 3), 0)} "
        f"({n:,} of {n:,} numbers scanned): run the same command again to resume")


def test_the_plan_counts_the_checkpoints_and_names_the_tier_to_resume(stopped):
    d = stopped[0]
    plan = plan_build(Board(3, 3), d)
    index = dense_index(Board(3, 3))
    assert plan.tiers == list(range(4, 10)) and plan.resume == [4]
    assert plan.checkpoint_disk == 2 * CHECKPOINT_BYTES * max(index.tier_size(t) for t in range(4, 10))
    assert plan.disk > plan.checkpoint_disk and plan.describe().endswith("; tier 4 resumes from its checkpoint")


class Failing(MemoryCheckpoints):
    def save(self, state):
        raise CheckpointError("disk: cannot write the checkpoint: No space left on device")


def test_a_checkpoint_that_cannot_be_written_is_logged_and_the_tier_goes_on(caplog):
    board = Board(3, 4)
    whole, store = MemoryStore(), MemoryStore()
    TierSolver(AtaxxGame(board), whole).solve()
    TierSolver(AtaxxGame(board), store, checkpoints=Failing(), checkpoint_seconds=0).solve()
    assert digest(store) == digest(whole)
    assert "tier 0 goes on without a checkpoint: disk: cannot write the checkpoint: No space left" in caplog.text
    with pytest.raises(TierInterrupted) as caught:
        TierSolver(AtaxxGame(board), MemoryStore(), checkpoints=Failing(), should_stop=lambda: True).solve()
    assert caught.value.path is None and caught.value.failure.endswith("No space left on device")


def test_saves_come_at_most_every_so_often_and_never_above_a_tenth_of_the_time(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(tierresume.time, "monotonic", lambda: clock[0])
    saved = MemoryCheckpoints()
    steps = tierresume.StepCheckpointer(0, 10, saved, 60.0, lambda: False)
    state = TierState(0, 10, 10, np.zeros(10, np.uint16), np.zeros(10, np.uint8), np.zeros(0, np.int64),
                      np.zeros(0, np.int64), 0, 0)

    def slow_state():   # a save that takes 30 s
        clock[0] += 30
        return state

    # saved at 60 s, taking 30: the next is due 300 s after it ended (10 x 30), not 60
    for t, saves in [(59, 0), (60, 1), (119, 1), (150, 1), (389, 1), (390, 2)]:
        clock[0] = t
        steps.boundary(slow_state)
        assert saved.saves == saves, t


@pytest.mark.slow
def test_ctrl_c_in_a_real_process_checkpoints_and_the_same_command_resumes(tmp_path):
    d, whole = tmp_path / "t", tmp_path / "whole"
    board = parse_board_name("4x4", "b2,c3")
    build(board, whole)
    cmd = [sys.executable, "-m", "solver", "tables", "build", "4x4", "--blocks", "b2,c3", "--dir", str(d),
           "--jobs", "1", "--checkpoint-minutes", "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while not resume_path(d, board, 4).exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    last = err.splitlines()[-1]
    assert last.startswith("ataxx-solve tables: interrupted: ") and " checkpointed in " in last and out == ""
    assert last.endswith("): run the same command again to resume") and "Traceback" not in err
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and " resumed from its checkpoint: " in again.stdout, again.stderr
    assert sorted(p.name for p in d.iterdir()) == sorted(p.name for p in whole.iterdir())
    assert all((d / p.name).read_bytes() == p.read_bytes() for p in whole.iterdir())



def test_ctrl_c_says_at_once_what_it_will_do_and_a_second_one_stops_now(capfd, monkeypatch):
    """A step of a large tier can take minutes: the first Ctrl-C says the build stops at the end
    of the step; a second one stops the process at once (exit 130; 143 after a SIGTERM)."""
    def exits(code):
        raise SystemExit(code)

    monkeypatch.setattr(os, "_exit", exits)
    stop = []
    asked = build_stop_handler(stop, "tables/")
    asked(signal.SIGINT, None)
    assert stop == [signal.SIGINT]
    assert capfd.readouterr().err == ("\nataxx-solve tables: stopping at the end of this step, then saving the tier's "
                                      "state (a step of a large tier can take minutes); Ctrl-C again stops at once, "
                                      "keeping the tiers built and the last checkpoint\n")
    with pytest.raises(SystemExit, match="130"):
        asked(signal.SIGINT, None)
    assert capfd.readouterr().err == ("ataxx-solve tables: stopped at once; the finished tiers and the last checkpoint "
                                      "are in tables/: run the same command again to resume\n")
    terminated = build_stop_handler([], "tables/")
    terminated(signal.SIGTERM, None)
    with pytest.raises(SystemExit, match="143"):
        terminated(signal.SIGINT, None)
