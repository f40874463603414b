"""A load test of ``ataxx-solve serve`` on the loopback address (standard library only).

``ataxx-solve serve --load-test [--clients 8] [serve's options]`` starts a server of its own (a
child process, ``python3 -m solver serve`` on 127.0.0.1, a free port, a new cache file in a
temporary folder, the other options as given), waits for its warm-up, measures, stops it and
prints the figures with the machine's load average. ``python3 -m solver.app.web.load URL``
measures a server already running (loopback addresses only).

Three measures, each bounded in requests and in time, sent only to a loopback address:

1. ``7x7-distinct``: the 7 x 7 positions with 4 empty squares of the endgame suite
   (``solver/data/endgames-7x7.txt``), one per client, asked at once (``--clients`` of them):
   each request's latency (from its sending to its whole answer);
2. ``7x7-same``: one such position (not asked before) asked by every client at once: they share
   one solve;
3. ``cached``: ``--clients`` clients, each on its own keep-alive connection, ask for one answer
   that the server has (the first of three 7 x 7 endgames with 2 empty squares that it answers
   whole when asked, else a 3 x 3 board's) as fast as they can, for ``--seconds`` or ``--requests`` requests in all: requests per second,
   and the latency of each.

A server with a cache that already holds the 7 x 7 positions answers 1 and 2 from it: the
``--load-test`` server has a new one.
"""

from __future__ import annotations

import argparse
import http.client
import ipaddress
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

from solver.io.formats import read_file, write_fen

FALLBACK = "x2/3/2o x 0 1"
CANDIDATES = 3  # 7 x 7 endgames with 2 empty squares tried for the cached measure, each within a budget
SUITE = Path(__file__).resolve().parent.parent.parent / "data" / "endgames-7x7.txt"


def loopback_url(url: str) -> tuple[str, int]:
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    try:
        ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = False
    if not ok or parts.scheme != "http":
        raise SystemExit(f"load: {url}: only a loopback http:// address is load-tested")
    return host, parts.port or 80


def positions_7x7(empty: int = 4) -> list[str]:
    return [write_fen(e.position) for e in read_file(str(SUITE))
            if not isinstance(e, Exception) and e.position.empty.bit_count() == empty]


class Client:
    def __init__(self, host: str, port: int):
        self.conn = http.client.HTTPConnection(host, port, timeout=600)

    def get(self, path: str) -> tuple[int, bytes, float]:
        t = time.perf_counter()
        self.conn.request("GET", path)
        r = self.conn.getresponse()
        body = r.read()
        return r.status, body, time.perf_counter() - t

    def close(self) -> None:
        self.conn.close()


def path_of(fen: str) -> str:
    return "/api/solve?" + urllib.parse.urlencode({"fen": fen})


def percentiles(xs: list[float]) -> dict:
    xs = sorted(xs)
    pick = (lambda q: xs[min(len(xs) - 1, int(q * len(xs)))]) if xs else (lambda q: float("nan"))
    return {"n": len(xs), "median_ms": round(1000 * pick(0.5), 2), "p90_ms": round(1000 * pick(0.9), 2),
            "p99_ms": round(1000 * pick(0.99), 2), "max_ms": round(1000 * max(xs), 2) if xs else None}


def cached(host: str, port: int, clients: int, seconds: float, requests: int) -> dict:
    # the first of 3 7 x 7 endgames with 2 empty squares that the server answers whole (values and
    # depths of every move; a depth may take past the budget), else a small board's
    c = Client(host, port)
    for fen in [*positions_7x7(2)[:CANDIDATES], FALLBACK]:
        status, body, _ = c.get(path_of(fen))
        if status == 200 and json.loads(body)["complete"]:
            break
    c.close()
    if not (status == 200 and json.loads(body)["complete"]):
        raise RuntimeError(f"no complete answer to measure: {body[:200]!r}")
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0]
    left = [requests]
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds

    def run(k: int) -> None:
        me = Client(host, port)
        try:
            while time.perf_counter() < stop_at:
                with lock:
                    if left[0] <= 0:
                        return
                    left[0] -= 1
                status, _, dt = me.get(path_of(fen))
                if status != 200:
                    errors[0] += 1
                latencies[k].append(dt)
        finally:
            me.close()

    t0 = time.perf_counter()
    threads = [threading.Thread(target=run, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    every = [x for xs in latencies for x in xs]
    return {"measure": "cached", "fen": fen, "clients": clients, "requests": len(every), "errors": errors[0],
            "seconds": round(wall, 3), "requests_per_second": round(len(every) / wall, 1), **percentiles(every)}


def at_once(host: str, port: int, fens: list[str], name: str) -> dict:
    results: list = [None] * len(fens)
    barrier = threading.Barrier(len(fens))

    def run(k: int) -> None:
        me = Client(host, port)
        try:
            barrier.wait()
            status, body, dt = me.get(path_of(fens[k]))
            answer = json.loads(body) if status == 200 else {}
            results[k] = (status, dt, answer.get("exact"), answer.get("solver"), answer.get("nodes"))
        finally:
            me.close()

    t0 = time.perf_counter()
    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(fens))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"measure": name, "clients": len(fens), "seconds": round(wall, 3),
            "statuses": sorted({r[0] for r in results}), "exact": sum(bool(r[2]) for r in results),
            "solvers": sorted({str(r[3]) for r in results}), "nodes": [r[4] for r in results],
            **percentiles([r[1] for r in results])}


