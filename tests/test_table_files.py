"""Table files under attack (issue 18, items 2 and 3): a planted temporary name is never
written through; a damaged, truncated, missing, renamed or tampered file is one line and
status 2 in every command that reads tables, and batch reports it per position."""

import json
import os
import re
import shutil
import threading

import numpy as np
import pytest

from solver.tables import storage as tablefiles
from solver.game.board import Board
from solver.app.cli import main
from solver.common.files import current_umask
from solver.tables.probe import Tablebase
from solver.tables.build import build
from solver.tables.storage import DirectoryStore, TierFile, resume_path, tier_path, write_tier
from solver.tables.game import AtaxxGame
from solver.tables.index import TableError, dense_index
from solver.game.rules import CLASSIC
from solver.tiers.solver import TierSolver
from solver.tiers.resume import TierState


def test_write_tier_never_follows_a_symlink_planted_at_its_temporary_name(tmp_path):
    d = tmp_path / "tb"
    d.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    board = Board(2, 3)
    path = tier_path(d, board, 3)
    os.symlink(victim, path.with_name(path.name + ".partial"))
    codes = np.arange(dense_index(board).tier_size(3), dtype=np.uint16)
    write_tier(path, board, CLASSIC, 3, codes, dense_index(board).fingerprint)
    assert victim.read_text() == "precious\n"
    assert not path.is_symlink() and path.read_bytes().startswith(b"ATAXX-TABLE 1\n")
    assert sorted(p.name for p in d.iterdir()) == sorted([path.name + ".partial", path.name])  # no temporary left
    mask = os.umask(0)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask  # readable as a table written with open() was


def test_a_store_writing_behind_writes_the_same_files_and_says_a_failed_write_on_flush(tmp_path):
    board = Board(2, 3)
    index = dense_index(board)
    tiers = {t: (np.arange(index.tier_size(t)) * (t + 7) % 50000).astype(np.uint16) for t in range(4)}
    (tmp_path / "now").mkdir()
    (tmp_path / "behind").mkdir()
    now, behind = DirectoryStore(tmp_path / "now", board), DirectoryStore(tmp_path / "behind", board, write_behind=True)
    for t, codes in tiers.items():
        now.save(t, codes)
        behind.save(t, codes)
        assert np.array_equal(behind.load(t), codes)   # from memory while its file is written
    assert behind.has(3)                               # waits for the file being written
    behind.close()
    for t, codes in tiers.items():
        assert tier_path(tmp_path / "behind", board, t).read_bytes() == tier_path(tmp_path / "now", board, t).read_bytes()
        assert np.array_equal(TierFile(tier_path(tmp_path / "behind", board, t)).read_all(), codes)
    lost = DirectoryStore(tmp_path / "missing", board, write_behind=True)
    lost.save(0, tiers[0])                             # returns: the file is written on another thread
    with pytest.raises(FileNotFoundError):
        lost.close()                                   # the failure is raised when the write is waited for


def test_a_store_writing_behind_writes_a_large_tier_at_once(tmp_path, monkeypatch):
    board = Board(2, 3)
    small, large = dense_index(board).tier_size(3), dense_index(board).tier_size(2)
    assert small < large
    monkeypatch.setattr(tablefiles, "WRITE_BEHIND_MAX", large - 1)
    with pytest.raises(FileNotFoundError):   # raised by save itself: a large tier is written at once
        DirectoryStore(tmp_path / "missing", board, write_behind=True).save(2, np.zeros(large, np.uint16))
    store = DirectoryStore(tmp_path, board, write_behind=True)
    store.save(3, np.zeros(small, np.uint16))   # behind
    store.save(2, np.ones(large, np.uint16))    # waits for tier 3, then written at once
    assert tier_path(tmp_path, board, 3).exists() and tier_path(tmp_path, board, 2).exists()
    store.close()


BOARD = Board(2, 3)
IN_TIER_4 = "x2/2o x 0 1"          # 4 empty squares: its own code is in tier 4
ELSEWHERE = ["xxo/o2 x 0 1", "xo1/xo1 o 0 1"]  # tier 2: neither they nor their children need tier 4


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("tables") / "2x3"
    build(BOARD, d)
    return d


