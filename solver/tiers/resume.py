"""Resuming a tier where it stopped: the tier solver's state at a step boundary, the checkpoint
file it is saved in, and when it is saved.

A tier is solved in steps (:mod:`solver.tiers.solver`): the scan's chunks, then the resolution's
levels and depths. Between two steps everything the rest of the tier needs is in a few arrays,
:class:`TierState`: the codes and counters (three bytes a number), the overflow counters, and,
in the resolution, the level k and depth d of the next step, the level's events per depth and
the front (the positions settled at depth d). The windows of events are not saved: they are
read again from the codes, and a position settled meanwhile is skipped by the step as it
always is, so a resumed tier is byte-identical to one solved without a stop.

- :class:`StepCheckpointer` is what the solver's loop calls at each step boundary: it saves the
  state at most every ``seconds``, and at once when ``should_stop()`` answers True, then stops
  with :class:`TierInterrupted` (a KeyboardInterrupt saying how far the tier got).
- :class:`Checkpoints` is where states are kept: :class:`FileCheckpoints` (a file per tier, see
  below) or :class:`MemoryCheckpoints` (tests).

File format (version :data:`FORMAT_VERSION`): a line ``TIER-CHECKPOINT <version>``, a JSON header
line (what the store says identifies the tier: board, rules, index fingerprint, table format;
the tier and its entries; the state's scalars; the arrays' names, dtypes and lengths; the
checksum, last), then the arrays' bytes one after the other, little-endian. The checksum is
the CRC-32 of the header without its checksum (JSON, sorted keys) followed by the arrays, so a
changed header is caught as a changed array is. Arrays are written straight from their buffers
and read straight into the arrays they become, a chunk at a time: no copy of the state is ever
made. A checkpoint is written through a temporary file created exclusively and renamed over the
last, and a file at its name is replaced only when its header says this program wrote it for
this tier; a checkpoint of another board, tier or format, or a damaged one, is refused with one
line (:class:`CheckpointError`), never used or overwritten.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Protocol

import numpy as np

from solver.common.files import current_umask
from solver.tiers.game import TierError

LOGGER = logging.getLogger(__name__)

FORMAT_VERSION = 1
MAGIC = b"TIER-CHECKPOINT"
CHUNK_BYTES = 1 << 26            # arrays are written, read and checksummed 64 MiB at a time
HIST_SIZE = 1024                 # depths of a level's census (tier_kernels.DEPTH_INF + 1)


class CheckpointError(TierError):
    """A checkpoint that cannot be used or replaced (says which file and what to do)."""


@dataclass
class TierState:
    """A tier between two steps. ``code`` and ``cnt`` have ``entries`` numbers, the first
    ``scanned`` of them filled (all once the scan is done); ``level`` is -1 during the scan,
    otherwise the level of the next step, whose depth is ``depth``, ``hist`` the level's events
    per depth and ``front`` the positions settled at ``depth``. ``settled`` counts the positions
    settled so far; ``positions``, ``max_front`` and ``max_window`` are the report's figures,
    ``seconds`` and ``cpu_seconds`` the time spent on the tier so far."""

    tier: int
    entries: int
    scanned: int
    code: np.ndarray
    cnt: np.ndarray
    ov_pos: np.ndarray
    ov_cnt: np.ndarray
    kmax: int
    settled: int
    level: int = -1
    depth: int = 0
    hist: np.ndarray | None = None
    front: np.ndarray | None = None
    positions: int = 0
    max_front: int = 0
    max_window: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    @property
    def scanning(self) -> bool:
        return self.level < 0

    def describe(self) -> str:
        """``1,234 of 5,678 positions settled, level 3, depth 17`` or ``262,144 of 1,000,000
        numbers scanned``."""
        if self.scanning:
            return f"{self.scanned:,} of {self.entries:,} numbers scanned"
        return f"{self.settled:,} of {self.positions:,} positions settled, level {self.level}, depth {self.depth}"

    def arrays(self) -> list[tuple[str, np.ndarray]]:
        """The arrays saved, in the file's order (code and cnt: the part scanned)."""
        out = [("code", self.code[:self.scanned]), ("cnt", self.cnt[:self.scanned]),
               ("ov_pos", self.ov_pos), ("ov_cnt", self.ov_cnt)]
        if not self.scanning:
            assert self.hist is not None and self.front is not None
            out += [("hist", self.hist), ("front", self.front)]
        return out

    def scalars(self) -> dict[str, Any]:
        return {"scanned": self.scanned, "kmax": self.kmax, "settled": self.settled, "level": self.level,
                "depth": self.depth, "positions": self.positions, "max_front": self.max_front,
                "max_window": self.max_window, "seconds": round(self.seconds, 3),
                "cpu_seconds": round(self.cpu_seconds, 3)}


