"""Programs that speak other Ataxx languages, asked for moves by ``verify``.

- ``cs61b:CMD``, :class:`CS61BProgram`: a program in the text language of Berkeley's CS 61B
  Ataxx (Project 2). It runs for the whole check (one process, restarted after a failure),
  reads commands on its standard input and writes its moves on its standard output. The
  language has no command that places a piece: a position is reached by playing the game's
  moves from the standard start. For each position the program is sent ``clear``, the
  ``seed``, one ``block`` per set of four squares symmetric about the middle row and column
  (``block c3`` blocks c3, e3, c5 and e5), the game's moves in its notation (``a7-b6``, ``-``
  for a pass), ``dump`` (the board it prints, between ``===`` lines, must be the position's),
  ``auto`` for the side to move and ``manual`` for the other, and ``start``; its answer is the
  line ``Red moves a7-b6.`` or ``Blue passes.`` (red is X, the first mover). So it checks
  games (PGN, or a ``moves:`` header), on 7 x 7 boards with symmetric blocks; a bare position
  other than a start is one line saying so (:class:`CannotAskError`).
- ``colon:CMD``, :class:`ColonProgram`: a program of the minimax assignment, run once per
  position: the board as a colon grid on its standard input (``1:0:0:0:0:0:2:`` a row, top row
  first, then a blank line and the end of the input), where 1 is always the side to move (the
  colours are swapped when O is to move: such a program plays 1); its answer is the one line of
  four numbers ``x0:y0:x1:y1:`` (x the column from the left, y the row from the top, from 0),
  the other lines it prints (the board after its move) are not read. Where the side to move has
  no legal move, the pass is answered without running the program (the assignment has no word
  for it).

Both are bounded as the UAI client (:mod:`solver.play.uai_client`) is (a CS 61B program's first answer after
it starts may take the client's start-up time, 10 s, if that is longer than the move time; a colon
program's time counts from its start), and fail with its typed errors: a
program that exits (or exits with a non-zero status) raises
:class:`~solver.play.uai_client.EngineTerminatedError`, one that does not answer in time
:class:`~solver.play.uai_client.EngineTimeoutError`, one that answers something else
:class:`~solver.play.uai_client.EngineProtocolError`. A move that is well formed but illegal is returned
as it is, and ``verify`` calls it an illegal move.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Sequence

from solver.game.notation import cs61b_move
from solver.game.rules import IllegalMoveError, InvalidMoveError, O, Position, X
from solver.io.formats import PositionFormatError, parse_cs61b, quote, write_colon
from solver.play.uai_client import (
    EngineError,
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    UAIClient,
)

CS61B_SIZE = 7
_CS61B_SAYS = re.compile(r"\b(?:Red|Blue) (?:moves|passes)\b", re.IGNORECASE)  # an answer, well formed or not
_CS61B_ANSWER = re.compile(r"\b(Red|Blue) (?:moves ([a-g][1-7])-([a-g][1-7])|passes)\.?\s*$", re.IGNORECASE)
_CS61B_OVER = re.compile(r"\b(?:(Red|Blue) wins|Draw)\b", re.IGNORECASE)
_COLON_MOVE = re.compile(r"\s*([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}):?\s*")

History = tuple[Position, Sequence[str]]  # a game's start and the moves played from it


class CannotAskError(EngineError):
    """The question cannot be put in the program's language (a bare position to a CS 61B
    program, a board it cannot set up); the program is not at fault and keeps running."""


class _Program(UAIClient):
    """A program's process, bounded reads and writes (the UAI client's), without UAI's handshake."""

    def _start(self) -> None:
        self._spawn()


# -- CS 61B -----------------------------------------------------------------------------------------

def cs61b_start(p: Position) -> Position:
    """The standard start on ``p``'s board (its blocks), red (X) to move, under ``p``'s rules."""
    x, o = p.board.start_squares()
    return Position(p.board, x, o, X, 0, p.rules)


