"""--nodes N (Limits.nodes): a node budget per question, on one thread, so that what is proved
(and every verdict of verify) is the same on any machine, whatever its speed or load."""

from __future__ import annotations

import json

import pytest

from solver.app.cli import main
from solver.io.formats import parse_fen, read_positions
from solver.oracles.search import SearchOracle
from solver.common.limits import Limits
from solver.solve.solver import Solver
from solver.play.verify import Verifier, choices_from_file

# A 7 x 7 endgame with 6 empty squares that 20,000 nodes do not settle
HARD = "ooxxxx1/ooooooo/oxoxxxo/oxoooo1/oooooo1/oxxooo1/1xxxo1x x 0 39"
FILE = f"move: f1\n{HARD}\n\nmove: g7\n{HARD}\n"


def test_the_budget_is_the_smaller_of_max_states_and_nodes():
    assert Limits().state_limit is None
    assert Limits(nodes=5).state_limit == 5 and Limits(max_states=7).state_limit == 7
    assert Limits(max_states=7, nodes=9).state_limit == 7


def test_a_node_budget_searches_on_one_thread():
    assert Solver(limits=Limits(nodes=1000)).threads == 1
    assert Solver(limits=Limits(nodes=1000), threads=1).threads == 1
    with pytest.raises(ValueError, match="only with one thread"):
        Solver(limits=Limits(nodes=1000), threads=2)


def test_each_check_gets_the_budget_again():
    items = read_positions(FILE, "hard.txt")
    choices, errors = choices_from_file(items, ask=False)
    assert not errors and len(choices) == 2

    def states_after(limits: Limits) -> int:
        v = Verifier(Solver(algorithm="search", limits=limits, threads=1))
        for c in choices:
            v.check(c, "p", c.move)
        (analyzer,) = v.analyzers.values()
        return analyzer.oracle.states

    shared = states_after(Limits(max_states=20_000))
    each = states_after(Limits(nodes=20_000))
    assert shared <= 20_000 + 100          # one budget for the whole run
    assert 20_000 + 100 < each <= 40_000 + 200  # one budget per check


def test_verify_with_nodes_gives_the_same_verdicts_every_time(tmp_path, capsys):
    f = tmp_path / "hard.txt"
    f.write_text(FILE)
    outs = []
    for _ in range(2):
        assert main(["verify", str(f), "--nodes", "20000", "--json"]) == 1  # unsettled: exit status 1
        outs.append([json.loads(line) for line in capsys.readouterr().out.splitlines()])
    assert outs[0] == outs[1]
    assert [c["verdict"] for c in outs[0][:2]] == ["unsettled", "unsettled"]


def test_solve_with_nodes_stops_at_the_budget(tmp_path, capsys):
    f = tmp_path / "hard.txt"
    f.write_text(HARD + "\n")
    assert main([str(f), "--nodes", "20000"]) == 1
    out = capsys.readouterr().out
    assert "not exact" in out and "stopped after" in out


def test_nodes_with_several_threads_is_refused(tmp_path, capsys):
    f = tmp_path / "hard.txt"
    f.write_text(HARD + "\n")
    for command in ([], ["verify"], ["batch"]):
        with pytest.raises(SystemExit, match="^2$") as exc:
            main(command + [str(f), "--nodes", "1000", "--threads", "2"])
        assert exc.value.code == 2
        assert "argument --nodes: a node budget is the same on every machine only on one thread" in \
            capsys.readouterr().err


def test_batch_with_nodes_gives_the_same_records_every_time(tmp_path, capsys):
    f = tmp_path / "hard.txt"
    f.write_text(HARD + "\n")
    records = []
    for _ in range(2):
        assert main(["batch", str(f), "--nodes", "20000", "--no-cache", "--jobs", "1"]) == 1  # not exact: failed
        (line,) = capsys.readouterr().out.splitlines()
        rec = json.loads(line)
        rec.pop("seconds", None)
        for side in rec["sides"].values():
            side.pop("value_seconds"), side.pop("depth_seconds", None)  # (times differ; the rest may not)
        records.append(rec)
    assert records[0] == records[1]
    assert records[0]["sides"]["x"]["exact"] is False


def test_a_small_node_budget_makes_a_small_table():
    p = parse_fen(HARD)
    small = SearchOracle(p.board, p.rules, node_limit=20_000)
    large = SearchOracle(p.board, p.rules, node_limit=0)
    assert small.tt_bits == 17  # at most the first power of two at least 4 x 20,000 entries
    assert large.tt_bits > 20
    assert small.tt.shape[0] == large.tt.shape[0] == 1 << 16  # both start small
    small.bounds(p)
    assert small.tt.shape[0] <= 1 << 17 and small.states >= 20_000  # never past its largest size


