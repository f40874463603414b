"""ataxx-solve verify: recorded moves, game records, UAI engines that misbehave, built-in players, HTML."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ctrl_c_after
from solver.app.bench import ENDGAME_FILE
from solver.app.cli import main

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FAKE = f"{sys.executable} {HERE / 'fake_uai.py'}"

# Three positions with X to move: 3 x 3 (best +9), 2 x 4 with blocks (best +1), 1 x 5 (best -3).
SUITE = """\
name: three by three
to-move: x
x..
...
..o

name: blocks
to-move: x
x.#o
.##.

name: one row
to-move: x
x...o
"""


def _checks(out):
    recs = [json.loads(line) for line in out.splitlines() if line.strip()]
    return [r for r in recs if "summary" not in r], next(r for r in recs if "summary" in r)


@pytest.fixture
def suite(tmp_path):
    f = tmp_path / "suite.txt"
    f.write_text(SUITE)
    return f


def test_recorded_moves_and_game_records(tmp_path, capsys):
    f = tmp_path / "moves.txt"
    f.write_text("player: alice\nmove: a2\nto-move: x\nx..\n...\n..o\n\n"
                 "player: alice\nmove: b2\nto-move: x\nx..\n...\n..o\n\n"
                 "name: a short game\nmoves: b1 e1c1 0000 d1\nx3o x\n")
    assert main(["verify", str(f), "--json"]) == 0
    checks, summary = _checks(capsys.readouterr().out)
    assert [(c["player"], c["move"], c["verdict"], c["loss"]) for c in checks] == [
        ("alice", "a2", "blunder", 18), ("alice", "b2", "optimal", 0),
        ("X in games", "b1", "optimal", 0), ("O in games", "e1c1", "optimal", 0),
        ("X in games", "0000", "optimal", 0), ("O in games", "d1", "optimal", 0)]
    alice = next(s for s in summary["summary"] if s["player"] == "alice")
    assert (alice["checked"], alice["percent_optimal"], alice["mean_loss"], alice["blunders"]) == (2, 50.0, 9.0, 1)
    assert checks[0]["best_move"] == "b2" and checks[0]["best"] == 9 and checks[0]["value"] == -9


def test_inaccuracy_keeps_the_outcome(tmp_path, capsys):
    f = tmp_path / "m.txt"
    # Under uai, X to move: the jump a1c1 wins by 3, the clone b1 only by 2.
    f.write_text("rules: uai\nmove: b1\nto-move: x\nx..#o\n")
    assert main(["verify", str(f), "--json"]) == 0
    (check,), _ = _checks(capsys.readouterr().out)
    assert (check["verdict"], check["loss"], check["value"], check["best"], check["best_move"]) == \
        ("inaccuracy", 1, 2, 3, "a1c1")


def test_illegal_game_record_is_an_input_error(tmp_path, capsys):
    f = tmp_path / "g.txt"
    f.write_text("moves: b1 b1\nx3o x\n")
    assert main(["verify", str(f)]) == 2
    out, err = capsys.readouterr()
    assert "game record, move 2: b1 is not legal for O here" in err
    assert err.count("not legal") == 1
    # a record after its position: the error is at the record's line
    f.write_text("name: g\nx3o x\nmoves: b1 zz\n")
    assert main(["verify", str(f)]) == 2
    assert f"{f}:3: game record, move 2: 'zz' is not a move" in capsys.readouterr().err


def test_a_pgn_game_with_an_illegal_move_is_judged_up_to_it(tmp_path, capsys):
    """A recorded game stopping at an illegal move: its moves before that one are judged (they were
    left out, and the table showed its players with nothing against them: a user's trial), the
    error says where, the table says that it does not cover it, and the exit status is 2."""
    f = tmp_path / "g.pgn"
    f.write_text('[Black "carol"]\n[White "dave"]\n[FEN "x1o/3/3 x 0 1"]\n\n1. a2 c2 2. a2 *\n')
    assert main(["verify", str(f), "--solver", "reference"]) == 2
    out, err = capsys.readouterr()
    assert err == f"{f}:5: game 1 (carol vs dave), move 2. a2: a2 is not legal for X here\n"
    assert [line.split(": ", 2)[2] for line in out.splitlines()[:2]] == [
        "carol: 1. a2 is a blunder (-9; best b2 +9, loses 18)", "dave: 1... c2 is a blunder (+9; best b2 -9, loses 18)"]
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines() if line.startswith(("carol ", "dave "))}
    assert rows == {"carol": "1", "dave": "1"}
    assert "1 input error (above) not in the table; a game is judged up to its bad move" in out.splitlines()
    assert main(["verify", str(f), "--solver", "reference", "--json"]) == 2
    checks, _ = _checks(capsys.readouterr().out)
    assert [c["move"] for c in checks] == ["a2", "c2"]
    # solve still refuses the game: its final position is not known
    assert main([str(f), "--solver", "reference"]) == 2
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("mode,verdicts,problem", [
    ("good", ["optimal", "optimal", "optimal"], None),
    ("bad", ["blunder", "blunder", "inaccuracy"], None),
    ("illegal", [None, None, None], "illegal or unparsable move"),
    ("garbage", [None, None, None], "unparsable answer"),
    ("crash", [None, None, None], "crashed"),
])
@pytest.mark.slow
def test_fake_uai_engine(suite, capsys, mode, verdicts, problem):
    status = main(["verify", str(suite), "--engine", f"{FAKE} {mode}", "--json", "--move-timeout", "20"])
    assert status == (1 if problem else 0)  # a problem with a player's answer is a failure; a blunder is not
    checks, summary = _checks(capsys.readouterr().out)
    assert [c["verdict"] for c in checks] == verdicts
    if problem:
        assert all(problem in c["problem"] for c in checks)
        assert summary["summary"][0]["problems"] == 3
    else:
        assert all(c["problem"] is None for c in checks)


@pytest.mark.slow
@pytest.mark.parametrize("mode,problem", [("hang", "no answer to go within 5 s"), ("crash", "crashed")])
def test_engine_is_restarted_after_a_hang_or_crash(suite, tmp_path, capsys, mode, problem):
    once = tmp_path / "once"
    status = main(["verify", str(suite), "--engine", f"{FAKE} {mode} {once}", "--json", "--move-timeout", "5"])
    assert status == 1
    checks, _ = _checks(capsys.readouterr().out)
    assert problem in checks[0]["problem"]
    assert [c["verdict"] for c in checks[1:]] == ["optimal", "optimal"]


def test_missing_engine_is_reported(suite, capsys):
    assert main(["verify", str(suite), "--engine", "/nonexistent/engine", "--json"]) == 1
    checks, _ = _checks(capsys.readouterr().out)
    assert all("cannot start" in c["problem"] for c in checks)


@pytest.mark.slow
def test_builtin_players_on_the_smallest_endgames(tmp_path, capsys):
    from solver.io.formats import read_file, write_fen

    entries = [e for e in read_file(str(ENDGAME_FILE))
               if e.position.empty.bit_count() == 4][:1]
    f = tmp_path / "small.txt"
    f.write_text("\n".join(f"name: {e.name}\n{write_fen(e.position)}\n" for e in entries))
    players = ["builtin:random", "builtin:greedy", "builtin:buchheit", "builtin:gataxx", "builtin:alphabeta:1"]
    argv = ["verify", str(f), "--timeout", "5"]
    for pl in players:
        argv += ["--engine", pl]
    status = main(argv)
    out = capsys.readouterr().out
    table = out[out.index("player "):]
    rows = {line.split()[0]: line.split() for line in table.splitlines()[2:] if line.startswith("builtin:")}
    assert set(rows) == set(players)
    # Answers the search cannot settle in 5 s are counted as unsettled (with their intervals), not settled.
    # columns: player, moves, settled, optimal, mean loss, inaccuracies, blunders, unsettled, problems
    unsettled = sum(int(r[7]) for r in rows.values())
    assert sum(int(r[2]) for r in rows.values()) + unsettled == len(players)
    assert status == (1 if unsettled else 0)  # a move left unsettled is a failure
    # no answer was a problem: each player's one move looked at was settled or left unsettled
    assert all(int(r[1]) == 1 and int(r[2]) + int(r[7]) == 1 and int(r[8]) == 0 for r in rows.values())


def test_html_report(suite, tmp_path, capsys):
    html = tmp_path / "report.html"
    assert main(["verify", str(suite), "--engine", "builtin:random", "--engine", "builtin:greedy",
                 "--html", str(html)]) == 0
    text = html.read_text()
    assert text.count('<tr class="player">') == 2 and "<svg" in text
    assert "<p>Every judged move was settled.</p>" in text and "could not be settled" not in text


def test_html_report_says_before_a_long_drawing_and_shows_its_progress(suite, tmp_path, capsys, monkeypatch):
    """Tinting the page's boards solves their moves after the summary: a page whose boards may take
    over a minute says so first (how many, the time each, Ctrl-C); on a terminal each board shows."""
    html = tmp_path / "report.html"
    argv = ["verify", str(suite), "--engine", "builtin:random", "--html", str(html)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    boards = html.read_text().count('<section class="mistake')
    assert boards >= 1 and "drawing" not in err  # a few boards at 10 s at most: nothing said
    monkeypatch.setattr("solver.app.commands.verify.TINT_SECONDS", 3600.0)  # as if each board took an hour
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    html.unlink()
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert (f"ataxx-solve verify: drawing {boards} boards into {html}, each tinted within 3600 s: "
            f"up to {boards * 60} min (Ctrl-C draws the rest untinted)\n") in err
    assert f"\rdrawing {html}: board 1 of {boards}" in err


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed (apt-get install chromium)")
def test_html_report_loads_in_headless_chromium(suite, tmp_path, capsys):
    html = tmp_path / "report.html"
    assert main(["verify", str(suite), "--engine", "builtin:random", "--engine", f"{FAKE} bad",
                 "--html", str(html)]) == 0
    r = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", html.as_uri()],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-500:]
    dom = r.stdout
    assert '<table id="summary">' in dom
    body = dom[dom.index("<tbody>"):dom.index("</tbody>")]
    assert body.count("<tr") == 2
    assert dom.count("<svg") >= 1
    # each board as the browser built it: the move played drawn, the legend, the verdict in words
    assert dom.count('class="arrow played') == dom.count("<svg") == dom.count('<g class="legend">')
    assert "How to read the boards" in dom and dom.count('<p class="verdict">') == dom.count("<svg")


def test_verdicts_from_intervals():
    """A verdict is given only when it is proved (X to move here: higher is better for the mover)."""
    from solver.solve.analysis import Interval
    from solver.io.formats import parse_position
    from solver.play.verify import verdict

    p = parse_position("to-move: x\nx...o").position
    q = p.replace(turn="o")

    def iv(lo, hi):
        return Interval(lo, hi, 5)

    assert verdict(p, iv(3, 3), iv(3, 5)) == "optimal"        # the move is at least what the position is worth
    assert verdict(p, iv(2, 4), iv(-5, 0)) == "blunder"       # a win (>= 2) thrown to a draw or a loss
    assert verdict(p, iv(0, 4), iv(-5, -1)) == "blunder"      # at least a draw, thrown to a loss
    assert verdict(p, iv(3, 5), iv(1, 2)) == "inaccuracy"     # still a win, by less
    assert verdict(p, iv(1, 5), iv(-2, 3)) == "unsettled"     # could be optimal or a blunder
    assert verdict(p, iv(3, 5), iv(1, 4)) == "unsettled"      # may lose nothing
    assert verdict(q, iv(-3, -3), iv(-5, -3)) == "optimal"    # O to move: lower is better for the mover
    assert verdict(q, iv(-4, -2), iv(0, 5)) == "blunder"
    assert verdict(q, iv(-5, -3), iv(-2, -1)) == "inaccuracy"


class _ExactOracle:
    proves_bounds = False


class _StubAnalyzer:
    oracle = _ExactOracle()


_EXACT = _StubAnalyzer()  # (for tests that stub verify._interval: an analyzer that is never asked)


def test_the_position_is_worth_at_least_the_move_played(monkeypatch):
    """When the move's own search proved more than the position's (a user's trial: the position
    -49..+49, the move played -11..-7), the position's interval is narrowed by it: the mover can
    always play that move. Both sides to move."""
    from solver.io.formats import parse_position
    from solver.play import verify
    from solver.solve.analysis import Interval

    p = parse_position("to-move: x\nx...o").position
    for turn, move, child, position in (("x", "b1", Interval(-3, -1, 5), Interval(-3, 5, 5)),
                                        ("o", "d1", Interval(1, 3, 5), Interval(-5, 3, 5))):
        q = p.replace(turn=turn)
        after = q.push(q.parse_move(move))
        intervals = {after: child, q: Interval(-5, 5, 5)}
        monkeypatch.setattr(verify, "_interval", lambda analyzer, r: (intervals[r], None))
        check = verify.judge(_EXACT, q, move, verify.Check("p", "<t>", 1, None, q, move))
        assert (check.value_interval, check.best_interval, check.verdict) == (child, position, "unsettled")
    # a wider move proves nothing more
    intervals = {p.push(p.parse_move("b1")): Interval(-5, 5, 5), p: Interval(-3, 1, 5)}
    check = verify.judge(_EXACT, p, "b1", verify.Check("p", "<t>", 1, None, p, "b1"))
    assert check.best_interval == Interval(-3, 1, 5) and check.verdict == "unsettled"


@pytest.mark.slow
def test_unsettled_moves_keep_their_intervals_and_ctrl_c_keeps_the_summary(tmp_path):
    """A hard 7 x 7 endgame with a short budget: the move is unsettled, both intervals are shown;
    Ctrl-C in the middle of a run still prints the summary and writes the HTML report."""
    import signal

    hard = "ooxxxx1/ooooooo/oxoxxxo/oxoooo1/oooooo1/oxxooo1/1xxxo1x x 0 39"  # 6 empty squares
    f = tmp_path / "hard.txt"
    f.write_text(f"name: first\nmove: g4\n{hard}\n\nname: second\nmove: g4\n{hard}\n")
    r = subprocess.run([sys.executable, "-m", "solver", "verify", str(f), "--max-states", "20000", "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    checks, summary = _checks(r.stdout)
    assert r.returncode == 1 and checks[0]["verdict"] == "unsettled"
    c = checks[0]
    assert c["best_lower"] <= c["best_upper"] and c["value_lower"] <= c["value_upper"] and c["loss"] is None
    assert summary["summary"][0]["unsettled"] == 2
    html = tmp_path / "r.html"
    start = tmp_path / "start.txt"  # the 7 x 7 start: nothing is settled in 6 s (the endgame above now is)
    start.write_text("name: first\nmove: b6\nx5o/7/7/7/7/7/o5x x 0 1\n\nname: second\nmove: b6\nx5o/7/7/7/7/7/o5x x 0 1\n")
    proc = subprocess.Popen([sys.executable, "-m", "solver", "verify", str(start), "--html", str(html), "--no-limit"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    ctrl_c_after(proc, 6)
    out, err = proc.stdout.read(), proc.stderr.read()
    assert proc.returncode == 130
    assert "player" in out and "interrupted after" in err and html.exists()


@pytest.mark.parametrize("mode,error,message", [
    ("crash", "EngineTerminatedError", r"^the engine crashed during go \(exit status 3; restarted\)$"),
    ("hang", "EngineTimeoutError", r"^no answer to go within 1 s \(hung; restarted\)$"),
    ("garbage", "EngineProtocolError", r"^unparsable answer 'bestmove'$"),
    ("huge", "EngineProtocolError", r"^a line of more than 64 KiB in answer to go"),
])
def test_engine_failures_are_told_apart_by_type(mode, error, message):
    from solver.play import uai_client as uai

    engine = uai.UAIClient(f"{FAKE} {mode}", timeout=1 if mode == "hang" else 60)  # a loaded machine is no hang
    try:
        with pytest.raises(getattr(uai, error), match=message) as info:
            engine.bestmove("x1o x 0 1")
    finally:
        engine.close()
    assert isinstance(info.value, uai.EngineError) and isinstance(info.value, RuntimeError)
    kinds = [uai.EngineTerminatedError, uai.EngineTimeoutError, uai.EngineProtocolError]
    assert [isinstance(info.value, k) for k in kinds].count(True) == 1
    if mode == "crash":
        assert info.value.returncode == 3
    with pytest.raises(uai.EngineError, match="^cannot start '/nonexistent/engine': No such file") as missing:
        uai.UAIClient("/nonexistent/engine").bestmove("x1o x 0 1")
    assert type(missing.value) is uai.EngineError


def test_unexpected_engine_output_is_logged_not_fatal(caplog):
    from solver.play import uai_client as uai

    engine = uai.UAIClient(f"{FAKE} noisy")
    try:
        with caplog.at_level("WARNING", logger="solver.play.uai_client"):
            assert engine.bestmove("x1o x 0 1") == "b1"
    finally:
        engine.close()
    assert caplog.messages == ["fake-noisy: unexpected engine output in answer to go: 'hello from the engine'"]


def test_a_forced_move_is_optimal_without_a_search(tmp_path, capsys):
    # O must pass (from cuteataxx's games): the pass is the only move, so it keeps the value,
    # whatever the budget proves of that value (1,000 nodes prove little on this 7 x 7 board)
    f = tmp_path / "pass.txt"
    f.write_text("rules: uai\nplayer: mostcaptures\nmove: 0000\n"
                 "2xxxxo/xxxxxxo/xx-x-oo/xxxxxoo/xx-o-oo/oxxxooo/oxxxooo o 0 74\n")
    assert main(["verify", str(f), "--json", "--nodes", "1000"]) == 0
    (check,), summary = _checks(capsys.readouterr().out)
    assert (check["verdict"], check["move"], check["best_move"]) == ("optimal", "0000", "0000")
    assert summary["unsettled"] == 0


def test_a_crash_says_the_programs_last_words_on_standard_error(suite, tmp_path, capsys):
    engine = tmp_path / "engine.py"
    engine.write_text("import sys\nsys.stderr.write('loading weights\\n\\nno such file: net.bin\\n')\nsys.exit(3)\n")
    assert main(["verify", str(suite), "--engine", f"{sys.executable} {engine}", "--json"]) == 1
    checks, _ = _checks(capsys.readouterr().out)
    assert checks[0]["problem"] == ("the engine crashed during uai (exit status 3; restarted; it said: "
                                    "'no such file: net.bin')")


def test_the_summary_says_how_many_moves_were_looked_at_and_how_many_settled():
    """'checked 4' beside 'unsettled 8' read as 4 moves looked at: the columns are now the moves
    looked at and, of them, the settled ones (issue 30 item 9)."""
    from solver.game.rules import Position, UAI
    from solver.play.verify import Check, summarise, summary_table
    from solver.solve.analysis import Interval

    p = Position.from_fen("x5o/7/7/7/7/7/o5x x 0 1", UAI)
    exact, wide = Interval(2, 2, 45), Interval(-45, 45, 45)

    def check(verdict, problem=None):
        return Check("alice", "g.pgn", 1, None, p, "b6", verdict=verdict, problem=problem, loss=0 if verdict ==
                     "optimal" else None, value_interval=wide if verdict == "unsettled" else exact,
                     best_interval=wide if verdict == "unsettled" else exact)

    checks = [check("optimal")] * 4 + [check("unsettled")] * 8 + [check(None, "illegal")]
    (s,) = summarise(checks)
    assert (s.moves, s.settled, s.unsettled, s.problems) == (13, 4, 8, 1)
    head, rule, row = summary_table([s]).splitlines()[:3]
    assert head.split() == ["player", "moves", "settled", "optimal", "mean", "loss", "inaccuracies", "blunders",
                            "unsettled", "problems"]
    assert row.split() == ["alice", "13", "4", "100.0%", "0.00", "0", "0", "8", "1"]
    assert {"moves": 13, "settled": 4, "checked": 4}.items() <= s.to_json().items()


# -- no silent hours (issue 27 item 5) -------------------------------------------------------------------

SIX_EMPTY = "ooxxxx1/ooooooo/oxoxxxo/oxoooo1/oooooo1/oxxooo1/1xxxo1x x 0 39"  # 7 x 7: estimate about 10^8 nodes


class _Spy:
    """A Verifier that records the limits it was given, then stops the run as Ctrl-C would."""

    limits: list = []

    def __init__(self, solver):
        _Spy.limits.append(solver.limits)
        from solver.play.verify import Verifier
        self.real = Verifier(solver)
        self.unsettled = 0
        self.analyzers = {}

    def check(self, *a, **k):
        raise KeyboardInterrupt


def test_verify_without_a_limit_gives_each_judged_move_a_default_budget(tmp_path, capsys, monkeypatch):
    """A newcomer's 'verify games.pgn --empty 2-6' ran 21 min 46 s in silence: where a judged move may
    take long and no limit is given, each gets budget.DEFAULT_MOVE_NODES nodes (about 5 s at 4 M
    nodes a second, so the first verdict comes within a minute), said at once; --no-limit or a limit
    given leaves the limits as they are; small boards (the exact engines) get nothing."""
    from solver.app.commands import verify as command
    from solver.solve import budget
    f = tmp_path / "g.txt"
    f.write_text(f"move: g7\n{SIX_EMPTY}\n")
    monkeypatch.setattr(command, "Verifier", _Spy)
    for extra, nodes, timeout, said in (([], budget.DEFAULT_MOVE_NODES, None, True), (["--no-limit"], None, None, False),
                                        (["--nodes", "5000"], 5000, None, False),
                                        (["--threads", "2"], None, budget.DEFAULT_MOVE_SECONDS, True)):
        _Spy.limits.clear()
        main(["verify", str(f), *extra])
        err = capsys.readouterr().err
        (limits,) = _Spy.limits
        assert (limits.nodes, limits.timeout) == (nodes, timeout), extra
        assert ("no limit given and judging may be long" in err) == said, err
        if said:
            assert f"{f}:2: estimate about 10^8 nodes" in err
    _Spy.limits.clear()
    small = tmp_path / "s.txt"
    small.write_text("move: a2\nto-move: x\nx..\n...\n..o\n")
    main(["verify", str(small)])
    assert _Spy.limits[0].nodes is None and "no limit given" not in capsys.readouterr().err


def test_the_default_budget_bounds_every_judged_move_by_nodes(tmp_path, capsys, monkeypatch):
    """The budget is nodes, so it is tested by nodes, not time: with the default lowered to 3,000
    nodes, three hard 7 x 7 moves are judged (unsettled) and the run ends."""
    from solver.solve import budget
    monkeypatch.setattr(budget, "DEFAULT_MOVE_NODES", 3000)
    f = tmp_path / "g.txt"
    f.write_text("".join(f"move: {m}\n{SIX_EMPTY}\n\n" for m in ("g7", "g4", "a1")))
    assert main(["verify", str(f), "--json"]) == 1
    out, err = capsys.readouterr()
    checks, summary = _checks(out)
    assert [c["verdict"] for c in checks] == ["unsettled"] * 3 and "3,000 nodes of the search" in err


class _Bounded:
    """An oracle that proves bounds, answering from a table of positions (the mover's side)."""
    proves_bounds = True
    deadline = None

    def __init__(self, answers):
        self.answers = answers

    def bounds(self, p):
        return self.answers[p]


@pytest.mark.parametrize("turn", ["x", "o"])
def test_a_blunder_whose_best_value_is_open_names_the_move_that_proved_its_bound(turn):
    """The position's value only bounded ('best +5..+49'): the move the search proved to keep that
    bound is named, in the line and the JSON (it was not: a user's trial had to find it alone)."""
    from solver.io.formats import parse_fen
    from solver.oracles.oracle import Bounds
    from solver.play.verify import Check, judge
    from solver.solve.analysis import Analyzer
    fen = "xxxooox/xxxooox/ooooo1x/oooxxxx/ooooxox/1ooxxxx/xooxxx1 x 0 87"
    if turn == "o":  # the same position with the colours swapped (the side to move too): O to move
        fen = fen.translate(str.maketrans("xo", "ox"))
    p = parse_fen(fen)
    blunder, best = p.parse_move("e3f5"), p.parse_move("g7f5")
    oracle = _Bounded({p: Bounds(5, 49, best, 5), p.push(blunder): Bounds(3, 3, None, 3)})
    c = judge(Analyzer(oracle), p, "e3f5", Check("alice", "g.txt", 1, None, p, "e3f5"))
    if turn == "x":
        want = "(-3; best +5..+49, g7f5 at least +5, loses at least 8)"
    else:
        want = "(+3; best -49..-5, g7f5 at most -5, loses at least 8)"
    assert c.text() == f"g.txt:1: alice: e3f5 is a blunder {want}"
    assert (c.best_move, c.found_move, c.to_json()["best_move_found"]) == (None, "g7f5", "g7f5")
    from solver.app.pictures import verdict_words  # the audit page's words name it too
    assert "; best found g7f5 wins by at least 5 (at least 8 points given away;" in verdict_words(c)
    # proved to keep less than the position's bound: not named
    oracle.answers[p] = Bounds(5, 49, best, 2)
    c = judge(Analyzer(oracle), p, "e3f5", Check("alice", "g.txt", 1, None, p, "e3f5"))
    assert c.found_move is None and "g7f5" not in c.text()


def test_a_hard_move_played_leaves_half_the_budget_to_the_position(tmp_path, capsys):
    """The move played was searched first, with the whole budget: a hard one left the position
    nothing ('position -21..+21', where the position alone is +21 in a moment; another player's
    check of the same position said +21: a user's trial). The position now has half."""
    f = tmp_path / "five.txt"
    f.write_text("x1o2/1-1-1/5/1-1-1/o2x1 x 0 1\n")
    assert main(["verify", str(f), "--engine", "builtin:greedy", "--nodes", "4000000"]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        f"{f}:1: builtin:greedy: b5 is unsettled (value after it -21..+21, position +21)")


def test_a_player_with_nothing_settled_has_null_rates_in_json(tmp_path, capsys):
    """--json gave 'percent_optimal': 0.0 and 'mean_loss': 0.0 for a player with no settled move,
    where the table shows '-' (a user's trial)."""
    f = tmp_path / "five.txt"
    f.write_text("x1o2/1-1-1/5/1-1-1/o2x1 x 0 1\n")
    assert main(["verify", str(f), "--engine", "builtin:greedy", "--nodes", "1000", "--json"]) == 1
    _, summary = _checks(capsys.readouterr().out)
    (row,) = summary["summary"]
    assert (row["settled"], row["unsettled"], row["percent_optimal"], row["mean_loss"]) == (0, 1, None, None)
