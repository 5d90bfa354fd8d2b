"""``ctrf.json``: the run in the Common Test Report Format (https://ctrf.io), a test a requirement.

The statuses follow ``junit.xml`` exactly, so both files count the same: pass → passed,
fail → failed, error → other, reserved → passed (the letter held: a reservation fails nothing),
with ``rawStatus`` "reserved", the tag ``reserved``, each reservation whole in ``stdout`` and in
``extra.reservations`` (CTRF has no warning status; its ``flaky`` means "passed after failed
attempts", which a reservation is not), not supported → skipped, not run → pending; a waived
requirement
is skipped (junit's ``<skipped>``) whatever its outcome. ``rawStatus`` keeps the outcome, and
each test's ``extra`` the article, its wording, the checks, ``required`` and the waiver. A
failed or errored test carries the counterexamples in ``trace`` (as junit's failure text) and
its case files as ``attachments``. ``filePath`` is left out: a requirement is not defined by a
file of the report.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from typing import Any

from reference import _strict_json as strict_json

from ._record import Collector
from ._reservations import line, reservations
from .junit import _failure_text

FILE = "ctrf.json"
SPEC_VERSION = "1.0.0"  # the specVersion the CTRF schema's own examples use (ctrf-io/ctrf)
STATUS = {
    "pass": "passed",
    "fail": "failed",
    "error": "other",
    "reserved": "passed",
    "not_supported": "skipped",
    "not_run": "pending",
}

_RUN_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")


def _epoch_ms(timestamp: str) -> int:
    """Milliseconds since the epoch of a run's ``YYYY-MM-DDTHH:MM:SSZ``: read by
    ``datetime.fromisoformat`` when it is written so (the run's own timestamps), which
    ``strptime`` reads alike, without loading ``_strptime`` and compiling its patterns (2-3 ms
    of a block audit's last stretch); anything else as ``strptime`` reads it, or refuses it."""
    if _RUN_TIMESTAMP.fullmatch(timestamp):
        moment = datetime.fromisoformat(timestamp[:19])
    else:
        moment = datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ")
    return int(moment.replace(tzinfo=UTC).timestamp() * 1000)


def _test(
    req: dict[str, Any], checks: dict[str, dict[str, Any]], target: str, area: str
) -> dict[str, Any]:
    outcome, waiver = req["outcome"], req["waiver"]
    waived = waiver is not None and waiver["applied"]
    duration_s = sum(checks[cid]["duration_s"] for cid in req["checks"] if cid in checks)
    test: dict[str, Any] = {
        "name": f"{req['id']}: {req['title']}",
        "status": "skipped" if waived else STATUS[outcome],
        "duration": round(duration_s * 1000),
        "rawStatus": outcome,
        "suite": ["instantcert", area, req["article"]],
        "tags": ["required" if req["required"] else "optional"],
    }
    reserved = req.get("reservations") or []
    if outcome == "reserved":
        test["tags"].append("reserved")
        test["stdout"] = [f"reservation: {line(r)}" for r in reserved]
    if waived:
        test["message"] = f"waived until {waiver['expires']} ({outcome}): {waiver['reason']}"
    elif req["message"]:
        test["message"] = req["message"]
    if outcome in ("fail", "error"):
        test["trace"] = _failure_text(req, checks, target)
        cases = [p for cid in req["checks"] for p in checks.get(cid, {}).get("case_files", [])]
        if cases:
            test["attachments"] = [
                {"name": p.rsplit("/", 1)[-1], "contentType": "application/json", "path": p}
                for p in cases
            ]
    test["extra"] = {
        "requirement": req["id"],
        "article": req["article"],
        "title": req["title"],
        "required": req["required"],
        "checks": req["checks"],
        "waiver": waiver,
        "wording": req.get("wording"),  # the rules' own words (French for the rules' articles)
        "basis": req.get("basis"),  # the letter (clause ids) and the readings (decision rows)
        "reservations": reserved,
    }
    return test


def build(doc: dict[str, Any]) -> dict[str, Any]:
    """The CTRF document of ``doc`` (a report.json document)."""
    checks = {c["check_id"]: c for c in doc["checks"]}
    tests = [_test(r, checks, doc["target"], r["id"].split(".", 1)[0]) for r in doc["requirements"]]
    count = {s: sum(1 for t in tests if t["status"] == s) for s in STATUS.values()}
    start, stop = _epoch_ms(doc["started_at"]), _epoch_ms(doc["finished_at"])
    verdict = doc["verdict"]
    impl = doc["implementation"] or {}
    environment: dict[str, Any] = {
        "reportName": f"instantcert certify {doc['target']}",
        "testEnvironment": doc["profile"],
        "healthy": verdict["exit_code"] == 0,
        "extra": {"target": doc["target"], "implementation": doc["implementation"]},
    }
    if isinstance(impl.get("name"), str):
        environment["appName"] = impl["name"]
    if isinstance(impl.get("version"), str):
        environment["appVersion"] = impl["version"]
    return {
        "reportFormat": "CTRF",
        "specVersion": SPEC_VERSION,
        "reportId": str(uuid.UUID(hex=doc["run_id"])),
        "timestamp": doc["finished_at"],
        "generatedBy": f"instantcert {doc['harness_version']}",
        "results": {
            "tool": {"name": "instantcert", "version": doc["harness_version"]},
            "summary": {
                "tests": len(tests),
                **count,
                "suites": 1,
                "start": start,
                "stop": stop,
                "duration": stop - start,
                "extra": {
                    "verdict": verdict["overall"],
                    "verdictNote": verdict["note"],
                    "exitCode": verdict["exit_code"],
                    "reservations": [line(r) for r in reservations(doc)],
                    "scope": verdict.get("scope"),
                },
            },
            "tests": tests,
            "environment": environment,
            "extra": {
                "runId": doc["run_id"],
                "profile": doc["profile"],
                "filtered": doc["filtered"],
                "seed": doc["seed"],
                "suiteSha256": doc["suite_sha256"],
                "rulesSha256": doc["rules_sha256"],
            },
        },
    }


class CtrfReport(Collector):
    def write(self, doc: dict[str, Any]) -> None:
        text = strict_json.dumps(build(doc), indent=2)  # valid JSON whatever the target sent
        (self.out_dir / FILE).write_text(text + "\n", encoding="utf-8")
