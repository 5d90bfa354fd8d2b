"""Profile (function in a warm process): ``write_block_file`` of a full block, and its memory.

``instantcert generate-block`` as a whole process is timed by ``benchmarks/commands.py``.

Target (issue 3): a full 2 000 000-unit robots block to ``.jsonl.gz`` on 2 cores in under 60 s,
peak memory under 500 MB. The seed is fixed, so the file (and its SHA-256) is repeatable:

    python benchmarks/generate.py [--game robots] [--stake-cents 100] [--workers 2]
                                  [--count N] [--out FILE]
    python benchmarks/generate.py --render-only [--game G] [--stake-cents N]

``--render-only`` measures the generator alone on one core: the CPU time of ``Block.render``
per unit over slices of 65 536 units, after the block's scenario pools are drawn (their one-off
cost is shown apart), best of 5 slices, for the units/s per core of issue 12.

Memory is the largest sum of proportional set sizes of this process and its children (pages
the forked workers share with it count once: ``_memory``), sampled every 50 ms from /proc
(Linux); elsewhere only this process's own peak is shown.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import threading
import time

from _memory import tree_kib

import reference

SEED = bytes(range(32))


class TreeMemory:
    """Samples the memory of this process and all its descendants (``_memory.tree_kib``)."""

    def __init__(self) -> None:
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.wait(0.05):
            self.peak_kib = max(self.peak_kib, tree_kib(me))

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def render_only(game: str, stake_cents: int, slice_units: int = 65536) -> None:
    block = reference.Block(
        game, stake_cents, reference.default_block_id(game, stake_cents, 1), SEED
    )
    began = time.process_time()
    block.render(0, 16384)  # draws every pool the block needs
    pools = time.process_time() - began
    best = float("inf")
    for k in range(1, 6):
        began = time.process_time()
        block.render(k * slice_units, slice_units)
        best = min(best, time.process_time() - began)
    per = best / slice_units
    print(
        f"profile (function in a warm process): Block.render, {game} stake {stake_cents}: "
        f"{per * 1e6:.2f} µs CPU/unit = {1 / per:,.0f} units/s per core "
        f"(best of 5 slices of {slice_units:,}); pools and first 16 384 units {pools:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--game", default="robots", choices=reference.GAMES)
    parser.add_argument("--stake-cents", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--count", type=int, default=None, help="units (default: the whole block)")
    parser.add_argument(
        "--out", default=None, help="file to write (default: a temporary .jsonl.gz)"
    )
    parser.add_argument(
        "--render-only", action="store_true", help="the generator alone, on one core"
    )
    args = parser.parse_args()
    if args.render_only:
        render_only(args.game, args.stake_cents)
        return
    block = reference.Block(
        args.game,
        args.stake_cents,
        reference.default_block_id(args.game, args.stake_cents, 1),
        SEED,
    )
    load = os.getloadavg()
    cpu_before = sum(
        u.ru_utime + u.ru_stime
        for u in (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
    )
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or os.path.join(scratch, "block.jsonl.gz")
        with TreeMemory() as memory:
            began = time.perf_counter()
            digest = reference.write_block_file(out, block, 0, args.count, workers=args.workers)
            seconds = time.perf_counter() - began
        size = os.path.getsize(out)
    units = block.units if args.count is None else args.count
    own_usage = resource.getrusage(resource.RUSAGE_SELF)
    child_usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    own, child = own_usage.ru_maxrss // 1024, child_usage.ru_maxrss // 1024
    cpu = sum(u.ru_utime + u.ru_stime for u in (own_usage, child_usage)) - cpu_before
    print(
        f"profile (function in a warm process): write_block_file, {args.game} stake "
        f"{args.stake_cents}: {units:,} units, {args.workers} workers"
    )
    print(f"  time        {seconds:8.1f} s   ({seconds / units * 1e6:.1f} µs/unit wall)")
    print(f"  file        {size / 1e6:8.1f} MB  sha256 {digest}")
    print(f"  cpu         {cpu:8.1f} s   (all processes; {cpu / units * 1e6:.1f} µs/unit)")
    print(
        f"  load        {load[0]:8.2f} at start, {os.getloadavg()[0]:.2f} at end "
        "(1-minute load average: other work slows the wall time)"
    )
    print(f"  peak memory {memory.peak_kib / 1024:8.0f} MB  (process tree, sampled)")
    print(f"  peak RSS    {own:8d} MB  parent, {child} MB largest worker")


if __name__ == "__main__":
    main()
