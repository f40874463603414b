"""Batch solving: every position of some files, in worker processes, into JSON lines.

- Results are written in input order, one JSON object per line (:func:`solved_record`),
  each with the position's file, line and name; a position that cannot be read or
  solved gets a record with ``ok: false`` and its ``error``, and the batch goes on.
- Positions found in the cache (:mod:`solver.cache`) are answered from it; the others
  go to ``jobs`` worker processes and what they solve is written to the cache (by this
  process only, one transaction per position).
- The output file is append-only while the batch runs, one whole line per write, so an
  interrupted run leaves complete lines. Running the same command again keeps the
  records already there that succeeded and whose ``fingerprint`` matches (:func:`fingerprint`:
  everything that determines the record, from the position to the options), solves the
  rest, and finally replaces the file with one in input order (:func:`solver.files.replace_file`).
- The output file must be this command's own: an existing non-empty file whose first line
  is not a record of ours (:func:`is_batch_output`), or that is one of the input files, is
  refused with :class:`solver.files.OutputError` before anything is written.
- Worker processes ignore Ctrl-C (the parent stops them) and die with the parent, even
  when it is killed with SIGKILL (:func:`_init_worker`).
- A cache that fails while the batch runs (a full disk, damaged pages) is dropped and
  :attr:`Summary.cache_problem` says why; the positions are still solved and written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .analysis import Analyzer, Evaluation, Interval
from .board import MAX_SQUARES
from .cache import Cache, CacheError, board_row, side_row
from .files import check_output, replace_file
from .formats import Entry, PositionFormatError, read_file, write_fen
from .notation import game_name
from .report import check_expect_values, proved_outcome_class, side_json, solve_entry
from .rules import X, side_name


# Part of every fingerprint: a new layout of the records makes the old ones stale.
RECORD_FORMAT = 2
# The keys that every record has and that recognise this command's output file.
RECORD_KEYS = ("file", "line", "ok", "fingerprint")


@dataclass
class Options:
    """The options that can change a record (all of them are in its fingerprint)."""

    engine: str = "auto"
    max_states: int | None = None
    max_memory: int | None = None
    timeout: float | None = None
    orth_depth: int | None = None
    tables: str | None = None  # a tablebase directory to answer from


@dataclass
class Summary:
    total: int = 0
    solved: int = 0
    cached: int = 0
    resumed: int = 0
    failed: int = 0
    failures: list = field(default_factory=list)  # (file, line, reason)
    seconds: float = 0.0
    cache_problem: str | None = None  # why the cache was dropped during the run


def _digest(facts: dict) -> str:
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:32]


def fingerprint(entry: Entry, options: Options) -> str:
    """A digest of everything that determines an entry's record: where it was read (file,
    line, name), the position (FEN with side and counter, the rules it is solved under, the
    sides analysed), its ``expect:`` header, every field of ``options`` (limits that could
    make it fail, the engine, the orthodox depth) and :data:`RECORD_FORMAT`. A record is
    reused on resume only when its fingerprint is the one the entry has now."""
    p = entry.position
    return _digest({"format": RECORD_FORMAT, "file": entry.source, "line": entry.line, "name": entry.name,
                    "fen": write_fen(p), "rules": p.rules.name, "sides": list(entry.sides),
                    "expect": entry.expect, "options": dataclasses.asdict(options)})


def _base(entry: Entry, options: Options) -> dict:
    p = entry.position
    return {"file": entry.source, "line": entry.line, "name": entry.name, "fen": write_fen(p),
            "rules": p.rules.name, "to_move": "both" if entry.is_board else entry.sides[0],
            "fingerprint": fingerprint(entry, options)}


def _cached_side(hit, side: str) -> dict:
    """A side's record from the cache, with the keys of :func:`report.side_json`."""
    out = {"lower": hit.lower, "upper": hit.upper, "exact": hit.exact}
    if hit.exact:
        out["value"] = hit.lower
    if hit.exact and hit.depth_known:
        out["outcome"] = Evaluation(hit.lower, hit.depth).outcome
        out["depth"] = hit.depth
    else:
        out["outcome"] = Interval(hit.lower, hit.upper, MAX_SQUARES).outcome
    out["best_move"] = hit.best
    if hit.best is not None and hit.best_bound is not None:
        out["best_move_bound"] = {"lower" if side == X else "upper": hit.best_bound}
    return out


