"""Probing tables: the positions of a directory's tables answered at once.

- :class:`Tablebase` opens a directory (python-chess's Syzygy module is the model):
  ``probe(position)`` raises :class:`MissingTableError` when the tables do not cover
  the position, ``get(position, default)`` returns the default instead; ``answers`` and
  ``answer_arrays`` read the preferred move from the children's stored codes too.
- :class:`TableOracle` answers the analysis (``solve``, ``batch``, ``verify``) from them.
- :func:`decode` reads a stored code (the encoding: :mod:`solver.tables.storage`).

The other table modules: the index (:mod:`solver.tables.index`), Ataxx as a game of the tier
solver (:mod:`solver.tables.game`), the files (:mod:`solver.tables.storage`), building
(:mod:`solver.tables.build`), checks against the engines and the moves
(:mod:`solver.tables.checks`).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence, TypeVar

import numpy as np

from solver import engine
from solver.common.limits import total_memory
from solver.game.bitboards import mover_bits
from solver.game.board import Board
from solver.game.rules import CLASSIC, PASS, Move, Position, Rules, X
from solver.io.formats import Entry
from solver.oracles.oracle import Oracle
from solver.tables.index import TableError, dense_index
from solver.tables.storage import SUFFIX, TierFile, board_name, tier_path

NOT_FINAL_CODE = 1000  # the kernels' NOT_FINAL

D = TypeVar("D")
BoardKey = tuple[int, int, int]  # (rows, cols, blocks)
FileKey = tuple[int, int, int, int]  # (rows, cols, blocks, tier)


class MissingTableError(KeyError):
    """No table covers the position (another board, rules, or a tier not built)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "no table"


# -- probing ---------------------------------------------------------------------------------------

