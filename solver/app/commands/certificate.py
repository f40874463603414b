"""The ``certificate`` command: a certificate's bounds confirmed or refuted by the plain rules."""

from __future__ import annotations

import argparse

from solver.app.commands.common import (
    COMMANDS,
    EXIT_FAILED,
    EXIT_INPUT,
    EXIT_OK,
    MAX_STATES,
    Commands,
    Parser,
    say,
    size_arg,
    whole_arg,
)
from solver.common.limits import size_name
from solver.io.formats import (
    printable,
)
from solver.solve import certificate


def add_certificate(commands: Commands) -> None:
    p = commands.add_parser(
        "certificate", help=COMMANDS["certificate"],
        description="Check a certificate written by 'ataxx-solve --certificate FILE': for each bound it claims, "
                    "follow the prover's strategy with every reply of the other side, using the plain rules (not "
                    "the compiled engine), and confirm or refute the bound in one line. Exit status: 0 when every "
                    "bound is confirmed, 1 when one is refuted, 2 when the file cannot be read.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=Parser)
    check = actions.add_parser("check", help="confirm or refute each bound of a certificate",
                               description="Confirm or refute each bound of a certificate with the plain rules.")
    check.add_argument("file", metavar="FILE", help="a certificate (gzipped or not), or - for the standard input")
    check.add_argument("--max-positions", type=whole_arg(1, MAX_STATES), default=certificate.DEFAULT_LIMIT,
                       metavar="N", help=f"positions a strategy may reach (default {certificate.DEFAULT_LIMIT:,})")
    check.add_argument("--max-size", type=size_arg, default=certificate.DEFAULT_MAX_SIZE, metavar="SIZE",
                       help=f"text read at most, after gzip (default {size_name(certificate.DEFAULT_MAX_SIZE)}; "
                            f"lines of at most {certificate.MAX_LINE:,} characters); past it the file is refused")
    check.set_defaults(run=certificate_command, parser=check)


def certificate_command(args: argparse.Namespace) -> int:
    try:
        claims = certificate.read(args.file, args.max_size)
    except certificate.CertificateError as exc:
        say(f"ataxx-solve certificate: {printable(str(exc))}")
        return EXIT_INPUT
    if not claims:
        say(f"ataxx-solve certificate: {printable(args.file)}: no claim in it")
        return EXIT_INPUT
    status = EXIT_OK
    for claim in claims:
        verdict = certificate.check(claim, args.max_positions)
        print(verdict.line())
        if not verdict.confirmed:
            status = EXIT_FAILED
    return status
