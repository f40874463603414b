"""The solved-position cache: one SQLite file, shared by batch runs.

Key: the rule set and the canonical position (board shape and blocks, the cells
read from the mover's side under the least symmetry, the counter), so a position,
its symmetric images and its colour inversion share one row. Value: the value for
the side to move, the depth (NULL for infinite play) and the preferred move, stored
in the canonical orientation and mapped back on reading: for an exact value, every
move as preferred as it (the same value and depth), so that each symmetric image gets
its own first one in notation order (SPEC section 4). Boards without a side to
move also store their orthodox summary (kind ``board``).

A row is a compact form of :class:`solver.solve.report.SideResult`, the one definition of a
solved side: :func:`side_row` makes it from one, :meth:`Cache.get_side` gives one back.

The file is in WAL mode; one process (the batch's parent) writes, in transactions,
so an interrupted run leaves a valid database. A new file gets its tables in one
``BEGIN IMMEDIATE`` transaction (``CREATE TABLE IF NOT EXISTS``), so processes that
open the same new file at once do not race. A file that is not an SQLite database,
a database that is not this cache, or a cache that cannot be written is refused;
any later SQLite failure (a full disk, damaged pages) is a :class:`CacheError`, and
a row that is not a valid result is read as a miss.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from solver.game.board import MAX_SQUARES
from solver.game.rules import (
    InvalidMoveError,
    Move,
    Position,
    X,
    move_order_key,
    parse_move_text,
)
from solver.solve.analysis import Evaluation, Interval
from solver.solve.report import SideResult

LOGGER = logging.getLogger(__name__)

FORMAT = "ataxx-solver-cache"
VERSION = "3"


class CacheError(Exception):
    """The cache file cannot be used (the message says which file and why)."""


def default_cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ataxx-solver" / "solved.sqlite3"


def canonical(p: Position) -> tuple[str, list[tuple[int, ...]]]:
    """(key text, the symmetries that map p onto its canonical form): the board's shape and
    blocks, :meth:`Position.canonical_form`'s cells, the counter."""
    cells, perms = p.canonical_form()
    board = p.board
    return f"{board.rows}x{board.cols}:{board.blocks}:{''.join(map(str, cells))}:{p.counter}", perms


def _map(move: Move, perm: Sequence[int]) -> Move:
    if move.is_pass:
        return move
    return Move(-1 if move.frm < 0 else perm[move.frm], perm[move.to])


def _inverse(perm: Sequence[int]) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for a, b in enumerate(perm):
        inv[b] = a
    return tuple(inv)


