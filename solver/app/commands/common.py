"""What the commands share: the parser with one-line errors, argument types, the solver options and their limits, exit statuses, output files."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from solver.app.outputs import SIGNATURES, check_picture, numbered, write_output  # noqa: F401 - the commands' names
from solver.common.limits import SECONDS_TEXT, Limits, parse_size
from solver.game.notation import NOTATIONS, signed
from solver.game.rules import RULE_SETS
from solver.io.formats import (
    MAX_GAME_MOVES,
    PositionFormatError,
    parse_whole,
    printable,
    quote,
)
from solver.io.pgn import Pick, parse_empty_range
from solver.solve.cache import Cache, default_cache_path
from solver.solve.solver import ALGORITHMS
from solver.tables.index import TableError
from solver.tables.probe import Tablebase

EXIT_OK, EXIT_FAILED, EXIT_INPUT, EXIT_INTERRUPTED, EXIT_INTERNAL = 0, 1, 2, 130, 70


EXIT_TERMINATED = 128 + signal.SIGTERM  # interrupted by SIGTERM (143)
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE  # standard output's reader went away (141)


# Bounds on the numbers of the arguments (each one's help or error message says so).
MAX_STATES = 10 ** 15


MAX_JOBS = 256


MAX_SUMMARY_DEPTH = 64  # --orth-depth and --tree-depth: both trees grow exponentially long before


MAX_SECONDS = 10_000_000


MAX_SEED = 2 ** 63 - 1


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error: ``ataxx-solve: error: argument --timeout: ... (see --help)``."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_INPUT, f"{self.prog}: error: {printable(message)} (see {self.prog} --help)\n")


def whole_arg(low: int, high: int) -> Callable[[str], int]:
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
    p.add_argument("--ply", type=whole_arg(0, MAX_GAME_MOVES), metavar="N",
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


def nothing_picked(args: argparse.Namespace) -> str | None:
    """Why an input that gave no position and no error gave nothing, when --empty picked (a game with
    no position in the range is no error): the line to say; else None."""
    if args.empty is None:
        return None
    low, high = args.empty
    squares = f"{low} empty square{'s' if low != 1 else ''}" if low == high else f"{low} to {high} empty squares"
    return f"no position of the games has {squares} (--empty)"


def size_arg(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


MIN_MEMORY = 1 << 20  # the smallest memory budget a solve accepts (its smallest tables take tens of KiB)


def memory_arg(text: str) -> int:
    """A --max-memory: a size of at least :data:`MIN_MEMORY` (a smaller budget could not be kept:
    the search would use its smallest tables anyway, above it)."""
    n = size_arg(text)
    if n < MIN_MEMORY:
        raise argparse.ArgumentTypeError(f"must be at least 1M, not {quote(text)}")
    return n


def seconds_arg(text: str) -> float:
    t = text.strip()
    if t.startswith("-") and SECONDS_TEXT.fullmatch(t[1:]):
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most {MAX_SECONDS:,} seconds, not {quote(text)}")
    if not SECONDS_TEXT.fullmatch(t):
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


def say(text: str) -> None:
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
    p.add_argument("--max-states", type=whole_arg(1, MAX_STATES), metavar="N",
                   help="stop a position cleanly when more than N positions would be solved (or nodes searched); "
                        f"at most {MAX_STATES:,}")
    p.add_argument("--max-memory", type=memory_arg, metavar="SIZE",
                   help="memory budget for the tables, e.g. 2G, at least 1M (default: three quarters of the machine)")
    p.add_argument("--timeout", type=seconds_arg, metavar="SECONDS",
                   help=f"stop a position cleanly after this long (at most {MAX_SECONDS:,})")
    p.add_argument("--nodes", type=whole_arg(1, MAX_STATES), metavar="N",
                   help="a node budget for each position (each move in verify), on one thread: the same results on "
                        "every machine, whatever its speed or load")
    p.add_argument("--tables", metavar="DIR",
                   help="answer from the tablebases in DIR (built by 'ataxx-solve tables build') the positions they hold; "
                        "the others are solved as without them, the search probing the tables at its leaves "
                        "(classic rules)")
    p.add_argument("--tables-memory", type=size_arg, metavar="SIZE",
                   help="memory for the tiers of --tables that the search reads whole to probe at its leaves, e.g. 16G "
                        "(default: a quarter of the machine, at least 1G; batch's worker processes share it, "
                        "each reading its own copy)")
    p.add_argument("--threads", type=whole_arg(1, 256), metavar="N",
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
        say(f"{prog}: {option}: {exc}")
        raise SystemExit(EXIT_INPUT)


Commands = argparse._SubParsersAction  # what add_subparsers() returns: add_parser() adds a command


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
    "serve": "the analysis board in the browser, and a JSON API of exact values (a local web server)",
    "compile": "compile every kernel into the cache now (any command does it the first time it needs one)",
}


def emit_error(err: PositionFormatError, as_json: bool) -> None:
    say(str(err))
    if as_json:
        print(json.dumps({"source": err.source, "line": err.line, "error": err.message}))


def interval_text(lower: int | None, upper: int | None) -> str:
    if lower is None or upper is None:
        return "?"
    return signed(lower) if lower == upper else f"{signed(lower)}..{signed(upper)}"


def count_text(n: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f}{unit}"
    return f"{n:.0f}"


def open_cache(args: argparse.Namespace) -> Cache | None:
    if getattr(args, "no_cache", False):
        return None
    return Cache(args.cache or default_cache_path(), make_directory=args.cache is None)  # CacheError: reported by main()
