"""A scripted UAI engine for the tests of `ataxx-solve verify`.

    python fake_uai.py MODE

MODE decides what it answers to `go`: good (the solver's best move), bad (the worst move),
illegal (a move onto an occupied square), garbage (a line that is not a move), hang (nothing,
ever), crash (exits at once), noisy (a line that is not UAI, then the good move), badutf8 (a
bestmove line with bytes that are not UTF-8), endless (bytes without a newline, until it is
killed), chatty (info lines without end), huge (a 5 MB bestmove token), deaf (answers good
once, then stops reading its input but goes on saying readyok), fork (forks a child that sleeps
and writes its pid to FILE, then answers good), daemon (the same, but the child detaches as a
daemon does: a new session, a second fork, the middle process exits), or a comma-separated
cycle of these, one per question. With a second argument FILE, the engine hangs or crashes only
the first time (when FILE does not exist yet; it creates it), then answers good moves:
so the tests can see a restarted engine answer.
"""

import sys

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), ".."))

from solver.solve.analysis import Analyzer  # noqa: E402
from solver.io.formats import parse_fen  # noqa: E402
from solver.oracles.reference import ReferenceOracle  # noqa: E402


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
            if len(sys.argv) > 2 and mode not in ("fork", "daemon"):
                once = __import__("pathlib").Path(sys.argv[2])
                if once.exists():
                    mode = "good"
                else:
                    once.write_text("done")
            if mode == "crash":
                sys.exit(3)
            if mode == "badutf8":
                out.flush()
                sys.stdout.buffer.write(b"info string \xff\xfe\xc3\nbestmove \xff\xc3(\n")
                sys.stdout.buffer.flush()
                continue
            if mode in ("endless", "chatty"):
                chunk = "x" * 65536 if mode == "endless" else "info depth 1 score cp 0\n" * 2000
                while True:
                    out.write(chunk)
                    out.flush()
            if mode == "huge":
                out.write("bestmove " + "a" * 5_000_000 + "1\n")
                out.flush()
                continue
            if mode in ("fork", "daemon"):
                os = __import__("os")
                child = os.fork()
                if child == 0:
                    if mode == "daemon":
                        os.setsid()
                        if os.fork():
                            os._exit(0)
                    __import__("pathlib").Path(sys.argv[2]).write_text(str(os.getpid()))
                    __import__("time").sleep(600)
                    os._exit(0)
                if mode == "daemon":
                    os.waitpid(child, 0)
                mode = "good"
            if mode == "hang":
                out.flush()
                while True:
                    sys.stdin.readline() or __import__("time").sleep(1)
            if mode == "deaf":
                out.write(f"bestmove {Analyzer(ReferenceOracle()).moves(position)[0].name}\n")
                while True:  # never reads again: what it is sent fills the pipe
                    out.write("readyok\n")
                    out.flush()
                    __import__("time").sleep(0.05)
            if mode == "noisy":
                out.write("hello from the engine\n")
                mode = "good"
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