CACHED_SECONDS = 10.0     # at most this long for the cached measure
CACHED_REQUESTS = 20_000  # and at most this many requests
READY_SECONDS = 900.0     # the server's warm-up (numba compiles the kernels on a first run)


def measure(host: str, port: int, clients: int, seconds: float = CACHED_SECONDS,
            requests: int = CACHED_REQUESTS, only: str | None = None) -> list[dict]:
    """The three measures (see the module's docstring) against the server at host:port."""
    fens = positions_7x7()
    out = []
    if only in (None, "7x7"):
        picked = [fens[k % len(fens)] for k in range(1, clients + 1)]
        out.append(at_once(host, port, picked, "7x7-distinct"))
        out.append(at_once(host, port, [fens[(clients + 1) % len(fens)]] * clients, "7x7-same"))
    if only in (None, "cached"):
        out.append(cached(host, port, clients, seconds, requests))
    return out


def describe(rec: dict) -> str:
    """One measure in words."""
    lat = (f"latency median {rec['median_ms']:,.1f} ms, 90th percentile {rec['p90_ms']:,.1f} ms, "
           f"longest {rec['max_ms']:,.1f} ms")
    if rec["measure"] == "cached":
        return (f"cached answer ({rec['fen']}), {rec['clients']} clients: {rec['requests']:,} requests in {rec['seconds']:.1f} s, "
                f"{rec['requests_per_second']:,.1f} requests/s ({rec['errors']} errors); {lat}")
    what = ("7 x 7, 4 empty squares, a different position per client"
            if rec["measure"] == "7x7-distinct" else "7 x 7, 4 empty squares, one position asked by every client")
    return (f"{what}, {rec['clients']} clients at once: {lat}; {rec['exact']} of {rec['clients']} answers exact "
            f"(solver {', '.join(rec['solvers'])}; HTTP {', '.join(map(str, rec['statuses']))})")


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} processors)"


def _status(host: str, port: int) -> dict:
    c = Client(host, port)
    try:
        status, body, _ = c.get("/api/status")
        return json.loads(body) if status == 200 else {}
    finally:
        c.close()


def load_test(server_args: list[str], clients: int, show: Callable[[str], None] = print,
              seconds: float = CACHED_SECONDS, requests: int = CACHED_REQUESTS) -> list[dict]:
    """Start ``python3 -m solver serve`` on 127.0.0.1 (a free port, a new cache in a temporary
    folder, ``server_args`` added), wait for its warm-up, :func:`measure` it, stop it. Shows each
    figure as it comes, with the load average before and after. RuntimeError when the server
    does not start."""
    with tempfile.TemporaryDirectory(prefix="ataxx-load-") as folder:
        argv = [sys.executable, "-m", "solver", "serve", "--host", "127.0.0.1", "--port", "0",
                "--cache", str(Path(folder) / "cache.sqlite3"), *server_args]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                stdin=subprocess.DEVNULL)
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if not line.startswith("ataxx-solve serve: http://"):
                assert proc.stderr is not None
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    pass
                said = (line + (proc.stderr.read() if proc.poll() is not None else "")).strip().splitlines()
                raise RuntimeError(said[-1] if said else "the server did not start")
            host, port = loopback_url(line.split()[2])
            until = time.monotonic() + READY_SECONDS
            while not _status(host, port).get("ready"):
                if time.monotonic() > until or proc.poll() is not None:
                    raise RuntimeError("the server did not finish its warm-up")
                time.sleep(0.2)
            st = _status(host, port)
            nodes = "" if st["max_nodes"] is None else f", --max-nodes {st['max_nodes']:,}"
            show(f"load test: a server with {st.get('workers', '?')} workers, --max-seconds {st['max_seconds']:g}"
                 f"{nodes}, a new cache, on {line.split()[2]}; {clients} clients; {load_average()}")
            records = []
            for rec in measure(host, port, clients, seconds, requests, only="7x7") + \
                    measure(host, port, clients, seconds, requests, only="cached"):
                show(describe(rec))
                records.append(rec)
            show(f"load test: done; {load_average()}")
            return records
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(10)
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m solver.app.web.load", description=__doc__.split("\n\n")[0])
    ap.add_argument("url", help="the server's address, as `ataxx-solve serve` prints it (loopback only)")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=CACHED_SECONDS, help="at most this long for the cached measure")
    ap.add_argument("--requests", type=int, default=CACHED_REQUESTS,
                    help="at most this many requests for the cached measure")
    ap.add_argument("--only", choices=("cached", "7x7"), help="one measure only")
    ap.add_argument("--json", action="store_true", help="one JSON object a line")
    args = ap.parse_args(argv)
    if not (1 <= args.clients <= 64 and 0 < args.seconds <= 300 and 1 <= args.requests <= 1_000_000):
        ap.error("--clients 1-64, --seconds up to 300, --requests up to 1,000,000")
    host, port = loopback_url(args.url)
    print(load_average())
    for rec in measure(host, port, args.clients, args.seconds, args.requests, args.only):
        print(json.dumps(rec) if args.json else describe(rec), flush=True)
    print(load_average())
    return 0


if __name__ == "__main__":
    sys.exit(main())
