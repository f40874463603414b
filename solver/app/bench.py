"""Benchmarks: one row per case (positions, states, seconds, states per second, peak memory).

Each case runs in a fresh process so that its peak memory is its own; the process
first loads the compiled kernels (a warm-up solve), then times the case alone.

Cases:

- ``3x5``, ``4x4``: every position reachable from the standard start, ``classic``, retro engine.
- ``3x4``, ``3x4-reference``: the same on 3 x 4 with the retro engine and with the
  pure-Python reference solver (their ratio is the compiled engine's speed-up).
- ``RxC-RULES`` (``2x7-uai``, ``3x4-cs61b``, ``3x5-uai``, ...): the full solve from the start
  under another rule set (``2x7`` is the classic one to compare with); any shape and rule set
  can be asked for by name.
- ``3x5-x``, ``3x5-board`` (and ``4x4-...``): what the command prints for the start with X to
  move (value, moves, line), and for the board without a side to move (both sides, stops,
  outcome class, orthodox summary): the second should cost little more than the first.
- ``perft6``, ``perft7``: perft from ``startpos`` under ``uai`` (leaves counted).
- ``tables-4x4``: the 4 x 4 tablebase built into a temporary directory (every position,
  files written), with as many threads as cores.
- ``tables-4x5`` (opt-in, not in the default list: about an hour): the same for 4 x 5.
- ``tables-probe``: one million random 4 x 4 positions (either side to move, any number of
  empty squares) probed from the 4 x 4 tables, in one call (the ``tables probe`` path).
- ``tables-batch``: ``batch --tables`` on 100,000 random 4 x 4 positions with a side to move
  (value, depth and best move of each, from the tables in bulk), reading the file included.
- ``endgames-N`` (``endgames-N-RULES``): the positions of ``solver/data/endgames-7x7.txt`` with
  N empty squares (under their own rules or RULES), each searched for its exact value, outcome
  first, with a time limit per position; the row counts the positions that ended with a proved
  interval and a best move, with the outcome proved, and exact (median times), and gives the
  search's nodes per second of CPU (the states column counts nodes) and its table hit rate.
  Beneath it, the C++ baseline (:mod:`solver.app.baseline`, a plain exact alpha-beta under
  ``uai``) on the same positions with the same time limit, in the same run: its outcomes, exact
  values (median times), nodes and nodes per second of CPU (skipped, with the reason, without g++).
- ``small-uai``: the small 7 x 7 positions of ``solver/data/small-uai-7x7.txt`` (1 and 2 empty
  squares, issue 31's board first) where the solver trailed the C++ search when they were chosen,
  under ``uai``, each searched by both in the same run: the row gives both solved counts and the
  ratio of the solver's time to the C++ search's, position by position (median and worst).
"""

from __future__ import annotations

import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import numpy as np

from solver.app import baseline
from solver.common.limits import Limits
from solver.game.bitboards import mover_bits
from solver.game.board import Board
from solver.game.notation import game_name
from solver.game.perft import perft
from solver.game.rules import CLASSIC, UAI, O, Position, X, parse_rules
from solver.io.formats import Entry, parse_fen, parse_position, read_file, write_fen
from solver.oracles.search import SearchOracle
from solver.solve.batch import BatchOptions, run_batch
from solver.solve.solver import Solver
from solver.tables.build import build, executor_for
from solver.tables.game import AtaxxGame
from solver.tables.probe import Tablebase
from solver.tiers.solver import TierSolver
from solver.tiers.store import MemoryStore

# The 7 x 7 endgame suite ships with the package (written by positions/make_endgames.py).
ENDGAME_FILE = Path(__file__).resolve().parent.parent / "data" / "endgames-7x7.txt"
# ... and the endgames of games between searching players (positions/make_engine_endgames.py).
ENGINE_GAMES_FILE = Path(__file__).resolve().parent.parent / "data" / "endgames-engines-7x7.txt"
# ... and small positions (1 and 2 empty squares) where the solver trailed the C++ search (issue 31).
SMALL_UAI_FILE = Path(__file__).resolve().parent.parent / "data" / "small-uai-7x7.txt"
ENDGAME_EMPTIES = (2, 4, 6, 8)
ENGINE_EMPTIES = (6, 8, 10, 12)
DEFAULT_TIMEOUT = 60.0


