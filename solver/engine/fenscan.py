"""FEN lines read in bulk: every line of a text (bytes) classified and, when it is a plain FEN,
read into integers, with its board written back in canonical form.

A *plain* FEN here is the common case only: the board (ranks of ``xXoObBwW.-`` and runs of one or
two digits, separated by ``/``, all of one width), then optionally the side (one letter of
``xXoObBwW``), the counter (one to nine ASCII digits) and the move number (one to nine digits, not
0), separated by spaces or tabs, with nothing else on the line. Anything else (``startpos``,
``moves``, headers, comments, grids, other whitespace, non-ASCII, errors of every kind) is kind
:data:`OTHER`: the caller reads those lines with the ordinary parser (:mod:`solver.io.formats`), which
says what is wrong. A plain FEN is read exactly as :func:`solver.game.fen.read_fen` reads it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BLANK = 0   # an empty line (nothing, or a lone carriage return)
PLAIN = 1   # a plain FEN, read
OTHER = 2   # anything else: for the ordinary parser

MAX_SQUARES = 64


@njit(cache=True)
def _is_piece(c):
    return c in (120, 88, 111, 79, 98, 66, 119, 87)  # x X o O b B w W


@njit(cache=True)
def _is_x(c):
    return c in (120, 88, 98, 66)  # x X b B


@njit(cache=True)
def _read_board(data, a, b, cells):
    """Cells of the board token data[a:b] into ``cells`` (0 empty, 1 x, 2 o, 3 block), rank by rank
    from the top; returns (rows, cols) or (0, 0) when the token is not a plain board."""
    rows = 0
    cols = -1
    n = 0
    width = 0
    i = a
    while i <= b:
        c = data[i] if i < b else 47  # the end closes the last rank
        if c == 47:  # '/'
            if width == 0:
                return 0, 0
            if cols < 0:
                cols = width
            elif width != cols:
                return 0, 0
            rows += 1
            width = 0
            i += 1
            continue
        if 48 <= c <= 57:
            run = c - 48
            if i + 1 < b and 48 <= data[i + 1] <= 57:
                run = run * 10 + data[i + 1] - 48
                if i + 2 < b and 48 <= data[i + 2] <= 57:
                    return 0, 0
                i += 1
            if run == 0 or run > MAX_SQUARES or n + run > MAX_SQUARES:
                return 0, 0
            for _ in range(run):
                cells[n] = 0
                n += 1
            width += run
        elif c == 46 or c == 45:  # '.' one empty square, '-' a block
            if n >= MAX_SQUARES:
                return 0, 0
            cells[n] = 0 if c == 46 else 3
            n += 1
            width += 1
        elif _is_piece(c):
            if n >= MAX_SQUARES:
                return 0, 0
            cells[n] = 1 if _is_x(c) else 2
            n += 1
            width += 1
        else:
            return 0, 0
        i += 1
    return rows, cols


@njit(cache=True)
def _number(data, a, b):
    """The ASCII number data[a:b] (one to nine digits), or -1."""
    if b - a < 1 or b - a > 9:
        return -1
    v = 0
    for i in range(a, b):
        c = data[i]
        if c < 48 or c > 57:
            return -1
        v = v * 10 + c - 48
    return v


@njit(cache=True)
def scan(data):
    """Every line of ``data`` (uint8, split at ``\\n``): (kind, line start, line end, rows, cols,
    blocks, x, o, turn (0 x, 1 o, -1 not given), counter, move number) per line, and the
    canonical boards of the plain lines (``write_fen_board``'s text), one per plain line, each
    followed by ``\\n``. A last line without ``\\n`` counts; an empty text after the last ``\\n`` does not."""
    size = data.shape[0]
    nlines = 0
    for i in range(size):
        if data[i] == 10:
            nlines += 1
    if size > 0 and data[size - 1] != 10:
        nlines += 1
    kind = np.zeros(nlines, np.int8)
    start = np.zeros(nlines, np.int64)
    end = np.zeros(nlines, np.int64)
    shape = np.zeros((nlines, 2), np.int64)
    bits = np.zeros((nlines, 3), np.uint64)  # blocks, x, o
    fields = np.zeros((nlines, 3), np.int64)  # turn, counter, move number
    out = np.empty(size + nlines * 2 + 16, np.uint8)  # canonical boards are never longer than the line
    used = 0
    cells = np.zeros(MAX_SQUARES, np.int64)
    tok_a = np.zeros(5, np.int64)
    tok_b = np.zeros(5, np.int64)
    pos = 0
    for ln in range(nlines):
        a = pos
        while pos < size and data[pos] != 10:
            pos += 1
        b = pos
        pos += 1
        start[ln] = a
        end[ln] = b
        while b > a and data[b - 1] == 13:
            b -= 1
        if b == a:
            kind[ln] = BLANK
            continue
        kind[ln] = OTHER
        # tokens separated by spaces and tabs
        ntok = 0
        i = a
        bad = False
        while i < b:
            c = data[i]
            if c == 32 or c == 9:
                i += 1
                continue
            if ntok == 5:
                bad = True
                break
            tok_a[ntok] = i
            while i < b and data[i] != 32 and data[i] != 9:
                if data[i] < 33 or data[i] > 126:
                    bad = True
                i += 1
            tok_b[ntok] = i
            ntok += 1
        if bad or ntok == 0 or ntok > 4:
            continue
        rows, cols = _read_board(data, tok_a[0], tok_b[0], cells)
        if rows == 0 or rows * cols > MAX_SQUARES:
            continue
        # the format is told by the line (solver.game.fen.looks_like_fen): a '/' or a digit in the board
        seen = False
        for i in range(tok_a[0], tok_b[0]):
            if data[i] == 47 or 48 <= data[i] <= 57:
                seen = True
        if not seen:
            continue
        turn = -1
        counter = 0
        fullmove = 1
        if ntok > 1:
            if tok_b[1] - tok_a[1] != 1 or not _is_piece(data[tok_a[1]]):
                continue
            turn = 0 if _is_x(data[tok_a[1]]) else 1
        if ntok > 2:
            counter = _number(data, tok_a[2], tok_b[2])
            if counter < 0:
                continue
        if ntok > 3:
            fullmove = _number(data, tok_a[3], tok_b[3])
            if fullmove < 1:
                continue
        blocks = np.uint64(0)
        x = np.uint64(0)
        o = np.uint64(0)
        for k in range(rows * cols):
            r = rows - 1 - k // cols
            sq = np.uint64(r * cols + k % cols)
            if cells[k] == 1:
                x |= np.uint64(1) << sq
            elif cells[k] == 2:
                o |= np.uint64(1) << sq
            elif cells[k] == 3:
                blocks |= np.uint64(1) << sq
        # the canonical board: ranks from the top, runs of empty squares as numbers
        for r in range(rows):
            if r:
                out[used] = 47
                used += 1
            run = 0
            for f in range(cols):
                cell = cells[r * cols + f]
                if cell == 0:
                    run += 1
                    continue
                if run:
                    if run >= 10:
                        out[used] = 48 + run // 10
                        used += 1
                    out[used] = 48 + run % 10
                    used += 1
                    run = 0
                out[used] = 120 if cell == 1 else 111 if cell == 2 else 45
                used += 1
            if run:
                if run >= 10:
                    out[used] = 48 + run // 10
                    used += 1
                out[used] = 48 + run % 10
                used += 1
        out[used] = 10
        used += 1
        kind[ln] = PLAIN
        shape[ln, 0] = rows
        shape[ln, 1] = cols
        bits[ln, 0] = blocks
        bits[ln, 1] = x
        bits[ln, 2] = o
        fields[ln, 0] = turn
        fields[ln, 1] = counter
        fields[ln, 2] = fullmove
    return kind, start, end, shape, bits, fields, out[:used]
