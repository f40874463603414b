"""Driving a UAI engine in a subprocess: ``uai``, ``isready``, ``position fen``, ``go``, ``bestmove``.

Every wait has a time limit. An engine that exits, stops answering, or answers
garbage is reported through :class:`EngineProblem` for that position; the next
question restarts it.
"""

from __future__ import annotations

import queue
import shlex
import subprocess
import threading
import time


class EngineProblem(Exception):
    """The engine failed on one question (crashed, hung, or answered nonsense)."""


class UAIEngine:
    def __init__(self, command: str, go: str = "depth 6", timeout: float = 10.0, startup_timeout: float = 10.0):
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("empty engine command")
        self.go = go
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen | None = None
        self.lines: queue.Queue = queue.Queue()
        self.name = command
        self.restarts = 0

    # -- process ------------------------------------------------------------------------------

    def _start(self) -> None:
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as exc:
            self.proc = None
            raise EngineProblem(f"cannot start {self.argv[0]!r}: {exc.strerror}") from None
        self.lines = queue.Queue()
        threading.Thread(target=self._reader, args=(self.proc, self.lines), daemon=True).start()
        self._send("uai")
        for line in self._until("uaiok", self.startup_timeout, "uai"):
            if line.startswith("id name "):
                self.name = line[len("id name "):].strip() or self.command

    @staticmethod
    def _reader(proc, lines) -> None:
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)  # end of output: the engine exited

    def _send(self, text: str) -> None:
        try:
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._kill()
            raise EngineProblem("the engine crashed (its input is closed)") from None

    def _until(self, token: str, timeout: float, what: str) -> list[str]:
        """Lines up to the first one starting with ``token`` (returned last)."""
        seen = []
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            try:
                line = self.lines.get(timeout=max(0.0, left))
            except queue.Empty:
                self._kill()
                raise EngineProblem(f"no answer to {what} within {timeout:g} s (hung; restarted)") from None
            if line is None:
                code = self.proc.wait() if self.proc else None
                self._kill()
                raise EngineProblem(f"the engine crashed during {what} (exit status {code}; restarted)")
            seen.append(line.strip())
            if line.strip().split(" ")[0] == token:
                return seen

    def _kill(self) -> None:
        if self.proc is not None:
            try:
                self.proc.kill()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self.proc = None
            self.restarts += 1

    def close(self) -> None:
        if self.proc is not None:
            try:
                self._send("quit")
                self.proc.wait(timeout=2)
            except (EngineProblem, subprocess.TimeoutExpired):
                pass
            if self.proc is not None and self.proc.poll() is None:
                self.proc.kill()
            self.proc = None

    # -- questions ----------------------------------------------------------------------------

    def bestmove(self, fen: str) -> str:
        """The engine's move text for the position (raises EngineProblem)."""
        if self.proc is None:
            self._start()
        self._send(f"position fen {fen}")
        self._send("isready")
        self._until("readyok", self.timeout, "isready")
        self._send(f"go {self.go}".strip())
        lines = self._until("bestmove", self.timeout, "go")
        parts = lines[-1].split()
        if len(parts) < 2:
            raise EngineProblem(f"unparsable answer {lines[-1]!r}")
        return parts[1]
