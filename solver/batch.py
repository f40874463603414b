"""Batch solving: every position of some files, in worker processes, into JSON lines.

- Results are written in input order, one JSON object per line (:func:`solved_record`),
  each with the position's file, line and name; a position that cannot be read or
  solved gets a record with ``ok: false`` and its ``error``, and the batch goes on.
- Positions found in the cache (:mod:`solver.cache`) are answered from it; the others
  go to ``jobs`` worker processes and what they solve is written to the cache (by this
  process only, one transaction per position).
- The output file is append-only while the batch runs, one whole line per write, so an
  interrupted run leaves complete lines. Running the same command again keeps the
  records already there that succeeded, solves the rest, and finally rewrites the file
  in input order.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from .analysis import Analyzer, Evaluation, outcome_class
from .cache import Cache, board_row, side_row
from .formats import Entry, PositionFormatError, read_file, write_fen
from .limits import LimitError
from .notation import game_name
from .report import check_expect_values, solve_entry


@dataclass
class Options:
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


def _base(entry: Entry) -> dict:
    p = entry.position
    return {"file": entry.source, "line": entry.line, "name": entry.name, "fen": write_fen(p),
            "rules": p.rules.name, "to_move": "both" if entry.is_board else entry.sides[0]}


def _finish(rec: dict, entry: Entry, by_side: dict, orthodox: str | None) -> dict:
    if entry.is_board:
        a, b = by_side["x"], by_side["o"]
        rec["stops"] = {"x": a, "o": b}
        rec["outcome_class"] = outcome_class(a, b)
        rec["orthodox"] = orthodox
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


def solved_record(entry: Entry, options: Options) -> tuple[dict, list]:
    """Solve one entry: (its record, the cache rows it produced)."""
    from .engine import choose_oracle
    from .tablebase import MissingTableError

    start = time.perf_counter()
    rec = _base(entry)
    deadline = time.monotonic() + options.timeout if options.timeout else None
    try:
        oracle = choose_oracle(entry.position, options.engine, max_states=options.max_states,
                               max_memory=options.max_memory, deadline=deadline, tables=_tables(options.tables))
        kw = {} if options.orth_depth is None else {"orth_depth": options.orth_depth}
        report = solve_entry(entry, Analyzer(oracle, **kw))
    except LimitError as exc:
        rec.update(ok=False, error=f"stopped: {exc}", seconds=round(time.perf_counter() - start, 4))
        return rec, []
    except MissingTableError as exc:
        rec.update(ok=False, error=str(exc), seconds=round(time.perf_counter() - start, 4))
        return rec, []
    rows = []
    sides, by_side = {}, {}
    for s in report.sides:
        ev, best = s.evaluation, s.best.name if s.best else None
        sides[s.side] = {"value": ev.value, "outcome": ev.outcome, "depth": ev.depth, "best_move": best}
        by_side[s.side] = ev.value
        rows.append(side_row(s.position, ev.value, ev.depth, best))
    orthodox = game_name(report.board.orthodox) if report.board else None
    if orthodox is not None:
        rows.append(board_row(entry.position, orthodox))
    rec.update(ok=True, sides=sides, engine=report.engine, states=report.states)
    _finish(rec, entry, by_side, orthodox)
    rec["seconds"] = round(time.perf_counter() - start, 4)
    return rec, rows


def cached_record(entry: Entry, cache: Cache) -> dict | None:
    """The record of an entry answered from the cache, or None if some part is missing."""
    sides, by_side = {}, {}
    for side in entry.sides:
        p = entry.position.replace(turn=side)
        hit = cache.get_side(p)
        if hit is None:
            return None
        value, depth, best = hit
        sides[side] = {"value": value, "outcome": Evaluation(value, depth).outcome, "depth": depth,
                       "best_move": best}
        by_side[side] = value
    orthodox = None
    if entry.is_board:
        orthodox = cache.get_orthodox(entry.position)
        if orthodox is None:
            return None
    rec = _base(entry)
    rec.update(ok=True, sides=sides, engine="cache", states=0)
    _finish(rec, entry, by_side, orthodox)
    rec["seconds"] = 0.0
    return rec


def table_records(entries: list[Entry], directory: str) -> list[dict]:
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
                out[k] = dict(_base(entries[k]), ok=False, error=str(exc), seconds=0.0)
            continue
        for k, p, (u, d, move) in zip(ks, positions, answers):
            entry = entries[k]
            value = u if p.turn == "x" else -u
            depth = None if d == float("inf") else int(d)
            side = entry.sides[0]
            rec = _base(entry)
            rec.update(ok=True, sides={side: {"value": value, "outcome": Evaluation(value, depth).outcome,
                                              "depth": depth, "best_move": p.move_name(move) if move else None}},
                       engine="tables", states=1)
            _finish(rec, entry, {side: value}, None)
            rec["seconds"] = 0.0
            out[k] = rec
    per = (time.perf_counter() - start) / max(1, len(entries))
    for rec in out:
        rec["seconds"] = round(per, 6)
    return out


def error_record(err: PositionFormatError) -> dict:
    return {"file": err.source, "line": err.line, "name": None, "ok": False, "error": err.message}


def _worker(args):
    index, entry, options = args
    try:
        rec, rows = solved_record(entry, options)
    except Exception as exc:  # a bug in one position must not stop the batch
        rec, rows = dict(_base(entry), ok=False, error=f"internal error: {type(exc).__name__}: {exc}"), []
    return index, rec, rows


def _identity(rec: dict) -> tuple:
    return rec.get("file"), rec.get("line"), rec.get("fen"), rec.get("name")


def read_done(path: Path) -> dict:
    """Records already in an output file that succeeded, by identity; a broken last line
    (an interrupted write) is cut off."""
    done: dict = {}
    if not path.exists():
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
        if isinstance(rec, dict) and rec.get("ok"):
            done[_identity(rec)] = rec
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
            os.write(self.fd, line.encode())
        else:
            self.stream.write(line)
            self.stream.flush()

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def run_batch(files: list[str], options: Options, jobs: int = 1, out_path: str | None = None, stream=None,
              cache: Cache | None = None, fmt: str = "auto", rules=None, progress=None) -> Summary:
    """Solve every position of ``files``; records go to ``out_path`` (resumable) or ``stream``.

    ``progress(summary)`` is called after each position. Ctrl-C stops the workers and
    raises KeyboardInterrupt after everything finished so far has been written.
    """
    from .rules import CLASSIC

    start = time.perf_counter()
    quiet = os.environ.get("ATAXX_NO_PROGRESS")
    os.environ["ATAXX_NO_PROGRESS"] = "1"  # no progress bars from the solver inside a batch
    try:
        return _run(files, options, jobs, out_path, stream, cache, fmt, rules or CLASSIC, progress, start)
    finally:
        if quiet is None:
            del os.environ["ATAXX_NO_PROGRESS"]


def _run(files, options, jobs, out_path, stream, cache, fmt, rules, progress, start) -> Summary:
    items = [item for f in files for item in read_file(f, fmt, rules)]
    summary = Summary(total=len(items))
    path = Path(out_path) if out_path else None
    had_prior = bool(path and path.exists() and path.stat().st_size > 0)
    done = read_done(path) if path else {}
    out = Output(path, stream)
    records: list = [None] * len(items)
    todo = []

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
            prior = done.get(_identity(_base(item)))
            if prior is not None:
                summary.resumed += 1
                records[i] = prior
                pending[i] = None  # already in the file
                continue
            rec = cached_record(item, cache) if cache else None
            if rec is not None:
                summary.cached += 1
                pending[i] = rec
            else:
                todo.append((i, item, options))

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
            for (index, _, _), rec in zip(bulk, table_records([job[1] for job in bulk], options.tables)):
                pending[index] = rec
            flush()
        if todo:
            results = _solve_all(todo, jobs)
            for index, rec, rows in results:
                if cache and rows:
                    cache.put(rows)
                pending[index] = rec
                flush()
        flush()
    finally:
        out.close()
        summary.seconds = time.perf_counter() - start
    if path and had_prior and all(r is not None for r in records):
        _rewrite_in_order(path, records)
    return summary


def _solve_all(todo: list, jobs: int):
    """Results of the jobs as (index, record, cache rows), in the order of ``todo``."""
    if jobs <= 1 or len(todo) == 1:
        for job in todo:
            yield _worker(job)
        return
    ctx = multiprocessing.get_context("spawn")
    pool = ctx.Pool(min(jobs, len(todo)))
    try:
        yield from pool.imap(_worker, todo, chunksize=1)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _rewrite_in_order(path: Path, records: list) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
    os.replace(tmp, path)
