"""A scripted UAI engine for the tests of `ataxx-solve verify`.

    python fake_uai.py MODE

MODE decides what it answers to `go`: good (the solver's best move), bad (the worst
move), illegal (a move onto an occupied square), garbage (a line that is not a move),
hang (nothing, ever), crash (exits at once), or a comma-separated cycle of these,
one per question. With a second argument FILE, the engine hangs or crashes only
the first time (when FILE does not exist yet; it creates it), then answers good moves:
so the tests can see a restarted engine answer.
"""

import sys

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), ".."))

from solver.analysis import Analyzer  # noqa: E402
from solver.formats import parse_fen  # noqa: E402
from solver.reference import ReferenceOracle  # noqa: E402


def main() -> None:
    modes = sys.argv[1].split(",")
    asked = 0
    position = None
    out = sys.stdout
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uai":
            out.write("id name fake-" + sys.argv[1] + "\nuaiok\n")
        elif words[0] == "isready":
            out.write("readyok\n")
        elif words[0] == "position" and words[1] == "fen":
            position = parse_fen(" ".join(words[2:]))
        elif words[0] == "go":
            mode = modes[asked % len(modes)]
            asked += 1
            if len(sys.argv) > 2:
                once = __import__("pathlib").Path(sys.argv[2])
                if once.exists():
                    mode = "good"
                else:
                    once.write_text("done")
            if mode == "crash":
                sys.exit(3)
            if mode == "hang":
                out.flush()
                while True:
                    sys.stdin.readline() or __import__("time").sleep(1)
            if mode == "garbage":
                out.write("info depth 1\nbestmove\n")
            elif mode == "illegal":
                occupied = position.x & -position.x
                out.write(f"bestmove {position.board.square_name(occupied.bit_length() - 1)}\n")
            else:
                moves = Analyzer(ReferenceOracle()).moves(position)
                out.write(f"bestmove {(moves[0] if mode == 'good' else moves[-1]).name}\n")
        elif words[0] == "quit":
            return
        out.flush()


if __name__ == "__main__":
    main()
