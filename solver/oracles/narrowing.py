"""Which test next: the order in which the search narrows an interval on a value.

The search proves bounds by null-window tests, "is the mover's value at least k?", each
answered with a fail-soft bound (:mod:`solver.oracles.search`). :class:`Narrowing` chooses k.

- First the outcome: does the mover win (k = 1)? does it at least draw (k = 0)? The material
  count on the board decides which is asked first.
- Then the margin, from the bound found towards the material count: each test moves the
  interval to the bound its fail-soft score proves, and the next test is the value just past
  it (MTD(f)).
- A test over its node budget yields to the middle of the interval (:meth:`candidates` gives
  both, the step first), so that an easy question is not held up by a hard one.

On the 7 x 7 endgames of games between searching players the fail-soft bound of a margin test
is mostly just what was asked, so the margin is walked one point at a time. A gallop (steps
that double in one direction, never past the middle) was measured against the walk on the
6-empty suite under ``uai``, one thread and 200 million nodes a position (the same work on any
machine): 2 of 10 exact either way, intervals narrower on 3 positions and wider on 3. The tests
next to the value cost nearly all the nodes whatever the order, so the walk stays.
"""

from __future__ import annotations


class Narrowing:
    """The interval ``lo..hi`` on a value, and the tests that narrow it (see the module).
    ``guess``: the value expected (the material count); ``outcome_only``: stop once the
    outcome is known."""

    def __init__(self, lo: int, hi: int, guess: int, outcome_only: bool = False):
        self.lo, self.hi = lo, hi
        self.guess = max(lo, min(hi, guess))
        self.outcome_only = outcome_only
        self.target: int | None = None  # the next margin test

    def outcome_known(self) -> bool:
        return self.lo > 0 or self.hi < 0 or (self.lo == 0 and self.hi == 0)

    @property
    def done(self) -> bool:
        return self.lo == self.hi or (self.outcome_only and self.outcome_known())

    def candidates(self) -> list[int]:
        """The tests to try, in order (empty when done): the next step, then the middle."""
        lo, hi = self.lo, self.hi
        out: list[int] = []
        if not self.outcome_known():
            out = [k for k in ((1, 0) if self.guess >= 1 else (0, 1)) if lo < k <= hi]
        elif not self.outcome_only:
            k = self.target if self.target is not None else (self.guess + 1 if self.guess >= lo + 1 else self.guess)
            out = [max(lo + 1, min(hi, k)), (lo + hi + 1) // 2]
        seen: list[int] = []
        for k in out:
            if lo < k <= hi and k not in seen:
                seen.append(k)
        return seen

    def record(self, k: int, holds: bool, bound: int) -> None:
        """The test "at least k?" answered ``holds``, with the fail-soft ``bound`` (a value:
        at least ``bound`` when it holds, at most ``bound`` when not)."""
        if holds:
            self.lo = max(self.lo, min(self.hi, max(k, bound)))
            self.target = self.lo + 1
        else:
            self.hi = min(self.hi, max(self.lo, min(k - 1, bound)))
            self.target = self.hi
        self.guess = max(self.lo, min(self.hi, self.guess))
