"""The ``uai`` command: the solver as a UAI engine on standard input and output."""

from __future__ import annotations

import argparse

from solver.app.commands.common import COMMANDS, Commands
from solver.play import uai_server as uai_engine


def add_uai(commands: Commands) -> None:
    p = commands.add_parser(
        "uai", help=COMMANDS["uai"],
        description="The solver as a UAI engine: reads uai, isready, setoption, position, go, stop and quit on "
                    "standard input, answers on standard output; plays a proved-optimal move where the value is "
                    "proved in time (options Hash, Threads, Rules, Tables; see the README).")
    p.set_defaults(run=uai_command, parser=p)


def uai_command(args: argparse.Namespace) -> int:
    return uai_engine.main()
