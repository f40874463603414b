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
    """Every kernel compiled before the first test, once per version of the kernels (about a
    minute on two cores: :mod:`solver.app.compile`), so that no test's output depends on whether
    an earlier test compiled a kernel, and no test waits for one. ATAXX_LAZY_COMPILE=1 leaves each
    kernel to its first use (quicker for one test file after changing a kernel)."""
    if os.environ.get("ATAXX_LAZY_COMPILE"):
        return
    from solver.app.compile import compile_kernels, is_compiled

    if not is_compiled():
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line("compiling the solver's kernels for the tests, once (about a minute on two cores)")
        compile_kernels()
