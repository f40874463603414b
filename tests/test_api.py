"""The library: the Solver API and its README examples, the oracle contract, quiet engines,
the typed core (the type checker runs here), and the inputs users already have."""

import doctest
import importlib
import math
import subprocess
import sys
from pathlib import Path

import pytest

import solver
from helpers import random_positions
from solver import PASS, ConflictError, Entry, Limits, Move, Position, Solver, parse_position
from solver.tables import checks as tablechecks
from solver.oracles.exact import analysis_by_tests, draw_analysis_by_tests
from solver.io.formats import read_file
from solver.solve.analysis import Analyzer
from solver.app.cli import main
from solver.oracles.retro import RetroOracle
from solver.oracles.search import SearchOracle
from solver.io.formats import PositionFormatError, read_positions
from solver.oracles.oracle import Oracle, Progress
from solver.oracles.reference import ReferenceOracle
from solver.game.rules import CLASSIC, O, UAI, X, Side
from solver.common.limits import BudgetError
from solver.common.scores import score_of, value_threshold, widen
from solver.tables.probe import TableOracle, Tablebase
from solver.tables.build import build

ROOT = Path(__file__).resolve().parent.parent


# -- the README's API section and the docstrings run ------------------------------------------------

@pytest.mark.slow
def test_the_readme_examples_run():
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 15 and result.failed == 0, result


@pytest.mark.parametrize("module", ["solver", "solver.solve.solver", "solver.game.rules", "solver.game.board", "solver.game.notation"])
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result


@pytest.mark.slow
def test_the_package_type_checks():
    """mypy over the package, as configured in pyproject.toml (the core strictly, the compiled
    kernels loosely): CI runs it as part of the suite."""
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout


