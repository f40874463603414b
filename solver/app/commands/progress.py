"""Progress on a terminal: bars, a status line rewritten in place, the engines' progress drawn."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from solver.app.commands.common import count_text, interval_text
from solver.game.notation import UAI_NOTATION, Notation
from solver.oracles.oracle import Progress


def progress_bar(desc: str, unit: str, total: int | None = None) -> Any:
    """A tqdm bar on standard error (the callers draw only on a terminal)."""
    from tqdm import tqdm  # start-up: tqdm loads only when a bar is drawn

    return tqdm(desc=desc, unit=f" {unit}", total=total, file=sys.stderr, leave=False, unit_scale=True,
                dynamic_ncols=True)


class StatusLine:
    """One line of live progress on a terminal (stderr), rewritten in place."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        self.shown = 0
        self.last = 0.0

    def show(self, text: str) -> None:
        now = time.monotonic()
        if now - self.last < 0.2:
            return
        self.last = now
        width = shutil.get_terminal_size((100, 20)).columns - 1
        text = text[:width]
        self.stream.write("\r" + text + " " * max(0, self.shown - len(text)))
        self.stream.flush()
        self.shown = len(text)

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.stream.flush()
            self.shown = 0


class ProgressView:
    """Draws the :class:`~solver.oracles.oracle.Progress` of the engines on a terminal: a bar per phase
    of the retro engine (enumerating, solving), a status line for the search (the side being
    searched, the interval proved so far, the best move, nodes and nodes per second), the sides
    and moves in ``notation`` (the run's ``--notation``). ``describe(progress)`` may give the
    status line's text instead."""

    def __init__(self, describe: Callable[[Progress], str] | None = None, notation: Notation = UAI_NOTATION):
        self.describe = describe
        self.notation = notation
        self.where = ""  # the position being solved ('file:line: '), shown first
        self.line = StatusLine()
        self.bar: Any = None
        self.phase: str | None = None
        self.done = 0

    def __call__(self, ev: Progress) -> None:
        if ev.phase in ("searching", "testing"):
            self._close_bar()
            self.line.show(self.describe(ev) if self.describe else self.where + self.search_text(ev, self.notation))
            return
        if self.bar is None or ev.phase != self.phase or ev.done < self.done:
            self._close_bar()
            self.line.close()
            self.bar, self.phase = progress_bar(ev.phase, ev.unit, ev.total), ev.phase
        self.done = ev.done
        if ev.done > self.bar.n:
            self.bar.update(ev.done - self.bar.n)

    @staticmethod
    def search_text(ev: Progress, notation: Notation = UAI_NOTATION) -> str:
        rate = ev.done / ev.seconds if ev.seconds > 0 else 0.0
        who = f"{notation.side(ev.side)} to move: " if ev.side is not None else ""
        best = None if ev.best_move is None or ev.position is None else notation.move(ev.position, ev.best_move)
        move = f", best {best}" if best else ""
        what = "depth and line" if ev.phase == "testing" else f"value {interval_text(ev.lower, ev.upper)}{move}"
        return f"{who}{what} | {count_text(ev.done)} nodes, {count_text(rate)}/s, {ev.seconds:.1f} s"

    def _close_bar(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar, self.phase, self.done = None, None, 0

    def close(self) -> None:
        self._close_bar()
        self.line.close()
