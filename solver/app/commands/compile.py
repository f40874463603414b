"""The ``compile`` command: every kernel compiled into numba's cache now, together (:mod:`solver.app.compile`)."""

from __future__ import annotations

import argparse
import sys
import time

from solver.app.commands.common import COMMANDS, EXIT_OK, Commands, say
from solver.app.compile import compile_kernels, ensure_compiled, is_compiled


def add_compile(commands: Commands) -> None:
    p = commands.add_parser(
        "compile", help=COMMANDS["compile"],
        description="Compile every kernel of the solver into numba's on-disk cache, together, spread over the "
                    "processors (a minute or two on two cores, once per version of the kernels). Any command does "
                    "this the first time it needs a kernel; this command does it ahead, e.g. when installing.")
    p.add_argument("--force", action="store_true", help="compile again even when the cache holds them")
    p.set_defaults(run=compile_command, parser=p)


def compile_command(args: argparse.Namespace) -> int:
    if args.force:
        start = time.perf_counter()
        compile_kernels(force=True)
        say(f"ataxx-solve: compiled in {time.perf_counter() - start:.0f} s")
    elif is_compiled():
        say("ataxx-solve: the kernels are compiled already (in the cache); --force compiles them again")
    else:
        ensure_compiled(sys.stderr.isatty())
    return EXIT_OK