@pytest.mark.slow
def test_the_built_package_is_typed_ships_the_endgame_suite_and_the_command(tmp_path):
    """The wheel that pip builds from this tree (a copy of it, so that the build leaves nothing
    here): the package's modules, py.typed, the endgame suite, the ataxx-solve entry point."""
    import shutil
    import zipfile

    from solver.app.bench import ENDGAME_FILE

    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "solver", src / "solver", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                           "-q", "-w", str(tmp_path / "dist"), str(src)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, "building the wheel failed (the test extra installs 'wheel'): " + proc.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("ataxx_solver-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        entry_points = z.read(meta).decode()
        suite = z.read("solver/data/endgames-7x7.txt")
    assert {"solver/py.typed", "solver/app/cli.py", "solver/engine/__init__.py", "solver/engine/search.py"} <= names
    assert "[console_scripts]\nataxx-solve = solver.app.cli:main" in entry_points
    assert suite == ENDGAME_FILE.read_bytes()
    entries = solver.read_file(str(ENDGAME_FILE))
    assert len(entries) == 100 and all(isinstance(e, solver.Entry) for e in entries)


# -- the Solver ------------------------------------------------------------------------------------

def test_a_report_holds_values_bounds_moves_lines_and_the_summary():
    report = Solver().solve("x.#o\n.##.")
    x, o = report.side(X), report.side(O)
    assert (x.interval.lower, x.interval.upper, x.exact) == (1, 1, True)
    assert (x.evaluation.value, x.evaluation.depth, x.best_move_name) == (1, 3, "b2")
    assert x.line.names() == ["b2", "d1", "a1"] and [m.name for m in x.moves if m.optimal] == ["b2"]
    assert o.evaluation.value == -5 and report.board.stops == (1, -5)
    assert str(report.board.orthodox) == "5|1||-5" == report.board.orthodox_name
    assert report.solver == "reference" and str(report).endswith("(reference)")


def test_limits_stop_cleanly_and_the_report_says_what_was_proved():
    report = Solver(algorithm="reference", limits=Limits(max_states=50)).solve("x...\n....\n...o")
    assert not report.exact and {s.stopped for s in report.sides} == {"states"}
    assert all(s.interval.lower == -12 and s.interval.upper == 12 for s in report.sides)
    with pytest.raises(ValueError, match="unknown algorithm 'fast'"):
        Solver(algorithm="fast")


def test_a_position_or_an_entry_is_solved_for_its_side_to_move():
    p = Position.from_fen("x3o x 0 1")
    assert [s.side for s in Solver().solve(p).sides] == [X]
    entry = parse_position("to-move: o\nx...o")
    assert Solver().solve(entry).side(O).evaluation.value == 3


def test_a_move_prints_as_its_notation_and_a_position_as_its_board():
    p = Position.start(7, 7)
    moves = p.legal_moves()
    assert [str(m) for m in moves[:3]] == ["a6", "a7a5", "a7b5"]
    assert str(p.parse_move("g1e3")) == "g1e3" and str(PASS) == "0000"
    assert p.parse_move("a6") == Move(-1, 35) and str(Move(-1, 35, p.board)) == "a6"
    assert repr(Move(-1, 35)) == str(Move(-1, 35)) == "Move(frm=-1, to=35)"  # a bare move: no board, no name
    report = Solver().solve("x...o")
    res = report.sides[0]
    assert str(res.best_move) == "b1" and [str(m) for m in res.line.moves] == res.line.names()
    assert str(Position.from_fen("x3o/5 o")) == "  abcde\n2 x...o 2\n1 ..... 1\n  abcde\nO to move"
    assert str(Position.from_fen("x3o o 7", rules=UAI)).endswith("O to move; rules: uai, counter 7")


def test_an_argument_that_contradicts_the_entry_is_an_error_naming_both():
    entry = parse_position("rules: cs61b\nx...o\n")
    with pytest.raises(ConflictError, match="under the cs61b rules, the Solver's are uai"):
        Solver(rules="uai").solve(entry)
    with pytest.raises(ConflictError, match="cs61b rules, the Solver's are classic"):
        Solver(rules="classic").solve("rules: cs61b\nx...o\n")  # a header against the Solver's rules
    assert Solver().solve(entry).sides[0].position.rules.name == "cs61b"  # no rules given: the entry's own
    assert Solver(rules="cs61b").solve(entry).exact
    p = Position.from_fen("x3o o")
    with pytest.raises(ConflictError, match="X to move asked, but the position has O to move"):
        Solver().solve(p, sides=(X,))
    with pytest.raises(ConflictError, match=r"game.pgn:3\) has O to move"):
        Solver().solve(Entry(p, (O,), "game.pgn", 3), sides=(X, O))
    assert [s.side for s in Solver().solve(parse_position("x...o"), sides=(O,)).sides] == [O]  # a board: either


@pytest.mark.slow
def test_the_library_does_not_print_and_reports_progress_to_a_callback(capsys):
    events = []
    fen = "ooxxxx1/ooooooo/oxoxxxo/oxoooo1/oooooo1/oxxooo1/1xxxo1x x 0 39"
    report = Solver(limits=Limits(timeout=0.6), progress=events.append).solve(fen)
    out, err = capsys.readouterr()
    assert out == "" and err == ""
    assert report.solver == "search" and events
    assert all(isinstance(e, Progress) and e.phase == "searching" and e.unit == "nodes" for e in events)
    assert all(e.side == X and e.lower <= e.upper for e in events)
    assert [e.done for e in events] == sorted(e.done for e in events) and events[-1].done > 0


# -- the oracle contract ---------------------------------------------------------------------------

@pytest.mark.slow
def test_every_engine_implements_the_contract(tmp_path):
    p = Position.start(2, 3)
    build(p.board, tmp_path)
    oracles = [ReferenceOracle(), RetroOracle(p.board, CLASSIC), SearchOracle(p.board, CLASSIC),
               TableOracle(Tablebase(tmp_path), p.board)]
    assert [o.name for o in oracles] == ["reference", "retro", "search", "tables"]
    for o in oracles:
        assert isinstance(o, Oracle) and o.deadline is None and o.progress is None
        o.prepare([p])
        assert o.lookup(p) == ReferenceOracle().lookup(p)
    assert [o.proves_bounds for o in oracles] == [False, False, True, False]
    with pytest.raises(TypeError, match="abstract"):
        Oracle()


@pytest.mark.slow
@pytest.mark.parametrize("rules", [CLASSIC, UAI], ids=lambda r: r.name)
def test_the_optional_methods_agree_with_the_defaults(rules):
    """GamesmanOne's self-test: each engine's fast paths give what the contract's defaults give."""
    positions = [q for q in random_positions(61, 30, rules=rules, max_empty=4) if not q.is_over()]
    for q in positions:
        ref = ReferenceOracle()
        want = ref.lookup(q)
        for o in (RetroOracle(q.board, rules), SearchOracle(q.board, rules)):
            assert o.lookup_many([q]) == Oracle.lookup_many(o, [q]) == [want], (q, o.name)
            assert o.value(q) == Oracle.value(o, q) == want[0]
            b, d = o.bounds(q), Oracle.bounds(o, q)
            assert (b.lower, b.upper, b.stopped) == (d.lower, d.upper, d.stopped) == (want[0], want[0], None)
        for o in (RetroOracle(q.board, rules), SearchOracle(q.board, rules)):  # score tests and proving moves
            thresholds = {value_threshold(want[0]), value_threshold(want[0] + 1), score_of(want[0], int(min(want[1], 64)))}
            for s in thresholds - {0}:
                assert o.score_test(q, s)[0] == Oracle.score_test(ref, q, s)[0], (q, s, o.name)
            proof = o.proving_move(q, value_threshold(want[0]))  # a move, and the score it proves
            assert proof is not None and proof[1] >= value_threshold(want[0])
            assert not Oracle.score_test(ref, q.push(proof[0]), -widen(proof[1]) + 1)[0], (q, proof)
        # the analysis by tests (the search's path; a draw's by its own walk) against the reference's
        search = SearchOracle(q.board, rules)
        fast = analysis_by_tests(search, q, want[0]) if want[0] != 0 else draw_analysis_by_tests(search, q)
        assert fast.depth == (None if want[1] == math.inf else want[1]), q
        _same_analysis(fast, Analyzer(ref), q)


def _same_analysis(fast, an: Analyzer, q: Position) -> None:
    """An analysis by tests (:class:`solver.oracles.exact.ExactLine`) is ``an``'s, move by move:
    depth (None: infinite), preferred move, optimal and tied moves, line and its repetition."""
    infos = an.moves(q, order="notation")
    best = next(i for i in infos if i.preferred)
    assert fast.depth == best.depth and fast.best_move == best.move, q
    assert fast.optimal_moves == [i.move for i in infos if i.optimal]
    assert fast.tied_moves == [i.move for i in infos if i.optimal and i.depth == best.depth]
    pv = an.principal_variation(q)
    assert (fast.line, fast.repeated) == (pv.moves, pv.repeated), q


@pytest.mark.slow
@pytest.mark.parametrize("rules", [CLASSIC, UAI], ids=lambda r: r.name)
def test_a_draws_analysis_by_tests_is_the_references(rules):
    """The search's analysis of a drawn position (one test per move, the walk of the longest
    drawing line) against the reference's values: depth (none for a draw by infinite play), the
    preferred move, the optimal and tied moves, the line and whether it ends at a repetition."""
    ref = ReferenceOracle()
    an = Analyzer(ref)
    kinds = {False: 0, True: 0}  # finite draws, draws by infinite play
    small = random_positions(62, 300, rules=rules, shapes=[(2, 3), (3, 3), (2, 4), (1, 6)],
                             max_empty=3 if rules.counter else 5)  # (the clock makes the reference slow)
    cycles = [e.position for e in read_file("positions/cycles.txt")] if rules is CLASSIC else []
    for q in cycles + small + random_positions(62, 300, rules=rules, max_empty=4):
        if min(kinds.values()) >= 8 or (rules.counter and kinds[False] >= 8):
            break
        if q.is_over() or ref.value(q) != 0:
            continue
        endless = ref.lookup(q)[1] == math.inf
        if kinds[endless] >= 8:
            continue
        kinds[endless] += 1
        _same_analysis(draw_analysis_by_tests(SearchOracle(q.board, rules), q), an, q)
    assert kinds[False] >= 4 and (rules.counter or kinds[True] >= 4), kinds


def test_the_walk_of_a_draws_depth_stops_past_its_budget():
    """A 3 x 3 draw by infinite play (positions/cycles.txt): the walk of its drawing lines needs
    tests of several positions; with a budget of 1,000 nodes it stops, and says why."""
    p = Position.from_fen("1xo/1xx/x1o x 0 1")
    assert draw_analysis_by_tests(SearchOracle(p.board, CLASSIC), p).depth is None
    with pytest.raises(BudgetError, match=r"^the depth of this draw needs more than 1,000 nodes of tests$"):
        draw_analysis_by_tests(SearchOracle(p.board, CLASSIC), p, budget=1000)


@pytest.mark.slow
def test_the_retro_engine_reports_its_phases_when_it_takes_long_enough():
    events = []
    p = Position.start(3, 5)  # a few seconds: both phases outlast the 50 ms between reports
    RetroOracle(p.board, CLASSIC, progress=events.append).prepare([p])
    phases = [e.phase for e in events]
    assert set(phases) == {"enumerating", "solving"} and phases.index("solving") > phases.index("enumerating")
    assert all(e.unit == "positions" and e.done >= 0 for e in events)
    solving = [e for e in events if e.phase == "solving"]
    assert all(e.total is not None and e.done <= e.total for e in solving)


# -- the typed core --------------------------------------------------------------------------------

def test_sides_are_a_type_and_moves_are_pushed_or_played():
    p = Position.from_fen("x3o x 0 1")
    assert p.turn is Side.X and p.turn == "x" and str(p.turn) == "x" and f"{p.turn}" == "x"
    assert Side("o") is O and X.other is O and O.sign == -1 and {"x": 1}[X] == 1
    assert Position(p.board, p.x, p.o, "o").turn is O
    q = p.play(p.parse_move("b1"))
    assert q == p.push(p.parse_move("b1")) and q.turn is O and q.fen() == "xx2o o 0 1"
    with pytest.raises(solver.IllegalMoveError, match="^e1 is not legal for X here$"):
        p.play(p.parse_move("b1").__class__(-1, 4))  # e1 holds O's piece
    assert repr(q) == "Position.from_fen('xx2o o 0 1', rules='classic')"
    assert eval(repr(q), {"Position": Position}) == q


# -- inputs users already have ---------------------------------------------------------------------

CS61B_DUMP = """===
  r - - - - - b
  - - - - - - -
  - - X - X - -
  - - - - - - -
  - - X - X - -
  - - - - - - -
  b - - - - - r
===
"""


def test_the_cs61b_board_dump_is_read():
    p = parse_position(CS61B_DUMP).position
    assert p.fen() == "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"
    legend = "\n".join(["==="] + [f"{7 - i} {row}" for i, row in enumerate(CS61B_DUMP.split("\n")[1:8])]
                       + ["   a b c d e f g", "==="])
    assert parse_position(legend).position == p
    entry = parse_position("rules: cs61b\nto-move: o\n===\n  r - b\n  - - -\n===\n")
    assert entry.sides == (O,) and entry.position.rules.name == "cs61b" and entry.position.fen() == "x1o/3 o 0 1"


@pytest.mark.parametrize("text,message", [
    ("===\n  r - q\n===\n", "square 3 of the row is 'q'"),
    ("===\n  r - -\n  - -\n===\n", "ragged rows"),
    ("===\n  r - -\n", "starts and ends with a line '==='"),
    ("===\n2 r - -\n  - - -\n===\n", "inconsistent rank labels"),
])
def test_a_bad_cs61b_dump_is_one_message(text, message):
    with pytest.raises(PositionFormatError, match=message):
        parse_position(text, source="dump.txt")


def test_a_game_record_after_its_position_belongs_to_it():
    items = read_positions("x...o\nmoves: b1 e1c1\n\nname: next\nx..o\n")
    assert [(e.line, e.moves, e.name) for e in items] == [(1, ["b1", "e1c1"], None), (5, None, "next")]
    (err,) = read_positions("moves: b1\nx...o\nmoves: d1\n")
    assert isinstance(err, PositionFormatError) and "moves given both before and after" in str(err)


def test_verify_walks_a_game_record_given_after_the_position(tmp_path, capsys):
    f = tmp_path / "game.txt"
    f.write_text("x...o\nmoves: b1 e1c1\n")
    assert main(["verify", str(f), "--solver", "reference", "--json"]) == 0
    lines = capsys.readouterr().out.strip().split("\n")
    assert [__import__("json").loads(x)["move"] for x in lines[:-1]] == ["b1", "e1c1"]


def test_tables_compare_replaces_the_scripts(tmp_path, capsys):
    build(Position.start(2, 3).board, tmp_path)
    assert main(["tables", "compare", "2x3", "--dir", str(tmp_path)]) == 0
    assert main(["tables", "compare", "2x3", "--dir", str(tmp_path), "--start"]) == 0
    assert main(["tables", "compare", "2x3", "--dir", str(tmp_path), "--against", "search", "--count", "20",
                 "--empty", "1-3"]) == 0
    out = capsys.readouterr().out.strip().split("\n")
    assert len(out) == 3 and all(line.endswith(": 0 disagreements") for line in out)
    assert out[0].startswith("2x3: ") and "in all, tables against retro" in out[0]
    assert "20 positions random, with 1 to 3 empty squares, tables against search" in out[2]
    assert main(["tables", "compare", "3x3", "--dir", str(tmp_path)]) == 2
    assert "no table for the 3x3 board" in capsys.readouterr().err


@pytest.mark.parametrize("extra,message", [
    (["--against", "search", "--empty", "\u00b2"], "argument --empty: '\u00b2' is not a range like 1-4 within the 6 squares"),
    (["--against", "search", "--empty", "1-\u0663"], "is not a range like 1-4"),
    (["--against", "search", "--empty", "3-1"], "is not a range like 1-4"),
    (["--against", "search", "--start"], "argument --start: not with --against search"),
    (["--count", "3"], "argument --count: not with --against retro"),
    (["--empty", "1-2"], "argument --empty: not with --against retro"),
    (["--cluster", "local:2"], "argument --cluster: compare runs on this machine only"),
])
def test_tables_compare_refuses_options_that_do_not_fit(tmp_path, capsys, extra, message):
    build(Position.start(2, 3).board, tmp_path)
    with pytest.raises(SystemExit, match="^2$") as info:
        main(["tables", "compare", "2x3", "--dir", str(tmp_path), *extra])
    err = capsys.readouterr().err
    assert info.value.code == 2 and message in err and "Traceback" not in err


def test_random_positions_for_comparisons_are_seeded_and_not_over():
    board = Position.start(3, 3).board
    a, b = tablechecks.random_positions(board, 10, (1, 2), 5), tablechecks.random_positions(board, 10, (1, 2), 5)
    assert a == b and all(not q.is_over() and 1 <= q.empty.bit_count() <= 2 for q in a)
    assert tablechecks.random_positions(board, 10, (1, 2), 6) != a  # another seed, other positions


def test_the_compile_notice_is_given_for_each_engine_not_yet_compiled(tmp_path, monkeypatch, caplog):
    from solver import engine as runtime

    monkeypatch.setattr(runtime, "_marker_dirs", lambda: [tmp_path])
    monkeypatch.setattr(runtime, "_seen", set())
    monkeypatch.setattr(runtime, "_notice_logged", False)
    monkeypatch.setattr(runtime, "_announce_pending", [])
    with caplog.at_level("WARNING", logger="solver"):
        runtime.announce_compilation("first_kernel")
        runtime.record_compilation()
        assert caplog.messages == [runtime.COMPILE_NOTICE]
        # a later process: the first kernel is cached, a second one is not
        monkeypatch.setattr(runtime, "_seen", set())
        monkeypatch.setattr(runtime, "_notice_logged", False)
        runtime.announce_compilation("first_kernel")
        assert caplog.messages == [runtime.COMPILE_NOTICE]
        runtime.announce_compilation("second_kernel")
        assert caplog.messages == [runtime.COMPILE_NOTICE] * 2
    assert len(list(tmp_path.iterdir())) == 1  # the second kernel's marker waits until it has run


def test_tables_usage_errors_are_one_line(capsys):
    with pytest.raises(SystemExit, match="^2$") as info:
        main(["tables", "build", "3x3"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1 and "--dir" in err
    assert err.endswith("(see ataxx-solve tables build --help)\n")


def test_the_quick_suite_leaves_out_the_slow_tests_and_ci_runs_them_all(request):
    """Issue 18 item 12: a registered slow marker on the tests of seconds or more, the quick command
    in the README beside the full one, and CI on the full suite."""
    import ast

    assert any(m.startswith("slow:") for m in request.config.getini("markers"))
    slow = 0
    for path in (ROOT / "tests").glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            marks = [ast.unparse(d) for d in getattr(node, "decorator_list", [])]
            slow += isinstance(node, ast.FunctionDef) and "pytest.mark.slow" in marks
    assert slow >= 50
    readme = (ROOT / "README.md").read_text()
    assert readme.splitlines()[3] == "    python3 -m pip install '.[test]' && python3 -m pytest"  # the full suite
    assert '`python3 -m pytest -m "not slow"`' in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.rstrip().endswith("python3 -m pytest") and "not slow" not in ci


def _imports(path: Path, package: str) -> list[tuple[str, bool]]:
    """(solver module imported, whether the import is inside a function) for one module."""
    import ast

    tree = ast.parse(path.read_text())
    inside = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
              for n in ast.walk(f)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[:len(package.split(".")) - node.level + 1] + (node.module or "").split(".")
            names = [".".join(filter(None, base + [a.name])) for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out += [(name, id(node) in inside) for name in names]
    return out


def test_the_layout_the_readme_gives_holds():
    """README's Layout: every folder of the package is named there; no import cycle among the
    package's modules, none deferred into a function; numba only in solver/engine/ (issue 18)."""
    import re

    layout = (ROOT / "README.md").read_text().split("## Layout")[1]
    paths = sorted((ROOT / "solver").rglob("*.py"))
    modules = {}
    for path in paths:
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
        if len(parts) > 2:
            assert f"`{parts[1]}/`" in layout, f"{parts[1]}/ is not in the README's layout"
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for target, deferred in _imports(path, package):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                assert not deferred, f"{name} imports {target} inside a function"
                graph[name].add(target)
        text = path.read_text()
        if re.search(r"^\s*(import numba|from numba)", text, re.M):
            assert name.startswith("solver.engine."), f"{name} imports numba"

    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:  # depth first: a module met again on the path is a cycle
        state[m] = 1
        for t in graph[m]:
            assert state.get(t) != 1, f"import cycle: {' -> '.join(path + [m, t])}"
            if t not in state:
                visit(t, path + [m])
        state[m] = 2

    for m in modules:
        if m not in state:
            visit(m, [])


def test_cached_kernels_are_dropped_when_any_kernel_source_changed(tmp_path):
    from solver import engine
    for name in ("search.search_test-40.py311.nbi", "search.search_test-40.py311.1.nbc", "other.txt"):
        (tmp_path / name).write_text("x")
    (tmp_path / "kernels.fingerprint").write_text("an older version\n")
    assert engine.drop_stale_kernels(tmp_path) is True
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kernels.fingerprint", "other.txt"]
    (tmp_path / "search.search_test-40.py311.nbi").write_text("x")  # written by this version: kept
    assert engine.drop_stale_kernels(tmp_path) is False
    assert (tmp_path / "search.search_test-40.py311.nbi").exists()