def _finish(rec: dict, entry: Entry, by_side: dict, orthodox: str | None, exact: bool) -> dict:
    """Board facts, the ``expect:`` check and ``ok`` (solved exactly, every expectation met)."""
    if entry.is_board:
        (a_lo, a_hi), (b_lo, b_hi) = by_side["x"], by_side["o"]
        if a_lo == a_hi and b_lo == b_hi:
            rec["stops"] = {"x": a_lo, "o": b_lo}
        rec["outcome_class"] = proved_outcome_class(Interval(a_lo, a_hi, MAX_SQUARES), Interval(b_lo, b_hi, MAX_SQUARES))
        rec["orthodox"] = orthodox
    rec["exact"] = exact
    rec["ok"] = exact
    if not exact:
        rec["error"] = "not solved exactly: " + "; ".join(
            f"{side_name(side)} to move {lo}..{hi}" for side, (lo, hi) in by_side.items() if lo != hi) \
            if any(lo != hi for lo, hi in by_side.values()) else "not solved exactly: the board summary is missing"
    if entry.expect:
        failures = check_expect_values(entry, by_side, orthodox)
        rec["expect"] = {"ok": not failures, "failures": failures}
        if failures:
            rec["ok"] = False
            rec["error"] = "; ".join(failures)
    return rec


_TABLES: dict = {}


def _tables(directory: str | None):
    """The Tablebase of a directory, opened once per process."""
    if directory is None:
        return None
    if directory not in _TABLES:
        from .tablebase import Tablebase

        _TABLES[directory] = Tablebase(directory)
    return _TABLES[directory]


def solved_record(entry: Entry, options: Options, known: dict | None = None, progress=None) -> tuple[dict, list]:
    """Solve one entry: (its record, the cache rows it produced). ``known``: what the cache
    already proved per side (:class:`CachedSide`), where a longer run starts from;
    ``progress(side, status)`` while the search runs."""
    from .engine import choose_oracle, warm_up
    from .tablebase import MissingTableError

    start = time.perf_counter()
    rec = _base(entry, options)
    try:
        oracle = choose_oracle(entry.position, options.engine, max_states=options.max_states,
                               max_memory=options.max_memory, tables=_tables(options.tables))
    except MissingTableError as exc:
        rec.update(ok=False, error=str(exc), seconds=round(time.perf_counter() - start, 4))
        return rec, []
    if options.timeout:
        warm_up(oracle.name)  # a first run compiles the kernels: not on the clock
        oracle.deadline = time.monotonic() + options.timeout
    kw = {} if options.orth_depth is None else {"orth_depth": options.orth_depth}
    report = solve_entry(entry, Analyzer(oracle, **kw), known=known, progress=progress)
    rows = []
    sides, by_side = {}, {}
    for s in report.sides:
        sides[s.side] = side_json(s)
        by_side[s.side] = (s.interval.lower, s.interval.upper)
        if s.exact or s.interval.lower > -s.interval.squares or s.interval.upper < s.interval.squares:
            rows.append(side_row(s.position, s.interval.lower, s.interval.upper,
                                 s.evaluation.depth if s.evaluation is not None else None, s.best_move_name,
                                 s.best_bound if s.best_move is not None else None,
                                 depth_known=s.evaluation is not None))
    orthodox = game_name(report.board.orthodox) if report.board and report.board.orthodox is not None else None
    if orthodox is not None:
        rows.append(board_row(entry.position, orthodox))
    rec.update(sides=sides, engine=report.engine, states=report.states)
    _finish(rec, entry, by_side, orthodox, report.exact)
    stops = sorted({s.stopped for s in report.sides if s.stopped is not None})
    if stops:
        rec["stopped"] = stops[0] if len(stops) == 1 else stops
    rec["seconds"] = round(time.perf_counter() - start, 4)
    return rec, rows


