"""One owner for each idea (issue 28 item 2): the word enums, the words for an interval, the
lines the commands print made by the library, the names that say which side of a protocol a
class is on."""

import json

from solver.common.words import Word
from solver.game.rules import O, X, Position
from solver.oracles.oracle import STOP_REASONS, StopReason, stop_reason
from solver.common.limits import TimeLimitError
from solver.play.verify import Check, Verdict, verdict
from solver.solve.analysis import Evaluation, Interval, Outcome
from solver import Solver


def test_a_word_is_its_string_in_comparisons_keys_text_and_json():
    assert StopReason.TIME == "time" and StopReason("time") is StopReason.TIME
    assert {"time": 1}[StopReason.TIME] == 1 and STOP_REASONS["interrupt"] == "interrupted"
    assert f"{Verdict.BLUNDER}" == str(Verdict.BLUNDER) == "blunder"
    assert json.dumps({"verdict": Verdict.OPTIMAL, Outcome.DRAW: 0}) == '{"verdict": "optimal", "draw": 0}'
    assert stop_reason(TimeLimitError("x")) is StopReason.TIME and StopReason.DEPTH.text.startswith("a test")
    assert all(issubclass(k, Word) for k in (StopReason, Verdict, Outcome))


def test_outcomes_of_values_and_intervals():
    assert Evaluation(3, 5).outcome is Outcome.X_WINS and Evaluation(0, None).outcome is Outcome.INFINITE_PLAY
    assert Interval(0, 4, 12).outcome is Outcome.X_AT_LEAST_DRAWS and not Interval(0, 4, 12).outcome_proved
    assert Interval(-2, -2, 12).outcome_proved and Interval(-3, 5, 12).outcome is Outcome.UNKNOWN


def test_the_words_for_an_interval_from_either_view():
    cases = [((3, 3), "X wins by 3", "wins by 3", "loses by 3"),
             ((-2, -2), "O wins by 2", "loses by 2", "wins by 2"),
             ((0, 0), "draw", "draws", "draws"),
             ((3, 7), "X wins by 3 to 7", "wins by 3 to 7", "loses by 3 to 7"),
             ((2, 12), "X wins by at least 2", "wins by at least 2", "loses by at least 2"),
             ((0, 5), "X at least draws", "at least draws", "at most draws"),
             ((-5, 0), "O at least draws", "at most draws", "at least draws"),
             ((-1, 1), "the outcome is not proved", "has no proved outcome (-1..+1 for it)",
              "has no proved outcome (-1..+1 for it)")]
    for (lo, hi), x_view, x_to_move, o_to_move in cases:
        iv = Interval(lo, hi, 12)
        assert (iv.describe(), iv.words_for(X), iv.words_for(O)) == (x_view, x_to_move, o_to_move)
    assert Evaluation(0, None).describe() == "draw by infinite play" and Evaluation(-4, 3).describe() == "O wins by 4"


def test_verify_lines_come_from_the_check():
    p = Position.from_fen("x3o x")
    c = Check("builtin:greedy", "f.txt", 3, None, p, "a1c1", best_move="b1", verdict=verdict(p, Interval(-3, -3, 5),
              Interval(-5, -5, 5)), value_interval=Interval(-5, -5, 5), best_interval=Interval(-3, -3, 5), loss=2)
    assert c.verdict is Verdict.INACCURACY
    assert c.text() == "f.txt:3: builtin:greedy: a1c1 is an inaccuracy (-5; best b1 -3, loses 2)"
    ok = Check("p", "f.txt", 3, None, p, "b1", verdict=Verdict.OPTIMAL, value_interval=Interval(-3, -3, 5),
               best_interval=Interval(-3, -3, 5))
    assert ok.text() is None
    assert Check("p", "f.txt", 4, None, p, "zz", problem="crashed").text() == "f.txt:4: p: problem: crashed"


def test_the_stop_line_comes_from_the_report():
    from solver import Limits
    report = Solver(algorithm="reference", limits=Limits(max_states=50)).solve("x...\n....\n...o")
    assert report.stopped_text() == ("stopped: more than 50 positions are reachable (raise --max-states to go further); "
                                     "proved X to move -12..+12, O to move -12..+12")
    assert Solver().solve("x...o").stopped_text() is None


def test_protocol_sides_are_named():
    from solver.play import uai_client, uai_server
    assert hasattr(uai_client, "UAIClient") and hasattr(uai_server, "UAIServer")
    assert not hasattr(uai_client, "UAIEngine") and not hasattr(uai_server, "UAIEngine")
    from solver.solve import batch
    assert hasattr(batch, "BatchOptions") and hasattr(batch, "BatchSummary") and not hasattr(batch, "Summary")
