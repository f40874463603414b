"""The files a solve writes beside its report: the game tree (DOT), the board (SVG), the
certificate of the bounds proved, the thermograph of the game value (``ataxx-solve --dot --svg
--certificate --thermograph``), and ``verify --html``'s page; what the command prints comes back
as lines (the command only prints them).

    >>> outputs = Outputs(svg="board.svg")              # doctest: +SKIP
    >>> outputs.check(count=1)                          # before anything is solved
    >>> for line in outputs.write(report, analyzer, 1).lines:
    ...     print(line)                                 # 'wrote board.svg'

A file is written whole or not at all (:func:`solver.common.files.replace_file`), never over an
input file nor over an existing file that does not start like one of ours (:data:`SIGNATURES`):
:class:`~solver.common.files.OutputError` says which and why. With several positions the k-th
goes to ``FILE-k`` (:func:`numbered`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from solver.app.pictures import DEFAULT_TREE_DEPTH, game_tree_dot, side_svg
from solver.common.files import check_output, replace_file
from solver.solve import certificate
from solver.solve.analysis import Analyzer
from solver.solve.report import Report

# The most time the board's picture searches the moves whose values the solve did not give (the
# value was proved, the depth and the moves were not: a limit, or a depth test too large)
PICTURE_SECONDS = 10.0

# What each picture file starts with: an existing file that does not is not overwritten.
SIGNATURES = {"dot": b"digraph ataxx", "svg": b"<svg ", "html": b"<!DOCTYPE html>",
              "certificate": certificate.MAGIC.encode()}


def numbered(path: str, k: int) -> str:
    """``path`` for the k-th position of the input (k >= 1): board.svg, board-2.svg, ..."""
    if k == 1:
        return path
    stem, dot, ext = path.rpartition(".")
    return f"{stem}-{k}.{ext}" if dot and "/" not in ext else f"{path}-{k}"


def check_picture(path: str, kind: str, inputs: Iterable[str] = ()) -> None:
    """Raise OutputError for an input file, or an existing file that does not start like a ``kind`` of ours."""
    check_output(path, inputs, lambda first: first.startswith(SIGNATURES[kind]), what=f"{kind} file")


def write_output(path: str, text: str, kind: str, inputs: Iterable[str] = ()) -> None:
    """Write a picture or a report whole (:func:`solver.common.files.replace_file`) where :func:`check_picture`
    allows it (raises OutputError or OSError)."""
    check_picture(path, kind, inputs)
    replace_file(path, [text])


@dataclass
class Written:
    """What :meth:`Outputs.write` did: a line for each file written or left out, and whether a
    certificate asked for could not be made (the command's exit status 1)."""

    lines: list[str] = field(default_factory=list)
    failed: bool = False


@dataclass
class Outputs:
    """The files to write for each solved position (None: not asked for); ``inputs`` are the
    input files, never overwritten; ``tree_depth`` the plies of the DOT tree."""

    dot: str | None = None
    svg: str | None = None
    certificate: str | None = None
    thermograph: str | None = None
    tree_depth: int = DEFAULT_TREE_DEPTH
    inputs: Sequence[str] = ()

    @property
    def asked(self) -> bool:
        return any((self.dot, self.svg, self.certificate, self.thermograph))

    def check(self, count: int) -> None:
        """Every file the ``count`` positions may need (FILE, FILE-2, ...), checked before any is
        written: raises OutputError for the first that may not be written."""
        for path, kind in ((self.dot, "dot"), (self.svg, "svg"), (self.certificate, "certificate"),
                           (self.thermograph, "svg")):
            for k in range(1, count + 1):
                if path:
                    check_picture(numbered(path, k), kind, self.inputs)

    def write(self, report: Report, analyzer: Analyzer, k: int) -> Written:
        """The files of the k-th position (k >= 1) from its report (solved with ``certify`` for a
        certificate, ``value`` for a thermograph) and the analyzer that solved it. Raises
        OutputError (or OSError) for a file that cannot be written."""
        done = Written()
        entry = report.entry
        where = f"{entry.source}:{entry.line}"
        if self.certificate is not None:
            if report.certificate_error is not None:
                done.lines.append(f"{where}: no certificate: {report.certificate_error}")
                done.failed = True
            elif not report.claims:
                done.lines.append(f"{where}: no certificate: no bound narrower than the widest was proved")
            else:
                target = numbered(self.certificate, k)
                check_picture(target, "certificate", self.inputs)
                certificate.write(target, report.claims)
                n = len(report.claims)
                done.lines.append(f"wrote {target} ({n} bound{'s' if n != 1 else ''}, "
                                  f"{sum(len(c.strategy) for c in report.claims):,} positions of strategy)")
        if (self.dot or self.svg) and not all(s.exact for s in report.sides):  # a skipped summary is no matter
            done.lines.append(f"{where}: no picture: the position is not solved exactly")
        elif self.dot or self.svg:
            side = report.sides[0]
            root = side.position
            before = entry.last_move if entry.position.turn == root.turn else None
            for path, kind, make in ((self.dot, "dot", lambda: game_tree_dot(analyzer, root, self.tree_depth)),
                                     (self.svg, "svg", lambda: side_svg(analyzer, side, before, PICTURE_SECONDS))):
                if path:
                    target = numbered(path, k)
                    write_output(target, make(), kind, self.inputs)
                    done.lines.append(f"wrote {target}")
        if self.thermograph:
            if report.game_value is None:
                done.lines.append(f"{where}: no thermograph: {report.game_value_note}")
            else:
                target = numbered(self.thermograph, k)
                write_output(target, report.game_value.thermograph_svg(), "svg", self.inputs)
                done.lines.append(f"wrote {target}")
        return done