class Cache:
    def __init__(self, path: str | os.PathLike, make_directory: bool = False):
        """Open (or create) the cache file at ``path``. Its directory must exist, unless
        ``make_directory`` (the default cache's: :func:`default_cache_path`) makes it."""
        self.path = Path(path)
        if not make_directory and not self.path.parent.is_dir():
            raise CacheError(f"{self.path}: no such directory {str(self.path.parent)!r} (a cache is made in a "
                             "directory that exists)")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CacheError(f"{self.path}: cannot create its directory ({exc.strerror})") from None
        if self.path.is_dir():
            raise CacheError(f"{self.path}: is a directory; give --cache a file name")
        try:
            self.db = sqlite3.connect(str(self.path), timeout=30)
        except sqlite3.Error as exc:
            raise CacheError(f"{self.path}: cannot open the cache ({exc})") from None
        try:
            self._check_or_create()
        except CacheError:
            self.db.close()
            raise
        except sqlite3.OperationalError as exc:
            self.db.close()
            if "readonly" in str(exc) or "read-only" in str(exc):
                raise CacheError(f"{self.path}: the cache is read-only; give a writable file with --cache, "
                                 "or --no-cache") from None
            raise CacheError(f"{self.path}: cannot use the cache ({exc})") from None
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise CacheError(f"{self.path}: not a usable ataxx-solver cache ({exc}); "
                             "choose another file with --cache, or remove this one") from None

    def _wal(self) -> None:
        """WAL mode. SQLite answers "locked" at once, without waiting for its busy timeout, while
        another connection changes the mode or holds a lock: wait here (up to 15 s)."""
        for attempt in range(300):
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == 299:
                    raise
                time.sleep(0.05)

    def _tables(self) -> set:
        return {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    def _check_or_create(self) -> None:
        db = self.db
        tables = self._tables()
        if not tables:
            # Another process may be creating the same file right now: WAL mode first (it cannot
            # change inside a transaction), then the schema in one write transaction; whoever
            # comes second waits for the lock, finds the tables and creates nothing.
            self._wal()
            db.execute("BEGIN IMMEDIATE")
            try:
                if not self._tables():
                    db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
                    db.execute("CREATE TABLE IF NOT EXISTS solved (rules TEXT NOT NULL, key TEXT NOT NULL, "
                               "kind TEXT NOT NULL, value INTEGER, depth INTEGER, best TEXT, orthodox TEXT, "
                               "lower INTEGER, upper INTEGER, best_lower INTEGER, "
                               "PRIMARY KEY (rules, key, kind))")
                    db.executemany("INSERT OR IGNORE INTO meta VALUES (?, ?)",
                                   [("format", FORMAT), ("version", VERSION),
                                    ("created", time.strftime("%Y-%m-%d %H:%M:%S"))])
                db.commit()
            except BaseException:
                db.rollback()
                raise
            tables = self._tables()
        meta = dict(db.execute("SELECT name, value FROM meta").fetchall()) if "meta" in tables else {}
        if meta.get("format") != FORMAT or "solved" not in tables:
            raise CacheError(f"{self.path}: an SQLite file, but not an ataxx-solver cache; "
                             "choose another file with --cache")
        if meta.get("version") == "1":
            self._upgrade_from_1()
            meta["version"] = "2"
        if meta.get("version") == "2":
            self._upgrade_from_2()
            meta["version"] = VERSION
        if meta.get("version") != VERSION:
            raise CacheError(f"{self.path}: cache version {meta.get('version')}, this program reads version "
                             f"{VERSION}; clear it with `ataxx-solve cache clear`")
        self._wal()
        # Refuse a cache that cannot be written now, rather than fail after the first solve.
        db.execute("BEGIN IMMEDIATE")
        db.rollback()

    def _upgrade_from_1(self) -> None:
        """Version 1 kept exact values only; version 2 adds proved bounds (and the bound of the
        best move found). The old rows are exact: their bounds are their value."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            if dict(db.execute("SELECT name, value FROM meta").fetchall()).get("version") == "1":
                for column in ("lower", "upper", "best_lower"):
                    db.execute(f"ALTER TABLE solved ADD COLUMN {column} INTEGER")
                db.execute("UPDATE solved SET lower = value, upper = value, best_lower = value WHERE kind = 'side'")
                db.execute("UPDATE meta SET value = '2' WHERE name = 'version'")
            db.commit()
        except BaseException:
            db.rollback()
            raise

    def _upgrade_from_2(self) -> None:
        """Version 2 kept one preferred move per exact row, which is not the preferred move of
        every symmetric image when several moves tie; version 3 keeps all the tied moves. The
        old exact rows lose their move (a record that needs it solves the position again)."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            if dict(db.execute("SELECT name, value FROM meta").fetchall()).get("version") == "2":
                db.execute("UPDATE solved SET best = NULL WHERE kind = 'side' AND value IS NOT NULL")
                db.execute("UPDATE meta SET value = ? WHERE name = 'version'", (VERSION,))
            db.commit()
        except BaseException:
            db.rollback()
            raise

    def close(self) -> None:
        self.db.close()

    # -- reading and writing ------------------------------------------------------------------

    def _fetch(self, sql: str, args: tuple[object, ...]) -> tuple[Any, ...] | None:
        try:
            return self.db.execute(sql, args).fetchone()
        except sqlite3.Error as exc:
            raise CacheError(f"{self.path}: cannot read the cache ({exc})") from None

    def get_side(self, p: Position) -> SideResult | None:
        """What is known of p, as the :class:`~solver.solve.report.SideResult` a solve would give (its
        interval, its value and depth when both were known, the best move found and its bound),
        or None if nothing is cached (or if the row is not a valid result: it is logged and
        solved again)."""
        key, perms = canonical(p)
        row = self._fetch("SELECT value, depth, best, lower, upper, best_lower FROM solved "
                          "WHERE rules=? AND key=? AND kind='side'", (p.rules.name, key))
        if row is None:
            return None
        value, depth, best, lower, upper, best_lower = row
        try:
            for name, v in (("lower", lower), ("upper", upper)):
                if not (type(v) is int and abs(v) <= MAX_SQUARES):
                    raise ValueError(f"{name} {v!r}")
            if lower > upper or not (value is None or (type(value) is int and value == lower == upper)):
                raise ValueError(f"value {value!r} with bounds {lower!r}..{upper!r}")
            if not (depth is None or (type(depth) is int and depth >= -1)):
                raise ValueError(f"depth {depth!r}")
            if not (best_lower is None or (type(best_lower) is int and abs(best_lower) <= MAX_SQUARES)):
                raise ValueError(f"best move bound {best_lower!r}")
            move = None
            if best is not None:
                if not isinstance(best, str):
                    raise ValueError(f"best move {best!r}")
                names = best.split(" ")
                if not 1 <= len(names) <= 4 * MAX_SQUARES:
                    raise ValueError(f"best move {best!r}")
                images = {_map(parse_move_text(p.board, name)[0], _inverse(perm)) for name in names for perm in perms}
                move = min(images, key=lambda m: move_order_key(p.board, m))
        except (ValueError, InvalidMoveError, IndexError) as exc:
            LOGGER.warning("%s: ignoring a bad row for %s (%s)", self.path, key, exc)
            return None
        known = depth != -1
        depth = None if depth == -1 else depth
        if p.turn != X:
            lower, upper = -upper, -lower
            best_lower = None if best_lower is None else -best_lower
        squares = p.board.playable.bit_count()
        evaluation = Evaluation(lower, depth) if value is not None and known else None
        return SideResult(p, Interval(lower, upper, squares), evaluation, best_move=move, best_bound=best_lower)

    def get_orthodox(self, p: Position) -> str | None:
        key, _ = canonical(p.replace(turn=X))
        row = self._fetch("SELECT orthodox FROM solved WHERE rules=? AND key=? AND kind='board'",
                          (p.rules.name, key))
        if row is not None and not isinstance(row[0], str):
            LOGGER.warning("%s: ignoring a bad orthodox row for %s", self.path, key)
            return None
        return row[0] if row else None

    def put(self, rows: list[tuple]) -> None:
        """Write rows made by :func:`side_row` / :func:`board_row` in one transaction
        (raises CacheError when they cannot be written)."""
        if not rows:
            return
        for attempt in range(20):
            try:
                with self.db:
                    self.db.executemany("INSERT OR REPLACE INTO solved VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                        [self._merged(row) for row in rows])
                return
            except sqlite3.OperationalError as exc:  # locked by another writer: wait and retry
                if "locked" not in str(exc) or attempt == 19:
                    raise CacheError(f"{self.path}: cannot write the cache ({exc})") from None
                time.sleep(0.05 * (attempt + 1))
            except sqlite3.Error as exc:
                raise CacheError(f"{self.path}: cannot write the cache ({exc})") from None

    def _merged(self, row: tuple) -> tuple:
        """A side row combined with what the cache already proved: bounds only narrow, an exact
        row is never replaced by bounds, the best move kept is the one with the better bound."""
        rules, key, kind, value, depth, best, orth, lower, upper, best_lower = row
        if kind != "side":
            return row
        old = self.db.execute("SELECT value, depth, best, lower, upper, best_lower FROM solved "
                              "WHERE rules=? AND key=? AND kind='side'", (rules, key)).fetchone()
        if old is None or not all(type(v) is int for v in old[3:5]):
            return row
        o_value, o_depth, o_best, o_lower, o_upper, o_best_lower = old
        if o_value is not None and (value is None or (depth is None and o_depth is not None)):
            return (rules, key, kind) + tuple(old[:3]) + (orth, o_lower, o_upper, o_best_lower)
        if value is None:
            lower, upper = max(lower, o_lower), min(upper, o_upper)
            value = lower if lower == upper else None
            if o_best is not None and (best is None or (o_best_lower is not None and
                                                        (best_lower is None or o_best_lower > best_lower))):
                best, best_lower = o_best, o_best_lower
        return (rules, key, kind, value, depth, best, orth, lower, upper, best_lower)

    # -- for the user -------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        try:
            rows = self.db.execute("SELECT rules, kind, COUNT(*) FROM solved GROUP BY rules, kind "
                                   "ORDER BY rules, kind").fetchall()
        except sqlite3.Error as exc:
            raise CacheError(f"{self.path}: cannot read the cache ({exc})") from None
        by: dict[str, dict[str, int]] = {}
        for rules, kind, n in rows:
            by.setdefault(rules, {})[kind] = n
        size = sum(f.stat().st_size for f in self.path.parent.glob(self.path.name + "*") if f.is_file())
        return {"path": str(self.path), "bytes": size, "positions": by,
                "total": sum(sum(v.values()) for v in by.values())}

    def clear(self) -> int:
        try:
            with self.db:
                n = self.db.execute("DELETE FROM solved").rowcount
            self.db.execute("VACUUM")
        except sqlite3.Error as exc:
            raise CacheError(f"{self.path}: cannot clear the cache ({exc})") from None
        return n


def side_row(s: SideResult) -> tuple:
    """The row of a solved side (:class:`~solver.solve.report.SideResult`): its bounds (exact when
    equal), depth (None: infinite play; -1: an exact value whose depth was not computed), the
    best move found and its proved bound, in the canonical orientation."""
    p = s.position
    lower_x, upper_x = s.interval.lower, s.interval.upper
    depth_known = s.evaluation is not None
    depth = None if s.evaluation is None else s.evaluation.depth
    best_bound_x = s.best_bound if s.best_move is not None else None
    key, perms = canonical(p)
    canon_best = None
    if s.exact and s.best_move is not None:
        # Every move as preferred as the best (SPEC section 4: then the first in notation order),
        # so that each symmetric image gets back its own first one. Unknown: no move is kept
        # (and the row is solved again when a record needs it).
        if s.tied_moves:
            ties = sorted({_map(m, perms[0]) for m in s.tied_moves} | {_map(s.best_move, perms[0])},
                          key=lambda m: move_order_key(p.board, m))
            canon_best = " ".join(p.move_name(m) for m in ties)
    elif s.best_move is not None:
        canon_best = p.move_name(_map(s.best_move, perms[0]))
    if p.turn == X:
        lower, upper, best_lower = lower_x, upper_x, best_bound_x
    else:
        lower, upper = -upper_x, -lower_x
        best_lower = None if best_bound_x is None else -best_bound_x
    value = lower if lower == upper else None
    if value is not None and not depth_known:
        depth = -1
    return (p.rules.name, key, "side", value, depth if value is not None else None, canon_best, None,
            lower, upper, best_lower)


def board_row(p: Position, orthodox: str) -> tuple:
    key, _ = canonical(p.replace(turn=X))
    return (p.rules.name, key, "board", None, None, None, orthodox, None, None, None)
