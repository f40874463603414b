"""The order of the search's tests (solver.oracles.narrowing), against a value known in advance.

A simulated test answers "is the value at least k?" as a search would: with the truth, and a
fail-soft bound that may land anywhere between the threshold and the value. Whatever the
bounds, the narrowing must end at the value (or, asked for the outcome only, at an interval
that shows it), and never cross it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from solver.oracles.narrowing import Narrowing

RUNS = settings(max_examples=300, derandomize=True, deadline=None)


def narrow(value: int, squares: int, guess: int, slack: list[int], outcome_only: bool = False,
           lo: int | None = None, hi: int | None = None) -> tuple[Narrowing, list[int]]:
    """Narrow -squares..squares (or lo..hi) on ``value``; slack[i]: how far past the threshold
    the i-th test's fail-soft bound lands (capped by the value). Returns the narrowing and the tests."""
    n = Narrowing(-squares if lo is None else lo, squares if hi is None else hi, guess, outcome_only)
    asked: list[int] = []
    while not n.done:
        todo = n.candidates()
        assert todo, (n.lo, n.hi)
        k = todo[0]
        assert n.lo < k <= n.hi
        extra = slack[len(asked) % len(slack)]
        if value >= k:
            n.record(k, True, min(value, k + extra))
        else:
            n.record(k, False, max(value, k - 1 - extra))
        asked.append(k)
        assert n.lo <= value <= n.hi
        assert len(asked) <= 2 * squares + 2, asked
    return n, asked


@RUNS
@given(st.integers(1, 64).flatmap(lambda s: st.tuples(st.just(s), st.integers(-s, s), st.integers(-s, s))),
       st.lists(st.integers(0, 10), min_size=1, max_size=8))
def test_the_tests_end_at_the_value_whatever_the_fail_soft_bounds(case, slack):
    squares, value, guess = case
    n, asked = narrow(value, squares, guess, slack)
    assert n.lo == n.hi == value
    assert len(asked) == len(set(asked)), asked  # (each answer excludes its threshold)


@RUNS
@given(st.integers(1, 64).flatmap(lambda s: st.tuples(st.just(s), st.integers(-s, s), st.integers(-s, s))),
       st.lists(st.integers(0, 10), min_size=1, max_size=8))
def test_asked_for_the_outcome_it_stops_once_the_outcome_is_shown(case, slack):
    squares, value, guess = case
    n, asked = narrow(value, squares, guess, slack, outcome_only=True)
    assert n.outcome_known() and len(asked) <= 2
    assert (n.lo > 0) == (value > 0) and (n.hi < 0) == (value < 0)
    assert set(asked) <= {0, 1}


def test_the_first_question_follows_the_material_count():
    assert Narrowing(-49, 49, 5).candidates() == [1, 0]
    assert Narrowing(-49, 49, -5).candidates() == [0, 1]
    assert Narrowing(-49, 49, 0).candidates() == [0, 1]


def test_a_fail_soft_bound_moves_the_interval_at_once_and_the_next_test_is_just_past_it():
    n = Narrowing(-49, 49, 3)
    n.record(1, True, 7)     # "at least 1?" yes, and at least 7
    assert (n.lo, n.hi) == (7, 49) and n.candidates() == [8, 28]  # MTD(f)'s step, then the middle
    n.record(8, False, 7)    # at most 7: exact
    assert n.done and (n.lo, n.hi) == (7, 7) and n.candidates() == []


def test_known_bounds_are_kept_and_a_known_outcome_goes_straight_to_the_margin():
    n = Narrowing(-3, 20, 10)
    assert n.outcome_known() is False and n.candidates() == [1, 0]
    n = Narrowing(2, 20, 10)
    assert n.outcome_known() and n.candidates() == [11]  # (the step and the middle agree)
    n, asked = narrow(4, 49, -30, [0], lo=2, hi=20)
    assert (n.lo, n.hi) == (4, 4) and asked[0] == 3  # the guess clamped into 2..20: its step is 3
