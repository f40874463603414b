"""Table files under attack (issue 18, items 2 and 3): a planted temporary name is never
written through; a damaged, truncated, missing, renamed or tampered file is one line and
status 2 in every command that reads tables, and batch reports it per position."""

import json
import os

import numpy as np
import pytest

from solver.board import Board
from solver.cli import main
from solver.tablebase import build, dense_index, tier_path, write_tier
from solver.rules import CLASSIC


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
