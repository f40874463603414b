"""The ``bench`` command: the benchmarks' tables."""

from __future__ import annotations

import argparse
import json
import sys

from solver.app import bench
from solver.app.commands.common import (
    COMMANDS,
    EXIT_FAILED,
    EXIT_OK,
    Commands,
    seconds_arg,
    whole_arg,
)
from solver.io.formats import (
    quote,
)


def add_bench(commands: Commands) -> None:
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
    p.add_argument("--timeout", type=seconds_arg, default=bench.DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"time limit per 7 x 7 endgame (default {bench.DEFAULT_TIMEOUT:g})")
    p.add_argument("--threads", type=whole_arg(1, 256), default=None, metavar="N",
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
