"""The C allocator told to give freed memory back to the system at once (glibc only).

A tier's solve allocates and frees many arrays of a few megabytes (un-moves, fronts, windows
of events). glibc serves those from its heaps once it has seen one freed (its mmap threshold
grows with the blocks it sees freed, up to 32 MiB), and a heap keeps freed memory for reuse:
on tier 4 of 4 x 5 the peak was 4.7 to 5.4 bytes a number of the tier where the solver holds 3.
With the threshold fixed at 128 KiB every such array is mapped on its own and unmapped when
freed: 4.3 to 4.4 bytes a number, for about 13 s more system time on the tier's 85 s (pages
mapped afresh are zeroed by the kernel). :func:`solver.tables.build.build` asks for it before a tier large
enough for its memory to matter.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_MMAP_THRESHOLD = -3          # mallopt's parameter number (malloc.h)
LEAN_MMAP_THRESHOLD = 128 << 10

_lean = False


def give_back_freed_memory() -> bool:
    """Fix glibc's mmap threshold at 128 KiB for the rest of the process (blocks of that size
    and more are unmapped when freed). True when the allocator took it; False elsewhere (another
    C library, or no C library found), where nothing changes."""
    global _lean
    if _lean:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # no C library, or one without mallopt (musl)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    _lean = mallopt(M_MMAP_THRESHOLD, LEAN_MMAP_THRESHOLD) == 1
    return _lean
