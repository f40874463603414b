"""Benchmarks: one row per case (positions, seconds, positions per second, peak memory).

Each case runs in a fresh process so that its peak memory is its own; the process
first loads the compiled kernels (a warm-up solve), then times the case alone.

Cases:

- ``3x5``, ``4x4``: every position reachable from the standard start, ``classic``, retro engine.
- ``3x4``, ``3x4-reference``: the same on 3 x 4 with the retro engine and with the
  pure-Python reference solver (their ratio is the compiled engine's speed-up).
- ``perft6``: perft 6 from ``startpos`` under ``uai`` (leaves counted).
- ``tables-4x4``: the 4 x 4 tablebase built into a temporary directory (every position,
  files written), with as many threads as cores.
- ``tables-4x5`` (opt-in, not in the default list: about an hour): the same for 4 x 5.
- ``tables-probe``: one million random 4 x 4 positions (either side to move, any number of
  empty squares) probed from the 4 x 4 tables, in one call (the ``tables probe`` path).
- ``tables-batch``: ``batch --tables`` on 100,000 random 4 x 4 positions with a side to move
  (value, depth and best move of each, from the tables in bulk), reading the file included.
- ``endgames-N``: the positions of ``positions/endgames-7x7.txt`` with N empty squares,
  each solved exactly (value for the side to move) by the search engine, with a time
  limit per position; the row gives how many were solved and the median time.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ENDGAME_FILE = Path(__file__).resolve().parent.parent / "positions" / "endgames-7x7.txt"
ENDGAME_EMPTIES = (4, 6, 8, 10, 12, 14, 16)
DEFAULT_TIMEOUT = 60.0


@dataclass
class Row:
    case: str
    engine: str
    positions: int
    seconds: float
    peak_bytes: int
    note: str = ""
    times: list = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.positions / self.seconds if self.seconds > 0 else float("inf")


OPT_IN = ("tables-4x5",)


def case_names(empties=ENDGAME_EMPTIES) -> list[str]:
    """The default cases (``OPT_IN`` cases run only when named)."""
    return (["3x4", "3x4-reference", "3x5", "4x4", "perft6", "tables-4x4", "tables-probe", "tables-batch"]
            + [f"endgames-{e}" for e in empties])


def _peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def _warm_up() -> None:
    from .engine.retro import RetroOracle
    from .engine.search import SearchOracle
    from .rules import CLASSIC, Position

    from .engine.perft import perft

    from .tablebase import AtaxxGame
    from .tiersolver import MemoryStore, TierSolver

    p = Position.start(2, 3)
    RetroOracle(p.board, CLASSIC).prepare([p])
    TierSolver(AtaxxGame(p.board), MemoryStore()).solve()
    SearchOracle(p.board, CLASSIC).value(p)
    perft(p, 2)


def _full_solve(rows: int, cols: int, engine: str) -> Row:
    from .reference import ReferenceOracle
    from .rules import CLASSIC, Position

    p = Position.start(rows, cols, CLASSIC)
    if engine == "reference":
        oracle = ReferenceOracle()
    else:
        from .engine.retro import RetroOracle

        oracle = RetroOracle(p.board, CLASSIC)
    t = time.perf_counter()
    oracle.prepare([p])
    value, _ = oracle.lookup(p)
    seconds = time.perf_counter() - t
    return Row(f"{rows}x{cols} start, full solve", engine, oracle.states, seconds, _peak_bytes(),
               f"value for X to move {value:+d}")


def _perft6() -> Row:
    from .engine.perft import perft
    from .formats import parse_fen
    from .rules import UAI

    p = parse_fen("startpos", UAI)
    t = time.perf_counter()
    n = perft(p, 6)
    seconds = time.perf_counter() - t
    return Row("perft 6 startpos (uai)", "perft", n, seconds, _peak_bytes(), "leaves counted")


def _endgames(empties: int, timeout: float) -> Row:
    from .engine.search import SearchOracle
    from .formats import read_file
    from .limits import LimitError

    entries = [e for e in read_file(str(ENDGAME_FILE)) if not isinstance(e, Exception)
               and e.position.empty.bit_count() == empties]
    times = []
    for e in entries:
        p = e.position
        oracle = SearchOracle(p.board, p.rules, deadline=time.monotonic() + timeout)
        t = time.perf_counter()
        try:
            oracle.value(p)
            times.append(time.perf_counter() - t)
        except LimitError:
            times.append(float("inf"))
    solved = [x for x in times if x != float("inf")]
    median = statistics.median(times) if times else float("nan")
    median_text = f"> {timeout:g} s" if median == float("inf") else f"{median:.2f} s"
    return Row(f"7x7 endgames, {empties} empties", "search", len(solved), sum(solved), _peak_bytes(),
               f"{len(solved)}/{len(times)} within {timeout:g} s, median {median_text}", times)


def _tables_build(rows: int, cols: int) -> Row:
    import tempfile

    from .board import Board
    from .tablebase import build
    from .tiersolver import LocalExecutor

    with tempfile.TemporaryDirectory(prefix="ataxx-tables-") as d:
        t = time.perf_counter()
        report = build(Board(rows, cols), d, executor=LocalExecutor(os.cpu_count() or 1))
        seconds = time.perf_counter() - t
    return Row(f"{rows}x{cols} tablebase, full build", "tables", report.positions, seconds, _peak_bytes(),
               f"{report.entries:,} entries, {report.bytes_on_disk / (1 << 20):,.1f} MiB on disk")


def _random_4x4(count: int, seed: int = 1):
    import numpy as np

    rng = np.random.default_rng(seed)
    digits = rng.integers(0, 3, (count, 16))
    x = np.zeros(count, np.uint64)
    o = np.zeros(count, np.uint64)
    for sq in range(16):
        x |= (digits[:, sq] == 1).astype(np.uint64) << np.uint64(sq)
        o |= (digits[:, sq] == 2).astype(np.uint64) << np.uint64(sq)
    return x, o


def _tables_probe() -> Row:
    import tempfile

    from .board import Board
    from .tablebase import Tablebase, build
    from .tiersolver import LocalExecutor

    count = 1_000_000
    mine, theirs = _random_4x4(count)
    with tempfile.TemporaryDirectory(prefix="ataxx-tables-") as d:
        build(Board(4, 4), d, executor=LocalExecutor(os.cpu_count() or 1))
        tb = Tablebase(d)
        tb.probe_codes(Board(4, 4), mine[:10], theirs[:10])  # open the files (checksums) first
        t = time.perf_counter()
        tb.probe_codes(Board(4, 4), mine, theirs)
        seconds = time.perf_counter() - t
    return Row("4x4 tables, probe random positions", "tables", count, seconds, _peak_bytes(),
               "one call, checksums checked before")


def _tables_batch() -> Row:
    import tempfile

    from .batch import Options, run_batch
    from .board import Board
    from .rules import CLASSIC, Position, X, O
    from .formats import write_fen
    from .tablebase import build
    from .tiersolver import LocalExecutor

    count = 100_000
    mine, theirs = _random_4x4(count, seed=2)
    with tempfile.TemporaryDirectory(prefix="ataxx-tables-") as d:
        build(Board(4, 4), d, executor=LocalExecutor(os.cpu_count() or 1))
        lines = [write_fen(Position(Board(4, 4), int(m), int(t), X if k % 2 else O, 0, CLASSIC))
                 for k, (m, t) in enumerate(zip(mine, theirs))]
        src = Path(d) / "positions.txt"
        src.write_text("\n\n".join(lines) + "\n")
        with open(os.devnull, "w") as sink:
            t = time.perf_counter()
            summary = run_batch([str(src)], Options(tables=d), jobs=os.cpu_count() or 1, stream=sink)
            seconds = time.perf_counter() - t
    return Row("4x4 tables, batch --tables", "tables", summary.solved, seconds, _peak_bytes(),
               "value, depth and best move per position; reading the file included")


def run_case(name: str, timeout: float = DEFAULT_TIMEOUT) -> Row:
    """Run one case in this process (after a warm-up) and return its row."""
    _warm_up()
    if name == "3x4":
        return _full_solve(3, 4, "retro")
    if name == "3x4-reference":
        return _full_solve(3, 4, "reference")
    if name == "3x5":
        return _full_solve(3, 5, "retro")
    if name == "4x4":
        return _full_solve(4, 4, "retro")
    if name == "perft6":
        return _perft6()
    if name in ("tables-4x4", "tables-4x5"):
        return _tables_build(4, 4 if name == "tables-4x4" else 5)
    if name == "tables-probe":
        return _tables_probe()
    if name == "tables-batch":
        return _tables_batch()
    if name.startswith("endgames-") and name[len("endgames-"):].isdigit():
        return _endgames(int(name[len("endgames-"):]), timeout)
    raise ValueError(f"unknown benchmark case {name!r}")


def run_in_subprocess(name: str, timeout: float) -> Row:
    cmd = [sys.executable, "-m", "solver", "bench", "--one", name, "--timeout", str(timeout)]
    env = dict(os.environ, ATAXX_NO_PROGRESS="1")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        reason = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return Row(name, "-", 0, 0.0, 0, f"failed: {reason}")
    return Row(**json.loads(lines[-1]))


def row_json(row: Row) -> dict:
    d = dict(row.__dict__)
    d["times"] = [None if x == float("inf") else round(x, 4) for x in row.times]
    return d


def table(rows: list[Row]) -> str:
    head = ("case", "engine", "positions", "seconds", "positions/s", "peak memory", "")
    body = [(r.case, r.engine, f"{r.positions:,}", f"{r.seconds:.2f}", f"{r.rate:,.0f}" if r.positions else "-",
             f"{r.peak_bytes / (1 << 20):,.0f} MiB", r.note) for r in rows]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    lines = []
    for k, cells in enumerate([head] + body):
        lines.append("  ".join(c.ljust(w) if i in (0, 1, 6) else c.rjust(w)
                               for i, (c, w) in enumerate(zip(cells, widths))).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths[:-1]))
    ratio = _ratio(rows)
    if ratio:
        lines.append("")
        lines.append(ratio)
    return "\n".join(lines)


def _ratio(rows: list[Row]) -> str:
    by = {r.case + "/" + r.engine: r for r in rows}
    fast, slow = by.get("3x4 start, full solve/retro"), by.get("3x4 start, full solve/reference")
    if fast and slow and fast.seconds > 0:
        return f"3 x 4 full solve: retro is {slow.seconds / fast.seconds:,.0f}x faster than the reference solver"
    return ""