def cached_record(entry: Entry, cache: Cache, options: Options) -> tuple[dict | None, dict]:
    """(the record of an entry answered from the cache, or None if some part is missing or not
    exact; what the cache knows per side, for a run that starts from it). Raises CacheError when
    the cache cannot be read."""
    sides, by_side, known = {}, {}, {}
    complete = True
    for side in entry.sides:
        p = entry.position.replace(turn=side)
        hit = cache.get_side(p)
        if hit is None:
            complete = False
            continue
        known[side] = hit
        if not hit.exact:
            complete = False
        sides[side] = _cached_side(hit, side)
        by_side[side] = (hit.lower, hit.upper)
    orthodox = None
    if complete and entry.is_board:
        orthodox = cache.get_orthodox(entry.position)
        if orthodox is None:
            complete = False
    if not complete:
        return None, known
    rec = _base(entry, options)
    rec.update(sides=sides, engine="cache", states=0)
    _finish(rec, entry, by_side, orthodox, True)
    rec["seconds"] = 0.0
    return rec, known


def table_records(entries: list[Entry], directory: str, options: Options) -> list[dict]:
    """Records of entries with a side to move, answered from tables in bulk (one probe of the
    positions and one of their children per board): value, outcome, depth, best move."""
    from .tablebase import MissingTableError

    tb = _tables(directory)
    start = time.perf_counter()
    out: list = [None] * len(entries)
    groups: dict = {}
    for k, entry in enumerate(entries):
        groups.setdefault((entry.position.board, entry.position.rules.name), []).append(k)
    for ks in groups.values():
        positions = [entries[k].position.replace(turn=entries[k].sides[0]) for k in ks]
        try:
            answers = tb.answers(positions)
        except MissingTableError as exc:
            for k in ks:
                out[k] = dict(_base(entries[k], options), ok=False, error=str(exc), seconds=0.0)
            continue
        for k, p, (u, d, move) in zip(ks, positions, answers):
            entry = entries[k]
            value = u if p.turn == "x" else -u
            depth = None if d == float("inf") else int(d)
            side = entry.sides[0]
            rec = _base(entry, options)
            best = p.move_name(move) if move else None
            rec.update(sides={side: {"lower": value, "upper": value, "exact": True, "value": value,
                                     "outcome": Evaluation(value, depth).outcome, "depth": depth,
                                     "best_move": best}},
                       engine="tables", states=1)
            if best is not None:
                rec["sides"][side]["best_move_bound"] = {"lower" if side == X else "upper": value}
            _finish(rec, entry, {side: (value, value)}, None, True)
            rec["seconds"] = 0.0
            out[k] = rec
    per = (time.perf_counter() - start) / max(1, len(entries))
    for rec in out:
        rec["seconds"] = round(per, 6)
    return out


def error_record(err: PositionFormatError) -> dict:
    return {"file": err.source, "line": err.line, "name": None, "ok": False, "error": err.message,
            "fingerprint": _digest({"format": RECORD_FORMAT, "file": err.source, "line": err.line,
                                    "error": err.message})}


# Live search status of the positions being solved: per worker (nodes, seconds, lower, upper, busy),
# in shared memory so that the parent can show it; set by the pool's initializer in each worker.
LIVE_FIELDS = 5
_live = None
_slot = 0


def _search_status(side: str, st) -> None:
    if _live is not None:
        base = _slot * LIVE_FIELDS
        lo, hi = (st.lower, st.upper) if side == X else (-st.upper, -st.lower)
        _live[base:base + 4] = [float(st.nodes), st.seconds, float(lo), float(hi)]