@dataclass
class Row:
    """One case: ``positions`` asked (a start, a suite's positions), ``states`` the work (positions
    solved, nodes, leaves) in ``seconds``; ``baseline``: the C++ search's figures on the same
    positions (printed beneath)."""

    case: str
    solver: str
    states: int
    seconds: float
    peak_bytes: int
    note: str = ""
    times: list = field(default_factory=list)
    details: dict = field(default_factory=dict)
    positions: int = 1
    baseline: dict | None = None

    @property
    def rate(self) -> float:
        return self.states / self.seconds if self.seconds > 0 else float("inf")


SOLVE_CASES = ("3x4", "3x5", "4x4", "2x7", "2x7-uai", "2x7-cs61b", "2x7-jump3", "3x4-uai", "3x4-cs61b",
               "3x4-jump3", "3x5-uai")
ANALYSIS_CASES = ("3x5-x", "3x5-board", "4x4-x", "4x4-board")


_SOLVE_RE = re.compile(r"([1-9][0-9]?)x([1-9][0-9]?)(?:-(classic|uai|cs61b|jump3))?")
_ENDGAME_RE = re.compile(r"(endgames|engines)-([0-9]{1,2})(?:-(classic|uai|cs61b|jump3))?")
_THREADS_RE = re.compile(r"threads-([0-9]{1,2})")


OPT_IN = ("tables-4x5",)


def is_case(name: str) -> bool:
    """A case :func:`run_case` knows: a listed or opt-in one, endgames-N[-RULES], or RxC[-RULES] (a full solve)."""
    if name in case_names() or name in OPT_IN or _ENDGAME_RE.fullmatch(name) or _THREADS_RE.fullmatch(name):
        return True
    m = _SOLVE_RE.fullmatch(name)
    return m is not None and 2 <= int(m.group(1)) * int(m.group(2)) <= 64


def case_names(empties: Sequence[int] = ENDGAME_EMPTIES) -> list[str]:
    """The default cases (``OPT_IN`` cases run only when named)."""
    return (["3x4-reference", *SOLVE_CASES, *ANALYSIS_CASES, "perft6", "perft7", "tables-4x4", "tables-probe",
             "tables-batch"] + [f"endgames-{e}" for e in empties] + [f"endgames-{e}-uai" for e in empties]
            + [f"engines-{e}" for e in ENGINE_EMPTIES] + [f"engines-{e}-uai" for e in ENGINE_EMPTIES]
            + [f"threads-{e}" for e in ENGINE_EMPTIES[:2]] + ["small-uai"])


def _peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def _warm_up() -> None:
    p = Position.start(2, 3)
    retro = Solver(algorithm="retro")
    retro.oracle(p).prepare([p])
    retro.oracle(p.replace(rules=UAI)).prepare([p.replace(rules=UAI)])  # the solver of counters
    retro.solve(parse_position("x..\n...\n..o"))  # a board: its summary reads options from the graph
    TierSolver(AtaxxGame(p.board), MemoryStore()).solve()
    Solver(algorithm="search").oracle(p).value(p)
    perft(p, 2)


def _shape(name: str) -> tuple[int, int]:
    rows, cols = name.split("-")[0].split("x")
    return int(rows), int(cols)


