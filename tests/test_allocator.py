"""The allocator told to give freed memory back (solver/tiers/allocator.py): in a process of its own
(the setting is for the whole process), arrays of a few hundred KiB freed while a later one
lives are returned to the system, where glibc's heap keeps them otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[2])
from solver.tiers.allocator import give_back_freed_memory

def rss_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

if sys.argv[1] == "lean":
    assert give_back_freed_memory()
first = np.ones(1 << 21)              # 16 MiB, mapped; freed, it raises glibc's threshold above it
del first
base = rss_kib()
blocks = [np.ones(1 << 15) for _ in range(400)]   # 256 KiB each: 100 MiB
last = blocks[-1]                     # the newest stays: a heap cannot shrink below it
del blocks
print(rss_kib() - base)
"""


def kept_kib(mode: str) -> int:
    # (glibc's settings from the environment left out: a Dask LocalCluster started earlier in the
    # same test process sets MALLOC_TRIM_THRESHOLD_ there, and the heap would then be trimmed)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode, str(ROOT)], capture_output=True, text=True, check=True,
                         env=env)
    return int(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is a Linux matter")
def test_freed_arrays_go_back_to_the_system_once_asked():
    assert kept_kib("plain") > 50 * 1024      # the heap keeps what was freed
    assert kept_kib("lean") < 8 * 1024        # each array was unmapped when freed

