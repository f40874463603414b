"""The C++ baseline beside the bench: a plain exact alpha-beta under the ``uai`` rules.

``alphabeta.cpp`` (next to this file, shipped as package data, never imported) is the
project's own program: bitboards, a transposition table keyed on the board and the
halfmove clock, the table's move then captures first, the outcome by two null-window
tests and the value by MTD(f) (its header says more). The bench builds it with
``g++ -O2 -march=native`` when g++ is there (for this processor, as numba compiles the
solver's kernels: with its popcount instruction; plain ``-O2`` where the compiler refuses
that flag), into a cache directory named by the source's digest and the flags
(``$XDG_CACHE_HOME/ataxx-solver``, else ``~/.cache/ataxx-solver``; never the source
tree), and runs it on the positions the solver searched, in the same run, so that the
solver's lead (or its lag) is measured every time.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SOURCE = Path(__file__).resolve().parent / "alphabeta.cpp"
TABLE_MIB = 256  # the C++ search's transposition table (the solver's default is at most 512 MiB)
# g++'s flags, the first the compiler accepts: for this processor (as numba's kernels are; the
# popcount instruction, not a library call: 11 % more nodes a second on this project's 8-empty
# endgames), else portable
FLAGS = (["-O2", "-march=native"], ["-O2"])


@dataclass
class Baseline:
    """The built program, or why there is none (``path`` None and ``reason`` set)."""

    path: Path | None
    reason: str = ""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ataxx-solver"


def _program(out_dir: Path, source: bytes, flags: list[str]) -> Path:
    """Where the program built from ``source`` with ``flags`` is kept (named by their digest)."""
    return out_dir / f"alphabeta-{hashlib.sha256(source + ' '.join(flags).encode()).hexdigest()[:16]}"


def build(directory: Path | None = None) -> Baseline:
    """The program, compiled once per version of its source (:data:`FLAGS`); a reason when it cannot be."""
    compiler = shutil.which("g++")
    if compiler is None:
        return Baseline(None, "g++ not found")
    if not SOURCE.is_file():
        return Baseline(None, f"{SOURCE.name} is not installed")
    source = SOURCE.read_bytes()
    out_dir = directory or cache_dir()
    for flags in FLAGS:
        target = _program(out_dir, source, flags)
        if target.is_file() and os.access(target, os.X_OK):
            return Baseline(target)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix="alphabeta-", dir=out_dir)
        os.close(fd)
        for flags in FLAGS:
            proc = subprocess.run([compiler, *flags, "-std=c++17", "-o", tmp, str(SOURCE)], capture_output=True,
                                  text=True)
            if proc.returncode == 0:
                break
        if proc.returncode != 0:
            os.unlink(tmp)
            lines = proc.stderr.strip().splitlines()
            return Baseline(None, f"g++ failed: {lines[0] if lines else proc.returncode}")
        target = _program(out_dir, source, flags)  # (named by the flags that built it)
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)  # atomic: two benches building at once both end with a whole program
    except OSError as exc:
        return Baseline(None, f"cannot build in {out_dir}: {exc.strerror or exc}")
    return Baseline(target)


def solve(program: Path, fens: list[str], timeout: float, table_mib: int = TABLE_MIB) -> list[dict]:
    """Each position (a FEN with its side to move and clock) searched for ``timeout`` seconds under
    ``uai``: one dict per position (lower, upper, exact, outcome_seconds, exact_seconds, seconds,
    cpu, nodes, peak_bytes; the value's bounds for the side to move)."""
    if not fens:
        return []
    proc = subprocess.run([str(program), "solve", f"{timeout:g}", str(table_mib)], input="\n".join(fens) + "\n",
                          capture_output=True, text=True, timeout=len(fens) * (timeout + 30) + 60)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        raise RuntimeError(lines[-1] if lines else f"exit status {proc.returncode}")
    out = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    if len(out) != len(fens):
        raise RuntimeError(f"{len(out)} answers for {len(fens)} positions")
    return out


def perft(program: Path, fen: str, depth: int) -> list[int]:
    """Leaves at each depth 1..depth from ``fen`` under ``uai`` (the program's move generator)."""
    proc = subprocess.run([str(program), "perft", fen, str(depth)], capture_output=True, text=True, check=True)
    return [int(x) for x in proc.stdout.split()]
