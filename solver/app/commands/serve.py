"""The ``serve`` command: the analysis board in the browser and the JSON API (:mod:`solver.app.web`)."""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import signal
import threading
import webbrowser
from typing import Any

from solver.app.commands.common import (
    COMMANDS,
    EXIT_INPUT,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    MAX_STATES,
    Commands,
    memory_arg,
    open_tables,
    say,
    seconds_arg,
    size_arg,
    whole_arg,
)
from solver.game.rules import RULE_SETS
from solver.solve.cache import Cache, default_cache_path

DEFAULT_PORT = 8000
DEFAULT_SECONDS = 30.0
LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1"]
LOAD_CLIENTS = 8


def add_serve(commands: Commands) -> None:
    p = commands.add_parser(
        "serve", help=COMMANDS["serve"],
        description="Start a local web server: an analysis board (open the address it prints) and a JSON API "
                    "(GET /api/solve?fen=..., POST /api/verify; see the README). Solves run on worker threads, "
                    "each request within --max-seconds and --max-nodes (past them: the interval proved); answers "
                    "are cached. Ctrl-C stops the server.")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only; another address lets "
                        "others use the solver, and the server says so)")
    p.add_argument("--port", type=whole_arg(0, 65535), default=DEFAULT_PORT,
                   help=f"the port (default {DEFAULT_PORT}; 0: a free one, printed)")
    p.add_argument("--open", action="store_true", help="open the page in the browser once the server listens")
    p.add_argument("--rules", default="classic", choices=sorted(RULE_SETS),
                   help="the rules of positions a request gives without rules= (default: classic)")
    p.add_argument("--tables", metavar="DIR", help="answer from the tablebases in DIR where they hold the position")
    p.add_argument("--tables-memory", type=size_arg, metavar="SIZE",
                   help="memory for the tiers the search reads whole to probe at its leaves (see solve --help)")
    p.add_argument("--max-seconds", type=seconds_arg, default=DEFAULT_SECONDS, metavar="S",
                   help=f"each request's time budget, from its arrival (default {DEFAULT_SECONDS:g}); "
                        "verify: each move's")
    p.add_argument("--max-nodes", type=whole_arg(1, MAX_STATES), metavar="N",
                   help="each request's node budget (the search's nodes; the retro engine's positions)")
    p.add_argument("--max-memory", type=memory_arg, metavar="SIZE",
                   help="memory for one solve, at least 1M (default: three quarters of the machine shared by the workers)")
    p.add_argument("--workers", type=whole_arg(1, 64), metavar="N",
                   help="solves at once, each on one thread (default: the processors, at most 8); a request that "
                        "waits in the queue past its budget gets what the cache knows")
    p.add_argument("--cache", metavar="PATH", help=f"the solved-position cache (default: {default_cache_path()})")
    p.add_argument("--no-cache", action="store_true", help="keep no cache (answers are kept in memory only)")
    p.add_argument("--load-test", action="store_true",
                   help="measure instead of serving: start a server (these options, 127.0.0.1, a free port, a new "
                        "cache), ask it a 7 x 7 position with 4 empty squares from --clients clients at once, then "
                        "one cached answer as fast as they can (at most 10 s, 20,000 requests), print the latencies, "
                        "the requests per second and the load average, and stop it")
    p.add_argument("--clients", type=whole_arg(1, 64), default=LOAD_CLIENTS, metavar="N",
                   help=f"--load-test: clients at once (default {LOAD_CLIENTS})")
    p.set_defaults(run=serve_command, parser=p)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on host:port (OSError with the reason when it cannot)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def serve_command(args: argparse.Namespace) -> int:
    # (imported here: the other commands do not need the web server's packages)
    import uvicorn

    from solver.app.web.analysis import Settings
    from solver.app.web.server import create_app
    from solver.common.limits import default_memory_budget
    from solver.game.rules import parse_rules

    open_tables(args.tables, "ataxx-solve serve", search_bytes=args.tables_memory)  # (a bad directory: one line, exit 2)
    if args.load_test:
        return load_test_command(args)
    cache_path = None
    if not args.no_cache:
        cache_path = Cache(args.cache or default_cache_path(), make_directory=args.cache is None)  # CacheError: one line from main()
        cache_path.close()
    workers = args.workers or max(1, min(8, os.cpu_count() or 1))
    settings = Settings(rules=parse_rules(args.rules), tables=args.tables, tables_memory=args.tables_memory,
                        cache_path=None if cache_path is None else cache_path.path, max_seconds=args.max_seconds,
                        max_nodes=args.max_nodes, max_memory=args.max_memory or default_memory_budget() // workers)
    try:
        sock = listen(args.host, args.port)
    except (OSError, UnicodeError) as exc:
        say(f"ataxx-solve serve: cannot listen on {args.host} port {args.port}: "
            f"{getattr(exc, 'strerror', None) or exc}")
        return EXIT_INPUT
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    loopback = is_loopback(args.host)
    if not loopback:
        say(f"ataxx-solve serve: warning: listening on {args.host}, not 127.0.0.1: anyone who can reach this "
            "machine can use the solver (its processors and memory) and read the cache's answers")
    allowed = LOOPBACK_NAMES if loopback else None  # (a page elsewhere cannot reach a loopback server by a name of its own)
    app = create_app(settings, workers, warm_up=True, allowed_hosts=allowed)
    print(f"ataxx-solve serve: {url} (analysis board; JSON API at {url}api/solve?fen=...; Ctrl-C stops)", flush=True)
    if args.open:
        threading.Timer(0.5, webbrowser.open, [url]).start()

    class Stopping(uvicorn.Server):
        """On Ctrl-C or SIGTERM the running solves are stopped first, so that the requests waiting
        for them are answered (with what was proved) within the graceful shutdown, not cut off
        with a traceback when it times out."""

        def handle_exit(self, sig: int, frame: Any) -> None:
            app.state.server.pool.stop_all()
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=3)
    server = Stopping(config)
    # uvicorn restores the handler it found and raises a caught Ctrl-C again: Python's own handler
    # makes that a KeyboardInterrupt (another one left in place made it return as if asked to stop)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        server.run(sockets=[sock])  # (uvicorn stops on Ctrl-C or SIGTERM, then raises the signal again)
    except KeyboardInterrupt:
        say("ataxx-solve serve: stopped")
        return EXIT_INTERRUPTED
    finally:
        sock.close()
    say("ataxx-solve serve: stopped")
    # (a handler set during the run and left there, such as a worker pool's SIG_IGN, still hides it:
    # uvicorn's record of the signals it caught says it)
    return EXIT_INTERRUPTED if signal.SIGINT in getattr(server, "_captured_signals", ()) else EXIT_OK


def load_test_command(args: argparse.Namespace) -> int:
    """``serve --load-test``: :func:`solver.app.web.load.load_test` with the server options given."""
    from solver.app.web.load import load_test

    if args.host not in ("127.0.0.1", "localhost") or args.port != DEFAULT_PORT or args.open or args.cache or args.no_cache:
        say("ataxx-solve serve: --load-test starts its own server on 127.0.0.1 with a new cache: "
            "--host, --port, --open, --cache and --no-cache do not apply")
        return EXIT_INPUT
    passed = ["--rules", args.rules, "--max-seconds", f"{args.max_seconds:.9f}"]
    for flag, value in (("--tables", args.tables), ("--tables-memory", args.tables_memory),
                        ("--max-nodes", args.max_nodes), ("--max-memory", args.max_memory),
                        ("--workers", args.workers)):
        if value is not None:
            passed += [flag, str(value)]
    try:
        load_test(passed, args.clients, show=lambda line: print(line, flush=True))
    except RuntimeError as exc:
        say(f"ataxx-solve serve: --load-test: {exc}")
        return EXIT_FAILED
    except KeyboardInterrupt:
        say("ataxx-solve serve: --load-test: stopped")
        return EXIT_INTERRUPTED
    return EXIT_OK
