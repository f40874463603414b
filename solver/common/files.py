"""Writing output files safely: never the input, never a file this program did not write,
never half a file, never through a name someone else planted.

- :func:`check_output` refuses, with one line that says why, an output path that is a
  directory, lies in a missing directory, is a symbolic link to a missing file (writing
  would create a file where the link points), is one of the input files, or is an existing
  non-empty regular file that the caller does not recognise as its own output.
- :func:`replace_file` writes a temporary file created exclusively (``O_EXCL``, so an
  existing name, a symlink planted there included, is never opened) in the target's
  directory and renames it over the target in one step: a reader sees the old file or
  the new one, and a full disk leaves the old file as it was.
"""

from __future__ import annotations

import os
import stat
import tempfile
import threading
from pathlib import Path
from typing import Callable, Iterable

# How much of an existing file is read to recognise it (its first line, for JSON lines).
HEAD_BYTES = 1 << 20


class OutputError(Exception):
    """An output file that may not or cannot be written; the message names it and says why."""


def head(path: Path, limit: int = HEAD_BYTES) -> bytes:
    """The first ``limit`` bytes of a file."""
    with open(path, "rb") as fh:
        return fh.read(limit)


def check_output(path: str | os.PathLike, inputs: Iterable[str] = (), is_ours: Callable[[bytes], bool] | None = None,
                 what: str = "output") -> None:
    """Raise :class:`OutputError` unless ``path`` may be written.

    ``is_ours(first bytes)`` says whether an existing non-empty regular file is this command's
    own output (which it may replace); without it any existing file may be replaced. Devices
    and pipes (``/dev/stdout``, ``/dev/null``) are always allowed.
    """
    p = Path(path)
    name = str(path)
    if p.is_dir():
        raise OutputError(f"{name}: is a directory; give a file name for the {what}")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"{name}: the directory {parent} does not exist")
    if p.is_symlink() and not p.exists():
        raise OutputError(f"{name}: is a symbolic link to a file that does not exist; refusing to write through it")
    if not p.exists():
        return
    for f in inputs:
        try:
            same = os.path.samefile(p, f)
        except OSError:
            same = False
        if same:
            raise OutputError(f"{name}: is the input file {f}; refusing to write the {what} over it")
    try:
        st = p.stat()
        if not stat.S_ISREG(st.st_mode) or st.st_size == 0 or is_ours is None:
            return
        first = head(p)
    except OSError as exc:
        raise OutputError(f"{name}: cannot read it to check it ({exc.strerror})") from None
    if not is_ours(first):
        raise OutputError(f"{name}: exists and was not written by this command; refusing to overwrite it "
                          "(remove it or choose another name)")


_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process's umask, read without changing it where Linux says it (``/proc/self/status``);
    elsewhere it can only be read by setting it (to 0) and back, and it is the whole process's:
    every reader goes through this lock, so that a file written meanwhile on another thread (a
    tier written behind while a checkpoint is saved) is never given mode 0666 from a umask read
    as 0 in between."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        mask = os.umask(0)
        os.umask(mask)
    return mask


def replace_file(path: str | os.PathLike, chunks: Iterable[str]) -> None:
    """Write the text ``chunks`` to ``path`` whole or not at all (see the module docstring).

    The new file keeps the mode of the file it replaces (0666 less the umask for a new one).
    A device or a pipe (``/dev/stdout``) is written in place, never replaced. Raises OSError
    with ``filename`` set to ``path``.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        st = os.stat(target)
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        try:
            with open(target, "w", encoding="utf-8") as fh:
                for chunk in chunks:
                    fh.write(chunk)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        return
    if st is not None:
        mode = stat.S_IMODE(st.st_mode)
    else:
        mode = 0o666 & ~current_umask()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise
