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
for SIGTERM, which is handled the same way: what was proved is reported), 141 when standard
output's reader went away (``| head``: quietly), and 70 only for a bug (an "internal error").
``verify`` documents its own.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import sys
from collections.abc import Iterator

from solver.app.commands.batch import add_batch
from solver.app.commands.bench import add_bench
from solver.app.commands.cache import add_cache
from solver.app.commands.certificate import add_certificate
from solver.app.commands.compile import add_compile
from solver.app.commands.common import (
    COMMANDS,
    EXIT_BROKEN_PIPE,
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    Parser,
    log_to_stderr,
    say,
)
from solver.app.commands.perft import add_perft
from solver.app.commands.serve import add_serve
from solver.app.commands.solve import add_solve
from solver.app.commands.tables import add_tables
from solver.app.commands.uai import add_uai
from solver.app.commands.values import add_values
from solver.app.commands.verify import add_verify
from solver import engine
from solver.app.compile import ensure_compiled
from solver.common.files import OutputError
from solver.io.formats import (
    quote,
)
from solver.solve.cache import CacheError
from solver.tables.probe import MissingTableError
from solver.tiers.game import TierError

_COMMAND_WORD = re.compile(r"[a-z][a-z0-9-]*")


def build_parser() -> Parser:
    """The command line: a parser with a subcommand for each of :data:`COMMANDS`."""
    top = Parser(prog="ataxx-solve", description="Exact values of Ataxx positions on small boards. "
                  "'ataxx-solve FILE...' solves positions (the solve command); other commands below.")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=Parser)
    add_solve(commands)
    add_batch(commands)
    add_verify(commands)
    add_perft(commands)
    add_bench(commands)
    add_cache(commands)
    add_tables(commands)
    add_certificate(commands)
    add_uai(commands)
    add_values(commands)
    add_serve(commands)
    add_compile(commands)
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
    # the first kernel the command needs compiles them all, together, with one notice and one bar
    engine.on_first_use(lambda: ensure_compiled(sys.stderr.isatty()))
    try:
        with _sigterm_as_interrupt() as terminated:
            status = _main(argv)
    finally:
        engine.on_first_use(None)
    return EXIT_TERMINATED if terminated and status == EXIT_INTERRUPTED else status


def _main(argv: list[str]) -> int:
    try:
        args = parse_command_line(argv)
        status: int = args.run(args)
        return status
    except KeyboardInterrupt:
        print("ataxx-solve: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (CacheError, OutputError, TierError, MissingTableError) as exc:
        # (a table file found damaged or missing while probing: tables probe, verify)
        say(f"ataxx-solve: {exc}")
        return EXIT_INPUT
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, with the status of a command that a
        # closed pipe ended (128 + SIGPIPE): the work was not all done, nor all written.
        _drop_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        # A file or standard output that cannot be written (a full disk, ...): what was done is kept.
        if exc.filename is None:
            _drop_stdout()
        say(f"ataxx-solve: cannot write {exc.filename or 'standard output'}: {exc.strerror or exc}")
        return EXIT_INPUT
    except Exception as exc:  # a bug: say so in one line, keep the traceback for ATAXX_DEBUG=1
        if os.environ.get("ATAXX_DEBUG"):
            raise
        print(f"ataxx-solve: internal error: {type(exc).__name__}: {exc} "
              "(set ATAXX_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_INTERNAL
