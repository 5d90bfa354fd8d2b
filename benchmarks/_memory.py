"""The memory of a process tree, as the benchmarks' "peak memory" figures count it.

Each process counts its proportional set size (PSS, ``/proc/PID/smaps_rollup``): a page that
several processes of the tree share (a forked worker shares its parent's interpreter, numpy
and everything loaded before the fork) is split among them, so the tree's sum is the memory
it holds. Resident set sizes (RSS) count such a page once per process: a parent and two
forked workers over 100 MB of shared pages would read 300 MB. Where the kernel has no
``smaps_rollup`` (before Linux 4.14), RSS it is, an upper bound.
"""

from __future__ import annotations

import os


def tree_pids(pid: int) -> list[int]:
    """``pid`` and every live descendant (``/proc/PID/task/*/children``)."""
    pids = [pid]
    for at in pids:
        try:
            for task in os.listdir(f"/proc/{at}/task"):
                with open(f"/proc/{at}/task/{task}/children") as handle:
                    pids += [int(c) for c in handle.read().split()]
        except OSError:  # it ended meanwhile
            continue
    return pids


def process_kib(pid: int) -> int:
    """The memory ``pid`` holds, in KiB: its PSS, else its RSS; 0 if it has ended."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, IndexError):
        return 0


def tree_kib(pid: int) -> int:
    """The memory the tree under ``pid`` holds now, in KiB (see the module's docstring)."""
    return sum(process_kib(p) for p in tree_pids(pid))
