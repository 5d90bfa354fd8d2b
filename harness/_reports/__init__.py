"""Report formats, one event handler each; all fed by the same event stream.

``report_handlers`` gives them in closing order: the manifest last, as it hashes the others.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from .._events import EventHandler
from .badge import BadgeReport
from .console import ConsoleReport
from .ctrf import CtrfReport
from .html import HtmlReport
from .json_report import JsonReport
from .junit import JunitReport
from .manifest import ManifestReport
from .markdown import MarkdownReport
from .summary import SummaryReport

REPORT_FILES = (
    "report.json",
    "junit.xml",
    "ctrf.json",
    "report.md",
    "summary.md",
    "badge.json",
    "report.html",
    "manifest.json",
)


def report_handlers(
    out_dir: Path, stdout: TextIO | None = None, *, verbose: bool = False
) -> list[EventHandler]:
    """Every report of a run written to ``out_dir``, plus the summary table on ``stdout``."""
    return [
        JsonReport(out_dir),
        JunitReport(out_dir),
        CtrfReport(out_dir),
        MarkdownReport(out_dir),
        SummaryReport(out_dir),
        BadgeReport(out_dir),
        HtmlReport(out_dir),
        ManifestReport(out_dir),
        ConsoleReport(out_dir, stdout, verbose=verbose),
    ]


__all__ = [
    "REPORT_FILES",
    "BadgeReport",
    "ConsoleReport",
    "CtrfReport",
    "HtmlReport",
    "JsonReport",
    "JunitReport",
    "ManifestReport",
    "MarkdownReport",
    "SummaryReport",
    "report_handlers",
]