def cs61b_blocks(p: Position) -> list[str]:
    """The ``block`` squares that set ``p``'s blocks in the CS 61B language: one square of each
    set of four reflected about the middle row and column (the lower left of the set). Raises
    :class:`CannotAskError` for a board that is not 7 x 7 or blocks that are not symmetric."""
    board = p.board
    if (board.rows, board.cols) != (CS61B_SIZE, CS61B_SIZE):
        raise CannotAskError(f"the CS 61B language plays on 7 x 7 boards only, not {board.rows} x {board.cols}")
    out = []
    last = CS61B_SIZE - 1
    for sq in range(board.rows * board.cols):
        if not board.is_block(sq):
            continue
        f, r = board.file_of(sq), board.rank_of(sq)
        mirrors = {board.square(f2, r2) for f2 in (f, last - f) for r2 in (r, last - r)}
        if not all(board.is_block(m) for m in mirrors):
            raise CannotAskError(f"the block on {board.square_name(sq)} has no mirror image on every side: the CS 61B "
                                 "language's block command sets blocks in fours, symmetric about the middle row and "
                                 "column")
        if sq == min(mirrors):
            out.append(board.square_name(sq))
    return out


def cs61b_commands(p: Position, history: History | None, seed: int | None = None) -> list[str]:
    """The commands that set ``p`` up in the CS 61B language before ``dump``: ``clear``, ``seed``,
    the blocks and the game's moves. Raises :class:`CannotAskError` when ``p`` cannot be reached so."""
    blocks = cs61b_blocks(p)
    start = cs61b_start(p)
    if history is None:
        if p != start:
            raise CannotAskError("the CS 61B language cannot place pieces: a CS 61B program checks the moves of games "
                                 "(PGN, or a moves: header), not a bare position")
        history = (p, ())
    first, moves = history
    if (first.x, first.o, first.turn, first.board) != (start.x, start.o, start.turn, start.board):
        raise CannotAskError("the game does not start from the standard start: the CS 61B language cannot place "
                             "pieces, so it plays games from the standard start only")
    out = ["clear"] + ([f"seed {seed}"] if seed is not None else []) + [f"block {b}" for b in blocks]
    cur = first
    for text in moves:
        try:
            move = cur.parse_move(text)
        except (InvalidMoveError, IllegalMoveError) as exc:
            raise CannotAskError(f"the game's move {text}: {exc}") from None
        out.append(cs61b_move(cur, move))
        cur = cur.push(move)
    if (cur.board, cur.x, cur.o, cur.turn) != (p.board, p.x, p.o, p.turn):
        raise CannotAskError("the game's moves do not lead to the position asked")
    return out


class CS61BProgram:
    """A program in CS 61B's Ataxx language, asked for moves (``verify --engine 'cs61b:CMD'``)."""

    def __init__(self, command: str, timeout: float = 10.0, seed: int | None = 0):
        self.process = _Program(command, timeout=timeout)
        self.name = f"cs61b:{command}"
        self.seed = seed

    def bestmove(self, p: Position, history: History | None = None) -> str:
        """The program's move in ``p``, reached by ``history`` (the game's start and moves; None
        for a bare position, which only a standard start can be). Raises :class:`CannotAskError`
        or the UAI client's :class:`~solver.play.uai_client.EngineError` subclasses."""
        setup = cs61b_commands(p, history, self.seed)
        proc = self.process
        wait = proc.timeout
        if proc.proc is None:
            proc._start()
            wait = max(wait, proc.startup_timeout)  # the first answer waits for the program to start too
        for command in setup + ["dump"]:
            proc._send(command)
        proc._read_until(lambda line: line.strip().endswith("==="), wait, "dump")
        rows = proc._read_until(lambda line: line.strip().endswith("==="), proc.timeout, "dump")
        self._check_dump(p, ["==="] + rows)
        mover, other = ("red", "blue") if p.turn == X else ("blue", "red")
        for command in (f"auto {mover}", f"manual {other}", "start"):
            proc._send(command)
        lines = proc._read_until(lambda line: bool(_CS61B_SAYS.search(line) or _CS61B_OVER.search(line)),
                                 proc.timeout, "start")
        last = lines[-1]
        found = _CS61B_ANSWER.search(last)
        if found is None:
            proc._kill()
            if _CS61B_SAYS.search(last):
                raise EngineProtocolError(f"unparsable answer {quote(last[:80])} (restarted)")
            raise EngineProtocolError(f"the program says the game is over ({quote(last[:80])}) where "
                                      f"{mover.capitalize()} has a move (restarted)")
        side = X if found.group(1).lower() == "red" else O
        if side != p.turn:
            proc._kill()
            raise EngineProtocolError(f"{found.group(1).capitalize()} moved where {mover.capitalize()} is to move "
                                      "(restarted)")
        return "-" if found.group(2) is None else f"{found.group(2).lower()}-{found.group(3).lower()}"

    def _check_dump(self, p: Position, rows: list[str]) -> None:
        """The board the program printed must be ``p``'s (else it did not take the setup)."""
        try:
            board, x, o = parse_cs61b(list(enumerate((r.strip() for r in rows), 1)), "the program's dump")
        except PositionFormatError as exc:
            self.process._kill()
            raise EngineProtocolError(f"unreadable dump: {exc} (restarted)") from None
        if (board, x, o) != (p.board, p.x, p.o):
            self.process._kill()
            raise EngineProtocolError("the program's board after the setup (its dump) is not the game's position "
                                      "(restarted)")

    def close(self) -> None:
        self.process.close()


