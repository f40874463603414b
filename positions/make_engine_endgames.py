"""Write solver/data/endgames-engines-7x7.txt: 7 x 7 endgames from games between searching players.

Engines go wrong with 8 to 12 empty squares left, in games between players that
search; this suite is made of such games (the suite of `ataxx-solve bench
engines-N`). Each game starts from the standard start on one of the four block
layouts engines play (none, and the three of SPEC's perft table), under the
``uai`` rules (a wiped-out side ends the game; the halfmove clock counts); the
first plies are random (seeded), then the built-in searching players move:
``alphabeta:2`` and ``alphabeta:3`` against each other and against ``gataxx``.
A game gives at most one position per size (4 to 14 empty squares): the first
ply with that many empty squares in even games, the last in odd ones, with the
side to move, halfmove clock and move number of the game; games in which a side
is wiped out first, or that end early, give what they reached. At most 3
positions of a size come from one layout, so that every layout is played. Run
from the repository root (several minutes; alphabeta:3 is plain Python):

    python positions/make_engine_endgames.py > solver/data/endgames-engines-7x7.txt
"""

from __future__ import annotations

import random
import sys

from solver.io.formats import parse_fen
from solver.play.players import make_player
from solver.game.rules import UAI, Position

SIZES = (4, 6, 8, 10, 12, 14)
PER_SIZE = 10
PER_LAYOUT = 3
RANDOM_PLIES = 4
LAYOUTS = {
    "no blocks": "x5o/7/7/7/7/7/o5x x 0 1",
    "blocks c5 e5 c3 e3": "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1",
    "blocks c5 e5 d4 c3 e3 ... (cross)": "x5o/7/2-1-2/3-3/2-1-2/7/o5x x 0 1",
    "blocks d5 c4 e4 d3 (diamond)": "x5o/7/3-3/2-1-2/3-3/7/o5x x 0 1",
}
PAIRS = [("alphabeta:2", "alphabeta:3"), ("alphabeta:3", "gataxx"), ("gataxx", "alphabeta:2"),
         ("alphabeta:3", "alphabeta:2"), ("alphabeta:2", "gataxx"), ("gataxx", "alphabeta:3")]


def play_game(fen: str, x_name: str, o_name: str, seed: int) -> dict[int, Position]:
    """The positions of one game by number of empty squares: the first (even seeds) or the
    last (odd seeds) ply with each count."""
    rng = random.Random(seed)
    players = {"x": make_player(x_name, seed), "o": make_player(o_name, seed + 1)}
    p = parse_fen(fen, UAI)
    recorded: dict[int, Position] = {}
    ply = 0
    while not p.is_over():
        e = p.empty.bit_count()
        if e in SIZES and (e not in recorded or seed % 2 == 1):
            recorded[e] = p
        if ply < RANDOM_PLIES:
            move = rng.choice(p.legal_moves())
        else:
            move = players[p.turn].choose(p)
        p = p.play(move)
        ply += 1
    return recorded


def main() -> int:
    print("; 7 x 7 endgames from games between searching players (positions/make_engine_endgames.py):")
    print("; the standard start on four block layouts, four random plies, then alphabeta:2, alphabeta:3")
    print("; and gataxx against each other under the uai rules. The name gives the players (X first), the")
    print("; layout, the game's seed and whether the position is the first or the last ply of the game")
    print("; with that many empty squares; side to move, halfmove clock and move number as in the game.")
    found: dict[int, list[tuple[str, Position]]] = {n: [] for n in SIZES}
    seed = 0
    layouts = list(LAYOUTS.items())
    while any(len(v) < PER_SIZE for v in found.values()):
        seed += 1
        x_name, o_name = PAIRS[seed % len(PAIRS)]
        layout, fen = layouts[(seed // len(PAIRS)) % len(layouts)]
        recorded = play_game(fen, x_name, o_name, seed)
        which = "last" if seed % 2 else "first"
        for n, q in recorded.items():
            if len(found[n]) < PER_SIZE and sum(layout in label for label, _ in found[n]) < PER_LAYOUT:
                found[n].append((f"{n} empty squares, {x_name} vs {o_name}, {layout}, game {seed}, {which} ply", q))
        print(f"game {seed}: {x_name} vs {o_name}, {layout}: sizes {sorted(recorded)}", file=sys.stderr, flush=True)
    for n in SIZES:
        for label, q in found[n]:
            print()
            print(f"name: {label}")
            print(q.fen())
    return 0


if __name__ == "__main__":
    sys.exit(main())