def _full_solve(rows: int, cols: int, algorithm: str, rules_name: str = "classic") -> Row:
    rules = parse_rules(rules_name)
    p = Position.start(rows, cols, rules)
    oracle = Solver(algorithm=algorithm).oracle(p)
    t = time.perf_counter()
    oracle.prepare([p])
    value, _ = oracle.lookup(p)
    seconds = time.perf_counter() - t
    rules_text = "" if rules_name == "classic" else f" {rules_name}"
    return Row(f"{rows}x{cols} start{rules_text}, full solve", algorithm, oracle.states, seconds, _peak_bytes(),
               f"value for X to move {value:+d}")


def _analysis(rows: int, cols: int, board: bool) -> Row:
    """What the command computes for the start: with X to move, or as a board (both sides)."""
    p = Position.start(rows, cols, CLASSIC)
    solver = Solver(algorithm="retro")
    analyzer = solver.analyzer(p)
    t = time.perf_counter()
    report = solver.solve(Entry(p, (X, O) if board else (X,)), analyzer=analyzer)
    seconds = time.perf_counter() - t
    what = "board (both sides, summary)" if board else "X to move"
    if board:
        assert report.board is not None and report.board.summary is not None
        note = f"orthodox {game_name(report.board.summary.line)}"
    else:
        evaluation = report.sides[0].evaluation
        assert evaluation is not None
        note = f"value {evaluation.value:+d}"
    return Row(f"{rows}x{cols} start, {what}", "retro", report.states, seconds, _peak_bytes(), note)


def _perft(depth: int) -> Row:
    p = parse_fen("startpos", UAI)
    t = time.perf_counter()
    n = perft(p, depth)
    seconds = time.perf_counter() - t
    return Row(f"perft {depth} startpos (uai)", "perft", n, seconds, _peak_bytes(), "leaves counted")


def _suite_positions(suite: Path, empties: int, rules_name: str | None) -> list[tuple[str, Position]]:
    """The positions of ``suite`` with ``empties`` empty squares (-1: all), under ``rules_name`` if given."""
    out = []
    for e in read_file(str(suite)):
        if isinstance(e, Entry) and empties in (-1, e.position.empty.bit_count()):
            p = e.position if rules_name is None else e.position.replace(rules=parse_rules(rules_name))
            out.append((e.name or "", p))
    return out


def _search_suite(positions: list[tuple[str, Position]], timeout: float, threads: int | None) -> list[dict]:
    """Each position searched for its exact value (outcome first) for ``timeout`` seconds: what was
    proved, when, and the work (nodes, CPU seconds of every thread, table counters)."""
    out = []
    for name, p in positions:
        solver = Solver(algorithm="search", limits=Limits(timeout=timeout), threads=threads)
        oracle = cast(SearchOracle, solver.oracle(p))
        m, t = mover_bits(p)
        c0 = time.process_time()
        b = oracle.bounds_of(m, t, p.counter)
        cpu = time.process_time() - c0
        squares = p.board.playable.bit_count()
        out.append({"name": name, "lower": b.lower, "upper": b.upper, "squares": squares,
                    "nontrivial": b.lower > -squares or b.upper < squares,
                    "outcome": b.outcome_seconds, "exact": b.seconds if b.exact else None,
                    "seconds": b.seconds, "cpu": cpu, "counters": oracle.counters(),
                    "proofs": {k + (f"@{budget}" if k in "PF" else ""): v for (k, budget), v in oracle.proofs.items()}})
    return out


def _proofs_note(results: list[dict]) -> str:
    """Which prover answered the tests of ``results``: the alpha-beta ladders by budget (plies of a
    run), the proof numbers, the search of the real game (the cycle-aware prover under classic)."""
    total: dict[str, int] = {}
    for r in results:
        for k, v in r["proofs"].items():
            total[k] = total.get(k, 0) + v
    budgets: dict[int, int] = {}
    for k, v in total.items():
        if k[0] in "PF":
            budgets[int(k[2:])] = budgets.get(int(k[2:]), 0) + v
    parts = [f"budget {b}: {budgets[b]}" for b in sorted(budgets)]
    parts += [f"{what}: {total[k]}" for k, what in (("D", "proof numbers"), ("C", "real game")) if k in total]
    return "tests answered by " + (", ".join(parts) if parts else "none")


