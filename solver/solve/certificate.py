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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from solver.common.files import replace_file
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


def read(path: str | os.PathLike[str]) -> list[Claim]:
    """The claims of a certificate file; raises :class:`CertificateError` naming the line."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        text = raw.decode("utf-8")
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as exc:
        raise CertificateError(f"{name}: cannot read it ({exc.__class__.__name__}: {exc})") from None
    lines = io.StringIO(text)
    n = 0

    def next_line() -> str:
        nonlocal n
        line = lines.readline()
        n += 1
        if not line:
            raise CertificateError(f"{name}:{n}: the file ends early")
        return line.rstrip("\r\n")

    def field_of(line: str, key: str) -> str:
        prefix = key + ":"
        if not line.startswith(prefix):
            raise CertificateError(f"{name}:{n}: expected '{key}:', found {line[:40]!r}")
        return line[len(prefix):].strip()

    if next_line() != MAGIC:
        raise CertificateError(f"{name}:1: not a certificate (the first line is not {MAGIC!r})")
    claims = []
    while True:
        line = lines.readline()
        n += 1
        if not line or not line.strip():
            if line and not line.strip():
                continue
            break
        text_claim = field_of(line.rstrip("\r\n"), "claim").split()
        if len(text_claim) != 3 or text_claim[0] != "x" or text_claim[1] not in (">=", "<="):
            raise CertificateError(f"{name}:{n}: a claim reads 'x >= N' or 'x <= N'")
        try:
            bound = int(text_claim[2])
        except ValueError:
            raise CertificateError(f"{name}:{n}: {text_claim[2][:20]!r} is not a number") from None
        fen = field_of(next_line(), "position")
        try:
            rules: Rules = parse_rules(field_of(next_line(), "rules"))
            root = Position.from_fen(fen, rules, name, n - 1)
        except ValueError as exc:
            raise CertificateError(f"{name}:{n}: {exc}") from None
        try:
            count = int(field_of(next_line(), "strategy"))
        except ValueError:
            raise CertificateError(f"{name}:{n}: the strategy's count is not a number") from None
        claim = Claim(root, X if text_claim[1] == ">=" else O, bound)
        for _ in range(count):
            line = next_line()
            parts = line.split()
            if len(parts) != 4 or parts[1] not in ("x", "o") or not parts[2].isdigit():
                raise CertificateError(f"{name}:{n}: a strategy line reads 'BOARD SIDE COUNTER MOVE'")
            try:
                p = Position.from_fen(f"{parts[0]} {parts[1]} {parts[2]}", rules, name, n)
            except ValueError as exc:
                raise CertificateError(f"{name}:{n}: {exc}") from None
            if p.board != root.board:
                raise CertificateError(f"{name}:{n}: a position of another board")
            try:
                move = p.parse_move(parts[3]) if parts[3] not in ("0000", "pass") else PASS
            except ValueError:
                move = _unchecked_move(p.board, parts[3], name, n)  # the checker says why it is wrong
            claim.strategy[key_of(p)] = move
        if next_line() != "end":
            raise CertificateError(f"{name}:{n}: expected 'end' after {count:,} strategy lines")
        claims.append(claim)
    return claims


def _unchecked_move(board: Board, text: str, name: str, n: int) -> Move:
    try:
        return parse_move_text(board, text)[0]
    except ValueError as exc:
        raise CertificateError(f"{name}:{n}: {exc}") from None
