"""A side's options with forced passes (SPEC section 5), read from the retro engine's solution.

The plain statement is :meth:`solver.solve.analysis.Analyzer.options`; the compiled
pass (:func:`solver.engine.options.option_closure`, whose docstring says how it
matches the plain one) reads every option of a side from a solved graph at once.
:class:`OptionArrays` is what it returns, as arrays.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

import numpy as np

from solver import engine
from solver.game.bitboards import BoardArrays, code_move, mover_bits
from solver.game.board import Board
from solver.game.rules import Move, Position, Side, X


class OptionArrays(NamedTuple):
    """The options of one side from a board, as arrays: one entry per option, values and depths
    from that side's view (depths as floats, inf for infinite play). ``again``: the value of the option's board
    with the side to move again (the option's own value when the game is over there)."""

    side: Side
    board: Position  # the options start from it
    mine: np.ndarray
    theirs: np.ndarray
    counter: np.ndarray
    over: np.ndarray     # the game is over at the option
    on_move: np.ndarray  # the side is to move at the option (a game over after a forced pass)
    value: np.ndarray
    depth: np.ndarray
    length: np.ndarray
    rank: np.ndarray
    again: np.ndarray
    node_parent: np.ndarray
    node_move: np.ndarray
    opt_node: np.ndarray
    opt_move: np.ndarray

    @property
    def count(self) -> int:  # type: ignore[override]  # the number of options, not tuple.count
        return self.value.shape[0]

    def moves(self, j: int) -> list[Move]:
        """The moves of option j's sequence (a :class:`solver.game.rules.Move` list)."""
        codes = [int(self.opt_move[j])]
        v = int(self.opt_node[j])
        while v > 0:
            codes += [-1, int(self.node_move[v])]
            v = int(self.node_parent[v])
        return [code_move(c) for c in reversed(codes)]


class SolvedGraph(Protocol):
    """What :func:`options_of` reads from a solved graph (:class:`solver.oracles.retro.RetroOracle`)."""

    tables: BoardArrays
    table: np.ndarray

    @property
    def entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.int64]: ...

    def indices(self, qm: np.ndarray, qt: np.ndarray, solve: bool = True) -> np.ndarray: ...

    def values(self, qm: np.ndarray, qt: np.ndarray, qc: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


def square_keys(board: Board) -> np.ndarray:
    """For each square, its place in notation order (file, then rank)."""
    return np.array([board.file_of(sq) * board.rows + board.rank_of(sq) for sq in range(board.size)] or [0],
                    np.int64)


def options_of(oracle: SolvedGraph, board: Position, side: Side, keep: int | None,
               limit: int = 100_000) -> OptionArrays:
    """The options of ``side`` from ``board`` read from a :class:`~solver.oracles.retro.RetroOracle`
    (positions it has not solved yet are solved first). ``keep``: X's view, as in
    :meth:`solver.solve.analysis.Analyzer.options`. Raises RuntimeError past ``limit`` positions."""
    start = board.replace(turn=side)
    m, t = mover_bits(start)
    oracle.indices(np.array([m], np.uint64), np.array([t], np.uint64))  # solved first, when not yet
    sign = 1 if side == X else -1
    T = oracle.tables
    out = engine.options.option_closure(np.uint64(m), np.uint64(t), np.int64(start.counter), keep is not None,
                         np.int64(0 if keep is None else sign * keep), limit, T.playable, T.adj, T.jmp, T.reach,
                         T.canon, T.rules, square_keys(board.board), oracle.table, *oracle.entries)
    status, node_parent, node_move, opts, rank = out
    if status == engine.options.TOO_MANY_BOARDS:
        raise RuntimeError(f"more than {limit:,} boards inside one option")
    if status == engine.options.NOT_SOLVED:
        raise RuntimeError("an option reached a position that was not solved")
    om, ot = opts[:, engine.options.OPT_M].view(np.uint64), opts[:, engine.options.OPT_T].view(np.uint64)
    oc, over, value = opts[:, engine.options.OPT_C], opts[:, engine.options.OPT_OVER].astype(bool), opts[:, engine.options.OPT_VALUE]
    again = value.copy()
    if (~over).any():
        again[~over] = oracle.values(om[~over], ot[~over], oc[~over])[0]
    depth = np.where(opts[:, engine.options.OPT_DEPTH] >= engine.solved.INF, np.inf, opts[:, engine.options.OPT_DEPTH].astype(float))
    return OptionArrays(side, board, om, ot, oc, over, opts[:, engine.options.OPT_SIDE].astype(bool), value, depth,
                        opts[:, engine.options.OPT_LEN], rank, again, node_parent, node_move, opts[:, engine.options.OPT_NODE], opts[:, engine.options.OPT_MOVE])
