"""The ataxx-solve command: what it prints, its JSON, its limits and its exit statuses."""

import io
import json
import re
import subprocess
import sys

import pytest

from solver.app.cli import main


def run(argv, stdin_text=None, monkeypatch=None):
    if stdin_text is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin_text.encode())))
    return main(argv)


def test_piped_board_prints_both_sides_and_summary(monkeypatch, capsys):
    status = run(["--solver", "reference"], "x...o\n", monkeypatch)
    out = capsys.readouterr().out
    assert status == 0
    assert "X to move: O wins by 3 (value -3), depth 6" in out
    assert "O to move: X wins by 3 (value +3), depth 6" in out
    assert "best move: b1" in out and "line: b1 e1c1 0000 d1 0000 e1 (ends -3)" in out
    assert "outcome class: the second player wins (X first: -3, O first: +3)" in out
    assert "orthodox summary: 0" in out
    assert "solved" in out and "positions in" in out


def test_json_keys(monkeypatch, capsys):
    status = run(["--json", "--solver", "reference"], "name: hot\nx.#o\n.##.\n", monkeypatch)
    assert status == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["name"] == "hot" and obj["rules"] == "classic" and obj["rows"] == 2 and obj["cols"] == 4
    assert obj["stops"] == {"x": 1, "o": -5} and obj["orthodox"] == "5|1||-5"
    assert obj["orthodox_tree"] == [["5", "1"], "-5"]
    assert obj["outcome_class"] == "first"
    x = obj["sides"]["x"]
    assert (x["value"], x["outcome"], x["depth"], x["best_move"]) == (1, "x-wins", 3, "b2")
    assert x["pv"] == ["b2", "d1", "a1"] and x["pv_repeats"] is False
    assert set(obj) >= {"fen", "grid", "source", "line", "solver", "states", "seconds", "counter"}


def test_side_to_move_choices(monkeypatch, capsys):
    assert run(["--to-move", "o", "--json", "--solver", "reference"], "x...o\n", monkeypatch) == 0
    obj = json.loads(capsys.readouterr().out)
    assert list(obj["sides"]) == ["o"] and "orthodox" not in obj
    assert run(["--json", "--solver", "reference"], "x3o o 0 1\n", monkeypatch) == 0
    assert list(json.loads(capsys.readouterr().out)["sides"]) == ["o"]


def test_infinite_play_is_reported_as_such(monkeypatch, capsys):
    assert run(["--solver", "reference"], "x-1--x1 o 0 1\n", monkeypatch) == 0
    out = capsys.readouterr().out
    assert "O to move: draw by infinite play (value 0), depth infinite" in out
    assert "(repeats: play goes on forever)" in out


def test_max_states_stops_cleanly(monkeypatch, capsys):
    status = run(["--max-states", "50", "--solver", "reference"], "x...\n....\n...o\n\nx.o\n", monkeypatch)
    out, err = capsys.readouterr()
    assert status == 1
    reason = "stopped: more than 50 positions are reachable (raise --max-states to go further)"
    assert err.strip() == f"<stdin>:1: {reason}; proved X to move -12..+12, O to move -12..+12"
    # what was proved is printed: nothing beyond the widest bounds here, with the reason
    assert "X to move: the outcome is not proved (value -12..+12, not exact)" in out
    assert f"  {reason}" in out
    assert "x.o" in out  # the next position is still solved


def test_expect_failure_sets_status_1(monkeypatch, capsys):
    status = run(["--solver", "reference"], "expect: x=2\nx...o\n", monkeypatch)
    assert status == 1
    assert "EXPECT FAILED: expect x=2, solved -3" in capsys.readouterr().out


def test_expect_of_a_side_not_analysed_is_a_failure_not_a_crash(monkeypatch, capsys):
    status = run(["--solver", "reference", "--to-move", "o"], "to-move: x\nexpect: value=-3 x=3\nx...o\n", monkeypatch)
    out = capsys.readouterr().out
    assert status == 1
    assert "EXPECT FAILED: expect value=-3, but X to move was not analysed" in out
    assert "EXPECT FAILED: expect x=3, but X to move was not analysed" in out


def test_a_best_move_bound_of_all_the_squares_is_reported(monkeypatch, capsys):
    # X to move wins every square (+4), O to move loses every square (-4): real bounds, not vacuous ones
    assert run(["--solver", "reference", "--json"], "x.\n.o\n", monkeypatch) == 0
    sides = json.loads(capsys.readouterr().out)["sides"]
    assert sides["x"]["best_move_bound"] == {"lower": 4} and sides["o"]["best_move_bound"] == {"upper": -4}


