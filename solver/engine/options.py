"""Options with forced passes (SPEC section 5), read from a solved graph in one compiled pass.

The plain statement is :meth:`solver.solve.analysis.Analyzer.options`: a breadth-first
search from the board with ``side`` to move over ``side``'s moves, continuing
while the other side then has to pass, and keeping, for each board reached, the
first sequence found. :func:`option_closure` is the same search on bitboards, in
the same order (moves in notation order, positions in the order they are
found), with the values of the positions it meets read from the retro engine's
table instead of asked for one at a time. It also numbers the options in the
notation order of their sequences (a preorder walk of the search tree, moves in
notation order), which is the last tie-break of the best option. The analysis
tests it against the plain search on random boards.

Positions are seen from ``side``: ``m`` its pieces, ``t`` the other side's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import (
    game_status,
    gen_moves,
    grow_rows,
    next_counter,
    play,
    reaches_empty,
)
from .solved import EMPTY_SLOT, MAX_MOVES, new_table, position_value, probe_slot

OK, TOO_MANY_BOARDS, NOT_SOLVED = 0, 1, 2
# The columns of option_closure's rows of options.
OPT_NODE, OPT_MOVE, OPT_M, OPT_T, OPT_C, OPT_OVER, OPT_SIDE, OPT_VALUE, OPT_DEPTH, OPT_LEN = range(10)
OPT_COLUMNS = 10


@njit(cache=True)
def _move_rank(code, sqkey):
    """An integer in the notation order of moves (SPEC's move_order_key): the pass first, then
    by the first square of the name, a clone before the jumps that start there."""
    if code < 0:
        return np.int64(-1)
    to = code & 63
    frm = (code >> 6) - 1
    if frm < 0:
        return sqkey[to] * 65
    return sqkey[frm] * 65 + 1 + sqkey[to]


@njit(cache=True)
def _put(table, count, slot, a, b, c):
    """Put key (a, b, c) in a hash set (rows as in the retro table) at ``slot``, the empty slot
    :func:`retro.probe_slot` found for it. Returns (table, count); the table doubles when half full."""
    c32 = np.int32(c)
    table[slot, 0] = a
    table[slot, 1] = b
    table[slot, 2] = (np.uint64(c32) << np.uint64(32)) | np.uint64(count)
    count += 1
    if 2 * count > table.shape[0]:
        old = table
        table = new_table(2 * old.shape[0])
        mask = table.shape[0] - 1
        for r in range(old.shape[0]):
            if old[r, 2] != EMPTY_SLOT:
                g = probe_slot(table, mask, old[r, 0], old[r, 1], np.int32(old[r, 2] >> np.uint64(32)))
                table[g, 0] = old[r, 0]
                table[g, 1] = old[r, 1]
                table[g, 2] = old[r, 2]
    return table, count


@njit(cache=True)
def option_closure(m0, t0, c0, use_keep, keep, limit, playable, adj, jmp, reach, canon, rules, sqkey,
                   table, hstart, hk, hv, ha, hb, climit):
    """The options of the side to move in (m0, t0, c0).

    With ``use_keep``, only moves to positions worth ``keep`` to the side are followed.
    Returns (status, node_parent, node_move, opts, rank): the search tree's nodes (positions
    with the side to move again after a forced pass: node 0 is the start) by parent and move;
    a row per option (the columns OPT_*): the node it is played from, its last move, its board
    (side's pieces, the other's, as int64 bit patterns, and the counter), whether the game is
    over there, whether the side is to move there (a game over after the other side's forced
    pass) rather than the other side, its value and depth (side's view; depth INF for infinite
    play) and the length of its sequence; and each option's rank in notation order. Status
    TOO_MANY_BOARDS: more than ``limit`` positions inside the option; NOT_SOLVED: a position
    missing in the table.
    """
    node_parent = np.empty(limit + 2, np.int64)  # at most limit + 1 nodes: no growing
    node_move = np.empty(limit + 2, np.int64)
    node_m = np.empty(limit + 2, np.uint64)
    node_t = np.empty(limit + 2, np.uint64)
    node_c = np.empty(limit + 2, np.int64)
    node_level = np.empty(limit + 2, np.int64)
    node_parent[0], node_move[0], node_m[0], node_t[0], node_c[0], node_level[0] = -1, 0, m0, t0, c0, 0
    nnodes = 1
    opts = np.empty((64, OPT_COLUMNS), np.int64)
    nopts = 0
    seen = new_table(1024)
    nseen = 0
    found = new_table(1024)
    nfound = 0
    moves = np.empty(MAX_MOVES, np.int64)
    ranks = np.empty(MAX_MOVES, np.int64)
    status = OK
    head = 0
    while head < nnodes and status == OK:
        r = head
        head += 1
        m, t, c = node_m[r], node_t[r], node_c[r]
        over, _ = game_status(m, t, c, playable, reach, rules)
        if over:
            continue
        nm = gen_moves(m, t, playable, adj, jmp, moves)
        if nm == 0:
            moves[0] = -1
            nm = 1
        for i in range(nm):  # notation order (insertion sort: few moves)
            code = moves[i]
            rk = _move_rank(code, sqkey)
            j = i
            while j > 0 and ranks[j - 1] > rk:
                ranks[j] = ranks[j - 1]
                moves[j] = moves[j - 1]
                j -= 1
            ranks[j] = rk
            moves[j] = code
        for i in range(nm):
            code = moves[i]
            qm, qt = play(m, t, code, adj)  # q: the other side to move
            qc = next_counter(c, code, rules)
            qover, qscore = game_status(qm, qt, qc, playable, reach, rules)
            # A position already seen or an option already found is skipped whatever it is
            # worth, so values are looked up only for new ones.
            if not qover and (qm == 0 or not reaches_empty(qm, playable & ~(qm | qt), reach)):
                # The other side must pass: the side moves again, unless the game is then over.
                rm, rt = qt, qm
                rc = next_counter(qc, -1, rules)
                rover, rscore = game_status(rm, rt, rc, playable, reach, rules)
                if not rover:
                    slot = probe_slot(seen, seen.shape[0] - 1, rm, rt, np.int32(rc))
                    if seen[slot, 2] != EMPTY_SLOT:
                        continue
                    if use_keep:  # q is worth what r is worth: r follows by a forced pass
                        ok, u, d = position_value(table, canon, hstart, hk, hv, ha, hb, climit, qm, qt, qc)
                        if not ok:
                            status = NOT_SOLVED
                            break
                        if -u != keep:
                            continue
                    seen, nseen = _put(seen, nseen, slot, rm, rt, rc)
                    if nseen > limit:
                        status = TOO_MANY_BOARDS
                        break
                    node_parent[nnodes], node_move[nnodes] = r, code
                    node_m[nnodes], node_t[nnodes], node_c[nnodes] = rm, rt, rc
                    node_level[nnodes] = node_level[r] + 1
                    nnodes += 1
                    continue
                bm, bt, bc, bover, bside, bvalue, bdepth = rm, rt, rc, True, True, rscore, np.int64(0)
            else:
                bm, bt, bc, bover, bside, bvalue, bdepth = qt, qm, qc, qover, False, -qscore, np.int64(0)
            slot = probe_slot(found, found.shape[0] - 1, bm, bt, np.int32(bc))
            if found[slot, 2] != EMPTY_SLOT:
                continue
            if not bover:
                ok, u, d = position_value(table, canon, hstart, hk, hv, ha, hb, climit, qm, qt, qc)
                if not ok:
                    status = NOT_SOLVED
                    break
                bvalue, bdepth = -u, d
            if use_keep and bvalue != keep:
                continue
            found, nfound = _put(found, nfound, slot, bm, bt, bc)
            if nopts == opts.shape[0]:
                opts = grow_rows(opts, 2 * nopts)
            row = opts[nopts]
            row[OPT_NODE], row[OPT_MOVE], row[OPT_M], row[OPT_T], row[OPT_C] = r, code, bm, bt, bc
            row[OPT_OVER], row[OPT_SIDE], row[OPT_VALUE], row[OPT_DEPTH] = bover, bside, bvalue, bdepth
            row[OPT_LEN] = 2 * node_level[r] + 1
            nopts += 1
    # Notation order of the sequences: a preorder walk, each node's moves in notation order.
    nitems = nopts + nnodes - 1
    keys = np.empty(nitems, np.int64)
    for j in range(nopts):
        keys[j] = opts[j, OPT_NODE] * 8192 + _move_rank(opts[j, OPT_MOVE], sqkey) + 1
    for v in range(1, nnodes):
        keys[nopts + v - 1] = node_parent[v] * 8192 + _move_rank(node_move[v], sqkey) + 1
    order = np.argsort(keys)
    first = np.zeros(nnodes + 1, np.int64)
    for j in range(nitems):
        first[keys[j] // 8192 + 1] += 1
    for v in range(nnodes):
        first[v + 1] += first[v]
    ptr = first[:nnodes].copy()
    stack = np.empty(nnodes, np.int64)
    stack[0] = 0
    top = 1
    opt_rank = np.empty(nopts, np.int64)
    rank = 0
    while top > 0:
        v = stack[top - 1]
        if ptr[v] == first[v + 1]:
            top -= 1
            continue
        item = order[ptr[v]]
        ptr[v] += 1
        if item < nopts:
            opt_rank[item] = rank
            rank += 1
        else:
            stack[top] = item - nopts + 1
            top += 1
    return status, node_parent[:nnodes].copy(), node_move[:nnodes].copy(), opts[:nopts].copy(), opt_rank
