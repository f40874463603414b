"""A scripted program in the text language of Berkeley's CS 61B Ataxx, for the tests of
`ataxx-solve verify --engine 'cs61b:CMD'`.

    python fake_cs61b.py MODE [FILE]

It reads commands, one a line: `clear` (a new game: the standard start, setup state), `seed N`,
`block C` (C and its mirror images about the middle row and column; setup only), `auto C` and
`manual C` (C red or blue; setup only; at first red is manual and blue auto), moves (`a7-b6`,
`-` for a pass: in setup, or when a manual player is to move), `dump` (the board between `===`
lines), `start` (setup to playing), `quit`. Red, the first mover, is X. An automatic player
writes `Red moves a7-b6.` or `Blue passes.`; the end of a game is `Red wins.`, `Blue wins.` or
`Draw.`; a bad command is an error line on standard error.

MODE decides the automatic player's move: first (the first legal move), last (the last one),
good (the solver's best move: small positions only), illegal (onto an occupied square), garbage
(a line that is not a move), hang (nothing, ever), crash (exits at once), noblock (ignores
`block`, so its dump is not the game's board), wrongside (names the other colour), over (says
`Draw.` instead of moving), or a comma-separated cycle of these, one per move. With FILE, the
mode is played only the first time (when FILE does not exist yet; it creates it), then first.
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from solver.solve.analysis import Analyzer  # noqa: E402
from solver.game.board import Board  # noqa: E402
from solver.game.notation import cs61b_move  # noqa: E402
from solver.oracles.reference import ReferenceOracle  # noqa: E402
from solver.game.rules import CS61B, X, Position  # noqa: E402

SIZE = 7


def start(blocks: int = 0) -> Position:
    board = Board(SIZE, SIZE, blocks)
    x, o = board.start_squares()
    return Position(board, x, o, X, 0, CS61B)


def dump(p: Position) -> str:
    rows = []
    for rank in range(SIZE - 1, -1, -1):
        cells = []
        for f in range(SIZE):
            sq = p.board.square(f, rank)
            side = p.piece_at(sq)
            cells.append("X" if p.board.is_block(sq) else "-" if side is None else "r" if side == X else "b")
        rows.append("  " + " ".join(cells))
    return "===\n" + "\n".join(rows) + "\n==="


def color(side) -> str:
    return "Red" if side == X else "Blue"


def main() -> None:
    modes = sys.argv[1].split(",")
    once = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    asked = 0
    p = start()
    state = "setup"
    auto = {"red": False, "blue": True}
    out = sys.stdout

    def say(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    def finish() -> None:
        nonlocal state
        if p.is_over():
            score = p.material()
            say("Red wins." if score > 0 else "Blue wins." if score < 0 else "Draw.")
            state = "finished"

    def autos() -> None:
        nonlocal p, asked
        while state == "playing" and auto[color(p.turn).lower()]:
            mode = modes[asked % len(modes)]
            asked += 1
            if once is not None:
                if once.exists():
                    mode = "first"
                else:
                    once.write_text("done")
            legal = p.legal_moves()
            if mode == "crash":
                sys.exit(3)
            if mode == "hang":
                while True:
                    sys.stdin.readline() or time.sleep(1)
            if mode == "garbage":
                say("I think I will move somewhere nice")
                say(f"{color(p.turn)} moves somewhere.")
                return
            if mode == "over":
                say("Draw.")
                return
            if mode == "illegal":
                occupied = p.pieces(p.turn.other) & -p.pieces(p.turn.other)
                mine = p.pieces(p.turn) & -p.pieces(p.turn)
                say(f"{color(p.turn)} moves {p.board.square_name(mine.bit_length() - 1)}-"
                    f"{p.board.square_name(occupied.bit_length() - 1)}.")
                return
            if mode == "good":
                move = Analyzer(ReferenceOracle()).moves(p)[0].move
            else:
                move = legal[-1] if mode == "last" else legal[0]
            who = color(p.turn.other) if mode == "wrongside" else color(p.turn)
            say(f"{who} passes." if move.is_pass else f"{who} moves {cs61b_move(p, move)}.")
            p = p.push(move)
            finish()

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd = words[0].lower()
        if cmd == "quit":
            return
        if cmd == "clear":
            p, state = start(), "setup"
        elif cmd == "seed":
            pass
        elif cmd == "dump":
            say(dump(p))
        elif cmd in ("auto", "manual") and state == "setup" and len(words) == 2 and words[1] in auto:
            auto[words[1]] = cmd == "auto"
        elif cmd == "block" and state == "setup" and len(words) == 2:
            if "noblock" in modes:
                continue
            sq = p.board.parse_square(words[1])
            f, r = p.board.file_of(sq), p.board.rank_of(sq)
            blocks = p.board.blocks
            for f2 in (f, SIZE - 1 - f):
                for r2 in (r, SIZE - 1 - r):
                    blocks |= 1 << p.board.square(f2, r2)
            p = start(blocks)
        elif cmd == "start" and state == "setup":
            state = "playing"
            finish()
            autos()
        elif state in ("setup", "playing") and (cmd == "-" or "-" in cmd):
            try:
                p = p.push(p.parse_move(cmd))
            except ValueError:
                print(f"Illegal move: {cmd}", file=sys.stderr)
                continue
            if state == "playing":
                finish()
                autos()
        else:
            print(f"Command not understood: {line.strip()}", file=sys.stderr)


if __name__ == "__main__":
    main()
