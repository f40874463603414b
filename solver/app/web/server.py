"""The ASGI application of ``ataxx-solve serve`` (Starlette): the analysis board's page and the JSON API.

Routes (``README.md``, "Analysis board and JSON API"):

- ``GET /api/solve?fen=FEN`` (or ``board=TEXT``; ``rules=``, ``turn=``): lila-tablebase's answer,
  from the memory of recent answers, the SQLite cache, or a solve on the worker pool;
- ``POST /api/verify`` (a PGN or position file as the body; ``rules=``, ``game=N``): ``verify
  --json``'s records, one JSON object a line as each move is judged, then the summary;
- ``POST /api/annotate`` (the same): the annotated PGN (``verify --annotate``);
- ``GET /api/board?fen=``: the board's stops, outcome class, orthodox summary, canonical value;
- for the page: ``GET /api/position`` (a position's squares and legal moves, after ``moves=``),
  ``GET /api/new`` (a new board), ``POST /api/load`` (a pasted or uploaded text: a position or
  games), ``GET /api/analyse`` (the analysis as server-sent events: the live state, then the
  answer with the board drawn as ``--svg`` draws it), ``POST /api/stop?job=ID``;
- ``GET /``, ``/static/app.js``, ``/static/style.css``: the page, from the package's files.

A bad request is a 400 whose body is one line, ``where: why``. Nothing a request sends names a
file or reaches a shell: the static files are read once when the application is made, the
cache and the tables are the command line's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from solver import __version__
from solver.app.pictures import board_svg
from solver.app.web import analysis
from solver.app.web.analysis import Analysis, Settings
from solver.app.web.inputs import (
    MAX_BODY_BYTES,
    BadInput,
    describe_position,
    new_board,
    one_param,
    read_body,
    read_games_text,
    read_moves,
    read_position,
    read_rules,
    read_seconds,
    read_turn,
)
from solver.app.web.jobs import Job, Memo, Pool
from solver.common.limits import Limits
from solver.game.rules import RULE_SETS, Move, Position, parse_move_text
from solver.io.formats import printable, write_fen
from solver.io.pgn import looks_like_pgn
from solver.oracles.reference import ReferenceOracle
from solver.solve.analysis import Analyzer
from solver.solve.solver import Solver, warm_up

STATIC = {"app.js": "application/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8"}
TICK = 0.2  # seconds between looks at a running job (the page's progress line, a waiting request)
GRACE = 5.0  # seconds past its deadline a job may take to stop (past twice that, it is answered without)
HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}
PAGE_POLICY = ("default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
               "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")

Endpoint = Callable[[Request], Awaitable[Response]]


def _static_files() -> dict[str, bytes]:
    folder = resources.files("solver.app.web") / "static"
    return {name: (folder / name).read_bytes() for name in ("index.html", *STATIC)}


def _json(data: Any, status: int = 200) -> Response:
    return Response(json.dumps(data, separators=(",", ":")), status, media_type="application/json",
                    headers=HEADERS)


def _bad(exc: BadInput) -> Response:
    return PlainTextResponse(str(exc) + "\n", 400, headers=HEADERS)


def _guard(endpoint: Endpoint) -> Endpoint:
    """Bad input: a 400 with its one line; anything else: a 500 with one line (no traceback)."""
    async def run(request: Request) -> Response:
        try:
            return await endpoint(request)
        except BadInput as exc:
            return _bad(exc)
        except Exception as exc:  # noqa: BLE001 - a bug: one line to the client, the server goes on
            return PlainTextResponse(printable(f"internal error: {type(exc).__name__}: {exc}") + "\n", 500,
                                     headers=HEADERS)
    return run


def _params(request: Request) -> dict[str, list[str]]:
    q = request.query_params
    return {k: q.getlist(k) for k in q.keys()}


async def _body(request: Request) -> str:
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > MAX_BODY_BYTES:
        raise BadInput("body", f"{int(length):,} bytes; at most {MAX_BODY_BYTES:,}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise BadInput("body", f"more than {MAX_BODY_BYTES:,} bytes")
        chunks.append(chunk)
    return read_body(b"".join(chunks))


def _event(kind: str, data: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class Server:
    """The application's state: settings, the worker pool, the memory of answers."""

    def __init__(self, settings: Settings, workers: int = 2, warm_up: bool = False):
        self.settings = settings
        self.pool = Pool(workers)
        self.reader = ThreadPoolExecutor(max_workers=2, thread_name_prefix="ataxx-solve-cache")
        self.memo = Memo(4096)        # complete analyses, by (rules, FEN)
        self.verified = Memo(16)      # finished verify jobs, by their key
        self.static = _static_files()
        self.warm_up = warm_up
        self.ready = threading.Event()  # the kernels are compiled (or loaded from numba's cache)
        if not warm_up:
            self.ready.set()
        self.served = 0

    # -- plumbing -------------------------------------------------------------------------------

    def position(self, params: dict[str, list[str]]) -> Position:
        rules = read_rules(one_param(params, "rules"), self.settings.rules)
        return read_position(one_param(params, "fen"), one_param(params, "board"), rules,
                             read_turn(one_param(params, "turn")))

    async def off_loop(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.reader, fn, *args)

    async def wait(self, job: Job, request: Request) -> Any:
        """The job's result; a request that goes away stops waiting (and the job stops when
        nobody else waits for it). A job still running :data:`GRACE` seconds past its deadline
        is told to stop; one still running twice that long past it is answered without, with
        what it had proved (its ``partial`` analysis), where it has one."""
        assert job.future is not None
        self.pool.watch(job)
        try:
            while True:
                done, _ = await asyncio.wait({job.future}, timeout=0.5)
                if done:
                    return job.future.result()
                late = overdue(job)
                if late is not None:
                    return late
                if await request.is_disconnected():
                    raise asyncio.CancelledError
        finally:
            self.pool.unwatch(job)

    def budget(self) -> tuple[float, int | None]:
        return self.settings.max_seconds, self.settings.max_nodes

    async def analysis_of(self, p: Position, seconds: float | None = None) -> tuple[Analysis | None, Job | None]:
        """A complete analysis from memory or the cache, or the job that makes one (``seconds``: a
        budget of its own, shorter than the server's; such a job is shared only by requests that
        give the same)."""
        key = ("solve", p.rules.name, write_fen(p))
        hit = self.memo.get(key)
        if hit is not None:
            return hit, None
        done, _ = await self.off_loop(analysis.cached_analysis, self.settings, p)
        if done is not None:
            self.memo.put(key, done)
            return done, None
        most, nodes = self.budget()
        job_key = key if seconds is None else (*key, seconds)
        job = self.pool.job(job_key, lambda j: analysis.analyse(self.settings, j, p),
                            most if seconds is None else seconds, nodes)

        def keep(fut: asyncio.Future) -> None:
            if not fut.cancelled() and fut.exception() is None and fut.result().complete:
                self.memo.put(key, fut.result())
        assert job.future is not None
        job.future.add_done_callback(keep)
        return None, job

    # -- the JSON API ---------------------------------------------------------------------------

    async def solve(self, request: Request) -> Response:
        params = _params(request)
        p = self.position(params)
        done, job = await self.analysis_of(p, read_seconds(one_param(params, "seconds"), self.settings.max_seconds))
        if done is None:
            assert job is not None
            done = await self.wait(job, request)
        self.served += 1
        return _json(done.to_json())

    async def board(self, request: Request) -> Response:
        p = self.position(_params(request))
        key = ("board", p.rules.name, write_fen(p).split(" ")[0], p.counter)
        hit = self.memo.get(key)
        if hit is None:
            seconds, nodes = self.budget()
            job = self.pool.job(key, lambda j: analysis.board_facts(self.settings, j, p), seconds, nodes)
            hit = await self.wait(job, request)
            if "stopped" not in hit:
                self.memo.put(key, hit)
        return _json(hit)

    async def _verify_job(self, request: Request) -> Job:
        params = _params(request)
        rules = read_rules(one_param(params, "rules"), self.settings.rules)
        game_text = one_param(params, "game")
        game = None
        if game_text is not None:
            if not game_text.isdigit() or len(game_text) > 6 or int(game_text) < 1:
                raise BadInput("game", f"must be a game number from 1, not {printable(game_text[:20])!r}")
            game = int(game_text)
        text = await _body(request)
        key = ("verify", rules.name, game, text)
        old = self.verified.get(key)
        if old is not None:
            return old
        plan = await self.off_loop(analysis.verify_plan, text, rules, game)
        seconds, nodes = self.budget()
        job = self.pool.job(key, lambda j: analysis.run_verify(self.settings, j, plan), seconds, nodes)

        def keep(fut: asyncio.Future) -> None:
            if not fut.cancelled() and fut.exception() is None and not fut.result()["interrupted"]:
                self.verified.put(key, job)
        assert job.future is not None
        job.future.add_done_callback(keep)
        return job

    async def verify(self, request: Request) -> Response:
        job = await self._verify_job(request)

        async def lines() -> AsyncIterator[bytes]:
            self.pool.watch(job)
            sent = 0
            try:
                while True:
                    while sent < len(job.records):
                        yield (json.dumps(job.records[sent]) + "\n").encode()
                        sent += 1
                    if job.done and sent >= len(job.records):
                        if job.error is not None:
                            yield (json.dumps({"error": f"internal error: {type(job.error).__name__}"}) + "\n").encode()
                        return
                    assert job.future is not None
                    await asyncio.wait({job.future}, timeout=TICK)
            finally:
                self.pool.unwatch(job)

        return StreamingResponse(lines(), media_type="application/x-ndjson", headers=HEADERS)

    async def annotate(self, request: Request) -> Response:
        job = await self._verify_job(request)
        result = await self.wait(job, request)
        if result["annotated"] is None:
            raise BadInput("body", "not a PGN file: the annotated PGN writes PGN games back")
        return Response(result["annotated"], media_type="application/x-chess-pgn",
                        headers={**HEADERS, "Content-Disposition": 'attachment; filename="annotated.pgn"'})

    # -- for the page ---------------------------------------------------------------------------

    async def position_info(self, request: Request) -> Response:
        params = _params(request)
        p = self.position(params)
        p, played = read_moves(p, one_param(params, "moves"))
        out = describe_position(p)
        out["svg"] = _plain_board(p, played[-1] if played else None)
        return _json(out)

    async def new(self, request: Request) -> Response:
        params = _params(request)
        rules = read_rules(one_param(params, "rules"), self.settings.rules)
        p = new_board(one_param(params, "rows"), one_param(params, "cols"), one_param(params, "blocks"),
                      one_param(params, "start"), rules, read_turn(one_param(params, "turn")))
        return _json(describe_position(p))

    async def load(self, request: Request) -> Response:
        params = _params(request)
        rules = read_rules(one_param(params, "rules"), self.settings.rules)
        text = await _body(request)
        if looks_like_pgn(text) or "moves:" in text.lower():
            games, errors = await self.off_loop(read_games_text, text, rules)
            return _json({"kind": "games", "pgn": looks_like_pgn(text), "errors": errors, "games": [
                {"number": g.number, "label": g.label, "headers": g.headers, "result": g.result,
                 "fens": [write_fen(q) for q in g.positions], "moves": g.moves} for g in games]})
        p = read_position(None, text, rules)
        return _json({"kind": "position", "position": describe_position(p)})

    async def analyse(self, request: Request) -> Response:
        params = _params(request)
        p = self.position(params)
        last = one_param(params, "last")
        last_move = None
        if last:
            try:
                last_move, _ = parse_move_text(p.board, last)
            except ValueError as exc:
                raise BadInput("last", str(exc)) from None
        done, job = await self.analysis_of(p)

        def answer(a: Analysis) -> dict:
            return {**a.to_json(), "svg": a.svg(last_move)}

        async def events() -> AsyncIterator[bytes]:
            if done is not None:
                yield _event("result", answer(done))
                return
            assert job is not None and job.future is not None
            self.pool.watch(job)
            try:
                yield _event("job", {"id": job.id})
                seen, drawn = -1, None
                late = None
                while not job.done:
                    late = overdue(job)
                    if late is not None:
                        break
                    if job.version != seen:
                        seen = job.version
                        state = {k: v for k, v in job.state.items() if k != "partial"}
                        partial = job.state.get("partial")
                        if partial is not None and partial is not drawn:
                            drawn = partial
                            state["analysis"] = answer(partial)
                        state["elapsed"] = round(time.monotonic() - job.created, 2)
                        yield _event("progress", state)
                    await asyncio.wait({job.future}, timeout=TICK)
                if late is not None:
                    yield _event("result", answer(late))
                elif job.error is not None:
                    yield _event("failed", {"error": printable(f"internal error: {type(job.error).__name__}: {job.error}")})
                else:
                    yield _event("result", answer(job.future.result()))
            finally:
                self.pool.unwatch(job)

        return StreamingResponse(events(), media_type="text/event-stream", headers=HEADERS)

    async def stop(self, request: Request) -> Response:
        name = one_param(_params(request), "job") or ""
        job = self.pool.by_id.get(name)
        if job is None:
            return _json({"stopped": False, "why": "no such job running"})
        job.stop()
        return _json({"stopped": True})

    async def status(self, request: Request) -> Response:
        s = self.settings
        return _json({"version": __version__, "ready": self.ready.is_set(), "rules": s.rules.name, "rule_sets": sorted(RULE_SETS),
                      "max_seconds": s.max_seconds, "max_nodes": s.max_nodes, "tables": s.tables is not None,
                      "cache": s.cache_path is not None, "served": self.served, **self.pool.stats(),
                      "jobs": [{"id": j.id, "kind": j.key[0] if isinstance(j.key, tuple) else "job",
                                "waiting": j.watchers, "elapsed": round(time.monotonic() - j.created, 2)}
                               for j in list(self.pool.running.values())]})

    async def page(self, request: Request) -> Response:
        return Response(self.static["index.html"], media_type="text/html; charset=utf-8",
                        headers={**HEADERS, "Content-Security-Policy": PAGE_POLICY})

    async def static_file(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return PlainTextResponse("not found\n", 404)
        return Response(self.static[name], media_type=STATIC[name], headers=HEADERS)

    # -- the application ------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        if self.warm_up:  # compile (or load) the kernels now, not in the first request
            self.pool.executor.submit(_warm_up, self.settings, self.ready)
        try:
            yield
        finally:
            self.pool.close()
            self.reader.shutdown(wait=False, cancel_futures=True)

    def app(self, allowed_hosts: list[str] | None = None) -> Starlette:
        routes = [
            Route("/", _guard(self.page)),
            Route("/static/{name}", _guard(self.static_file)),
            Route("/api/solve", _guard(self.solve)),
            Route("/api/board", _guard(self.board)),
            Route("/api/verify", _guard(self.verify), methods=["POST"]),
            Route("/api/annotate", _guard(self.annotate), methods=["POST"]),
            Route("/api/position", _guard(self.position_info)),
            Route("/api/new", _guard(self.new)),
            Route("/api/load", _guard(self.load), methods=["POST"]),
            Route("/api/analyse", _guard(self.analyse)),
            Route("/api/stop", _guard(self.stop), methods=["POST"]),
            Route("/api/status", _guard(self.status)),
        ]
        middleware = [Middleware(HostCheck, allowed=allowed_hosts)] if allowed_hosts else []
        return Starlette(routes=routes, middleware=middleware, lifespan=self.lifespan)


class HostCheck:
    """Refuse a request whose Host header is not one of ``allowed`` (the names of a loopback
    server): a page elsewhere that points its own name at 127.0.0.1 (DNS rebinding) gets a 400."""

    def __init__(self, app: ASGIApp, allowed: list[str]):
        self.app = app
        self.allowed = {name.lower() for name in allowed}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = Headers(scope=scope).get("host", "")
            if host.startswith("[") and "]" in host:
                name = host[1:host.index("]")]
            else:
                name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
            if name.lower() not in self.allowed:
                response = PlainTextResponse(printable(f"Host: {host[:60]!r} is not this server's name "
                                                       f"({', '.join(sorted(self.allowed))})") + "\n", 400)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def overdue(job: Job) -> Any:
    """For a job past its deadline: told to stop after :data:`GRACE` seconds; after twice that,
    what it had proved (its ``partial`` analysis) if it has one, to answer without it."""
    late = -job.seconds_left()
    if late > GRACE:
        job.stop()
    if late > 2 * GRACE:
        return job.state.get("partial")
    return None


def _plain_board(p: Position, last_move: Move | None) -> str:
    """The board without tints (nothing solved), as ``--svg`` draws it."""
    return board_svg(Analyzer(ReferenceOracle()), p, tint=False, arrows=[], legend=False, last_move=last_move)


# Positions the warm-up solves with the search: boards of more than 25 squares search without
# symmetry, whose kernels take other arrays (numba loads, or compiles, each such variant once per
# process; measured, 23 s on a loaded machine: a first 7 x 7 request would spend its budget on it).
WARM_UP_POSITIONS = ("xxxxxxx/xxxxxxx/xxxxxxx/ooooooo/ooooooo/ooooooo/ooooo2 x 0 1", "xxxxx/xxxxx/ooooo/ooooo/ooo2 x 0 1")


def _warm_up(settings: Settings, ready: threading.Event) -> None:
    try:
        for algorithm in ("retro", "search"):
            warm_up(algorithm, settings.rules)
        for fen in WARM_UP_POSITIONS:
            Solver(settings.rules, "search", Limits(timeout=300), threads=1).solve(
                Position.from_fen(fen, settings.rules))
    finally:
        ready.set()


def create_app(settings: Settings | None = None, workers: int = 2, warm_up: bool = False,
               allowed_hosts: list[str] | None = None) -> Starlette:
    """The application (for uvicorn, or Starlette's TestClient): ``settings`` as the command line
    sets them, ``workers`` solving threads, ``warm_up``: compile the kernels when it starts."""
    server = Server(settings or Settings(), workers, warm_up)
    app = server.app(allowed_hosts)
    app.state.server = server
    return app