def _median(xs: list[float]) -> str:
    return f"median {statistics.median(xs):.2f} s" if xs else "-"


def _endgames(suite: Path, label: str, empties: int, timeout: float, rules_name: str | None,
              threads: int | None) -> Row:
    """The 7 x 7 endgames of ``suite`` with ``empties`` empty squares (under their own rules, or
    ``rules_name``), each searched for ``timeout`` seconds for its exact value, outcome first. The
    row counts the positions with a non-trivial interval (narrower than the widest), with the
    outcome proved and exact (median times), and gives the nodes per second of CPU time (every
    thread's nodes over every thread's CPU seconds: per core) and the table's hit rate."""
    positions = _suite_positions(suite, empties, rules_name)
    results = _search_suite(positions, timeout, threads)
    n = len(results)
    nodes = sum(r["counters"]["nodes"] for r in results)
    cpu = sum(r["cpu"] for r in results)
    probes = sum(r["counters"]["probes"] for r in results)
    hits = sum(r["counters"]["hits"] for r in results)
    nontrivial = sum(1 for r in results if r["nontrivial"])
    last = sum(r["counters"]["last_plies"] for r in results)
    last_nodes = sum(r["counters"]["last_plies_nodes"] for r in results)
    outcome = [r["outcome"] for r in results if r["outcome"] is not None]
    exact = [r["exact"] for r in results if r["exact"] is not None]
    after = [r["exact"] - r["outcome"] for r in results if r["exact"] is not None and r["outcome"] is not None]
    note = (f"non-trivial {nontrivial}/{n}; outcome {len(outcome)}/{n} ({_median(outcome)}); "
            f"exact {len(exact)}/{n} ({_median(exact)}; from the outcome {_median(after)}); {nodes / cpu / 1e6 if cpu else 0:.2f}M nodes/s per core; "
            f"table hits {hits / probes if probes else 0:.0%}; last plies: {last:,} children in "
            f"{last_nodes / nodes if nodes else 0:.0%} of the nodes; {_proofs_note(results)}")
    name = f"{label}, {empties} empties" + (f", {rules_name}" if rules_name else "")
    times = [r["exact"] if r["exact"] is not None else float("inf") for r in results]
    return Row(name, f"search/{threads or 'all'}", nodes, cpu, _peak_bytes(), note, times,
               {"positions": n, "nontrivial": nontrivial, "outcome": len(outcome), "exact": len(exact),
                "outcome_seconds": outcome, "exact_seconds": exact, "nodes": nodes, "cpu": cpu,
                "timeout": timeout, "threads": threads,
                "results": [{k: v for k, v in r.items() if k != "counters"} for r in results]},
               positions=n, baseline=_baseline([p for _, p in positions], timeout))


def _outcome_known(lower: int, upper: int) -> bool:
    return lower > 0 or upper < 0 or lower == upper


def _baseline(positions: list[Position], timeout: float) -> dict:
    """The C++ search on ``positions`` (under ``uai``, at their clocks), ``timeout`` seconds each:
    its counts, times, nodes and CPU; {"skipped": why} when it cannot be built or run."""
    built = baseline.build()
    if built.path is None:
        return {"skipped": built.reason}
    fens = [write_fen(p.replace(rules=UAI)) for p in positions]
    try:
        results = baseline.solve(built.path, fens, timeout)
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        return {"skipped": f"the C++ search failed: {exc}"}
    outcome = [r["outcome_seconds"] for r in results if _outcome_known(r["lower"], r["upper"])
               and r["outcome_seconds"] is not None]
    exact = [r["exact_seconds"] for r in results if r["exact"]]
    nodes = sum(r["nodes"] for r in results)
    cpu = sum(r["cpu"] for r in results)
    peak = max(r.get("peak_bytes", 0) for r in results)
    return {"positions": len(results), "outcome": len(outcome), "exact": len(exact), "outcome_seconds": outcome,
            "exact_seconds": exact, "nodes": nodes, "cpu": cpu, "peak_bytes": peak, "timeout": timeout,
            "results": results}


