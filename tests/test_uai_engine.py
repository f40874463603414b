"""`ataxx-solve uai`: the solver as a UAI engine, driven as a subprocess, in-process, by the project's
own UAI client (verify --engine) and by python-ataxx's engine client."""

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from solver import Solver
from solver.app.cli import main
from solver.play.players import GreedyPlayer
from solver.game.rules import UAI, X, Position
from solver.play.uai_server import GoLimits, UAIServer, parse_go, time_budget

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "solver", "uai"]
WON = "xx.o/o.../...x x 0 1"  # X wins by 5 under uai; d1b2 is the one optimal move of 17
# A known answer, not the solver under test's: the reference solver (solver.oracles.reference)
# finds d1b2 the one optimal move of WON under classic rules too (X wins by 12, 206,505 positions:
# minutes, too long for the suite; under uai's counter, longer still), and the retro and search
# engines, each tested against the reference, agree under uai (+5).
WON_OPTIMAL = "d1b2"
# How long a test waits for an answer before it calls the engine hung: a guard against a hang,
# never a measure of speed (a first run compiles the kernels; the machine may be loaded).
HANG_GUARD = 300.0
START = "x5o/7/7/7/7/7/o5x x 0 1"


class Lines:
    """A text stream for the engine's output, read line by line with a timeout."""

    def __init__(self):
        self.q: queue.Queue = queue.Queue()
        self.buf = ""

    def write(self, text):
        self.buf += text
        while "\n" in self.buf:
            line, self.buf = self.buf.split("\n", 1)
            self.q.put(line)

    def flush(self):
        pass

    def until(self, prefix, timeout=10.0):
        """The lines up to the first that starts with ``prefix`` (its last one); AssertionError on timeout."""
        got = []
        timeout = max(timeout, HANG_GUARD)  # the callers' figures were speeds: only a hang fails
        end = time.monotonic() + timeout
        while True:
            try:
                line = self.q.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {prefix!r} within {timeout} s; got {got}") from None
            got.append(line)
            if line.startswith(prefix):
                return got


class Process:
    """The engine as a subprocess: send lines, read its output with timeouts."""

    def __init__(self):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.p = subprocess.Popen(COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, cwd=ROOT, env=env, bufsize=1)
        self.lines = Lines()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.write(line)

    def send(self, *lines):
        for line in lines:
            self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def quit(self):
        self.send("quit")
        status = self.p.wait(timeout=HANG_GUARD)
        return status, self.p.stderr.read()


@pytest.fixture
def proc():
    p = Process()
    yield p
    if p.p.poll() is None:
        p.p.kill()
        p.p.wait()


def test_handshake_isready_and_quit(proc):
    proc.send("uai")
    lines = proc.lines.until("uaiok")
    assert lines[0].startswith("id name ataxx-solve")
    assert any(line.startswith("id author ") for line in lines)
    options = {line.split()[2] for line in lines if line.startswith("option name ")}
    assert options == {"Hash", "Threads", "Rules", "Tables"}
    assert "option name Rules type combo default uai var classic var uai var cs61b var jump3" in lines
    proc.send("isready")
    assert proc.lines.until("readyok", 5) == ["readyok"]
    status, err = proc.quit()
    assert status == 0
    assert "Traceback" not in err


def test_isready_answered_during_go_infinite_then_stop(proc):
    proc.send("uai", "position startpos", "go infinite")
    proc.lines.until("uaiok")
    time.sleep(0.5)
    proc.send("isready")
    lines = proc.lines.until("readyok")
    assert not any(line.startswith("bestmove") for line in lines)  # answered while the search goes on
    time.sleep(0.5)
    assert proc.lines.q.empty() or not any(line.startswith("bestmove") for line in list(proc.lines.q.queue))
    proc.send("stop")
    lines = proc.lines.until("bestmove")
    move = lines[-1].split()[1]
    p = Position.start(7, 7, UAI)
    assert p.is_legal(p.parse_move(move))
    assert any(line.startswith("info string ") for line in lines)
    status, err = proc.quit()
    assert status == 0 and "Traceback" not in err


