import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))

# The tests (and the commands they start) never read or write the user's cache of solved
# positions: a batch run without --cache uses the default one, under XDG_CACHE_HOME.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="ataxx-solver-tests-cache-")
