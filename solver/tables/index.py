"""The tables' index: every position of a board numbered, tier by tier, up to symmetry.

:class:`DenseIndex` numbers every position of a board (every arrangement of the mover's
pieces, the other side's and empty squares on the playable squares), up to the board's
symmetries; colour inversion is folded in by reading pieces from the mover's side. A
position's tier is its number of empty squares. The arrays built here are what the
compiled index reads (:mod:`solver.engine.dense`, which says how a number is made);
:func:`dense_index` builds a board's index once per process.

:class:`TableError` is raised by every table module (:mod:`solver.tables.storage`,
:mod:`solver.tables.probe`, :mod:`solver.tables.build`, :mod:`solver.tables.checks`); it is
defined here, in the module the others all import, starting with a board too large to
number.
"""

from __future__ import annotations

import functools
import hashlib
import json
from functools import cached_property
from math import comb

import numpy as np

from solver import engine
from solver.game.bitboards import board_arrays, mover_bits
from solver.game.board import Board
from solver.tiers.game import TierError
from solver.game.rules import CLASSIC, Position

MAX_S = 8           # squares in the symmetry-reduced part of the index


class TableError(TierError):
    """A table file or directory that cannot be used, or a board no table can hold (says which
    and why)."""


# -- the index -------------------------------------------------------------------------------------

def _orbits(board: Board) -> list[list[int]]:
    seen, out = set(), []
    for sq in range(board.size):
        if board.is_block(sq) or sq in seen:
            continue
        orbit = sorted({perm[sq] for perm in board.symmetries})
        seen.update(orbit)
        out.append(orbit)
    return out


def _byte_tables(squares: list[int], nbytes: int) -> np.ndarray:
    """t[b, v]: the local bits (positions in ``squares``) of board byte b with value v."""
    where = {sq: i for i, sq in enumerate(squares)}
    t = np.zeros((max(1, nbytes), 256), np.uint64)
    for b in range(nbytes):
        for v in range(256):
            word = 0
            for k in range(8):
                if v >> k & 1 and 8 * b + k in where:
                    word |= 1 << where[8 * b + k]
            t[b, v] = word
    return t


@functools.cache
def _byte_pext_pdep() -> np.ndarray:
    """pext and pdep of a byte under a byte mask (rows 0 and 1, index mask * 256 + byte): the
    same for every board, so made once per process."""
    bits8 = np.zeros((2, 256, 256), np.uint8)
    v = np.arange(256)
    for mb in range(256):   # (by whole rows of 256 bytes: a loop over every pair took a second)
        for j, i in enumerate(i for i in range(8) if mb >> i & 1):   # mask bit i is the j-th one
            bits8[0, mb] |= (((v >> i) & 1) << j).astype(np.uint8)
            bits8[1, mb] |= (((v >> j) & 1) << i).astype(np.uint8)
    return bits8.reshape(2, 65536)


