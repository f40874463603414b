"""The ``values`` command: the researcher's table of game values."""

from __future__ import annotations

import argparse
import json
import sys
import time

from solver.app.commands.common import (
    COMMANDS,
    EXIT_OK,
    Commands,
    seconds_arg,
    whole_arg,
)
from solver.cgt import valuetable
from solver.cgt.gamevalue import DEFAULT_MAX_STATES, MAX_SQUARES
from solver.game.rules import RULE_SETS, parse_rules


def add_values(commands: Commands) -> None:
    p = commands.add_parser(
        "values", help=COMMANDS["values"],
        description="The game value of the start of every board of at most N squares (every shape rows x cols, "
                    "rows <= cols, with every block layout that the rectangle's symmetries keep and that covers no "
                    "starting piece): one row per board with its squares, blocks, empty squares, mean, temperature "
                    "and canonical form in CGSuite syntax, or why it has none (loop, zugzwang, too large, out of "
                    "time); a closing line on standard error counts them and gives the time taken.")
    p.add_argument("--max-squares", type=whole_arg(2, MAX_SQUARES), default=valuetable.DEFAULT_MAX_SQUARES,
                   metavar="N", help=f"boards of at most N squares, 2 to {MAX_SQUARES} "
                                     f"(default {valuetable.DEFAULT_MAX_SQUARES})")
    p.add_argument("--rules", default="classic", choices=sorted(RULE_SETS), help="rules (default: classic)")
    p.add_argument("--timeout-each", type=seconds_arg, default=valuetable.DEFAULT_TIMEOUT_EACH, metavar="SECONDS",
                   help=f"time limit per board (default {valuetable.DEFAULT_TIMEOUT_EACH:g})")
    p.add_argument("--max-states", type=whole_arg(1, 10**9), default=DEFAULT_MAX_STATES, metavar="N",
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
