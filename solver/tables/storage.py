"""The tables on disk: one file per tier of a board, its name, its format, and the store the
tier solver writes through.

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

- :func:`write_tier` writes a tier's file whole or not at all; :class:`TierFile` opens one,
  checks its header against what the file can hold, and reads its blocks on demand.
- :class:`DirectoryStore` is the tier solver's store (:class:`solver.tiers.store.TierStore`)
  for one board in a directory: a tier is there when its file is whole and compatible; its
  :meth:`DirectoryStore.checkpoints` keep the state of a tier under way beside the tier files
  (``4x5-e07.resume``, :class:`solver.tiers.resume.FileCheckpoints`).
- :func:`board_name`, :func:`parse_board_name`, :func:`tier_path` and :func:`resume_path` name
  boards and files (``4x5-e07.atb``, ``4x5-e07.resume``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any, Callable, Iterable

import numpy as np

from solver.common.files import current_umask
from solver.game.board import Board
from solver.game.rules import CLASSIC, Rules
from solver.tables.index import TableError, dense_index
from solver.tiers.resume import FileCheckpoints

FORMAT_VERSION = 1
MAGIC = b"ATAXX-TABLE"
BLOCK_ENTRIES = 1 << 16
SUFFIX = ".atb"
RESUME_SUFFIX = ".resume"
WRITE_BEHIND_MAX = 1 << 24   # entries of the largest tier a DirectoryStore writes behind (32 MiB of codes)


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


def tier_path(directory: str | Path, board: Board, tier: int) -> Path:
    return Path(directory) / f"{board_name(board)}-e{tier:02d}{SUFFIX}"


def resume_path(directory: str | Path, board: Board, tier: int) -> Path:
    """Where the checkpoint of a tier under way is kept (``4x5-e07.resume``)."""
    return Path(directory) / f"{board_name(board)}-e{tier:02d}{RESUME_SUFFIX}"


def _header(board: Board, rules: Rules, tier: int, entries: int, fingerprint: str) -> dict[str, Any]:
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
    # views, not copies: zlib reads each block straight from the codes (a copy of the tier would
    # be the build's peak of memory: 2 bytes a number more, after the tier is solved)
    parts = [codes[i:i + BLOCK_ENTRIES] for i in range(0, codes.shape[0], BLOCK_ENTRIES)]
    if len(parts) > 1:  # blocks are independent and zlib lets go of the GIL: compressed on all cores
        with ThreadPoolExecutor(min(len(parts), os.cpu_count() or 1)) as pool:
            blocks = list(pool.map(lambda raw: zlib.compress(raw.data, 6), parts))
    else:
        blocks = [zlib.compress(raw.data, 6) for raw in parts]
    del parts
    offsets = np.zeros(len(blocks) + 1, "<u8")
    offsets[1:] = np.cumsum([len(b) for b in blocks])
    crc = zlib.crc32(offsets.tobytes())
    for b in blocks:
        crc = zlib.crc32(b, crc)
    head = _header(board, rules, tier, int(codes.shape[0]), fingerprint)
    head["checksum"] = f"crc32:{crc:08x}"
    # The temporary file is created exclusively (mkstemp: O_EXCL, a random name), so a name
    # planted beside the table, a symlink included, is never opened or written through.
    mask = current_umask()
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
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:   # (a full disk: the table's name said)
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise
    return path.stat().st_size


class TierFile:
    """One tier file, opened: its header checked, its blocks read on demand."""

    def __init__(self, path: str | Path) -> None:
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
                self.header: dict[str, Any] = json.loads(fh.readline())
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

    def _read_offsets(self, fh: IO[bytes]) -> np.ndarray:
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

    def read_blocks(self, which: Iterable[int]) -> dict[int, np.ndarray]:
        """Decompressed blocks by number."""
        out: dict[int, np.ndarray] = {}
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
    """The tier solver's store for one board in a directory of table files.

    With ``write_behind``, :meth:`save` of a tier of at most :data:`WRITE_BEHIND_MAX` entries
    hands the file to a thread and returns (the tier stays loadable from memory), so that writing
    a small tier (compression, fsync) overlaps solving the next; one file is written at a time, a
    save or :meth:`flush` waits for the one before and raises its error, and :meth:`has` of that
    tier waits for it; its checkpoint (:meth:`checkpoints`), discarded meanwhile, goes only once
    the file is written (and stays if the write fails). Call :meth:`flush` when done. A larger tier is written at once (its
    compressed blocks would be held beside the next tier's working set, and a tier that took
    hours is on disk when save returns)."""

    def __init__(self, directory: str | Path, board: Board, rules: Rules = CLASSIC, write_behind: bool = False) -> None:
        self.directory = Path(directory)
        self.board = board
        self.rules = rules
        self.index = dense_index(board)
        self._cache: dict[int, np.ndarray] = {}
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="tier-writer") if write_behind else None
        self._pending: tuple[int, Future[int]] | None = None
        self._after: list[Callable[[], None]] = []   # done once the pending file is written

    def path(self, tier: int) -> Path:
        return tier_path(self.directory, self.board, tier)

    def _open(self, tier: int) -> TierFile:
        f = TierFile(self.path(tier))
        check_compatible(f, self.board, self.rules, self.index.fingerprint)
        return f

    def has(self, tier: int) -> bool:
        if self._pending is not None and self._pending[0] == tier:
            self.flush()
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
        if self._writer is None or codes.shape[0] > WRITE_BEHIND_MAX:
            self.flush()
            write_tier(self.path(tier), self.board, self.rules, tier, codes, self.index.fingerprint)
        else:
            self.flush()
            self._pending = (tier, self._writer.submit(write_tier, self.path(tier), self.board, self.rules, tier,
                                                       codes, self.index.fingerprint))
        self._cache = {tier: codes}

    def release(self) -> None:
        """Let go of the tier kept in memory (the solver has scanned against it: on 5 x 5 tier 4,
        tier 3's 3 GB are not held through the resolution)."""
        self._cache = {}

    def checkpoints(self) -> FileCheckpoints:
        """The checkpoints of tiers under way in this directory, their headers naming the board,
        rules, index and table format as the tier files do."""
        return FileCheckpoints(lambda tier: resume_path(self.directory, self.board, tier),
                               {"board": board_name(self.board), "rules": self.rules.name,
                                "index": self.index.fingerprint, "table_format": FORMAT_VERSION},
                               defer=self._after_write)

    def _after_write(self, tier: int, fn: Callable[[], None]) -> bool:
        """``fn`` kept for when tier ``tier``'s file, being written behind, is on disk (True), or
        False when it is not being written (its checkpoint goes at once)."""
        if self._pending is None or self._pending[0] != tier:
            return False
        self._after.append(fn)
        return True

    def flush(self) -> None:
        """Wait for the file being written behind, if any; its error, if it failed, is raised here."""
        pending, self._pending = self._pending, None
        after, self._after = self._after, []
        if pending is not None:
            pending[1].result()   # (a failed write raises here: its tier's checkpoint stays)
            for fn in after:
                fn()

    def close(self) -> None:
        """:meth:`flush`, and the writing thread stopped."""
        try:
            self.flush()
        finally:
            if self._writer is not None:
                self._writer.shutdown()
                self._writer = None


def check_compatible(f: TierFile, board: Board, rules: Rules, fingerprint: str) -> None:
    if f.board != board:
        raise TableError(f"{f.path}: a table of the {board_name(f.board)} board, not {board_name(board)}")
    if f.rules != rules.name:
        raise TableError(f"{f.path}: a table for the {f.rules} rules, not {rules.name}")
    if f.fingerprint != fingerprint:
        raise TableError(f"{f.path}: numbered by another index ({f.fingerprint}, expected {fingerprint})")

