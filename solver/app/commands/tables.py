"""The ``tables`` command: tablebases built, checked, compared, described and probed."""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

from solver.app.commands.common import (
    COMMANDS,
    EXIT_FAILED,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    MAX_JOBS,
    MAX_SEED,
    Commands,
    Parser,
    log_to_stderr,
    open_tables,
    say,
    size_arg,
    whole_arg,
)
from solver.app.commands.progress import StatusLine, progress_bar
from solver.common.limits import default_memory_budget
from solver.game.board import Board
from solver.io.formats import (
    PositionFormatError,
    printable,
    quote,
    read_file,
    read_text,
)
from solver.tables.build import Executor, build, bytes_text, executor_for, plan_build
from solver.tables.checks import (
    check_tables,
    compare_with_retro,
    compare_with_search,
    contents,
)
from solver.tables.index import TableError, dense_index
from solver.tables.probe import MissingTableError, Tablebase
from solver.tables.storage import board_name, parse_board_name
from solver.tiers.cluster import ClusterError
from solver.tiers.game import TierError
from solver.tiers.resume import TierInterrupted


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
            self.bar = progress_bar(f"tier {tier}/{self.ntiers - 1} {phase}", "pos", total=total)
        if done > self.bar.n:
            self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def add_tables(commands: Commands) -> None:
    t = commands.add_parser(
        "tables", help=COMMANDS["tables"],
        description="Tablebases: every position of a board solved (classic rules), one file per tier of empty "
                    "squares. build: solve a board into DIR (resumes where it stopped, within a tier); probe: the "
                    "value and depth of positions from the tables; check: verify every stored value against the "
                    "moves; compare: the tables of a board against an engine (--against); info: what DIR holds.")
    actions = t.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=Parser)

    def action(name: str, run: Callable[[argparse.Namespace], int], text: str, board: bool = False,
               executor: bool = False) -> Parser:
        p = actions.add_parser(name, help=text, description=text)
        if board:
            p.add_argument("board", metavar="BOARD", help="the board, ROWSxCOLS (e.g. 4x5)")
            p.add_argument("--blocks", metavar="SQUARES", help="blocked squares of the board, e.g. b2,c3")
        p.add_argument("--dir", required=True, metavar="DIR", help="the tablebase directory")
        if executor:
            p.add_argument("--jobs", type=whole_arg(1, MAX_JOBS), default=os.cpu_count() or 1, metavar="N",
                           help="threads (default: the number of cores)")
            p.add_argument("--cluster", metavar="ADDRESS",
                           help="run on a Dask cluster: a scheduler address (tcp://host:8786) or local:N")
            p.add_argument("--verbose", "-v", action="store_true", help="a line per tier on standard error")
        p.set_defaults(run=run, parser=p)
        return p

    p = action("build", _tables_build, "solve a board into DIR (resumes after the tiers already there, and within "
               "a tier from its checkpoint); says first what it needs (entries, memory, disk, CPU time) and refuses "
               "a build whose memory exceeds the budget", board=True, executor=True)
    p.add_argument("--max-memory", type=size_arg, metavar="SIZE",
                   help="memory budget, e.g. 16G (default: three quarters of the machine)")
    p.add_argument("--force", action="store_true", help="build even when the memory needed exceeds the budget")
    p.add_argument("--tiers", metavar="A-B", help="only the tiers from A to B (numbers of empty squares; each "
                                                   "tier is solved from the one below it, built or there)")
    p.add_argument("--checkpoint-minutes", type=whole_arg(0, 100_000), default=10, metavar="M",
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
    p.add_argument("--count", type=whole_arg(1, 10_000_000), metavar="N",
                   help="--against search: how many random positions (default 2000)")
    p.add_argument("--empty", metavar="A-B",
                   help="--against search: empty squares of the random positions (default 1-4)")
    p.add_argument("--seed", type=whole_arg(0, MAX_SEED), help="--against search: the seed (default 13)")
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
    say(f"ataxx-solve tables: {text}")


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
    except (ClusterError, TierError) as exc:
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
    entries = []
    for item in items:
        if isinstance(item, PositionFormatError):
            say(str(item))
            status = EXIT_INPUT
        else:
            entries.append(item)
    t = time.perf_counter()
    answers = tb.probe_entries(entries)
    seconds = time.perf_counter() - t
    out = []
    refused: set[tuple[str, int]] = set()
    for answer in answers:
        item = answer.entry
        if answer.error is not None:
            if (item.source, item.line) not in refused:
                refused.add((item.source, item.line))
                say(f"{item.source}:{item.line}: {answer.error}")
            status = EXIT_INPUT
            continue
        out.append(json.dumps(answer.to_json()) if args.json else answer.text())
    n = sum(a.error is None for a in answers)
    if out:
        print("\n".join(out))
    print(f"probed {n:,} position{'' if n == 1 else 's'} in {seconds:.3f} s{rate_text(n, seconds)}", file=sys.stderr)
    return status


RATE_MIN_COUNT = 1_000  # a rate is printed from this many positions ...
RATE_MIN_SECONDS = 0.05  # ... and this much time: below, it is the tables' loading and the clock's noise


def rate_text(n: int, seconds: float) -> str:
    """' (123,456 per second)', or '' where a rate would mean nothing (few positions, or too short
    a time: probing one position is mostly reading its tier)."""
    if n < RATE_MIN_COUNT or seconds < RATE_MIN_SECONDS:
        return ""
    return f" ({n / seconds:,.0f} per second)"
