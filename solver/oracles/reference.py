"""The reference solver: SPEC section 4 computed by its definition, in plain Python.

It is the oracle the fast engines are tested against, so it is written to be
obviously right rather than fast:

1. Enumerate every position reachable from the roots with the plain rules of
   :mod:`solver.game.rules`, keyed by :meth:`Position.key` (canonical under the
   board's symmetries and colour inversion, so values are from the mover's side).
2. For every threshold k = 1, 2, ... compute the attractor of "the mover has
   forced a finished game in which it leads by at least k" (a worklist over
   counters of children not yet known to be won by the opponent). A position
   where the mover can force a lead of at least k is in ``win[k]``; one where
   the opponent can is in ``lose[k]``. The mover's value u is the largest k with
   the position in ``win[k]``, else minus the largest k with it in ``lose[k]``,
   else 0: that is the threshold definition of SPEC section 4 read from the
   mover's side (for t <= 0 the attractor belongs to the opponent, and play
   that never ends counts for the side that avoids it).
3. Depth: the number of plies of the principal variation, where a mover that
   wins takes the optimal move that ends soonest and any other mover the one
   that ends latest. It is the greatest fixed point of
   d(P) = 1 + min/max{d(C) : C an optimal child of P}, d = 0 at the end,
   found by lowering d from infinity until nothing changes; a position whose
   depth stays infinite is a draw by infinite play.

``attractor rank`` (the round at which a position joined its attractor) is kept
as well: along the preferred moves of a decided position it strictly falls,
which is what guarantees that following best moves makes progress.

Limits: ``max_states`` positions, a ``deadline`` (a ``time.monotonic()`` value,
checked every few thousand steps of every phase) and ``max_memory`` bytes, against
:data:`BYTES_PER_STATE`; each stops the solve with a :class:`LimitError`.
"""

from __future__ import annotations

import math
import time
from collections import deque

from solver.common.limits import (
    MemoryLimitError,
    StateLimitError,
    TimeLimitError,
    size_name,
)
from solver.game.rules import Position, X
from solver.oracles.oracle import Oracle

INF = math.inf
# Peak bytes per position of a solution, measured with tracemalloc (770 to 1,070 on the
# 3 x 3 and 3 x 4 classic starts and the 2 x 5 uai start), rounded up.
BYTES_PER_STATE = 1200
_CHECK_EVERY = 4096  # steps between two looks at the clock


