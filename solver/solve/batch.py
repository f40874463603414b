"""Batch solving: every position of some files, in worker processes, into JSON lines.

- Results are written in input order, one JSON object per line (:func:`solved_record`),
  each with the position's file, line and name; a position that cannot be read or
  solved gets a record with ``ok: false`` and its ``error``, and the batch goes on.
- Positions found in the cache (:mod:`solver.solve.cache`) are answered from it; the others
  go to ``jobs`` worker processes and what they solve is written to the cache (by this
  process only, one transaction per position).
- The output file is append-only while the batch runs, one whole line per write, so an
  interrupted run leaves complete lines. Running the same command again keeps the
  records already there that succeeded and whose ``fingerprint`` matches (:func:`fingerprint`:
  everything that determines the record, from the position to the options), solves the
  rest, and finally replaces the file with one in input order (:func:`solver.common.files.replace_file`).
- The output file must be this command's own: an existing non-empty file whose first line
  is not a record of ours (:func:`is_batch_output`), or that is one of the input files, is
  refused with :class:`solver.common.files.OutputError` before anything is written.
- Worker processes ignore Ctrl-C (the parent stops them) and die with the parent, even
  when it is killed with SIGKILL (:func:`_init_worker`).
- With ``--tables`` (and no cache), a file of FEN lines separated by blank lines is read by a
  kernel (:mod:`solver.io.fenlines`) and its positions with a side to move on a board the tables
  hold are answered in bulk (:func:`bulk_table_lines`): one probe of the positions and one of
  their children per board, the records written as JSON text from templates, the same records
  as :func:`table_records` makes, at some 100,000 positions a second.
- A cache that fails while the batch runs (a full disk, damaged pages) is dropped and
  :attr:`BatchSummary.cache_problem` says why; the positions are still solved and written.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import logging
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, MutableSequence, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any, TextIO, TypeVar

import numpy as np

from solver.common.files import check_output, replace_file
from solver.common.limits import Limits, total_memory
from solver.game.board import Board
from solver.game.notation import Notation
from solver.game.rules import CLASSIC, PASS, Position, Rules, Side, X, side_name
from solver.io.fenlines import FenLines, read_fen_lines
from solver.io.formats import Entry, PositionFormatError, read_file, write_fen
from solver.io.pgn import Pick
from solver.oracles.oracle import Progress, StopReason
from solver.solve.analysis import Evaluation, Interval, Outcome, proved_outcome_class
from solver.solve import budget
from solver.solve.cache import Cache, CacheError, board_row, side_row
from solver.solve.report import BoardResult, Report, SideResult, side_json
from solver.solve.solver import Solver, check_expect
from solver.tables.index import TableError
from solver.tables.probe import MissingTableError, Tablebase, decode_many, infinite_depth

Record = dict[str, Any]  # one JSON line of the results
Job = tuple[int, Entry, "BatchOptions", dict[Side, SideResult]]  # (index in the input, entry, options, what is known)
Solved = tuple[int, Record, list[tuple[Any, ...]]]  # (index in the input, record, cache rows)
LiveArray = MutableSequence[float]  # the live search status (a list, or a shared array of doubles)
T = TypeVar("T")

# Part of every fingerprint: a new layout of the records makes the old ones stale.
RECORD_FORMAT = 3
# The keys that every record has and that recognise this command's output file.
RECORD_KEYS = ("file", "line", "ok", "fingerprint")


@dataclass
class BatchOptions:
    """The options that can change a record (all of them are in its fingerprint; plain values
    only, which the fingerprint reads with vars())."""

    solver: str = "auto"
    max_states: int | None = None
    max_memory: int | None = None
    timeout: float | None = None
    orth_depth: int | None = None
    tables: str | None = None  # a tablebase directory to answer from
    nodes: int | None = None   # a node budget per position, on one thread (Limits.nodes)
    notation: str = "uai"      # how the records write moves (solver.game.notation.NOTATIONS)
    tables_memory: int | None = None  # bytes of tables the search reads whole (not in the fingerprint: speed only)


@dataclass
class BatchSummary:
    total: int = 0
    solved: int = 0
    cached: int = 0
    resumed: int = 0
    failed: int = 0
    bounded: int = 0  # of the failed: not exact, but with something proved (an interval narrower than all)
    outcomes: int = 0  # of the failed: the outcome proved for every side analysed (a win or a draw)
    failures: list = field(default_factory=list)  # (file, line, reason)
    seconds: float = 0.0
    cache_problem: str | None = None  # why the cache was dropped during the run
    records: list = field(default_factory=list)  # every record, in input order (a dict, or its JSON text)


def _digest(facts: dict) -> str:
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:32]


def _proved_something(rec: dict) -> bool:
    """Whether a record that is not exact still proved a bound on some side: an interval
    narrower than all the playable squares (the FEN's pieces and empty squares, blocks not)."""
    board = (rec.get("fen") or "").split(" ")[0]
    squares = sum(int(n) for n in re.findall(r"[0-9]+", board)) + sum(c in "xo" for c in board) or None
    for side in (rec.get("sides") or {}).values():
        lower, upper = side.get("lower"), side.get("upper")
        if lower is not None and upper is not None and not side.get("exact") and \
                (squares is None or lower > -squares or upper < squares):
            return True
    return False


def _proved_outcome(rec: dict) -> bool:
    """Whether a record that is not exact proved the outcome (who wins, or a draw) of every side."""
    sides = list((rec.get("sides") or {}).values())
    return bool(sides) and all(s.get("outcome") in ("x-wins", "o-wins", "draw") for s in sides)


def interrupted(rec: dict) -> bool:
    """Whether Ctrl-C stopped a record's work (``stopped``: one reason, or a list of them when
    the two sides stopped for different reasons)."""
    stopped = rec.get("stopped")
    return stopped == StopReason.INTERRUPT or (isinstance(stopped, list) and StopReason.INTERRUPT in stopped)


def fingerprint(entry: Entry, options: BatchOptions, fen: str | None = None) -> str:
    """A digest of everything that determines an entry's record: where it was read (file,
    line, name), the position (FEN with side and counter, the rules it is solved under, the
    sides analysed), its ``expect:`` header, every field of ``options`` (limits that could
    make it fail, the solver, the orthodox depth) and :data:`RECORD_FORMAT`. A record is
    reused on resume only when its fingerprint is the one the entry has now."""
    p = entry.position
    return _digest(_facts(entry.source, entry.line, entry.name, fen or write_fen(p), p.rules.name, list(entry.sides),
                          entry.expect, options))


def _facts(source: str, line: Any, name: str | None, fen: str, rules: str, sides: list, expect: dict,
           options: BatchOptions) -> dict:
    """What :func:`fingerprint` digests."""
    # BatchOptions holds plain values only: vars() is its asdict(), at a fraction of the cost
    return {"format": RECORD_FORMAT, "file": source, "line": line, "name": name, "fen": fen, "rules": rules,
            "sides": sides, "expect": expect,
            "options": {k: v for k, v in vars(options).items()  # (as before --nodes and --notation)
                        if not (k == "nodes" and v is None) and not (k == "notation" and v == "uai")
                        and k != "tables_memory"}}


def _base(entry: Entry, options: BatchOptions) -> dict:
    p = entry.position
    fen = write_fen(p)
    return {"file": entry.source, "line": entry.line, "name": entry.name, "fen": fen,
            "rules": p.rules.name, "to_move": "both" if entry.is_board else entry.sides[0],
            "fingerprint": fingerprint(entry, options, fen)}


def record(report: Report, options: BatchOptions, seconds: float) -> dict:
    """The record of a report (solved now, from the cache or from tables): where it was read,
    per side the keys of ``--json`` (:func:`solver.solve.report.side_json`), the solver, the board's
    facts, the ``expect:`` check, ``ok`` (solved exactly, every expectation met) and why not."""
    entry = report.entry
    rec = _base(entry, options)
    rec["sides"] = {s.side.value: side_json(s, notation=Notation(options.notation)) for s in report.sides}
    rec["solver"] = report.solver
    rec["states"] = report.states
    if report.board is not None:
        if report.board.stops is not None:
            rec["stops"] = {"x": report.board.stops[0], "o": report.board.stops[1]}
        rec["outcome_class"] = report.board.outcome_class
        rec["orthodox"] = report.board.orthodox_name
    rec["exact"] = rec["ok"] = report.exact
    if not report.exact:
        open_ = [s for s in report.sides if not s.exact]
        rec["error"] = "not solved exactly: " + ("; ".join(
            f"{side_name(s.side)} to move {s.interval.lower}..{s.interval.upper}" for s in open_)
            if open_ else "the board summary is missing")
    if entry.expect:
        rec["expect"] = {"ok": not report.expect_failures, "failures": report.expect_failures}
        if report.expect_failures:
            rec["ok"] = False
            rec["error"] = "; ".join(report.expect_failures)
    stops = sorted({s.stopped for s in report.sides if s.stopped is not None})
    if stops:
        rec["stopped"] = stops[0] if len(stops) == 1 else stops
    rec["seconds"] = round(seconds, 6)
    return rec


_TABLES: dict = {}


def _tables(directory: str | None, search_bytes: int | None = None) -> Tablebase | None:
    """The Tablebase of a directory, opened once per process (``search_bytes``: as in :class:`Tablebase`)."""
    if directory is None:
        return None
    if (directory, search_bytes) not in _TABLES:
        _TABLES[directory, search_bytes] = Tablebase(directory, search_bytes=search_bytes)
    return _TABLES[directory, search_bytes]


def solved_record(entry: Entry, options: BatchOptions, known: dict | None = None,
                  progress: Callable[[Progress], None] | None = None) -> tuple[dict, list]:
    """Solve one entry: (its record, the cache rows it produced). ``known``: what the cache
    already proved per side (a :class:`~solver.solve.report.SideResult`), where a longer run starts
    from; ``progress`` receives the engines' progress while they run."""
    start = time.perf_counter()
    solver = Solver(entry.position.rules, options.solver,
                    Limits(options.max_states, options.max_memory, options.timeout, nodes=options.nodes),
                    progress=progress, tables=_tables(options.tables, options.tables_memory), orth_depth=options.orth_depth)
    try:
        analyzer = solver.analyzer(entry.position)
        report = solver.solve(entry, known=known, analyzer=analyzer)
    except (MissingTableError, TableError) as exc:  # no table, or a tier missing or damaged: this entry fails
        rec = _base(entry, options)
        rec.update(ok=False, error=str(exc), seconds=round(time.perf_counter() - start, 4))
        return rec, []
    rows = [side_row(s) for s in report.sides
            if s.exact or s.interval.lower > -s.interval.squares or s.interval.upper < s.interval.squares]
    if report.board is not None and report.board.orthodox_name is not None:
        rows.append(board_row(entry.position, report.board.orthodox_name))
    return record(report, options, time.perf_counter() - start), rows


def cached_record(entry: Entry, cache: Cache, options: BatchOptions) -> tuple[dict | None, dict]:
    """(the record of an entry answered from the cache, or None if some part is missing or not
    exact; what the cache knows per side, for a run that starts from it). Raises CacheError when
    the cache cannot be read."""
    sides, known = [], {}
    complete = True
    for side in entry.sides:
        hit = cache.get_side(entry.position.replace(turn=side))
        if hit is None:
            complete = False
            continue
        known[side] = hit
        sides.append(hit)
        # (an exact row without its preferred move, or with one whose ties were not known, is
        # solved again: a record gives the move a fresh solve gives)
        complete = complete and hit.exact and (hit.best_move is not None or hit.position.is_over())
    board = None
    if complete and entry.is_board:
        orthodox = cache.get_orthodox(entry.position)
        if orthodox is None:
            complete = False
        else:
            a, b = sides[0].interval, sides[1].interval
            board = BoardResult((a.lower, b.lower), proved_outcome_class(a, b), None, orthodox)
    if not complete:
        return None, known
    report = Report(entry, "cache", sides, board, 0, 0.0, check_expect(entry, sides, board))
    return record(report, options, 0.0), known


def table_records(entries: list[Entry], directory: str, options: BatchOptions) -> list[dict]:
    """Records of entries with a side to move that the tables answer
    (:meth:`~solver.tables.probe.Tablebase.answers_for`), in bulk (one probe of the positions and
    one of their children per board): value, outcome, depth, best move."""
    tb = _tables(directory, options.tables_memory)
    assert tb is not None
    start = time.perf_counter()
    reports: list = [None] * len(entries)
    groups: dict = {}
    for k, entry in enumerate(entries):
        groups.setdefault((entry.position.board, entry.position.rules.name), []).append(k)
    for ks in groups.values():
        positions = [entries[k].position.replace(turn=entries[k].sides[0]) for k in ks]
        try:
            answers: list = tb.answers(positions)
        except (MissingTableError, TableError):  # some tier missing or damaged: find whose, one by one
            answers = []
            for k, p in zip(ks, positions):
                try:
                    answers.extend(tb.answers([p]))
                except (MissingTableError, TableError) as exc:
                    answers.append(exc)
        for k, p, answer in zip(ks, positions, answers):
            if isinstance(answer, Exception):
                reports[k] = dict(_base(entries[k], options), ok=False, error=str(answer), seconds=0.0)
                continue
            u, d, move = answer
            value = u if p.turn == X else -u
            squares = p.board.playable.bit_count()
            side = SideResult(p, Interval(value, value, squares), Evaluation(value, None if d == float("inf") else int(d)),
                              best_move=move, best_bound=None if move is None else value)
            reports[k] = Report(entries[k], "tables", [side], None, 1, 0.0, check_expect(entries[k], [side], None))
    per = (time.perf_counter() - start) / max(1, len(entries))
    out = [r if isinstance(r, dict) else record(r, options, per) for r in reports]
    for rec in out:
        rec["seconds"] = round(per, 6)
    return out


def _fingerprints(source: str, options: BatchOptions, lines: list[int], fens: list[str], sides: list[str]) -> list[str]:
    """:func:`fingerprint` of one-line entries with no header (one side to move, classic rules),
    many at once: the JSON is a template with the line, the FEN and the side put in."""
    marks = ("@@FEN@@", 987654321987654321, "@@SIDE@@")
    text = json.dumps(_facts(source, marks[1], None, marks[0], CLASSIC.name, [marks[2]], {}, options), sort_keys=True)
    cut = [text.find(json.dumps(m)) for m in marks]
    if sorted(cut) != cut or any(text.count(json.dumps(m)) != 1 for m in marks):  # a file name with a mark in it
        return [_digest(_facts(source, n, None, f, CLASSIC.name, [sd], {}, options))
                for n, f, sd in zip(lines, fens, sides)]
    a, rest = text.split('"@@FEN@@"')
    b, rest = rest.split("987654321987654321")
    c, d = rest.split('"@@SIDE@@"')
    sha = hashlib.sha256
    return [sha(f'{a}"{f}"{b}{n}{c}"{sd}"{d}'.encode()).hexdigest()[:32] for n, f, sd in zip(lines, fens, sides)]


_MARKS = {"line": 987654321987654321, "fen": "@@FEN@@", "fingerprint": "@@FP@@", "value": "@@V@@",
          "outcome": "@@OUTCOME@@", "depth": "@@DEPTH@@", "best": "@@BEST@@"}


def _record_template(source: str, board: Board, side: Side, bound: bool, options: BatchOptions) -> list[str | int]:
    """The JSON text of :func:`record` for a position of ``board`` answered by the tables, with
    ``side`` to move (and a best move whose bound is written, or not), cut at the leaves that
    change from one position to the next: literal text and the keys of :data:`_MARKS`, in turn,
    up to the value of ``seconds``. So the bulk path writes what :func:`record` writes, without a
    Python object per position (the keys, their order and the constants are record()'s)."""
    p = Position(board, 0, 0, side, 0, CLASSIC)
    squares = board.playable.bit_count()
    vacuous = -squares if side == X else squares
    res = SideResult(p, Interval(1, 1, squares), Evaluation(1, 1), best_move=PASS, best_bound=1 if bound else vacuous)
    rec = record(Report(Entry(p, (side,), source, 1), "tables", [res], None, 1, 0.0, []), options, 0.0)
    rec.update(line=_MARKS["line"], fen=_MARKS["fen"], fingerprint=_MARKS["fingerprint"])
    facts = rec["sides"][side.value]
    facts.update(lower=_MARKS["value"], upper=_MARKS["value"], value=_MARKS["value"], outcome=_MARKS["outcome"],
                 depth=_MARKS["depth"], best_move=_MARKS["best"])
    if bound:
        facts["best_move_bound"] = {k: _MARKS["value"] for k in facts["best_move_bound"]}
    text = json.dumps(rec)
    assert text.endswith('"seconds": 0.0}'), text  # record() writes seconds last
    text = text[:-len("0.0}")]
    marks = {json.dumps(m): key for key, m in _MARKS.items()}
    pieces: list[str | int] = []
    for piece in re.split("(" + "|".join(re.escape(m) for m in marks) + ")", text):
        pieces.append(list(_MARKS).index(marks[piece]) if piece in marks else piece)
    return pieces


def bulk_table_lines(fl: FenLines, ks: list[int], tablebase: Tablebase, board: Board,
                     options: BatchOptions) -> tuple[list[str], list[str]]:
    """(record lines, fingerprints) of plain FENs ``ks`` of ``fl`` (:mod:`solver.io.fenlines`), each
    with a side to move, of one board the tables hold, under the classic rules: the records
    :func:`table_records` makes for them, as JSON text up to the value of ``seconds`` (the caller
    adds it and the closing brace: ``line + "1e-05}"``), with no Python object per position but a
    few strings (:func:`_record_template`: record()'s text with the leaves put in)."""
    sel = np.asarray(ks, np.int64)
    turn = fl.turn[sel]
    x, o = fl.x[sel], fl.o[sel]
    mine, theirs = np.where(turn == 0, x, o), np.where(turn == 0, o, x)
    own, over, frm, to = tablebase.answer_arrays(board, mine, theirs)
    value, depth = decode_many(own)
    value = np.where(turn == 0, value, -value).tolist()
    depth = depth.tolist()
    inf = infinite_depth()
    names = [board.square_name(sq) for sq in range(board.size)]
    squares = board.playable.bit_count()
    side_of = ["x", "o"]
    sides = [side_of[t] for t in turn.tolist()]
    counter = fl.counter[sel].tolist() if fl.rules.counter else [0] * len(ks)
    fens = [f"{fl.board_fen[k]} {sd} {c} {m}" for k, sd, c, m in zip(ks, sides, counter, fl.fullmove[sel].tolist())]
    lines = fl.line[sel].tolist()
    prints = _fingerprints(fl.source, options, lines, fens, sides)
    templates = {(sd, bound): _record_template(fl.source, board, Side(sd), bound, options)
                 for sd in side_of for bound in (False, True)}
    out = []
    for n, fen, sd, fp, v, d, ov, f, t in zip(lines, fens, sides, prints, value, depth, over.tolist(), frm.tolist(),
                                              to.tolist()):
        outcome = (Outcome.X_WINS if v > 0 else Outcome.O_WINS if v < 0 else Outcome.INFINITE_PLAY if d == inf
                   else Outcome.DRAW)
        best = "null" if ov else '"0000"' if t < 0 else f'"{names[t]}"' if f < 0 else f'"{names[f]}{names[t]}"'
        leaves = (str(n), f'"{fen}"', f'"{fp}"', str(v), f'"{outcome}"', "null" if d == inf else str(d), best)
        bound = not ov and v != (-squares if sd == "x" else squares)
        out.append("".join(leaves[piece] if isinstance(piece, int) else piece for piece in templates[sd, bound]))
    return out, prints


def _bulk_items(fl: FenLines, tablebase: Tablebase, options: BatchOptions, lines: list[str], prints: list[str]) -> list:
    """The items of a file of FEN lines (:func:`solver.io.fenlines.read_fen_lines`): the positions with
    a side to move on a board the tables hold become ints, their records appended to ``lines``
    (and fingerprints to ``prints``) by :func:`bulk_table_lines`; the others are entries, read as
    always."""
    out = list(fl.items)
    n = fl.turn.shape[0]
    base = len(lines)
    texts = np.empty(n, object)
    fps = np.empty(n, object)
    bulk = np.zeros(n, bool)
    for (rows, cols, blocks), board in fl.boards().items():
        held = tablebase.tiers_held(board)  # (a position with fewer empty squares is answered)
        if held:
            empty = np.bitwise_count(np.uint64(board.playable) & ~(fl.x | fl.o))
            ks = np.flatnonzero((fl.rows == rows) & (fl.cols == cols) & (fl.blocks == np.uint64(blocks))
                                & (fl.turn >= 0) & (empty < held))
            texts[ks], fps[ks] = bulk_table_lines(fl, ks.tolist(), tablebase, board, options)
            bulk[ks] = True
    for k in np.flatnonzero(~bulk).tolist():
        out[fl.at[k]] = fl.entry(k)
    if base:  # the plain FENs of this file follow those of the files before
        for j in fl.at[bulk].tolist():
            out[j] += base
    lines.extend(texts.tolist())
    prints.extend(fps.tolist())
    return out


def error_record(err: PositionFormatError) -> dict:
    return {"file": err.source, "line": err.line, "name": err.name, "ok": False, "error": err.message,
            "fingerprint": _digest({"format": RECORD_FORMAT, "file": err.source, "line": err.line,
                                    "error": err.message})}


# Live search status of the positions being solved: per worker (nodes, seconds, lower, upper, busy),
# in shared memory so that the parent can show it; set by the pool's initializer in each worker.
LIVE_FIELDS = 5
_live: LiveArray | None = None
_slot = 0


def _search_status(ev: Progress) -> None:
    if _live is not None and ev.phase == "searching":
        base = _slot * LIVE_FIELDS
        _live[base:base + 4] = [float(ev.done), ev.seconds, float(ev.lower or 0), float(ev.upper or 0)]


def _worker(args: Job) -> Solved:
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


def live_status(live: Sequence[float]) -> tuple[int, int, float]:
    """(positions being searched, their nodes so far, nodes per second) from a live array."""
    busy = nodes = 0
    rate = 0.0
    for k in range(0, len(live), LIVE_FIELDS):
        if live[k + 4]:
            busy += 1
            nodes += int(live[k])
            rate += live[k] / live[k + 1] if live[k + 1] > 0 else 0.0
    return busy, nodes, rate


def _log_setup() -> tuple[int, list[str]]:
    """How the parent shows the library's log messages: the level of logger ``solver`` and the
    formats of its handlers (a worker process, started fresh, logs the same way)."""
    logger = logging.getLogger("solver")
    return logger.level, [h.formatter._fmt or "%(message)s" for h in logger.handlers if h.formatter is not None]


def _init_worker(parent: int, live: LiveArray | None = None, next_slot: Synchronized[int] | None = None,
                 log_setup: tuple[int, list[str]] | None = None) -> None:
    """In each worker process: leave Ctrl-C to the parent (which stops the pool, so no worker
    prints a traceback of its own), log as the parent does, and die with the parent even when
    it is killed with SIGKILL: on Linux the kernel sends SIGKILL when the parent dies
    (PR_SET_PDEATHSIG); everywhere a watchdog thread exits as soon as the process has another parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if log_setup is not None:
        level, formats = log_setup
        logger = logging.getLogger("solver")
        for fmt in formats:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter(fmt))
            logger.addHandler(handler)
        logger.setLevel(level)
    global _live, _slot
    if live is not None and next_slot is not None:
        with next_slot.get_lock():
            _slot = next_slot.value
            next_slot.value += 1
        _live = live
    if sys.platform.startswith("linux"):
        try:
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

    def __init__(self, path: Path | None, stream: TextIO | None = None):
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
            assert self.stream is not None  # a path or a stream
            self.stream.write(line)
            self.stream.flush()

    def write_lines(self, lines: list[str]) -> None:
        """Records given as JSON text, in one write."""
        text = "\n".join(lines) + "\n"
        if self.fd is not None:
            data = memoryview(text.encode())
            try:
                while data:
                    data = data[os.write(self.fd, data):]
            except OSError as exc:
                raise OSError(exc.errno, exc.strerror, str(self.path)) from None
        else:
            assert self.stream is not None
            self.stream.write(text)
            self.stream.flush()

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def run_batch(files: list[str], options: BatchOptions, jobs: int = 1, out_path: str | None = None,
              stream: TextIO | None = None, cache: Cache | None = None, fmt: str = "auto", rules: Rules | None = None,
              progress: Callable[[BatchSummary], None] | None = None,
              live_view: Callable[[LiveArray], None] | None = None, pick: Pick | None = None,
              notice: Callable[[str], None] | None = None) -> BatchSummary:
    """Solve every position of ``files`` (of a PGN file, the positions ``pick`` takes from its games); records go to ``out_path`` (resumable) or ``stream``.

    ``progress(summary)`` is called after each position; ``live_view(array)`` receives the array
    of the searches running now (read it with :func:`live_status`). Ctrl-C stops the workers and
    raises KeyboardInterrupt after everything finished so far has been written. An
    ``out_path`` that may not be written raises :class:`solver.common.files.OutputError` first.
    ``notice(line)`` is called once, before any solve, when no limit is given and some positions
    may take long (:mod:`solver.solve.budget`).
    """
    start = time.perf_counter()
    return _run(files, options, jobs, out_path, stream, cache, fmt, rules or CLASSIC, progress, start, live_view, pick,
                notice)


def _run(files: list[str], options: BatchOptions, jobs: int, out_path: str | None, stream: TextIO | None,
         cache: Cache | None, fmt: str, rules: Rules, progress: Callable[[BatchSummary], None] | None, start: float,
         live_view: Callable[[LiveArray], None] | None = None, pick: Pick | None = None,
         notice: Callable[[str], None] | None = None) -> BatchSummary:
    path = None
    if out_path:
        check_output(out_path, files, is_batch_output, what="results")
        path = Path(out_path)
        if path.is_symlink() and path.resolve().is_file():
            path = path.resolve()  # append to and finally replace the file, not the link
    bulk_start = time.perf_counter()
    bulk_lines: list[str] = []  # records answered from tables in bulk, as JSON text (seconds to add)
    bulk_prints: list[str] = []  # their fingerprints
    items: list = []  # an Entry, a PositionFormatError or an int: a record of bulk_lines
    tablebase = _tables(options.tables, options.tables_memory) if cache is None and rules.name == CLASSIC.name else None
    for f in files:
        # (the bulk path writes moves in the SPEC's notation only)
        lines = read_fen_lines(f, fmt, rules) if tablebase is not None and options.notation == "uai" else None
        if lines is None:
            items.extend(read_file(f, fmt, rules, pick))
        else:
            assert tablebase is not None
            items.extend(_bulk_items(lines, tablebase, options, bulk_lines, bulk_prints))
    if notice is not None and options.timeout is None and options.nodes is None and options.max_states is None:
        algorithm_for = Solver(algorithm=options.solver, limits=Limits(max_memory=options.max_memory)).algorithm_for
        long = [(f"{e.source}:{e.line}", e.position) for e in items
                if isinstance(e, Entry) and budget.may_take_long(algorithm_for(e.position), e.position)]
        if long:
            notice(budget.many_note(long, len(items)))  # no silent hours
    bulk_seconds = json.dumps(round((time.perf_counter() - bulk_start) / max(1, len(bulk_lines)), 6)) + "}"
    summary = BatchSummary(total=len(items))
    had_prior = bool(path and path.is_file() and path.stat().st_size > 0)
    done = read_done(path) if path else {}
    out = Output(path, stream)
    records: list[Record | str | None] = [None] * len(items)  # str: a record as JSON text
    todo: list[Job] = []

    def from_cache(call: Callable[[Cache], T]) -> T | None:
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

    def record(i: int, rec: Record, write: bool = True) -> None:
        records[i] = rec
        if rec.get("ok"):
            summary.solved += 1
        else:
            summary.failed += 1
            summary.bounded += _proved_something(rec)
            summary.outcomes += _proved_outcome(rec)
            summary.failures.append((rec.get("file"), rec.get("line"), rec.get("error")))
        if write:
            out.write(rec)
        if progress:
            progress(summary)

    # In input order: what is already in the output, what the cache knows, then the rest
    # (a pipe gets the first two at once and the solved ones as they come, in order).
    try:
        pending: dict[int, Record | int | None] = {}  # None: already in the output file; int: of bulk_lines
        next_to_write = 0
        for i, item in enumerate(items):
            if type(item) is int:
                prior = done.get(bulk_prints[item]) if done else None
                if prior is not None:
                    summary.resumed += 1
                    records[i] = prior
                    pending[i] = None
                else:
                    pending[i] = item
                continue
            if isinstance(item, PositionFormatError):
                pending[i] = error_record(item)
                continue
            prior = done.get(fingerprint(item, options)) if done else None  # no earlier output: nothing to reuse
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

        def write_run(run: list[str]) -> None:
            out.write_lines(run)
            summary.solved += len(run)
            if progress:
                progress(summary)

        def flush() -> None:
            nonlocal next_to_write
            run: list[str] = []  # records from the tables in bulk, written together
            while next_to_write in pending:
                rec = pending.pop(next_to_write)
                if type(rec) is int:
                    records[next_to_write] = line = bulk_lines[rec] + bulk_seconds
                    run.append(line)
                    next_to_write += 1
                    if len(run) == 4096:
                        write_run(run)
                        run = []
                    continue
                if run:
                    write_run(run)
                    run = []
                if rec is None:
                    summary.solved += 1
                    if progress:
                        progress(summary)
                elif isinstance(rec, dict):
                    record(next_to_write, rec)
                next_to_write += 1
            if run:
                write_run(run)

        flush()
        if options.tables:  # positions with a side to move that the tables hold: in bulk from them, here
            held = _tables(options.tables, options.tables_memory)
            assert held is not None
            answered = [not job[1].is_board and held.answers_for(job[1].position.replace(turn=job[1].sides[0]))
                        for job in todo]
            bulk = [job for job, yes in zip(todo, answered) if yes]
            todo = [job for job, yes in zip(todo, answered) if not yes]
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
                if interrupted(rec):
                    raise KeyboardInterrupt
        flush()
    finally:
        out.close()
        summary.seconds = time.perf_counter() - start
    if path and had_prior and all(r is not None for r in records):
        _rewrite_in_order(path, records)
    summary.records = records
    return summary


def worker_options(options: BatchOptions, workers: int) -> BatchOptions:
    """The options one of ``workers`` worker processes solves with: each reads its own copy of
    the tables its searches probe, so without ``tables_memory`` the default (a quarter of the
    machine, :class:`~solver.tables.probe.Tablebase`) is shared among them, at least 1 GiB each."""
    if not options.tables or options.tables_memory is not None:
        return options
    return replace(options, tables_memory=max(1 << 30, total_memory() // 4 // max(1, workers)))


def _solve_all(todo: list[Job], jobs: int, live_view: Callable[[LiveArray], None] | None = None) -> Iterator[Solved]:
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
    todo = [(i, entry, worker_options(options, n), known) for i, entry, options, known in todo]
    live = ctx.Array("d", n * LIVE_FIELDS, lock=False)
    if live_view is not None:
        live_view(live)
    # The workers start with Ctrl-C ignored (an ignored signal stays ignored across exec), so that one
    # still importing when Ctrl-C comes, before its initializer ran, prints no traceback.
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main_thread else None
    try:
        pool = ctx.Pool(n, initializer=_init_worker, initargs=(os.getpid(), live, ctx.Value("i", 0), _log_setup()))
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, previous)
    try:
        yield from pool.imap(_worker, todo, chunksize=1)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _rewrite_in_order(path: Path, records: list) -> None:
    replace_file(path, ((rec if isinstance(rec, str) else json.dumps(rec)) + "\n" for rec in records))
