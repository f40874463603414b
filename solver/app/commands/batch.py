"""The ``batch`` command: position files solved in worker processes into JSON lines, with a cache."""

from __future__ import annotations

import argparse
import os
import sys
import threading

from solver.app.commands.common import (
    COMMANDS,
    EXIT_FAILED,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    MAX_JOBS,
    Commands,
    add_game_options,
    add_notation_option,
    add_solver_options,
    count_text,
    game_pick,
    limits_of,
    open_cache,
    open_tables,
    say,
    whole_arg,
)
from solver.common.files import OutputError, check_output, replace_file
from solver.game.rules import parse_rules
from solver.io.epd import is_epd_output, suite_lines
from solver.io.formats import (
    FORMATS,
)
from solver.solve.batch import LiveArray, BatchOptions, live_status, run_batch
from solver.solve.batch import BatchSummary


def add_batch(commands: Commands) -> None:
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
    p.add_argument("--jobs", type=whole_arg(1, MAX_JOBS), default=os.cpu_count() or 1, metavar="N",
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
                   if f == "-" else "is a directory, not a position file" if os.path.isdir(f) else
                   "not a regular file (batch reads a file again to resume it): save the input to a file"
                   if os.path.exists(f) else "no such file")
            say(f"ataxx-solve batch: {f}: {why}")
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
    cache = None if args.tables or args.epd else open_cache(args)
    limits_of(args)  # (--nodes with --threads is refused here)
    options = BatchOptions(args.solver, args.max_states, args.max_memory, args.timeout, tables=args.tables, nodes=args.nodes,
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
                text += f" | searching {busy}: {count_text(nodes)} nodes, {count_text(rate)}/s"
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
                            pick=game_pick(args), notice=lambda line: say(f"ataxx-solve batch: {line}"))
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
        say(f"{file}: {reason}" if line is None else f"{file}:{line}: {reason}")  # (a whole file: no line)
    if summary.cache_problem:
        say(f"ataxx-solve batch: the cache failed and was dropped ({summary.cache_problem}); "
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
    say(f"batch: {', '.join(parts)} in {summary.seconds:.1f} s")
    if args.epd:
        lines = suite_lines(summary.records)
        try:
            check_output(args.epd, args.files, is_epd_output, what="EPD suite")
            replace_file(args.epd, [line + "\n" for line in lines])
        except OutputError as exc:
            say(f"ataxx-solve: cannot write {exc}")
            return EXIT_INPUT
        say(f"wrote {args.epd} ({len(lines)} line{'' if len(lines) == 1 else 's'})")
    return EXIT_FAILED if summary.failed else EXIT_OK