def test_the_search_says_how_long_the_value_took_and_how_long_its_depth(monkeypatch, capsys):
    assert run(["--solver", "search", "--json"], "x...o\n", monkeypatch) == 0
    obj = json.loads(capsys.readouterr().out)
    for side in obj["sides"].values():
        assert side["value_seconds"] >= 0 and side["depth_seconds"] >= 0
    assert sum(s["value_seconds"] + s["depth_seconds"] for s in obj["sides"].values()) <= obj["seconds"]
    assert run(["--solver", "reference", "--json"], "x...o\n", monkeypatch) == 0
    assert not any("value_seconds" in s or "depth_seconds" in s
                   for s in json.loads(capsys.readouterr().out)["sides"].values())


def test_the_text_splits_the_time_of_a_long_solve_between_value_and_depth():
    import dataclasses

    from solver import Solver
    from solver.solve.report import time_split
    report = Solver(algorithm="search").solve("x...o")
    assert time_split(report) == ""  # a quick solve: no split
    slow = dataclasses.replace(report, seconds=3.0)
    slow.sides[0].value_seconds, slow.sides[0].depth_seconds = 0.5, 1.25
    slow.sides[1].value_seconds, slow.sides[1].depth_seconds = 0.25, 1.0
    assert time_split(slow) == ": the values in 0.75 s, the depths in 2.25 s"
    assert str(slow).splitlines()[-1].endswith("s (search): the values in 0.75 s, the depths in 2.25 s")
    one = dataclasses.replace(slow, sides=slow.sides[:1])
    assert time_split(one) == ": the value in 0.50 s, the depth in 1.25 s"
    slow.sides[1].depth_seconds = None  # a side whose value was not analysed is left out
    assert time_split(slow) == ": the value in 0.50 s, the depth in 1.25 s"


def test_ply_and_empty_on_an_input_without_games_say_that_they_pick_nothing(monkeypatch, capsys):
    assert run(["--solver", "reference", "--empty", "2-3"], "x...o\n", monkeypatch) == 0
    captured = capsys.readouterr()
    assert captured.err == ("ataxx-solve: --ply and --empty pick positions of PGN games; the input has no game, "
                            "so every position is solved\n")
    assert "X to move: O wins by 3" in captured.out
    game = '[FEN "x2/3/2o x 0 1"]\n\n1. a2 b1 2. b2 *\n'
    assert run(["--solver", "reference", "--empty", "1-9"], game, monkeypatch) == 0
    assert "--empty" not in capsys.readouterr().err


