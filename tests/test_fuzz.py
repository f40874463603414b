"""Property-based fuzzing of the input path (issue 10): malformed grids, colon grids, FEN,
headers, numbers and move lists, through the parser and through the CLI's error path.

Properties:
- :func:`read_positions` never raises: every item is an Entry or a PositionFormatError whose
  message is one short line;
- the solve command (reference engine, small budgets) exits 0, 1 or 2, never 70: every line on
  stderr is one message for a place in the input, never a traceback or an "internal error";
- a bad argument number is one line and status 2;
- parsing time is linear: a random unit repeated 8 times as often parses in about 8 times the time.

Hypothesis is derandomized (the same inputs every run) and bounded (a fixed number of examples,
no example database): together these tests take well under a minute. ``TRIED`` counts the inputs
each property was given; ``pytest -s`` prints the counts.
"""

import io
import sys
import time
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.app.cli import main
from solver.app.commands.solve import solve_parser
from solver.io.formats import HEADER_KEYS, PositionFormatError, read_positions

TRIED: Counter = Counter()
FUZZ = settings(derandomize=True, database=None, deadline=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# -- pieces of malformed input ---------------------------------------------------------------------

# Characters that mean something somewhere, and some that look like they might.
NASTY = "xXoO#.-|+: /0123456789abch\t\r\u00b2\u00b3\u0663\u0969\uff11\x1b\x07\u202e\u00a0\u2028"

short_numbers = st.one_of(
    st.integers(-10 ** 30, 10 ** 30).map(str),
    st.text(alphabet="0123456789\u00b2\u00b3\u00b9\u0663\u0664\u06f5\u07c0\u0967\uff11_,.-+e", min_size=1,
            max_size=30),
    st.sampled_from(["nan", "inf", "-inf", "1e400", "-0", "+5", "1_000", "0x10", "00000000000000000001", "\u00b2"]),
)
numbers = st.one_of(short_numbers, st.sampled_from(["", " 7 ", "9" * 5000, "1" * 4301]))

cells = st.text(alphabet="xXoO#. ", min_size=0, max_size=10)
grid_rows = st.lists(st.one_of(cells, st.text(alphabet=NASTY, max_size=12)), min_size=1, max_size=6)


@st.composite
def grids(draw):
    rows = draw(grid_rows)
    style = draw(st.sampled_from(["plain", "bars", "labels", "frame", "colon"]))
    n = len(rows)
    if style == "bars":
        rows = [f"|{r}|" if draw(st.booleans()) or k else r for k, r in enumerate(rows)]
    elif style == "labels":
        rows = [f"{draw(numbers)} {r} {n - k}" for k, r in enumerate(rows)]
    elif style == "frame":
        edge = "+" + "-" * draw(st.integers(0, 12)) + "+"
        rows = [edge] + [f"|{r}|" for r in rows] + [edge, "  " + "abcdefghijkl"[: draw(st.integers(0, 12))]]
    elif style == "colon":
        rows = [":".join(draw(st.lists(st.sampled_from(["0", "1", "2", "#", "3", "", " 1", "\u00b2"]),
                                       max_size=8))) + ":" for _ in rows]
    return "\n".join(rows)


fen_token = st.one_of(st.sampled_from(["x", "o", "X", "O", "-", "1", "2", "7", "9", "10", "0", "64", "65", "99"]),
                      short_numbers)


@st.composite
def fens(draw):
    ranks = draw(st.lists(st.lists(fen_token, max_size=6).map("".join), min_size=1, max_size=8))
    fields = ["/".join(ranks)]
    for extra in (st.sampled_from(["x", "o", "q", "X", "both"]), numbers.map(str.strip).filter(bool),
                  numbers.map(str.strip).filter(bool), st.just("extra")):
        if not draw(st.booleans()):
            break
        fields.append(draw(extra))
    if draw(st.booleans()):
        fields = [draw(st.sampled_from(["startpos", "STARTPOS"]))] + fields[1:2]
    if draw(st.booleans()):
        fields += ["moves"] + draw(move_lists)
    return " ".join(f.replace("\n", " ") for f in fields)


move_token = st.one_of(st.sampled_from(["a1", "b2", "c3", "a1c3", "a1-c3", "b2b3", "0000", "pass", "null", "-",
                                        "zz99", "a0", "a99999999999999999999", "A1", "a" * 200 + "1"]),
                       st.text(alphabet=NASTY, min_size=1, max_size=8).map(str.strip).filter(bool))
move_lists = st.lists(move_token, max_size=12)


@st.composite
def headers(draw):
    key = draw(st.one_of(st.sampled_from(HEADER_KEYS), st.sampled_from(["colour", "Name", "x", "to_move", "a b"]),
                         st.text(alphabet="abcxyz-_0", min_size=1, max_size=10)))
    if key == "expect":
        value = " ".join(f"{draw(st.sampled_from(['x', 'o', 'value', 'orthodox', 'q']))}={draw(numbers)}"
                         for _ in range(draw(st.integers(0, 3))))
    elif key == "moves":
        value = " ".join(draw(move_lists))
    elif key in ("counter", "to-move", "rules"):
        value = draw(st.one_of(numbers, st.sampled_from(["x", "o", "both", "uai", "cs61b", "jump3", "chess"])))
    else:
        value = draw(st.text(alphabet=NASTY, max_size=20))
    return f"{key}:{' ' * draw(st.integers(0, 3))}{value}".replace("\n", " ")


@st.composite
def documents(draw):
    blocks = []
    for _ in range(draw(st.integers(1, 3))):
        lines = draw(st.lists(headers(), max_size=3))
        lines.append(draw(st.one_of(grids(), fens())))
        if draw(st.booleans()):
            lines.insert(0, "; " + draw(st.text(alphabet=NASTY, max_size=10)).replace("\n", " "))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + draw(st.sampled_from(["\n", "", "\n\n", "\r\n"]))


# -- properties ------------------------------------------------------------------------------------

def _short_one_line(message: str) -> bool:
    return "\n" not in message and len(message) < 400


@pytest.mark.slow
@settings(FUZZ, max_examples=400)
@given(documents())
def test_parser_returns_entries_or_one_line_errors(text):
    TRIED["parser"] += 1
    for item in read_positions(text, "fuzz.txt"):
        if isinstance(item, PositionFormatError):
            assert _short_one_line(str(item)), str(item)
        else:
            assert item.position.board.size <= 64 and item.sides


@pytest.mark.slow
@settings(FUZZ, max_examples=120)
@given(documents())
def test_cli_error_path_is_one_line_and_status_2_never_70(text):
    TRIED["cli"] += 1
    out, err = io.StringIO(), io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8", "surrogatepass")))
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = stdin, out, err
    try:
        status = main(["--solver", "reference", "--max-states", "300", "--timeout", "2", "--orth-depth", "2",
                       "--json"])
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    assert status in (0, 1, 2), err.getvalue()
    for line in err.getvalue().splitlines():
        assert line.startswith("<stdin>"), line
        assert "Traceback" not in line and "internal error" not in line
        assert line.isprintable() and len(line) < 400
    if status == 2:
        assert err.getvalue(), "status 2 without saying why"


OPTIONS = ["--max-states", "--max-memory", "--timeout", "--orth-depth", "--tree-depth"]


@settings(FUZZ, max_examples=300)
@given(st.sampled_from(OPTIONS), numbers)
def test_argument_numbers_are_bounded_one_line_errors(option, value):
    TRIED["arguments"] += 1
    saved = sys.stderr
    sys.stderr = err = io.StringIO()
    try:
        args = solve_parser().parse_args([f"{option}={value}"])
    except SystemExit as exc:
        assert exc.code == 2
        text = err.getvalue()
        assert text.count("\n") == 1 and f"argument {option}:" in text and len(text) < 400, text
        return
    finally:
        sys.stderr = saved
    got = getattr(args, option[2:].replace("-", "_"))
    assert value.strip().replace("_", "").replace(",", "")[:1].isascii()
    assert 0 < got <= 2 ** 50 if option in ("--max-states", "--max-memory", "--timeout") else 0 <= got <= 64


TEMPLATES = {
    "header": lambda u: f"name:{u}\nx...o\n",
    "grid row": lambda u: f"#{u}#\n",
    "labelled row": lambda u: f"{u} x..o {u}\n1 ..o.\n",
    "fen": lambda u: f"{u} x 0 1\n",
    "moves": lambda u: f"moves: {u}\nx...o\n",
    "colon": lambda u: f"1:{u}:2:\n",
}


def _parse_seconds(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        read_positions(text, "fuzz.txt")
        best = min(best, time.perf_counter() - start)
    return best


@settings(FUZZ, max_examples=100)
@given(st.sampled_from(sorted(TEMPLATES)), st.text(alphabet=NASTY.replace("\r", "").replace("\u2028", ""),
                                                    min_size=1, max_size=8))
def test_parsing_time_is_linear_in_the_input(template, unit):
    TRIED["linear"] += 1
    make = TEMPLATES[template]
    small, large = make(unit.replace("\n", " ") * 1000), make(unit.replace("\n", " ") * 8000)
    t_small, t_large = _parse_seconds(small), _parse_seconds(large)
    # Eight times the input: about eight times the time; a quadratic parser takes 64 times.
    assert t_large < 24 * max(t_small, 0.002), (template, unit, t_small, t_large)


@pytest.fixture(scope="module", autouse=True)
def _report_counts():
    yield
    print(f"\nfuzz inputs tried: {dict(TRIED)}, {sum(TRIED.values())} in all")
