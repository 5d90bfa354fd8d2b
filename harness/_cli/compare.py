"""``instantcert compare OLD NEW``: two report folders, requirement by requirement.

Exit 1 when a requirement regressed from OLD to NEW, 0 otherwise, 2 when a report is missing
or is not an instantcert report.json (docs/compare.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reference import _strict_json as strict_json
from reference._files import write_text

from .._compare import CompareError, compare, headline, load_report, markdown
from . import UsageError

NAME = "compare"
HELP = "compare two report folders: regressions, fixes, new and removed requirements, evidence"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD", help="the earlier report folder (or its report.json)")
    parser.add_argument("new", metavar="NEW", help="the later report folder (or its report.json)")
    parser.add_argument(
        "--format",
        choices=("markdown", "json"),
        default="markdown",
        help="Markdown (default; fit for a PR comment) or JSON (docs/compare.md has its shape)",
    )
    parser.add_argument(
        "--out", default=None, metavar="FILE", help="write it to FILE instead of stdout"
    )


def run(args: argparse.Namespace) -> int:
    try:
        old = load_report(Path(args.old), "OLD")
        new = load_report(Path(args.new), "NEW")
    except CompareError as exc:
        raise UsageError(str(exc)) from None
    result = compare(old, new, (args.old, args.new))
    json_text = strict_json.dumps(result, indent=2) + "\n"
    text = json_text if args.format == "json" else markdown(result)
    if args.out is None:
        sys.stdout.write(text)
    else:
        try:
            write_text(args.out, text)
        except OSError as exc:
            raise UsageError(f"--out {args.out!r}: {exc.strerror or exc}") from None
        print(f"{headline(result)}; written to {args.out}")
    code: int = result["exit_code"]
    return code