def test_go_movetime_answers_a_legal_move_with_its_info(proc):
    """movetime: a bestmove, by itself (no stop), with the search's info; when it comes is the
    watchdog's budget (time_budget, below), not something this test times."""
    proc.send("uai", "isready")
    proc.lines.until("readyok")
    proc.send(f"position fen {START}")
    proc.send("go movetime 700")
    lines = proc.lines.until("bestmove")
    p = Position.from_fen(START, UAI)
    assert p.is_legal(p.parse_move(lines[-1].split()[1]))
    info = [line for line in lines if line.startswith("info nodes")][-1]
    assert " nps " in info and " time " in info
    status, err = proc.quit()
    assert status == 0 and "Traceback" not in err


def test_info_lines_count_time_from_go_and_nps_from_it(proc):
    """Progress lines, then the last: times (ms since go) never go back, and nps is nodes per that time."""
    proc.send("uai", "isready")
    proc.lines.until("readyok")
    proc.send(f"position fen {START}", "go movetime 3500")
    lines = proc.lines.until("bestmove")
    infos = [dict(zip(line.split()[1::2], line.split()[2::2])) for line in lines if line.startswith("info nodes")]
    assert len(infos) >= 2  # a progress line every second, then the last
    times = [int(i["time"]) for i in infos]
    assert times == sorted(times)
    for i in infos:
        assert int(i["nps"]) == int(i["nodes"]) * 1000 // max(1, int(i["time"]))
    proc.quit()


def test_illegal_position_input_is_one_line_each_and_no_traceback(proc):
    proc.send("uai", "position fen zzz", "position startpos moves a1a1", "position",
              f"position fen {START} moves a6 a6", "flip", "flip", "go movetime 200")
    lines = proc.lines.until("bestmove", 30)
    start = Position.start(7, 7, UAI)  # the last valid position: the start (was: bestmove 0000)
    move = lines[-1].split()[1]
    assert move != "0000" and start.is_legal(start.parse_move(move)), lines
    errors = [line for line in lines if line.startswith("info string error: position: ")]
    assert len(errors) == 4
    assert "move 2 ('a6')" in errors[3]
    assert all(f"the position stays the last valid one: {START}" in line for line in errors), errors
    proc.send("position startpos moves g2", "isready")
    proc.lines.until("readyok")
    status, err = proc.quit()
    assert status == 0
    assert "Traceback" not in err
    err_lines = err.strip().splitlines()
    assert sum("position:" in line for line in err_lines) == 4
    assert sum("unknown command 'flip'" in line for line in err_lines) == 1  # logged once


def _engine():
    out, err = Lines(), Lines()
    return UAIServer(out=out, err=err), out, err


def test_position_fen_and_moves_in_process():
    e, out, _ = _engine()
    e.handle(f"position fen {START} moves a6 g6 a7c5")
    p = Position.from_fen(START, UAI)
    for m in ("a6", "g6", "a7c5"):
        p = p.play(p.parse_move(m))
    assert e.position == p
    e.handle("position startpos moves g2")
    assert e.position is not None and e.position.turn != X
    e.handle("setoption name Rules value classic")
    assert e.position is not None and e.position.rules.name == "classic"  # the same position, new rules
    e.handle("setoption name Hash value lots")
    assert "Hash must be a whole number" in out.until("info string error: setoption")[-1]
    e.handle("setoption name Threads value 9999")  # beyond the advertised maximum (the processors)
    assert "Threads must be a whole number from 1 to " in out.until("info string error: setoption")[-1]
    held = e.position
    e.handle("position fen x5o/7/7/7/7/7/o5z x 0 1")
    assert out.until("info string error: position")[-1] == (
        "info string error: position: fen: FEN board has an unknown character 'z' (the position stays the last "
        f"valid one: {held.fen()})")
    assert e.position is held


def test_a_won_small_endgame_gets_a_proved_optimal_move():
    p = Position.from_fen(WON, UAI)
    e, out, _ = _engine()
    e.handle(f"position fen {WON}")
    e.handle("go movetime 20000")
    lines = out.until("bestmove", 30)
    assert lines[-1] == f"bestmove {WON_OPTIMAL}"  # the known answer
    info = [line for line in lines if line.startswith("info nodes")][-1]
    assert " score cp 500 " in info + " " and "lowerbound" not in info and " pv d1b2" in info
    assert lines[-2].startswith("info string proved: value +5")
    assert GreedyPlayer(seed=0).choose(p) != p.parse_move("d1b2")  # so the greedy fallback would not pass


