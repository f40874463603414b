"""Tablebases inside the search, compiled: the exact composite score of a position the tables hold.

The search engines (:mod:`.search`, :mod:`.dfpn`) probe the tablebases of their board at
their leaves, as chess engines probe Syzygy: a position with at most ``tb_max`` empty
squares is scored at once with its exact value and depth, and searched no further.

The tables travel as one tuple, ``tb`` = (ix, codes, toff, tperm, topt):

- ``ix``: the dense index of the table's board (:class:`solver.tables.probe.DenseIndex`,
  :mod:`.dense`), which numbers a position from the mover's side (colour inversion and
  the board's symmetries folded in);
- ``codes``: the stored codes of tiers 0 .. ``tb_max``, one after the other, and
  ``toff[e]`` where tier e starts (``(value + 32) << 10 | depth``, :mod:`.tier_kernels`);
- ``tperm``: when the tables are those of the board's transpose (5 x 4 from 4 x 5), the
  square map into the table's board as byte images (``tperm[b, v]``, as
  :func:`.kernels.transform` reads them);
- ``topt`` (int64): ``tb_max`` (-1: no tables, nothing is probed), whether to map the
  squares through ``tperm``, and the bytes of a board word.

A stored value is the mover's exact margin under the classic rules and its depth SPEC
section 4's, so the composite score (:mod:`solver.common.scores`) is ``v * M - d`` for a win,
``v * M + d`` for a loss and 0 for a draw (finite or by infinite play): exactly the score
the search would find below the node. The callers probe only under the classic rules,
which have no counter (under ``uai`` the halfmove clock can end a game the table wins,
and ``cs61b`` and ``jump3`` are other games).

Kernels take and return plain arrays and integers.
"""

import numpy as np
from numba import njit

from solver.common import scores

from .dense import index_of
from .kernels import transform
from .tier_kernels import DEPTH_BITS, DEPTH_INF, VALUE_BIAS

M = np.int64(scores.M)

# topt slots
T_MAX, T_TRANSPOSE, T_NBYTES = range(3)
NTOPT = 3


@njit(cache=True)
def table_score(m, t, tb):
    """The mover's composite score of position (m, t) from the tables ``tb`` (the caller has
    checked that its empty squares are at most ``tb_max``)."""
    ix, codes, toff, tperm, topt = tb
    if topt[T_TRANSPOSE] != 0:
        nb = topt[T_NBYTES]
        m = transform(m, tperm, 0, nb)
        t = transform(t, tperm, 0, nb)
    e, i = index_of(m, t, ix)
    code = np.int64(codes[toff[e] + i])
    v = (code >> DEPTH_BITS) - VALUE_BIAS
    d = code & DEPTH_INF
    if v > 0:
        return v * M - d
    if v < 0:
        return v * M + d
    return np.int64(0)


@njit(cache=True)
def table_scores(mine, theirs, tb):
    """:func:`table_score` of many positions (for tests and the driver)."""
    out = np.empty(mine.shape[0], np.int64)
    for k in range(mine.shape[0]):
        out[k] = table_score(mine[k], theirs[k], tb)
    return out
