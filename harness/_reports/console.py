"""The summary on stdout: what failed first, then what was not checked, counts, verdict.

Failed and errored requirements come first, each with its reason whole (wrapped, never cut:
issue 30); then one line per group of not supported, not run and waived requirements, not a
row each (a run of one capability has dozens); then the counts, the reservations and the
verdict, last. Passing requirements are counted, not listed, unless ``verbose`` (a table of
every requirement not listed above); report.md and report.html list everything.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any, TextIO

from .._escape import map_strings, terminal
from .._runner import OUT_OF_SCOPE
from ._record import OUTCOMES, Collector
from ._reservations import covers, line, reach, reservations
from ._table import simple_table
from ._wording import coverage_line

MARK = {
    "pass": "pass",
    "fail": "FAIL",
    "error": "ERROR",
    "reserved": "reserved",
    "not_supported": "not supported",
    "not_run": "not run",
}


WIDTH = 100  # a reason is wrapped to this width, never cut
GROUPED = ("not_supported", "not_run")  # one line per group, not a row per requirement
LISTED_IN_A_GROUP = 6  # requirement ids named on a group's line, then "and N more"


def _short(text: str, limit: int = 90) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _wrapped(text: str, indent: str = "    ") -> str:
    """``text`` whole, each of its lines wrapped at ``WIDTH`` under ``indent``."""
    out: list[str] = []
    for text_line in text.splitlines() or [""]:
        out += textwrap.wrap(
            text_line,
            WIDTH,
            initial_indent=indent,
            subsequent_indent=indent,
            break_long_words=True,
            break_on_hyphens=False,
        ) or [indent.rstrip()]
    return "\n".join(out)


def _waived(req: dict[str, Any]) -> bool:
    return req["waiver"] is not None and bool(req["waiver"]["applied"])


def _broken(doc: dict[str, Any]) -> str:
    """Failed and errored requirements first, each with its reason whole (wrapped)."""
    blocks = []
    for req in doc["requirements"]:
        if req["outcome"] not in ("fail", "error") or _waived(req):
            continue
        required = "required" if req["required"] else "optional"
        head = f"{MARK[req['outcome']]}  {req['id']} ({req['article']}, {required})"
        blocks.append(f"{head}\n{_wrapped(req['message'])}")
    return "\n\n".join(blocks)


def _groups(doc: dict[str, Any], verbose: bool) -> str:
    """One line per group: not supported, not run (a filtered run's out-of-scope ones only
    when ``verbose``), waived (whatever their outcome)."""
    lines = []
    for outcome in GROUPED:
        members = [
            r
            for r in doc["requirements"]
            if r["outcome"] == outcome
            and not _waived(r)
            and (verbose or r["message"] != OUT_OF_SCOPE)
        ]
        if members:
            lines.append(_group_line(MARK[outcome], members))
    waived = [r for r in doc["requirements"] if _waived(r)]
    if waived:
        lines.append(_group_line("waived", waived))
    return "\n".join(lines)


def _group_line(label: str, members: list[dict[str, Any]]) -> str:
    """``not supported (12): <their one reason, if they share it>: id, id, ... and N more``."""
    ids = [r["id"] for r in members]
    shown = ", ".join(ids[:LISTED_IN_A_GROUP])
    more = f" and {len(ids) - LISTED_IN_A_GROUP} more" if len(ids) > LISTED_IN_A_GROUP else ""
    reasons = {r["message"].split(": ", 1)[-1] for r in members if r["message"]}
    reason = f" {_short(next(iter(reasons)), 80)}:" if len(reasons) == 1 else ""
    return f"{label} ({len(ids)}):{reason} {shown}{more}"


def transport_line(doc: dict[str, Any]) -> str:
    """One line on what the HTTP transport did, when it did anything ("" otherwise): the
    requests sent again and the plays settled, and the waits a target asked for (429, 503
    with ``Retry-After``): the harness slowed down for it."""
    counts = doc.get("transport")
    if not counts:
        return ""
    parts = []
    if any(counts[k] for k in ("retries", "plays_bought", "plays_resent", "lost")):
        settled = counts["plays_bought"] + counts["plays_resent"]
        parts.append(
            f"{counts['retries']} requests sent again, {settled} lost plays settled from "
            f"the history ({counts['plays_bought']} bought, {counts['plays_resent']} sent "
            f"again), {counts['lost']} answers lost unsettled"
        )
    if counts.get("rate_limited"):
        parts.append(
            f"{counts['rate_limited']} answers asked the harness to slow down (429, or 503 "
            f"with Retry-After), {counts['rate_waited_s']} s waited before sending them again"
        )
    if not parts:
        return ""
    return (
        f"transport: {'; '.join(parts)}; requests in flight halved {counts['reductions']} "
        f"times (down to {counts['lowest_limit']})"
    )


def render(doc: dict[str, Any], *, verbose: bool = False, out_dir: Path | None = None) -> str:
    """What a person reads first, first: every failed or errored requirement with its reason
    whole; then one line per group of not supported, not run and waived requirements; the
    counts; the reservations; the verdict last. ``verbose`` adds a table of every other
    requirement (passes included)."""
    doc = map_strings(doc, terminal)  # no control character reaches the terminal
    rows = []
    for req in doc["requirements"]:
        waiver = req["waiver"]
        if req["outcome"] in ("fail", "error") and not _waived(req):
            continue  # listed first, whole
        if (req["outcome"] in GROUPED or _waived(req)) and not verbose:
            continue  # one line per group
        if req["outcome"] == "pass" and not verbose and not (waiver and waiver["unnecessary"]):
            continue
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
    else:
        parts += [text for text in (_broken(doc), _groups(doc, verbose)) if text]
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
    found = reservations(doc)
    if found:  # every one, whole: a reservation is read, not skimmed
        listed = [f"reservations ({len(found)}):"]
        listed += [f"  {n}. {line(r)}" for n, r in enumerate(found, start=1)]
        parts.append("\n".join(listed))
    if covers(doc):
        parts.append(f"scope: {covers(doc)}")
    if reach(doc):  # the ages reached; what a line says "not covered", no check judged
        parts.append("\n".join(["reached:", *(f"  - {line}" for line in reach(doc))]))
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
