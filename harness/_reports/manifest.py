"""``manifest.json``: the SHA-256 of every file of the report, so none can be altered unseen.

It must be closed after every other report handler: it hashes what they wrote.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from reference import _strict_json as strict_json
from reference._files import open_regular, read_regular

from ._record import Collector

FILE = "manifest.json"
MAX_MANIFEST_BYTES = 64 * 1024 * 1024


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open_regular(path) as handle:  # a FIFO in a report folder refused, not waited on
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


REPORT_FILES = (
    "report.json",
    "junit.xml",
    "ctrf.json",
    "report.md",
    "summary.md",
    "badge.json",
    "report.html",
)


def manifest(out_dir: Path, case_files: list[str]) -> dict[str, Any]:
    """The report files and case files of one run (other files in ``out_dir`` are not ours)."""
    names = [n for n in REPORT_FILES if (out_dir / n).is_file()] + sorted(case_files)
    files = [out_dir / n for n in names if (out_dir / n).is_file()]
    return {
        "format": "instantcert-manifest/1",
        "algorithm": "sha256",
        "files": {
            p.relative_to(out_dir).as_posix(): {"sha256": file_sha256(p), "bytes": p.stat().st_size}
            for p in files
        },
    }


def verify(out_dir: Path) -> list[str]:
    """The files whose hash differs from the manifest, or that are missing or unlisted."""
    listed = json.loads(read_regular(out_dir / FILE, MAX_MANIFEST_BYTES))["files"]
    cases = [n for n in listed if n not in REPORT_FILES]
    cases += [p.relative_to(out_dir).as_posix() for p in (out_dir / "cases").glob("*.json")]
    now = manifest(out_dir, sorted(set(cases)))["files"]
    return sorted(name for name in set(listed) | set(now) if listed.get(name) != now.get(name))


class ManifestReport(Collector):
    def write(self, doc: dict[str, Any]) -> None:
        cases = [path for check in doc["checks"] for path in check["case_files"]]
        data = {"run_id": doc["run_id"], **manifest(self.out_dir, cases)}
        text = strict_json.dumps(data, indent=2)
        (self.out_dir / FILE).write_text(text + "\n", encoding="utf-8")
