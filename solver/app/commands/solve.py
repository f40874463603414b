"""The ``solve`` command (the default): positions solved and printed, pictures, certificates and thermographs written."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from solver import __version__
from solver.app.commands.common import (
    COMMANDS,
    EXIT_FAILED,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    MAX_SUMMARY_DEPTH,
    Commands,
    Parser,
    add_game_options,
    add_notation_option,
    add_solver_options,
    emit_error,
    game_pick,
    nothing_picked,
    limits_of,
    open_tables,
    say,
    whole_arg,
)
from solver.app.commands.progress import ProgressView
from solver.app.outputs import Outputs
from solver.app.pictures import (
    DEFAULT_TREE_DEPTH,
)
from solver.common.files import OutputError
from solver.game.notation import Notation
from solver.game.rules import O, Side, X, parse_rules
from solver.io.formats import (
    FORMATS,
    PositionFormatError,
    is_large_start,
    read_file,
    read_text,
)
from solver.oracles.searchfile import TableFileError
from solver.solve import budget
from solver.solve.analysis import DEFAULT_ORTH_DEPTH, SUMMARY_WIDTH
from solver.solve.report import Report, report_json, report_text
from solver.solve.solver import Solver
from solver.tables.index import TableError
from solver.tables.probe import MissingTableError


def add_solve(commands: Commands) -> Parser:
    p = commands.add_parser(
        "solve", prog="ataxx-solve", help=COMMANDS["solve"], formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Exact values of Ataxx positions. Reads position files (grid, colon grid, FEN or CS 61B\n"
                    "dump; several positions separated by blank lines), or standard input when no file is given.",
        epilog="commands (ataxx-solve COMMAND --help for each):\n"
               + "\n".join(f"  {name:<{max(map(len, COMMANDS))}} {text}" for name, text in COMMANDS.items()),
    )
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="position files, or a FEN in quotes (default: standard input)")
    p.add_argument("--to-move", choices=("x", "o", "both"),
                   help="side(s) to move to analyse (default: the input's side, or both for a board without one)")
    p.add_argument("--format", default="auto", choices=FORMATS, help="input format (default: detect)")
    add_game_options(p, "the final position")
    add_notation_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object per position (keys in README.md)")
    p.add_argument("--moves", action="store_true", help="list every legal move with its exact value")
    p.add_argument("--value", action="store_true",
                   help="the board's game value: canonical form (CGSuite syntax), stops, mean, temperature")
    p.add_argument("--cut-loops", action="store_true",
                   help="--value by Chen's convention: repetitions cut to 0, zugzwangs kept (says what it cut)")
    p.add_argument("--thermograph", metavar="FILE",
                   help="write the thermograph of the board's game value as SVG (implies --value)")
    p.add_argument("--no-limit", action="store_true",
                   help="search the standard start of a 7 x 7 (or larger) board even without --timeout, --max-states "
                        "or --nodes (refused without one of them: no machine finishes it)")
    p.add_argument("--outcome-only", action="store_true",
                   help="stop once the outcome (win, loss or draw) is proved, without the margin or the line")
    add_solver_options(p)
    p.add_argument("--orth-depth", type=whole_arg(0, MAX_SUMMARY_DEPTH), metavar="N",
                   help=f"expand orthodox summaries to N levels (default: the line as deep as fits in "
                        f"{SUMMARY_WIDTH} characters, the tree and JSON at least {DEFAULT_ORTH_DEPTH} levels)")
    p.add_argument("--orth-format", choices=("line", "tree"), default="line",
                   help="print orthodox summaries on one line (default) or as an indented tree")
    p.add_argument("--dot", metavar="FILE", help="write the solved game tree as Graphviz DOT")
    p.add_argument("--tree-depth", type=whole_arg(0, MAX_SUMMARY_DEPTH), default=DEFAULT_TREE_DEPTH, metavar="N",
                   help=f"plies of the tree in --dot (default {DEFAULT_TREE_DEPTH}, at most {MAX_SUMMARY_DEPTH})")
    p.add_argument("--svg", metavar="FILE", help="draw the board as SVG, each square tinted by the value of moving there")
    p.add_argument("--table-file", metavar="FILE",
                   help="the search resumes from FILE when it exists and saves its tables to it after each position, "
                        "so that several runs add up (one board and rule set per file)")
    p.add_argument("--certificate", metavar="FILE",
                   help="write every bound proved with the strategy that proves it, for 'ataxx-solve certificate "
                        "check FILE' (FILE, FILE-2, ... for several positions)")
    p.add_argument("--version", action="version", version=f"ataxx-solve {__version__}")
    p.set_defaults(run=solve_command, parser=p)
    return p


def solve_parser() -> argparse.ArgumentParser:
    """The parser of the solve command (the default command), on its own."""
    return add_solve(Parser(prog="ataxx-solve").add_subparsers())


def _outputs(args: argparse.Namespace) -> Outputs:
    return Outputs(args.dot, args.svg, args.certificate, args.thermograph, args.tree_depth, args.files)


def solve_command(args: argparse.Namespace) -> int:
    rules = parse_rules(args.rules)
    if args.files:
        items = [item for f in args.files for item in read_file(f, args.format, rules, game_pick(args))]
    else:
        try:
            data = sys.stdin.buffer.read()
        except OSError as exc:
            say(f"<stdin>: cannot read: {exc.strerror}")
            return EXIT_INPUT
        items = read_text(data, "<stdin>", args.format, rules, game_pick(args))
    entries = [item for item in items if not isinstance(item, PositionFormatError)]
    if not items and (why := nothing_picked(args)) is not None:
        say(f"ataxx-solve: {why}")
        return EXIT_FAILED
    if (args.ply is not None or args.empty is not None) and entries and all(e.history is None for e in entries):
        say("ataxx-solve: --ply and --empty pick positions of PGN games; the input has no game, so every "
            "position is solved")
    try:
        _outputs(args).check(sum(not isinstance(item, PositionFormatError) for item in items))
    except OutputError as exc:
        say(f"ataxx-solve: cannot write {exc}")
        return EXIT_INPUT
    status = EXIT_OK
    solved = 0
    notation = Notation(args.notation)  # one notation in a run: the board, the progress line, the report
    view = ProgressView(notation=notation) if sys.stderr.isatty() else None
    solver = Solver(algorithm=args.solver, limits=limits_of(args),
                    progress=view, tables=open_tables(args.tables, search_bytes=args.tables_memory), orth_depth=args.orth_depth, threads=args.threads,
                    table_file=args.table_file)
    limited = args.timeout is not None or args.max_states is not None or args.nodes is not None
    for item in items:
        if isinstance(item, PositionFormatError):
            emit_error(item, args.json)
            status = max(status, EXIT_INPUT)
            continue
        if is_large_start(item.position) and not limited and not args.no_limit:
            board = item.position.board
            emit_error(PositionFormatError(
                f"the standard start of a {board.rows} x {board.cols} board is not solved without a limit (no "
                "machine finishes it): give --timeout SECONDS, --max-states N or --nodes N, or --no-limit to "
                "search anyway", item.source, item.line), args.json)
            status = max(status, EXIT_INPUT)
            continue
        if args.to_move is not None:  # --to-move overrides the input's side to move: said, not a conflict
            item = dataclasses.replace(item, sides=(X, O) if args.to_move == "both" else (Side(args.to_move),))
        try:
            analyzer = solver.analyzer(item.position)
        except (MissingTableError, TableFileError, TableError) as exc:  # (the search reads the tables it probes)
            emit_error(PositionFormatError(str(exc), item.source, item.line), args.json)
            status = max(status, EXIT_INPUT)
            continue
        if not limited and budget.may_take_long(solver.algorithm_for(item.position), item.position):
            say(f"ataxx-solve: {budget.no_limit_note(f'{item.source}:{item.line}', item.position)}")  # no silent hours
        if view is not None:
            view.where = f"{item.source}:{item.line}: "
        try:
            report = solver.solve(item, moves=args.moves, outcome_only=args.outcome_only, analyzer=analyzer,
                                  certify=args.certificate is not None, value=args.value or args.thermograph is not None,
                                  cut_loops=args.cut_loops)
        except (MissingTableError, TableError) as exc:  # a tier missing or found damaged while probing
            emit_error(PositionFormatError(str(exc), item.source, item.line), args.json)
            status = max(status, EXIT_INPUT)
            continue
        finally:
            if view is not None:
                view.close()
        stopped = report.stopped_text(args.outcome_only, notation)
        if stopped is not None:
            status = max(status, EXIT_FAILED)
            say(f"{item.source}:{item.line}: {stopped}")
        if report.interrupted or report.certificate_error == "interrupted":
            _print_report(args, report)
            say("ataxx-solve: interrupted")
            return EXIT_INTERRUPTED
        if report.expect_failures:
            status = max(status, EXIT_FAILED)
        solved += 1
        try:
            written = _outputs(args).write(report, analyzer, solved)
        except OutputError as exc:  # (an OSError is main()'s: the same line, the same status)
            say(f"ataxx-solve: cannot write {exc}")
            return EXIT_INPUT
        except KeyboardInterrupt:  # while a picture searched the moves: the solve's report still stands
            say(f"{item.source}:{item.line}: no picture: interrupted while drawing it")
            _print_report(args, report)
            say("ataxx-solve: interrupted")
            return EXIT_INTERRUPTED
        for line in written.lines:
            say(line)
        if written.failed:
            status = max(status, EXIT_FAILED)
        _print_report(args, report)
    return status


def _print_report(args: argparse.Namespace, report: Report) -> None:
    if args.json:
        print(json.dumps(report_json(report, args.moves, Notation(args.notation))))
    else:
        print(report_text(report, args.moves, orth_tree=args.orth_format == "tree", notation=Notation(args.notation)))
        print()
    sys.stdout.flush()
