"""Driving a UAI engine in a subprocess: ``uai``, ``isready``, ``position fen``, ``go``, ``bestmove``.

Every read and every write has a time limit (an engine that stops reading its input
is as hung as one that stops answering). Failures are told apart by type, as in
python-chess's ``chess/engine.py``: an engine that exits raises :class:`EngineTerminatedError`
(with its exit status), one that stops answering :class:`EngineTimeoutError`, one
that answers garbage :class:`EngineProtocolError`, all of them :class:`EngineError`
(a command that cannot be started is an :class:`EngineError` itself). The engine is
then stopped, and the next question restarts it. Lines that are not part of the
protocol are logged (logger ``solver.play.uai_client``, at warning) and otherwise ignored.

What is read from an engine is bounded: a line of at most :data:`MAX_LINE_BYTES`
(output without a newline is not buffered without end), at most
:data:`MAX_ANSWER_BYTES` in answer to one command, and at most
:data:`QUEUE_LINES` lines waiting to be read (an engine that talks while nobody
listens is blocked by its pipe). More is a problem and the engine is restarted.
Bytes that are not UTF-8 are replaced, never fatal. The engine runs in a session
of its own, and stopping it ends its whole process group and every process below
it, so the processes it forked end with it (and a Ctrl-C on the terminal reaches
only this program). A process that left the group and its parent (a daemon: a new
session, a second fork) is re-parented, on Linux, to the nearest child subreaper:
inside :func:`adopting_orphans` that is this program, which ends them all at the end.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import queue
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from solver.io.formats import quote

LOGGER = logging.getLogger(__name__)

MAX_LINE_BYTES = 64 << 10
MAX_ANSWER_BYTES = 1 << 20
QUEUE_LINES = 256
class _TooLong:
    """The reader's marker for a line over MAX_LINE_BYTES."""


_TOO_LONG = _TooLong()
_Line = str | _TooLong | None  # what the reader queues: a line, the marker, None at the end
# The first words of the lines an engine may send (UAI, as UCI); others are logged.
PROTOCOL_WORDS = frozenset({"id", "uaiok", "readyok", "bestmove", "copyprotection", "registration", "info", "option"})
MAX_WARNINGS = 20  # unexpected lines logged per engine; the rest are counted in one last warning


PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 36, 37  # prctl(2), Linux


def children(pid: int) -> set[int]:
    """The child processes of ``pid`` (of any of its threads), from /proc on Linux (empty elsewhere)."""
    kids: set[int] = set()
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            kids.update(int(k) for k in (task / "children").read_text().split())
    except OSError:
        pass
    return kids


