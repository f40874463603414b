"""Built-in players: the simple AIs whose choices the solver audits (``builtin:NAME``).

- ``random``: any legal move.
- ``greedy``: the move that leaves the mover the most pieces.
- ``buchheit``: the move score of Paul Buchheit's Ataxxlet (AtaxxPaul): enemy pieces
  next to the destination, plus 0.2 for each own piece there, minus 0.2 for each own
  piece next to a jump's origin (left exposed), plus 1 for a clone, plus 0.05 for a
  destination on the edge of the board.
- ``gataxx``: one ply of look-ahead: the move after which the opponent's best greedy
  reply leaves the mover the most pieces (the worst case for the mover).
- ``alphabeta:D``: depth-D alpha-beta search on the piece difference (a finished game
  scores its result, weighted so that a win beats any material).

Ties are broken at random with the player's own generator (seeded, so games repeat).
"""

from __future__ import annotations

import random

from solver.game.board import popcount
from solver.game.rules import Move, Position, Side, X
from solver.play.adapters import ColonProgram, CS61BProgram, History, make_program
from solver.play.uai_client import UAIClient


class Player:
    name = "player"

    def __init__(self, seed: int | None = 0):
        self.rng = random.Random(seed)

    def choose(self, position: Position) -> Move:
        moves = position.legal_moves()
        if not moves:
            raise ValueError("the game is over: there is no move to choose")
        scored = [(self.score(position, m), m) for m in moves]
        top = max(s for s, _ in scored)
        return self.rng.choice([m for s, m in scored if s == top])

    def score(self, position: Position, move: Move) -> float:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"builtin:{self.name}"


def _mover_material(p: Position, side: Side) -> int:
    return p.material() if side == X else -p.material()


class RandomPlayer(Player):
    name = "random"

    def score(self, position: Position, move: Move) -> float:
        return 0


class GreedyPlayer(Player):
    name = "greedy"

    def score(self, position: Position, move: Move) -> float:
        return _mover_material(position.push(move), position.turn)


class BuchheitPlayer(Player):
    name = "buchheit"

    def score(self, position: Position, move: Move) -> float:
        if move.is_pass:
            return 0.0
        board = position.board
        mine, theirs = position.pieces(position.turn), position.pieces(position.turn.other)
        near = board.neighbours[move.to]
        score = popcount(near & theirs) + 0.2 * popcount(near & mine & ~(1 << max(move.frm, 0)))
        if move.is_jump:
            score -= 0.2 * popcount(board.neighbours[move.frm] & mine)
        else:
            score += 1
        f, r = board.file_of(move.to), board.rank_of(move.to)
        if f in (0, board.cols - 1) or r in (0, board.rows - 1):
            score += 0.05
        return score


class GataxxPlayer(Player):
    name = "gataxx"

    def score(self, position: Position, move: Move) -> float:
        after = position.push(move)
        replies = after.legal_moves()
        if not replies:
            return _mover_material(after, position.turn)
        return min(_mover_material(after.push(r), position.turn) for r in replies)


WIN_WEIGHT = 1000
MAX_ALPHABETA_DEPTH = 32  # far beyond what this pure-Python search finishes; deeper recursion would overflow


class AlphaBetaPlayer(Player):
    def __init__(self, depth: int, seed: int | None = 0):
        super().__init__(seed)
        if not 1 <= depth <= MAX_ALPHABETA_DEPTH:
            raise ValueError(f"alphabeta needs a depth from 1 to {MAX_ALPHABETA_DEPTH}, not {depth}")
        self.depth = depth
        self.name = f"alphabeta:{depth}"

    def _value(self, p: Position, depth: int, alpha: float, beta: float) -> float:
        """Negamax value for the side to move."""
        result = p.result()
        sign = 1 if p.turn == X else -1
        if result is not None:
            return sign * result * WIN_WEIGHT if result else 0
        if depth == 0:
            return sign * p.material()
        best = -float("inf")
        for m in p.legal_moves():
            v = -self._value(p.push(m), depth - 1, -beta, -alpha)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best

    def score(self, position: Position, move: Move) -> float:
        return -self._value(position.push(move), self.depth - 1, -float("inf"), float("inf"))


BUILTIN = {"random": RandomPlayer, "greedy": GreedyPlayer, "buchheit": BuchheitPlayer, "gataxx": GataxxPlayer}


def make_player(name: str, seed: int | None = 0) -> Player:
    """A player from its name: random, greedy, buchheit, gataxx or alphabeta:D."""
    name = name.strip().lower()
    if name.startswith("builtin:"):
        name = name[len("builtin:"):]
    if name.startswith("alphabeta"):
        _, _, depth = name.partition(":")
        if not (depth.isascii() and depth.isdigit() and len(depth) <= 4):
            raise ValueError(f"write alphabeta:D with a depth D from 1 to {MAX_ALPHABETA_DEPTH}, not {name[:40]!r}")
        return AlphaBetaPlayer(int(depth), seed)
    if name not in BUILTIN:
        raise ValueError(f"unknown player {name[:40]!r} (known: {', '.join(BUILTIN)}, alphabeta:D)")
    return BUILTIN[name](seed)


# -- players to ask (verify) ----------------------------------------------------------------------

class BuiltinAsker:
    """A built-in player as something to ask for moves."""

    def __init__(self, spec: str, seed: int | None = 0):
        self.player = make_player(spec, seed)
        self.name = repr(self.player)  # builtin:NAME, as make_player read it

    def bestmove(self, p: Position, history: History | None = None) -> str:
        return p.move_name(self.player.choose(p))

    def close(self) -> None:
        pass


class EngineAsker:
    """A UAI engine (:class:`solver.play.uai_client.UAIClient`) as something to ask for moves."""

    def __init__(self, command: str, go: str, timeout: float):
        self.engine = UAIClient(command, go=go, timeout=timeout)
        self.name = command

    def bestmove(self, p: Position, history: History | None = None) -> str:
        """The engine's answer (the position is sent as a FEN: ``history`` is not needed); raises :class:`solver.play.uai_client.EngineError` (its subclasses say whether
        the engine crashed, hung or answered garbage)."""
        return self.engine.bestmove(p.fen())

    def close(self) -> None:
        self.engine.close()


def make_asker(spec: str, seed: int | None = 0, go: str = "depth 6",
               timeout: float = 10.0) -> BuiltinAsker | EngineAsker | CS61BProgram | ColonProgram:
    """A player to ask for moves: ``builtin:NAME`` (:func:`make_player`), ``cs61b:CMD`` or
    ``colon:CMD`` (a program in those languages: :mod:`solver.play.adapters`), or a UAI engine command
    (started at the first question; ``go`` its search arguments, ``timeout`` per move). Raises
    ValueError for a spec that names no player (the message says why)."""
    if spec.strip().lower().startswith("builtin:"):
        return BuiltinAsker(spec, seed)
    program = make_program(spec, seed, timeout)
    if program is not None:
        return program
    return EngineAsker(spec, go, timeout)
