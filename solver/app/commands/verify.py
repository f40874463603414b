"""The ``verify`` command: an AI's moves judged (recorded, or asked of engines and players)."""

from __future__ import annotations

import argparse
import json
import sys

from solver.app.commands.common import (
    COMMANDS,
    EXIT_FAILED,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    MAX_SEED,
    Commands,
    add_game_options,
    add_notation_option,
    add_solver_options,
    check_picture,
    count_text,
    game_pick,
    nothing_picked,
    interval_text,
    limits_of,
    open_tables,
    say,
    seconds_arg,
    whole_arg,
    write_output,
)
from solver.app.commands.progress import ProgressView, StatusLine
from solver.app.pictures import (
    TINT_SECONDS,
    html_report,
    report_boards,
)
from solver.common.files import OutputError, check_output, replace_file
from solver.common.limits import Limits
from solver.game.notation import Notation
from solver.game.rules import parse_rules
from solver.io.epd import ce_mismatches
from solver.io.formats import (
    FORMATS,
    printable,
    quote,
    read_file,
)
from solver.oracles.oracle import Progress
from solver.play.annotate import annotated_pgn, is_annotated_pgn, read_pgn_file
from solver.play.players import make_asker
from solver.play.uai_client import MAX_ANSWER_BYTES, MAX_LINE_BYTES, adopting_orphans
from solver.play.verify import (
    Check,
    Verifier,
    choices_from_file,
    only_players,
    run_verify,
    summarise,
    summary_table,
)
from solver.solve import budget
from solver.solve.solver import ALGORITHMS, Solver


def add_verify(commands: Commands) -> None:
    p = commands.add_parser(
        "verify", help=COMMANDS["verify"],
        description="Check an AI's moves against the exact values: the moves recorded in the file (move: headers, "
                    "game records, PGN games, an EPD suite's bm), or the answers of the players given with --engine in every position of the file. "
                    "Each checked move is optimal, an inaccuracy (loses points, keeps the outcome) or a blunder "
                    "(changes the outcome). Exit status: 0 when every move was checked (blunders included); 1 when "
                    "a player's answer was a problem (a crash, a hang, an illegal or unparsable move) or a position "
                    "could not be settled within the limits; 2 for unreadable input or bad arguments. A UAI "
                    f"engine's lines are read up to {MAX_LINE_BYTES // 1024} KiB each and "
                    f"{MAX_ANSWER_BYTES // (1 << 20)} MiB per answer; more is a problem and the engine is restarted.")
    p.add_argument("files", nargs="+", metavar="FILE", help="position files")
    p.add_argument("--engine", action="append", default=[], metavar="CMD",
                   help="a player to audit: a UAI engine command, builtin:random|greedy|buchheit|gataxx|alphabeta:D, "
                        "cs61b:CMD (a program in CS 61B's Ataxx language: checks games, PGN or moves:) or colon:CMD "
                        "(a minimax-assignment program: a colon grid in, x0:y0:x1:y1: out, run per position) "
                        "(repeat for several)")
    p.add_argument("--go", default="depth 6", help="the UAI go arguments, one line (default: 'depth 6')")
    p.add_argument("--move-timeout", type=seconds_arg, default=10.0, metavar="SECONDS",
                   help="how long an engine or program may take per move before it counts as hung (default 10)")
    add_solver_options(p, engine_is_player=True)  # --engine names the players here
    p.add_argument("--seed", type=whole_arg(0, MAX_SEED), default=0,
                   help="seed of the built-in players' random choices (default 0)")
    p.add_argument("--json", action="store_true", help="one JSON object per checked move, then the summary")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    p.add_argument("--annotate", metavar="FILE",
                   help="PGN games: write them back to FILE with the verdicts, $2 an inaccuracy and $4 a blunder "
                        "after the move, and a comment with the proved values (X's side) and the best move; all "
                        "tags and the main line are kept, the input's comments, NAGs and variations are not")
    p.add_argument("--player", action="append", default=[], metavar="NAME",
                   help="judge only the moves of this player, named by the games' [Black]/[White] tags (Black is "
                        "X, the first mover) or a player: header (repeat for several); with --engine, the engines are asked "
                        "only where this player was to move")
    p.add_argument("--no-limit", action="store_true",
                   help="no budget per judged move where none is given (by default, where a move may take long to "
                        f"judge, each gets {budget.DEFAULT_MOVE_NODES:,} nodes of the search, or "
                        f"{budget.DEFAULT_MOVE_SECONDS:g} s with --threads over 1)")
    p.add_argument("--format", default="auto", choices=FORMATS, help="input format (default: detect)")
    add_game_options(p, "every move of each game")
    add_notation_option(p)
    p.set_defaults(run=verify_command, parser=p)


