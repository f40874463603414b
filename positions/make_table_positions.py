"""Write a position file of boards a tablebase holds, with the values the tables give as `expect:`.

The positions come from games of the built-in players (greedy against random, seeded) from the
board's standard start, under the classic rules: the first time a game's board has one of the
numbers of empty squares asked for, both sides still on it and the game not over, it is kept
with the side to move of the game (a board without one would also get its orthodox summary, which
takes minutes from the tables). The values (X's side) are read from the tables (Tablebase.probe),
never from a search, so that solving the file without the tables checks
the tables against the search. Run from the repository root, after building the tables:

    ataxx-solve tables build 4x4 --dir tables/
    python positions/make_table_positions.py 4x4 tables/ --empty 2-12 --count 8 > positions/tables-4x4.txt
    ataxx-solve --tables tables/ positions/tables-4x4.txt      # answered (tables)
    ataxx-solve --solver search positions/tables-4x4.txt       # the same values by the search

    ataxx-solve tables build 5x5 --dir tables5/ --tiers 0-2
    python positions/make_table_positions.py 5x5 tables5/ --empty 1-2 --count 8 > positions/tables-5x5.txt
"""

import argparse

from solver.game.rules import CLASSIC, O, X, Position
from solver.io.formats import write_fen
from solver.io.pgn import parse_empty_range
from solver.play.players import make_player
from solver.tables.probe import Tablebase
from solver.tables.storage import board_name, parse_board_name


def positions(rows: int, cols: int, empties: range, count: int) -> list[tuple[str, Position]]:
    """``count`` boards from seeded games, spread over ``empties`` (the first board of each game
    with a number of empty squares not yet taken as often as the others)."""
    found: list[tuple[str, Position]] = []
    taken = {n: 0 for n in empties}
    seed = 0
    while len(found) < count and seed < 10_000:
        seed += 1
        names = ("greedy", "random") if seed % 2 else ("random", "greedy")
        players = {X: make_player(names[0], seed), O: make_player(names[1], seed + 1)}
        p = Position.start(rows, cols, CLASSIC)
        while not p.is_over():
            n = p.empty.bit_count()
            if n in taken and taken[n] == min(taken.values()) and p.x and p.o:
                taken[n] += 1
                found.append((f"{names[0]} vs {names[1]}, game {seed}", p))
                break
            p = p.play(players[p.turn].choose(p))
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("board", help="ROWSxCOLS, an open board (no blocks)")
    ap.add_argument("tables", help="the tablebase directory")
    ap.add_argument("--empty", default="1-2", help="numbers of empty squares, A-B")
    ap.add_argument("--count", type=int, default=8)
    args = ap.parse_args()
    board = parse_board_name(args.board)
    lo, hi = parse_empty_range(args.empty)
    tb = Tablebase(args.tables)
    name = board_name(board)
    print(f"; {name} boards from games of the built-in players (greedy against random, seeded), classic rules,")
    print(f"; {lo} to {hi} empty squares; the values are the {name} tables' (Tablebase.probe), checked by the")
    print("; search without the tables. Made and checked by (positions/make_table_positions.py):")
    print(";")
    print(f";     ataxx-solve tables build {name} --dir tables/" + (f" --tiers 0-{hi}" if board.size > 16 else ""))
    print(f";     python positions/make_table_positions.py {name} tables/ --empty {lo}-{hi} --count {args.count}")
    print(f";     ataxx-solve --tables tables/ positions/tables-{name}.txt     # answered (tables)")
    print(f";     ataxx-solve --solver search positions/tables-{name}.txt      # expect: ok, by the search")
    for label, p in positions(board.rows, board.cols, range(lo, hi + 1), args.count):
        value, _ = tb.probe(p)  # the mover's
        print()
        print(f"name: {name}, {p.empty.bit_count()} empty, {label}")
        print(f"expect: value={value if p.turn == X else -value}")
        print(" ".join(write_fen(p).split()[:2]))


if __name__ == "__main__":
    main()
