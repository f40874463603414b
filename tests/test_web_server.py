"""``ataxx-solve serve`` as a real process: uvicorn on a free loopback port, driven with httpx."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parent.parent


class Served:
    """A server process started with ``args``; ``url`` is the address it printed."""

    def __init__(self, tmp_path: Path, *args: str):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen([sys.executable, "-m", "solver", "serve", "--port", "0",
                                      "--cache", str(tmp_path / "cache.sqlite3"), *args],
                                     cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.startswith("ataxx-solve serve: http://127.0.0.1:"), line + self.proc.stderr.read()
        self.url = line.split()[2]
        self.client = httpx.Client(base_url=self.url, timeout=120)
        # the kernels compiled or loaded (the first run on a machine compiles them: a minute or more)
        self.wait_for(lambda st: st["ready"], "the server's warm-up")

    def status(self) -> dict:
        return self.client.get("/api/status").json()

    def wait_for(self, test, what: str) -> dict:
        for _ in range(12000):
            status = self.status()
            if test(status):
                return status
            time.sleep(0.05)
        raise AssertionError(f"{what}: {status}")

    def stop(self) -> tuple[int, str]:
        self.client.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        assert self.proc.stderr is not None
        return self.proc.returncode, self.proc.stderr.read()


@pytest.fixture
def served(tmp_path):
    servers: list[Served] = []

    def start(*args: str) -> Served:
        servers.append(Served(tmp_path, *args))
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


@pytest.mark.slow
def test_the_server_answers_and_stops_on_ctrl_c(served):
    s = served("--max-seconds", "60")
    r = s.client.get("/api/solve", params={"fen": "x2/3/2o x 0 1"})
    assert r.status_code == 200 and r.json()["value"] == 9 and r.json()["best_move"] == "b2"
    r = s.client.get("/api/solve", params={"fen": "x2/3/2o x 0 1", "rules": "nope"})
    assert r.status_code == 400 and r.text.startswith("rules: unknown rule set")
    page = s.client.get("/")
    assert page.status_code == 200 and "Ataxx analysis board" in page.text
    code, err = s.stop()  # Ctrl-C: the command's status for an interrupt, and one line
    assert code == 130 and err.endswith("ataxx-solve serve: stopped\n") and "Traceback" not in err, err


@pytest.mark.slow
def test_a_client_that_goes_away_stops_its_solve(served):
    """The page's stream of a long solve: progress events, then the client leaves; the job stops."""
    s = served("--max-seconds", "600")
    with s.client.stream("GET", "/api/analyse", params={"fen": "x5o/7/7/7/7/7/o5x x 0 1"}) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        kinds = []
        for line in r.iter_lines():
            if line.startswith("event: "):
                kinds.append(line[7:])
            if kinds.count("progress") >= 2:
                # asked while the stream is still read: leaving the loop may close the connection
                # at once, and the server may see that before a status request after it
                running = s.status()["jobs"]
                break
        assert kinds[0] == "job"
        assert [j["waiting"] for j in running] == [1]
    s.wait_for(lambda st: st["jobs"] == [], "the job stopping once its client left")
    # what it proved was kept: the next request starts from the cache's bounds, with its own budget
    r = s.client.get("/api/solve", params={"fen": "7/7/7/7/7/7/7 x 0 1"})
    assert r.status_code == 200 and r.json()["category"] == "draw" and r.json()["moves"] == []


@pytest.mark.slow
def test_the_stop_button_ends_a_solve_with_what_it_proved(served):
    s = served("--max-seconds", "600")
    events = []
    pressed = False
    with s.client.stream("GET", "/api/analyse", params={"fen": "x5o/7/7/7/7/7/o5x x 0 1"}) as r:
        block: dict = {}
        for line in r.iter_lines():
            if line.startswith("event: "):
                block = {"event": line[7:]}
            elif line.startswith("data: "):
                block["data"] = json.loads(line[6:])
                events.append(block)
                if block["event"] == "job":
                    job = block["data"]["id"]
                # pressed once: a progress event may still come while the job stops, and by the
                # time a second press arrived the job could be over ("no such job running")
                if block["event"] == "progress" and block["data"].get("done") and not pressed:
                    assert s.client.post("/api/stop", params={"job": job}).json() == {"stopped": True}
                    pressed = True
    result = events[-1]
    assert result["event"] == "result"
    assert result["data"]["stopped"] == "interrupt" and result["data"]["category"] == "unknown"
    assert result["data"]["svg"].startswith("<svg ")


@pytest.mark.slow
def test_the_built_package_ships_the_page(tmp_path):
    """`pip install .` gives a working serve: the wheel holds the page's files (package data) and
    names starlette and uvicorn among its requirements."""
    import shutil
    import zipfile

    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "solver", src / "solver", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                           "-q", "-w", str(tmp_path / "dist"), str(src)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("ataxx_solver-*.whl")
    static = ROOT / "solver" / "app" / "web" / "static"
    with zipfile.ZipFile(wheel) as z:
        for f in static.iterdir():
            assert z.read(f"solver/app/web/static/{f.name}") == f.read_bytes()
        meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    requires = [line for line in meta.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert any("starlette" in r for r in requires) and any("uvicorn" in r for r in requires)


@pytest.mark.slow
def test_the_load_test_measures_a_server_of_its_own():
    """``serve --load-test``'s measures, small (2 clients, at most 1 s and 50 cached requests): the
    7 x 7 positions with 4 empty squares answered exactly, the cached answers without an error,
    and its server stopped after (the lines it shows name the load average)."""
    from solver.app.web.load import load_test

    shown: list[str] = []
    records = load_test(["--max-seconds", "10", "--workers", "2"], 2, show=shown.append, seconds=1.0, requests=50)
    assert [r["measure"] for r in records] == ["7x7-distinct", "7x7-same", "cached"]
    for r in records[:2]:  # (answered within the budget: exact or with the interval proved)
        assert r["statuses"] == [200] and r["n"] == 2 and r["solvers"] != ["None"]
    assert records[2]["errors"] == 0 and 0 < records[2]["requests"] <= 50
    assert len(shown) == 5 and "load average" in shown[0] and "load average" in shown[-1]
    assert shown[0].startswith("load test: a server with 2 workers, --max-seconds 10, a new cache, on http://127.0.0.1:")


@pytest.mark.slow
def test_ctrl_c_answers_the_requests_waiting_for_a_solve(served):
    """Ctrl-C while a request waits for a long solve: the solve stops first and the request gets
    what it proved (not a 500 and a traceback once uvicorn's graceful shutdown timed out)."""
    import threading

    s = served("--max-seconds", "600")
    answers: list = []

    def ask() -> None:
        with httpx.Client(base_url=s.url, timeout=120) as c:
            answers.append(c.get("/api/solve", params={"fen": "x5o/7/7/7/7/7/o5x x 0 1"}))

    asking = threading.Thread(target=ask)
    asking.start()
    s.wait_for(lambda st: [j["waiting"] for j in st["jobs"]] == [1], "the request's solve running")
    code, err = s.stop()
    asking.join(60)
    assert code == 130 and err == "ataxx-solve serve: stopped\n", err
    [r] = answers
    assert r.status_code == 200, r.text
    assert r.json()["stopped"] == "interrupt" and not r.json()["exact"]