def descendants(pid: int) -> set[int]:
    """Every process below ``pid``: its children, theirs, and so on."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for kid in children(todo.pop()) - found:
            found.add(kid)
            todo.append(kid)
    return found


def _kill_all(pids: set[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@contextlib.contextmanager
def adopting_orphans() -> Iterator[None]:
    """Make this process a child subreaper while the block runs (Linux, ``prctl``): a process
    that an engine started and that left the engine's process group and lost its parent (a
    daemon) is re-parented here instead of to init. On exit every child of this process that
    was not there on entry, and everything below it, is killed and reaped; then the setting
    is put back. Elsewhere than on Linux it does nothing."""
    libc = None
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            was = ctypes.c_int(0)
            if libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0) != 0 or \
                    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
                libc = None
        except (OSError, AttributeError):
            libc = None
    before = children(os.getpid())
    try:
        yield
    finally:
        if libc is not None:
            for _ in range(50):  # a process may fork while its siblings are killed: until none is left
                orphans = children(os.getpid()) - before
                if not orphans:
                    break
                _kill_all({p for o in orphans for p in descendants(o)} | orphans)
                for pid in orphans:
                    try:
                        os.waitpid(pid, 0)
                    except ChildProcessError:
                        pass
            libc.prctl(PR_SET_CHILD_SUBREAPER, was.value, 0, 0, 0)


class EngineError(RuntimeError):
    """The engine failed on one question, or cannot be started (the message says which and why)."""


class EngineTerminatedError(EngineError):
    """The engine exited (crashed, or closed its input); ``returncode`` is its exit status when known."""

    def __init__(self, message: str, returncode: int | None = None):
        super().__init__(message)
        self.returncode = returncode


class EngineTimeoutError(EngineError):
    """The engine did not answer, or did not read what it was sent, within the time limit (hung)."""


class EngineProtocolError(EngineError):
    """The engine answered something that is not an answer: an unparsable line, a line or an
    answer over the size limits."""


class UAIClient:
    def __init__(self, command: str, go: str = "depth 6", timeout: float = 10.0, startup_timeout: float = 10.0):
        self.command = command
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise ValueError(f"cannot read the engine command {quote(command)}: {exc}") from None
        if not self.argv:
            raise ValueError("empty engine command")
        self.go = go
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: queue.Queue[_Line] = queue.Queue(QUEUE_LINES)
        self.stop = threading.Event()
        self.name = command
        self.restarts = 0
        self.warnings = 0
        self.last_words = ""  # the last line the program wrote to its standard error

    # -- process ------------------------------------------------------------------------------

    def _spawn(self) -> None:
        """Start the program (in a session of its own) and the thread that reads its output."""
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=True)
        except OSError as exc:
            self.proc = None
            raise EngineError(f"cannot start {quote(self.argv[0])}: {exc.strerror}") from None
        self.lines = queue.Queue(QUEUE_LINES)
        self.stop = threading.Event()
        self.last_words = ""
        threading.Thread(target=self._reader, args=(self.proc.stdout, self.lines, self.stop), daemon=True).start()
        threading.Thread(target=self._stderr_reader, args=(self.proc.stderr,), daemon=True).start()

    def _stderr_reader(self, stream: IO[bytes] | None) -> None:
        """Drain the program's standard error, keeping its last non-empty line (to say why it crashed)."""
        if stream is None:
            return
        try:
            while True:
                raw = stream.readline(MAX_LINE_BYTES + 1)
                if not raw:
                    break
                text = raw.decode("utf-8", "replace").strip()
                if text:
                    self.last_words = text[:120]
        except (OSError, ValueError):
            pass
        finally:
            stream.close()

    def said(self) -> str:
        """``; it said: '...'`` with the program's last line on standard error, or ''."""
        time.sleep(0.05)  # the error stream may end just after the output does
        return f"; it said: {quote(self.last_words, 120)}" if self.last_words else ""

    def _start(self) -> None:
        self._spawn()
        self._send("uai")
        for line in self._until("uaiok", self.startup_timeout, "uai"):
            if line.startswith("id name "):
                self.name = line[len("id name "):].strip() or self.command

    @staticmethod
    def _reader(stream: IO[bytes], lines: queue.Queue[_Line], stop: threading.Event) -> None:
        """The engine's output into ``lines``, a line at a time (None at the end of the output)."""
        def put(item: _Line) -> bool:
            while not stop.is_set():
                try:
                    lines.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        try:
            while True:
                raw = stream.readline(MAX_LINE_BYTES + 1)
                if not raw:
                    break
                if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    put(_TOO_LONG)
                    return
                if not put(raw.decode("utf-8", "replace").rstrip("\r\n")):
                    return
        except (OSError, ValueError):
            pass
        finally:
            stream.close()  # here, not by whoever stops the engine: closing it blocks while a read is on
        put(None)

    def _send(self, text: str, timeout: float | None = None) -> None:
        """Write a line to the engine within ``timeout`` seconds (the move timeout by default): the
        pipe is written without blocking, so an engine that stops reading its input (and lets
        the pipe fill) is a hang, not a wait for ever."""
        assert self.proc is not None and self.proc.stdin is not None  # started with a pipe
        limit = self.timeout if timeout is None else timeout
        end = time.monotonic() + limit
        data = (text + "\n").encode()
        try:
            fd = self.proc.stdin.fileno()
            os.set_blocking(fd, False)
            while data:
                left = end - time.monotonic()
                if left <= 0 or not select.select([], [fd], [], left)[1]:
                    self._kill()
                    raise EngineTimeoutError(f"the engine did not read {text.split(None, 1)[0]} within {limit:g} s "
                                             "(hung; restarted)")
                try:
                    data = data[os.write(fd, data):]
                except BlockingIOError:  # the pipe filled between select and write
                    continue
        except (OSError, ValueError):
            self._kill()
            raise EngineTerminatedError("the engine crashed (its input is closed)") from None

    def _until(self, token: str, timeout: float, what: str) -> list[str]:
        """Lines up to the first one starting with ``token`` (returned last); lines that are
        not UAI are logged."""
        def match(line: str) -> bool:
            words = line.split(None, 1)
            if words and words[0] == token:
                return True
            if words and words[0] not in PROTOCOL_WORDS:
                self._unexpected(line, what)
            return False

        return self._read_until(match, timeout, what)

    def _read_until(self, match: Callable[[str], bool], timeout: float, what: str,
                    eof_ok: bool = False) -> list[str]:
        """Lines (stripped) up to the first one ``match`` accepts (returned last), within
        ``timeout`` seconds and the size limits; the end of the output is a crash (with
        ``eof_ok``, the end of what is read: the program is left to be reaped). Raises
        :class:`EngineTimeoutError`, :class:`EngineTerminatedError` or :class:`EngineProtocolError`
        (the program is then stopped)."""
        seen: list[str] = []
        size = 0
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            try:
                line = self.lines.get(timeout=max(0.0, left))
            except queue.Empty:
                self._kill()
                raise EngineTimeoutError(f"no answer to {what} within {timeout:g} s (hung; restarted)") from None
            if line is None:
                if eof_ok:
                    return seen
                code = self.proc.wait() if self.proc else None
                self._kill()
                raise EngineTerminatedError(f"the engine crashed during {what} (exit status {code}; restarted"
                                            f"{self.said()})", code)
            if isinstance(line, _TooLong):
                self._kill()
                raise EngineProtocolError(f"a line of more than {MAX_LINE_BYTES >> 10} KiB in answer to {what} "
                                          "(restarted)")
            size += len(line) + 1
            if size > MAX_ANSWER_BYTES:
                self._kill()
                raise EngineProtocolError(f"more than {MAX_ANSWER_BYTES >> 20} MiB of output in answer to {what} "
                                          "(restarted)")
            seen.append(line.strip())
            if match(line):
                return seen

    def _unexpected(self, line: str, what: str) -> None:
        """Log a line that is not part of the protocol (python-chess: "Unexpected engine output")."""
        self.warnings += 1
        if self.warnings <= MAX_WARNINGS:
            LOGGER.warning("%s: unexpected engine output in answer to %s: %s", self.name, what, quote(line))
        if self.warnings == MAX_WARNINGS:
            LOGGER.warning("%s: further unexpected output is not logged", self.name)

    def _end(self, proc: subprocess.Popen[bytes]) -> None:
        """Kill the engine's process group and every process below it (its forked children,
        those that left the group too), and reap it."""
        self.stop.set()
        below = descendants(proc.pid) if proc.returncode is None else set()  # (a reaped pid may be another's now)
        killpg = getattr(os, "killpg", None)
        try:
            if killpg is not None:
                killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        except OSError:
            pass
        _kill_all(below)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except (OSError, ValueError):
            pass

    def _kill(self) -> None:
        if self.proc is not None:
            self._end(self.proc)
            self.proc = None
            self.restarts += 1

    def close(self) -> None:
        proc = self.proc
        if proc is not None:
            try:
                self._send("quit", timeout=min(self.timeout, 2.0))
                proc.wait(timeout=2)
            except (EngineError, subprocess.TimeoutExpired):
                pass
            self._end(proc)  # whatever it forked and left behind
            self.proc = None

    # -- questions ----------------------------------------------------------------------------

    def bestmove(self, fen: str) -> str:
        """The engine's move text for the position. Raises :class:`EngineTerminatedError`,
        :class:`EngineTimeoutError` or :class:`EngineProtocolError` when the engine fails, and
        :class:`EngineError` when it cannot be started."""
        if self.proc is None:
            self._start()
        self._send(f"position fen {fen}")
        self._send("isready")
        self._until("readyok", self.timeout, "isready")
        self._send(f"go {self.go}".strip())
        lines = self._until("bestmove", self.timeout, "go")
        parts = lines[-1].split()
        if len(parts) < 2:
            raise EngineProtocolError(f"unparsable answer {quote(lines[-1])}")
        return parts[1]