def decode_many(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values for the side to move, depths) of stored codes, as int64 arrays: the one reader of
    the tier code format (:mod:`solver.engine.tier_kernels`); a depth equal to
    :func:`infinite_depth` is a draw by infinite play."""
    tk = engine.tier_kernels
    codes = np.asarray(codes).astype(np.int64)
    return (codes >> tk.DEPTH_BITS) - tk.VALUE_BIAS, codes & tk.DEPTH_INF


def infinite_depth() -> int:
    """The depth :func:`decode_many` gives a draw by infinite play."""
    return int(engine.tier_kernels.DEPTH_INF)


def decode(code: int) -> tuple[int, float]:
    """(value for the side to move, depth or math.inf) of a stored code."""
    return _decoded(np.array([code], np.int64))[0]


def _decoded(codes: np.ndarray) -> list[tuple[int, float]]:
    """(value, depth or math.inf) of each code, as Python numbers."""
    values, depths = decode_many(codes)
    inf = infinite_depth()
    return [(v, math.inf if d == inf else d) for v, d in zip(values.tolist(), depths.tolist())]


@dataclass
class Probed:
    """What the tables say about one position of an entry (:meth:`Tablebase.probe_entries`):
    ``value`` from X's side and ``depth`` (None: a draw by infinite play), or the ``error`` that
    says why the tables do not cover it."""

    entry: Entry
    position: Position
    value: int | None = None
    depth: int | None = None
    error: MissingTableError | None = None

    def text(self) -> str:
        """``FEN  +3  depth 7`` (``depth infinite`` for a draw by infinite play)."""
        depth = "infinite" if self.depth is None else self.depth
        return f"{self.position.fen()}  {self.value:+d}  depth {depth}"

    def to_json(self) -> dict:
        """The ``tables probe --json`` object: source, line, fen, value, depth, over."""
        return {"source": self.entry.source, "line": self.entry.line, "fen": self.position.fen(), "value": self.value,
                "depth": self.depth, "over": self.position.result() is not None}


class Tablebase:
    """The tables of a directory, by board (python-chess's ``open_tablebase`` is the model).

    ``probe(p)`` -> (value for the side to move, depth or math.inf), raising
    :class:`MissingTableError` when no table covers p; ``get(p, default)`` returns the
    default instead. Every file's header is checked when the directory is opened; a tier's
    checksum is checked when it is first read."""

    def __init__(self, directory: str | Path, cache_bytes: int = 1 << 30, search_bytes: int | None = None) -> None:
        self.directory = Path(directory)
        if not self.directory.is_dir():
            raise TableError(f"{self.directory}: no such directory")
        self.files: dict[FileKey, TierFile] = {}
        self.boards: dict[BoardKey, Board] = {}
        for path in sorted(self.directory.glob(f"*{SUFFIX}")):
            f = TierFile(path)
            if f.rules != CLASSIC.name:
                raise TableError(f"{path}: a table for the {f.rules} rules; only classic tables exist")
            key = (f.board.rows, f.board.cols, f.board.blocks)
            ix = dense_index(f.board)
            if f.fingerprint != ix.fingerprint:
                raise TableError(f"{path}: numbered by another index ({f.fingerprint}, expected {ix.fingerprint})")
            if f.tier > ix.n or f.entries != ix.tier_size(f.tier):
                raise TableError(f"{path}: a damaged header ({f.entries:,} entries; tier {f.tier} of "
                                 f"{board_name(f.board)} has {ix.tier_size(f.tier) if f.tier <= ix.n else 0:,})")
            if path.name != tier_path(self.directory, f.board, f.tier).name:
                raise TableError(f"{path}: holds tier {f.tier} of {board_name(f.board)}, which is named "
                                 f"{tier_path(self.directory, f.board, f.tier).name} (a renamed file)")
            self.files[key + (f.tier,)] = f
            self.boards[key] = f.board
        if not self.files:
            raise TableError(f"{self.directory}: no table files (*{SUFFIX})")
        self.cache_bytes = cache_bytes
        # the tiers the search reads whole (:meth:`search_arrays`): a quarter of the machine, at least 1 GiB
        self.search_bytes = search_bytes if search_bytes is not None else max(cache_bytes, total_memory() // 4)
        self._blocks: OrderedDict[tuple[FileKey, int], np.ndarray] = OrderedDict()  # (file, block) -> codes
        self._whole: dict[FileKey, np.ndarray] = {}  # codes of whole tiers
        self._verified: set[FileKey] = set()
        self._search_arrays: dict[tuple[int, int, int, int | None], tuple | None] = {}  # search_arrays, per board
        self._search_asked: dict[tuple[int, int, int, int | None], int] = {}  # the tiers asked for when it was made
        self.probes = 0

    def describe_boards(self) -> str:
        return ", ".join(sorted(board_name(b) for b in self.boards.values()))

    def _find_table_board(self, board: Board) -> tuple[Board | None, tuple[int, ...] | None]:
        """(the board whose tables answer for ``board``, the square map into it or None): the
        board itself, or its transpose (a 5 x 4 board is a 4 x 5 board turned a quarter, and a
        reflection in the diagonal keeps every distance)."""
        if (board.rows, board.cols, board.blocks) in self.boards:
            return self.boards[(board.rows, board.cols, board.blocks)], None
        perm = tuple((sq % board.cols) * board.rows + sq // board.cols for sq in range(board.size))
        blocks = Board.map_mask(perm, board.blocks)
        if (board.cols, board.rows, blocks) in self.boards:
            return self.boards[(board.cols, board.rows, blocks)], perm
        return None, None

    def _table_board(self, board: Board) -> tuple[Board, tuple[int, ...] | None]:
        """As :meth:`_find_table_board`, raising :class:`MissingTableError` when no table answers."""
        table_board, perm = self._find_table_board(board)
        if table_board is None:
            self.require(board)
            raise MissingTableError(f"no table for the {board_name(board)} board in {self.directory}")
        return table_board, perm

    def covers(self, board: Board, rules: Rules = CLASSIC) -> bool:
        return rules.name == CLASSIC.name and self._find_table_board(board)[0] is not None

    def tiers_held(self, board: Board) -> int:
        """How many tiers of ``board`` from tier 0 up the directory holds without a gap: a position
        with fewer empty squares is answered, and every position its game leads to (0 for a
        board it does not hold)."""
        table_board = self._find_table_board(board)[0]
        if table_board is None:
            return 0
        key = (table_board.rows, table_board.cols, table_board.blocks)
        held = 0
        while key + (held,) in self.files:
            held += 1
        return held

    def answers_for(self, position: Position) -> bool:
        """Whether the tables answer ``position`` (its board, the classic rules, the tiers up to its
        number of empty squares): ``--tables`` answers those and solves the rest as usual."""
        return (position.rules.name == CLASSIC.name
                and (position.board.playable & ~(position.x | position.o)).bit_count() < self.tiers_held(position.board))

    def require(self, board: Board, rules: Rules = CLASSIC) -> None:
        """Raise :class:`MissingTableError` unless the tables cover this board and rules."""
        if rules.name != CLASSIC.name:
            raise MissingTableError(f"tables hold the classic rules only, not {rules.name}")
        if not self.covers(board, rules):
            raise MissingTableError(f"no table for the {board_name(board)} board in {self.directory} "
                                    f"(it has: {self.describe_boards()})")

    def _file(self, board: Board, tier: int) -> TierFile:
        key = (board.rows, board.cols, board.blocks, tier)
        f = self.files.get(key)
        if f is None:
            raise MissingTableError(f"tier {tier} of the {board_name(board)} board is not in {self.directory}")
        if key not in self._verified:
            if not f.verify_checksum():
                raise TableError(f"{f.path}: checksum mismatch (a damaged file)")
            self._verified.add(key)
        return f

    def _codes(self, board: Board, tier: int, numbers: np.ndarray) -> np.ndarray:
        f = self._file(board, tier)
        key = (board.rows, board.cols, board.blocks, tier)
        if key in self._whole:
            return self._whole[key][numbers]
        blocks = np.unique(numbers // f.block_entries)
        if blocks.shape[0] * 8 > f.nblocks:  # much of the tier is wanted: read it whole, keep a few
            codes = f.read_all()
            while self._whole and sum(c.nbytes for c in self._whole.values()) + codes.nbytes > self.cache_bytes:
                self._whole.pop(next(iter(self._whole)))
            if codes.nbytes <= self.cache_bytes:
                self._whole[key] = codes
            return codes[numbers]
        missing = [int(b) for b in blocks if (key, int(b)) not in self._blocks]
        for b, data in f.read_blocks(missing).items():
            self._blocks[(key, b)] = data
        out = np.empty(numbers.shape[0], np.uint16)
        for b in blocks:
            b = int(b)
            data = self._blocks[(key, b)]
            self._blocks.move_to_end((key, b))
            sel = numbers // f.block_entries == b
            out[sel] = data[numbers[sel] - b * f.block_entries]
        while len(self._blocks) * f.block_entries * 2 > self.cache_bytes:
            self._blocks.popitem(last=False)
        return out

    def _codes_by_tier(self, board: Board, tiers: np.ndarray, numbers: np.ndarray) -> np.ndarray:
        """Stored codes of numbers of several tiers: sorted by tier (a radix sort of bytes), one
        read per tier."""
        out = np.empty(tiers.shape[0], np.uint16)
        if not tiers.shape[0]:
            return out
        order = np.argsort(tiers.astype(np.uint8), kind="stable")
        ordered = tiers[order]
        bounds = np.flatnonzero(np.diff(ordered)) + 1
        for a, b in zip([0, *bounds.tolist()], [*bounds.tolist(), tiers.shape[0]]):
            sel = order[a:b]
            out[sel] = self._codes(board, int(ordered[a]), numbers[sel])
        return out

    def probe_codes(self, board: Board, mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
        """Stored codes of many positions of one board (mover's pieces, other pieces)."""
        self.require(board)
        mine, theirs = np.asarray(mine, np.uint64), np.asarray(theirs, np.uint64)
        board, perm = self._table_board(board)
        if perm is not None:
            mine, theirs = _permute_bits(mine, perm), _permute_bits(theirs, perm)
        tiers, numbers = dense_index(board).numbers(mine, theirs)
        out = np.empty(tiers.shape[0], np.uint16)
        for t in np.unique(tiers):
            sel = tiers == t
            out[sel] = self._codes(board, int(t), numbers[sel])
        self.probes += int(tiers.shape[0])
        return out

    def probe_many(self, positions: list[Position]) -> list[tuple[int, float]]:
        """(value for the side to move, depth or math.inf) of each position (one board)."""

        if not positions:
            return []
        board = positions[0].board
        for p in positions:
            if p.board != board or p.rules.name != CLASSIC.name:
                self.require(p.board, p.rules)
                raise MissingTableError("probe_many takes positions of one board")
        bits = [mover_bits(p) for p in positions]
        codes = self.probe_codes(board, np.array([b[0] for b in bits], np.uint64),
                                 np.array([b[1] for b in bits], np.uint64))
        return _decoded(codes)

    def answers(self, positions: list[Position]) -> list[tuple[int, float, Move | None]]:
        """(value for the side to move, depth or math.inf, preferred move or None when the game
        is over) of many positions of one board, all at once: the batch's fast path
        (:meth:`answer_arrays`)."""

        if not positions:
            return []
        board = positions[0].board
        self.require(board, positions[0].rules)
        bits = [mover_bits(p) for p in positions]
        own, final, frm, to = self.answer_arrays(board, np.array([b[0] for b in bits], np.uint64),
                                                 np.array([b[1] for b in bits], np.uint64))
        out: list[tuple[int, float, Move | None]] = []
        for i, (v, d) in enumerate(_decoded(own)):
            if final[i]:
                out.append((v, d, None))
            else:
                out.append((v, d, PASS if to[i] < 0 else Move(int(frm[i]), int(to[i]))))
        return out

    def answer_arrays(self, board: Board, mine: np.ndarray, theirs: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(stored codes, game over, preferred move's origin, its target) of many positions of one
        board given as the mover's and the other side's pieces, as arrays: origin -1 for a clone,
        target -1 for a pass (both -1 when the game is over). The preferred move is SPEC section
        4's (best value, then least depth when winning and greatest otherwise, then notation
        order), read from the children's stored codes."""

        self.require(board)
        mine, theirs = np.asarray(mine, np.uint64), np.asarray(theirs, np.uint64)
        table_board, perm = self._table_board(board)
        own = self.probe_codes(board, mine, theirs)
        if perm is not None:
            mine, theirs = _permute_bits(mine, perm), _permute_bits(theirs, perm)
        ix = dense_index(table_board)
        T = ix.tables
        final, start, move, tier, number = engine.dense.position_children(mine, theirs, ix.arrays, T.adj, T.jmp, T.reach, T.rules)
        codes = self._codes_by_tier(table_board, tier, number)
        # notation order of the moves (solver.game.rules.move_order_key) by table lookups: squares of
        # the table's board taken back to the board asked about, then each by (file, rank)
        back = np.arange(64)
        if perm is not None:
            back[:len(perm)] = np.argsort(np.array(perm))
        cols = board.cols
        skey = (back % cols) * 64 + back // cols
        m = np.maximum(move, 0)
        to, frm = m & 63, (m >> 6) - 1
        order = np.where(frm >= 0, skey[frm] * 4097 + skey[to] + 1, skey[to] * 4097)
        edge, _, _ = engine.tier_kernels.preferred_children(start, codes, order)
        over = final != NOT_FINAL_CODE
        best = move[np.where(over, 0, edge)] if move.shape[0] else np.full(over.shape[0], -1)
        best = np.where(over, -1, best)
        best_to = np.where(best < 0, -1, back[best & 63])
        best_from = np.where(best < 0, -1, np.where((best >> 6) > 0, back[np.maximum(best >> 6, 1) - 1], -1))
        return own, over, best_from, best_to

    def probe_entries(self, entries: Sequence[Entry]) -> list[Probed]:
        """Each entry probed for each of its sides to move (a board without one: both), in order:
        positions grouped by board for :meth:`probe_many`, values turned to X's side. A position
        the tables do not cover gets its :class:`MissingTableError` (``Probed.error``)."""
        todo = [(e, e.position.replace(turn=side)) for e in entries for side in e.sides]
        groups: dict[tuple[Board, str], list[int]] = {}  # probe_many takes the positions of one board
        for k, (_, q) in enumerate(todo):
            groups.setdefault((q.board, q.rules.name), []).append(k)
        out = [Probed(e, q) for e, q in todo]
        for ks in groups.values():
            try:
                for k, (u, d) in zip(ks, self.probe_many([todo[k][1] for k in ks])):
                    q = out[k].position
                    out[k].value = u if q.turn == X else -u
                    out[k].depth = None if d == math.inf else int(d)
            except MissingTableError as exc:
                for k in ks:
                    out[k].error = exc
        return out

    def probe(self, position: Position) -> tuple[int, float]:
        """(value for the side to move, depth or math.inf); MissingTableError when not covered."""
        self.require(position.board, position.rules)
        return self.probe_many([position])[0]

    def get(self, position: Position, default: D | None = None) -> tuple[int, float] | D | None:
        """Like :meth:`probe`, but ``default`` when no table covers the position."""
        try:
            return self.probe(position)
        except MissingTableError:
            return default

    def search_arrays(self, board: Board, max_bytes: int | None = None, below: int | None = None) -> tuple | None:
        """The tables of ``board`` (or of its transpose) as the search probes them at its leaves
        (the ``tb`` tuple of :mod:`solver.engine.tbprobe`): tiers 0 to k read whole into one array,
        k the last tier held without a gap such that they fit in ``max_bytes`` (default
        :attr:`search_bytes`, a quarter of the machine's memory) and, with ``below`` (the empty
        squares of the position searched: the search never meets more), is below it; None when no
        tier of the board is held (or tier 0 does not fit). Made once per board (again when a
        later position needs more tiers); raises :class:`TableError` for a damaged file."""
        table_board, perm = self._find_table_board(board)
        if table_board is None:
            return None
        made = self._search_arrays
        key = (board.rows, board.cols, board.blocks, max_bytes)
        held = self.tiers_held(board)
        wanted = held if below is None else min(held, max(below, 1))
        old = made.get(key)
        asked = self._search_asked.get(key, 0)
        # made again only when more tiers are wanted than were asked for and the last one asked
        # for was read (when the memory cut it short, more tiers asked for would not be read)
        if key not in made or (old is not None and wanted > asked and old[4][0] + 1 == asked):
            made.pop(key, None)  # (released before the larger one is read)
            del old
            self._search_asked[key] = wanted
            ix = dense_index(table_board)
            limit = self.search_bytes if max_bytes is None else max_bytes
            sizes: list[int] = []
            for e in range(wanted):
                if 2 * (sum(sizes) + ix.tier_size(e)) > limit:
                    break
                sizes.append(ix.tier_size(e))
            if not sizes:
                made[key] = None
                return None
            toff = np.zeros(len(sizes) + 1, np.int64)
            toff[1:] = np.cumsum(sizes)
            codes = np.empty(int(toff[-1]), np.uint16)
            for e in range(len(sizes)):
                codes[toff[e]:toff[e + 1]] = self._file(table_board, e).read_all()
            nbytes = (board.size + 7) // 8
            tperm = np.zeros((nbytes, 256), np.uint64)  # the squares' images in the table's board
            for b in range(nbytes):
                for v in range(256):
                    tperm[b, v] = sum(1 << perm[8 * b + k] for k in range(8)
                                      if v >> k & 1 and 8 * b + k < board.size) if perm is not None else 0
            topt = np.array([len(sizes) - 1, int(perm is not None), nbytes], np.int64)
            made[key] = (ix.arrays, codes, toff, tperm, topt)
        return made[key]


def _permute_bits(words: np.ndarray, perm: Sequence[int]) -> np.ndarray:
    out = np.zeros_like(words)
    for sq, image in enumerate(perm):
        out |= ((words >> np.uint64(sq)) & np.uint64(1)) << np.uint64(image)
    return out


class TableOracle(Oracle):
    """The oracle contract (:class:`solver.oracles.oracle.Oracle`) answered from tables."""

    name = "tables"

    def __init__(self, tablebase: Tablebase, board: Board, rules: Rules = CLASSIC) -> None:
        super().__init__()
        tablebase.require(board, rules)
        self.tablebase = tablebase

    @property
    def states(self) -> int:
        return self.tablebase.probes

    def prepare(self, roots: list[Position], both_sides: bool = False) -> None:
        for r in roots:
            self.tablebase.require(r.board, r.rules)

    def lookup(self, position: Position) -> tuple[int, float]:
        return self.tablebase.probe(position)

    def lookup_many(self, positions: list[Position]) -> list[tuple[int, float]]:
        return self.tablebase.probe_many(positions)