def verify_command(args: argparse.Namespace) -> int:
    p = args.parser
    limits = limits_of(args)
    if not args.go.isprintable():
        p.error(f"argument --go: must be one line of printable text, not {quote(args.go)}")
    if args.html:
        try:
            check_picture(args.html, "html", args.files)
        except OutputError as exc:
            p.error(f"argument --html: {exc}")
    games: list = []  # (file, game) for --annotate
    if args.annotate:
        if args.engine:
            p.error("argument --annotate: marks the moves played in the games; it cannot be used with --engine")
        try:
            check_output(args.annotate, args.files, is_annotated_pgn, what="annotated PGN")
            for f in args.files:
                games.extend((f, g) for g in read_pgn_file(f, parse_rules(args.rules), args.format))
        except (OutputError, ValueError) as exc:
            p.error(f"argument --annotate: {exc}")
    askers = []
    for spec in args.engine:
        if spec.strip().lower() in ALGORITHMS:
            p.error(f"argument --engine: {quote(spec)} is a solving algorithm, not an engine (a UAI command or "
                    f"builtin:NAME): give it with --solver {spec.strip()}")
        try:
            askers.append(make_asker(spec, args.seed, args.go, args.move_timeout))
        except ValueError as exc:
            p.error(f"argument --engine: {exc}")
    items = [item for f in args.files for item in read_file(f, args.format, parse_rules(args.rules),
                                                            game_pick(args, every=True))]
    choices, errors = choices_from_file(items, ask=bool(askers))
    for err in errors:
        say(str(err))
    if args.player:
        try:
            choices = only_players(choices, args.player)
        except ValueError as exc:
            say(f"ataxx-solve verify: {exc}")
            return EXIT_INPUT
    if not choices:
        if not items and (why := nothing_picked(args)) is not None:
            say(f"ataxx-solve verify: nothing to check: {why}")
        elif not errors:  # (a file that cannot be read has said so)
            say("ataxx-solve verify: nothing to check (no move: headers, game records or EPD bm; give players with --engine)")
        return EXIT_INPUT
    tables = open_tables(args.tables, "ataxx-solve verify", search_bytes=args.tables_memory)  # (what the tables do not hold is solved)
    done = [0]

    def describe(ev: Progress) -> str:
        rate = ev.done / ev.seconds if ev.seconds > 0 else 0.0
        what = "testing" if ev.phase == "testing" else f"searching, value {interval_text(ev.lower, ev.upper)}"
        return f"checked {done[0]}/{len(choices)}: {what} | {count_text(ev.done)} nodes, {count_text(rate)}/s"

    if budget.unlimited(limits) and not args.no_limit:  # no silent hours: a default budget per judged move
        algorithm_for = Solver(algorithm=args.solver, limits=limits, tables=tables).algorithm_for
        first = next((c for c in choices if budget.may_take_long(algorithm_for(c.position), c.position)), None)
        if first is not None:
            limits = budget.default_budget(limits, args.threads)
            where = f"{first.entry.source}:{first.entry.line}"
            say(f"ataxx-solve verify: {budget.default_budget_note(limits, where, first.position)}")
    view = ProgressView(describe) if sys.stderr.isatty() else None
    solver = Solver(algorithm=args.solver, limits=limits,
                    progress=view, tables=tables)
    verifier = Verifier(solver)

    notation = Notation(args.notation)

    def show(c: Check) -> None:
        c = c.written(notation)
        done[0] += 1
        if view is not None:
            view.close()
        if args.json:
            print(json.dumps(c.to_json()), flush=True)
        elif (line := c.text()) is not None:
            print(printable(line), flush=True)

    checks: list = []
    interrupted = False
    with adopting_orphans():  # what the engines leave behind ends with verify
        try:
            run_verify(choices, askers, verifier, on_check=show, into=checks)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if view is not None:
                view.close()
            for a in askers:
                a.close()
    if interrupted:
        say(f"ataxx-solve verify: interrupted after {len(checks)} check(s); the summary covers those")
    for line in ce_mismatches(items, checks):  # an EPD suite's ce against the proved value
        print(printable(line))
    games_checks = checks  # the annotated PGN keeps PGN's moves, whatever --notation prints
    checks = [c.written(notation) for c in checks]
    summaries = summarise(checks, players=[notation.words(a.name) for a in askers])
    if args.json:
        print(json.dumps({"summary": [s.to_json() for s in summaries], "unsettled": verifier.unsettled,
                          "input_errors": len(errors)}))
    else:
        print()
        print(summary_table(summaries))
        if errors:  # (the table has no row for them: a reader must not take it for the whole input)
            n = len(errors)
            print(f"{n} input error{'s' if n != 1 else ''} (above) not in the table; a game is judged up to its "
                  "bad move")
        if verifier.unsettled:
            print(f"{verifier.unsettled} move(s) not settled within the budget (intervals above)")
    if args.html:
        status = StatusLine() if sys.stderr.isatty() else None
        if not interrupted:
            _say_tint_work(args.html, report_boards(checks), verifier.solver.limits)
        try:
            try:
                page = html_report(checks, summaries, verifier, "Ataxx move audit: " + ", ".join(args.files),
                                   tint=not interrupted,
                                   on_board=None if status is None else
                                   lambda k, n: status.show(f"drawing {args.html}: board {k:,} of {n:,}"))
            finally:
                if status is not None:
                    status.close()
            write_output(args.html, page, "html", args.files)
        except OutputError as exc:  # (an OSError is main()'s: the same line, the same status)
            say(f"ataxx-solve: cannot write {exc}")
            return EXIT_INPUT
        say(f"wrote {args.html}")
    if args.annotate:
        try:
            check_output(args.annotate, args.files, is_annotated_pgn, what="annotated PGN")
            replace_file(args.annotate, [annotated_pgn(games, games_checks)])
        except OutputError as exc:
            say(f"ataxx-solve: cannot write {exc}")
            return EXIT_INPUT
        say(f"wrote {args.annotate}")
    if interrupted:
        return EXIT_INTERRUPTED
    if errors:
        return EXIT_INPUT
    problems = any(c.problem for c in checks)
    return EXIT_FAILED if problems or verifier.unsettled else EXIT_OK


def _say_tint_work(path: str, boards: int, limits: Limits) -> None:
    """One line before a long drawing of the ``--html`` page: tinting a board solves every move
    of its position (within --timeout and at most TINT_SECONDS, or within --nodes), so a page of
    many mistakes can take long after the summary; a short one says nothing."""
    if boards == 0:
        return
    if limits.nodes is not None:
        if boards > 10:
            say(f"ataxx-solve verify: drawing {boards:,} boards into {path}, each tinted within "
                f"{limits.nodes:,} nodes (Ctrl-C draws the rest untinted)")
        return
    per = min(limits.timeout, TINT_SECONDS) if limits.timeout is not None else TINT_SECONDS
    most = boards * per
    if most > 60:
        say(f"ataxx-solve verify: drawing {boards:,} boards into {path}, each tinted within {per:g} s: "
            f"up to {most / 60:.0f} min (Ctrl-C draws the rest untinted)")