# -- colon grids ------------------------------------------------------------------------------------

def colon_question(p: Position) -> str:
    """What a colon program reads for ``p``: the grid with the side to move as 1, then a blank line."""
    mover = p if p.turn == X else p.replace(x=p.o, o=p.x, turn=X)
    return write_colon(mover) + "\n"


def colon_answer(p: Position, line: str) -> str:
    """A move line ``x0:y0:x1:y1:`` of a colon program as a move of ``p`` (``a7-b6``; the text as
    it is when a square is off the board: an unparsable move)."""
    m = _COLON_MOVE.fullmatch(line)
    if m is None:
        raise ValueError(f"not a colon move line: {line[:40]!r}")
    x0, y0, x1, y1 = (int(g) for g in m.groups())
    board = p.board
    if max(x0, x1) >= board.cols or max(y0, y1) >= board.rows:
        return line.strip()
    frm = board.square(x0, board.rows - 1 - y0)
    to = board.square(x1, board.rows - 1 - y1)
    return f"{board.square_name(frm)}-{board.square_name(to)}"


class ColonProgram:
    """A minimax-assignment program, run once per position (``verify --engine 'colon:CMD'``)."""

    def __init__(self, command: str, timeout: float = 10.0):
        self.command = command
        self.timeout = timeout
        self.name = f"colon:{command}"
        _Program(command)  # the command must be readable: ValueError now, not at the first question

    def bestmove(self, p: Position, history: History | None = None) -> str:
        """The program's move in ``p`` (``history`` is not needed: the grid says it all)."""
        legal = p.legal_moves()
        if len(legal) == 1 and legal[0].is_pass:
            return "0000"
        proc = _Program(self.command, timeout=self.timeout)
        proc._start()
        assert proc.proc is not None
        try:
            proc._send(colon_question(p))
            try:
                assert proc.proc.stdin is not None
                proc.proc.stdin.close()  # the end of the input: the program answers and exits
            except OSError:
                pass
            end = time.monotonic() + self.timeout
            try:
                lines = proc._read_until(lambda line: False, self.timeout, "the board", eof_ok=True)
            except EngineTimeoutError:
                raise EngineTimeoutError(f"no answer within {self.timeout:g} s (hung; stopped)") from None
            try:
                code = proc.proc.wait(timeout=max(0.0, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                code = None
            moves = [line for line in lines if _COLON_MOVE.fullmatch(line)]
            if code:
                raise EngineTerminatedError(f"the program crashed (exit status {code}{proc.said()})", code)
            if not moves:
                first = next((line for line in lines if line), "")
                what = f"its first line: {quote(first[:60])}" if first else "it printed nothing"
                raise EngineProtocolError(f"no move line (x0:y0:x1:y1:) in the program's answer ({what})")
            if len(set(moves)) > 1:
                raise EngineProtocolError(f"{len(set(moves))} different move lines in the program's answer "
                                          f"({', '.join(quote(m) for m in sorted(set(moves))[:3])})")
            return colon_answer(p, moves[0])
        finally:
            if proc.proc is not None:
                proc._end(proc.proc)
                proc.proc = None

    def close(self) -> None:
        pass


def make_program(spec: str, seed: int | None = 0, timeout: float = 10.0) -> CS61BProgram | ColonProgram | None:
    """The program of ``cs61b:CMD`` or ``colon:CMD``; None for another spec. Raises ValueError
    for an empty or unreadable command."""
    kind, colon, command = spec.strip().partition(":")
    kind = kind.lower()
    if not colon or kind not in ("cs61b", "colon"):
        return None
    if not command.strip():
        raise ValueError(f"{kind}: needs a command to run ({kind}:CMD)")
    if kind == "cs61b":
        return CS61BProgram(command.strip(), timeout, seed)
    return ColonProgram(command.strip(), timeout)
