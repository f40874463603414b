"""The ``ataxx-solve`` command: parses arguments, calls the API, prints.

Commands are argparse subcommands (:func:`build_parser`): ``solve`` (the default: a
command line that does not start with a command's name is solve's, its files or
standard input), ``batch``, ``verify``, ``perft``, ``bench``, ``cache`` and ``tables``
(itself with subcommands). A first word that is neither a command nor a file is one
line and exit status 2.

Exit status: 0 when everything was solved (and every ``expect:`` held),
1 when a position could not be solved within the limits or an ``expect:``
failed, 2 for bad input, bad arguments or a file that cannot be read or
written (one line on stderr says which and why), 130 when interrupted (Ctrl-C; 143
for SIGTERM, which is handled the same way: what was proved is reported), and 70
only for a bug (an "internal error"). ``verify`` documents its own.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import re
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NoReturn, TextIO

from . import __version__, bench, certificate, uai_engine, valuetable
from .analysis import DEFAULT_ORTH_DEPTH, SUMMARY_WIDTH, Analyzer
from .annotate import annotated_pgn, is_annotated_pgn, read_pgn_file
from .batch import LiveArray, Options, live_status, run_batch
from .batch import Summary as BatchSummary
from .board import Board
from .cache import Cache, CacheError, default_cache_path
from .cluster import ClusterError
from .epd import ce_mismatches, is_epd_output, suite_lines
from .files import OutputError, check_output, replace_file
from .gamevalue import DEFAULT_MAX_STATES, MAX_SQUARES
from .formats import (FORMATS, MAX_GAME_MOVES, Entry, PositionFormatError, parse_position, parse_whole, printable, quote, read_file,
                      read_text, write_fen)
from .limits import Limits, default_memory_budget, parse_size
from .notation import NOTATIONS, Notation, signed
from .oracle import Progress
from .perft import MAX_DEPTH, perft
from .pgn import Pick, parse_empty_range
from .pictures import DEFAULT_TREE_DEPTH, board_svg, game_tree_dot, html_report, move_before
from .players import make_asker
from .report import Report, report_json, report_text, stop_text
from .rules import RULE_SETS, O, Position, Side, X, parse_rules, side_name
from .search import TableFileError
from .solving import ALGORITHMS, Solver
from .tablebase import MissingTableError, Tablebase
from .tablebuild import Executor, build, bytes_text, executor_for, plan_build
from .tablechecks import check_tables, compare_with_retro, compare_with_search, contents
from .tablefiles import board_name, parse_board_name
from .tableindex import TableError, dense_index
from .tierresume import TierInterrupted
from .uai import MAX_ANSWER_BYTES, MAX_LINE_BYTES, adopting_orphans
from .verify import Check, Verifier, choices_from_file, only_players, run_verify, summarise, summary_table

EXIT_OK, EXIT_FAILED, EXIT_INPUT, EXIT_INTERRUPTED, EXIT_INTERNAL = 0, 1, 2, 130, 70
EXIT_TERMINATED = 128 + signal.SIGTERM  # interrupted by SIGTERM (143)

# Bounds on the numbers of the arguments (each one's help or error message says so).
MAX_STATES = 10 ** 15
MAX_JOBS = 256
MAX_SUMMARY_DEPTH = 64  # --orth-depth and --tree-depth: both trees grow exponentially long before
MAX_SECONDS = 10_000_000
MAX_SEED = 2 ** 63 - 1
_SECONDS = re.compile(r"[0-9]{1,12}(\.[0-9]{0,9})?|\.[0-9]{1,9}")
# What each picture file starts with: an existing file that does not is not overwritten.
SIGNATURES = {"dot": b"digraph ataxx", "svg": b"<svg ", "html": b"<!DOCTYPE html>",
              "certificate": certificate.MAGIC.encode()}


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error: ``ataxx-solve: error: argument --timeout: ... (see --help)``."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_INPUT, f"{self.prog}: error: {printable(message)} (see {self.prog} --help)\n")


def _whole(low: int, high: int) -> Callable[[str], int]:
    """An argument type: a whole number from ``low`` to ``high`` in ASCII digits (1_000 or 1,000 too)."""

    def convert(text: str) -> int:
        try:
            return parse_whole(text.strip().replace("_", "").replace(",", ""), "", low, high)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).strip()) from None

    return convert



def _empty_squares(text: str) -> tuple[int, int]:
    try:
        return parse_empty_range(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_game_options(p: argparse.ArgumentParser, default: str) -> None:
    """``--ply N`` and ``--empty A-B``: which positions of each game of a PGN file are read."""
    p.add_argument("--ply", type=_whole(0, MAX_GAME_MOVES), metavar="N",
                   help=f"PGN games: the position after N plies of each game (default: {default})")
    p.add_argument("--empty", type=_empty_squares, metavar="A-B",
                   help="PGN games: every position with A to B empty squares (with --ply: that one, if in range)")


def add_notation_option(p: argparse.ArgumentParser) -> None:
    """``--notation uai|cs61b``: how moves and sides are written for people."""
    p.add_argument("--notation", default="uai", choices=NOTATIONS,
                   help="how moves and sides are written: uai (b6, a7c5, 0000; X and O; the default) or cs61b "
                        "(a7-b6, a7-c5, -; red and blue, as Berkeley's CS 61B Ataxx writes them)")


def game_pick(args: argparse.Namespace, every: bool = False) -> Pick:
    return Pick(args.ply, args.empty, every)


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _seconds(text: str) -> float:
    t = text.strip()
    if not _SECONDS.fullmatch(t):
        raise argparse.ArgumentTypeError(f"must be a number of seconds like 2 or 0.5, not {quote(text)}")
    value = float(t)
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most {MAX_SECONDS:,} seconds, not {quote(text)}")
    return value


class _Stderr(logging.Handler):
    """Log records as lines on the standard error of the moment (tests replace it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(printable(self.format(record)) + "\n")
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - logging's own convention
            self.handleError(record)


def log_to_stderr(level: int = logging.WARNING, fmt: str = "ataxx-solve: %(message)s") -> None:
    """Show the library's log messages (logger ``solver``) on stderr: the compile notice, a bad
    cache row; with ``tables -v``, a line per tier. The library itself never prints."""
    logger = logging.getLogger("solver")
    handler = next((h for h in logger.handlers if isinstance(h, _Stderr)), None)
    if handler is None:
        handler = _Stderr()
        logger.addHandler(handler)
    handler.setFormatter(logging.Formatter(fmt))
    logger.setLevel(level)


def _say(text: str) -> None:
    """One line on stderr, with control characters from the input escaped."""
    print(printable(text), file=sys.stderr)


class _NotAnEngine(argparse.Action):
    """``--engine`` given to solve or batch: an engine is a program under test (verify's option);
    the solving algorithm is ``--solver``. One line, exit status 2."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        parser.error(f"{option_string} names a program under test (ataxx-solve verify --engine CMD); "
                     f"the solving algorithm is --solver {'|'.join(ALGORITHMS)}")


def add_solver_options(p: argparse.ArgumentParser, engine_is_player: bool = False) -> None:
    """The options every solving command shares: rules, which solver, and the limits per position.
    Where ``--engine`` does not name a player under test (``engine_is_player``), it is refused."""
    p.add_argument("--rules", default="classic", choices=sorted(RULE_SETS),
                   help="rules for positions without a rules: header (default: classic)")
    p.add_argument("--solver", default="auto", choices=ALGORITHMS,
                   help="the solving algorithm (default: auto)")
    if not engine_is_player:
        p.add_argument("--engine", action=_NotAnEngine, help=argparse.SUPPRESS)
    p.add_argument("--max-states", type=_whole(1, MAX_STATES), metavar="N",
                   help="stop a position cleanly when more than N positions would be solved (or nodes searched); "
                        f"at most {MAX_STATES:,}")
    p.add_argument("--max-memory", type=_size, metavar="SIZE",
                   help="memory budget for the tables, e.g. 2G (default: three quarters of the machine)")
    p.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                   help=f"stop a position cleanly after this long (at most {MAX_SECONDS:,})")
    p.add_argument("--nodes", type=_whole(1, MAX_STATES), metavar="N",
                   help="a node budget for each position (each move in verify), on one thread: the same results on "
                        "every machine, whatever its speed or load")
    p.add_argument("--tables", metavar="DIR",
                   help="answer from the tablebases in DIR (built by 'ataxx-solve tables build') the positions they hold; "
                        "the others are solved as without them, the search probing the tables at its leaves "
                        "(classic rules)")
    p.add_argument("--tables-memory", type=_size, metavar="SIZE",
                   help="memory for the tiers of --tables that the search reads whole to probe at its leaves, e.g. 16G "
                        "(default: a quarter of the machine, at least 1G; batch's worker processes share it, "
                        "each reading its own copy)")
    p.add_argument("--threads", type=_whole(1, 256), metavar="N",
                   help="threads one search uses (default: every processor)")


def limits_of(args: argparse.Namespace) -> Limits:
    """The Limits of the solver options; ``--nodes`` with ``--threads`` over 1 is refused (exit 2)."""
    nodes, threads = getattr(args, "nodes", None), getattr(args, "threads", None)
    if nodes is not None and threads is not None and threads > 1:
        args.parser.error(f"argument --nodes: a node budget is the same on every machine only on one thread; "
                          f"leave out --threads {threads}")
    return Limits(args.max_states, args.max_memory, args.timeout, nodes=nodes)


def open_tables(directory: str | None, prog: str = "ataxx-solve", option: str = "--tables",
                search_bytes: int | None = None) -> Tablebase | None:
    """The Tablebase of --tables (``search_bytes``: --tables-memory), or None; a directory that
    cannot be used is one line and exit 2."""
    if directory is None:
        return None
    try:
        return Tablebase(directory, search_bytes=search_bytes)
    except TableError as exc:
        _say(f"{prog}: {option}: {exc}")
        raise SystemExit(EXIT_INPUT)


_Commands = argparse._SubParsersAction  # what add_subparsers() returns: add_parser() adds a command

# The commands, in the order of the help, with their one-line help.
COMMANDS = {
    "solve": "solve positions (the default: 'ataxx-solve FILE' is 'ataxx-solve solve FILE')",
    "batch": "solve every position of files in worker processes, into JSON lines, with a cache",
    "verify": "check an AI's moves (recorded, or asked of UAI engines and built-in players)",
    "perft": "count move sequences from a position, as libataxx does",
    "bench": "run the benchmarks",
    "cache": "look at or clear the solved-position cache",
    "tables": "tablebases: build, probe, check, compare, info",
    "certificate": "check a certificate (the strategies behind proved bounds) with the plain rules",
    "uai": "play as a UAI engine on standard input and output (for cuteataxx, GUIs, verify --engine)",
    "values": "a researcher's table: the game value (canonical form, mean, temperature) of every small start",
}
_COMMAND_WORD = re.compile(r"[a-z][a-z0-9-]*")


def _add_solve(commands: _Commands) -> _Parser:
    p = commands.add_parser(
        "solve", prog="ataxx-solve", help=COMMANDS["solve"], formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Exact values of Ataxx positions. Reads position files (grid, colon grid, FEN or CS 61B\n"
                    "dump; several positions separated by blank lines), or standard input when no file is given.",
        epilog="commands (ataxx-solve COMMAND --help for each):\n"
               + "\n".join(f"  {name:<8} {text}" for name, text in COMMANDS.items()),
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="position files (default: standard input)")
    p.add_argument("--to-move", choices=("x", "o", "both"),
                   help="side(s) to move to analyse (default: the input's side, or both for a board without one)")
    p.add_argument("--format", default="auto", choices=FORMATS, help="input format (default: detect)")
    add_game_options(p, "the final position")
    add_notation_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object per position (keys in README.md)")
    p.add_argument("--moves", action="store_true", help="list every legal move with its exact value")
    p.add_argument("--value", action="store_true",
                   help="the board's game value: canonical form (CGSuite syntax), stops, mean, temperature")
    p.add_argument("--cut-loops", action="store_true",
                   help="--value by Chen's convention: repetitions cut to 0, zugzwangs kept (says what it cut)")
    p.add_argument("--thermograph", metavar="FILE",
                   help="write the thermograph of the board's game value as SVG (implies --value)")
    p.add_argument("--outcome-only", action="store_true",
                   help="stop once the outcome (win, loss or draw) is proved, without the margin or the line")
    add_solver_options(p)
    p.add_argument("--orth-depth", type=_whole(0, MAX_SUMMARY_DEPTH), metavar="N",
                   help=f"expand orthodox summaries to N levels (default: the line as deep as fits in "
                        f"{SUMMARY_WIDTH} characters, the tree and JSON at least {DEFAULT_ORTH_DEPTH} levels)")
    p.add_argument("--orth-format", choices=("line", "tree"), default="line",
                   help="print orthodox summaries on one line (default) or as an indented tree")
    p.add_argument("--dot", metavar="FILE", help="write the solved game tree as Graphviz DOT")
    p.add_argument("--tree-depth", type=_whole(0, MAX_SUMMARY_DEPTH), default=DEFAULT_TREE_DEPTH, metavar="N",
                   help=f"plies of the tree in --dot (default {DEFAULT_TREE_DEPTH}, at most {MAX_SUMMARY_DEPTH})")
    p.add_argument("--svg", metavar="FILE", help="draw the board as SVG, each square tinted by the value of moving there")
    p.add_argument("--table-file", metavar="FILE",
                   help="the search resumes from FILE when it exists and saves its tables to it after each position, "
                        "so that several runs add up (one board and rule set per file)")
    p.add_argument("--certificate", metavar="FILE",
                   help="write every bound proved with the strategy that proves it, for 'ataxx-solve certificate "
                        "check FILE' (FILE, FILE-2, ... for several positions)")
    p.add_argument("--version", action="version", version=f"ataxx-solve {__version__}")
    p.set_defaults(run=solve_command, parser=p)
    return p


def solve_parser() -> argparse.ArgumentParser:
    """The parser of the solve command (the default command), on its own."""
    return _add_solve(_Parser(prog="ataxx-solve").add_subparsers())


def numbered(path: str, k: int) -> str:
    """``path`` for the k-th position of the input (k >= 1): board.svg, board-2.svg, ..."""
    if k == 1:
        return path
    stem, dot, ext = path.rpartition(".")
    return f"{stem}-{k}.{ext}" if dot and "/" not in ext else f"{path}-{k}"


def check_picture(path: str, kind: str, inputs: Iterable[str] = ()) -> None:
    """Raise OutputError for an input file, or an existing file that does not start like a ``kind`` of ours."""
    check_output(path, inputs, lambda first: first.startswith(SIGNATURES[kind]), what=f"{kind} file")


def write_output(path: str, text: str, kind: str, inputs: Iterable[str] = ()) -> None:
    """Write a picture or a report whole (:func:`solver.files.replace_file`) where :func:`check_picture`
    allows it (raises OutputError or OSError)."""
    check_picture(path, kind, inputs)
    replace_file(path, [text])


def _check_pictures(args: argparse.Namespace, count: int) -> None:
    """Every picture file the positions may need (FILE, FILE-2, ...), checked before any is written:
    raises OutputError for the first that may not be written."""
    for path, kind in ((args.dot, "dot"), (args.svg, "svg"), (args.certificate, "certificate"),
                       (args.thermograph, "svg")):
        for k in range(1, count + 1) if path else ():
            check_picture(numbered(path, k), kind, args.files)


def _write_pictures(args: argparse.Namespace, report: Report, analyzer: Analyzer, k: int, entry: Entry) -> None:
    root = report.sides[0].position
    before = move_before(entry) if entry.position.turn == root.turn else None
    for path, kind, make in ((args.dot, "dot", lambda: game_tree_dot(analyzer, root, args.tree_depth)),
                             (args.svg, "svg", lambda: board_svg(analyzer, root, last_move=before))):
        if path:
            target = numbered(path, k)
            write_output(target, make(), kind, args.files)
            _say(f"wrote {target}")


def _emit_error(err: PositionFormatError, as_json: bool) -> None:
    _say(str(err))
    if as_json:
        print(json.dumps({"source": err.source, "line": err.line, "error": err.message}))


def solve_command(args: argparse.Namespace) -> int:
    rules = parse_rules(args.rules)
    if args.files:
        items = [item for f in args.files for item in read_file(f, args.format, rules, game_pick(args))]
    else:
        try:
            data = sys.stdin.buffer.read()
        except OSError as exc:
            _say(f"<stdin>: cannot read: {exc.strerror}")
            return EXIT_INPUT
        items = read_text(data, "<stdin>", args.format, rules, game_pick(args))
    try:
        _check_pictures(args, sum(not isinstance(item, PositionFormatError) for item in items))
    except OutputError as exc:
        _say(f"ataxx-solve: cannot write {exc}")
        return EXIT_INPUT
    status = EXIT_OK
    solved = 0
    view = ProgressView() if sys.stderr.isatty() else None
    solver = Solver(rules, args.solver, limits_of(args),
                    progress=view, tables=open_tables(args.tables, search_bytes=args.tables_memory), orth_depth=args.orth_depth, threads=args.threads,
                    table_file=args.table_file)
    unbounded_said = args.timeout is not None or args.max_states is not None or args.nodes is not None
    for item in items:
        if isinstance(item, PositionFormatError):
            _emit_error(item, args.json)
            status = max(status, EXIT_INPUT)
            continue
        sides = None if args.to_move is None else ((X, O) if args.to_move == "both" else (Side(args.to_move),))
        try:
            analyzer = solver.analyzer(item.position)
        except (MissingTableError, TableFileError, TableError) as exc:  # (the search reads the tables it probes)
            _emit_error(PositionFormatError(str(exc), item.source, item.line), args.json)
            status = max(status, EXIT_INPUT)
            continue
        if analyzer.oracle.proves_bounds and not unbounded_said:  # the search may run for hours: say how to stop it
            unbounded_said = True
            _say(f"ataxx-solve: {item.source}:{item.line}: the search has no limit (--timeout SECONDS or --max-states "
                 "N give it one); Ctrl-C or SIGTERM stops it and prints what it proved")
        try:
            report = solver.solve(item, sides, moves=args.moves, outcome_only=args.outcome_only, analyzer=analyzer,
                                  certify=args.certificate is not None, value=args.value or args.thermograph is not None,
                                  cut_loops=args.cut_loops)
        except (MissingTableError, TableError) as exc:  # a tier missing or found damaged while probing
            _emit_error(PositionFormatError(str(exc), item.source, item.line), args.json)
            status = max(status, EXIT_INPUT)
            continue
        finally:
            if view is not None:
                view.close()
        settled = report.outcomes_proved if args.outcome_only else report.exact
        if not settled:
            status = max(status, EXIT_FAILED)
            open_ = [s for s in report.sides if not (s.exact or (args.outcome_only and s.interval.outcome_proved))]
            reasons = list(dict.fromkeys(stop_text(s) for s in open_ if s.stopped is not None))
            proved = ", ".join(f"{side_name(s.side)} to move {s.interval.text()}" for s in open_)
            _say(f"{item.source}:{item.line}: stopped: {'; '.join(reasons) or 'not solved'}"
                 + (f"; proved {proved}" if proved else ""))
        if report.interrupted or report.certificate_error == "interrupted":
            _print_report(args, report)
            _say("ataxx-solve: interrupted")
            return EXIT_INTERRUPTED
        if report.expect_failures:
            status = max(status, EXIT_FAILED)
        solved += 1
        if args.certificate is not None:
            if report.certificate_error is not None:
                _say(f"{item.source}:{item.line}: no certificate: {report.certificate_error}")
                status = max(status, EXIT_FAILED)
            elif not report.claims:
                _say(f"{item.source}:{item.line}: no certificate: no bound narrower than the widest was proved")
            else:
                target = numbered(args.certificate, solved)
                try:
                    check_picture(target, "certificate", args.files)
                    certificate.write(target, report.claims)
                except OutputError as exc:
                    _say(f"ataxx-solve: cannot write {exc}")
                    return EXIT_INPUT
                _say(f"wrote {target} ({len(report.claims)} bound{'s' if len(report.claims) != 1 else ''}, "
                     f"{sum(len(c.strategy) for c in report.claims):,} positions of strategy)")
        if (args.dot or args.svg) and not all(s.exact for s in report.sides):  # a skipped summary is no matter
            _say(f"{item.source}:{item.line}: no picture: the position is not solved exactly")
        elif args.dot or args.svg:
            try:
                _write_pictures(args, report, analyzer, solved, item)
            except OutputError as exc:  # (an OSError is main()'s: the same line, the same status)
                _say(f"ataxx-solve: cannot write {exc}")
                return EXIT_INPUT
        if args.thermograph:
            if report.game_value is None:
                _say(f"{item.source}:{item.line}: no thermograph: {report.game_value_note}")
            else:
                target = numbered(args.thermograph, solved)
                try:
                    write_output(target, report.game_value.thermograph_svg(), "svg", args.files)
                except OutputError as exc:
                    _say(f"ataxx-solve: cannot write {exc}")
                    return EXIT_INPUT
                _say(f"wrote {target}")
        _print_report(args, report)
    return status


def _print_report(args: argparse.Namespace, report: Report) -> None:
    if args.json:
        print(json.dumps(report_json(report, args.moves, Notation(args.notation))))
    else:
        print(report_text(report, args.moves, orth_tree=args.orth_format == "tree", notation=Notation(args.notation)))
        print()
    sys.stdout.flush()


def _bar(desc: str, unit: str, total: int | None = None) -> Any:
    """A tqdm bar on standard error (the callers draw only on a terminal)."""
    from tqdm import tqdm  # start-up: tqdm loads only when a bar is drawn

    return tqdm(desc=desc, unit=f" {unit}", total=total, file=sys.stderr, leave=False, unit_scale=True,
                dynamic_ncols=True)


class StatusLine:
    """One line of live progress on a terminal (stderr), rewritten in place."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        self.shown = 0
        self.last = 0.0

    def show(self, text: str) -> None:
        now = time.monotonic()
        if now - self.last < 0.2:
            return
        self.last = now
        width = shutil.get_terminal_size((100, 20)).columns - 1
        text = text[:width]
        self.stream.write("\r" + text + " " * max(0, self.shown - len(text)))
        self.stream.flush()
        self.shown = len(text)

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.stream.flush()
            self.shown = 0


def _interval_text(lower: int | None, upper: int | None) -> str:
    if lower is None or upper is None:
        return "?"
    return signed(lower) if lower == upper else f"{signed(lower)}..{signed(upper)}"


class ProgressView:
    """Draws the :class:`~solver.oracle.Progress` of the engines on a terminal: a bar per phase
    of the retro engine (enumerating, solving), a status line for the search (the side being
    searched, the interval proved so far, the best move, nodes and nodes per second).
    ``describe(progress)`` may give the status line's text instead."""

    def __init__(self, describe: Callable[[Progress], str] | None = None):
        self.describe = describe
        self.line = StatusLine()
        self.bar: Any = None
        self.phase: str | None = None
        self.done = 0

    def __call__(self, ev: Progress) -> None:
        if ev.phase == "searching":
            self._close_bar()
            self.line.show(self.describe(ev) if self.describe else self.search_text(ev))
            return
        if self.bar is None or ev.phase != self.phase or ev.done < self.done:
            self._close_bar()
            self.line.close()
            self.bar, self.phase = _bar(ev.phase, ev.unit, ev.total), ev.phase
        self.done = ev.done
        if ev.done > self.bar.n:
            self.bar.update(ev.done - self.bar.n)

    @staticmethod
    def search_text(ev: Progress) -> str:
        rate = ev.done / ev.seconds if ev.seconds > 0 else 0.0
        who = f"{side_name(ev.side)} to move: " if ev.side is not None else ""
        move = f", best {ev.best_move_name}" if ev.best_move_name else ""
        return (f"{who}value {_interval_text(ev.lower, ev.upper)}{move} | {_count(ev.done)} nodes, "
                f"{_count(rate)}/s, {ev.seconds:.1f} s")

    def _close_bar(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar, self.phase, self.done = None, None, 0

    def close(self) -> None:
        self._close_bar()
        self.line.close()


def _count(n: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f}{unit}"
    return f"{n:.0f}"


def _add_perft(commands: _Commands) -> None:
    p = commands.add_parser(
        "perft", help=COMMANDS["perft"],
        description="Count the move sequences of DEPTH plies from a position, as libataxx does "
                    "(a forced pass is a move; a finished game counts 1 at depth 0 and 0 deeper).")
    p.add_argument("fen", metavar="FEN", help="the position: a FEN (quote it) or startpos")
    p.add_argument("depth", metavar="DEPTH", type=_whole(0, MAX_DEPTH), help=f"plies, 0 to {MAX_DEPTH}")
    p.add_argument("--divide", action="store_true", help="also print the count after each first move")
    p.add_argument("--rules", default="uai", choices=sorted(RULE_SETS), help="rules (default: uai)")
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.set_defaults(run=perft_command, parser=p)


def perft_command(args: argparse.Namespace) -> int:
    rules = parse_rules(args.rules)
    try:
        entry = parse_position(args.fen, "fen", rules, source="FEN")
    except PositionFormatError as err:
        _say(f"ataxx-solve perft: {err}")
        return EXIT_INPUT
    perft(Position.start(1, 3, rules), 2)  # a first run compiles the kernel: not in the time printed
    t = time.perf_counter()
    if args.divide:
        total, rows = perft(entry.position, args.depth, divide=True)
    else:
        total, rows = perft(entry.position, args.depth), []
    seconds = time.perf_counter() - t
    if args.json:
        out = {"fen": write_fen(entry.position), "depth": args.depth, "rules": rules.name, "nodes": total,
               "seconds": round(seconds, 4)}
        if args.divide:
            out["divide"] = {name: n for name, n in rows}
        print(json.dumps(out))
    else:
        for name, n in rows:
            print(f"{name} {n}")
        print(f"{'total ' if args.divide else ''}{total}")
        print(f"perft {args.depth}: {total:,} leaves in {seconds:.3f} s", file=sys.stderr)
    return EXIT_OK


def _add_bench(commands: _Commands) -> None:
    p = commands.add_parser(
        "bench", help=COMMANDS["bench"],
        description="Run the benchmarks and print one row per case: positions solved, seconds, positions "
                    "per second, peak memory. Each case runs in its own process with the kernels loaded.")
    p.add_argument("cases", nargs="*", metavar="CASE",
                   help=f"cases to run (default: all but the opt-in ones): {', '.join(bench.case_names())}; "
                        f"opt-in: {', '.join(bench.OPT_IN)}; endgames-N[-RULES] and engines-N[-RULES] for the 7 x 7 "
                        "endgames with N empty squares (the built-in players' games, games between searching "
                        "players); threads-N for two threads against one on the latter; RxC[-RULES] for the full "
                        "solve of any start")
    p.add_argument("--timeout", type=_seconds, default=bench.DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"time limit per 7 x 7 endgame (default {bench.DEFAULT_TIMEOUT:g})")
    p.add_argument("--threads", type=_whole(1, 256), default=None, metavar="N",
                   help="threads per search in the endgame cases (default: every processor)")
    p.add_argument("--json", action="store_true", help="one JSON object per case instead of the table")
    p.add_argument("--one", help=argparse.SUPPRESS)  # run one case in this process (used by the parent)
    p.set_defaults(run=bench_command, parser=p)


def bench_command(args: argparse.Namespace) -> int:
    p = args.parser
    known = bench.case_names()
    if args.one:
        row = bench.run_case(args.one, args.timeout, args.threads)
        print(json.dumps(bench.row_json(row)))
        return EXIT_OK
    for c in args.cases:
        if not bench.is_case(c):
            p.error(f"unknown case {quote(c)} (known: {', '.join(known)}; RxC[-RULES] for any full solve)")
    rows = []
    for name in args.cases or known:
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        row = bench.run_in_subprocess(name, args.timeout, args.threads)
        rows.append(row)
        if args.json:
            print(json.dumps(bench.row_json(row)), flush=True)
    if not args.json:
        print(bench.table(rows))
    return EXIT_FAILED if any(r.note.startswith("failed") for r in rows) else EXIT_OK


def _open_cache(args: argparse.Namespace) -> Cache | None:
    if getattr(args, "no_cache", False):
        return None
    return Cache(args.cache or default_cache_path())  # CacheError: reported by main()


def _add_batch(commands: _Commands) -> None:
    p = commands.add_parser(
        "batch", help=COMMANDS["batch"],
        description="Solve every position of the files; JSON lines in input order (to --out or standard output). "
                    "Positions in the cache are not solved again; an interrupted run resumes where it stopped "
                    "when run again with the same --out (a record is reused only when its position, rules, sides, "
                    "expect: header and options are the same). Exit status: 0 when every position was solved; 1 when "
                    "some failed (could not be read, went over a limit, or contradicted an expect: header; the "
                    "closing line counts them); 2 when the batch cannot start or cannot write its results (the "
                    "message says why); 130 when interrupted.")
    p.add_argument("files", nargs="+", metavar="FILE", help="position files")
    p.add_argument("--jobs", type=_whole(1, MAX_JOBS), default=os.cpu_count() or 1, metavar="N",
                   help=f"worker processes (default: the number of cores, at most {MAX_JOBS})")
    p.add_argument("--out", metavar="FILE",
                   help="write the results here (resumable) instead of standard output; an existing file must be "
                        "the output of an earlier batch, and never one of the input files")
    p.add_argument("--epd", metavar="FILE",
                   help="also write the positions as an EPD test suite, one line per side to move: bm (every "
                        "optimal move), ce (the value, from the side to move), id (the name), c0 (the interval, "
                        "when not exact; then no bm nor ce); an existing file must be an earlier suite of ours. "
                        "Every position is solved afresh: the cache (which keeps the preferred moves, not every "
                        "optimal one) is not used")
    p.add_argument("--cache", metavar="PATH", help="the solved-position cache (default: in the user's cache directory)")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    p.add_argument("--format", default="auto", choices=FORMATS, help="input format (default: detect)")
    add_game_options(p, "the final position")
    add_notation_option(p)
    add_solver_options(p)
    p.set_defaults(run=batch_command, parser=p)


def batch_command(args: argparse.Namespace) -> int:
    for f in args.files:
        if not os.path.isfile(f):
            why = ("batch reads files, not standard input (it resumes a file by name): save the input to a file"
                   if f == "-" else "is a directory, not a position file" if os.path.isdir(f) else "no such file")
            _say(f"ataxx-solve batch: {f}: {why}")
            return EXIT_INPUT
    if args.epd:
        if args.tables:
            args.parser.error("argument --epd: the tables give one best move per position, and a suite's bm lists "
                              "every optimal move: leave out --tables")
        try:
            if args.out and os.path.abspath(args.epd) == os.path.abspath(args.out):
                raise OutputError(f"{args.epd}: is the --out file too; give the suite its own name")
            check_output(args.epd, args.files, is_epd_output, what="EPD suite")
        except OutputError as exc:
            args.parser.error(f"argument --epd: {exc}")
    open_tables(args.tables, "ataxx-solve batch")  # check the directory once, here
    # answers from tables are not worth caching; the cache keeps the preferred moves, not every optimal one (--epd)
    cache = None if args.tables or args.epd else _open_cache(args)
    limits_of(args)  # (--nodes with --threads is refused here)
    options = Options(args.solver, args.max_states, args.max_memory, args.timeout, tables=args.tables, nodes=args.nodes,
                      notation=args.notation, tables_memory=args.tables_memory)
    bar = None
    if sys.stderr.isatty():
        from tqdm import tqdm  # start-up: tqdm loads only when a bar is drawn

        bar = tqdm(desc="batch", unit="pos", dynamic_ncols=True, leave=True)

    latest: list[BatchSummary] = []  # the last summary reported (once there is one)
    live_arrays: list[LiveArray] = []  # the searches' live status (once the workers run)

    def postfix() -> str:
        text = f"failed {latest[-1].failed}, cached {latest[-1].cached}" if latest else ""
        if live_arrays:
            busy, nodes, rate = live_status(live_arrays[-1])
            if busy:
                text += f" | searching {busy}: {_count(nodes)} nodes, {_count(rate)}/s"
        return text

    def progress(summary: BatchSummary) -> None:
        latest[:] = [summary]
        if bar is not None:
            bar.total = summary.total
            bar.n = summary.solved + summary.failed
            bar.set_postfix_str(postfix(), refresh=False)
            bar.refresh()

    def live_view(live: LiveArray) -> None:
        live_arrays[:] = [live]

    stop_ticker = threading.Event()

    def tick() -> None:  # the searches' nodes, refreshed while a position is being solved
        while not stop_ticker.wait(0.5):
            if bar is not None and live_arrays:
                bar.set_postfix_str(postfix(), refresh=True)

    if bar is not None:
        threading.Thread(target=tick, daemon=True).start()

    try:
        summary = run_batch(args.files, options, jobs=args.jobs, out_path=args.out, stream=sys.stdout, cache=cache,
                            fmt=args.format, rules=parse_rules(args.rules), progress=progress, live_view=live_view,
                            pick=game_pick(args))
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        print("ataxx-solve batch: interrupted; what was solved is kept: run the same command again to resume",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        stop_ticker.set()
        if cache is not None:
            cache.close()
    if bar is not None:
        bar.close()
    for file, line, reason in summary.failures:
        _say(f"{file}:{line}: {reason}")
    if summary.cache_problem:
        _say(f"ataxx-solve batch: the cache failed and was dropped ({summary.cache_problem}); "
             "what was solved after that is in the results only")
    parts = [f"{summary.total} position{'' if summary.total == 1 else 's'}", f"{summary.solved - summary.cached - summary.resumed} solved"]
    if summary.cached:
        parts.append(f"{summary.cached} from the cache")
    if summary.resumed:
        parts.append(f"{summary.resumed} already in {args.out}")
    proved = f"{summary.bounded} of them with proved bounds"
    if summary.outcomes:
        proved += f", {summary.outcomes} with the outcome proved"
    parts.append(f"{summary.failed} failed" + (f" ({proved}, in the results)" if summary.bounded else ""))
    _say(f"batch: {', '.join(parts)} in {summary.seconds:.1f} s")
    if args.epd:
        lines = suite_lines(summary.records)
        try:
            check_output(args.epd, args.files, is_epd_output, what="EPD suite")
            replace_file(args.epd, [line + "\n" for line in lines])
        except OutputError as exc:
            _say(f"ataxx-solve: cannot write {exc}")
            return EXIT_INPUT
        _say(f"wrote {args.epd} ({len(lines)} line{'' if len(lines) == 1 else 's'})")
    return EXIT_FAILED if summary.failed else EXIT_OK


def _add_cache(commands: _Commands) -> None:
    p = commands.add_parser("cache", help=COMMANDS["cache"], description="Look at or clear the solved-position cache.")
    p.add_argument("action", choices=("stats", "clear"))
    p.add_argument("--cache", metavar="PATH", help=f"the cache file (default: {default_cache_path()})")
    p.add_argument("--json", action="store_true", help="stats as JSON")
    p.set_defaults(run=cache_command, parser=p)


def cache_command(args: argparse.Namespace) -> int:
    cache = Cache(args.cache or default_cache_path())  # CacheError: reported by main()
    try:
        if args.action == "clear":
            n = cache.clear()
            print(f"cleared {n:,} cached results from {cache.path}")
            return EXIT_OK
        st = cache.stats()
    finally:
        cache.close()
    if args.json:
        print(json.dumps(st))
        return EXIT_OK
    print(f"cache: {st['path']}")
    print(f"size: {st['bytes'] / 1024:,.0f} KiB")
    print(f"results: {st['total']:,}")
    for rules, kinds in st["positions"].items():
        print(f"  {rules}: {kinds.get('side', 0):,} positions, {kinds.get('board', 0):,} orthodox summaries")
    return EXIT_OK


def _add_uai(commands: _Commands) -> None:
    p = commands.add_parser(
        "uai", help=COMMANDS["uai"],
        description="The solver as a UAI engine: reads uai, isready, setoption, position, go, stop and quit on "
                    "standard input, answers on standard output; plays a proved-optimal move where the value is "
                    "proved in time (options Hash, Threads, Rules, Tables; see the README).")
    p.set_defaults(run=uai_command, parser=p)


def uai_command(args: argparse.Namespace) -> int:
    return uai_engine.main()


def _add_certificate(commands: _Commands) -> None:
    p = commands.add_parser(
        "certificate", help=COMMANDS["certificate"],
        description="Check a certificate written by 'ataxx-solve --certificate FILE': for each bound it claims, "
                    "follow the prover's strategy with every reply of the other side, using the plain rules (not "
                    "the compiled engine), and confirm or refute the bound in one line. Exit status: 0 when every "
                    "bound is confirmed, 1 when one is refuted, 2 when the file cannot be read.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=_Parser)
    check = actions.add_parser("check", help="confirm or refute each bound of a certificate",
                               description="Confirm or refute each bound of a certificate with the plain rules.")
    check.add_argument("file", metavar="FILE")
    check.add_argument("--max-positions", type=_whole(1, MAX_STATES), default=certificate.DEFAULT_LIMIT,
                       metavar="N", help=f"positions a strategy may reach (default {certificate.DEFAULT_LIMIT:,})")
    check.set_defaults(run=certificate_command, parser=check)


def certificate_command(args: argparse.Namespace) -> int:
    try:
        claims = certificate.read(args.file)
    except certificate.CertificateError as exc:
        _say(f"ataxx-solve certificate: {printable(str(exc))}")
        return EXIT_INPUT
    if not claims:
        _say(f"ataxx-solve certificate: {printable(args.file)}: no claim in it")
        return EXIT_INPUT
    status = EXIT_OK
    for claim in claims:
        verdict = certificate.check(claim, args.max_positions)
        print(verdict.line())
        if not verdict.confirmed:
            status = EXIT_FAILED
    return status


def _add_verify(commands: _Commands) -> None:
    p = commands.add_parser(
        "verify", help=COMMANDS["verify"],
        description="Check an AI's moves against the exact values: the moves recorded in the file (move: headers, "
                    "game records, PGN games, an EPD suite's bm), or the answers of the players given with --engine in every position of the file. "
                    "Each checked move is optimal, an inaccuracy (loses points, keeps the outcome) or a blunder "
                    "(changes the outcome). Exit status: 0 when every move was checked (blunders included); 1 when "
                    "a player's answer was a problem (a crash, a hang, an illegal or unparsable move) or a position "
                    "could not be settled within the limits; 2 for unreadable input or bad arguments. A UAI "
                    f"engine's lines are read up to {MAX_LINE_BYTES // 1024} KiB each and "
                    f"{MAX_ANSWER_BYTES // (1 << 20)} MiB per answer; more is a problem and the engine is restarted.")
    p.add_argument("files", nargs="+", metavar="FILE", help="position files")
    p.add_argument("--engine", action="append", default=[], metavar="CMD",
                   help="a player to audit: a UAI engine command, builtin:random|greedy|buchheit|gataxx|alphabeta:D, "
                        "cs61b:CMD (a program in CS 61B's Ataxx language: checks games, PGN or moves:) or colon:CMD "
                        "(a minimax-assignment program: a colon grid in, x0:y0:x1:y1: out, run per position) "
                        "(repeat for several)")
    p.add_argument("--go", default="depth 6", help="the UAI go arguments, one line (default: 'depth 6')")
    p.add_argument("--move-timeout", type=_seconds, default=10.0, metavar="SECONDS",
                   help="how long an engine or program may take per move before it counts as hung (default 10)")
    add_solver_options(p, engine_is_player=True)  # --engine names the players here
    p.add_argument("--seed", type=_whole(0, MAX_SEED), default=0,
                   help="seed of the built-in players' random choices (default 0)")
    p.add_argument("--json", action="store_true", help="one JSON object per checked move, then the summary")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    p.add_argument("--annotate", metavar="FILE",
                   help="PGN games: write them back to FILE with the verdicts, $2 an inaccuracy and $4 a blunder "
                        "after the move, and a comment with the proved values (X's side) and the best move; all "
                        "tags and the main line are kept, the input's comments, NAGs and variations are not")
    p.add_argument("--player", action="append", default=[], metavar="NAME",
                   help="judge only the moves of this player, named by the games' [Black]/[White] tags (Black is "
                        "X, the first mover) or a player: header (repeat for several); with --engine, the engines are asked "
                        "only where this player was to move")
    p.add_argument("--format", default="auto", choices=FORMATS, help="input format (default: detect)")
    add_game_options(p, "every move of each game")
    add_notation_option(p)
    p.set_defaults(run=verify_command, parser=p)


def verify_command(args: argparse.Namespace) -> int:
    p = args.parser
    limits = limits_of(args)
    if not args.go.isprintable():
        p.error(f"argument --go: must be one line of printable text, not {quote(args.go)}")
    if args.html:
        try:
            check_picture(args.html, "html", args.files)
        except OutputError as exc:
            p.error(f"argument --html: {exc}")
    games: list = []  # (file, game) for --annotate
    if args.annotate:
        if args.engine:
            p.error("argument --annotate: marks the moves played in the games; it cannot be used with --engine")
        try:
            check_output(args.annotate, args.files, is_annotated_pgn, what="annotated PGN")
            for f in args.files:
                games.extend((f, g) for g in read_pgn_file(f, parse_rules(args.rules), args.format))
        except (OutputError, ValueError) as exc:
            p.error(f"argument --annotate: {exc}")
    askers = []
    for spec in args.engine:
        if spec.strip().lower() in ALGORITHMS:
            p.error(f"argument --engine: {quote(spec)} is a solving algorithm, not an engine (a UAI command or "
                    f"builtin:NAME): give it with --solver {spec.strip()}")
        try:
            askers.append(make_asker(spec, args.seed, args.go, args.move_timeout))
        except ValueError as exc:
            p.error(f"argument --engine: {exc}")
    items = [item for f in args.files for item in read_file(f, args.format, parse_rules(args.rules),
                                                            game_pick(args, every=True))]
    choices, errors = choices_from_file(items, ask=bool(askers))
    for err in errors:
        _say(str(err))
    if args.player:
        try:
            choices = only_players(choices, args.player)
        except ValueError as exc:
            _say(f"ataxx-solve verify: {exc}")
            return EXIT_INPUT
    if not choices:
        if not errors:  # (a file that cannot be read has said so)
            _say("ataxx-solve verify: nothing to check (no move: headers, game records or EPD bm; give players with --engine)")
        return EXIT_INPUT
    tables = open_tables(args.tables, "ataxx-solve verify", search_bytes=args.tables_memory)  # (what the tables do not hold is solved)
    done = [0]

    def describe(ev: Progress) -> str:
        rate = ev.done / ev.seconds if ev.seconds > 0 else 0.0
        return (f"checked {done[0]}/{len(choices)}: searching, value {_interval_text(ev.lower, ev.upper)} | "
                f"{_count(ev.done)} nodes, {_count(rate)}/s")

    view = ProgressView(describe) if sys.stderr.isatty() else None
    solver = Solver(parse_rules(args.rules), args.solver, limits,
                    progress=view, tables=tables)
    verifier = Verifier(solver)

    notation = Notation(args.notation)

    def show(c: Check) -> None:
        c = c.written(notation)
        done[0] += 1
        if view is not None:
            view.close()
        if args.json:
            print(json.dumps(c.to_json()), flush=True)
        elif c.problem:
            print(printable(f"{c.where}: {c.player}: problem: {c.problem}"), flush=True)
        elif c.value_interval is None or c.best_interval is None:
            pass  # judged without intervals: nothing to say
        elif c.verdict == "unsettled":
            print(printable(f"{c.where}: {c.player}: {c.move} is unsettled (value after it "
                            f"{c.value_interval.text()}, position {c.best_interval.text()})"), flush=True)
        elif c.verdict != "optimal":
            loss = c.loss if c.loss is not None else f"at least {c.min_loss}"
            best = f"best {c.best_move} " if c.best_move else "best "
            print(printable(f"{c.where}: {c.player}: {c.move} is "
                            f"{'a blunder' if c.verdict == 'blunder' else 'an inaccuracy'}"
                            f" ({c.value_interval.text()}; {best}{c.best_interval.text()}, loses {loss})"), flush=True)

    checks: list = []
    interrupted = False
    with adopting_orphans():  # what the engines leave behind ends with verify
        try:
            run_verify(choices, askers, verifier, on_check=show, into=checks)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if view is not None:
                view.close()
            for a in askers:
                a.close()
    if interrupted:
        _say(f"ataxx-solve verify: interrupted after {len(checks)} check(s); the summary covers those")
    for line in ce_mismatches(items, checks):  # an EPD suite's ce against the proved value
        print(printable(line))
    games_checks = checks  # the annotated PGN keeps PGN's moves, whatever --notation prints
    checks = [c.written(notation) for c in checks]
    summaries = summarise(checks, players=[notation.words(a.name) for a in askers])
    if args.json:
        print(json.dumps({"summary": [s.to_json() for s in summaries], "unsettled": verifier.unsettled}))
    else:
        print()
        print(summary_table(summaries))
        if verifier.unsettled:
            print(f"{verifier.unsettled} move(s) not settled within the budget (intervals above)")
    if args.html:
        try:
            write_output(args.html, html_report(checks, summaries, verifier,
                                                "Ataxx move audit: " + ", ".join(args.files),
                                                tint=not interrupted), "html", args.files)
        except OutputError as exc:  # (an OSError is main()'s: the same line, the same status)
            _say(f"ataxx-solve: cannot write {exc}")
            return EXIT_INPUT
        _say(f"wrote {args.html}")
    if args.annotate:
        try:
            check_output(args.annotate, args.files, is_annotated_pgn, what="annotated PGN")
            replace_file(args.annotate, [annotated_pgn(games, games_checks)])
        except OutputError as exc:
            _say(f"ataxx-solve: cannot write {exc}")
            return EXIT_INPUT
        _say(f"wrote {args.annotate}")
    if interrupted:
        return EXIT_INTERRUPTED
    if errors:
        return EXIT_INPUT
    problems = any(c.problem for c in checks)
    return EXIT_FAILED if problems or verifier.unsettled else EXIT_OK


class _TierBars:
    """One progress bar per tier and phase, on a terminal only."""

    def __init__(self, ntiers: int):
        self.ntiers = ntiers
        self.key: tuple | None = None
        self.bar: Any = None
        self.draw = sys.stderr.isatty()

    def __call__(self, tier: int, phase: str, done: int, total: int | None) -> None:
        if not self.draw:
            return
        if (tier, phase) != self.key:
            self.close()
            self.key = (tier, phase)
            self.bar = _bar(f"tier {tier}/{self.ntiers - 1} {phase}", "pos", total=total)
        if done > self.bar.n:
            self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _add_tables(commands: _Commands) -> None:
    t = commands.add_parser(
        "tables", help=COMMANDS["tables"],
        description="Tablebases: every position of a board solved (classic rules), one file per tier of empty "
                    "squares. build: solve a board into DIR (resumes where it stopped, within a tier); probe: the "
                    "value and depth of positions from the tables; check: verify every stored value against the "
                    "moves; compare: the tables of a board against an engine (--against); info: what DIR holds.")
    actions = t.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=_Parser)

    def action(name: str, run: Callable[[argparse.Namespace], int], text: str, board: bool = False,
               executor: bool = False) -> _Parser:
        p = actions.add_parser(name, help=text, description=text)
        if board:
            p.add_argument("board", metavar="BOARD", help="the board, ROWSxCOLS (e.g. 4x5)")
            p.add_argument("--blocks", metavar="SQUARES", help="blocked squares of the board, e.g. b2,c3")
        p.add_argument("--dir", required=True, metavar="DIR", help="the tablebase directory")
        if executor:
            p.add_argument("--jobs", type=_whole(1, MAX_JOBS), default=os.cpu_count() or 1, metavar="N",
                           help="threads (default: the number of cores)")
            p.add_argument("--cluster", metavar="ADDRESS",
                           help="run on a Dask cluster: a scheduler address (tcp://host:8786) or local:N")
            p.add_argument("--verbose", "-v", action="store_true", help="a line per tier on standard error")
        p.set_defaults(run=run, parser=p)
        return p

    p = action("build", _tables_build, "solve a board into DIR (resumes after the tiers already there, and within "
               "a tier from its checkpoint); says first what it needs (entries, memory, disk, CPU time) and refuses "
               "a build whose memory exceeds the budget", board=True, executor=True)
    p.add_argument("--max-memory", type=_size, metavar="SIZE",
                   help="memory budget, e.g. 16G (default: three quarters of the machine)")
    p.add_argument("--force", action="store_true", help="build even when the memory needed exceeds the budget")
    p.add_argument("--tiers", metavar="A-B", help="only the tiers from A to B (numbers of empty squares; each "
                                                   "tier is solved from the one below it, built or there)")
    p.add_argument("--checkpoint-minutes", type=_whole(0, 100_000), default=10, metavar="M",
                   help="save the state of the tier under way in DIR (BOARD-eNN.resume) at most every M minutes "
                        "(default 10; 0: at every step) and when stopped; the same command resumes from it "
                        "(not with --cluster)")
    p = action("check", _tables_check, "verify every stored value of a board against the moves",
               board=True, executor=True)
    p.add_argument("--tiers", metavar="A-B", help="only the tiers from A to B (numbers of empty squares)")
    p = action("probe", _tables_probe, "the value and depth of positions from the tables")
    p.add_argument("files", nargs="*", metavar="FILE", help="position files (default: standard input)")
    p.add_argument("--json", action="store_true", help="one JSON object per position")
    p = action("compare", _tables_compare, "the tables of a board against an engine (--against)", board=True)
    p.add_argument("--against", choices=("retro", "search"), default="retro",
                   help="every position against the retro engine (default), or random positions with few "
                        "empty squares against the search engine")
    p.add_argument("--start", action="store_true", help="--against retro: only the positions reachable "
                                                        "from the standard start")
    p.add_argument("--count", type=_whole(1, 10_000_000), metavar="N",
                   help="--against search: how many random positions (default 2000)")
    p.add_argument("--empty", metavar="A-B",
                   help="--against search: empty squares of the random positions (default 1-4)")
    p.add_argument("--seed", type=_whole(0, MAX_SEED), help="--against search: the seed (default 13)")
    p.add_argument("--cluster", help=argparse.SUPPRESS)  # refused with a reason (below)
    action("info", _tables_info, "the boards, tiers and sizes of the tables in DIR")


def _board(args: argparse.Namespace) -> Board:
    """The board of ``tables ACTION BOARD [--blocks ...]``; a bad one is the parser's error."""
    try:
        board = parse_board_name(args.board, args.blocks)
        dense_index(board)  # a board too large for an index is refused here
    except (ValueError, TableError) as exc:
        args.parser.error(f"argument BOARD: {exc}")
    return board


def _tables_say(text: str) -> None:
    _say(f"ataxx-solve tables: {text}")


def build_stop_handler(stop: list[int], directory: str) -> Callable[[int, object], None]:
    """The signal handler of a build: the first Ctrl-C or SIGTERM is put in ``stop`` (the solver
    stops at the end of its step and saves the tier's state) and said at once, as a step of a
    large tier can take minutes; a second one stops the process at once (exit 130 or 143),
    keeping the tiers built and the last checkpoint."""
    def asked(signum: int, frame: object) -> None:
        stop.append(signum)
        if len(stop) == 1:
            os.write(2, b"\nataxx-solve tables: stopping at the end of this step, then saving the tier's state "
                        b"(a step of a large tier can take minutes); Ctrl-C again stops at once, keeping the "
                        b"tiers built and the last checkpoint\n")
            return
        os.write(2, (f"ataxx-solve tables: stopped at once; the finished tiers and the last checkpoint are in "
                     f"{printable(directory)}: run the same command again to resume\n").encode())
        os._exit(EXIT_TERMINATED if signal.SIGTERM in stop else EXIT_INTERRUPTED)
    return asked


def _with_executor(args: argparse.Namespace, work: Callable[[Executor, _TierBars], int], ntiers: int) -> int:
    """``work(executor, bars)`` on the threads or the cluster of ``--jobs``/``--cluster``; a cluster
    that cannot start or a table that cannot be used is one line and exit status 2."""
    if args.verbose:
        log_to_stderr(logging.INFO, "%(asctime)s %(message)s")
    bars = _TierBars(ntiers)
    try:
        with executor_for(args.jobs, args.cluster) as executor:
            return work(executor, bars)
    except (ClusterError, TableError) as exc:
        _tables_say(str(exc))
        return EXIT_INPUT
    finally:
        bars.close()


def _tables_build(args: argparse.Namespace) -> int:
    board = _board(args)
    if os.path.lexists(args.dir) and not os.path.isdir(args.dir):
        _tables_say(printable(f"--dir: {args.dir}: not a directory (a build writes its tables into a directory)"))
        return EXIT_INPUT
    tiers = _tier_range(args.parser, args.tiers, dense_index(board).n) if args.tiers is not None else None
    plan = plan_build(board, args.dir, tiers, checkpoints=args.cluster is None)
    budget = args.max_memory or default_memory_budget()
    if plan.memory > budget and not args.force:
        _tables_say(printable(f"{plan.describe()}: more memory than the budget of {bytes_text(budget)} "
                              "(--max-memory SIZE sets it, --force builds anyway); nothing built"))
        return EXIT_INPUT
    if plan.tiers:  # (with nothing to build, the build's own line says so)
        _tables_say(printable(plan.describe()))

    def work(executor: Executor, bars: _TierBars) -> int:
        # Ctrl-C or SIGTERM asks the solver to stop at its next step (a compiled call is never cut),
        # saying so at once (a step of a large tier can take minutes); a second one stops now,
        # keeping the tiers built and the last checkpoint
        stop: list[int] = []
        asked = build_stop_handler(stop, args.dir)
        previous = {sig: signal.signal(sig, asked) for sig in (signal.SIGINT, signal.SIGTERM)}
        t = time.perf_counter()
        try:
            report = build(board, args.dir, executor=executor, progress=bars, should_stop=lambda: bool(stop),
                           tiers=tiers, checkpoint_seconds=60.0 * args.checkpoint_minutes)
        except TierInterrupted as exc:
            bars.close()
            built = f"{len(exc.solved)} tier{'s' if len(exc.solved) != 1 else ''} built" + (
                f" ({_tiers_text(exc.solved)})" if exc.solved else "")
            kept = (f"tier {exc.tier} checkpointed in {exc.path} ({exc.where})" if exc.path else
                    f"tier {exc.tier} not saved ({exc.failure})" if exc.failure else f"tier {exc.tier} not saved")
            _tables_say(printable(f"interrupted: {built}, {kept}: run the same command again to resume"))
            return EXIT_TERMINATED if signal.SIGTERM in stop else EXIT_INTERRUPTED
        except KeyboardInterrupt:
            bars.close()
            _tables_say(f"interrupted; the finished tiers are in {args.dir}: run the same command again to resume")
            return EXIT_TERMINATED if signal.SIGTERM in stop else EXIT_INTERRUPTED
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        bars.close()
        resumed = "".join(f" (tier {t} resumed from its checkpoint: {where})" for t, where in report.resumed.items())
        print(printable(f"{board_name(board)}: {len(report.tiers_built)} tier{'s' if len(report.tiers_built) != 1 else ''} built{resumed}, {len(report.tiers_skipped)} "
                        f"already there; {report.entries:,} entries, {report.positions:,} positions solved in "
                        f"{time.perf_counter() - t:.1f} s; {report.bytes_on_disk / (1 << 20):,.1f} MiB in {args.dir}"))
        return EXIT_OK

    return _with_executor(args, work, dense_index(board).n + 1)


def _tiers_text(tiers: list[int]) -> str:
    """``tier 3``, ``tiers 0-4`` (consecutive) or ``tiers 2, 5``."""
    if len(tiers) == 1:
        return f"tier {tiers[0]}"
    if tiers == list(range(tiers[0], tiers[-1] + 1)):
        return f"tiers {tiers[0]}-{tiers[-1]}"
    return "tiers " + ", ".join(map(str, tiers))


def _range(text: str) -> tuple[int, int] | None:
    """``A-B`` or ``A`` in ASCII digits (at most 3 each), or None."""
    m = re.fullmatch(r"([0-9]{1,3})(?:-([0-9]{1,3}))?", text)
    return (int(m.group(1)), int(m.group(2) or m.group(1))) if m else None


def _tier_range(p: argparse.ArgumentParser, text: str | None, n: int) -> list[int]:
    if text is None:
        return list(range(n + 1))
    found = _range(text)
    if found is None:
        p.error(f"argument --tiers: {text!r} is not a range like 0-4")
    lo, hi = found
    if not 0 <= lo <= hi <= n:
        p.error(f"argument --tiers: tiers go from 0 to {n}, not {text}")
    return list(range(lo, hi + 1))


def _tables_check(args: argparse.Namespace) -> int:
    board = _board(args)
    n = dense_index(board).n
    tiers = _tier_range(args.parser, args.tiers, n)  # before a cluster starts

    def work(executor: Executor, bars: _TierBars) -> int:
        t = time.perf_counter()
        report = check_tables(board, args.dir, executor=executor, progress=bars, tiers=tiers)
        bars.close()
        span = f"tiers {tiers[0]}-{tiers[-1]}" if len(tiers) < n + 1 else "all tiers"
        print(f"{board_name(board)} ({span}): {report.checked:,} positions checked in "
              f"{time.perf_counter() - t:.1f} s, {report.failures:,} failures")
        for tier, number in report.first:
            print(f"  first failure in tier {tier}: number {number}")
        return EXIT_OK if report.failures == 0 else EXIT_FAILED

    return _with_executor(args, work, n + 1)


def _tables_dir(args: argparse.Namespace) -> Tablebase:
    """The Tablebase of ``tables --dir``, or one line and exit status 2."""
    tb = open_tables(args.dir, "ataxx-solve tables", "--dir")
    assert tb is not None  # --dir is required
    return tb


def _empty_range(p: argparse.ArgumentParser, text: str, squares: int) -> tuple[int, int]:
    """``--empty A-B`` (or ``A``): ASCII digits, 0 <= A <= B <= the board's squares."""
    lo, hi = _range(text) or (1, 0)
    if not 0 <= lo <= hi <= squares:
        p.error(f"argument --empty: {quote(text)} is not a range like 1-4 within the {squares} squares")
    return lo, hi


def _tables_compare(args: argparse.Namespace) -> int:
    p = args.parser
    for option, given, fits in (("--start", args.start, "retro"), ("--count", args.count is not None, "search"),
                                ("--empty", args.empty is not None, "search"), ("--seed", args.seed is not None, "search"),
                                ("--cluster", args.cluster is not None, None)):
        if given and fits != args.against:
            p.error(f"argument {option}: not with --against {args.against}" if fits
                    else f"argument {option}: compare runs on this machine only")
    try:
        board = parse_board_name(args.board, args.blocks)
    except (ValueError, TableError) as exc:
        p.error(f"argument BOARD: {exc}")
    tb = _tables_dir(args)
    try:
        tb.require(board)
    except MissingTableError as exc:
        _tables_say(str(exc))
        return EXIT_INPUT
    name = board_name(board)
    if args.against == "retro":
        result = compare_with_retro(tb, board, start=args.start)
        what = "reachable from the start" if args.start else "in all"
    else:
        empty = _empty_range(p, args.empty or "1-4", board.playable.bit_count())
        view = StatusLine() if sys.stderr.isatty() else None
        try:
            result = compare_with_search(tb, board, args.count or 2000, empty, 13 if args.seed is None else args.seed,
                                         None if view is None else lambda k: view.show(f"{k:,} searched"))
        finally:
            if view is not None:
                view.close()
        what = f"random, with {empty[0]} to {empty[1]} empty squares"
    first = "" if result.first is None else f" (the first: {result.first.fen()})"
    print(f"{name}: {result.positions:,} positions {what}, tables against {result.against} in {result.seconds:.1f} s: "
          f"{result.disagreements:,} disagreements{first}")
    return EXIT_FAILED if result.disagreements else EXIT_OK


def _tables_info(args: argparse.Namespace) -> int:
    for b in contents(_tables_dir(args)):
        print(f"{board_name(b.board)}: tiers {', '.join(map(str, b.tiers))}; {b.entries:,} entries, "
              f"{b.bytes_on_disk / (1 << 20):,.1f} MiB")
    return EXIT_OK


def _tables_probe(args: argparse.Namespace) -> int:
    tb = _tables_dir(args)
    if args.files:
        items = [item for f in args.files for item in read_file(f, "auto")]
    else:
        items = read_text(sys.stdin.buffer.read(), "<stdin>", "auto")
    status = EXIT_OK
    todo: list[tuple[Entry, Position]] = []
    for item in items:
        if isinstance(item, PositionFormatError):
            _say(str(item))
            status = EXIT_INPUT
            continue
        todo.extend((item, item.position.replace(turn=side)) for side in item.sides)
    groups: dict[tuple[Board, str], list[int]] = {}  # probe_many takes the positions of one board
    for k, (_, q) in enumerate(todo):
        groups.setdefault((q.board, q.rules.name), []).append(k)
    t = time.perf_counter()
    answers: list[tuple[int, float] | MissingTableError] = [MissingTableError()] * len(todo)
    for ks in groups.values():
        try:
            for k, found in zip(ks, tb.probe_many([todo[k][1] for k in ks])):
                answers[k] = found
        except MissingTableError as exc:
            for k in ks:
                answers[k] = exc
    seconds = time.perf_counter() - t
    out = []
    refused: set[tuple[str, int]] = set()
    for (item, q), answer in zip(todo, answers):
        if isinstance(answer, MissingTableError):
            if (item.source, item.line) not in refused:
                refused.add((item.source, item.line))
                _say(f"{item.source}:{item.line}: {answer}")
            status = EXIT_INPUT
            continue
        u, d = answer
        value = u if q.turn == X else -u
        depth = None if d == float("inf") else int(d)
        if args.json:
            out.append(json.dumps({"source": item.source, "line": item.line, "fen": write_fen(q), "value": value,
                                   "depth": depth, "over": q.result() is not None}))
        else:
            out.append(f"{write_fen(q)}  {value:+d}  depth {'infinite' if depth is None else depth}")
    n = sum(not isinstance(a, MissingTableError) for a in answers)
    if out:
        print("\n".join(out))
    print(f"probed {n:,} position{'' if n == 1 else 's'} in {seconds:.3f} s ({n / seconds if seconds > 0 else 0:,.0f} "
          "per second)", file=sys.stderr)
    return status


def _add_values(commands: _Commands) -> None:
    p = commands.add_parser(
        "values", help=COMMANDS["values"],
        description="The game value of the start of every board of at most N squares (every shape rows x cols, "
                    "rows <= cols, with every block layout that the rectangle's symmetries keep and that covers no "
                    "starting piece): one row per board with its squares, blocks, empty squares, mean, temperature "
                    "and canonical form in CGSuite syntax, or why it has none (loop, zugzwang, too large, out of "
                    "time); a closing line on standard error counts them and gives the time taken.")
    p.add_argument("--max-squares", type=_whole(2, MAX_SQUARES), default=valuetable.DEFAULT_MAX_SQUARES,
                   metavar="N", help=f"boards of at most N squares, 2 to {MAX_SQUARES} "
                                     f"(default {valuetable.DEFAULT_MAX_SQUARES})")
    p.add_argument("--rules", default="classic", choices=sorted(RULE_SETS), help="rules (default: classic)")
    p.add_argument("--timeout-each", type=_seconds, default=valuetable.DEFAULT_TIMEOUT_EACH, metavar="SECONDS",
                   help=f"time limit per board (default {valuetable.DEFAULT_TIMEOUT_EACH:g})")
    p.add_argument("--max-states", type=_whole(1, 10**9), default=DEFAULT_MAX_STATES, metavar="N",
                   help=f"boards of a game's option graph, per board (default {DEFAULT_MAX_STATES:,})")
    p.add_argument("--json", action="store_true", help="one JSON object per board instead of the table")
    p.set_defaults(run=values_command, parser=p)


def values_command(args: argparse.Namespace) -> int:
    rules = parse_rules(args.rules)
    t = time.monotonic()
    rows = []
    if not args.json:
        print(valuetable.HEADER)
    for row in valuetable.value_table(args.max_squares, rules, args.timeout_each, args.max_states):
        rows.append(row)
        print(json.dumps(row.to_json()) if args.json else row.text(), flush=True)
    print(f"values ({rules.name}, at most {args.max_squares} squares): "
          f"{valuetable.summary(rows, time.monotonic() - t)}", file=sys.stderr)
    return EXIT_OK


def build_parser() -> _Parser:
    """The command line: a parser with a subcommand for each of :data:`COMMANDS`."""
    top = _Parser(prog="ataxx-solve", description="Exact values of Ataxx positions on small boards. "
                  "'ataxx-solve FILE...' solves positions (the solve command); other commands below.")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)
    _add_solve(commands)
    _add_batch(commands)
    _add_verify(commands)
    _add_perft(commands)
    _add_bench(commands)
    _add_cache(commands)
    _add_tables(commands)
    _add_certificate(commands)
    _add_uai(commands)
    _add_values(commands)
    return top


def parse_command_line(argv: list[str]) -> argparse.Namespace:
    """The arguments of a command line, its command first. A line that does not start with a
    command's name is the solve command's (files, options, or nothing for standard input); a
    first word shaped like a command (lower-case letters, digits, hyphens) that names neither
    a command nor an existing file is refused (one line, exit status 2)."""
    top = build_parser()
    if not argv or argv[0] not in COMMANDS:
        if argv and _COMMAND_WORD.fullmatch(argv[0]) and not os.path.lexists(argv[0]):
            top.error(f"{quote(argv[0])} is neither a command ({', '.join(COMMANDS)}) nor a file")
        argv = ["solve", *argv]
    args, extra = top.parse_known_args(argv)
    if extra:
        args.parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _drop_stdout() -> None:
    """Point standard output at /dev/null, so that the flush at exit cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[list[int]]:
    """SIGTERM handled as Ctrl-C is: a KeyboardInterrupt in the main thread, so that the work
    stops cleanly and reports what it did and proved (the first SIGTERM only: a second one
    does not cut that short). Yields a list that holds the signal once it came."""
    received: list[int] = []

    def interrupt(signum: int, frame: object) -> None:
        if not received:
            received.append(signum)
            raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: signals are not ours to handle
        yield received
        return
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    """The command: the exit status of the command line ``argv`` (default: the process's)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    log_to_stderr()
    with _sigterm_as_interrupt() as terminated:
        status = _main(argv)
    return EXIT_TERMINATED if terminated and status == EXIT_INTERRUPTED else status


def _main(argv: list[str]) -> int:
    try:
        args = parse_command_line(argv)
        status: int = args.run(args)
        return status
    except KeyboardInterrupt:
        print("ataxx-solve: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (CacheError, OutputError, TableError, MissingTableError) as exc:
        # (a table file found damaged or missing while probing: tables probe, verify)
        _say(f"ataxx-solve: {exc}")
        return EXIT_INPUT
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly.
        _drop_stdout()
        return EXIT_OK
    except OSError as exc:
        # A file or standard output that cannot be written (a full disk, ...): what was done is kept.
        if exc.filename is None:
            _drop_stdout()
        _say(f"ataxx-solve: cannot write {exc.filename or 'standard output'}: {exc.strerror or exc}")
        return EXIT_INPUT
    except Exception as exc:  # a bug: say so in one line, keep the traceback for ATAXX_DEBUG=1
        if os.environ.get("ATAXX_DEBUG"):
            raise
        print(f"ataxx-solve: internal error: {type(exc).__name__}: {exc} "
              "(set ATAXX_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_INTERNAL
