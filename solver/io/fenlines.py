"""Files of FEN lines read in bulk: one kernel call reads every line into arrays.

A position file of FEN lines separated by blank lines (what ``batch`` reads most often, SPEC
section 7) is read by :func:`solver.engine.fenscan.scan` into integers, with no Python object per
position; the lines that are not plain FEN (``startpos``, a grid row, an error) are read by the
ordinary parser, :func:`solver.io.formats.read_line`, so every message stays the ordinary one. A
file with headers, comments, blocks of several lines or anything else unusual is not read here
(:func:`read_fen_lines` returns None): :func:`solver.io.formats.read_file` reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver import engine
from solver.common.work import scanned
from solver.game.board import Board
from solver.game.rules import CLASSIC, Rules
from solver.io.epd import looks_like_epd
from solver.io.formats import (
    Entry,
    PositionFormatError,
    is_header_or_comment,
    read_line,
)
from solver.io.pgn import looks_like_pgn

BOM = b"\xef\xbb\xbf"


@dataclass
class FenLines:
    """The positions of one file of one-line positions, in order.

    ``items[j]`` is an int k for a plain FEN (``at[k]`` is j) (its facts are row k of the arrays) or the
    :class:`Entry` / :class:`PositionFormatError` of any other line. Per plain FEN: ``line``
    (1-based), ``rows``, ``cols``, ``blocks``, ``x``, ``o`` (bit sets as uint64), ``turn`` (0 x, 1
    o, -1 not given), ``counter``, ``fullmove``, ``board_fen`` (the canonical board, as
    :func:`solver.game.fen.write_fen_board` writes it)."""

    source: str
    fmt: str
    rules: Rules
    text: str
    starts: np.ndarray
    ends: np.ndarray
    items: list
    line: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    blocks: np.ndarray
    x: np.ndarray
    o: np.ndarray
    turn: np.ndarray
    counter: np.ndarray
    fullmove: np.ndarray
    board_fen: list[str]
    at: np.ndarray  # the place in ``items`` of each plain FEN

    def entry(self, k: int) -> Entry | PositionFormatError:
        """The ordinary reading of plain FEN k (:func:`solver.io.formats.read_line`)."""
        n = int(self.line[k])
        return read_line(self._text(n), n, self.source, self.fmt, self.rules)

    def _text(self, n: int) -> str:
        return self.text[self.starts[n - 1]:self.ends[n - 1]].rstrip("\r")

    def boards(self) -> dict[tuple[int, int, int], Board]:
        """The distinct boards of the plain FENs, by (rows, cols, blocks)."""
        out = {}
        size = self.rows * 128 + self.cols
        for rc in np.unique(size).tolist():
            for blocks in np.unique(self.blocks[size == rc]).tolist():
                out[(rc // 128, rc % 128, blocks)] = Board(rc // 128, rc % 128, blocks)
        return out


def read_fen_lines(path: str, fmt: str = "auto", rules: Rules = CLASSIC) -> FenLines | None:
    """The positions of a file of one-line positions separated by blank lines, read in bulk; None
    when the file is anything else (unreadable, binary, PGN, EPD, headers, comments, a block of several
    lines, a line of spaces): :func:`solver.io.formats.read_file` reads those as always."""
    if fmt not in ("auto", "fen"):
        return None
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    if data.startswith(BOM):
        data = data[len(BOM):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    scanned(3 * len(data))  # (the null byte, the decoding, isascii)
    if looks_like_pgn(text) or looks_like_epd(text) or not text.isascii():
        return None  # (offsets in bytes are offsets in the text only for ASCII)
    scanned(2 * len(data))  # (the kernel's one pass, and the lines' offsets and kinds after it)
    kind, starts, ends, shape, bits, fields, boards = engine.fenscan.scan(np.frombuffer(data, np.uint8))
    blank = kind == engine.fenscan.BLANK
    if blank.all():
        return None
    filled = ~blank
    if (filled[1:] & filled[:-1]).any():  # a block of several lines
        return None
    other = np.flatnonzero(kind == engine.fenscan.OTHER)
    other_texts = [text[starts[j]:ends[j]].rstrip("\r") for j in other]
    scanned(sum(2 * len(t) for t in other_texts))
    if any(not t.strip() or is_header_or_comment(t) for t in other_texts):
        return None
    plain = np.flatnonzero(kind == engine.fenscan.PLAIN)
    items: list = []
    k = 0
    o = 0
    # every filled line is one block: in order, plain ones by number, the others read now
    kinds = kind.tolist()
    at = []
    for j in np.flatnonzero(filled).tolist():
        if kinds[j] == engine.fenscan.PLAIN:
            at.append(len(items))
            items.append(k)
            k += 1
        else:
            items.append(read_line(other_texts[o], j + 1, path, fmt, rules))
            o += 1
    board_fen = boards.tobytes().decode("ascii").split("\n")[:-1]
    return FenLines(path, fmt, rules, text, starts, ends, items, plain + 1, shape[plain, 0], shape[plain, 1],
                    bits[plain, 0], bits[plain, 1], bits[plain, 2], fields[plain, 0], fields[plain, 1],
                    fields[plain, 2], board_fen, np.array(at, np.int64))
