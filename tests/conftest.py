import atexit
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))

# The tests (and the commands they start) never read or write the user's cache of solved
# positions: a batch run without --cache uses the default one, under XDG_CACHE_HOME.
_CACHE_HOME = tempfile.mkdtemp(prefix="ataxx-solver-tests-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, True)


def pytest_sessionstart(session):
    """Every kernel compiled before the first test, once per version of the kernels (a minute
    or two on two cores: :mod:`solver.app.compile`), so that no test's output depends on whether
    an earlier test compiled a kernel, and no test waits for one. ATAXX_LAZY_COMPILE=1 leaves each
    kernel to its first use (quicker for one test file after changing a kernel)."""
    if os.environ.get("ATAXX_LAZY_COMPILE"):
        return
    from solver.app.compile import compile_kernels, is_compiled

    if not is_compiled():
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line("compiling the solver's kernels for the tests, once (a minute or two on two cores)")
        compile_kernels()


# -- CPU time per test: --cpu-durations N ------------------------------------------------------------
# Wall time grows with the machine's load; CPU time (user + system, of the test process and of the
# processes it started and waited for) much less. `python3 -m pytest -m "not slow" --cpu-durations 30`
# lists the tests that cost the most CPU, and the whole run's CPU (the README's figure for the quick
# suite). Nothing is asserted about it.

import resource  # noqa: E402

_cpu: dict[str, float] = {}


def pytest_addoption(parser):
    parser.addoption("--cpu-durations", type=int, default=None, metavar="N",
                     help="list the N tests that took the most CPU time (user + system, with child processes)")


def _cpu_now() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


import pytest  # noqa: E402


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start = _cpu_now()  # setup, call and teardown
    yield
    _cpu[item.nodeid] = _cpu_now() - start


def pytest_terminal_summary(terminalreporter, config):
    n = config.getoption("--cpu-durations")
    if n is None:
        return
    terminalreporter.write_sep("=", f"most CPU time (user + system, child processes included): {n}")
    for nodeid, seconds in sorted(_cpu.items(), key=lambda kv: -kv[1])[:n]:
        terminalreporter.write_line(f"{seconds:7.2f}s cpu {nodeid}")
    terminalreporter.write_line(f"{sum(_cpu.values()):.1f} s of CPU in {len(_cpu)} tests; "
                                f"{_cpu_now():.1f} s for the whole run (the kernels' compile included)")