def _worker(args):
    index, entry, options, known = args
    if _live is not None:
        _live[_slot * LIVE_FIELDS + 4] = 1.0
    try:
        rec, rows = solved_record(entry, options, known, progress=_search_status)
    except Exception as exc:  # a bug in one position must not stop the batch
        rec, rows = dict(_base(entry, options), ok=False, error=f"internal error: {type(exc).__name__}: {exc}"), []
    finally:
        if _live is not None:
            _live[_slot * LIVE_FIELDS:(_slot + 1) * LIVE_FIELDS] = [0.0] * LIVE_FIELDS
    return index, rec, rows


def live_status(live) -> tuple[int, int, float]:
    """(positions being searched, their nodes so far, nodes per second) from a live array."""
    busy = nodes = 0
    rate = 0.0
    for k in range(0, len(live), LIVE_FIELDS):
        if live[k + 4]:
            busy += 1
            nodes += int(live[k])
            rate += live[k] / live[k + 1] if live[k + 1] > 0 else 0.0
    return busy, nodes, rate


def _init_worker(parent: int, live=None, next_slot=None) -> None:
    """In each worker process: leave Ctrl-C to the parent (which stops the pool, so no worker
    prints a traceback of its own), and die with the parent even when it is killed with
    SIGKILL: on Linux the kernel sends SIGKILL when the parent dies (PR_SET_PDEATHSIG);
    everywhere a watchdog thread exits as soon as the process has another parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _live, _slot
    if live is not None:
        with next_slot.get_lock():
            _slot = next_slot.value
            next_slot.value += 1
        _live = live
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            PR_SET_PDEATHSIG = 1
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=watch, daemon=True).start()


def is_batch_output(first: bytes) -> bool:
    """True when ``first`` (the first bytes of a file) starts with a record of this command:
    a JSON object with the keys :data:`RECORD_KEYS`, on a complete first line."""
    line, newline, _ = first.partition(b"\n")
    if not newline:
        return False
    try:
        rec = json.loads(line)
    except ValueError:
        return False
    return isinstance(rec, dict) and all(k in rec for k in RECORD_KEYS)


def read_done(path: Path) -> dict:
    """Records already in an output file that succeeded, by fingerprint; a broken last line
    (an interrupted write) is cut off."""
    done: dict = {}
    if not path.is_file():
        return done
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(end)
    for line in data[:end].decode("utf-8", "replace").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict) and rec.get("ok") and isinstance(rec.get("fingerprint"), str):
            done[rec["fingerprint"]] = rec
    return done


class Output:
    """JSON lines to a file (append-only, a whole line per write) or to a stream."""

    def __init__(self, path: Path | None, stream=None):
        self.path = path
        self.stream = stream
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) if path else None

    def write(self, rec: dict) -> None:
        line = json.dumps(rec) + "\n"
        if self.fd is not None:
            try:
                os.write(self.fd, line.encode())
            except OSError as exc:
                raise OSError(exc.errno, exc.strerror, str(self.path)) from None
        else:
            self.stream.write(line)
            self.stream.flush()

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def run_batch(files: list[str], options: Options, jobs: int = 1, out_path: str | None = None, stream=None,
              cache: Cache | None = None, fmt: str = "auto", rules=None, progress=None, live_view=None) -> Summary:
    """Solve every position of ``files``; records go to ``out_path`` (resumable) or ``stream``.

    ``progress(summary)`` is called after each position; ``live_view(array)`` receives the array
    of the searches running now (read it with :func:`live_status`). Ctrl-C stops the workers and
    raises KeyboardInterrupt after everything finished so far has been written. An
    ``out_path`` that may not be written raises :class:`solver.files.OutputError` first.
    """
    from .rules import CLASSIC

    start = time.perf_counter()
    quiet = os.environ.get("ATAXX_NO_PROGRESS")
    os.environ["ATAXX_NO_PROGRESS"] = "1"  # no progress bars from the solver inside a batch
    try:
        return _run(files, options, jobs, out_path, stream, cache, fmt, rules or CLASSIC, progress, start, live_view)
    finally:
        if quiet is None:
            del os.environ["ATAXX_NO_PROGRESS"]


def _run(files, options, jobs, out_path, stream, cache, fmt, rules, progress, start, live_view=None) -> Summary:
    path = None
    if out_path:
        check_output(out_path, files, is_batch_output, what="results")
        path = Path(out_path)
        if path.is_symlink() and path.resolve().is_file():
            path = path.resolve()  # append to and finally replace the file, not the link
    items = [item for f in files for item in read_file(f, fmt, rules)]
    summary = Summary(total=len(items))
    had_prior = bool(path and path.is_file() and path.stat().st_size > 0)
    done = read_done(path) if path else {}
    out = Output(path, stream)
    records: list = [None] * len(items)
    todo = []

    def from_cache(call):
        """``call(cache)``; a cache that fails is dropped (the summary says why), and gives None."""
        nonlocal cache
        if cache is None:
            return None
        try:
            return call(cache)
        except CacheError as exc:
            summary.cache_problem = str(exc)
            cache = None
            return None

    def record(i: int, rec: dict, write: bool = True) -> None:
        records[i] = rec
        if rec.get("ok"):
            summary.solved += 1
        else:
            summary.failed += 1
            summary.failures.append((rec.get("file"), rec.get("line"), rec.get("error")))
        if write:
            out.write(rec)
        if progress:
            progress(summary)

    # In input order: what is already in the output, what the cache knows, then the rest
    # (a pipe gets the first two at once and the solved ones as they come, in order).
    try:
        pending: dict = {}
        next_to_write = 0
        for i, item in enumerate(items):
            if isinstance(item, PositionFormatError):
                pending[i] = error_record(item)
                continue
            prior = done.get(fingerprint(item, options))
            if prior is not None:
                summary.resumed += 1
                records[i] = prior
                pending[i] = None  # already in the file
                continue
            rec, known = from_cache(lambda c: cached_record(item, c, options)) or (None, {})
            if rec is not None:
                summary.cached += 1
                pending[i] = rec
            else:
                todo.append((i, item, options, known))

        def flush():
            nonlocal next_to_write
            while next_to_write in pending:
                rec = pending.pop(next_to_write)
                if rec is None:
                    summary.solved += 1
                    if progress:
                        progress(summary)
                else:
                    record(next_to_write, rec)
                next_to_write += 1

        flush()
        if options.tables:  # positions with a side to move: in bulk from the tables, here
            bulk = [job for job in todo if not job[1].is_board]
            todo = [job for job in todo if job[1].is_board]
            for (index, *_), rec in zip(bulk, table_records([job[1] for job in bulk], options.tables, options)):
                pending[index] = rec
            flush()
        if todo:
            results = _solve_all(todo, jobs, live_view)
            for index, rec, rows in results:
                if rows:
                    from_cache(lambda c: c.put(rows))  # what an interrupted search proved is kept too
                pending[index] = rec
                flush()
                if rec.get("stopped") == "interrupt":
                    raise KeyboardInterrupt
        flush()
    finally:
        out.close()
        summary.seconds = time.perf_counter() - start
    if path and had_prior and all(r is not None for r in records):
        _rewrite_in_order(path, records)
    return summary


def _solve_all(todo: list, jobs: int, live_view=None):
    """Results of the jobs as (index, record, cache rows), in the order of ``todo``.
    ``live_view(array)`` receives the shared array of the workers' live search status."""
    global _live, _slot
    if jobs <= 1 or len(todo) == 1:
        _live, _slot = [0.0] * LIVE_FIELDS, 0
        if live_view is not None:
            live_view(_live)
        try:
            for job in todo:
                yield _worker(job)
        finally:
            _live = None
        return
    ctx = multiprocessing.get_context("spawn")
    n = min(jobs, len(todo))
    live = ctx.Array("d", n * LIVE_FIELDS, lock=False)
    if live_view is not None:
        live_view(live)
    pool = ctx.Pool(n, initializer=_init_worker, initargs=(os.getpid(), live, ctx.Value("i", 0)))
    try:
        yield from pool.imap(_worker, todo, chunksize=1)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _rewrite_in_order(path: Path, records: list) -> None:
    replace_file(path, (json.dumps(rec) + "\n" for rec in records))