def test_the_table_grows_with_the_nodes_searched_and_keeps_what_it_held():
    """A short search writes a small table; a long one grows it fourfold at a time (between its
    tests, or in slices of a test) up to the largest size, and finds what it proved before."""
    easy = parse_fen("xxxxxxx/ooooooo/xxxxxxx/ooooooo/xxxxxxx/oooooo1/xxxxxx1 x 0 1")
    o = SearchOracle(easy.board, easy.rules, threads=1)
    b = o.bounds(easy)
    assert b.lower == b.upper and o.tt.shape[0] <= max(1 << 16, 16 * b.nodes) < 1 << o.tt_bits
    assert o.counters()["tt_bytes"] == 32 * o.tt.shape[0]
    p = parse_fen("1xxxxo1/xxxxxo1/xxxxxxx/oooxxxx/oooxxxo/oooxxxx/ooxoxx1 o 0 34")  # -11, some 700,000 nodes
    grown = SearchOracle(p.board, p.rules, threads=1)
    fixed = SearchOracle(p.board, p.rules, threads=1, tt_bits=grown.tt_bits)
    assert fixed.tt.shape[0] == 1 << grown.tt_bits and grown.tt.shape[0] == 1 << 16
    a, c = grown.bounds(p), fixed.bounds(p)
    assert (a.lower, a.upper) == (c.lower, c.upper) == (-11, -11)
    assert grown.states > 200_000 and 1 << 16 < grown.tt.shape[0] <= 1 << grown.tt_bits


def test_the_table_does_not_grow_when_the_growth_would_end_past_the_deadline():
    """Growing the table (fresh memory, every entry moved) takes about a second for 512 MiB and
    cannot be stopped: `--timeout 0.5` on the 7 x 7 start ran 2.1 s, most of it growing. A
    growth that would end past the deadline is not begun; the search goes on in the table it has."""
    import time

    p = parse_fen("x5o/7/7/7/7/7/o5x x 0 1")
    o = SearchOracle(p.board, p.rules, threads=1)
    o.deadline = time.monotonic() + 0.05
    o._grow(1 << 30)
    assert o.tt.shape[0] == 1 << 16
    o.deadline = time.monotonic() + 3600
    o._grow(1 << 18)
    assert o.tt.shape[0] == 1 << 20


def test_moving_entries_to_a_larger_table_loses_none():
    import numpy as np
    from solver import engine
    S, T, D = engine.search, engine.ttable, engine.dfpn
    rng = np.random.default_rng(5)
    small = np.zeros((1 << 8, S.ENTRY_WORDS), np.uint64)
    keys = [(np.uint64(rng.integers(1, 1 << 62)), np.uint64(rng.integers(1, 1 << 62)), int(rng.integers(0, 100)))
            for _ in range(400)]
    for cm, ct, c in keys:
        lo = int(rng.integers(-40, 10))
        T.store(small, T.bucket(cm, ct, T.layout(small.shape[0], 49)), cm, ct, c, T.CLOCK_EXACT, lo, lo + 5,
                0, 0, 0, 0, -2, int(rng.integers(0, 15)))
    before = {k: T.entry_bounds(small, 49, k[0], k[1], k[2], T.CLOCK_EXACT) for k in keys}
    held = {k: v[:2] for k, v in before.items() if v[2]}
    assert 100 < len(held) < 400  # a full small table dropped some
    large = np.zeros((1 << 10, S.ENTRY_WORDS), np.uint64)
    T.rehash(small, large, 49)
    after = {k: T.entry_bounds(large, 49, k[0], k[1], k[2], T.CLOCK_EXACT) for k in keys}
    assert {k: v[:2] for k, v in after.items() if v[2]} == held
    # the proof numbers' table the same way
    dsmall = np.zeros((1 << 8, S.ENTRY_WORDS), np.uint64)
    for i, (cm, ct, c) in enumerate(keys):
        D.table_store(dsmall, cm, ct, c, i - 200, i + 1, 2 * i + 1, i % 15)
    dheld = {i: D.table_probe(dsmall, cm, ct, c, i - 200) for i, (cm, ct, c) in enumerate(keys)}
    dheld = {i: v for i, v in dheld.items() if v[2]}
    assert 100 < len(dheld) < 400
    dlarge = np.zeros((1 << 10, S.ENTRY_WORDS), np.uint64)
    D.table_rehash(dsmall, dlarge)
    dafter = {i: D.table_probe(dlarge, cm, ct, c, i - 200) for i, (cm, ct, c) in enumerate(keys)}
    assert {i: v for i, v in dafter.items() if v[2]} == dheld