class ReferenceSolution:
    """Values and depths of every position reachable from some roots."""

    def __init__(self, roots: list[Position], max_states: int | None = None, symmetry: bool = True,
                 both_sides: bool = False, deadline: float | None = None, max_memory: int | None = None):
        if not roots:
            raise ValueError("nothing to solve")
        self.deadline = deadline
        self.max_memory = max_memory
        self.board = roots[0].board
        self.rules = roots[0].rules
        for r in roots:
            if r.board != self.board or r.rules != self.rules:
                raise ValueError("all roots of one solution must share board and rules")
        # With symmetry off, positions are told apart exactly (no board symmetry, no colour inversion).
        self._key = Position.key if symmetry else (lambda p: (p.x, p.o, p.turn, p.counter))
        self.index: dict[tuple, int] = {}
        self.positions: list[Position] = []
        self.children: list[list[int]] = []
        self.final: list[int | None] = []  # mover's final score at the end of the game, else None
        self._enumerate(roots, max_states, both_sides)
        self.value, self.rank = self._values()
        self.depth = self._depths()

    @property
    def states(self) -> int:
        return len(self.positions)

    # -- 1. the graph ---------------------------------------------------------------------------

    def _check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeLimitError(f"the reference solver ran out of time ({self.states:,} positions reached)")

    def _add(self, position: Position, queue: deque, max_states: int | None) -> int:
        key = self._key(position)
        i = self.index.get(key)
        if i is None:
            if max_states is not None and len(self.positions) >= max_states:
                raise StateLimitError(f"more than {max_states:,} positions are reachable", len(self.positions))
            i = len(self.positions)
            if i % _CHECK_EVERY == 0 and i:
                self._check_time()
                if self.max_memory is not None and i * BYTES_PER_STATE > self.max_memory:
                    raise MemoryLimitError(f"the reference solver needs more than {size_name(self.max_memory)} "
                                           f"(about {BYTES_PER_STATE:,} bytes for each of {i:,} positions and more)")
            self.index[key] = i
            self.positions.append(position)
            self.children.append([])
            self.final.append(None)
            queue.append(i)
        return i

    def _enumerate(self, roots: list[Position], max_states: int | None, both_sides: bool) -> None:
        """Breadth-first from the roots; with ``both_sides``, every board reached is also
        taken with the other side to move (what board analyses and option lists need)."""
        queue: deque = deque()
        for r in roots:
            self._add(r, queue, max_states)
        while queue:
            i = queue.popleft()
            p = self.positions[i]
            if both_sides:
                self._add(p.replace(turn=p.turn.other), queue, max_states)
            result = p.result()
            if result is not None:
                self.final[i] = result if p.turn == X else -result
                continue
            self.children[i] = [self._add(p.push(m), queue, max_states) for m in p.legal_moves()]

    # -- 2. values by thresholds ----------------------------------------------------------------

    def _attractor(self, k: int, parents: list[list[int]]) -> tuple[list[int], list[int]]:
        """(won, lost, rank): positions where the mover / the opponent can force a lead >= k."""
        n = self.states
        status = [0] * n  # +1 mover forces it, -1 opponent forces it, 0 neither
        rank = [0] * n
        waiting = [len(c) for c in self.children]  # children not yet known to be won by their mover
        queue: deque = deque()
        for i, f in enumerate(self.final):
            if f is not None and abs(f) >= k:
                status[i] = 1 if f > 0 else -1
                queue.append(i)
        steps = 0
        while queue:
            c = queue.popleft()
            steps += 1
            if steps % _CHECK_EVERY == 0:
                self._check_time()
            for p in parents[c]:
                if status[p]:
                    continue
                if status[c] < 0:  # a move to a child where that child's mover is beaten
                    status[p], rank[p] = 1, rank[c] + 1
                    queue.append(p)
                else:
                    waiting[p] -= 1
                    if waiting[p] == 0:  # every move hands the opponent a forced lead >= k
                        status[p], rank[p] = -1, rank[c] + 1
                        queue.append(p)
        return status, rank

    def _values(self) -> tuple[list[int], list[int]]:
        parents: list[list[int]] = [[] for _ in range(self.states)]
        for p, cs in enumerate(self.children):
            for c in cs:
                parents[c].append(p)
        value = [0] * self.states
        rank = [0] * self.states
        top = max((abs(f) for f in self.final if f is not None), default=0)
        for k in range(1, top + 1):
            status, r = self._attractor(k, parents)
            for i, s in enumerate(status):
                if s:  # larger k come later, so the last write is the largest k
                    value[i] = k * s
                    rank[i] = r[i]
        self._parents = parents
        return value, rank

    # -- 3. depths ------------------------------------------------------------------------------

    def optimal_children(self, i: int) -> list[int]:
        return [c for c in self.children[i] if -self.value[c] == self.value[i]]

    def _depths(self) -> list[float]:
        depth = [0 if f is not None else INF for f in self.final]
        optimal = [self.optimal_children(i) for i in range(self.states)]
        work = deque(i for i in range(self.states) if self.final[i] is None)
        queued = [f is None for f in self.final]
        steps = 0
        while work:
            i = work.popleft()
            steps += 1
            if steps % _CHECK_EVERY == 0:
                self._check_time()
            queued[i] = False
            ds = [depth[c] for c in optimal[i]]
            new = 1 + (min(ds) if self.value[i] > 0 else max(ds))
            if new < depth[i]:
                depth[i] = new
                for p in self._parents[i]:
                    if not queued[p] and self.final[p] is None and i in optimal[p]:
                        queued[p] = True
                        work.append(p)
        return depth

    # -- answers --------------------------------------------------------------------------------

    def find(self, position: Position) -> int | None:
        if position.board != self.board or position.rules != self.rules:
            return None  # the keys are pieces only: another board's positions are not in this solution
        return self.index.get(self._key(position))

    def lookup(self, position: Position) -> tuple[int, float]:
        """(value for the side to move, depth or math.inf); KeyError if not reached from the roots."""
        i = self.index[self._key(position)]
        return self.value[i], self.depth[i]


class ReferenceOracle(Oracle):
    """The reference solver behind the oracle contract (:class:`solver.oracles.oracle.Oracle`).

    Positions are solved on demand: a position not reached from earlier roots
    becomes the root of a new solution.
    """

    name = "reference"

    def __init__(self, max_states: int | None = None, symmetry: bool = True, deadline: float | None = None,
                 max_memory: int | None = None):
        super().__init__(deadline)  # a time.monotonic() value; callers may move it between questions
        self.max_states = max_states
        self.symmetry = symmetry
        self.max_memory = max_memory
        self.solutions: list[ReferenceSolution] = []

    @property
    def states(self) -> int:
        return sum(s.states for s in self.solutions)

    def _find(self, position: Position) -> tuple[ReferenceSolution, int] | None:
        """The solution that holds ``position`` and its index there, or None."""
        for s in self.solutions:
            i = s.find(position)
            if i is not None:
                return s, i
        return None

    def prepare(self, roots: list[Position], both_sides: bool = False) -> None:
        missing = [r for r in roots if self._find(r) is None]
        if missing:
            self.solutions.append(ReferenceSolution(missing, self.max_states, self.symmetry, both_sides,
                                                    self.deadline, self.max_memory))

    def lookup(self, position: Position) -> tuple[int, float]:
        found = self._find(position)
        if found is None:
            self.prepare([position])
            found = self._find(position)
            assert found is not None  # the new solution's root
        s, i = found
        return s.value[i], s.depth[i]