class TierInterrupted(KeyboardInterrupt):
    """``should_stop()`` answered True while tier ``tier`` was solved. ``where`` says how far it
    got (:meth:`TierState.describe`) and ``path`` where that was saved (None: not saved, the tier
    starts over; ``failure`` says why when a save failed); the solver fills ``solved`` and
    ``skipped``, the tiers solved before it in the same solve and those already there."""

    def __init__(self, tier: int, where: str | None, path: str | None, failure: str | None = None) -> None:
        super().__init__(f"tier {tier} interrupted" + (f", saved in {path}: {where}" if path else ""))
        self.tier = tier
        self.where = where
        self.path = path
        self.failure = failure
        self.solved: list[int] = []
        self.skipped: list[int] = []


class Checkpoints(Protocol):
    """Where the states of unfinished tiers are kept (one a tier)."""

    def load(self, tier: int, entries: int) -> TierState | None: ...   # None: there is none

    def save(self, state: TierState) -> str: ...                       # returns where

    def discard(self, tier: int) -> None: ...

    def where(self, tier: int) -> str: ...


class MemoryCheckpoints:
    """States kept as copies in a dict (tests)."""

    def __init__(self) -> None:
        self.states: dict[int, TierState] = {}
        self.saves = 0

    def load(self, tier: int, entries: int) -> TierState | None:
        state = self.states.get(tier)
        return None if state is None else _copy(state)

    def save(self, state: TierState) -> str:
        self.states[state.tier] = _copy(state)
        self.saves += 1
        return self.where(state.tier)

    def discard(self, tier: int) -> None:
        self.states.pop(tier, None)

    def where(self, tier: int) -> str:
        return f"memory (tier {tier})"


def _copy(state: TierState) -> TierState:
    out = TierState(**{**vars(state)})
    for name in ("code", "cnt", "ov_pos", "ov_cnt", "hist", "front"):
        a = getattr(state, name)
        setattr(out, name, None if a is None else a.copy())
    return out


# -- the file --------------------------------------------------------------------------------------

def _dtypes(entries: int) -> dict[str, np.dtype]:
    return {"code": np.dtype(np.uint16), "cnt": np.dtype(np.uint8), "ov_pos": np.dtype(np.int64),
            "ov_cnt": np.dtype(np.int64), "hist": np.dtype(np.int64),
            "front": np.dtype(np.uint32 if entries < 1 << 32 else np.int64)}


def _canonical(head: dict[str, Any]) -> bytes:
    return json.dumps({k: v for k, v in head.items() if k != "checksum"}, sort_keys=True).encode()


