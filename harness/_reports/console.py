"""The summary table on stdout: requirements that did not pass, counts, verdict.

Passing requirements are counted, not listed, unless ``verbose``: a person at a terminal wants
to see what is wrong first; report.md and report.html list everything.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

from .._escape import map_strings, terminal
from .._runner import OUT_OF_SCOPE
from ._record import OUTCOMES, Collector
from ._table import simple_table
from ._wording import coverage_line

MARK = {
    "pass": "pass",
    "fail": "FAIL",
    "error": "ERROR",
    "not_supported": "not supported",
    "not_run": "not run",
}


def _short(text: str, limit: int = 90) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def transport_line(doc: dict[str, Any]) -> str:
    """One line on what the HTTP transport did, when it did anything ("" otherwise)."""
    counts = doc.get("transport")
    if not counts or not any(
        counts[k] for k in ("retries", "plays_bought", "plays_resent", "lost")
    ):
        return ""
    settled = counts["plays_bought"] + counts["plays_resent"]
    return (
        f"transport: {counts['retries']} requests sent again, {settled} lost plays settled from "
        f"the history ({counts['plays_bought']} bought, {counts['plays_resent']} sent again), "
        f"{counts['lost']} answers lost unsettled; requests in flight halved "
        f"{counts['reductions']} times (down to {counts['lowest_limit']})"
    )


def render(doc: dict[str, Any], *, verbose: bool = False, out_dir: Path | None = None) -> str:
    doc = map_strings(doc, terminal)  # no control character reaches the terminal
    rows = []
    for req in doc["requirements"]:
        waiver = req["waiver"]
        if req["outcome"] == "pass" and not verbose and not (waiver and waiver["unnecessary"]):
            continue
        if req["message"] == OUT_OF_SCOPE and not verbose:
            continue  # a filtered run: counted below, not listed
        outcome = MARK[req["outcome"]]
        if waiver is not None:
            outcome += " (waived)" if waiver["applied"] else ""
            outcome += " (waiver unnecessary)" if waiver["unnecessary"] else ""
            outcome += " (waiver expired)" if waiver["expired"] else ""
        rows.append(
            [
                req["id"],
                req["article"],
                outcome,
                "yes" if req["required"] else "no",
                _short(req["message"]),
            ]
        )
    parts = []
    if not doc["smoke"]["ok"]:
        rows = []  # every requirement has the smoke step's message: say it once, below
        parts.append(f"smoke step failed: {doc['smoke']['message']}")
    if rows:
        parts.append(
            simple_table(rows, headers=["requirement", "article", "outcome", "required", "why"])
        )
    counts = doc["verdict"]["counts"]
    parts.append(
        simple_table([[MARK[o], counts[o]] for o in OUTCOMES], headers=["requirements", "count"])
    )
    if coverage_line(doc):
        parts.append(f"clauses: {coverage_line(doc)}")
    if doc["blocks"]:
        lines = []
        for block in doc["blocks"]:
            share = 100 * block["payout_cents"] / max(1, block["face_value_cents"])
            lines.append(
                f"block {block['block_id']} ({block['game']}, {block['stake_cents']} c): "
                f"{block['audited_units']:,}/{block['units']:,} units audited, "
                f"payout {block['payout_cents']:,} c = {share:.2f} % of face value"
            )
        parts.append("\n".join(lines))
    replays = [
        f"replay: instantcert replay {out_dir / case if out_dir else case} --target {doc['target']}"
        for failure in doc["failures"]
        for case in failure["case_files"][:3]
    ]
    if replays:
        parts.append("\n".join(replays))
    if transport_line(doc):
        parts.append(transport_line(doc))
    parts.append(f"{doc['verdict']['overall']}: {doc['verdict']['note']}")
    return "\n\n".join(parts) + "\n"


class ConsoleReport(Collector):
    def __init__(self, out_dir: Path, stream: TextIO | None = None, verbose: bool = False) -> None:
        super().__init__(out_dir)
        self.stream = stream if stream is not None else sys.stdout
        self.verbose = verbose

    def close(self) -> None:  # writes no file
        if self.record.finished is not None:
            from ._record import document

            self.write(document(self.record))

    def write(self, doc: dict[str, Any]) -> None:
        self.stream.write(render(doc, verbose=self.verbose, out_dir=self.out_dir))
        self.stream.write(f"reports: {self.out_dir}\n")
        self.stream.flush()
