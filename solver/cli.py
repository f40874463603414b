"""The ``ataxx-solve`` command: parses arguments, calls the API, prints.

Exit status: 0 when everything was solved (and every ``expect:`` held),
1 when a position could not be solved within the limits or an ``expect:``
failed, 2 for bad input or bad arguments, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from . import __version__
from .analysis import DEFAULT_ORTH_DEPTH, Analyzer
from .engine import ENGINES, choose_oracle
from .formats import FORMATS, PositionFormatError, read_file, read_text
from .limits import LimitError, MemoryLimitError, StateLimitError, TimeLimitError, parse_size
from .report import report_json, report_text, solve_entry
from .rules import RULE_SETS, X, O, parse_rules

EXIT_OK, EXIT_FAILED, EXIT_INPUT, EXIT_INTERRUPTED, EXIT_INTERNAL = 0, 1, 2, 130, 70


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return value


def _nonnegative_int(text: str) -> int:
    if text.strip() == "0":
        return 0
    return _positive_int(text)


def solve_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ataxx-solve",
        description="Exact values of Ataxx positions. Reads position files (grid, colon grid or FEN; "
                    "several positions separated by blank lines), or standard input when no file is given.",
        epilog="Other commands: ataxx-solve perft|bench|batch|verify|cache ... (each has --help).",
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="position files (default: standard input)")
    p.add_argument("--to-move", choices=("x", "o", "both"),
                   help="side(s) to move to analyse (default: the input's side, or both for a board without one)")
    p.add_argument("--rules", default="classic", choices=sorted(RULE_SETS),
                   help="rules for positions without a rules: header (default: classic)")
    p.add_argument("--format", default="auto", choices=FORMATS, help="input format (default: detect)")
    p.add_argument("--json", action="store_true", help="one JSON object per position (keys in README.md)")
    p.add_argument("--moves", action="store_true", help="list every legal move with its exact value")
    p.add_argument("--engine", default="auto", choices=ENGINES, help="solver to use (default: auto)")
    p.add_argument("--max-states", type=_positive_int, metavar="N",
                   help="stop a position cleanly when more than N positions would be solved (or nodes searched)")
    p.add_argument("--max-memory", type=_size, metavar="SIZE",
                   help="memory budget for the tables, e.g. 2G (default: three quarters of the machine)")
    p.add_argument("--timeout", type=_seconds, metavar="SECONDS", help="stop a position cleanly after this long")
    p.add_argument("--orth-depth", type=_nonnegative_int, default=DEFAULT_ORTH_DEPTH, metavar="N",
                   help=f"expand orthodox summaries to N levels (default {DEFAULT_ORTH_DEPTH})")
    p.add_argument("--version", action="version", version=f"ataxx-solve {__version__}")
    return p


def limit_hint(exc: LimitError) -> str:
    """What to raise to go further."""
    if isinstance(exc, StateLimitError):
        return " (raise --max-states to go further)"
    if isinstance(exc, MemoryLimitError):
        return " (raise --max-memory, or try --engine search)"
    if isinstance(exc, TimeLimitError):
        return " (raise --timeout to go further)"
    return ""


def _emit_error(err: PositionFormatError, as_json: bool) -> None:
    print(str(err), file=sys.stderr)
    if as_json:
        print(json.dumps({"source": err.source, "line": err.line, "error": err.message}))


def solve_command(argv: list[str]) -> int:
    args = solve_parser().parse_args(argv)
    rules = parse_rules(args.rules)
    if args.files:
        items = [item for f in args.files for item in read_file(f, args.format, rules)]
    else:
        items = read_text(sys.stdin.buffer.read(), "<stdin>", args.format, rules)
    status = EXIT_OK
    for item in items:
        if isinstance(item, PositionFormatError):
            _emit_error(item, args.json)
            status = max(status, EXIT_INPUT)
            continue
        sides = None if args.to_move is None else ((X, O) if args.to_move == "both" else (args.to_move,))
        deadline = time.monotonic() + args.timeout if args.timeout else None
        oracle = choose_oracle(item.position, args.engine, max_states=args.max_states, max_memory=args.max_memory,
                               deadline=deadline)
        analyzer = Analyzer(oracle, orth_depth=args.orth_depth)
        try:
            report = solve_entry(item, analyzer, sides)
        except LimitError as exc:
            msg = f"{item.source}:{item.line}: stopped: {exc}{limit_hint(exc)}"
            print(msg, file=sys.stderr)
            if args.json:
                print(json.dumps({"source": item.source, "line": item.line, "name": item.name, "error": str(exc)}))
            status = max(status, EXIT_FAILED)
            continue
        if report.expect_failures:
            status = max(status, EXIT_FAILED)
        if args.json:
            print(json.dumps(report_json(report, args.moves)))
        else:
            print(report_text(report, args.moves))
            print()
        sys.stdout.flush()
    return status


COMMANDS = {}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv and argv[0] in COMMANDS:
            return COMMANDS[argv[0]](argv[1:])
        return solve_command(argv)
    except KeyboardInterrupt:
        print("ataxx-solve: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except Exception as exc:  # a bug: say so in one line, keep the traceback for ATAXX_DEBUG=1
        if os.environ.get("ATAXX_DEBUG"):
            raise
        print(f"ataxx-solve: internal error: {type(exc).__name__}: {exc} "
              "(set ATAXX_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_INTERNAL
