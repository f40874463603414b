"""Tablebases: every position of a board solved once, stored one file per tier, probed at once.

- :class:`DenseIndex` numbers every position of a board (every arrangement of the
  mover's pieces, the other side's and empty squares on the playable squares), up to
  the board's symmetries; colour inversion is folded in by reading pieces from the
  mover's side. How: :mod:`solver.engine.dense`.
- :class:`AtaxxGame` is Ataxx as a game of the tier solver (:mod:`solver.tiersolver`):
  tier = number of empty squares (a clone goes to the tier below, a jump or a pass
  stays), moves and un-moves from the compiled kernels.
- :func:`build` solves a board into a directory: one file per tier, written when the
  tier is done, so an interrupted build resumes at the first tier missing.
- :class:`Tablebase` opens a directory (python-chess's Syzygy module is the model):
  ``probe(position)`` raises :class:`MissingTableError` when the tables do not cover
  the position, ``get(position, default)`` returns the default instead.
- :class:`TableOracle` answers the analysis (``solve``, ``batch``, ``verify``) from them.
- :func:`compare_with_retro` and :func:`compare_with_search` check a directory's tables
  against the engines (``ataxx-solve tables compare``).

What a table stores: per position two bytes, the value (the mover's margin) and the
depth (plies to the end along preferred moves, SPEC section 4, or "infinite" for a
draw by infinite play). The depth is what lets best moves and principal variations be
read from the tables: the preferred move is the optimal one of least depth when
winning and greatest otherwise, so following it never enters a cycle where the winner
was due more. A value-only table would take one byte (a third less on disk after
compression); see the README for the measured sizes.

File format (version :data:`FORMAT_VERSION`): a first line ``ATAXX-TABLE <version>``,
a JSON header line (board, rules, format, tier, entries, index fingerprint,
encoding, block size, compression, checksum), then the offsets of the compressed
blocks (uint64, little-endian) and the blocks: each ``BLOCK_ENTRIES`` uint16 codes
(little-endian) compressed with zlib. The checksum is the CRC-32 of everything after
the header line.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import math
import os
import random
import re
import tempfile
import time
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from math import comb
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from . import engine
from .bitboards import build_tables, mover_bits
from .board import Board
from .oracle import Oracle
from .retro import RetroOracle
from .rules import CLASSIC, O, PASS, Move, Position, Rules, X
from .search import SearchOracle
from .cluster import DaskExecutor, cluster_for
from .tiersolver import DEFAULT_CHUNK, CheckReport, LocalExecutor, TierSolver, verify


LOGGER = logging.getLogger(__name__)

FORMAT_VERSION = 1
MAGIC = b"ATAXX-TABLE"
BLOCK_ENTRIES = 1 << 16
MAX_S = 8           # squares in the symmetry-reduced part of the index
SUFFIX = ".atb"
NOT_FINAL_CODE = 1000  # the kernels' NOT_FINAL


class TableError(ValueError):
    """A table file or directory that cannot be used (says which and why)."""


class MissingTableError(KeyError):
    """No table covers the position (another board, rules, or a tier not built)."""

    def __str__(self):
        return str(self.args[0]) if self.args else "no table"


# -- the index -------------------------------------------------------------------------------------

def _orbits(board: Board) -> list[list[int]]:
    seen, out = set(), []
    for sq in range(board.size):
        if board.is_block(sq) or sq in seen:
            continue
        orbit = sorted({perm[sq] for perm in board.symmetries})
        seen.update(orbit)
        out.append(orbit)
    return out


def _byte_tables(squares: list[int], nbytes: int) -> np.ndarray:
    """t[b, v]: the local bits (positions in ``squares``) of board byte b with value v."""
    where = {sq: i for i, sq in enumerate(squares)}
    t = np.zeros((max(1, nbytes), 256), np.uint64)
    for b in range(nbytes):
        for v in range(256):
            word = 0
            for k in range(8):
                if v >> k & 1 and 8 * b + k in where:
                    word |= 1 << where[8 * b + k]
            t[b, v] = word
    return t


@functools.cache
def _byte_pext_pdep() -> np.ndarray:
    """pext and pdep of a byte under a byte mask (rows 0 and 1, index mask * 256 + byte): the
    same for every board, so made once per process."""
    bits8 = np.zeros((2, 65536), np.uint8)
    for mb in range(256):
        sqs = [i for i in range(8) if mb >> i & 1]
        for v in range(256):
            bits8[0, mb * 256 + v] = sum(1 << j for j, i in enumerate(sqs) if v >> i & 1)
            bits8[1, mb * 256 + v] = sum(1 << i for j, i in enumerate(sqs) if v >> j & 1)
    return bits8


class DenseIndex:
    """The perfect index of a board's positions (see :mod:`solver.engine.dense`)."""

    def __init__(self, board: Board):

        n = board.playable.bit_count()
        if n > 31:
            raise TableError(f"a {board.rows} x {board.cols} board has {n} playable squares; tables hold at most 31")
        self.board = board
        self.tables = build_tables(board, CLASSIC)
        S: list[int] = []
        for orbit in _orbits(board):
            if len(S) + len(orbit) <= MAX_S:
                S += orbit
        R = [sq for sq in range(board.size) if not board.is_block(sq) and sq not in S]
        self.S, self.R, self.n = S, R, n
        s, r = len(S), len(R)
        nbytes = (board.size + 7) // 8
        rbytes = max(1, (r + 7) // 8)
        sbyte = _byte_tables(S, nbytes)
        rbyte = np.concatenate([_byte_tables([perm.index(sq) for sq in R], nbytes) for perm in board.symmetries])
        rexp = np.zeros((rbytes, 256), np.uint64)
        for b in range(rbytes):
            for v in range(256):
                word = 0
                for k in range(8):
                    if v >> k & 1 and 8 * b + k < r:
                        word |= 1 << R[8 * b + k]
                rexp[b, v] = word
        tern = np.zeros(256, np.int64)
        for v in range(256):
            tern[v] = sum(3 ** i for i in range(8) if v >> i & 1)
        # classes of arrangements of S: the least code among the images under the symmetries
        pos = {sq: i for i, sq in enumerate(S)}
        maps = [[pos[perm[sq]] for sq in S] for perm in board.symmetries]
        ncode = 3 ** s
        digits = np.zeros((ncode, s), np.int64)
        for i in range(s):
            digits[:, i] = (np.arange(ncode) // 3 ** i) % 3
        images = np.zeros((len(maps), ncode), np.int64)
        for g, mp in enumerate(maps):
            for i in range(s):
                images[g] += digits[:, i] * 3 ** mp[i]
        rep = images.min(axis=0)
        symmask = np.zeros(ncode, np.int64)
        for g in range(len(maps)):
            symmask |= (images[g] == rep).astype(np.int64) << g
        # classes numbered by (empty squares in S, least code): a tier's classes come in groups
        codes = np.unique(rep)
        es = (digits[codes] == 0).sum(axis=1)
        order = np.lexsort((codes, es))
        class_code = codes[order]
        class_es = es[order]
        nclass = class_code.shape[0]
        class_of = np.zeros(ncode, np.int64)
        class_of[class_code] = np.arange(nclass)
        class_of = class_of[rep]
        cstart = np.searchsorted(class_es, np.arange(s + 2)).astype(np.int64)
        cd = digits[class_code]
        class_m = np.zeros(nclass, np.uint64)
        class_t = np.zeros(nclass, np.uint64)
        for i in range(s):
            class_m |= np.where(cd[:, i] == 1, np.uint64(1 << S[i]), np.uint64(0))
            class_t |= np.where(cd[:, i] == 2, np.uint64(1 << S[i]), np.uint64(0))
        # R parts: the empty set's rank among the sets of its size (colex), by tables
        masks = np.arange(1 << r, dtype=np.int64)
        pop = np.zeros(1 << r, np.int64)
        for i in range(r):
            pop += (masks >> i) & 1
        combs = np.zeros(r + 2, np.int64)
        combs[1:] = np.cumsum([comb(r, j) for j in range(r + 1)])
        unrank = masks[np.lexsort((masks, pop))].astype(np.uint64)  # colex = numeric order
        rank = np.zeros(1 << r, np.int64)
        rank[unrank.astype(np.int64)] = np.arange(1 << r) - combs[pop[unrank.astype(np.int64)]]
        offset = np.zeros((n + 1, nclass + 1), np.int64)
        group = np.zeros((n + 1, s + 2), np.int64)
        for e in range(n + 1):
            for c in range(nclass):
                er = e - int(class_es[c])
                size = comb(r, er) << (r - er) if 0 <= er <= r else 0
                offset[e, c + 1] = offset[e, c] + size
            group[e] = offset[e, cstart]
        bits8 = _byte_pext_pdep()
        meta = np.array([nbytes, r, nclass, rbytes], np.int64)
        self.offset = offset
        self.arrays = (np.uint64(board.playable), sbyte, rbyte, rexp, tern, class_of, symmask, class_m, class_t,
                       class_code, offset, rank, unrank, combs, group, cstart, bits8, self.tables.canon[0], meta)

    def tier_size(self, e: int) -> int:
        return int(self.offset[e, -1])

    @property
    def size(self) -> int:
        return int(self.offset[:, -1].sum())

    @cached_property
    def fingerprint(self) -> str:
        """Identifies the numbering: tables with another fingerprint cannot be read with this index."""
        h = hashlib.sha256(json.dumps({"S": self.S, "R": self.R, "n": self.n}).encode())
        h.update(self.offset.tobytes())
        return h.hexdigest()[:16]

    def number(self, position: Position) -> tuple[int, int]:
        """(tier, number) of a position."""

        m, t = mover_bits(position)
        e, i = engine.dense.index_of(np.uint64(m), np.uint64(t), self.arrays)
        return int(e), int(i)

    def numbers(self, mine: np.ndarray, theirs: np.ndarray):
        """(tiers, numbers) of many positions given as the mover's and the other side's pieces."""

        return engine.dense.probe_numbers(mine.astype(np.uint64), theirs.astype(np.uint64), self.arrays)

    def position(self, e: int, i: int) -> tuple[int, int, bool]:
        """(mover's pieces, other pieces, canonical) of number i of tier e."""

        m, t, sure = engine.dense.position_of(e, i, self.arrays)
        return int(m), int(t), bool(sure or engine.dense.is_canonical(e, i, np.uint64(m), np.uint64(t), self.arrays))


# -- Ataxx as a game of the tier solver ------------------------------------------------------------

_INDEXES: dict = {}


def dense_index(board: Board) -> DenseIndex:
    """The index of a board, built once per process."""
    key = (board.rows, board.cols, board.blocks)
    if key not in _INDEXES:
        _INDEXES[key] = DenseIndex(board)
    return _INDEXES[key]


class AtaxxGame:
    """Ataxx under the classic rules, for :class:`solver.tiersolver.TierSolver`.

    Tier e holds the positions with e empty squares; tiers are solved from 0 (full
    boards) up. A game object pickles as its board, so a cluster can ship it."""

    def __init__(self, board: Board):
        self.board = board

    def __getstate__(self):
        return {"board": (self.board.rows, self.board.cols, self.board.blocks)}

    def __setstate__(self, state):
        self.board = Board(*state["board"])

    @property
    def index(self) -> DenseIndex:
        return dense_index(self.board)

    # REQUIRED
    def tiers(self) -> list[int]:
        return list(range(self.index.n + 1))

    def tier_size(self, tier: int) -> int:
        return self.index.tier_size(tier)

    def child_tiers(self, tier: int) -> list[int]:
        return [tier - 1] if tier > 0 else []

    def children(self, tier: int, lo: int, hi: int):

        T = self.index.tables
        return engine.dense.tier_children(tier, lo, hi, self.index.arrays, T.adj, T.jmp, T.reach, T.rules)

    # OPTIONAL
    def outside_children(self, tier: int, lo: int, hi: int):

        T = self.index.tables
        return engine.dense.tier_scan(tier, lo, hi, self.index.arrays, T.adj, T.jmp, T.reach, T.rules)

    def parents(self, tier: int, numbers: np.ndarray):

        T = self.index.tables
        return engine.dense.tier_parents(tier, np.asarray(numbers, np.int64), self.index.arrays, T.adj, T.jmp, T.reach, T.rules)


# -- files -----------------------------------------------------------------------------------------

def board_name(board: Board) -> str:
    """``4x5``, or with blocks ``4x4-b2c2b3c3`` (the blocked squares)."""
    name = f"{board.rows}x{board.cols}"
    if board.blocks:
        name += "-" + "".join(board.square_name(sq) for sq in range(board.size) if board.is_block(sq))
    return name


def parse_board_name(text: str, blocks: str | None = None) -> Board:
    """A board from ``ROWSxCOLS`` and optional blocks (square names separated by commas)."""

    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m:
        raise ValueError(f"{text!r} is not a board size (write ROWSxCOLS, e.g. 4x5)")
    board = Board(int(m.group(1)), int(m.group(2)))
    mask = 0
    for name in (blocks or "").replace(" ", "").split(","):
        if name:
            mask |= 1 << board.parse_square(name)
    return Board(board.rows, board.cols, mask) if mask else board


def tier_path(directory: Path, board: Board, tier: int) -> Path:
    return Path(directory) / f"{board_name(board)}-e{tier:02d}{SUFFIX}"


def _header(board: Board, rules: Rules, tier: int, entries: int, fingerprint: str) -> dict:
    return {"format": FORMAT_VERSION, "board": {"rows": board.rows, "cols": board.cols,
                                                "blocks": [board.square_name(sq) for sq in range(board.size)
                                                           if board.is_block(sq)]},
            "rules": rules.name, "tier": tier, "entries": entries, "index": fingerprint,
            "encoding": "uint16 (value + 32) << 10 | depth; depth 1023 infinite; 0 no position",
            "block_entries": BLOCK_ENTRIES, "compression": "zlib"}


def write_tier(path: Path, board: Board, rules: Rules, tier: int, codes: np.ndarray, fingerprint: str) -> int:
    """Write one tier file (through a temporary file, so a file is either whole or absent).
    Returns its size in bytes."""
    codes = np.ascontiguousarray(codes, dtype="<u2")
    blocks = [zlib.compress(codes[i:i + BLOCK_ENTRIES].tobytes(), 6) for i in range(0, codes.shape[0], BLOCK_ENTRIES)]
    offsets = np.zeros(len(blocks) + 1, "<u8")
    offsets[1:] = np.cumsum([len(b) for b in blocks])
    crc = zlib.crc32(offsets.tobytes())
    for b in blocks:
        crc = zlib.crc32(b, crc)
    head = _header(board, rules, tier, int(codes.shape[0]), fingerprint)
    head["checksum"] = f"crc32:{crc:08x}"
    # The temporary file is created exclusively (mkstemp: O_EXCL, a random name), so a name
    # planted beside the table, a symlink included, is never opened or written through.
    mask = os.umask(0)
    os.umask(mask)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC + f" {FORMAT_VERSION}\n".encode())
            fh.write(json.dumps(head).encode() + b"\n")
            fh.write(offsets.tobytes())
            for b in blocks:
                fh.write(b)
            fh.flush()
            os.fchmod(fh.fileno(), 0o666 & ~mask)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path.stat().st_size


class TierFile:
    """One tier file, opened: its header checked, its blocks read on demand."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            fh = open(self.path, "rb")
        except OSError as exc:
            raise TableError(f"{self.path}: cannot open: {exc.strerror}") from None
        with fh:
            first = fh.readline()
            if not first.startswith(MAGIC):
                raise TableError(f"{self.path}: not an Ataxx table file")
            try:
                version = int(first[len(MAGIC):].strip())
            except ValueError:
                raise TableError(f"{self.path}: unreadable format line") from None
            if version != FORMAT_VERSION:
                raise TableError(f"{self.path}: table format {version}, this program reads format {FORMAT_VERSION}")
            try:
                self.header = json.loads(fh.readline())
            except ValueError:
                raise TableError(f"{self.path}: unreadable header") from None
            self.data_start = fh.tell()
        h = self.header
        try:
            b = h["board"]
            self.entries = int(h["entries"])
            self.tier = int(h["tier"])
            self.block_entries = int(h["block_entries"])
            self.rules = h["rules"]
            self.fingerprint = h["index"]
            self.checksum = h["checksum"]
            board = Board(int(b["rows"]), int(b["cols"]))
            mask = 0
            for name in b["blocks"]:
                mask |= 1 << board.parse_square(name)
            self.board = Board(board.rows, board.cols, mask) if mask else board
        except (KeyError, TypeError, ValueError) as exc:
            raise TableError(f"{self.path}: header lacks or garbles {exc}") from None
        # A header is not covered by the checksum: its numbers are checked against what the
        # file can hold before anything is sized by them (entries: 10**18 is a damaged header).
        if not 0 <= self.tier <= 31 or not 0 <= self.entries < 1 << 40 or not 1 <= self.block_entries <= 1 << 24:
            raise TableError(f"{self.path}: a damaged header (tier {self.tier}, {self.entries} entries, "
                             f"blocks of {self.block_entries})")
        self.nblocks = -(-self.entries // self.block_entries)
        self._offsets: np.ndarray | None = None
        try:
            size = os.path.getsize(self.path)
        except OSError as exc:
            raise TableError(f"{self.path}: cannot open: {exc.strerror}") from None
        if size < self.data_start + 8 * (self.nblocks + 1):
            raise TableError(f"{self.path}: truncated ({size} bytes; the header promises {self.nblocks} blocks)")

    def _read_offsets(self, fh) -> np.ndarray:
        if self._offsets is None:
            fh.seek(self.data_start)
            raw = fh.read(8 * (self.nblocks + 1))
            offsets = np.frombuffer(raw[:len(raw) // 8 * 8], "<u8").astype(np.int64)
            if offsets.shape[0] != self.nblocks + 1 or offsets[0] != 0 or np.any(np.diff(offsets) < 0):
                raise TableError(f"{self.path}: damaged block offsets (a damaged file: delete it to rebuild that tier)")
            self._offsets = offsets
        assert self._offsets is not None
        return self._offsets

    def verify_checksum(self) -> bool:
        crc = 0
        with open(self.path, "rb") as fh:
            fh.seek(self.data_start)
            while True:
                chunk = fh.read(1 << 24)
                if not chunk:
                    break
                crc = zlib.crc32(chunk, crc)
        return self.checksum == f"crc32:{crc:08x}"

    def read_blocks(self, which) -> dict:
        """Decompressed blocks by number."""
        out = {}
        with open(self.path, "rb") as fh:
            offsets = self._read_offsets(fh)
            base = self.data_start + 8 * (self.nblocks + 1)
            for k in which:
                fh.seek(base + offsets[k])
                want = min(self.block_entries, self.entries - k * self.block_entries)
                try:
                    raw = zlib.decompress(fh.read(int(offsets[k + 1] - offsets[k])))
                except zlib.error:
                    raw = b""
                if len(raw) != 2 * want:
                    raise TableError(f"{self.path}: block {k} is damaged (a damaged file: delete it to rebuild that tier)")
                out[k] = np.frombuffer(raw, "<u2")
        return out

    def read_all(self) -> np.ndarray:
        out = np.empty(self.entries, np.uint16)
        for k, block in self.read_blocks(range(self.nblocks)).items():
            out[k * self.block_entries: k * self.block_entries + block.shape[0]] = block
        return out


class DirectoryStore:
    """The tier solver's store for one board in a directory of table files."""

    def __init__(self, directory: Path, board: Board, rules: Rules = CLASSIC):
        self.directory = Path(directory)
        self.board = board
        self.rules = rules
        self.index = dense_index(board)
        self._cache: dict[int, np.ndarray] = {}

    def path(self, tier: int) -> Path:
        return tier_path(self.directory, self.board, tier)

    def _open(self, tier: int) -> TierFile:
        f = TierFile(self.path(tier))
        check_compatible(f, self.board, self.rules, self.index.fingerprint)
        return f

    def has(self, tier: int) -> bool:
        if not self.path(tier).exists():
            return False
        f = self._open(tier)
        if f.entries != self.index.tier_size(tier) or f.tier != tier:
            raise TableError(f"{f.path}: holds {f.entries:,} entries of tier {f.tier}, not tier {tier}")
        if not f.verify_checksum():
            raise TableError(f"{f.path}: checksum mismatch (a damaged file: delete it to rebuild that tier)")
        return True

    def load(self, tier: int) -> np.ndarray:
        if tier not in self._cache:
            self._cache = {tier: self._open(tier).read_all()}  # keep one tier: the child of the next
        return self._cache[tier]

    def save(self, tier: int, codes: np.ndarray) -> None:
        write_tier(self.path(tier), self.board, self.rules, tier, codes, self.index.fingerprint)
        self._cache = {tier: codes}


def check_compatible(f: TierFile, board: Board, rules: Rules, fingerprint: str) -> None:
    if f.board != board:
        raise TableError(f"{f.path}: a table of the {board_name(f.board)} board, not {board_name(board)}")
    if f.rules != rules.name:
        raise TableError(f"{f.path}: a table for the {f.rules} rules, not {rules.name}")
    if f.fingerprint != fingerprint:
        raise TableError(f"{f.path}: numbered by another index ({f.fingerprint}, expected {fingerprint})")


# -- building --------------------------------------------------------------------------------------

@dataclass
class BuildReport:
    board: Board
    tiers_built: list
    tiers_skipped: list
    positions: int
    entries: int
    seconds: float
    bytes_on_disk: int


def build(board: Board, directory, executor=None, progress=None, should_stop=None,
          chunk_size: int | None = None, tiers: list[int] | None = None) -> BuildReport:
    """Solve every position of ``board`` (classic rules) into ``directory``, or those of
    ``tiers`` (numbers of empty squares, from 0: a tier needs the one below it, built now or
    there already), resuming after the tiers already there. Refuses a directory whose files for
    this board were not written by a compatible build (another format or numbering)."""

    directory = Path(directory)
    game = AtaxxGame(board)
    tiers = game.tiers() if tiers is None else sorted(tiers)
    store = DirectoryStore(directory, board)
    lacking = [t - 1 for t in tiers if t > 0 and t - 1 not in tiers and not store.has(t - 1)]
    if lacking:
        raise TableError(f"{directory} lacks tier {lacking[0]} of {board_name(board)}, which tier {lacking[0] + 1} "
                         f"is solved from: build it too")
    directory.mkdir(parents=True, exist_ok=True)
    solver = TierSolver(game, store, executor=executor, chunk_size=chunk_size or DEFAULT_CHUNK,
                        progress=progress, should_stop=should_stop)
    report = solver.solve(tiers)
    disk = sum(store.path(t).stat().st_size for t in tiers)
    return BuildReport(board, [t.tier for t in report.tiers], report.skipped, report.positions, store.index.size,
                       report.seconds, disk)


# -- what a build needs ----------------------------------------------------------------------------

# Measured (README, "Tablebases"): a tier's working set takes 3 bytes per number (the codes and
# a one-byte counter) and, with the events, fronts and un-moves of a step, peaked at 4.5 bytes a
# number on tier 4 of 4 x 5 (82.6 million numbers), beside its child tier's codes (2 bytes a
# number); the process itself (Python, numba, the index) about 300 MiB (a 4 x 4 build peaks at
# 244 to 262 MiB); on disk 0.26 bytes per entry (4 x 4; 0.18 on 4 x 5); CPU per number 1.06 us on
# 4 x 4 (one thread), 2.0 us on the large tiers of 4 x 5, and about 2.7 us expected on 5 x 5
# (1.4 times the moves of 4 x 5; tier 1 of 5 x 5 took 0.98 us a number).
WORKING_BYTES = 5
BASE_BYTES = 300 << 20
DISK_BYTES_PER_ENTRY = 0.26


def cpu_per_number(entries: int) -> float:
    """Seconds of CPU per number of a board with ``entries`` numbers in all (the measured rates)."""
    return 1.06e-6 if entries <= 10 ** 8 else 2.0e-6 if entries <= 10 ** 10 else 2.7e-6


@dataclass
class BuildPlan:
    """What building ``board`` into a directory needs: the tiers still to build, their entries,
    the memory of the largest step (``worst_tier``), the disk and the CPU seconds (from
    :data:`WORKING_BYTES`, :data:`DISK_BYTES_PER_ENTRY` and :func:`cpu_per_number`)."""

    board: Board
    tiers: list[int]
    entries: int
    memory: int
    worst_tier: int | None
    disk: int
    cpu_seconds: float

    def describe(self) -> str:
        if not self.tiers:
            return f"{board_name(self.board)}: every tier is already built"
        return (f"{board_name(self.board)}: {len(self.tiers)} tiers to build, {self.entries:,} entries; needs about "
                f"{bytes_text(self.memory)} of memory (tier {self.worst_tier}), {bytes_text(self.disk)} of disk and "
                f"{seconds_text(self.cpu_seconds)} of CPU ({self.cpu_seconds / self.entries * 1e6:.2f} us a number)")


def bytes_text(n: float) -> str:
    """``1.5 GiB``, ``12.0 MiB``, ``512 bytes``."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{int(n)} bytes"


def seconds_text(t: float) -> str:
    """``92.4 hours``, ``3.5 minutes``, ``0.2 s``."""
    return f"{t / 3600:,.1f} hours" if t >= 3600 else f"{t / 60:.1f} minutes" if t >= 60 else f"{t:.1f} s"


def plan_build(board: Board, directory: str | Path, tiers: list[int] | None = None) -> BuildPlan:
    """What :func:`build` of ``board`` (or of its ``tiers``) into ``directory`` will need (the
    tiers whose files are there are not built again). Reads nothing but the names of the files."""
    index = dense_index(board)
    tiers = [t for t in (range(index.n + 1) if tiers is None else sorted(tiers))
             if not tier_path(Path(directory), board, t).exists()]
    entries = sum(index.tier_size(t) for t in tiers)
    need = {t: BASE_BYTES + WORKING_BYTES * index.tier_size(t) + (2 * index.tier_size(t - 1) if t else 0)
            for t in tiers}
    worst = max(need, key=lambda t: need[t]) if need else None
    return BuildPlan(board, tiers, entries, need[worst] if worst is not None else 0, worst,
                     int(entries * DISK_BYTES_PER_ENTRY), entries * cpu_per_number(index.size))


# -- probing ---------------------------------------------------------------------------------------

def decode(code: int) -> tuple[int, float]:
    """(value for the side to move, depth or math.inf) of a stored code."""

    d = code & engine.tier_kernels.DEPTH_INF
    return (code >> engine.tier_kernels.DEPTH_BITS) - engine.tier_kernels.VALUE_BIAS, (math.inf if d == engine.tier_kernels.DEPTH_INF else d)


class Tablebase:
    """The tables of a directory, by board (python-chess's ``open_tablebase`` is the model).

    ``probe(p)`` -> (value for the side to move, depth or math.inf), raising
    :class:`MissingTableError` when no table covers p; ``get(p, default)`` returns the
    default instead. Every file's header is checked when the directory is opened; a tier's
    checksum is checked when it is first read."""

    def __init__(self, directory, cache_bytes: int = 1 << 30):
        self.directory = Path(directory)
        if not self.directory.is_dir():
            raise TableError(f"{self.directory}: no such directory")
        self.files: dict[tuple, TierFile] = {}   # (rows, cols, blocks, tier) -> file
        self.boards: dict[tuple, Board] = {}
        for path in sorted(self.directory.glob(f"*{SUFFIX}")):
            f = TierFile(path)
            if f.rules != CLASSIC.name:
                raise TableError(f"{path}: a table for the {f.rules} rules; only classic tables exist")
            key = (f.board.rows, f.board.cols, f.board.blocks)
            ix = dense_index(f.board)
            if f.fingerprint != ix.fingerprint:
                raise TableError(f"{path}: numbered by another index ({f.fingerprint}, expected {ix.fingerprint})")
            if f.tier > ix.n or f.entries != ix.tier_size(f.tier):
                raise TableError(f"{path}: a damaged header ({f.entries:,} entries; tier {f.tier} of "
                                 f"{board_name(f.board)} has {ix.tier_size(f.tier) if f.tier <= ix.n else 0:,})")
            if path.name != tier_path(self.directory, f.board, f.tier).name:
                raise TableError(f"{path}: holds tier {f.tier} of {board_name(f.board)}, which is named "
                                 f"{tier_path(self.directory, f.board, f.tier).name} (a renamed file)")
            self.files[key + (f.tier,)] = f
            self.boards[key] = f.board
        if not self.files:
            raise TableError(f"{self.directory}: no table files (*{SUFFIX})")
        self.cache_bytes = cache_bytes
        self._blocks: OrderedDict = OrderedDict()  # (file key, block) -> codes
        self._whole: dict = {}                      # file key -> codes of the whole tier
        self._verified: set = set()
        self.probes = 0

    def describe_boards(self) -> str:
        return ", ".join(sorted(board_name(b) for b in self.boards.values()))

    def _table_board(self, board: Board):
        """(the board whose tables answer for ``board``, the square map into it or None): the
        board itself, or its transpose (a 5 x 4 board is a 4 x 5 board turned a quarter, and a
        reflection in the diagonal keeps every distance)."""
        if (board.rows, board.cols, board.blocks) in self.boards:
            return self.boards[(board.rows, board.cols, board.blocks)], None
        perm = tuple((sq % board.cols) * board.rows + sq // board.cols for sq in range(board.size))
        blocks = Board.map_mask(perm, board.blocks)
        if (board.cols, board.rows, blocks) in self.boards:
            return self.boards[(board.cols, board.rows, blocks)], perm
        return None, None

    def covers(self, board: Board, rules: Rules = CLASSIC) -> bool:
        return rules.name == CLASSIC.name and self._table_board(board)[0] is not None

    def tiers_held(self, board: Board) -> int:
        """How many tiers of ``board`` from tier 0 up the directory holds without a gap: a position
        with fewer empty squares is answered, and every position its game leads to (0 for a
        board it does not hold)."""
        table_board = self._table_board(board)[0]
        if table_board is None:
            return 0
        key = (table_board.rows, table_board.cols, table_board.blocks)
        held = 0
        while key + (held,) in self.files:
            held += 1
        return held

    def answers_for(self, position: Position) -> bool:
        """Whether the tables answer ``position`` (its board, the classic rules, the tiers up to its
        number of empty squares): ``--tables`` answers those and solves the rest as usual."""
        return (position.rules.name == CLASSIC.name
                and (position.board.playable & ~(position.x | position.o)).bit_count() < self.tiers_held(position.board))

    def require(self, board: Board, rules: Rules = CLASSIC) -> None:
        """Raise :class:`MissingTableError` unless the tables cover this board and rules."""
        if rules.name != CLASSIC.name:
            raise MissingTableError(f"tables hold the classic rules only, not {rules.name}")
        if not self.covers(board, rules):
            raise MissingTableError(f"no table for the {board_name(board)} board in {self.directory} "
                                    f"(it has: {self.describe_boards()})")

    def _file(self, board: Board, tier: int) -> TierFile:
        key = (board.rows, board.cols, board.blocks, tier)
        f = self.files.get(key)
        if f is None:
            raise MissingTableError(f"tier {tier} of the {board_name(board)} board is not in {self.directory}")
        if key not in self._verified:
            if not f.verify_checksum():
                raise TableError(f"{f.path}: checksum mismatch (a damaged file)")
            self._verified.add(key)
        return f

    def _codes(self, board: Board, tier: int, numbers: np.ndarray) -> np.ndarray:
        f = self._file(board, tier)
        key = (board.rows, board.cols, board.blocks, tier)
        if key in self._whole:
            return self._whole[key][numbers]
        blocks = np.unique(numbers // f.block_entries)
        if blocks.shape[0] * 8 > f.nblocks:  # much of the tier is wanted: read it whole, keep a few
            codes = f.read_all()
            while self._whole and sum(c.nbytes for c in self._whole.values()) + codes.nbytes > self.cache_bytes:
                self._whole.pop(next(iter(self._whole)))
            if codes.nbytes <= self.cache_bytes:
                self._whole[key] = codes
            return codes[numbers]
        missing = [int(b) for b in blocks if (key, int(b)) not in self._blocks]
        for b, data in f.read_blocks(missing).items():
            self._blocks[(key, b)] = data
        out = np.empty(numbers.shape[0], np.uint16)
        for b in blocks:
            b = int(b)
            data = self._blocks[(key, b)]
            self._blocks.move_to_end((key, b))
            sel = numbers // f.block_entries == b
            out[sel] = data[numbers[sel] - b * f.block_entries]
        while len(self._blocks) * f.block_entries * 2 > self.cache_bytes:
            self._blocks.popitem(last=False)
        return out

    def _codes_by_tier(self, board: Board, tiers: np.ndarray, numbers: np.ndarray) -> np.ndarray:
        """Stored codes of numbers of several tiers: sorted by tier (a radix sort of bytes), one
        read per tier."""
        out = np.empty(tiers.shape[0], np.uint16)
        if not tiers.shape[0]:
            return out
        order = np.argsort(tiers.astype(np.uint8), kind="stable")
        ordered = tiers[order]
        bounds = np.flatnonzero(np.diff(ordered)) + 1
        for a, b in zip([0, *bounds.tolist()], [*bounds.tolist(), tiers.shape[0]]):
            sel = order[a:b]
            out[sel] = self._codes(board, int(ordered[a]), numbers[sel])
        return out

    def probe_codes(self, board: Board, mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
        """Stored codes of many positions of one board (mover's pieces, other pieces)."""
        self.require(board)
        mine, theirs = np.asarray(mine, np.uint64), np.asarray(theirs, np.uint64)
        board, perm = self._table_board(board)
        if perm is not None:
            mine, theirs = _permute_bits(mine, perm), _permute_bits(theirs, perm)
        tiers, numbers = dense_index(board).numbers(mine, theirs)
        out = np.empty(tiers.shape[0], np.uint16)
        for t in np.unique(tiers):
            sel = tiers == t
            out[sel] = self._codes(board, int(t), numbers[sel])
        self.probes += int(tiers.shape[0])
        return out

    def probe_many(self, positions: list[Position]) -> list[tuple[int, float]]:
        """(value for the side to move, depth or math.inf) of each position (one board)."""

        if not positions:
            return []
        board = positions[0].board
        for p in positions:
            if p.board != board or p.rules.name != CLASSIC.name:
                self.require(p.board, p.rules)
                raise MissingTableError("probe_many takes positions of one board")
        bits = [mover_bits(p) for p in positions]
        codes = self.probe_codes(board, np.array([b[0] for b in bits], np.uint64),
                                 np.array([b[1] for b in bits], np.uint64))
        return [decode(int(c)) for c in codes]

    def answers(self, positions: list[Position]) -> list[tuple[int, float, Move | None]]:
        """(value for the side to move, depth or math.inf, preferred move or None when the game
        is over) of many positions of one board, all at once: the batch's fast path
        (:meth:`answer_arrays`)."""

        if not positions:
            return []
        board = positions[0].board
        self.require(board, positions[0].rules)
        bits = [mover_bits(p) for p in positions]
        own, final, frm, to = self.answer_arrays(board, np.array([b[0] for b in bits], np.uint64),
                                                 np.array([b[1] for b in bits], np.uint64))
        out: list[tuple[int, float, Move | None]] = []
        for i in range(len(positions)):
            v, d = decode(int(own[i]))
            if final[i]:
                out.append((v, d, None))
            else:
                out.append((v, d, PASS if to[i] < 0 else Move(int(frm[i]), int(to[i]))))
        return out

    def answer_arrays(self, board: Board, mine: np.ndarray, theirs: np.ndarray):
        """(stored codes, game over, preferred move's origin, its target) of many positions of one
        board given as the mover's and the other side's pieces, as arrays: origin -1 for a clone,
        target -1 for a pass (both -1 when the game is over). The preferred move is SPEC section
        4's (best value, then least depth when winning and greatest otherwise, then notation
        order), read from the children's stored codes."""

        self.require(board)
        mine, theirs = np.asarray(mine, np.uint64), np.asarray(theirs, np.uint64)
        table_board, perm = self._table_board(board)
        own = self.probe_codes(board, mine, theirs)
        if perm is not None:
            mine, theirs = _permute_bits(mine, perm), _permute_bits(theirs, perm)
        ix = dense_index(table_board)
        T = ix.tables
        final, start, move, tier, number = engine.dense.position_children(mine, theirs, ix.arrays, T.adj, T.jmp, T.reach, T.rules)
        codes = self._codes_by_tier(table_board, tier, number)
        # notation order of the moves (solver.rules.move_order_key) by table lookups: squares of
        # the table's board taken back to the board asked about, then each by (file, rank)
        back = np.arange(64)
        if perm is not None:
            back[:len(perm)] = np.argsort(np.array(perm))
        cols = board.cols
        skey = (back % cols) * 64 + back // cols
        m = np.maximum(move, 0)
        to, frm = m & 63, (m >> 6) - 1
        order = np.where(frm >= 0, skey[frm] * 4097 + skey[to] + 1, skey[to] * 4097)
        edge, _, _ = engine.tier_kernels.preferred_children(start, codes, order)
        over = final != NOT_FINAL_CODE
        best = move[np.where(over, 0, edge)] if move.shape[0] else np.full(over.shape[0], -1)
        best = np.where(over, -1, best)
        best_to = np.where(best < 0, -1, back[best & 63])
        best_from = np.where(best < 0, -1, np.where((best >> 6) > 0, back[np.maximum(best >> 6, 1) - 1], -1))
        return own, over, best_from, best_to

    def probe(self, position: Position) -> tuple[int, float]:
        """(value for the side to move, depth or math.inf); MissingTableError when not covered."""
        self.require(position.board, position.rules)
        return self.probe_many([position])[0]

    def get(self, position: Position, default=None):
        """Like :meth:`probe`, but ``default`` when no table covers the position."""
        try:
            return self.probe(position)
        except MissingTableError:
            return default


def _permute_bits(words: np.ndarray, perm: list[int]) -> np.ndarray:
    out = np.zeros_like(words)
    for sq, image in enumerate(perm):
        out |= ((words >> np.uint64(sq)) & np.uint64(1)) << np.uint64(image)
    return out


class TableOracle(Oracle):
    """The oracle contract (:class:`solver.oracle.Oracle`) answered from tables."""

    name = "tables"

    def __init__(self, tablebase: Tablebase, board: Board, rules: Rules = CLASSIC):
        super().__init__()
        tablebase.require(board, rules)
        self.tablebase = tablebase

    @property
    def states(self) -> int:
        return self.tablebase.probes

    def prepare(self, roots, both_sides: bool = False) -> None:
        for r in roots:
            self.tablebase.require(r.board, r.rules)

    def lookup(self, position: Position) -> tuple[int, float]:
        return self.tablebase.probe(position)

    def lookup_many(self, positions: list[Position]) -> list[tuple[int, float]]:
        return self.tablebase.probe_many(positions)


# -- cross-checks -----------------------------------------------------------------------------------

@dataclass
class Comparison:
    """Tables against an engine: positions compared, how many disagree (value, or value and
    depth), the first that does, and the seconds taken."""

    against: str
    positions: int
    disagreements: int
    first: Position | None
    seconds: float


def compare_with_retro(tablebase: Tablebase, board: Board, start: bool = False) -> Comparison:
    """Every position of ``board`` (or, with ``start``, every position reachable from the
    standard start with either side to move): the value and depth the tables store against the
    retro engine's (:mod:`solver.engine.retro`)."""
    # Start-up: the compiled engine loads numba; only this command needs it here.

    t0 = time.perf_counter()
    retro = RetroOracle(board, CLASSIC)
    if start:
        x, o = Position.start(board.rows, board.cols).x, Position.start(board.rows, board.cols).o
        root = Position(board, x & board.playable, o & board.playable, X, 0, CLASSIC)
        retro.prepare([root, root.replace(turn=O)])
        mine, theirs = retro.k1[:retro.n].copy(), retro.k2[:retro.n].copy()
    else:
        index = dense_index(board)
        found = [index.position(e, i) for e in range(index.n + 1) for i in range(index.tier_size(e))]
        mine = np.array([m for m, _, ok in found if ok], np.uint64)
        theirs = np.array([t for _, t, ok in found if ok], np.uint64)
    counters = np.zeros(mine.shape[0], np.int64)
    value, depth = retro.values(mine, theirs, counters)
    codes = tablebase.probe_codes(board, mine, theirs).astype(np.int64)
    stored_value = (codes >> engine.tier_kernels.DEPTH_BITS) - engine.tier_kernels.VALUE_BIAS
    stored_depth = codes & engine.tier_kernels.DEPTH_INF
    infinite = depth >= 1 << 30  # the retro engine's depth of a draw by infinite play
    bad = (stored_value != value) | np.where(infinite, stored_depth != engine.tier_kernels.DEPTH_INF, stored_depth != depth)
    first = None
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        first = Position(board, int(mine[j]), int(theirs[j]), X, 0, CLASSIC)
    return Comparison("retro", int(mine.shape[0]), int(bad.sum()), first, time.perf_counter() - t0)


def random_positions(board: Board, count: int, empty: tuple[int, int], seed: int) -> list[Position]:
    """``count`` random positions of ``board`` that are not over: each playable square X or O,
    then ``empty[0]`` to ``empty[1]`` of them emptied, either side to move (seeded)."""
    rng = random.Random(seed)
    squares = [sq for sq in range(board.size) if not board.is_block(sq)]
    out: list[Position] = []
    while len(out) < count:
        emptied = set(rng.sample(squares, rng.randint(*empty)))
        x = o = 0
        for sq in squares:
            if sq not in emptied:
                if rng.random() < 0.5:
                    x |= 1 << sq
                else:
                    o |= 1 << sq
        q = Position(board, x, o, rng.choice((X, O)), 0, CLASSIC)
        if not q.is_over():
            out.append(q)
    return out


def compare_with_search(tablebase: Tablebase, board: Board, count: int = 2000, empty: tuple[int, int] = (1, 4),
                        seed: int = 13, progress: Callable[[int], None] | None = None) -> Comparison:
    """Random positions of ``board`` with few empty squares (:func:`random_positions`): the
    value the tables store against the search engine's (:mod:`solver.engine.search`).
    ``progress(k)`` after each position searched."""

    t0 = time.perf_counter()
    positions = random_positions(board, count, empty, seed)
    stored = [v for v, _ in tablebase.probe_many(positions)]
    search = SearchOracle(board, CLASSIC)
    first, bad = None, 0
    for k, (q, v) in enumerate(zip(positions, stored), start=1):
        if search.value(q) != v:
            bad += 1
            first = first or q
        if progress is not None:
            progress(k)
    return Comparison("search", len(positions), bad, first, time.perf_counter() - t0)



# -- what the command runs --------------------------------------------------------------------------

Executor = LocalExecutor | DaskExecutor  # where the tier solver's chunks run
TierProgress = Callable[[int, str, int, int | None], None]  # (tier, phase, done, total)


@contextlib.contextmanager
def executor_for(jobs: int = 1, cluster: str | None = None) -> Iterator[Executor]:
    """Where the tier solver's chunks run, as a context manager: ``jobs`` threads of this
    process, or a Dask cluster (``local:N`` or a scheduler address, :func:`solver.cluster.cluster_for`;
    raises :class:`solver.cluster.ClusterError` when it cannot start). Closed on exit."""
    context: contextlib.AbstractContextManager[Executor] = (
        cluster_for(cluster) if cluster else contextlib.nullcontext(LocalExecutor(jobs)))
    with context as executor:
        try:
            yield executor
        finally:
            executor.close()


def check_tables(board: Board, directory: str | Path, executor: Executor | None = None,
                 progress: TierProgress | None = None, tiers: list[int] | None = None) -> CheckReport:
    """Check the stored tiers of ``board`` in ``directory`` (all, or ``tiers``) against the moves
    (:func:`solver.tiersolver.verify`). Raises :class:`TableError` when a tier to check, or a
    child tier it needs, is missing or damaged."""
    store = DirectoryStore(Path(directory), board)
    game = AtaxxGame(board)
    tiers = game.tiers() if tiers is None else tiers
    needed = sorted(set(tiers) | {c for t in tiers for c in game.child_tiers(t)})
    missing = [t for t in needed if not store.has(t)]
    if missing:
        raise TableError(f"{directory} lacks tiers {', '.join(map(str, missing))} of {board_name(board)}")
    return verify(game, store, executor=executor, progress=progress, tiers=tiers)


@dataclass
class BoardTables:
    """What a directory holds for one board: its tiers, their entries and bytes on disk."""

    board: Board
    tiers: list[int]
    entries: int
    bytes_on_disk: int


def contents(tablebase: Tablebase) -> list[BoardTables]:
    """The boards of a directory's tables (by rows, columns and blocks)."""
    out = []
    for key, board in sorted(tablebase.boards.items()):
        files = sorted((k[3], f) for k, f in tablebase.files.items() if k[:3] == key)
        out.append(BoardTables(board, [t for t, _ in files], sum(f.entries for _, f in files),
                               sum(f.path.stat().st_size for _, f in files)))
    return out
