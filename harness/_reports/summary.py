"""``summary.md``: the run in a few lines, for a pull-request comment or ``$GITHUB_STEP_SUMMARY``.

``report.md`` is the whole run; this is what a reviewer reads first: the verdict in words, the
counts, one table row per requirement that failed or errored, and where the full reports are.
Every string that comes from the target or the run is an inert code span (``_mdtext``), the
table is bounded (``MAX_ROWS``) and the file too (``MAX_BYTES``, far under GitHub's 1 MiB
step-summary limit), so a hostile or verbose target cannot break or flood the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._mdtext import code, plain
from ._record import OUTCOMES, Collector
from ._reservations import covers, head, reservations

FILE = "summary.md"
MAX_ROWS = 50
MAX_BYTES = 64 * 1024
LABEL = {
    "pass": "pass",
    "fail": "fail",
    "error": "error",
    "reserved": "reserved",
    "not_supported": "not supported",
    "not_run": "not run",
}
FULL_REPORTS = "report.html, report.md, report.json, junit.xml, ctrf.json, cases/"


def _row(req: dict[str, Any], cases: dict[str, list[str]]) -> str:
    files = [path for cid in req["checks"] for path in cases.get(cid, [])]
    case = code(files[0], 120) if files else "-"
    if len(files) > 1:
        case += f" (+{len(files) - 1})"
    waived = " (waived)" if req["waiver"] is not None and req["waiver"]["applied"] else ""
    return (
        f"| {code(req['id'], 120)} | {plain(req['article'], 80)} | "
        f"{LABEL[req['outcome']]}{waived} | {code(req['message']) or '-'} | {case} |"
    )


def render(doc: dict[str, Any], out_dir: str = "instantcert-report") -> str:
    """The summary of ``doc`` (a report.json document); ``out_dir`` names the report folder."""
    verdict = doc["verdict"]
    counts = verdict["counts"]
    impl = doc["implementation"] or {}
    scope = f"{doc['profile']} profile" + (", filtered" if doc["filtered"] else "")
    out = [
        f"## instantcert: {verdict['overall']}",
        "",
        f"**{verdict['overall']}** (exit code {verdict['exit_code']}): "
        f"{code(verdict['note'], 300)}",
        "",
        f"Target {code(doc['target'], 200)}"
        + (
            f" ({code(str(impl.get('name', '')), 80)} {code(str(impl.get('version', '')), 40)})"
            if impl
            else ""
        )
        + f", {scope}, seed {doc['seed']}, instantcert {plain(doc['harness_version'], 40)}.",
        "",
        "| " + " | ".join(LABEL[o] for o in OUTCOMES) + " |",
        "|" + "---:|" * len(OUTCOMES),
        "| " + " | ".join(str(counts[o]) for o in OUTCOMES) + " |",
    ]
    if not doc["smoke"]["ok"]:
        out += ["", f"Smoke step failed: {code(doc['smoke']['message'], 300)}"]
    found = reservations(doc)
    if covers(doc):
        out += ["", f"Scope: {plain(covers(doc), 200)}."]
    if found:
        out += [
            "",
            f"### Reservations ({len(found)})",
            "",
            "| reservation | what was seen | to lift it |",
            "|---|---|---|",
        ]
        out += [
            f"| {plain(head(r), 200)} | {code(r['message'], 300)} | {plain(r['lift'], 300)} |"
            for r in found[:MAX_ROWS]
        ]
        if len(found) > MAX_ROWS:
            out += ["", f"{len(found) - MAX_ROWS} more not shown here: the full reports list them."]
    bad = [r for r in doc["requirements"] if r["outcome"] in ("fail", "error")]
    if bad:
        cases = {c["check_id"]: c["case_files"] for c in doc["checks"]}
        out += [
            "",
            f"### Requirements that failed or errored ({len(bad)})",
            "",
            "| requirement | article | outcome | message | case file |",
            "|---|---|---|---|---|",
        ]
        out += [_row(r, cases) for r in bad[:MAX_ROWS]]
        if len(bad) > MAX_ROWS:
            out += ["", f"{len(bad) - MAX_ROWS} more not shown here: the full reports list them."]
    out += [
        "",
        f"Full reports ({FULL_REPORTS}) are in the report folder {code(out_dir, 200)} of this "
        f"run, run id {code(doc['run_id'], 40)}; in CI, in the job's artifacts.",
    ]
    return _bounded("\n".join(out) + "\n")


def _bounded(text: str) -> str:
    """``text`` cut at a line boundary so that it stays under ``MAX_BYTES``, with a note."""
    if len(text.encode("utf-8")) <= MAX_BYTES:
        return text
    note = "\n\n(summary shortened to stay under 64 KiB: the full reports have everything)\n"
    kept: list[str] = []
    size = len(note.encode("utf-8"))
    for line in text.splitlines():
        size += len(line.encode("utf-8")) + 1
        if size > MAX_BYTES:
            break
        kept.append(line)
    return "\n".join(kept) + note


class SummaryReport(Collector):
    def __init__(self, out_dir: Path, shown_as: Path | None = None) -> None:
        super().__init__(out_dir)
        self.shown_as = out_dir if shown_as is None else shown_as  # the folder's final name

    def write(self, doc: dict[str, Any]) -> None:
        text = render(doc, self.shown_as.as_posix())
        (self.out_dir / FILE).write_text(text, encoding="utf-8")