def test_keys_near_the_end_share_the_first_buckets():
    """(ttable.layout) The keys of positions with at most NEAR_EMPTY empty squares go to the table's
    first 2**NEAR_BITS buckets, whatever its size; the others anywhere in it; a table no larger than
    that region has one region."""
    import numpy as np
    from solver import engine
    T = engine.ttable
    rng = np.random.default_rng(6)
    squares, rows = 45, 1 << 22  # (no table is made: a layout is an integer)
    region = (1 << T.NEAR_BITS) * T.BUCKET
    where = T.layout(rows, squares)
    near = far = outside = 0
    for _ in range(2000):
        cells = rng.permutation(squares)
        pieces = int(rng.integers(squares - 2 * T.NEAR_EMPTY, squares + 1))
        split = int(rng.integers(0, pieces + 1))
        cm = np.uint64(sum(1 << int(i) for i in cells[:split]))
        ct = np.uint64(sum(1 << int(i) for i in cells[split:pieces]))
        base = T.bucket(cm, ct, where)
        assert 0 <= base < rows and base % T.BUCKET == 0
        if squares - pieces <= T.NEAR_EMPTY:
            assert base < region
            near += 1
        else:
            far += 1
            outside += base >= region
        assert T.bucket(cm, ct, T.layout(region, squares)) == T.bucket(cm, ct, T.layout(region, 64)) < region
    assert near > 500 and far > 500 and outside > 0.8 * far  # (the region is a sixteenth of this table)


def test_a_search_dropped_frees_its_tables_at_once():
    """No reference cycle keeps a search (and its tables, up to 768 MiB) alive after its last user
    drops it: solving one position after another in a process holds one search's memory, not one
    per position until the cycle collector runs. The searches stop on their budgets, on two
    threads, so that their stops pass between threads as exceptions."""
    import gc
    import time
    import weakref

    gc.collect()
    gc.disable()
    try:
        refs = []
        for fen in (HARD, "1xxxxo1/xxxxxo1/xxxxxxx/oooxxxx/oooxxxo/oooxxxx/ooxoxx1 o 0 34"):
            p = parse_fen(fen)
            solver = Solver(limits=Limits(deadline=time.monotonic() + 1.0), threads=2)
            analyzer = solver.analyzer(p)
            solver.solve(p, analyzer=analyzer)
            refs.append(weakref.ref(analyzer.oracle))
            o = SearchOracle(p.board, p.rules, node_limit=300_000, threads=2)
            o.bounds(p)
            refs.append(weakref.ref(o))
            del solver, analyzer, o
        assert [r() for r in refs] == [None] * 4
    finally:
        gc.enable()


def test_no_test_begins_past_the_deadline():
    """Past the oracle's deadline a test stops at once ('time'), even one so small that its kernels
    would answer before their first look at the stop flag. A draw's depth walk asks hundreds of
    thousands of such tests: on a 6-empty uai draw, `--timeout 60` ran 131 s (and `--timeout 20`,
    120 s) until the walk's own node budget ended it. With time left the same test answers."""
    import time

    from solver.common.limits import TimeLimitError
    from solver.common.scores import M
    from solver.game.rules import UAI

    # (X cannot reach g1: it passes, and O fills it: -7)
    p = parse_fen("xxxxxxx/xxxxxxx/xxxxxxx/ooooooo/ooooooo/ooooooo/oooooo1 x 0 1", rules=UAI)
    o = SearchOracle(p.board, p.rules, threads=2)
    o.deadline = time.monotonic() - 1
    with pytest.raises(TimeLimitError):
        o.score_test(p, -7 * M)
    o.deadline = None
    assert o.score_test(p, -7 * M)[0] is True and o.value(p) == -7


def test_a_small_test_after_the_value_runs_in_the_calling_thread(monkeypatch):
    """The tests of a value's depth, line and moves (score_test) first search a few thousand
    nodes in the calling thread: a draw's depth walk asks hundreds of thousands of small tests,
    and handing each to the worker threads cost more than the test (on a 6-empty uai draw, 145,000
    tests in 40 s against 464,000). A test that needs more goes to the race, and the answers
    are the same; the tests that narrow the value (bounds) always race."""
    from solver import engine
    from solver.common.scores import M
    from solver.game.rules import UAI

    races = []
    call_many = engine.Run.call_many

    def counted(self, fns, *args, **kwargs):
        races.append(len(fns))
        return call_many(self, fns, *args, **kwargs)

    monkeypatch.setattr(engine.Run, "call_many", counted)
    p = parse_fen("xxxxxxx/xxxxxxx/xxxxxxx/ooooooo/ooooooo/ooooooo/oooooo1 x 0 1", rules=UAI)
    o = SearchOracle(p.board, p.rules, threads=2)
    assert o.score_test(p, -7 * M)[0] is True and o.score_test(p, -6 * M)[0] is False
    assert races == []
    assert o.value(p) == -7 and races and set(races) == {2}  # the value's tests: the race on both threads
    hard = parse_fen(HARD)
    o = SearchOracle(hard.board, hard.rules, threads=2)
    races.clear()
    holds, _ = o.score_test(hard, 1)  # more than a few thousand nodes: on to the race
    assert races and o.states > 4096
    assert holds is False  # (O wins: README's example proves -7..-5 for X to move)
