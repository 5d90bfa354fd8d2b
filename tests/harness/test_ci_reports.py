"""ctrf.json, summary.md and badge.json: checked against their formats' own rules.

``schemas/ctrf.schema.json`` is the official CTRF schema (see ``schemas/README.md``); the
shields.io endpoint rules are written out below from https://shields.io/badges/endpoint-badge.
"""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness._reports import ctrf, summary
from harness._reports.badge import badge

from . import _runs

CTRF_SCHEMA = json.loads((Path(__file__).parent / "schemas" / "ctrf.schema.json").read_text())
# https://shields.io/badges/endpoint-badge, "Schema": what shields.io accepts from an endpoint.
SHIELDS_ENDPOINT = {
    "type": "object",
    "required": ["schemaVersion", "label", "message"],
    "additionalProperties": False,
    "properties": {
        "schemaVersion": {"const": 1},
        "label": {"type": "string"},
        "message": {"type": "string", "minLength": 1},
        "color": {"type": "string"},
        "labelColor": {"type": "string"},
        "isError": {"type": "boolean"},
        "namedLogo": {"type": "string"},
        "logoSvg": {"type": "string"},
        "logoColor": {"type": "string"},
        "logoWidth": {"type": "integer", "minimum": 1},
        "style": {"enum": ["plastic", "flat", "flat-square", "for-the-badge", "social"]},
        "cacheSeconds": {"type": "integer", "minimum": 300},
    },
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {
        "broken": _runs.broken_run(tmp_path_factory.mktemp("broken")),
        "hostile": _runs.hostile_run(tmp_path_factory.mktemp("hostile")),
    }


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("run", ["broken", "hostile"])
def test_ctrf_matches_the_official_schema(runs: dict[str, Path], run: str) -> None:
    jsonschema.Draft7Validator.check_schema(CTRF_SCHEMA)
    validator = jsonschema.Draft7Validator(CTRF_SCHEMA, format_checker=jsonschema.FormatChecker())
    doc = _json(runs[run] / "ctrf.json")
    validator.validate(doc)
    assert doc["results"]["tool"]["name"] == "instantcert"
    broken = copy.deepcopy(doc)
    broken["results"]["tests"][0]["status"] = "fail"  # our outcome word, not a CTRF status
    assert not validator.is_valid(broken)
    broken = copy.deepcopy(doc)
    broken["results"]["summary"]["verdict"] = "x"  # unknown fields are refused
    assert not validator.is_valid(broken)


@pytest.mark.parametrize("run", ["broken", "hostile"])
def test_ctrf_junit_and_report_json_count_alike(runs: dict[str, Path], run: str) -> None:
    out = runs[run]
    tally = _json(out / "ctrf.json")["results"]["summary"]
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite")  # <testsuites> has no skipped
    assert suite is not None
    junit = {k: int(suite.get(k, "-1")) for k in ("tests", "failures", "errors", "skipped")}
    report = _json(out / "report.json")
    counts = report["verdict"]["counts"]
    waived = [r for r in report["requirements"] if r["waiver"] and r["waiver"]["applied"]]
    waived_as = {o: sum(1 for r in waived if r["outcome"] == o) for o in counts}
    assert tally["tests"] == junit["tests"] == len(report["requirements"]) == sum(counts.values())
    assert tally["failed"] == junit["failures"] == counts["fail"] - waived_as["fail"]
    assert tally["other"] == junit["errors"] == counts["error"] - waived_as["error"]
    assert tally["skipped"] + tally["pending"] == junit["skipped"]
    assert tally["passed"] == counts["pass"] - waived_as["pass"]
    assert tally["passed"] + tally["failed"] + tally["other"] + junit["skipped"] == tally["tests"]
    if run == "hostile":  # the waived failure is what makes the two differ from report.json
        assert waived_as["fail"] == 1 and tally["failed"] == 0


def test_ctrf_tests_carry_the_requirement(runs: dict[str, Path]) -> None:
    doc = _json(runs["broken"] / "ctrf.json")
    tests = {t["extra"]["requirement"]: t for t in doc["results"]["tests"]}
    x2 = tests["robots.4.6.x2"]
    assert x2["name"] == "robots.4.6.x2: title of robots.4.6.x2"
    assert (x2["status"], x2["rawStatus"]) == ("failed", "fail")
    assert x2["extra"]["article"] == "robots 4" and x2["extra"]["checks"] == ["robots_rules.x2"]
    assert x2["suite"] == ["instantcert", "robots", "robots 4"]
    report = _json(runs["broken"] / "report.json")
    wording = next(r["wording"] for r in report["requirements"] if r["id"] == "robots.4.6.x2")
    assert wording["language"] == "fr" and x2["extra"]["wording"] == wording
    assert x2["attachments"][0]["path"] == "cases/robots_rules.x2-1.json"
    assert "OHPSCTQD|C D2+P" in x2["trace"] and "prize 0, expected 100" in x2["message"]
    assert tests["play.4.1.history"]["status"] == "skipped"  # not supported
    assert tests["robots.9.optional"]["status"] == "pending"  # not run
    assert tests["robots.3.lot_table"]["status"] == "passed"
    results = _json(runs["hostile"] / "ctrf.json")["results"]
    hostile = {t["extra"]["requirement"]: t for t in results["tests"]}
    assert hostile["eldorado.4.4.rows"]["status"] == "other"  # error
    waived = hostile["robots.4.6.x2"]
    assert (waived["status"], waived["rawStatus"]) == ("skipped", "fail")
    assert waived["message"].startswith("waived until 2999-01-01 (fail)")


def _outside_code_spans(line: str) -> str:
    """``line`` with every code span removed (a fence of n backticks closes on n backticks)."""
    return re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", line)


def _cells(row: str) -> list[str]:
    return re.split(r"(?<!\\)\|", row.strip())[1:-1]


def test_summary_is_short_and_inert(runs: dict[str, Path]) -> None:
    text = (runs["hostile"] / "summary.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "## instantcert: INCOMPLETE"
    assert lines[2].startswith("**INCOMPLETE** (exit code 1): ")
    assert "| 1 | 1 | 1 | 0 | 1 | 2 |" in lines  # pass fail error reserved not-supported not-run
    rows = [line for line in lines if line.startswith("| `")]
    assert [_cells(r)[0].strip() for r in rows] == ["`robots.4.6.x2`", "`eldorado.4.4.rows`"]
    assert all(len(_cells(r)) == 5 for r in rows)
    assert "fail (waived)" in rows[0] and "`cases/robots_rules.x2-1.json`" in rows[0]
    assert "alert(1)" in rows[1] and "second line" not in text
    for line in lines:  # what the target said is never live Markdown or HTML
        live = _outside_code_spans(line)
        assert "<" not in live and "@" not in live, line
    assert "http" not in text and "](" not in text  # link-free
    assert "report.html" in text and "ctrf.json" in text


def test_summary_of_a_clean_run_has_no_table(runs: dict[str, Path]) -> None:
    doc = _json(runs["broken"] / "report.json")
    for req in doc["requirements"]:
        req["outcome"] = "pass"
    text = summary.render(doc)
    assert "failed or errored" not in text and len(text) < 2000


def test_summary_stays_bounded(runs: dict[str, Path]) -> None:
    doc = _json(runs["broken"] / "report.json")
    template = doc["requirements"][0]
    doc["requirements"] = [
        dict(template, id=f"robots.4.{n}.x", outcome="fail", message="é" * 10_000)
        for n in range(2000)
    ]
    text = summary.render(doc)
    assert len(text.encode("utf-8")) <= summary.MAX_BYTES < 1024 * 1024
    assert "1950 more not shown here" in text
    assert text.count("| `robots.4.") == summary.MAX_ROWS
    for req in doc["requirements"]:  # the widest cells: 4-byte characters everywhere
        req.update(id="\U0001f600" * 200, article="\U0001f600" * 200, message="\U0001f600" * 400)
    assert "(summary shortened" in summary.render(doc)
    assert len(summary.render(doc).encode("utf-8")) <= summary.MAX_BYTES


@pytest.mark.parametrize("run", ["broken", "hostile"])
def test_badge_is_a_shields_endpoint(runs: dict[str, Path], run: str) -> None:
    doc = _json(runs[run] / "badge.json")
    jsonschema.Draft202012Validator(SHIELDS_ENDPOINT).validate(doc)
    assert doc == {
        "schemaVersion": 1,
        "label": "instantcert",
        "message": {"broken": "NOT CERTIFIED", "hostile": "INCOMPLETE"}[run],
        "color": {"broken": "red", "hostile": "orange"}[run],
    }
    assert not jsonschema.Draft202012Validator(SHIELDS_ENDPOINT).is_valid(dict(doc, message=""))


def test_badge_colours(runs: dict[str, Path]) -> None:
    doc = _json(runs["broken"] / "report.json")
    certified = copy.deepcopy(doc)
    certified["verdict"].update(overall="CERTIFIED", exit_code=0)
    assert badge(certified)["color"] == "green"
    unreachable = copy.deepcopy(doc)
    unreachable["verdict"].update(overall="INCOMPLETE", exit_code=2)
    unreachable["smoke"]["ok"] = False
    assert badge(unreachable)["color"] == "lightgrey"


def test_ctrf_build_is_what_the_file_holds(runs: dict[str, Path]) -> None:
    out = runs["broken"]
    assert ctrf.build(_json(out / "report.json")) == _json(out / "ctrf.json")