def damage(d, how):
    """A copy of the tables with tier 4 broken in one way."""
    f = tier_path(d, BOARD, 4)
    if how == "flipped byte":
        raw = bytearray(f.read_bytes())
        raw[-3] ^= 0xFF
        f.write_bytes(bytes(raw))
    elif how == "truncated":
        f.write_bytes(f.read_bytes()[:-20])
    elif how == "missing":
        f.unlink()


@pytest.fixture
def tables(built, tmp_path):
    d = tmp_path / "tb"
    shutil.copytree(built, d)
    return d


@pytest.mark.parametrize("how", ["flipped byte", "truncated"])
def test_a_damaged_tier_is_one_line_and_status_2(tables, tmp_path, capsys, how):
    damage(tables, how)
    why = "3-e04.atb: checksum mismatch"
    p = tmp_path / "p.txt"
    p.write_text(IN_TIER_4 + "\n")
    v = tmp_path / "v.txt"
    v.write_text("move: a1\n" + IN_TIER_4 + "\n")
    for argv in (["tables", "probe", "--dir", str(tables), str(p)], [str(p), "--tables", str(tables)],
                 ["verify", str(v), "--tables", str(tables)]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        lines = [x for x in err.splitlines() if not x.startswith("probed ")]
        assert len(lines) == 1 and why in lines[0] and "internal error" not in err, (argv, err)


def test_a_missing_tier_is_named_by_probe_and_solved_by_the_others(tables, tmp_path, capsys):
    """Tables that lack a tier do not hold its positions: ``tables probe`` says so in one line
    (status 2); a solve, verify and batch answer them with another solver (issue 21)."""
    damage(tables, "missing")
    p = tmp_path / "p.txt"
    p.write_text(IN_TIER_4 + "\n")
    assert main(["tables", "probe", "--dir", str(tables), str(p)]) == 2
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if not x.startswith("probed ")]
    assert len(lines) == 1 and "tier 4 of the 2x3 board is not in" in lines[0], err
    assert main([str(p), "--tables", str(tables), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["solver"] != "tables"
    q = tmp_path / "q.txt"
    q.write_text("\n\n".join([ELSEWHERE[0], IN_TIER_4, ELSEWHERE[1], "x..\n..o"]) + "\n")
    assert main(["batch", str(q), "--tables", str(tables), "--jobs", "1", "--no-cache"]) == 0
    recs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert all(r["ok"] for r in recs) and recs[1]["solver"] != "tables"


def test_batch_reports_a_damaged_tier_per_position_and_goes_on(tables, tmp_path, capsys):
    damage(tables, "flipped byte")
    p = tmp_path / "p.txt"
    p.write_text("\n\n".join([ELSEWHERE[0], IN_TIER_4, ELSEWHERE[1], "x..\n..o"]) + "\n")
    assert main(["batch", str(p), "--tables", str(tables), "--jobs", "1", "--no-cache"]) == 1
    out, err = capsys.readouterr()
    recs = [json.loads(x) for x in out.splitlines()]
    assert [r["ok"] for r in recs] == [True, False, True, False]
    why = "checksum mismatch"
    assert why in recs[1]["error"] and why in recs[3]["error"]
    assert "internal error" not in err and "4 positions, 2 solved, 2 failed" in err


def tamper(f, **fields):
    first, header, rest = f.read_bytes().split(b"\n", 2)
    h = json.loads(header)
    h.update(fields)
    f.write_bytes(first + b"\n" + json.dumps(h).encode() + b"\n" + rest)


@pytest.mark.parametrize("how", ["entries 10**18", "entries 1000", "blocks of 0", "renamed", "short offsets"])
def test_a_tampered_or_renamed_file_is_refused_when_the_tables_are_opened(tables, capsys, how):
    f = tier_path(tables, BOARD, 4)
    if how == "entries 10**18":
        tamper(f, entries=10**18)
        why = "a damaged header (tier 4, 1000000000000000000 entries"
    elif how == "entries 1000":
        tamper(f, entries=1000)
        why = "a damaged header (1,000 entries; tier 4 of 2x3 has 20)"
    elif how == "blocks of 0":
        tamper(f, block_entries=0)
        why = "blocks of 0"
    elif how == "renamed":
        f.replace(tier_path(tables, BOARD, 3))
        f = tier_path(tables, BOARD, 3)
        why = "holds tier 4 of 2x3, which is named 2x3-e04.atb (a renamed file)"
    else:
        first, header, _ = f.read_bytes().split(b"\n", 2)
        f.write_bytes(first + b"\n" + header + b"\n" + b"\0" * 4)
        why = "truncated ("
    with pytest.raises(TableError, match=re.escape(why)) as info:
        Tablebase(tables)
    assert str(info.value).startswith(f"{f}: ") and why in str(info.value)
    with pytest.raises(SystemExit, match="^2$"):
        main(["tables", "info", "--dir", str(tables)])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and why in err


def test_the_child_tier_is_let_go_after_the_scan(tmp_path):
    """The store keeps the last tier saved (the next tier's child) in memory; once the next
    tier is scanned against it, it is let go (5 x 5 tier 4: 3 GB of tier 3 not held through
    the resolution), and the tier solved is what a build writes."""
    board = Board(3, 3)
    store = DirectoryStore(tmp_path, board)
    solver = TierSolver(AtaxxGame(board), store)
    solver.solve([0, 1, 2])
    assert list(store._cache) == [2]
    codes, _ = solver.solve_tier(3)
    assert store._cache == {}
    build(board, tmp_path / "whole")
    assert codes.tobytes() == DirectoryStore(tmp_path / "whole", board).load(3).tobytes()


@pytest.mark.slow  # 5.5 s of CPU: the quick suite's 3 minutes (README)
def test_the_umask_read_on_several_threads_at_once_is_never_zero():
    """Tier files are written behind on a thread while checkpoints are saved on another; each
    reads the umask (by setting it to 0 and back): read unlocked, one could see the other's 0
    and leave a file of mode 0666."""
    old = os.umask(0o027)
    try:
        seen: set[int] = set()

        def read() -> None:
            seen.update(current_umask() for _ in range(20_000))

        threads = [threading.Thread(target=read) for _ in range(3)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert seen == {0o027}
    finally:
        os.umask(old)


def test_a_checkpoint_discarded_while_its_tier_is_written_behind_goes_once_the_file_is_written(tmp_path, monkeypatch):
    board = Board(2, 3)
    codes = np.zeros(dense_index(board).tier_size(2), np.uint16)
    state = TierState(2, codes.shape[0], 0, codes.copy(), np.zeros(codes.shape[0], np.uint8), np.zeros(0, np.int64),
                      np.zeros(0, np.int64), 0, 0)
    release = threading.Event()
    write = tablefiles.write_tier
    monkeypatch.setattr(tablefiles, "write_tier", lambda *a: release.wait(10) and write(*a))
    store = DirectoryStore(tmp_path, board, write_behind=True)
    cps = store.checkpoints()
    cps.save(state)
    store.save(2, codes)       # behind, held until released
    cps.discard(2)             # (the solver's, as save returns)
    assert resume_path(tmp_path, board, 2).exists() and not tier_path(tmp_path, board, 2).exists()
    release.set()
    store.flush()
    assert tier_path(tmp_path, board, 2).exists() and not resume_path(tmp_path, board, 2).exists()
    # a write that fails keeps the checkpoint
    cps.save(state)
    monkeypatch.setattr(tablefiles, "write_tier", lambda *a: (_ for _ in ()).throw(OSError(28, "No space left")))
    store.save(2, codes)
    cps.discard(2)
    with pytest.raises(OSError):
        store.close()
    assert resume_path(tmp_path, board, 2).exists()


def test_a_tier_that_cannot_be_written_is_one_line_naming_its_file(tmp_path, capsys, monkeypatch):
    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    assert main(["tables", "build", "2x3", "--dir", str(tmp_path), "--jobs", "1"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == f"ataxx-solve: cannot write {tier_path(tmp_path, Board(2, 3), 0)}: No space left on device"
    assert "Traceback" not in "\n".join(err) and not list(tmp_path.glob("*.atb"))
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
