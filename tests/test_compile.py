"""Issue 28 item 5: every kernel compiled once, together, with one notice and one bar; no path
compiles after that (solver/app/compile.py)."""

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from solver import engine
from solver.app import compile as compiling
from solver.app.cli import main

ROOT = Path(__file__).resolve().parent.parent
# Kernels the compile leaves out: a Dask cluster's routed steps (its workers compile them), and
# one defined but called by no path.
NOT_COMPILED = {("tier_route", "route_parents"), ("tier_route", "apply_routed"), ("ttable", "entry_bounds")}


def njit_functions():
    """(module, function, inlined) of every @njit function of solver/engine."""
    out = []
    for path in sorted((ROOT / "solver" / "engine").glob("*.py")):
        lines = path.read_text().split("\n")
        for i, line in enumerate(lines):
            if re.match(r"@(nb\.|numba\.)?njit", line):
                j = i + 1
                while not lines[j].startswith("def "):
                    j += 1
                out.append((path.stem, re.match(r"def (\w+)", lines[j]).group(1), "inline" in line))
    return out


def test_the_first_kernel_the_command_needs_compiles_them_all_after_one_notice(monkeypatch, caplog, capsys):
    calls = []
    monkeypatch.setattr(compiling, "is_compiled", lambda: bool(calls))
    monkeypatch.setattr(compiling, "compile_kernels", lambda progress=None: calls.append(progress))
    monkeypatch.setattr(engine, "_first_use", [])
    with caplog.at_level(logging.WARNING, logger="solver"):
        compiling.ensure_compiled(draw=False)
        compiling.ensure_compiled(draw=False)  # done: nothing more, no notice
    assert len(calls) == 1 and caplog.messages[0] == compiling.NOTICE
    assert len(caplog.messages) == 2 and caplog.messages[1].startswith("compiled in ")


def test_the_hook_runs_once_before_the_first_kernel_module(monkeypatch):
    ran = []
    monkeypatch.setattr(engine, "_first_use", [])
    engine.on_first_use(lambda: ran.append(1))
    engine.__getattr__("bits")
    engine.__getattr__("bits")
    assert ran == [1]
    engine.on_first_use(None)
    with pytest.raises(AttributeError):
        engine.__getattr__("nothing")


def test_the_compile_command_says_when_there_is_nothing_to_do(monkeypatch, capsys):
    monkeypatch.setattr(compiling, "is_compiled", lambda: True)
    from solver.app.commands import compile as command
    monkeypatch.setattr(command, "is_compiled", lambda: True)
    assert main(["compile"]) == 0
    assert "compiled already" in capsys.readouterr().err


@pytest.mark.slow
def test_compile_covers_every_kernel_and_no_command_compiles_after_it(tmp_path):
    """In an empty cache: ``compile`` once (one notice), then the README's commands and the other
    paths say nothing about compiling (nothing is compiled again), and every kernel but those of
    NOT_COMPILED is in the cache."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), XDG_CACHE_HOME=str(tmp_path / "xdg"),
               PYTHONPATH=str(ROOT))
    run = lambda *argv: subprocess.run([sys.executable, "-m", "solver", *argv], capture_output=True, text=True,
                                       cwd=ROOT, env=env, timeout=1800)
    first = run("compile")
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("compiling the solver's kernels") == 1 and "compiled in" in first.stderr
    for argv in (["positions/chen2002.txt"], ["positions/chen2002.txt", "--rules", "uai"], ["perft", "startpos", "3"],
                 ["tables", "build", "2x3", "--dir", str(tmp_path / "tb")], ["--solver", "search", "--timeout", "30",
                                                                            "positions/chen2002.txt"]):
        r = run(*argv)
        assert "compil" not in r.stderr, (argv, r.stderr)
    cached = {(m.group(1), m.group(2)) for f in (tmp_path / "numba").rglob("*.nbi")
              if (m := re.match(r"(\w+)\.(\w+)-\d+\.py", f.name))}
    missing = {(mod, fn) for mod, fn, inlined in njit_functions() if not inlined and (mod, fn) not in cached}
    assert missing == NOT_COMPILED
    assert "compiled already" in run("compile").stderr