def _le_chunks(a: np.ndarray) -> Any:
    """The bytes of ``a``, little-endian, a chunk at a time (views of its buffer here)."""
    flat = a.reshape(-1)
    step = max(1, CHUNK_BYTES // max(1, a.itemsize))
    for i in range(0, flat.shape[0], step):
        part = flat[i:i + step]
        if sys.byteorder != "little" and a.itemsize > 1:
            part = part.byteswap()   # (a chunk's copy, on big-endian machines only)
        yield np.ascontiguousarray(part).data.cast("B")


class FileCheckpoints:
    """A checkpoint file per tier, at ``path_of(tier)``, its header carrying ``identity`` (what
    the store says the tier's file is: board, rules, index fingerprint...)."""

    def __init__(self, path_of: Callable[[int], Path], identity: dict[str, Any],
                 defer: Callable[[int, Callable[[], None]], bool] | None = None) -> None:
        self.path_of = path_of
        self.identity = dict(identity)
        # defer(tier, discard): True when the tier's file is still being written, the store then
        # calling discard() once it is on disk (never, if the write fails: the checkpoint stays)
        self.defer = defer

    def where(self, tier: int) -> str:
        return str(self.path_of(tier))

    def _head_of(self, tier: int, entries: int) -> dict[str, Any]:
        return {"format": FORMAT_VERSION, **self.identity, "tier": tier, "entries": entries}

    def _read_head(self, fh: IO[bytes], path: Path, tier: int) -> dict[str, Any]:
        """The header of an open checkpoint, checked to be ours and this tier's."""
        redo = f"delete it to build tier {tier} from its start"
        first = fh.readline(64)
        if not first.startswith(MAGIC):
            raise CheckpointError(f"{path}: not a checkpoint this program wrote ({redo}, or move it away)")
        try:
            version = int(first[len(MAGIC):].strip())
        except ValueError:
            raise CheckpointError(f"{path}: unreadable format line (a damaged checkpoint: {redo})") from None
        if version != FORMAT_VERSION:
            raise CheckpointError(f"{path}: checkpoint format {version}, this program reads format "
                                  f"{FORMAT_VERSION} ({redo})")
        try:
            head = json.loads(fh.readline(1 << 20))
            if not isinstance(head, dict):
                raise ValueError
        except ValueError:
            raise CheckpointError(f"{path}: unreadable header (a damaged checkpoint: {redo})") from None
        for key, want in {**self.identity, "tier": tier}.items():
            if head.get(key) != want:
                raise CheckpointError(f"{path}: a checkpoint of {key} {head.get(key)!r}, not {want!r} ({redo})")
        return head

    def is_ours(self, tier: int) -> bool:
        """Whether a file at the tier's name is a checkpoint this program wrote for it (its
        header only: a file that is not is never replaced or removed)."""
        path = self.path_of(tier)
        try:
            with open(path, "rb") as fh:
                self._read_head(fh, path, tier)
        except (OSError, CheckpointError):
            return False
        return True

    def check(self, tier: int) -> None:
        """Refuse (one line) a file at the tier's name that is not a checkpoint of this tier."""
        path = self.path_of(tier)
        if os.path.lexists(path):
            try:
                with open(path, "rb") as fh:
                    self._read_head(fh, path, tier)
            except OSError as exc:
                raise CheckpointError(f"{path}: cannot open: {exc.strerror}") from None

    def load(self, tier: int, entries: int) -> TierState | None:
        path = self.path_of(tier)
        if not os.path.lexists(path):
            return None
        redo = f"delete it to build tier {tier} from its start"
        t = time.perf_counter()
        try:
            fh = open(path, "rb")
        except OSError as exc:
            raise CheckpointError(f"{path}: cannot open: {exc.strerror}") from None
        with fh:
            head = self._read_head(fh, path, tier)
            start = fh.tell()
            dtypes = _dtypes(entries)
            if head.get("entries") != entries:
                raise CheckpointError(f"{path}: a checkpoint of {head.get('entries')!r} numbers, tier {tier} has "
                                      f"{entries:,} ({redo})")
            try:
                s = {k: int(head[k]) for k in ("scanned", "kmax", "settled", "level", "depth", "positions",
                                               "max_front", "max_window")}
                secs = float(head["seconds"]), float(head["cpu_seconds"])
                layout = [(str(name), str(dt), int(length)) for name, dt, length in head["arrays"]]
                checksum = str(head["checksum"])
            except (KeyError, TypeError, ValueError):
                raise CheckpointError(f"{path}: a damaged header ({redo})") from None
            want = ["code", "cnt", "ov_pos", "ov_cnt"] + (["hist", "front"] if s["level"] >= 0 else [])
            limits = {"code": s["scanned"], "cnt": s["scanned"], "ov_pos": s["scanned"], "ov_cnt": s["scanned"],
                      "hist": HIST_SIZE, "front": entries}
            if ([name for name, _, _ in layout] != want or not 0 <= s["scanned"] <= entries
                    or (s["level"] >= 0 and s["scanned"] != entries)
                    or any(dt != dtypes[name].newbyteorder("<").str or not 0 <= n <= limits[name]
                           for name, dt, n in layout)
                    or layout[0][2] != s["scanned"] or layout[1][2] != s["scanned"] or layout[2][2] != layout[3][2]
                    or (s["level"] >= 0 and layout[4][2] != HIST_SIZE)):
                raise CheckpointError(f"{path}: a damaged header ({redo})")
            size = os.fstat(fh.fileno()).st_size
            body = sum(n * dtypes[name].itemsize for name, _, n in layout)
            if size != start + body:
                raise CheckpointError(f"{path}: {'truncated' if size < start + body else 'longer than its header says'}"
                                      f" ({size:,} bytes, the header promises {start + body:,}; {redo})")
            # the arrays are read into their places: code and cnt at their full size, as the tier uses them
            arrays: dict[str, np.ndarray] = {}
            crc = zlib.crc32(_canonical(head))
            for name, _, n in layout:
                full = entries if name in ("code", "cnt") else n
                a = np.empty(full, dtypes[name])
                crc = _read_into(fh, a[:n], crc)
                arrays[name] = a
        if f"crc32:{crc:08x}" != checksum:
            raise CheckpointError(f"{path}: checksum mismatch (a damaged checkpoint: {redo})")
        # what the checksum cannot catch (a file written with a right checksum by something else):
        # the step and the numbers the compiled steps index with, which are not bounds-checked there
        front, ov_pos = arrays.get("front"), arrays["ov_pos"]
        if (not -1 <= s["level"] <= s["kmax"] or not 0 <= s["depth"] <= HIST_SIZE - 2
                or not 0 <= s["settled"] <= entries
                or (front is not None and front.shape[0] and int(front.max()) >= entries)
                or (ov_pos.shape[0] and (int(ov_pos[0]) < 0 or int(ov_pos[-1]) >= s["scanned"]
                                         or not bool(np.all(ov_pos[1:] > ov_pos[:-1]))))):
            raise CheckpointError(f"{path}: a state no solve leaves (a damaged checkpoint: {redo})")
        state = TierState(tier, entries, s["scanned"], arrays["code"], arrays["cnt"], arrays["ov_pos"],
                          arrays["ov_cnt"], s["kmax"], s["settled"], s["level"], s["depth"], arrays.get("hist"),
                          arrays.get("front"), s["positions"], s["max_front"], s["max_window"], *secs)
        LOGGER.info("tier %d: checkpoint %s read, %s of state in %.1f s", tier, path, _size(body),
                    time.perf_counter() - t)
        return state

    def save(self, state: TierState) -> str:
        path = self.path_of(state.tier)
        if os.path.lexists(path) and not self.is_ours(state.tier):
            raise CheckpointError(f"{path}: not a checkpoint this program wrote for tier {state.tier}: not replaced "
                                  "(move it away and run again)")
        t = time.perf_counter()
        arrays = state.arrays()
        head = self._head_of(state.tier, state.entries)
        head.update(state.scalars())
        head["arrays"] = [[name, a.dtype.newbyteorder("<").str, int(a.shape[0])] for name, a in arrays]
        crc = zlib.crc32(_canonical(head))
        placeholder = "crc32:00000000"
        head["checksum"] = placeholder
        line = json.dumps(head).encode() + b"\n"
        at = len(MAGIC) + len(f" {FORMAT_VERSION}\n") + line.rindex(placeholder.encode()) + len("crc32:")
        mask = current_umask()
        # created exclusively (O_EXCL, a random name): a name planted beside it is never written through
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
        except OSError as exc:
            raise CheckpointError(f"{path}: cannot write the checkpoint: {exc.strerror}") from None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(MAGIC + f" {FORMAT_VERSION}\n".encode())
                fh.write(line)
                for _, a in arrays:
                    for chunk in _le_chunks(a):
                        crc = zlib.crc32(chunk, crc)
                        fh.write(chunk)
                fh.seek(at)
                fh.write(f"{crc:08x}".encode())
                fh.flush()
                os.fchmod(fh.fileno(), 0o666 & ~mask)
                os.fsync(fh.fileno())
            if os.path.lexists(path) and not self.is_ours(state.tier):   # (planted while this was written)
                raise CheckpointError(f"{path}: not a checkpoint this program wrote for tier {state.tier}: not "
                                      "replaced (move it away and run again)")
            os.replace(tmp, path)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            if isinstance(exc, OSError):   # (a full disk: one line)
                raise CheckpointError(f"{path}: cannot write the checkpoint: {exc.strerror or exc}") from None
            raise
        LOGGER.info("tier %d: checkpoint %s written (%s), %s in %.1f s", state.tier, path, state.describe(),
                    _size(sum(a.nbytes for _, a in arrays)), time.perf_counter() - t)
        return str(path)

    def discard(self, tier: int) -> None:
        """Remove the tier's checkpoint (its tier is saved; once its file is written, when the
        store writes it behind); a file this program did not write stays."""
        if self.defer is not None and self.defer(tier, lambda: self.discard(tier)):
            return
        if self.is_ours(tier):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path_of(tier))


