"""``junit.xml``: one testcase per requirement, in the shape Jenkins, GitLab and GitHub read.

Mapping: pass → plain testcase; fail → ``<failure>``; error → ``<error>``; reserved → a
passed testcase (the letter held) with each reservation whole in its ``<system-out>``, and one
``reservation`` property per reservation of the run in the testsuite's ``<properties>``: the
JUnit XSD Jenkins reads (junit-10.xsd, pytest's xunit2) has no ``<properties>`` in a testcase,
so none is put there, and no reader counts a system-out as a failure; not supported, not run
and waived → ``<skipped>``. The failure text carries the minimal counterexample and the case
file that replays it, so the CI test view alone is enough to start fixing.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from typing import Any

from .._escape import map_strings, xml_text
from ._record import Collector, evidence_summary
from ._reservations import line as reservation_line
from ._reservations import reservations
from ._wording import line

FILE = "junit.xml"


def _failure_text(
    requirement: dict[str, Any], checks: dict[str, dict[str, Any]], target: str
) -> str:
    lines = [f"{requirement['id']} ({requirement['article']}): {requirement['title']}"]
    lines.append(requirement["message"])
    for cid in requirement["checks"]:
        check = checks.get(cid)
        if check is None or check["outcome"] not in ("fail", "error"):
            continue
        for n, ev in enumerate(check["evidence"], start=1):
            lines.append(f"counterexample {n} ({cid}):")
            lines.append(f"  input:    {evidence_summary(ev.get('input'), 2000)}")
            lines.append(f"  expected: {evidence_summary(ev.get('expected'), 2000)}")
            lines.append(f"  got:      {evidence_summary(ev.get('got'), 2000)}")
            if ev.get("request") is not None:
                lines.append(f"  request:  {evidence_summary(ev.get('request'), 2000)}")
            if ev.get("note"):
                lines.append(f"  note:     {ev['note']}")
        for path in check["case_files"]:
            lines.append(f"replay: instantcert replay {path} --target {target}")
    return "\n".join(lines)


def build(doc: dict[str, Any]) -> ET.ElementTree:
    doc = map_strings(doc, xml_text)  # every string XML 1.0 can hold (docs/reports.md)
    checks = {c["check_id"]: c for c in doc["checks"]}
    durations = {c["check_id"]: c["duration_s"] for c in doc["checks"]}
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    suite = ET.Element("testsuite", name=f"instantcert certify {doc['target']}")
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("verdict", doc["verdict"]["overall"]),
        ("verdict_note", doc["verdict"]["note"]),
        ("target", doc["target"]),
        ("profile", doc["profile"]),
        ("seed", str(doc["seed"])),
        ("harness_version", doc["harness_version"]),
        ("suite_sha256", doc["suite_sha256"]),
        *_clause_properties(doc),
        *[("reservation", reservation_line(r)) for r in reservations(doc)],
    ):
        ET.SubElement(props, "property", name=name, value=value)
    for req in doc["requirements"]:
        time_s = sum(durations.get(cid, 0.0) for cid in req["checks"])
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"instantcert.{req['id'].split('.', 1)[0]}",
            name=f"{req['id']} ({req['article']})",
            time=f"{time_s:.3f}",
        )
        counts["tests"] += 1
        waiver = req["waiver"]
        outcome = req["outcome"]
        reserved = (req.get("reservations") or []) if outcome == "reserved" else []
        if waiver is not None and waiver["applied"]:
            counts["skipped"] += 1
            ET.SubElement(
                case,
                "skipped",
                message=f"waived until {waiver['expires']} ({outcome}): {waiver['reason']}",
            )
        elif outcome == "fail":
            counts["failures"] += 1
            node = ET.SubElement(case, "failure", message=req["message"][:500], type="fail")
            node.text = _failure_text(req, checks, doc["target"])
        elif outcome == "error":
            counts["errors"] += 1
            node = ET.SubElement(case, "error", message=req["message"][:500], type="error")
            node.text = _failure_text(req, checks, doc["target"])
        elif outcome in ("not_supported", "not_run"):
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", message=f"{outcome}: {req['message']}"[:500])
        out = ET.SubElement(case, "system-out")
        out.text = f"{req['title']}\nchecks: {', '.join(req['checks']) or '-'}\noutcome: {outcome}"
        if line(req):
            out.text += f"\n{line(req)}"
        for item in reserved:
            out.text += f"\nreservation: {reservation_line(item)}"
        if waiver is not None and waiver["unnecessary"]:
            out.text += "\nwaiver unnecessary: the requirement passes"
    wall = f"{wall_time_s(doc):.3f}"  # the run's, not the sum of its checks' (docs/reports.md)
    for key, value in counts.items():
        suite.set(key, str(value))
    suite.set("time", wall)
    suite.set("timestamp", doc["started_at"].removesuffix("Z"))
    # <testsuites> takes no "skipped" in Jenkins xUnit's JUnit schema (the plugin drops the
    # file): tests, failures, errors and time only (tests/harness/schemas/junit-10.xsd)
    root = ET.Element("testsuites", name="instantcert", time=wall)
    for key in ("tests", "failures", "errors"):
        root.set(key, str(counts[key]))
    root.append(suite)
    ET.indent(root)
    return ET.ElementTree(root)


def wall_time_s(doc: dict[str, Any]) -> float:
    """The run's wall time: from its start to its end (each check's time counted once,
    checks side by side not added up); 0 when the times cannot be read."""
    try:
        began = dt.datetime.fromisoformat(doc["started_at"])
        ended = dt.datetime.fromisoformat(doc["finished_at"])
    except (KeyError, TypeError, ValueError):
        return 0.0
    return max(0.0, (ended - began).total_seconds())


def _clause_properties(doc: dict[str, Any]) -> list[tuple[str, str]]:
    clauses = doc.get("clauses") or {}
    keys = ("total", "mapped", "untestable", "tested", "passed", "failed", "not_tested")
    return [(f"clauses_{k}", str(clauses[k])) for k in keys if k in clauses]


class JunitReport(Collector):
    def write(self, doc: dict[str, Any]) -> None:
        build(doc).write(self.out_dir / FILE, encoding="utf-8", xml_declaration=True)
