"""Peak memory of ``instantcert certify`` (the real command, a process of its own) against
targets that attack its memory, beside the same run against a correct target.

Each scenario serves the reference over HTTP on 127.0.0.1 with some answers replaced by a
payload of ``tests/faulty/hostile_memory.py`` (24 MiB once inflated, as in issue 29: 24 KB of
gzip inflating to ``{"x":[{},{},...]}``; nesting 12 million levels deep; one 24 MiB string;
2.5 million keys), and runs ``instantcert certify --profile quick --game robots`` on a few
requirements of every capability; the process tree's memory (PSS, ``benchmarks/_memory.py``)
is sampled every 20 ms. The bound (docs/http-api.md, "Bounded answers"): whatever the target
sends, the peak stays within about 100 MB of the correct target's.

    python benchmarks/hostile_memory.py [--only NAME ...] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _memory import tree_kib  # noqa: E402

from tests.faulty._base import reference_adapter  # noqa: E402
from tests.faulty.hostile_memory import serve_payload  # noqa: E402
from tests.faulty.hostile_transport import ENDPOINTS  # noqa: E402
from tests.faulty.http_bridge import bridge  # noqa: E402

REQUIREMENTS = (
    "robots.4.6.x2",
    "robots.4.2.invalid_board",
    "robots.3.unit_prize",
    "blocks.contract3.header",
    "robots.4.1.stake_debited",
    "robots.4.1.history_unrevealed",
    "robots.4.7.reveal_plus_one",
    "play.money.exact",
)
DESCRIBE = (("GET", "/v1/implementation"),)
OTHERS = tuple(e for e in ENDPOINTS if e not in DESCRIBE)

Target = Callable[[], AbstractContextManager[str]]
SCENARIOS: dict[str, Target] = {
    "correct (the reference)": lambda: bridge(reference_adapter(name="memory:correct")),
    "describe: gzip bomb of {}": lambda: serve_payload("gzip bomb of empty objects", DESCRIBE),
    "every other answer: gzip bomb of {}": lambda: serve_payload(
        "gzip bomb of empty objects", OTHERS
    ),
    "every other answer: 2 MiB of {}, plain": lambda: serve_payload(
        "empty objects", OTHERS, size_mib=2
    ),
    "every other answer: deep nesting": lambda: serve_payload("deep nesting, gzip", OTHERS),
    "every other answer: a huge string": lambda: serve_payload("huge string, gzip", OTHERS),
    "every other answer: many keys": lambda: serve_payload("many keys, gzip", OTHERS),
}


def certify(url: str) -> tuple[int, float, float, str]:
    """Exit code, wall time (s), peak memory (MiB) and verdict of one run against ``url``."""
    out = Path(tempfile.mkdtemp(prefix="instantcert-memory-"))
    command = [sys.executable, "-c", "from harness._cli import entry_point; entry_point()"]
    flags = ["--profile", "quick", "--game", "robots", "--timeout", "20", "--out", str(out)]
    for rid in REQUIREMENTS:
        flags += ["--requirement", rid]
    began = time.monotonic()
    process = subprocess.Popen(
        [*command, "certify", "--target", url, *flags],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    peak = 0
    while process.poll() is None:
        peak = max(peak, tree_kib(process.pid))
        time.sleep(0.02)
    elapsed = time.monotonic() - began
    verdict = "-"
    report = out / "report.json"
    if report.is_file():
        counts = json.loads(report.read_text())["verdict"]["counts"]
        verdict = " / ".join(str(counts[o]) for o in ("pass", "fail", "error"))
    shutil.rmtree(out, ignore_errors=True)
    return process.returncode, elapsed, peak / 1024, verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME")
    parser.add_argument("--runs", type=int, default=3, help="runs per scenario (the median)")
    args = parser.parse_args()
    print(f"instantcert certify --profile quick --game robots, {len(REQUIREMENTS)} requirements")
    print("| target | exit | wall (s) | peak (MiB) | over the correct run | pass / fail / error |")
    print("|---|---:|---:|---:|---:|---|")
    floor: float | None = None
    for name, target in SCENARIOS.items():
        if args.only and not any(word in name for word in args.only) and floor is not None:
            continue
        runs = []
        for _ in range(args.runs):
            with target() as url:
                runs.append(certify(url))
        code, wall, peak, verdict = runs[len(runs) // 2]
        wall = statistics.median(r[1] for r in runs)
        peak = statistics.median(r[2] for r in runs)
        floor = peak if floor is None else floor
        print(f"| {name} | {code} | {wall:.1f} | {peak:.0f} | {peak - floor:+.0f} | {verdict} |")


if __name__ == "__main__":
    main()