def test_the_help_lists_the_commands_in_one_column(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    rows = capsys.readouterr().out.split("commands (ataxx-solve COMMAND --help for each):\n")[1].splitlines()
    assert len(rows) > 10 and len({len(r) - len(r[2:].split(" ", 1)[1].lstrip()) for r in rows}) == 1


def test_outcome_only_still_draws_a_board_solved_for_both_sides(tmp_path, monkeypatch, capsys):
    svg = tmp_path / "b.svg"
    assert run(["--solver", "reference", "--outcome-only", "--svg", str(svg)], "x...o\n", monkeypatch) == 0
    assert svg.read_text().startswith("<svg ") and "no picture" not in capsys.readouterr().err


@pytest.mark.parametrize("argv,message", [
    (["--rules", "chess"], "invalid choice: 'chess'"),
    (["--max-states", "lots"], "argument --max-states: must be a whole number from 1 to 1,000,000,000,000,000, not 'lots'"),
    (["--to-move", "z"], "invalid choice: 'z'"),
])
def test_bad_arguments_exit_2_without_traceback(argv, message, capsys):
    with pytest.raises(SystemExit, match="^2$") as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert err.count("\n") == 1 and err.endswith("(see ataxx-solve --help)\n")  # one line, no usage block


@pytest.mark.slow
def test_module_entry_point_runs_in_a_real_process():
    proc = subprocess.run([sys.executable, "-m", "solver", "positions/chen2002.txt", "--json", "--solver", "reference"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    objs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [o["orthodox"] for o in objs] == ["0", "9|-9", "5|1||-5", "10|-10", "8|-8"]
    assert all(o["expect"]["ok"] for o in objs)
    bad = subprocess.run([sys.executable, "-m", "solver", "no-such-file.txt"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr == "no-such-file.txt: no such file\n"


def test_orthodox_summary_forms(monkeypatch, capsys):
    """One line as deep as fits (cut marked ...), a loop marked loop, the tree form, JSON whole."""
    board = ".xx\nxx.\n..o\n"
    assert run(["--solver", "reference", "--orth-depth", "5", "--orth-format", "tree"], board, monkeypatch) == 0
    out = capsys.readouterr().out
    tree = out[out.index("orthodox summary"):].splitlines()[:8]
    assert tree == ["orthodox summary (X: X's option, O: O's option):",
                    "  X: 9",
                    "  O:",
                    "    X:",
                    "      X: 7||3|-5",
                    "      O: ...|...||...|-7",
                    "    O: -9",
                    "  ...  = cut at depth 5 (--orth-depth N shows more)"]
    assert run(["--solver", "reference"], board, monkeypatch) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("orthodox summary: "))
    assert "loop" in line and "..." not in line
    assert "  loop = a board already on the path from the root (expanding it would repeat)" in out
    assert run(["--solver", "reference", "--json"], board, monkeypatch) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["orthodox"] == line[len("orthodox summary: "):] and obj["orthodox_depth"] == 8
    assert "loop" in json.dumps(obj["orthodox_tree"])


def test_long_summary_fits_one_line(monkeypatch, capsys):
    """2 x 6 from the start: the whole summary is longer than a line; the line is cut to fit."""
    assert run(["--solver", "retro"], "x....o\no....x\n", monkeypatch) == 0
    out = capsys.readouterr().out.splitlines()
    k = next(i for i, x in enumerate(out) if x.startswith("orthodox summary: "))
    summary = out[k][len("orthodox summary: "):]
    assert 80 < len(summary) <= 100 and "..." in summary
    assert out[k + 1].startswith("  ...  = cut at depth ") and "--orth-format tree" in out[k + 1]
    assert run(["--solver", "retro", "--json"], "x....o\no....x\n", monkeypatch) == 0
    whole = json.loads(capsys.readouterr().out)["orthodox"]
    assert len(whole) > 100 and "..." not in whole


@pytest.mark.slow
def test_moves_asked_for_but_stopped_are_said_to_be_not_computed(monkeypatch, capsys):
    fen = "1xxxxx1/xxxxxxx/xxxxxxx/oooxxoo/oooxxoo/oooxxoo/ooxoxoo x 0 36\n"
    # one thread and a node budget: the same work on every run (two threads race, and 200,000 nodes
    # proved the value in one run and only +9..+20 in another)
    status = run(["--solver", "search", "--nodes", "600000", "--threads", "1", "--moves"], fen, monkeypatch)
    out = capsys.readouterr().out
    assert status == 0  # the value is exact, and its depth; the moves' values are not
    assert "X to move: X wins by 9 (value +9), depth 3" in out
    assert ("  moves: not computed (stopped: the search went past 600,000 nodes (raise --nodes or --max-states "
            "to go further))") in out
    status = run(["--solver", "search", "--nodes", "300000", "--threads", "1", "--moves"], fen, monkeypatch)
    out = capsys.readouterr().out
    assert status == 1  # the value is not exact: nor its depth and the moves' values
    assert "X to move: X wins by 9 to 15 (value +9..+15, not exact)" in out
    assert "  moves: not computed (each move's value and depth need the analysis that stopped)" in out
    assert re.search(r"  stopped after 300,0\d\d nodes: the search went past 300,000 nodes", out)


def test_commands_are_subcommands_and_solve_is_the_default(tmp_path, monkeypatch, capsys):
    assert run(["solve", "--solver", "reference", "--json"], "x...o\n", monkeypatch) == 0
    explicit = json.loads(capsys.readouterr().out)
    assert run(["--solver", "reference", "--json"], "x...o\n", monkeypatch) == 0
    assert dict(json.loads(capsys.readouterr().out), seconds=0) == dict(explicit, seconds=0)
    # a first word that is a file is solved, even when it looks like a command's name
    monkeypatch.chdir(tmp_path)
    (tmp_path / "board").write_text("x...o\n")
    assert main(["board", "--solver", "reference", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sides"] == explicit["sides"]
    with pytest.raises(SystemExit, match="0"):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(f"\n  {name} " in out for name in ("solve", "batch", "verify", "perft", "bench", "cache", "tables"))


@pytest.mark.parametrize("argv,message", [
    (["ucci"], "ataxx-solve: error: 'ucci' is neither a command (solve, batch, verify, perft, bench, cache, tables, certificate, uai, values, serve, compile) "
              "nor a file (see ataxx-solve --help)"),
    (["tables", "frobnicate"], "ataxx-solve tables: error: argument ACTION: invalid choice: 'frobnicate'"),
    (["batch", "x.txt", "--bogus"], "ataxx-solve batch: error: unrecognized arguments: --bogus "
                                    "(see ataxx-solve batch --help)"),
    (["tables", "info", "--dir", "d", "--jobs", "2"], "ataxx-solve tables info: error: unrecognized arguments"),
])
def test_an_unknown_command_or_option_is_one_line(argv, message, capsys):
    with pytest.raises(SystemExit, match="2"):
        main(argv)
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1, err


def test_a_dash_names_standard_input_and_batch_says_it_reads_files(tmp_path, monkeypatch, capsys):
    saved = tmp_path / "board.txt"
    saved.write_text("x...o\n")
    status = run(["--solver", "reference", str(saved), "-"], "x..o\n", monkeypatch)
    out = capsys.readouterr().out
    assert status == 0
    assert "(<stdin>:1)" in out and "X to move: X wins by 4 (value +4)" in out  # x..o, read from the pipe
    assert "X to move: O wins by 3 (value -3)" in out  # x...o, read from the file
    status = run(["batch", "-"], "x..o\n", monkeypatch)
    err = capsys.readouterr().err
    assert status == 2
    assert err.strip() == ("ataxx-solve batch: -: batch reads files, not standard input (it resumes a file by "
                           "name): save the input to a file")


def test_a_node_budget_is_a_limit_and_its_stop_names_it(monkeypatch, capsys):
    board = "oooxoxx/oooxoxx/xxoxxxx/xxxxxoo/xoxxxoo/ooxxxo1/2xoo1x x 0 39"  # 4 empty squares, 7 x 7
    status = run(["--nodes", "1000", "--threads", "1"], board + "\n", monkeypatch)
    captured = capsys.readouterr()
    assert status == 1
    assert "has no limit" not in captured.err
    assert "the search went past 1,000 nodes (raise --nodes or --max-states to go further)" in captured.err
    # what the 1,000 nodes proved (the interval left open depends on the search's tuning) is reported in both
    proved = re.search(r"proved X to move ([+-]\d+\.\.[+-]\d+)$", captured.err.strip())
    assert proved is not None
    assert f"(value {proved.group(1)}, not exact)" in captured.out
    assert "nodes: the search went past 1,000 nodes" in captured.out


def test_a_fen_argument_that_names_no_file_is_the_position(tmp_path, monkeypatch, capsys):
    """A FEN typed where a file goes is solved; a bad one gets the FEN's message; a file wins."""
    monkeypatch.chdir(tmp_path)
    assert main(["xo1/3 x", "--json", "--solver", "reference"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert (obj["source"], obj["line"], obj["sides"]["x"]["value"]) == ("<argument>", 1, 6)
    assert main(["xo1/33 x"]) == 2
    assert capsys.readouterr().err == ("<argument>:1: FEN rank 2 from the top is too long: "
                                       "33 squares where the top rank has 3\n")
    assert main(["games/a b"]) == 2  # a path, not a FEN: its own message
    assert capsys.readouterr().err == "games/a b: no such file\n"
    assert main(["x5o/7/7/7/7/7/o5x z"]) == 2
    assert capsys.readouterr().err == ("<argument>:1: FEN side to move must be 'x' or 'o' "
                                       "(or libataxx's 'b' or 'w'), not 'z'\n")
    assert main(["x5o/7/7/7/7/7/o5z x 0 1"]) == 2  # a typo in the ranks: the FEN's message, not "no such file"
    assert capsys.readouterr().err == "<argument>:1: FEN board has an unknown character 'z'\n"
    assert main(["data/ab x"]) == 2  # two characters that no FEN has: a path
    assert capsys.readouterr().err == "data/ab x: no such file\n"
    assert main(["x1o x", "--json", "--solver", "reference"]) == 0  # one rank (a user's trial: 'no such file')
    assert json.loads(capsys.readouterr().out)["sides"]["x"]["value"] == 3
    assert main(["x..o", "--json", "--solver", "reference"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["sides"]["x"]["value"] == 4
    assert main(["ooxooo1/ooxoxx9/zz x 0 1"]) == 2  # more typos, but FEN's fields after them (a user's trial)
    assert capsys.readouterr().err == "<argument>:1: FEN board has an unknown character 'z'\n"
    assert main(["xo1/3", "--json", "--solver", "reference"]) == 0  # ranks alone: a board without a side to move
    assert json.loads(capsys.readouterr().out.splitlines()[0])["sides"]["x"]["value"] == 6
    (tmp_path / "xo1").mkdir()
    (tmp_path / "xo1" / "3 x").write_text("x...o\n")
    assert main(["xo1/3 x", "--json", "--solver", "reference"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["source"] == "xo1/3 x"


def test_an_interrupt_while_the_picture_is_drawn_still_prints_the_report(tmp_path, monkeypatch, capsys):
    """SIGTERM (or Ctrl-C) while --svg searched the moves again printed nothing of the value the
    solve had proved (a user's trial): the report is printed, no picture is written, exit 130."""
    from solver.app import outputs

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(outputs, "side_svg", interrupted)
    svg = tmp_path / "b.svg"
    assert run(["--solver", "reference", "--svg", str(svg)], "to-move: x\nx.#o\n.##.\n", monkeypatch) == 130
    captured = capsys.readouterr()
    assert "X to move: X wins by 1 (value +1)" in captured.out
    assert captured.err.splitlines()[-2:] == ["<stdin>:2: no picture: interrupted while drawing it",
                                              "ataxx-solve: interrupted"]
    assert not svg.exists()


def test_moves_stopped_by_a_limit_keep_the_value_depth_and_line(tmp_path, capsys):
    """--moves whose table a limit stops: the value, depth, best move and line proved first are
    printed (they were lost: 'depth not computed' after the whole --timeout, where the solve
    without --moves took 0.01 s; a user's trial), with why the table is missing; the value is
    exact: exit 0, as for a depth a limit stopped."""
    f = tmp_path / "q.txt"
    f.write_text("xxx-ooo/xxxoooo/x1-xooo/xxxxxoo/oo-xxx1/oooxxxx/xx1x-xo o 0 30\n")
    assert main([str(f), "--nodes", "2000000"]) == 0
    alone = capsys.readouterr().out
    assert "O to move: O wins by 5 (value -5), depth 5" in alone and "  best move: c1" in alone
    assert main([str(f), "--nodes", "2000000", "--moves"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert "O to move: O wins by 5 (value -5), depth 5" in lines and "  best move: c1" in lines
    assert "  line: c1 g3 a3b5 a1a3 a1 (ends -5)" in lines
    assert ("  moves: not computed (stopped: the search went past 2,000,000 nodes (raise --nodes or "
            "--max-states to go further))") in lines
    assert "stopped" not in err
    assert main([str(f), "--nodes", "2000000", "--moves", "--json"]) == 0
    side = json.loads(capsys.readouterr().out)["sides"]["o"]
    assert (side["value"], side["depth"], side["best_move"], side["pv"][0], side["moves_stopped"]) == (-5, 5, "c1", "c1", "nodes")
    assert "moves" not in side


def test_batch_names_a_file_that_is_not_regular_and_a_whole_file_s_error_without_a_line(tmp_path, capsys):
    """batch on /dev/null said 'no such file', and a binary or empty file's error was placed at
    line 'None' (a user's trial)."""
    assert main(["batch", "/dev/null", "--no-cache"]) == 2
    assert capsys.readouterr().err == ("ataxx-solve batch: /dev/null: not a regular file (batch reads a file again "
                                       "to resume it): save the input to a file\n")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert main(["batch", str(empty), "--no-cache", "--jobs", "1"]) == 1
    assert f"{empty}: no position found (the input is empty)\n" in capsys.readouterr().err


def test_a_cache_in_a_directory_that_does_not_exist_is_refused(tmp_path, capsys):
    """--cache made every missing directory on its path (a user's trial made two at /): it is
    refused in one line; only the default cache's directory is made."""
    board = tmp_path / "b.txt"
    board.write_text("x..o\n")
    path = tmp_path / "none" / "c.sqlite"
    assert main(["batch", str(board), "--cache", str(path), "--jobs", "1"]) == 2
    assert capsys.readouterr().err == (f"ataxx-solve: {path}: no such directory {str(path.parent)!r} (a cache is "
                                       "made in a directory that exists)\n")
    assert not path.parent.exists()


def test_a_reader_that_goes_away_ends_the_command_quietly_with_141(tmp_path):
    """`ataxx-solve FILE | head -1` exited 0 though the rest of the file was neither solved nor
    written (a user's trial): quietly, 141 (128 + SIGPIPE), as a command a closed pipe ends."""
    f = tmp_path / "b.txt"
    f.write_text("x1o/3/o1x x 0 1\n\n" * 400)  # (more than a pipe holds: the writer meets the closed end)
    proc = subprocess.Popen([sys.executable, "-m", "solver", str(f), "--solver", "reference"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()  # the reader goes away after one line
    err = proc.stderr.read() if proc.stderr is not None else b""
    assert proc.wait(timeout=120) == 141 and err == b""
