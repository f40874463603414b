"""Write solver/data/endgames-7x7.txt (the suite of `ataxx-solve bench endgames-N`): 7 x 7 endgames from games of the built-in players.

Each game starts from the standard start; the two sides are built-in players
(solver.play.players), their ties broken at random with a seeded generator. The position
is recorded, with the side to move, the first time the board has 20, 18, ..., 4, 2
empty squares. Games in which a side is wiped out first, or that end before 2 empty
squares are left, are skipped. Half of each size comes from greedy against greedy
(the suite's first positions), half from mixed pairs of players, so that the suite
is not all one style of play. Run from the repository root:

    python positions/make_endgames.py > solver/data/endgames-7x7.txt
"""

import sys

from solver.io.formats import parse_fen, write_fen
from solver.play.players import make_player

EMPTIES = (20, 18, 16, 14, 12, 10, 8, 6, 4, 2)
PER_KIND = 5
KINDS = [
    [("greedy", "greedy")],
    [("buchheit", "gataxx"), ("gataxx", "alphabeta:2"), ("alphabeta:2", "buchheit"), ("gataxx", "greedy")],
]


def play_game(x_name: str, o_name: str, seed: int) -> dict:
    """The positions of one game by number of empty squares (first time each count appears)."""
    players = {"x": make_player(x_name, seed), "o": make_player(o_name, seed + 1)}
    p = parse_fen("startpos")
    recorded = {}
    while not p.is_over():
        e = p.empty.bit_count()
        if e in EMPTIES and e not in recorded and p.x and p.o:
            recorded[e] = p
        p = p.play(players[p.turn].choose(p))
    return recorded


def main() -> None:
    print("; 7 x 7 endgames under the classic rules, from games of the built-in players")
    print("; (positions/make_endgames.py; the name gives the players, X first, and the game's seed).")
    print("; Side to move as in the game. Per size: 5 games of greedy against greedy, 5 of mixed players.")
    found = {n: [] for n in EMPTIES}
    for pairs in KINDS:
        count = {n: 0 for n in EMPTIES}
        seed = 0
        while any(c < PER_KIND for c in count.values()):
            seed += 1
            x_name, o_name = pairs[seed % len(pairs)]
            recorded = play_game(x_name, o_name, seed)
            if len(recorded) < len(EMPTIES):
                continue  # a side was wiped out, or the game ended early
            for n, q in recorded.items():
                if count[n] < PER_KIND:
                    count[n] += 1
                    found[n].append((f"{x_name} vs {o_name}, game {seed}", q))
    for n in sorted(EMPTIES):
        for label, q in found[n]:
            print()
            print(f"name: {n} empty squares, {label}")
            print(write_fen(q))


if __name__ == "__main__":
    sys.exit(main())