def _read_into(fh: io.BufferedReader, a: np.ndarray, crc: int) -> int:
    """Fill ``a`` from the file a chunk at a time (the file is little-endian); returns the CRC."""
    raw = a.reshape(-1).data.cast("B") if a.size else memoryview(b"")
    at = 0
    while at < len(raw):
        view = raw[at:at + CHUNK_BYTES]
        got = fh.readinto(view)
        if not got:
            raise CheckpointError(f"{getattr(fh, 'name', 'checkpoint')}: truncated")
        crc = zlib.crc32(view[:got], crc)
        at += got
    if sys.byteorder != "little" and a.itemsize > 1:
        a.byteswap(inplace=True)
    return crc


def _size(n: int) -> str:
    return f"{n / (1 << 20):,.1f} MiB"


# -- when to save ----------------------------------------------------------------------------------

class StepCheckpointer:
    """What the solver's loop calls at each step boundary of one tier (:meth:`boundary`), and
    the state it resumes from (:attr:`resumed`, read when it is made).

    A state is saved when ``seconds`` have passed since the tier started (or resumed) or since
    the last save ended, and ten times as long as that save took (so that at most a tenth of
    the time goes to saving on a slow disk; ``seconds`` 0: at every boundary), and at once
    when ``should_stop()`` answers True, which then stops the tier with
    :class:`TierInterrupted`. Without ``checkpoints`` nothing is saved and a stop loses the
    tier's work. A save that fails (a full disk, a file in the way: :class:`CheckpointError`)
    is logged and the tier goes on; on a stop it is said in the :class:`TierInterrupted`."""

    def __init__(self, tier: int, entries: int, checkpoints: Checkpoints | None, seconds: float,
                 should_stop: Callable[[], bool]) -> None:
        self.tier = tier
        self.checkpoints = checkpoints
        self.seconds = seconds
        self.should_stop = should_stop
        self.resumed = checkpoints.load(tier, entries) if checkpoints is not None else None
        if self.resumed is not None:
            LOGGER.info("tier %d: resuming from %s (%s)", tier, checkpoints.where(tier) if checkpoints else "",
                        self.resumed.describe())
        self.spent = (self.resumed.seconds, self.resumed.cpu_seconds) if self.resumed else (0.0, 0.0)
        self.start = (time.perf_counter(), time.process_time())
        self.last = time.monotonic()
        self.cost = 0.0   # how long the last save took
        self.saves = 0

    def boundary(self, state: Callable[[], TierState]) -> None:
        """A step boundary: ``state()`` is the tier's state (made only when it is saved)."""
        stop = self.should_stop()
        if self.checkpoints is None:
            if stop:
                raise TierInterrupted(self.tier, None, None)
            return
        gap = max(self.seconds, 10 * self.cost) if self.seconds > 0 else 0.0
        if stop or time.monotonic() - self.last >= gap:
            began = time.monotonic()
            s = state()
            s.seconds = self.spent[0] + time.perf_counter() - self.start[0]
            s.cpu_seconds = self.spent[1] + time.process_time() - self.start[1]
            try:
                where = self.checkpoints.save(s)
            except CheckpointError as exc:
                self.last = time.monotonic()
                if stop:
                    raise TierInterrupted(self.tier, s.describe(), None, str(exc)) from None
                LOGGER.warning("tier %d goes on without a checkpoint: %s", self.tier, exc)
                return
            self.saves += 1
            self.last = time.monotonic()
            self.cost = self.last - began
            if stop:
                raise TierInterrupted(self.tier, s.describe(), where)