def _baseline_line(b: dict) -> tuple[str, ...]:
    """The C++ search's sub-row: the same columns as a row."""
    name = "  c++ alpha-beta (uai), same positions"
    if "skipped" in b:
        return (name, "c++", "-", "-", "-", "-", "-", f"skipped: {b['skipped']}")
    n = b["positions"]
    rate = b["nodes"] / b["cpu"] if b["cpu"] > 0 else 0.0
    note = (f"outcome {b['outcome']}/{n} ({_median(b['outcome_seconds'])}); exact {b['exact']}/{n} "
            f"({_median(b['exact_seconds'])}); {rate / 1e6:.2f}M nodes/s per core")
    return (name, "c++/1", f"{n:,}", f"{b['nodes']:,}", f"{b['cpu']:.2f}", f"{rate:,.0f}",
            f"{b['peak_bytes'] / (1 << 20):,.0f} MiB", note)


def _small_uai(timeout: float, threads: int | None) -> Row:
    """The small positions where the solver trailed the C++ search (``SMALL_UAI_FILE``), under
    ``uai``, each searched by both in this run: how many each solved exactly, and the ratio of the
    solver's time to the C++ search's per position (a position one did not solve counts its
    time limit, a lower bound on its time)."""
    positions = _suite_positions(SMALL_UAI_FILE, -1, "uai")
    results = _search_suite(positions, timeout, threads)
    base = _baseline([p for _, p in positions], timeout)
    n = len(results)
    nodes = sum(r["counters"]["nodes"] for r in results)
    cpu = sum(r["cpu"] for r in results)
    exact = [r["exact"] for r in results if r["exact"] is not None]
    note = f"exact {len(exact)}/{n} ({_median(exact)}); {nodes / cpu / 1e6 if cpu else 0:.2f}M nodes/s per core"
    if "skipped" not in base:
        ratios = []
        for (name, _), r, c in zip(positions, results, base["results"]):
            mine = r["exact"] if r["exact"] is not None else timeout
            theirs = c["exact_seconds"] if c["exact"] else timeout
            ratios.append((mine / max(theirs, 1e-3), name))
        ratios.sort()
        worst = ratios[-1]
        note += (f"; solver/c++ time per position: median {statistics.median(r for r, _ in ratios):.2f}, "
                 f"best {ratios[0][0]:.2f}, worst {worst[0]:.2f} ({worst[1]})")
    times = [r["exact"] if r["exact"] is not None else float("inf") for r in results]
    return Row("small 7x7 positions the c++ search solved faster, uai", f"search/{threads or 'all'}", nodes, cpu,
               _peak_bytes(), note, times,
               {"positions": n, "exact": len(exact), "exact_seconds": exact, "nodes": nodes, "cpu": cpu,
                "timeout": timeout, "threads": threads,
                "results": [{k: v for k, v in r.items() if k != "counters"} for r in results]},
               positions=n, baseline=base)


