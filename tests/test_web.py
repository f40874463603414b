"""The JSON API of ``ataxx-solve serve`` (Starlette's TestClient): answers against the reference
solver and ``verify``, the cache, budgets, stops, shared jobs, bad input, and the command."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # (Starlette 1.x prefers httpx2 to httpx; either serves)
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from helpers import random_positions  # noqa: E402
from solver.app.cli import main  # noqa: E402
from solver.app.web.analysis import Settings  # noqa: E402
from solver.app.web.jobs import Job, Pool  # noqa: E402
from solver.app.web.server import create_app  # noqa: E402
from solver.game.rules import UAI, X  # noqa: E402
from solver.io.formats import parse_position, write_colon, write_fen, write_grid  # noqa: E402
from solver.oracles.reference import ReferenceOracle  # noqa: E402
from solver.play.verify import Check, judge  # noqa: E402
from solver.solve.analysis import Analyzer  # noqa: E402

SHORT_GAME = "name: a short game\nmoves: a2 b1\nto-move: x\nx..\n...\n..o\n"
PGN = ('[Event "t"]\n[Black "Alice"]\n[White "Bob"]\n[FEN "x2/3/2o x 0 1"]\n\n1. a2 b1 2. b2 *\n\n'
       '[Black "Carol"]\n[White "Dan"]\n[FEN "x3o x 0 1"]\n\n1. b1 d1 *\n')


class Client(TestClient):
    """The application under test, its kernels compiled or loaded before the first request (on a
    machine that has not compiled them, that takes a minute, which a request's budget would count)."""

    def __enter__(self) -> "Client":
        super().__enter__()
        for _ in range(6000):
            if self.get("/api/status").json()["ready"]:
                return self
            time.sleep(0.05)
        raise AssertionError("the kernels were not ready in 5 minutes")


def client(tmp_path, workers: int = 2, **settings) -> Client:
    settings.setdefault("max_seconds", 600.0)
    s = Settings(cache_path=settings.pop("cache_path", tmp_path / "cache.sqlite3"), **settings)
    return Client(create_app(s, workers=workers, warm_up=False))  # (the session compiled the kernels: conftest)


def category(p, value, depth):
    v = value if p.turn == X else -value
    if v > 0:
        return "win"
    if v < 0:
        return "loss"
    return "draw by infinite play" if depth is None else "draw"


def expected(p):
    """The answer the reference solver and verify give: value, depth, moves best first, verdicts."""
    a = Analyzer(ReferenceOracle())
    ev = a.evaluate(p)
    out = {"value": ev.value, "depth": ev.depth, "category": category(p, ev.value, ev.depth)}
    infos = a.moves(p) if not p.is_over() else []
    out["moves"] = [(i.name, i.value, i.depth, category(p, i.value, i.depth),
                     judge(a, p, i.name, Check("t", "f", 1, None, p, i.name)).verdict) for i in infos]
    out["best_move"] = next((i.name for i in infos if i.preferred), None)
    return out


def answered(answer):
    return {"value": answer["value"], "depth": answer["depth"], "category": answer["category"],
            "moves": [(m["uci"], m["value"], m["depth"], m["category"], m["verdict"]) for m in answer["moves"]],
            "best_move": answer["best_move"]}


POSITIONS = (random_positions(2901, 14, block_chance=0.15) + random_positions(2902, 6, rules=UAI)
             + [parse_position(t).position for t in ("x..\n...\n..o", "x.#o\n.##.", "x...o")])


def test_solve_answers_as_the_reference_solver_and_verify(tmp_path):
    """Every answer (value, depth, category, each move's value, depth, category and verdict, best
    first, the preferred move) is the reference solver's and verify's, for random positions of
    both sides to move, with blocks, under classic (cycles) and uai (a counter) rules."""
    with client(tmp_path) as c:
        for p in POSITIONS:
            r = c.get("/api/solve", params={"fen": write_fen(p), "rules": p.rules.name})
            assert r.status_code == 200, r.text
            answer = r.json()
            assert answer["exact"] and answer["complete"] and answer["fen"] == write_fen(p)
            assert answered(answer) == expected(p), write_fen(p)


def test_answers_come_from_the_cache_the_second_time(tmp_path):
    """A second server on the same cache file answers from it (nothing solved), the same."""
    first = {}
    with client(tmp_path) as c:
        for p in POSITIONS[:10]:
            first[write_fen(p)] = c.get("/api/solve", params={"fen": write_fen(p), "rules": p.rules.name}).json()
    rows = sqlite3.connect(tmp_path / "cache.sqlite3").execute("SELECT COUNT(*) FROM solved").fetchone()[0]
    assert rows > 0
    with client(tmp_path) as c:
        for p in POSITIONS[:10]:
            again = c.get("/api/solve", params={"fen": write_fen(p), "rules": p.rules.name}).json()
            before = first[write_fen(p)]
            if not p.is_over():
                assert again["solver"] == "cache" and again["nodes"] == 0
            for k in ("solver", "nodes", "seconds"):
                again.pop(k), before.pop(k)
            assert again == before
        assert c.get("/api/status").json()["started"] == 0  # no job: every answer was the cache's


def test_every_input_format_gives_the_same_answer(tmp_path):
    p = parse_position("x.#o\n.##.").position
    cs61b = "===\n  r - X b\n  - X X -\n===\n"
    with client(tmp_path) as c:
        answers = [c.get("/api/solve", params=q).json() for q in (
            {"fen": write_fen(p)}, {"board": write_grid(p)}, {"board": write_colon(p)}, {"board": cs61b},
            {"board": "x1-o/1--1"})]
    for a in answers:
        a.pop("seconds"), a.pop("solver"), a.pop("nodes")
    assert all(a == answers[0] for a in answers[1:])
    assert answers[0]["value"] == 1 and answers[0]["best_move"] == "b2"


@pytest.mark.parametrize("query,line", [
    ({"fen": "x9/zz"}, "fen:1: "),
    ({"fen": "x2/3/2o x 0 1", "rules": "chess"}, "rules: unknown rule set 'chess' (known: classic, cs61b, jump3, uai)"),
    ({}, "fen: give a position: fen=FEN or board=TEXT (one of the two)"),
    ({"fen": "x2/3/2o x 0 1", "board": "x..o"}, "fen: give a position: fen=FEN or board=TEXT (one of the two)"),
    ({"board": "x..o", "turn": "y"}, "turn: must be x or o, not 'y'"),
    ({"board": "x" * 5000}, "board: 5,000 characters; at most 4,096"),
    ({"board": "x..o\n\nx..o"}, "board: expected one position, found 2"),
    ({"board": "x.q.o"}, "board:1: unknown character 'q' in column 3 of the grid"),
    ({"board": "x..o", "seconds": "0"}, "seconds: must be a number of seconds more than 0 and at most 600 (the "
                                        "server's --max-seconds), not '0'"),
    ({"board": "x..o", "seconds": "601"}, "seconds: must be a number of seconds more than 0 and at most 600"),
    ({"board": "x..o", "seconds": "1e3"}, "seconds: must be a number of seconds more than 0 and at most 600"),
])
def test_bad_input_is_a_400_with_one_line(tmp_path, query, line):
    with client(tmp_path) as c:
        r = c.get("/api/solve", params=query)
    assert r.status_code == 400
    assert r.text.startswith(line) and r.text.endswith("\n") and r.text.count("\n") == 1, r.text
    assert r.headers["content-type"].startswith("text/plain")


def test_bad_input_elsewhere(tmp_path):
    with client(tmp_path) as c:
        r = c.get("/api/position", params={"board": "x...o", "moves": "b1 zz9"})
        assert r.status_code == 400 and r.text.startswith("moves: move 2: ") and r.text.count("\n") == 1
        r = c.post("/api/verify", content=b"\xff\xfe not text")
        assert (r.status_code, r.text) == (400, "body:1: not UTF-8 text\n")
        r = c.post("/api/verify", content=b"x" * ((1 << 20) + 1))
        assert r.status_code == 400 and r.text.startswith("body: ") and "at most 1,048,576" in r.text
        r = c.post("/api/verify", content=PGN, params={"game": "7"})
        assert (r.status_code, r.text) == (400, "game: no game 7 in the text (2 game(s) read)\n")
        r = c.post("/api/verify", content="x..o\n")
        assert r.status_code == 400 and r.text.startswith("body: nothing to judge")
        r = c.get("/api/new", params={"rows": "9", "cols": "9"})
        assert r.status_code == 400 and r.text == "rows: a 9 x 9 board has 81 squares; at most 64 are supported\n"
        assert c.get("/static/../../etc/passwd").status_code == 404
        assert c.get("/static/app.py").status_code == 404


def test_a_request_over_its_budget_gets_the_interval_proved(tmp_path):
    """A 7 x 7 start within 2,000 nodes: not proved; the answer says so, with every move's interval."""
    with client(tmp_path, max_nodes=2000) as c:
        a = c.get("/api/solve", params={"fen": "x5o/7/7/7/7/7/o5x x 0 1"}).json()
    assert a["category"] == "unknown" and not a["exact"] and not a["complete"]
    assert "value" not in a and a["lower"] < a["upper"] and a["stopped"] in ("nodes", "time")
    assert a["solver"] == "search" and len(a["moves"]) == 16
    assert all(m["category"] == "unknown" and m["verdict"] == "unsettled" for m in a["moves"])


def test_a_request_may_ask_for_a_shorter_budget(tmp_path, monkeypatch):
    """seconds=S: the solve of that request gets S seconds instead of the server's --max-seconds
    (an API client that wants the value, not every move judged, need not wait the whole budget)."""
    from solver.app.web import analysis
    budgets = []
    real = analysis.analyse

    def analyse(settings, job, p):
        budgets.append(round(job.deadline - job.created, 3))
        return real(settings, job, p)

    monkeypatch.setattr(analysis, "analyse", analyse)
    start = "x5o/7/7/7/7/7/o5x x 0 1"
    with client(tmp_path, max_nodes=2000) as c:
        a = c.get("/api/solve", params={"fen": start, "seconds": "0.5"}).json()
        b = c.get("/api/solve", params={"fen": start}).json()
    assert budgets == [0.5, 600.0]
    assert not a["complete"] and a["stopped"] in ("time", "nodes") and not b["complete"]


def test_a_request_s_search_table_grows_no_larger_than_on_the_command_line(monkeypatch):
    """Whatever the worker's memory budget, the search table of a solve and of a verify request
    grows to 512 MiB (2^24 entries) at most: from a budget of 16 GiB the search alone would grow it
    to 8 GiB, and growing into fresh memory took a 10 s request of a 7 x 7 endgame to 36 s."""
    from solver.app.web import analysis
    from solver.common.limits import Limits
    from solver.oracles.search import SearchOracle
    from solver.solve.solver import Solver

    made: list[SearchOracle] = []
    init = SearchOracle.__init__

    def recorded(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(SearchOracle, "__init__", recorded)
    monkeypatch.setattr(analysis, "_workshop", analysis._Workshop())
    fen = "1xxoxx1/ooxoooo/ooooooo/oooxooo/xxooxox/ooooxox/xxxxxoo x 0 34"
    p = parse_position(fen).position
    settings = Settings(max_memory=16 << 30, max_seconds=3.0)
    job = Job("t", 3.0, None)  # (each move's depth would take minutes: the budget stops the analysis)
    assert analysis.analyse(settings, job, p).solver == "search"
    solving = len(made)
    plan = analysis.verify_plan(f'[FEN "{fen}"]\n\n1. a7 *\n', p.rules)
    assert analysis.run_verify(settings, Job("v", 3.0, None), plan)["checks"] == 1
    assert 0 < solving < len(made)
    assert max(o.tt_bits for o in made[:solving]) == max(o.tt_bits for o in made[solving:]) == 24
    unbounded = Solver(limits=Limits(max_memory=settings.max_memory), threads=1).oracle(p)
    assert isinstance(unbounded, SearchOracle) and unbounded.tt_bits > 24


class Recorder(Job):
    """A job that keeps the moves searched, in order, each partial analysis published and the node
    counts its progress line showed."""

    def __init__(self, seconds: float = 600.0) -> None:
        super().__init__("t", seconds, None)
        self.searched: list[str] = []
        self.partials: list = []
        self.counts: list[int] = []

    def update(self, **changes) -> None:
        if "searching" in changes:
            self.searched.append(changes["searching"])
        if changes.get("unit") == "nodes":
            self.counts.append(changes["done"])
        if changes.get("partial") is not None:
            self.partials.append(changes["partial"])
        super().update(**changes)


def test_under_the_search_every_moves_value_comes_before_any_depth(monkeypatch):
    """Where the search answers (forced here on small boards, so that the reference solver checks
    it), each move's position is searched for its value, every move (but one the root's solve
    proved exact), before any is searched for its depth: the tints come first. The partial answers
    published meanwhile only narrow, and the answer is the reference solver's."""
    from solver.app.web import analysis
    from solver.common.limits import Limits
    from solver.solve.solver import Solver

    monkeypatch.setattr(analysis, "_solver", lambda settings, job, rules: Solver(
        rules, "search", Limits(nodes=job.nodes, deadline=job.deadline), progress=job.on_progress, threads=1))
    monkeypatch.setattr(analysis, "_workshop", analysis._Workshop())
    searched_some = 0
    for p in random_positions(2903, 12, block_chance=0.1) + random_positions(2904, 4, rules=UAI):
        job = Recorder()
        a = analysis.analyse(Settings(), job, p)
        assert a.solver == "search" or p.is_over(), write_fen(p)
        assert answered(a.to_json()) == expected(p), write_fen(p)
        if job.searched:
            searched_some += 1
            playing = sorted(p.move_name(m) for m in p.legal_moves() if p.push(m).result() is None)
            # (the depths last, every move's; before them the values, every move's but the one whose
            # value the root's solve proved already, with its bound)
            values, depths = job.searched[:-len(playing)], job.searched[-len(playing):]
            assert sorted(depths) == playing and len(set(values)) == len(values), write_fen(p)
            assert set(values) <= set(playing) and len(values) >= len(playing) - 1, write_fen(p)
            before = job.partials[0]
            for later in job.partials[1:]:  # (each interval within the one before)
                for m, k in later.moves.items():
                    was = before.moves[m].interval
                    assert was.lower <= k.interval.lower <= k.interval.upper <= was.upper
                before = later
    assert searched_some >= 6


def _wait_for(c, test, what):
    for _ in range(600):
        status = c.get("/api/status").json()
        if test(status):
            return status
        time.sleep(0.05)
    raise AssertionError(f"{what}: {status}")


def test_identical_requests_share_one_solve_and_stop_ends_it(tmp_path):
    """Two requests for one position wait for one job; a stop ends it, and both get the interval
    proved so far (the same answer)."""
    answers: list = []
    fen = "x5o/7/7/7/7/7/o5x x 0 1"
    with client(tmp_path, max_seconds=600) as c:
        def ask() -> None:
            answers.append(c.get("/api/solve", params={"fen": fen}).json())

        first = threading.Thread(target=ask)
        first.start()
        _wait_for(c, lambda s: len(s["jobs"]) == 1 and s["jobs"][0]["waiting"] == 1, "the first request's job")
        second = threading.Thread(target=ask)
        second.start()
        status = _wait_for(c, lambda s: s["shared"] == 1 and s["jobs"][0]["waiting"] == 2, "the second request joining")
        assert status["started"] == 1
        assert c.post("/api/stop", params={"job": status["jobs"][0]["id"]}).json() == {"stopped": True}
        first.join(60)
        second.join(60)
        assert c.get("/api/status").json()["jobs"] == []
    assert len(answers) == 2 and answers[0] == answers[1]
    assert answers[0]["stopped"] == "interrupt" and not answers[0]["exact"]


def test_the_pool_shares_a_running_job_and_stops_one_nobody_waits_for():
    import asyncio

    async def run() -> None:
        pool = Pool(1)
        gate = threading.Event()
        seen = []

        def work(job: Job) -> int:
            gate.wait(30)
            seen.append(job.stop_requested)
            return 7

        a = pool.job("k", work, 60, None)
        b = pool.job("k", work, 60, None)
        other = pool.job("other", work, 60, None)
        assert a is b and a is not other and pool.shared == 1 and pool.started == 2
        pool.watch(a)
        pool.watch(other)
        pool.unwatch(other)  # nobody waits for it any more: stopped
        assert other.stop_requested and not a.stop_requested
        gate.set()
        assert await a.future == 7 and await other.future == 7
        await asyncio.sleep(0)  # (the futures' done callbacks)
        assert seen == [False, True]
        assert pool.running == {}
        pool.close()

    asyncio.run(run())


def test_a_kernel_call_begun_past_its_deadline_is_stopped_at_once():
    """(solver.engine.Run.call_many) A call that starts past its deadline finds abort set: before,
    a call shorter than a tick ran to its end, and the search's MTD(f) loop of such calls (the
    depth of a solved move) went on for minutes past the request's budget."""
    from solver.engine import Run

    run = Run()
    assert run.call_many([lambda: int(run.abort[0])], deadline=0.0) == [1] and run.timed_out  # (a clock long past)
    run = Run()
    assert run.call_many([lambda: int(run.abort[0])], deadline=time.monotonic() + 600) == [0] and not run.timed_out


def test_kernel_calls_reuse_their_threads():
    """(solver.engine.Run.call_many) Calls run on threads kept from one call to the next, and an
    exception still reaches the caller: a thread started for each call cost a draw's depth walk
    (about 260,000 small tests, two threads each) 61 s of system time in 160 s."""
    import threading

    from solver.engine import Run

    threads: list[threading.Thread] = []
    for _ in range(50):
        threads += Run().call_many([threading.current_thread, threading.current_thread])
    assert len({id(t) for t in threads}) == 2 and threading.main_thread() not in threads

    def fails() -> None:
        raise ValueError("in the kernel")

    [error] = Run().call_many([fails])
    assert isinstance(error, ValueError) and str(error) == "in the kernel"
    assert Run().call_many([lambda: 7]) == [7]
    # a child made by fork (a library user's multiprocessing) starts threads of its own
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply_async(_call_in_a_child).get(timeout=60) == [7]


def _call_in_a_child() -> list:
    from solver.engine import Run

    return Run().call_many([lambda: 7])


def test_verify_gives_verify_json_records(tmp_path, capsys):
    """POST /api/verify streams the records of `verify --json` (the file name aside), then its summary."""
    f = tmp_path / "games.pgn"
    f.write_text(PGN)
    assert main(["verify", str(f), "--json"]) == 0
    cli = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    with client(tmp_path) as c:
        r = c.post("/api/verify", content=PGN)
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
        web = [json.loads(line) for line in r.text.splitlines()]
        one = [json.loads(line) for line in c.post("/api/verify", content=PGN, params={"game": "2"}).text.splitlines()]
        text = [json.loads(line) for line in c.post("/api/verify", content=SHORT_GAME).text.splitlines()]
    text_of = json.dumps(cli).replace(json.dumps(str(f))[1:-1], "<request>")
    assert web == json.loads(text_of)
    assert [r.get("name") for r in one[:-1]] == ["game 2 (Carol vs Dan), ply 0", "game 2 (Carol vs Dan), ply 1"]
    assert [(r["move"], r["verdict"]) for r in text[:-1]] == [("a2", "blunder"), ("b1", "blunder")]


def test_verify_streams_what_it_could_not_read(tmp_path):
    """A game with a move that is not one: its error comes first as an input_error record, its
    moves before it are judged, and the summary counts it (the API had answered as if the text
    were whole: a user's trial)."""
    with client(tmp_path) as c:
        r = c.post("/api/verify", content='[FEN "x1o/3/3 x 0 1"]\n\n1. a2 zz 2. b2 *\n')
    assert r.status_code == 200
    records = [json.loads(line) for line in r.text.splitlines()]
    assert records[0] == {"input_error": "<request>:3: game 1, move 1... zz: 'zz' is not a move (expected like c3, a1c3 or 0000)"}
    assert [rec["move"] for rec in records[1:-1]] == ["a2"]
    assert records[-1]["input_errors"] == 1


def test_annotate_gives_the_annotated_pgn(tmp_path, capsys):
    f = tmp_path / "games.pgn"
    f.write_text(PGN)
    out = tmp_path / "out.pgn"
    assert main(["verify", str(f), "--annotate", str(out)]) == 0
    with client(tmp_path) as c:
        r = c.post("/api/annotate", content=PGN)
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-chess-pgn")
        assert r.text == out.read_text()
        assert "$4" in r.text and "{played -9, best +9 by b2}" in r.text
        r = c.post("/api/annotate", content=SHORT_GAME)
        assert r.status_code == 400 and r.text.startswith("body: not a PGN file")


def test_board_facts_match_the_command(tmp_path, capsys):
    """Stops, outcome class, orthodox summary and canonical value: those of `ataxx-solve --value --json`."""
    f = tmp_path / "b.txt"
    f.write_text("x.#o\n.##.\n")
    assert main([str(f), "--value", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    with client(tmp_path) as c:
        facts = c.get("/api/board", params={"board": "x.#o\n.##."}).json()
        loops = c.get("/api/board", params={"board": "x..\n...\n..o"}).json()
    assert (facts["x"]["value"], facts["o"]["value"]) == (cli["stops"]["x"], cli["stops"]["o"])
    assert facts["orthodox"] == cli["orthodox"] == "5|1||-5"
    assert facts["canonical"] == cli["canonical"] == "{5||1|1|||{1,{1|-5}|-5},-5}"
    assert (facts["mean"], facts["temperature"]) == (cli["mean"], cli["temperature"]) == (-1, 4)
    assert (facts["outcome_class"], facts["outcome_class_words"]) == ("first", "the first player wins")  # (solve --json's word)
    assert loops["orthodox"] == "9|-9" and loops["canonical"] is None
    assert loops["canonical_note"].startswith("no canonical form: play can repeat")


def test_position_new_and_load_for_the_page(tmp_path):
    with client(tmp_path) as c:
        pos = c.get("/api/position", params={"board": "x...o", "moves": "b1"}).json()
        assert pos["fen"] == "xx2o o 0 1" and pos["grid"] == ["xx..o"] and pos["turn"] == "o"
        assert {m["uci"] for m in pos["moves"]} == {"d1", "e1c1"} and pos["svg"].startswith("<svg ")
        new = c.get("/api/new", params={"rows": "4", "cols": "5", "blocks": "c2 c3", "turn": "o"}).json()
        assert new["grid"] == ["x...o", "..#..", "..#..", "o...x"] and new["turn"] == "o"
        loaded = c.post("/api/load", content=PGN).json()
        assert loaded["kind"] == "games" and loaded["pgn"] and [g["moves"] for g in loaded["games"]] == \
            [["a2", "b1", "b2"], ["b1", "d1"]]
        assert loaded["games"][0]["fens"][0] == "x2/3/2o x 0 1"
        loaded = c.post("/api/load", content=SHORT_GAME).json()
        assert loaded["kind"] == "games" and not loaded["pgn"] and loaded["games"][0]["moves"] == ["a2", "b1"]
        assert c.post("/api/load", content="x..o\n").json()["position"]["grid"] == ["x..o"]


def test_the_page_and_its_files(tmp_path):
    with client(tmp_path) as c:
        page = c.get("/")
        assert page.status_code == 200 and "<title>Ataxx analysis board" in page.text
        assert "script-src 'self'" in page.headers["content-security-policy"]
        for name, kind in (("app.js", "application/javascript"), ("style.css", "text/css")):
            r = c.get(f"/static/{name}")
            assert r.status_code == 200 and r.headers["content-type"].startswith(kind) and len(r.content) > 1000


def test_a_loopback_server_refuses_other_host_names(tmp_path):
    s = Settings(cache_path=None)
    with TestClient(create_app(s, allowed_hosts=["127.0.0.1", "localhost", "::1"]), base_url="http://127.0.0.1:8000") as c:
        assert c.get("/api/status").status_code == 200
        assert c.get("/api/status", headers={"Host": "[::1]:8000"}).status_code == 200
        r = c.get("/api/status", headers={"Host": "attacker.example:8000"})
        assert r.status_code == 400 and r.text.startswith("Host: 'attacker.example:8000' is not this server's name")


def test_the_analysis_stream(tmp_path):
    """GET /api/analyse: server-sent events, the last one the answer with the board drawn as --svg draws it."""
    with client(tmp_path) as c:
        r = c.get("/api/analyse", params={"fen": "x2/3/2o x 0 1", "last": "a2"})
        assert r.headers["content-type"].startswith("text/event-stream")
        events = [block.split("\n", 1) for block in r.text.strip().split("\n\n")]
        kinds = [e[0] for e in events]
        assert kinds[-1] == "event: result" and set(kinds[:-1]) <= {"event: job", "event: progress"}
        result = json.loads(events[-1][1][len("data: "):])
        assert result["value"] == 9 and result["svg"].startswith("<svg ")
        assert 'class="last-move" data-square="a2"' in result["svg"] and 'class="arrow best clone"' in result["svg"]


def test_serve_command_refuses_bad_arguments(capsys):
    for args, what in ((["--port", "70000"], "argument --port"), (["--max-seconds", "0"], "argument --max-seconds"),
                       (["--tables", "/nonexistent/tables"], "--tables")):
        with pytest.raises(SystemExit, match="^2$"):
            main(["serve", *args])
        err = capsys.readouterr().err
        assert what in err and err.count("\n") == 1, err


def test_serve_command_warns_when_not_on_loopback(monkeypatch, capsys, tmp_path):
    import socket

    import uvicorn

    from solver.app.commands import serve

    real = serve.listen
    monkeypatch.setattr(serve, "listen", lambda host, port: real("127.0.0.1", 0))
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    assert main(["serve", "--host", "0.0.0.0", "--port", "0", "--cache", str(tmp_path / "c.sqlite3")]) == 0
    captured = capsys.readouterr()
    assert "ataxx-solve serve: warning: listening on 0.0.0.0, not 127.0.0.1" in captured.err
    assert captured.out.startswith("ataxx-solve serve: http://127.0.0.1:")
    assert serve.is_loopback("127.0.0.1") and serve.is_loopback("::1") and serve.is_loopback("localhost")
    assert not serve.is_loopback("0.0.0.0") and not serve.is_loopback("192.0.2.1")
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    monkeypatch.setattr(serve, "listen", real)
    try:
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port), "--no-cache"]) == 2
        assert f"ataxx-solve serve: cannot listen on 127.0.0.1 port {port}: " in capsys.readouterr().err
    finally:
        busy.close()


def test_load_test_refuses_the_options_of_a_served_server(capsys):
    for args in (["--port", "9000"], ["--no-cache"], ["--host", "0.0.0.0"]):
        assert main(["serve", "--load-test", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("ataxx-solve serve: --load-test starts its own server") and err.count("\n") == 1


def test_load_figures_in_words():
    from solver.app.web.load import describe, loopback_url, percentiles

    assert percentiles([0.004, 0.001, 0.002, 0.003]) == {"n": 4, "median_ms": 3.0, "p90_ms": 4.0, "p99_ms": 4.0,
                                                          "max_ms": 4.0}
    rec = {"measure": "cached", "fen": "x2/3/2o x 0 1", "clients": 8, "requests": 20000, "errors": 0, "seconds": 9.5,
           "requests_per_second": 2105.3, **percentiles([0.004])}
    assert describe(rec) == ("cached answer (x2/3/2o x 0 1), 8 clients: 20,000 requests in 9.5 s, 2,105.3 requests/s (0 errors); "
                             "latency median 4.0 ms, 90th percentile 4.0 ms, longest 4.0 ms")
    assert loopback_url("http://127.0.0.1:8000/") == ("127.0.0.1", 8000)
    for url in ("http://192.0.2.1:8000/", "https://127.0.0.1/", "http://example.org/"):
        with pytest.raises(SystemExit, match="only a loopback"):
            loopback_url(url)


class StopsAtTheDepth(Job):
    """A job whose client presses stop once the search tests the depth (after the value)."""

    def __init__(self) -> None:
        super().__init__("t", 600.0, None)
        self.phases: list[str] = []

    def on_progress(self, ev) -> None:
        self.phases.append(ev.phase)
        if ev.phase == "testing":
            self.stop()
        super().on_progress(ev)


def test_a_stop_while_the_depth_is_tested_ends_the_analysis_with_the_value(monkeypatch):
    """A stop reaches the search's tests after the value (the depth), not only its search for the
    value: the analysis ends, stopped by the interrupt, with the value proved and no depth. (The
    server ignored a stop, and Ctrl-C, for minutes while a job tested a depth.) Issue 31's board:
    the value under uai in seconds, then its depth in about 4 million nodes."""
    from solver.app.web import analysis

    monkeypatch.setattr(analysis, "_workshop", analysis._Workshop())
    p = parse_position("1------/-------/--xxooo/xxxxooo/ooooooo/ooooooo/ooooooo x 0 1", rules=UAI).position
    job = StopsAtTheDepth()
    a = analysis.analyse(Settings(rules=UAI, max_seconds=600.0), job, p).to_json()
    assert "searching" in job.phases and job.phases[-1] == "testing"
    assert a["stopped"] == "interrupt" and not a["complete"]
    assert a["exact"] and a["value"] == -30 and a.get("depth") is None, a


class StopsAtABound(Job):
    """A job whose client presses stop once the search has proved a bound with a move."""

    def __init__(self) -> None:
        super().__init__("t", 600.0, None)
        self.seen: list[tuple] = []

    def on_progress(self, ev) -> None:
        if ev.phase == "searching" and ev.upper is not None and ev.upper < 0 and ev.best_move is not None:
            self.seen.append((ev.lower, ev.upper, ev.best_move_name))
            self.stop()
        super().on_progress(ev)


def test_a_bound_proved_with_a_move_shows_in_that_moves_row(monkeypatch):
    """Stopped once the root's search proves "O wins" with a move: that move's row says so (its
    row was left "the outcome is not proved" while the root said O wins, and no move showed how)."""
    from solver.app.web import analysis

    monkeypatch.setattr(analysis, "_workshop", analysis._Workshop())
    p = parse_position("2o1ooo/1xooooo/xx-o-ox/xxo-ooo/1x-o-ox/1xxooxx/1xxoox1 o 0 32", rules=UAI).position
    job = StopsAtABound()
    a = analysis.analyse(Settings(rules=UAI, max_seconds=600.0, cache_path=None), job, p).to_json()
    assert a["stopped"] == "interrupt" and a["category"] == "win" and a["upper"] < 0 and a["best_move"] is None
    (_, upper, move), = job.seen
    rows = {m["uci"]: m for m in a["moves"]}
    assert (rows[move]["category"], rows[move]["lower"], rows[move]["upper"]) == ("win", -44, upper)
    assert all(m["category"] == "unknown" for name, m in rows.items() if name != move)
    assert a["best_move_found"] == move  # named, as solve's 'best move found' (it was not: a user's trial)


def test_the_progress_line_counts_the_whole_analysis_nodes(monkeypatch):
    """The page's progress line ("searching after e1c3, 865.9k nodes, 19.8 s") counts the nodes of
    the whole analysis, as its seconds do: it never falls when the next move's search begins, and
    it ends within the analysis's own count. (It counted from where the last search began: it fell
    at each move, and while a move's depth was tested it counted the moves before it again.)"""
    from solver.app.web import analysis

    monkeypatch.setattr(analysis, "_workshop", analysis._Workshop())
    p = parse_position("1xxoxx1/ooxoooo/ooooooo/oooxooo/xxooxox/ooooxox/xxxxxoo x 0 34").position
    job = Recorder(4.0)  # (each move's depth takes minutes: the budget ends the analysis)
    a = analysis.analyse(Settings(max_seconds=4.0, cache_path=None), job, p)
    assert a.solver == "search" and len(p.legal_moves()) > 1
    assert len(job.counts) > 10
    assert job.counts == sorted(job.counts)
    assert 0 < job.counts[-1] <= a.nodes
