"""Boards and rules as bit sets and arrays: what the compiled kernels are given.

Everything a kernel (:mod:`solver.engine`) needs about the board and the rules
travels as plain numpy arrays and integers (:class:`BoardArrays`), built here from
:class:`solver.game.board.Board` and :class:`solver.game.rules.Rules`; positions travel as
``(mine, theirs, counter)``, the mover's pieces first (:func:`mover_bits`), and
moves as integer codes (:func:`move_code`, :func:`code_move`). No numba here.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.game.board import Board
from solver.game.rules import (
    COUNTER_HALFMOVE,
    COUNTER_JUMPS,
    COUNTER_PLIES,
    PASS,
    Move,
    Position,
    Rules,
    X,
)

# Counter kinds as the kernels see them.
COUNTER_KINDS = {None: 0, COUNTER_HALFMOVE: 1, COUNTER_JUMPS: 2, COUNTER_PLIES: 3}


@dataclass(frozen=True)
class BoardArrays:
    """A board's geometry and a rule set as the kernels' arrays (not a tablebase: those are
    :mod:`solver.tables`; nor the search's transposition table: :mod:`solver.engine.ttable`).

    ``adj[sq]``/``jmp[sq]``: squares a clone/jump reaches from sq (non-blocks);
    ``reach = adj | jmp``; ``symperm[s]``/``syminv[s]``: the square permutation of
    symmetry ``s`` and its inverse. ``rules``: int64[4] = wipeout_ends, counter kind,
    limit, limit_is_draw.

    ``canon`` = (symbytes, packbytes, meta) is what :func:`solver.engine.kernels.canonical` needs:
    ``symbytes[s * nbytes + b, v]`` is the image under symmetry ``s`` of byte ``b`` of a
    square set having value ``v``; on boards of at most 32 squares ``packbytes`` does the
    same for the word ``mine << n | theirs`` (both sides at once); ``meta`` = [number of
    symmetries, nbytes, npack (0 when not packed), n].
    """

    board: Board
    rules_obj: Rules
    playable: np.uint64
    adj: np.ndarray
    jmp: np.ndarray
    reach: np.ndarray
    symperm: np.ndarray
    syminv: np.ndarray
    canon: tuple
    rules: np.ndarray

    @property
    def nsym(self) -> int:
        return self.symperm.shape[0]


def board_arrays(board: Board, rules: Rules, symmetry: bool = True) -> BoardArrays:
    n = board.size
    adj = np.array(board.neighbours, dtype=np.uint64)
    jmp = np.array(board.jump_targets(rules.jump3), dtype=np.uint64)
    perms = board.symmetries if symmetry else board.symmetries[:1]
    symperm = np.zeros((len(perms), 64), dtype=np.int64)
    syminv = np.zeros((len(perms), 64), dtype=np.int64)
    for s, perm in enumerate(perms):
        for sq in range(n):
            symperm[s, sq] = perm[sq]
            syminv[s, perm[sq]] = sq
    nbytes = (n + 7) // 8
    symbytes = _byte_images(perms, n, nbytes, lambda perm, bit: perm[bit])  # (only bits below n are asked)
    if 2 * n <= 64:  # both sides in one word: theirs in the low n bits, mine above
        npack = (2 * n + 7) // 8
        packbytes = _byte_images(perms, 2 * n, npack,
                                 lambda perm, bit: perm[bit] if bit < n else n + perm[bit - n])
    else:
        npack = 0
        packbytes = np.zeros((1, 256), dtype=np.uint64)
    meta = np.array([len(perms), nbytes, npack, n], dtype=np.int64)
    rule_arr = np.array([int(rules.wipeout_ends), COUNTER_KINDS[rules.counter], rules.limit,
                         int(rules.limit_is_draw)], dtype=np.int64)
    return BoardArrays(board, rules, np.uint64(board.playable), adj, jmp, adj | jmp, symperm, syminv,
                  (symbytes, packbytes, meta), rule_arr)


def _byte_images(perms: Sequence[Sequence[int]], nbits: int, nchunks: int,
                 image: Callable[[Sequence[int], int], int]) -> np.ndarray:
    """out[s * nchunks + b, v]: the bits that byte b with value v maps to under symmetry s."""
    out = np.zeros((len(perms) * nchunks, 256), dtype=np.uint64)
    for s, perm in enumerate(perms):
        for b in range(nchunks):
            for v in range(256):
                word = 0
                for k in range(8):
                    bit = 8 * b + k
                    if v >> k & 1 and bit < nbits:
                        word |= 1 << image(perm, bit)
                out[s * nchunks + b, v] = word
    return out


def mover_bits(position: Position) -> tuple[int, int]:
    """(pieces of the side to move, pieces of the other side)."""
    return (position.x, position.o) if position.turn == X else (position.o, position.x)


def large_zeros(shape: int | tuple[int, ...], dtype: npt.DTypeLike) -> np.ndarray:
    """A zeroed array for a large table that is probed at random (the transposition table):
    on Linux it asks for transparent huge pages, which saves most of the TLB misses;
    elsewhere, or for small tables, it is an ordinary array."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if nbytes < (8 << 20) or advice is None:
        return np.zeros(shape, dtype)
    try:
        region = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        region.madvise(advice)
    except (OSError, ValueError, AttributeError):
        return np.zeros(shape, dtype)
    return np.frombuffer(region, dtype=dtype).reshape(shape)  # anonymous pages are zero


def move_code(move: Move) -> int:
    """The kernels' code of a :class:`solver.game.rules.Move`: -1 a pass, ``to`` a clone,
    ``(frm + 1) * 64 + to`` a jump."""
    if move.is_pass:
        return -1
    return move.to if move.is_clone else (move.frm + 1) * 64 + move.to


def code_move(code: int) -> Move:
    """The :class:`solver.game.rules.Move` of a kernel move code."""
    if code < 0:
        return PASS
    if code < 64:
        return Move(-1, code)
    return Move(code // 64 - 1, code & 63)


# The names before, while callers under way move to the new ones.
Tables = BoardArrays
build_tables = board_arrays