def _threads(empties: int, timeout: float) -> Row:
    """Two threads against one on the engine games' endgames with ``empties`` empty squares: each
    position searched with one thread and then with two; over the positions where both proved the
    outcome (or the exact value), the ratio of the two runs' times to it."""
    positions = _suite_positions(ENGINE_GAMES_FILE, empties, None)
    one = _search_suite(positions, timeout, 1)
    two = _search_suite(positions, timeout, 2)
    pairs = {}
    for what in ("outcome", "exact"):
        both = [(a[what], b[what]) for a, b in zip(one, two) if a[what] is not None and b[what] is not None]
        pairs[what] = both
    note = "; ".join(f"{what}: {len(both)} both, two/one {sum(b for _, b in both) / sum(a for a, _ in both):.2f}"
                     if both and sum(a for a, _ in both) > 0 else f"{what}: 0 both"
                     for what, both in pairs.items())
    one_more = sum(1 for a, b in zip(one, two) if a["outcome"] is not None and b["outcome"] is None)
    two_more = sum(1 for a, b in zip(one, two) if a["outcome"] is None and b["outcome"] is not None)
    note += f"; outcome proved by one thread only {one_more}, by two only {two_more}"
    cpu = sum(r["cpu"] for r in one + two)
    nodes = sum(r["counters"]["nodes"] for r in one + two)
    return Row(f"engine games, {empties} empties, 2 threads / 1", "search", nodes, cpu, _peak_bytes(), note, [],
               {"one": [{k: v for k, v in r.items() if k != "counters"} for r in one],
                "two": [{k: v for k, v in r.items() if k != "counters"} for r in two], "timeout": timeout},
               positions=2 * len(positions))


def _tables_build(rows: int, cols: int) -> Row:
    with tempfile.TemporaryDirectory(prefix="ataxx-tables-") as d:
        with executor_for(os.cpu_count() or 1) as executor:
            t = time.perf_counter()
            report = build(Board(rows, cols), d, executor=executor)
            seconds = time.perf_counter() - t
    return Row(f"{rows}x{cols} tablebase, full build", "tables", report.positions, seconds, _peak_bytes(),
               f"{report.entries:,} entries, {report.bytes_on_disk / (1 << 20):,.1f} MiB on disk",
               positions=report.positions)


