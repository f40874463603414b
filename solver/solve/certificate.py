"""Certificates: proved bounds with the strategies that prove them, checked by the plain rules.

A bound on a position's value (SPEC section 4.1) is a claim about a strategy: X's value
is at least L when X has a strategy after which every game ends with a score of at
least L (or, when L <= 0, never ends); at most U when O has one for the scores at most
U (or endless play, when U >= 0). A certificate writes that strategy out: the
prover's move at each of its positions that the strategy reaches, every reply of the
other side being covered. Anyone can check it with the rules alone (:func:`check`
uses :mod:`solver.game.rules`, never the compiled engines): follow the strategy from the
position, play every reply, and see that

- the prover has a move (a legal one) wherever it is to move and the game is not over;
- every finished game satisfies the bound;
- where the prover needs a finished game (L > 0, or U < 0) no position repeats: the
  positions the strategy reaches, with the moves between them, form no cycle, so every
  game ends. Where endless play satisfies the bound (L <= 0, U >= 0) a cycle is fine:
  the strategy keeps the game among positions it covers for ever, worth 0.

The file is text: a line ``ATAXX-CERTIFICATE 1``, then per claim a ``claim:`` line (``x >= 3``
or ``x <= 5``: X's value), the ``position:`` (a FEN), the ``rules:``, a ``strategy:`` line with
the count of what follows, one line per position of the prover (the board as a FEN
board, the side to move, the counter, the move), and ``end``.

How a certificate is made (:func:`extract`): from the position, at each position of the
prover an oracle names a move that proves the bound there (:meth:`solver.oracles.oracle.Oracle.proving_move`),
and every reply of the other side is followed. Where the prover needs a finished game,
each move is asked to prove a composite score (value and depth, :mod:`solver.common.scores`)
one ply stronger than the one before it, so along the strategy the score proved rises
at every ply and no position can come back.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import stat
import sys
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from solver.common.files import replace_file
from solver.common.limits import size_name
from solver.common.scores import value_threshold, widen
from solver.game.board import Board
from solver.game.fen import write_fen_board
from solver.game.rules import (
    PASS,
    Move,
    O,
    Position,
    Rules,
    Side,
    X,
    parse_move_text,
    parse_rules,
    side_name,
)
from solver.oracles.oracle import Oracle

MAGIC = "ATAXX-CERTIFICATE 1"
DEFAULT_LIMIT = 5_000_000  # positions a certificate may reach (checking is plain Python: about a minute a million)
DEFAULT_MAX_SIZE = 256 << 20  # characters of text read (after gzip): about 4 M strategy lines of a 7 x 7 board
MAX_LINE = 1_000  # characters in a line (a strategy line of an 8 x 8 board is under 100)
MAX_BLANK = 100  # blank lines in a row between claims

Key = tuple[int, int, Side, int]


class CertificateError(ValueError):
    """A certificate that cannot be read (the message says where) or made."""


@dataclass
class Claim:
    """A bound on the value of ``position`` (X's side) and the strategy that proves it.

    ``side`` X: the value is at least ``bound``; O: at most ``bound``. ``strategy`` maps each
    position of the prover the strategy reaches (board bits, side, counter) to its move.
    """

    position: Position
    side: Side
    bound: int
    strategy: dict[Key, Move] = field(default_factory=dict)

    @property
    def needs_end(self) -> bool:
        """The prover needs every game to end (endless play, worth 0, does not satisfy the bound)."""
        return self.bound > 0 if self.side == X else self.bound < 0

    def text(self) -> str:
        return f"x {'>=' if self.side == X else '<='} {self.bound}"

    def describe(self) -> str:
        return f"X's value is at {'least' if self.side == X else 'most'} {self.bound:+d}"

    def satisfied_by(self, score: int) -> bool:
        return score >= self.bound if self.side == X else score <= self.bound


@dataclass(frozen=True)
class Verdict:
    """The checker's answer about one claim: ``confirmed``, what it says, and the work."""

    claim: Claim
    confirmed: bool
    reason: str
    positions: int

    def line(self) -> str:
        root = self.claim.position.fen()
        if self.confirmed:
            return (f"confirmed: {self.claim.text()} from {root} ({side_name(self.claim.side)}'s strategy: "
                    f"{len(self.claim.strategy):,} positions; {self.positions:,} positions checked)")
        return f"refuted: {self.claim.text()} from {root}: {self.reason}"


def key_of(p: Position) -> Key:
    return p.x, p.o, p.turn, p.counter


def _position_of(root: Position, key: Key) -> Position:
    x, o, turn, counter = key
    return Position(root.board, x, o, turn, counter, root.rules)


# -- checking -------------------------------------------------------------------------------------

def check(claim: Claim, limit: int = DEFAULT_LIMIT) -> Verdict:
    """Follow the claim's strategy from its position with the plain rules (module docstring)."""
    root = claim.position
    prover = claim.side
    seen: dict[Key, int] = {}  # 1: on the current path, 2: done (no cycle below)
    count = 0
    start = key_of(root)
    stack: list[tuple[Key, Iterator[Key] | None]] = [(start, None)]
    seen[start] = 1
    while stack:
        key, children = stack[-1]
        if children is None:
            count += 1
            if count > limit:
                return Verdict(claim, False, f"the strategy reaches more than {limit:,} positions (the checker's "
                                             "limit)", count)
            p = _position_of(root, key)
            result = p.result()
            if result is not None:
                if not claim.satisfied_by(result):
                    return Verdict(claim, False, f"the game ends with {result:+d} at {p.fen()}", count)
                children = iter(())
            elif p.turn == prover:
                move = claim.strategy.get(key)
                legal = p.legal_moves()
                if move is None:
                    if legal != [PASS]:
                        return Verdict(claim, False, f"no move of {side_name(prover)} at {p.fen()}", count)
                    move = PASS
                elif move not in legal:
                    return Verdict(claim, False, f"{p.move_name(move)} is not legal for {side_name(prover)} at "
                                                 f"{p.fen()}", count)
                children = iter([key_of(p.push(move))])
            else:
                children = iter([key_of(p.push(m)) for m in p.legal_moves()])
            stack[-1] = (key, children)
        child = next(children, None)
        if child is None:
            seen[key] = 2
            stack.pop()
            continue
        state = seen.get(child)
        if state == 1:
            if claim.needs_end:
                return Verdict(claim, False, "the strategy can repeat a position, so a game may never end, at "
                                             f"{_position_of(root, child).fen()}", count)
            continue  # endless play: worth 0, which satisfies the bound
        if state == 2:
            continue
        seen[child] = 1
        stack.append((child, None))
    return Verdict(claim, True, "", count)


# -- making ---------------------------------------------------------------------------------------

def extract(oracle: Oracle, position: Position, side: Side, bound: int, limit: int = DEFAULT_LIMIT,
            progress: Callable[[int], None] | None = None) -> Claim:
    """The claim that X's value is at least (``side`` X) or at most (O) ``bound``, with a
    strategy read from ``oracle`` (module docstring). Raises :class:`CertificateError` past
    ``limit`` positions, or when the oracle cannot prove a move (the bound was not proved),
    and the oracle's LimitError when a limit stops it."""
    claim = Claim(position, side, bound)
    view = bound if side == X else -bound  # the bound from the prover's side
    seen: dict[Key, int] = {}  # the strongest score proved (prover's positions) or asked (the others)
    count = 0
    stack: list[tuple[Position, int]] = [(position, value_threshold(view))]
    while stack:
        p, demand = stack.pop()
        if p.is_over():
            continue
        key = key_of(p)
        if not claim.needs_end:
            demand = value_threshold(view)  # a fixed threshold: cycles are fine
        old = seen.get(key)
        if old is not None and old >= demand:
            continue
        count += 1
        if count > limit:
            raise CertificateError(f"the strategy for {claim.text()} reaches more than {limit:,} positions")
        if progress is not None and count % 4096 == 0:
            progress(count)
        if p.turn == side:
            proof = oracle.proving_move(p, demand)
            if proof is None:
                raise CertificateError(f"no move of {side_name(side)} proves {claim.text()} at {p.fen()}")
            move, score = proof
            claim.strategy[key] = move
            seen[key] = score
            if claim.needs_end:
                # the score proved at the child is one ply stronger: it rises along the strategy
                stack.append((p.push(move), widen(score)))
            else:
                stack.append((p.push(move), demand))
        else:
            seen[key] = demand
            for m in p.legal_moves():
                stack.append((p.push(m), widen(demand) if claim.needs_end else demand))
    return claim


def claims_to_prove(position: Position, lower: int, upper: int) -> list[tuple[Side, int]]:
    """The bounds worth a certificate: each one narrower than the widest (X's lower bound, O's upper)."""
    squares = position.board.playable.bit_count()
    out: list[tuple[Side, int]] = []
    if lower > -squares:
        out.append((X, lower))
    if upper < squares:
        out.append((O, upper))
    return out


# -- files ----------------------------------------------------------------------------------------

def _lines(claims: list[Claim]) -> Iterator[str]:
    yield MAGIC + "\n"
    for claim in claims:
        root = claim.position
        yield f"claim: {claim.text()}\n"
        yield f"position: {root.fen()}\n"
        yield f"rules: {root.rules.name}\n"
        yield f"strategy: {len(claim.strategy)}\n"
        for (x, o, turn, counter), move in claim.strategy.items():
            yield f"{write_fen_board(root.board, x, o)} {turn} {counter} {root.move_name(move)}\n"
        yield "end\n"


def write(path: str | os.PathLike[str], claims: list[Claim]) -> None:
    """Write the claims to ``path`` whole or not at all (text; :func:`read` also reads it gzipped)."""
    replace_file(path, _lines(claims))


class ReadWork:
    """What :func:`read` did: ``chars`` characters of text scanned (after gzip), ``lines`` lines.

    Both are bounded: ``chars`` by ``max_size`` (plus one line), ``lines`` by ``chars``; the
    memory held is the claims read, at most one strategy entry per line read. A fuzz test can
    assert the bound on any input.
    """

    def __init__(self) -> None:
        self.chars = 0
        self.lines = 0


def read(path: str | os.PathLike[str], max_size: int = DEFAULT_MAX_SIZE, work: ReadWork | None = None,
         stdin: BinaryIO | None = None) -> list[Claim]:
    """The claims of a certificate file (``-``: ``stdin``, by default the standard input's
    bytes); raises :class:`CertificateError` naming the line.

    Read as a stream (gzipped or not) with a limit on a line (:data:`MAX_LINE` characters) and on
    the whole (``max_size`` characters of text, after gzip): a gzip bomb, ``/dev/zero`` or a line
    without end is refused in one line once past the limit, never read whole into memory. What is
    not a regular file (a FIFO, a device, a directory) is refused unopened, so nothing blocks.
    """
    name = str(path)
    if name == "-":
        raw: BinaryIO = stdin if stdin is not None else sys.stdin.buffer
        return _read_stream(raw, "<stdin>", max_size, work)
    try:
        # O_NONBLOCK: a FIFO opened without a writer would block here; it is refused just below
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise CertificateError(f"{name}: cannot read it ({exc.strerror or exc.__class__.__name__})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise CertificateError(f"{name}: not a regular file ({_kind(mode)}); give a certificate file, or - for "
                                   "the standard input")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with f:
        return _read_stream(f, name, max_size, work)


def _kind(mode: int) -> str:
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a file"


def _read_stream(raw: BinaryIO, name: str, max_size: int, work: ReadWork | None) -> list[Claim]:
    try:
        head = raw.read(2)
    except OSError as exc:
        raise CertificateError(f"{name}: cannot read it ({exc.strerror or exc.__class__.__name__})") from None
    stream: BinaryIO = io.BufferedReader(_Prefixed(head, raw))
    if head == b"\x1f\x8b":
        stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[assignment]
    return _parse(_Lines(stream, name, max_size, work or ReadWork()), name)


class _Prefixed(io.RawIOBase):
    """``head`` (bytes already read) then the rest of ``raw``."""

    def __init__(self, head: bytes, raw: BinaryIO) -> None:
        self._head = head
        self._raw = raw

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._raw.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


class _Lines:
    """The text's lines, each at most :data:`MAX_LINE` characters, at most ``max_size`` in all."""

    def __init__(self, stream: BinaryIO, name: str, max_size: int, work: ReadWork) -> None:
        self.stream = stream
        self.name = name
        self.max_size = max_size
        self.work = work
        self.n = 0

    def readline(self) -> str:
        """The next line without its end, or '' at the end of the file (None is never returned)."""
        self.n += 1
        try:
            data = self.stream.readline(MAX_LINE + 2)
        except (OSError, EOFError, zlib.error) as exc:
            # a corrupt or cut gzip stream (BadGzipFile is an OSError), or a read error
            raise CertificateError(f"{self.name}:{self.n}: cannot read it ({_why(exc)})") from None
        self.work.chars += len(data)
        self.work.lines += 1
        if len(data.rstrip(b"\r\n")) > MAX_LINE:
            raise CertificateError(f"{self.name}:{self.n}: a line longer than {MAX_LINE:,} characters (not a "
                                   "certificate line)")
        if self.work.chars > self.max_size:
            raise CertificateError(f"{self.name}:{self.n}: more than {size_name(self.max_size)} of text (the "
                                   "reader's limit; --max-size raises it)")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise CertificateError(f"{self.name}:{self.n}: not UTF-8 text") from None
        return text

    def next(self) -> str:
        line = self.readline()
        if not line:
            raise CertificateError(f"{self.name}:{self.n}: the file ends early")
        return line.rstrip("\r\n")


def _why(exc: BaseException) -> str:
    if isinstance(exc, zlib.error) or isinstance(exc, gzip.BadGzipFile):
        return f"a corrupt gzip stream: {exc}"
    if isinstance(exc, EOFError):
        return "the gzip stream is cut short"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return f"{exc.__class__.__name__}: {exc}"


def _parse(lines: _Lines, name: str) -> list[Claim]:
    def next_line() -> str:
        return lines.next()

    def field_of(line: str, key: str) -> str:
        prefix = key + ":"
        if not line.startswith(prefix):
            raise CertificateError(f"{name}:{lines.n}: expected '{key}:', found {line[:40]!r}")
        return line[len(prefix):].strip()

    if lines.readline().rstrip("\r\n") != MAGIC:
        raise CertificateError(f"{name}:1: not a certificate (the first line is not {MAGIC!r})")
    claims = []
    blank = 0
    while True:
        line = lines.readline()
        if not line or not line.strip():
            if line and not line.strip():
                blank += 1
                if blank > MAX_BLANK:
                    raise CertificateError(f"{name}:{lines.n}: more than {MAX_BLANK} blank lines in a row (not a "
                                           "certificate)")
                continue
            break
        blank = 0
        n = lines.n
        text_claim = field_of(line.rstrip("\r\n"), "claim").split()
        if len(text_claim) != 3 or text_claim[0] != "x" or text_claim[1] not in (">=", "<="):
            raise CertificateError(f"{name}:{n}: a claim reads 'x >= N' or 'x <= N'")
        bound_text = text_claim[2]
        if not re.fullmatch(r"[-+]?[0-9]{1,3}", bound_text):
            raise CertificateError(f"{name}:{n}: {bound_text[:20]!r} is not a number from -64 to 64")
        bound = int(bound_text)
        fen = field_of(next_line(), "position")
        try:
            rules: Rules = parse_rules(field_of(next_line(), "rules"))
        except ValueError as exc:
            raise CertificateError(f"{name}:{lines.n}: {exc}") from None
        try:
            root = Position.from_fen(fen, rules, name, lines.n - 1)
        except ValueError as exc:
            raise CertificateError(str(exc)) from None  # it names the file and line
        count_text = field_of(next_line(), "strategy")
        if not re.fullmatch(r"[0-9]{1,12}", count_text):
            raise CertificateError(f"{name}:{lines.n}: the strategy's count is not a number")
        count = int(count_text)
        claim = Claim(root, X if text_claim[1] == ">=" else O, bound)
        for _ in range(count):
            line = next_line()
            n = lines.n
            parts = line.split()
            if len(parts) != 4 or parts[1] not in ("x", "o") or not re.fullmatch(r"[0-9]{1,9}", parts[2]):
                raise CertificateError(f"{name}:{n}: a strategy line reads 'BOARD SIDE COUNTER MOVE'")
            try:
                p = Position.from_fen(f"{parts[0]} {parts[1]} {parts[2]}", rules, name, n)
            except ValueError as exc:
                raise CertificateError(str(exc)) from None  # it names the file and line
            if p.board != root.board:
                raise CertificateError(f"{name}:{n}: a position of another board")
            try:
                move = p.parse_move(parts[3]) if parts[3] not in ("0000", "pass") else PASS
            except ValueError:
                move = _unchecked_move(p.board, parts[3], name, n)  # the checker says why it is wrong
            claim.strategy[key_of(p)] = move
        if next_line() != "end":
            raise CertificateError(f"{name}:{lines.n}: expected 'end' after {count:,} strategy lines")
        claims.append(claim)
    return claims


def _unchecked_move(board: Board, text: str, name: str, n: int) -> Move:
    try:
        return parse_move_text(board, text)[0]
    except ValueError as exc:
        raise CertificateError(f"{name}:{n}: {exc}") from None
