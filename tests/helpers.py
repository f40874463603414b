"""Shared helpers for the tests: random positions with fixed seeds, a naive oracle."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time

from solver.game.board import Board
from solver.game.rules import CLASSIC, O, X, Position, Rules

SMALL_SHAPES = [(1, 4), (1, 5), (1, 6), (2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (4, 2)]


def random_position(rng: random.Random, shapes=SMALL_SHAPES, rules: Rules = CLASSIC,
                    block_chance: float = 0.15, max_empty: int | None = None,
                    fill: tuple[float, float, float] = (0.35, 0.33, 0.32)) -> Position:
    """A random position: random shape, blocks, pieces (empty/X/O chances ``fill``) and side to move.

    With ``max_empty`` set, squares beyond that many empties get a piece instead.
    """
    rows, cols = rng.choice(shapes)
    n = rows * cols
    blocks = 0
    for sq in range(n):
        if rng.random() < block_chance:
            blocks |= 1 << sq
    board = Board(rows, cols, blocks)
    x = o = 0
    empties = 0
    p_empty, p_x, _ = fill
    for sq in range(n):
        if blocks >> sq & 1:
            continue
        r = rng.random()
        if r < p_empty and (max_empty is None or empties < max_empty):
            empties += 1
        elif r < p_empty + p_x or (r < p_empty and rng.random() < 0.5):
            x |= 1 << sq
        else:
            o |= 1 << sq
    counter = rng.randrange(0, max(1, rules.limit)) if rules.counter else 0
    return Position(board, x, o, rng.choice((X, O)), counter, rules)


def random_positions(seed: int, count: int, **kw) -> list[Position]:
    rng = random.Random(seed)
    return [random_position(rng, **kw) for _ in range(count)]


class TooMuchWork(Exception):
    pass


def naive_value(p: Position, budget: int | None = None) -> int:
    """Minimax where a position repeated on the current line scores 0.

    This truncated game has the same value as the real one (attractor strategies
    never repeat a position; the other side's safe strategy can only gain from a
    repetition that scores 0). Exponential: only for tiny positions. With a
    ``budget`` of nodes, raises :class:`TooMuchWork` beyond it.
    """
    left = [budget if budget is not None else -1]

    def value(q: Position, path: frozenset) -> int:
        left[0] -= 1
        if left[0] == -1 and budget is not None:
            raise TooMuchWork
        r = q.result()
        if r is not None:
            return r
        if q in path:
            return 0
        path = path | {q}
        values = [value(q.push(m), path) for m in q.legal_moves()]
        return max(values) if q.turn == X else min(values)

    return value(p, frozenset())


def ctrl_c_after(proc: subprocess.Popen, seconds: float, guard: float = 600) -> None:
    """Ctrl-C to ``proc``'s process group (started with ``start_new_session``) after ``seconds``,
    and its exit waited for (``guard``: a limit against a hang, not a timing); when the wait
    fails, the group is killed, so that no search runs on after the test."""
    try:
        time.sleep(seconds)
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=guard)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