def _random_4x4(count: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    digits = rng.integers(0, 3, (count, 16))
    x = np.zeros(count, np.uint64)
    o = np.zeros(count, np.uint64)
    for sq in range(16):
        x |= (digits[:, sq] == 1).astype(np.uint64) << np.uint64(sq)
        o |= (digits[:, sq] == 2).astype(np.uint64) << np.uint64(sq)
    return x, o


def _tables_probe() -> Row:
    count = 1_000_000
    mine, theirs = _random_4x4(count)
    with tempfile.TemporaryDirectory(prefix="ataxx-tables-") as d:
        with executor_for(os.cpu_count() or 1) as executor:
            build(Board(4, 4), d, executor=executor)
        tb = Tablebase(d)
        tb.probe_codes(Board(4, 4), mine[:10], theirs[:10])  # open the files (checksums) first
        t = time.perf_counter()
        tb.probe_codes(Board(4, 4), mine, theirs)
        seconds = time.perf_counter() - t
    return Row("4x4 tables, probe random positions", "tables", count, seconds, _peak_bytes(),
               "one call, checksums checked before", positions=count)


def _tables_batch() -> Row:
    count = 100_000
    mine, theirs = _random_4x4(count, seed=2)
    with tempfile.TemporaryDirectory(prefix="ataxx-tables-") as d:
        with executor_for(os.cpu_count() or 1) as executor:
            build(Board(4, 4), d, executor=executor)
        lines = [write_fen(Position(Board(4, 4), int(m), int(t), X if k % 2 else O, 0, CLASSIC))
                 for k, (m, t) in enumerate(zip(mine, theirs))]
        src = Path(d) / "positions.txt"
        src.write_text("\n\n".join(lines) + "\n")
        with open(os.devnull, "w") as sink:
            t = time.perf_counter()
            summary = run_batch([str(src)], BatchOptions(tables=d), jobs=os.cpu_count() or 1, stream=sink)
            seconds = time.perf_counter() - t
    return Row("4x4 tables, batch --tables", "tables", summary.solved, seconds, _peak_bytes(),
               "value, depth and best move per position; reading the file included", positions=count)


def run_case(name: str, timeout: float = DEFAULT_TIMEOUT, threads: int | None = None) -> Row:
    """Run one case in this process (after a warm-up) and return its row."""
    _warm_up()
    if name == "3x4-reference":
        return _full_solve(3, 4, "reference")
    if name in ANALYSIS_CASES:
        return _analysis(*_shape(name), board=name.endswith("-board"))
    if name in ("perft6", "perft7"):
        return _perft(int(name[-1]))
    if name in ("tables-4x4", "tables-4x5"):
        return _tables_build(4, 4 if name == "tables-4x4" else 5)
    if name == "tables-probe":
        return _tables_probe()
    if name == "tables-batch":
        return _tables_batch()
    m = _ENDGAME_RE.fullmatch(name)
    if m:
        suite, label = ((ENDGAME_FILE, "7x7 endgames") if m.group(1) == "endgames"
                        else (ENGINE_GAMES_FILE, "engine games"))
        return _endgames(suite, label, int(m.group(2)), timeout, m.group(3), threads)
    m = _THREADS_RE.fullmatch(name)
    if m:
        return _threads(int(m.group(1)), timeout)
    if name == "small-uai":
        return _small_uai(timeout, threads)
    m = _SOLVE_RE.fullmatch(name)
    if m:
        return _full_solve(int(m.group(1)), int(m.group(2)), "retro", m.group(3) or "classic")
    raise ValueError(f"unknown benchmark case {name!r}")


def run_in_subprocess(name: str, timeout: float, threads: int | None = None) -> Row:
    cmd = [sys.executable, "-m", "solver", "bench", "--one", name, "--timeout", str(timeout)]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        reason = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return Row(name, "-", 0, 0.0, 0, f"failed: {reason}")
    return Row(**json.loads(lines[-1]))


def row_json(row: Row) -> dict:
    d = dict(row.__dict__)
    d["times"] = [None if x is None or x == float("inf") else round(x, 4) for x in row.times]
    return d


def table(rows: list[Row]) -> str:
    """The rows as a table (positions, states, seconds, states per second, peak memory, note), each
    row with a baseline followed by the C++ search's figures on the same positions."""
    head: tuple[str, ...] = ("case", "solver", "positions", "states", "seconds", "states/s", "peak memory", "")
    body: list[tuple[str, ...]] = []
    for r in rows:
        body.append((r.case, r.solver, f"{r.positions:,}", f"{r.states:,}", f"{r.seconds:.2f}",
                     f"{r.rate:,.0f}" if r.states else "-", f"{r.peak_bytes / (1 << 20):,.0f} MiB", r.note))
        if r.baseline is not None:
            body.append(_baseline_line(r.baseline))
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    lines = []
    for k, cells in enumerate([head] + body):
        lines.append("  ".join(c.ljust(w) if i in (0, 1, 7) else c.rjust(w)
                               for i, (c, w) in enumerate(zip(cells, widths))).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths[:-1]))
    ratio = _ratio(rows)
    if ratio:
        lines.append("")
        lines.append(ratio)
    return "\n".join(lines)


RATIOS = [  # (what, case of the numerator, case of the denominator)
    ("3 x 4 full solve, reference / retro", "3x4 start, full solve/reference", "3x4 start, full solve/retro"),
    ("3 x 5 board analysis / X to move", "3x5 start, board (both sides, summary)/retro", "3x5 start, X to move/retro"),
    ("4 x 4 board analysis / X to move", "4x4 start, board (both sides, summary)/retro", "4x4 start, X to move/retro"),
] + [(f"{shape} full solve, {rules} / classic", f"{shape[0]}x{shape[-1]} start {rules}, full solve/retro",
      f"{shape[0]}x{shape[-1]} start, full solve/retro")
     for shape in ("2 x 7", "3 x 4", "3 x 5") for rules in ("uai", "cs61b", "jump3")]


def _ratio(rows: list[Row]) -> str:
    by = {r.case + "/" + r.solver: r for r in rows}
    lines = []
    for what, top, bottom in RATIOS:
        a, b = by.get(top), by.get(bottom)
        if a and b and a.states and b.states and b.seconds > 0:
            lines.append(f"{what}: {a.seconds / b.seconds:,.2f}x")
    return "\n".join(lines)
