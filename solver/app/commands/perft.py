"""The ``perft`` command: move sequences counted as libataxx counts them."""

from __future__ import annotations

import argparse
import json
import sys
import time

from solver.app.commands.common import (
    COMMANDS,
    EXIT_INPUT,
    EXIT_OK,
    Commands,
    say,
    whole_arg,
)
from solver.game.perft import MAX_DEPTH, perft
from solver.game.rules import RULE_SETS, Position, parse_rules
from solver.io.formats import (
    PositionFormatError,
    parse_position,
    write_fen,
)


def add_perft(commands: Commands) -> None:
    p = commands.add_parser(
        "perft", help=COMMANDS["perft"],
        description="Count the move sequences of DEPTH plies from a position, as libataxx does "
                    "(a forced pass is a move; a finished game counts 1 at depth 0 and 0 deeper).")
    p.add_argument("fen", metavar="FEN", help="the position: a FEN (quote it) or startpos")
    p.add_argument("depth", metavar="DEPTH", type=whole_arg(0, MAX_DEPTH), help=f"plies, 0 to {MAX_DEPTH}")
    p.add_argument("--divide", action="store_true", help="also print the count after each first move")
    p.add_argument("--rules", default="uai", choices=sorted(RULE_SETS), help="rules (default: uai)")
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.set_defaults(run=perft_command, parser=p)


def perft_command(args: argparse.Namespace) -> int:
    rules = parse_rules(args.rules)
    try:
        entry = parse_position(args.fen, "fen", rules, source="FEN")
    except PositionFormatError as err:
        say(f"ataxx-solve perft: {err}")
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
