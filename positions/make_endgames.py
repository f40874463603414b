"""Write positions/endgames-7x7.txt: 7 x 7 endgames from games of a randomised greedy player.

Each game starts from the standard start; both sides play the built-in greedy player
(the move leaving the most pieces, ties broken at random with a seeded generator).
The position is recorded, with the side to move, the first time the board has 20,
18, ..., 6, 4 empty squares. Games in which a side is wiped out first are skipped.
Run from the repository root:

    python positions/make_endgames.py > positions/endgames-7x7.txt
"""

import sys

from solver.formats import parse_fen, write_fen
from solver.players import GreedyPlayer

EMPTIES = (20, 18, 16, 14, 12, 10, 8, 6, 4)
PER_COUNT = 10


def main() -> None:
    found = {n: [] for n in EMPTIES}
    seed = 0
    while any(len(v) < PER_COUNT for v in found.values()):
        seed += 1
        player = GreedyPlayer(seed)
        p = parse_fen("startpos")
        recorded = {}
        while not p.is_over():
            e = p.empty.bit_count()
            if e in found and e not in recorded and p.x and p.o:
                recorded[e] = p
            p = p._apply(player.choose(p))
        if len(recorded) < len(EMPTIES):
            continue  # a side was wiped out before the board filled up
        for n, q in recorded.items():
            if len(found[n]) < PER_COUNT:
                found[n].append((seed, q))
    print("; 7 x 7 endgames under the classic rules, from games of a randomised greedy player")
    print("; (positions/make_endgames.py; seed = the game's random seed). Side to move as in the game.")
    for n in sorted(EMPTIES):
        for seed, q in found[n]:
            print()
            print(f"name: {n} empty squares, game {seed}")
            print(write_fen(q))


if __name__ == "__main__":
    sys.exit(main())
