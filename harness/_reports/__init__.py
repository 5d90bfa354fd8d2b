"""Report formats, one event handler each; all fed by the same event stream.

``report_handlers`` gives them in closing order: the manifest last, as it hashes the others.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .._events import EventHandler
from . import manifest
from .badge import BadgeReport
from .console import ConsoleReport
from .ctrf import CtrfReport
from .html import HtmlReport
from .json_report import JsonReport
from .junit import JunitReport
from .manifest import ManifestReport
from .markdown import MarkdownReport
from .summary import SummaryReport

if TYPE_CHECKING:  # cryptography loads only when a run is signed
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

REPORT_FILES = (*manifest.REPORT_FILES, manifest.FILE)  # the manifest lists the others
SIGNED_FILES = ("attestation.intoto.jsonl",)  # written only with a signing key


def report_handlers(
    out_dir: Path,
    stdout: TextIO | None = None,
    *,
    verbose: bool = False,
    sign_key: Ed25519PrivateKey | None = None,
    shown_as: Path | None = None,
) -> list[EventHandler]:
    """Every report of a run written to ``out_dir``, plus the summary table on ``stdout``;
    with ``sign_key``, the signed attestation over all of them (closed after the manifest).
    ``shown_as``: the folder the reports will be in, when ``out_dir`` is a staging folder
    (``_folder.py``): the name the summary and the console give."""
    shown = out_dir if shown_as is None else shown_as
    signed: list[EventHandler] = []
    if sign_key is not None:
        from .attestation import AttestationReport

        signed.append(AttestationReport(out_dir, sign_key))
    return [
        JsonReport(out_dir),
        JunitReport(out_dir),
        CtrfReport(out_dir),
        MarkdownReport(out_dir),
        SummaryReport(out_dir, shown),
        BadgeReport(out_dir),
        HtmlReport(out_dir),
        ManifestReport(out_dir),
        *signed,
        ConsoleReport(shown, stdout, verbose=verbose),
    ]


__all__ = [
    "REPORT_FILES",
    "SIGNED_FILES",
    "AttestationReport",
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


def __getattr__(name: str) -> object:
    """``AttestationReport`` on first use: it loads cryptography, which unsigned runs skip."""
    if name == "AttestationReport":
        from .attestation import AttestationReport

        return AttestationReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