def test_go_words_and_the_time_it_takes():
    g = parse_go("wtime 10000 btime 4000 winc 0 binc 200 nodes 5 simulations 5".split())
    assert (g.wtime, g.btime, g.binc, g.nodes) == (10000, 4000, 200, 5)
    assert time_budget(g, "x") == pytest.approx(4 / 20 + 0.15 - 0.05)  # x is Black: btime; 50 ms kept back
    assert time_budget(g, "o") == pytest.approx(0.5 - 0.05)
    assert time_budget(GoLimits(movetime=10000), "x") == pytest.approx(9.0)  # a tenth kept back
    assert time_budget(GoLimits(movetime=100), "x") == pytest.approx(0.05)
    assert time_budget(GoLimits(infinite=True), "x") is None
    assert time_budget(GoLimits(depth=3), "x") is None
    with pytest.raises(ValueError, match="movetime needs a whole number"):
        parse_go(["movetime", "soon"])


def test_verify_drives_it_as_an_engine(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    f = tmp_path / "won.txt"
    f.write_text(f"name: won\n{WON}\n\nname: small\nx.o/3/3 x 0 1\n")
    status = main(["verify", str(f), "--rules", "uai", "--engine", " ".join(COMMAND), "--json",
                   "--move-timeout", "600"])
    out = capsys.readouterr().out
    checks = [json.loads(line) for line in out.splitlines() if line.startswith("{") and '"verdict"' in line]
    assert status == 0, out
    assert [c["verdict"] for c in checks] == ["optimal", "optimal"]
    assert all(c["problem"] is None for c in checks)


@pytest.mark.filterwarnings("ignore:line buffering:RuntimeWarning")  # python-ataxx opens its pipes so
def test_python_ataxx_engine_client(monkeypatch):
    import ataxx.uai as uai  # python-ataxx, a test extra (pyproject.toml)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    e = uai.Engine(COMMAND)
    try:
        e.uai()
        assert e.name and e.name.startswith("ataxx-solve")
        e.isready(10)
        e.uainewgame()
        e.position(WON)
        move, _ = e.go(movetime=15000, maxwait=30)
        assert move == "d1b2"
        e.position("x5o/7/7/7/7/7/o5x x 0 1", "g1f2")
        move, _ = e.go(nodes=2000, maxwait=30)
        p = Position.from_fen(START, UAI)
        p = p.play(p.parse_move("g1f2"))
        assert move is not None and p.is_legal(p.parse_move(move))
    finally:
        e.quit()


def test_a_match_against_greedy_keeps_what_it_proved():
    """From a solved endgame the engine (X) plays out the game against builtin:greedy and ends
    with at least the value it proved."""
    p = Position.from_fen(WON, UAI)
    e, out, _ = _engine()
    greedy = GreedyPlayer(seed=1)
    start = p
    moves = []
    while not p.is_over():
        if p.turn == X:
            e.handle(f"position fen {start.fen()}" + (" moves " + " ".join(moves) if moves else ""))
            e.handle("go movetime 10000")
            lines = out.until("bestmove", 20)
            assert "proved" in lines[-2], lines
            move = p.parse_move(lines[-1].split()[1])
        else:
            move = greedy.choose(p)
        moves.append(p.move_name(move))
        p = p.play(move)
        assert len(moves) < 60
    assert p.result() >= 5, moves


def test_a_pass_a_finished_game_and_bad_options(tmp_path):
    e, out, err = _engine()
    e.handle("position fen xoo. x 0 1")  # x cannot move, o can: a forced pass
    e.handle("go movetime 1000")
    lines = out.until("bestmove", 5)
    assert lines[-1] == "bestmove 0000" and lines[-2] == "info string no move but a pass"
    e.handle("position fen xxoo x 0 1")
    e.handle("go depth 3")
    lines = out.until("bestmove", 5)
    assert lines[-1] == "bestmove 0000" and lines[-2] == "info string the game is over"
    e.handle(f"setoption name Tables value {tmp_path / 'none'}")
    assert "is not a directory" in out.until("info string error: setoption", 5)[-1]
    e.handle("setoption name Rules value chess")
    assert "Rules must be one of classic, uai, cs61b, jump3" in out.until("info string error: setoption", 5)[-1]
    e.handle("setoption name Colour value red")
    assert "unknown option 'colour'" in out.until("info string error: setoption", 5)[-1]
    assert e.rules is UAI and e.tables is None


def test_almost_no_time_left_still_gets_a_legal_move():
    e, out, _ = _engine()
    e.handle(f"position fen {START}")
    e.handle("go wtime 10 btime 10")
    lines = out.until("bestmove", 5)
    p = Position.from_fen(START, UAI)
    move = lines[-1].split()[1]
    assert move != "0000" and p.is_legal(p.parse_move(move))


def test_the_score_of_an_interval():
    from solver.play.uai_server import BestMove, score_words

    assert score_words(BestMove(None, "proved", 5, 5), 12) == "score cp 500"
    assert score_words(BestMove(None, "bound", 2, 12), 12) == "score cp 200 lowerbound"
    assert score_words(BestMove(None, "bound", -12, -3), 12) == "score cp -300 upperbound"
    assert score_words(BestMove(None, "greedy", -12, 12), 12) == ""  # nothing proved: no score


def test_an_interval_without_a_move_s_bound_is_not_called_nothing():
    """O to move in an 8-empty endgame of python-ataxx's alpha-beta players, stopped after 1,000,000
    nodes: the value is proved at most -1 (X wins), no move is proved to hold more than -45; the
    info line said 'nothing proved within the limits (-45..-3)'."""
    from solver.common.limits import Limits
    from solver.play.uai_server import choose
    from solver.solve.solver import Solver

    p = Position.from_fen("oooxoo1/xxxoooo/xo-x-oo/xxxxxxx/xx-x-xx/2xxx2/2oxxx1 o 0 43", UAI)
    res = Solver(UAI, limits=Limits(nodes=1_000_000)).solve(p).sides[0]
    c = choose(p, res, None, 1_000_000, 1.0)
    lo, hi = res.interval.for_mover(p.turn)
    assert hi < 45 and c.kind == "greedy"
    assert c.note.startswith(f"proved {lo:+d}..{hi:+d} for the side to move, no move proved to hold more")


def test_tables_answer_the_positions_they_cover(tmp_path, capsys):
    assert main(["tables", "build", "2x3", "--dir", str(tmp_path / "tb")]) == 0
    capsys.readouterr()
    e, out, _ = _engine()
    e.handle(f"setoption name Tables value {tmp_path / 'tb'}")
    e.handle("setoption name Rules value classic")
    e.handle("position fen x2/2o x 0 1")
    e.handle("go movetime 5000")
    lines = out.until("bestmove", 10)
    assert lines[-1] == "bestmove b1" and lines[-2].startswith("info string proved: value +6")
    assert e._cached is not None and e._cached[0][5] == "tables"  # answered from the tables
    e.handle("position fen x2o/4/4 x 0 1")  # not covered (3 x 4): solved instead
    e.handle("go movetime 5000")
    lines = out.until("bestmove", 10)
    assert lines[-2].startswith("info string proved:") and e._cached[0][5] != "tables"


def test_a_search_still_running_after_its_answer_does_not_share_its_analyzer_with_the_next(monkeypatch):
    # Under cuteataxx on a loaded machine: the watchdog answered 'go', the search thread ran on,
    # and the next 'go' (the same board shape, so the cached analyzer) searched the same oracle
    # at once: 'search failed: AttributeError: 'NoneType' object has no attribute 'lower''.
    release = threading.Event()
    analyzers = []
    real = Solver.solve

    def solve(self, p, **kw):
        analyzers.append(kw["analyzer"])
        if len(analyzers) == 1:
            release.wait(10)  # the first search overruns its time
        return real(self, p, **kw)

    monkeypatch.setattr(Solver, "solve", solve)
    e, out, err = _engine()
    e.handle("isready")
    e.handle(f"position fen {START}")
    e.handle("go infinite")
    end = time.monotonic() + 60
    while not analyzers and time.monotonic() < end:  # the first search has its analyzer
        time.sleep(0.01)
    first = e.search
    e.handle("stop")  # answered, but the search does not stop (as a search past its time)
    assert out.until("bestmove", 10)[-1].startswith("bestmove ")
    e.handle(f"position fen {START} moves a6")
    e.handle("go movetime 300")
    assert out.until("bestmove", 10)[-1].startswith("bestmove ")
    assert first is not None and first.thread.is_alive()  # still held while the second searched
    release.set()
    first.thread.join(10)
    assert len(analyzers) == 2 and analyzers[0] is not analyzers[1]
    assert "search failed" not in err.buf


# -- issue 30 items 6-7, issue 27 item 6: every go answered by a legal bestmove ---------------------------

def test_a_rejected_position_leaves_the_last_valid_one_and_go_plays_in_it():
    e, out, _ = _engine()
    e.handle(f"position fen {WON}")
    e.handle("position fen xx.o/o.../...x x 0 1 moves d1b2 zz")  # the second move garbled
    assert "the position stays the last valid one: xx1o/o3/3x x 0 1" in out.until("info string error")[-1]
    e.handle("go movetime 20000")
    assert out.until("bestmove", 30)[-1] == "bestmove d1b2"  # WON's move, legal where the engine is
    # the first 'position' of a session rejected: the start, which the engine held from the beginning
    e, out, _ = _engine()
    e.handle("position startpos moves a1a1")
    e.handle("go depth 1")
    move = out.until("bestmove", 30)[-1].split()[1]
    start = Position.start(7, 7, UAI)
    assert move != "0000" and start.is_legal(start.parse_move(move))


def test_bestmove_is_never_illegal_in_the_position_held(monkeypatch):
    from solver.play import uai_server
    from solver.play.uai_server import BestMove

    monkeypatch.setattr(uai_server._Search, "_best_now", lambda self: BestMove(None, "greedy"))
    e, out, _ = _engine()
    e.handle(f"position fen {WON}")
    e.handle("go nodes 10")
    p = Position.from_fen(WON, UAI)
    move = out.until("bestmove", 30)[-1].split()[1]
    assert move != "0000" and p.is_legal(p.parse_move(move))  # was: bestmove 0000


def test_every_time_and_count_is_clamped():
    g = parse_go(["movetime", "1" + "0" * 30, "nodes", "9" * 5000, "depth", "-3"])
    assert (g.movetime, g.nodes, g.depth) == (2**31 - 1, 10**15, 1)
    g = parse_go("wtime -100 btime 999999999999999 winc -1 binc 000000000000000000000000000000012".split())
    assert (g.wtime, g.btime, g.winc, g.binc) == (0, 2**31 - 1, 0, 12)
    assert time_budget(GoLimits(movetime=2**31 - 1), "x") < 2**31 / 1000
    with pytest.raises(ValueError, match="movetime needs a whole number"):
        parse_go(["movetime", "1e30"])


def test_a_huge_movetime_is_a_search_stopped_by_stop_without_a_traceback():
    # was: 'OverflowError: timestamp out of range for platform time_t' from the watchdog's thread
    e, out, err = _engine()
    e.handle(f"position fen {START}")
    e.handle("go movetime 999999999999999")
    time.sleep(0.5)
    e.handle("stop")
    assert out.until("bestmove", 30)[-1].startswith("bestmove ")
    e.handle("go wtime " + "1" * 40 + " btime " + "1" * 40)
    e.handle("stop")
    assert out.until("bestmove", 30)[-1].startswith("bestmove ")
    assert err.buf == "" and err.q.empty()


def test_go_is_answered_at_the_end_of_the_input():
    # printf 'uai\nposition fen F\ngo movetime 3000\n' | ataxx-solve uai printed no bestmove
    r = subprocess.run(COMMAND, input=f"uai\nposition fen {START}\ngo movetime 1000\n", capture_output=True,
                       text=True, cwd=ROOT, timeout=HANG_GUARD, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and lines[-1].startswith("bestmove ") and lines[-1] != "bestmove 0000", r.stdout
    assert r.stderr == ""
    # an infinite search at the end of the input: stopped and answered
    r = subprocess.run(COMMAND, input=f"position fen {START}\ngo infinite\n", capture_output=True, text=True,
                       cwd=ROOT, timeout=HANG_GUARD, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0 and r.stdout.splitlines()[-1].startswith("bestmove "), r.stdout


def test_quit_or_a_new_position_during_a_search_answers_it_first(proc):
    proc.send("uai", f"position fen {START}", "go movetime 100000")
    proc.lines.until("uaiok")
    time.sleep(1)
    proc.send(f"position fen {WON}")  # answered for the search before, then set
    lines = proc.lines.until("bestmove", 30)
    start = Position.from_fen(START, UAI)
    assert start.is_legal(start.parse_move(lines[-1].split()[1]))
    proc.send("go movetime 100000")
    time.sleep(1)
    proc.send("quit")  # answered, then the engine leaves; nothing on standard error
    lines = proc.lines.until("bestmove", 30)
    won = Position.from_fen(WON, UAI)
    assert won.is_legal(won.parse_move(lines[-1].split()[1]))
    assert proc.p.wait(timeout=HANG_GUARD) == 0
    assert proc.p.stderr.read() == ""
