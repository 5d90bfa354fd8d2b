"""Time ``instantcert certify`` (the real command, a process of its own) against hostile targets.

Each scenario starts one target of ``tests/faulty/hostile_transport.py`` on 127.0.0.1 and runs
``instantcert certify --target URL --profile quick --timeout T --out DIR``; the table shows the
exit code, the wall time of the whole process, the verdict and the outcome counts of
report.json, and whether stderr holds a traceback. The bounds are in docs/certify.md
("Deadlines and budgets").

    python benchmarks/hostile.py [--timeout 1] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.faulty.hostile_transport import (  # noqa: E402
    ENDPOINTS,
    RawTarget,
    endless_http10,
    hang,
    never_read,
    serve_broken,
    serve_slow,
    slow_headers,
)

Target = Callable[[], AbstractContextManager[str]]


def _hanging(method: str, path: str) -> Target:
    return lambda: serve_broken({(method, path): hang})


SCENARIOS: dict[str, Target] = {
    "slow headers (1 byte/s)": lambda: RawTarget(slow_headers(1.0)),
    "accepts, never reads": lambda: RawTarget(never_read),
    "HTTP/1.0, no length, never closes": lambda: RawTarget(endless_http10),
    "every answer 1.5 s late": lambda: serve_slow(1.5),
    **{f"hang {method} {path}": _hanging(method, path) for method, path in ENDPOINTS},
}


def certify(url: str, timeout: float) -> tuple[int, float, dict[str, object], bool]:
    out = Path(tempfile.mkdtemp(prefix="instantcert-hostile-"))
    command = [sys.executable, "-c", "from harness._cli import entry_point; entry_point()"]
    began = time.monotonic()
    flags = ["--profile", "quick", "--timeout", str(timeout), "--out", str(out)]
    process = subprocess.run(
        [*command, "certify", "--target", url, *flags],
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.monotonic() - began
    report = json.loads((out / "report.json").read_text())
    shutil.rmtree(out, ignore_errors=True)
    return process.returncode, elapsed, report["verdict"], "Traceback" in process.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=1.0)
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME")
    args = parser.parse_args()
    print(f"instantcert certify --profile quick --timeout {args.timeout:g}")
    print("| target | exit | wall (s) | verdict | pass / fail / error | traceback |")
    print("|---|---:|---:|---|---|---|")
    for name, target in SCENARIOS.items():
        if args.only and not any(word in name for word in args.only):
            continue
        with target() as url:
            code, elapsed, verdict, traceback = certify(url, args.timeout)
        counts = verdict["counts"]
        assert isinstance(counts, dict)
        tally = f"{counts['pass']} / {counts['fail']} / {counts['error']}"
        print(
            f"| {name} | {code} | {elapsed:.1f} | {verdict['overall']} | {tally} | "
            f"{'yes' if traceback else 'no'} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