class DenseIndex:
    """The perfect index of a board's positions (see :mod:`solver.engine.dense`)."""

    def __init__(self, board: Board) -> None:
        n = board.playable.bit_count()
        if n > 31:
            raise TableError(f"a {board.rows} x {board.cols} board has {n} playable squares; tables hold at most 31")
        self.board = board
        self.tables = board_arrays(board, CLASSIC)
        S: list[int] = []
        for orbit in _orbits(board):
            if len(S) + len(orbit) <= MAX_S:
                S += orbit
        R = [sq for sq in range(board.size) if not board.is_block(sq) and sq not in S]
        self.S, self.R, self.n = S, R, n
        s, r = len(S), len(R)
        nbytes = (board.size + 7) // 8
        rbytes = max(1, (r + 7) // 8)
        sbyte = _byte_tables(S, nbytes)
        rbyte = np.concatenate([_byte_tables([perm.index(sq) for sq in R], nbytes) for perm in board.symmetries])
        rexp = np.zeros((rbytes, 256), np.uint64)
        for b in range(rbytes):
            for v in range(256):
                word = 0
                for k in range(8):
                    if v >> k & 1 and 8 * b + k < r:
                        word |= 1 << R[8 * b + k]
                rexp[b, v] = word
        tern = np.zeros(256, np.int64)
        for v in range(256):
            tern[v] = sum(3 ** i for i in range(8) if v >> i & 1)
        # classes of arrangements of S: the least code among the images under the symmetries
        pos = {sq: i for i, sq in enumerate(S)}
        maps = [[pos[perm[sq]] for sq in S] for perm in board.symmetries]
        ncode = 3 ** s
        digits = np.zeros((ncode, s), np.int64)
        for i in range(s):
            digits[:, i] = (np.arange(ncode) // 3 ** i) % 3
        images = np.zeros((len(maps), ncode), np.int64)
        for g, mp in enumerate(maps):
            for i in range(s):
                images[g] += digits[:, i] * 3 ** mp[i]
        rep = images.min(axis=0)
        symmask = np.zeros(ncode, np.int64)
        for g in range(len(maps)):
            symmask |= (images[g] == rep).astype(np.int64) << g
        # classes numbered by (empty squares in S, least code): a tier's classes come in groups
        codes = np.unique(rep)
        es = (digits[codes] == 0).sum(axis=1)
        order = np.lexsort((codes, es))
        class_code = codes[order]
        class_es = es[order]
        nclass = class_code.shape[0]
        class_of = np.zeros(ncode, np.int64)
        class_of[class_code] = np.arange(nclass)
        class_of = class_of[rep]
        cstart = np.searchsorted(class_es, np.arange(s + 2)).astype(np.int64)
        cd = digits[class_code]
        class_m = np.zeros(nclass, np.uint64)
        class_t = np.zeros(nclass, np.uint64)
        for i in range(s):
            class_m |= np.where(cd[:, i] == 1, np.uint64(1 << S[i]), np.uint64(0))
            class_t |= np.where(cd[:, i] == 2, np.uint64(1 << S[i]), np.uint64(0))
        # R parts: the empty set's rank among the sets of its size (colex), by tables
        masks = np.arange(1 << r, dtype=np.int64)
        pop = np.zeros(1 << r, np.int64)
        for i in range(r):
            pop += (masks >> i) & 1
        combs = np.zeros(r + 2, np.int64)
        combs[1:] = np.cumsum([comb(r, j) for j in range(r + 1)])
        unrank = masks[np.lexsort((masks, pop))].astype(np.uint64)  # colex = numeric order
        rank = np.zeros(1 << r, np.int64)
        rank[unrank.astype(np.int64)] = np.arange(1 << r) - combs[pop[unrank.astype(np.int64)]]
        offset = np.zeros((n + 1, nclass + 1), np.int64)
        group = np.zeros((n + 1, s + 2), np.int64)
        for e in range(n + 1):
            for c in range(nclass):
                er = e - int(class_es[c])
                size = comb(r, er) << (r - er) if 0 <= er <= r else 0
                offset[e, c + 1] = offset[e, c] + size
            group[e] = offset[e, cstart]
        bits8 = _byte_pext_pdep()
        meta = np.array([nbytes, r, nclass, rbytes], np.int64)
        self.offset = offset
        self.arrays = (np.uint64(board.playable), sbyte, rbyte, rexp, tern, class_of, symmask, class_m, class_t,
                       class_code, offset, rank, unrank, combs, group, cstart, bits8, self.tables.canon[0], meta)

    def tier_size(self, e: int) -> int:
        return int(self.offset[e, -1])

    @property
    def size(self) -> int:
        return int(self.offset[:, -1].sum())

    @cached_property
    def fingerprint(self) -> str:
        """Identifies the numbering: tables with another fingerprint cannot be read with this index."""
        h = hashlib.sha256(json.dumps({"S": self.S, "R": self.R, "n": self.n}).encode())
        h.update(self.offset.tobytes())
        return h.hexdigest()[:16]

    def number(self, position: Position) -> tuple[int, int]:
        """(tier, number) of a position."""

        m, t = mover_bits(position)
        e, i = engine.dense.index_of(np.uint64(m), np.uint64(t), self.arrays)
        return int(e), int(i)

    def numbers(self, mine: np.ndarray, theirs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(tiers, numbers) of many positions given as the mover's and the other side's pieces."""

        return engine.dense.probe_numbers(mine.astype(np.uint64), theirs.astype(np.uint64), self.arrays)

    def position(self, e: int, i: int) -> tuple[int, int, bool]:
        """(mover's pieces, other pieces, canonical) of number i of tier e."""

        m, t, sure = engine.dense.position_of(e, i, self.arrays)
        return int(m), int(t), bool(sure or engine.dense.is_canonical(e, i, np.uint64(m), np.uint64(t), self.arrays))


_INDEXES: dict[tuple[int, int, int], DenseIndex] = {}


def dense_index(board: Board) -> DenseIndex:
    """The index of a board, built once per process."""
    key = (board.rows, board.cols, board.blocks)
    if key not in _INDEXES:
        _INDEXES[key] = DenseIndex(board)
    return _INDEXES[key]

