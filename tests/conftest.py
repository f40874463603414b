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
