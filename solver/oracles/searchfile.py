"""A search saved to disk (``--table FILE``): the search's tables and what its ladders and tests
proved, in one ``.npz`` file written whole or not at all, read back only by a search of the same
board, rules and symmetries (:meth:`solver.oracles.search.SearchOracle.save_tables` and
``load_tables`` decide what goes in the header; this module writes and checks the file)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import zipfile

import numpy as np

from solver.game.board import Board

TABLE_FILE_FORMAT = "ataxx-search-table 2"


class TableFileError(ValueError):
    """A search table file that cannot be used here (the message names the file and why)."""


def board_id(board: Board) -> str:
    """The board as a search table file names it (its size and blocks)."""
    return f"{board.rows}x{board.cols} blocks {board.blocks:#x}"


def write_search_file(path: str | os.PathLike[str], header: dict, tt: np.ndarray, dtt: np.ndarray) -> None:
    """Write ``header`` (with the format added) and the two tables to ``path`` through a temporary
    file beside it, so that a stop leaves the old file or the new one. Raises OSError."""
    header = {"format": TABLE_FILE_FORMAT, **header}
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".search-table.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, header=np.frombuffer(json.dumps(header).encode(), np.uint8), tt=tt, dtt=dtt)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_search_file(path: str | os.PathLike[str], board: str, rules: str, symmetry: int,
                     entry_words: int) -> tuple[dict, np.ndarray, np.ndarray | None]:
    """What a file :func:`write_search_file` wrote for ``board`` (:func:`board_id`), ``rules`` and
    ``symmetry`` holds: its header's ``nodes``, and its ``ladder``, ``scores`` and ``bounds`` as
    dictionaries (keyed by tuples), and the two tables (the proof numbers' None when empty).
    Raises :class:`TableFileError` for a file of another board, rules or format, or a damaged one."""
    name = os.fspath(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(bytes(data["header"]).decode())
            if header.get("format") != TABLE_FILE_FORMAT:
                raise TableFileError(f"{name}: not a search table of this version")
            if header["board"] != board or header["rules"] != rules:
                raise TableFileError(f"{name}: the table is for another board or rule set "
                                     f"({header['board']}, {header['rules']})")
            if header["symmetry"] != symmetry:
                raise TableFileError(f"{name}: the table was made with other symmetries")
            tt = data["tt"]
            dtt = data["dtt"] if "dtt" in data.files and data["dtt"].shape[0] else None
            if tt.ndim != 2 or tt.shape[1] != entry_words or tt.shape[0] & (tt.shape[0] - 1):
                raise TableFileError(f"{name}: the table has a shape no search makes")
            found = {"nodes": int(header.get("nodes", 0)),
                     "ladder": {(a, b, c, d, e): h for a, b, c, d, e, h in header["ladder"]},
                     "scores": {(a, b, c): (lo, hi) for a, b, c, lo, hi in header["scores"]},
                     "bounds": {(a, b, c): (lo, hi, mv, ml) for a, b, c, lo, hi, mv, ml in header["bounds"]}}
            return found, tt, dtt
    except TableFileError:
        raise
    except OSError as exc:
        raise TableFileError(f"{name}: cannot read it as a search table ({exc.strerror or 'unreadable'})") from None
    except (ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
        raise TableFileError(f"{name}: not a search table (--table-file writes one, and reads it back)") from None
