"""Running compiled kernels: abortable, with progress, and saying when they compile.

Kernels release the GIL and run in a worker thread with a large stack (the
search recurses); the main thread waits, hands the kernel's progress counters
to a callback every 50 ms, and on Ctrl-C or a deadline sets ``abort[0]``, which
the kernels poll, so that the work stops cleanly.

The first use compiles the kernels (numba, ``cache=True``) and says so in a log
message (logger ``solver.engine.runtime``, level WARNING: the command prints it).
Numba keeps its cache next to the modules, or in the user's cache directory when
the package is installed read-only; a marker file records that this version of
the kernels has been compiled. Nothing here prints or draws.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import numba
import numpy as np

from ..limits import TimeLimitError

LOGGER = logging.getLogger(__name__)
COMPILE_NOTICE = "compiling the solver, once (about a minute; later runs load it from the cache)"
STACK_BYTES = 512 << 20
_HERE = Path(__file__).resolve().parent
_notice_logged = False
_seen: set[str] = set()  # kernels this process has asked about


@functools.cache
def _kernel_fingerprint() -> str:
    h = hashlib.sha256(numba.__version__.encode() + sys.version.encode())
    for path in sorted(_HERE.glob("*.py")):
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _marker_dirs() -> list[Path]:
    dirs = [_HERE / "__pycache__"]
    if os.environ.get("NUMBA_CACHE_DIR"):
        dirs.insert(0, Path(os.environ["NUMBA_CACHE_DIR"]))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    dirs.append(Path(base) / "ataxx-solver")
    return dirs


def announce_compilation(kernel: str) -> None:
    """Log the compile notice (once per process) when ``kernel`` is not cached yet: a marker
    per kernel, since each engine compiles its own kernels the first time it is used."""
    global _notice_logged
    if kernel in _seen:
        return
    _seen.add(kernel)
    name = f"compiled-{_kernel_fingerprint()}-{kernel}"
    if any((d / name).exists() for d in _marker_dirs()):
        return
    if not _notice_logged:
        _notice_logged = True
        LOGGER.warning(COMPILE_NOTICE)
    _announce_pending.append(name)


_announce_pending: list[str] = []


def record_compilation() -> None:
    """After kernels ran, remember that they are compiled (first writable marker directory)."""
    while _announce_pending:
        name = _announce_pending.pop()
        for d in _marker_dirs():
            try:
                d.mkdir(parents=True, exist_ok=True)
                (d / name).write_text("compiled\n")
                break
            except OSError:
                continue


class Run:
    """One kernel call in a worker thread: ``abort`` and ``progress`` are shared int64 arrays."""

    def __init__(self, progress_size: int = 4):
        self.abort = np.zeros(1, np.int64)
        self.progress = np.zeros(progress_size, np.int64)
        self.timed_out = False

    def call(self, fn: Callable[..., Any], *args: Any, deadline: float | None = None,
             on_tick: Callable[[np.ndarray], None] | None = None) -> Any:
        """Run ``fn(*args)`` and return its result. Past ``deadline`` (a time.monotonic() value)
        the kernel is asked to stop and ``timed_out`` is set; KeyboardInterrupt passes through
        once the kernel has stopped."""
        announce_compilation(getattr(fn, "__name__", "kernel"))
        box: dict = {}

        def target():
            try:
                box["result"] = fn(*args)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                box["error"] = exc

        old = threading.stack_size()
        threading.stack_size(STACK_BYTES)
        try:
            worker = threading.Thread(target=target, daemon=True)
            worker.start()
        finally:
            threading.stack_size(old)
        try:
            while worker.is_alive():
                worker.join(0.05)
                if on_tick is not None:
                    on_tick(self.progress)
                if deadline is not None and time.monotonic() > deadline and not self.timed_out:
                    self.timed_out = True
                    self.abort[0] = 1
        except KeyboardInterrupt:
            self.abort[0] = 1
            worker.join()
            raise
        if "error" in box:
            raise box["error"]
        record_compilation()
        return box["result"]

    def stopped(self, what: str) -> BaseException:
        """The error for a kernel that answered ABORTED."""
        if self.timed_out:
            return TimeLimitError(f"{what}: out of time")
        return KeyboardInterrupt()
