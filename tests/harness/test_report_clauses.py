"""Clause coverage and the rules' own words in every report (issue 10 item 1, issue 14 item 8).

One run of a faulty target (the X2 fault of ``_support``) over the small test catalogue: the
clause holding robots 4.6 must show as failed, the lot table's as passed, and the French text
of robots 4.6 must reach report.json, report.md, report.html, junit.xml beside its title.
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from html import escape
from pathlib import Path
from typing import Any

import pytest

from conformance import load_catalogue
from conformance._clauses import load_clauses
from conformance._profiles import load_profile
from harness._clause_coverage import (
    clause_entries,
    coverage,
    requirement_wording,
    status,
    summary,
)
from harness._reports import report_handlers
from harness._reports._wording import line
from harness._runner import Runner, RunPlan

from . import _support as support

X2_FRENCH = load_clauses()["robots.4.6"].text


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("clauses")
    stdout = io.StringIO()
    settings = load_profile("quick")
    handlers = report_handlers(out, stdout)
    plan = RunPlan(
        target="python:tests.harness._support:broken_x2",
        profile="quick",
        settings=settings,
        seed=5,
        config={"effective_settings": settings},
        out_dir=out,
    )
    adapter = support.broken_x2()
    Runner(plan, handlers, checks=support.make_checks(), catalogue=support.CATALOGUE).run(adapter)
    adapter.close()
    for handler in handlers:
        handler.close()
    return out, stdout.getvalue()


def _doc(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "report.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    ("requirements", "untestable", "expected"),
    [
        (["a", "b"], False, "passed"),
        (["a", "f"], False, "failed"),
        (["f", "x"], False, "failed"),
        (["a", "x"], False, "partly_tested"),
        (["a", "e"], False, "partly_tested"),
        (["x", "e", "n"], False, "not_tested"),
        (["missing"], False, "not_tested"),
        ([], True, "untestable"),
    ],
)
def test_a_clause_status_follows_its_requirements(
    requirements: list[str], untestable: bool, expected: str
) -> None:
    outcomes = {"a": "pass", "b": "pass", "f": "fail", "x": "not_supported", "e": "error"}
    outcomes["n"] = "not_run"
    entry = {"id": "c", "article": "robots 1", "requirements": requirements}
    assert status({**entry, "untestable": untestable}, outcomes) == expected


def test_coverage_counts_add_up() -> None:
    entries = clause_entries(["robots", "eldorado"])
    cov = coverage(entries, {r: "pass" for e in entries for r in e["requirements"]})
    assert cov["total"] == len(load_clauses()) == cov["mapped"] + cov["untestable"]
    assert cov["tested"] == cov["passed"] == cov["mapped"] and cov["not_tested"] == 0
    assert summary(cov).startswith(f"{cov['total']} clauses of the contract and the rules")
    nothing = coverage(entries, {})
    assert nothing["tested"] == 0 and nothing["not_tested"] == nothing["mapped"]


def test_a_run_over_one_game_has_only_its_clauses_and_the_common_ones() -> None:
    ids = {e["id"] for e in clause_entries(["robots"])}
    assert "robots.4.6" in ids and "R-I3" in ids and "contract.4.history.newest_first" in ids
    assert not any(i.startswith(("eldorado.", "E-I")) for i in ids)


def test_report_json_carries_clause_coverage(run: tuple[Path, str]) -> None:
    clauses = _doc(run[0])["clauses"]
    by_id = {c["id"]: c["status"] for c in clauses["clauses"]}
    assert by_id["robots.4.6"] == "failed"  # robots.4.6.x2 failed
    assert by_id["robots.3.lot_table"] == "passed"
    assert by_id["robots.1.dates"] == "untestable"
    assert by_id["robots.4.11"] == "not_tested"
    assert clauses["total"] == len(by_id) == len(load_clauses())
    assert clauses["tested"] == clauses["passed"] + clauses["failed"] + clauses["partly_tested"]
    assert clauses["failed"] >= 1 and clauses["passed"] >= 1


def test_the_coverage_line_reaches_markdown_html_junit_and_console(run: tuple[Path, str]) -> None:
    out, stdout = run
    line = summary(_doc(out)["clauses"])
    assert f"Clause coverage: {line}" in (out / "report.md").read_text(encoding="utf-8")
    assert escape(line) in (out / "report.html").read_text(encoding="utf-8")
    assert f"clauses: {line}" in stdout
    props = {
        p.get("name"): p.get("value")
        for p in ET.parse(out / "junit.xml").getroot().iter("property")
    }
    assert props["clauses_total"] == str(len(load_clauses()))
    assert int(props["clauses_failed"]) >= 1


def test_the_french_words_reach_every_report(run: tuple[Path, str]) -> None:
    out, _ = run
    assert X2_FRENCH.startswith("Si le joueur découvre un symbole « X2 »")
    requirement = next(r for r in _doc(out)["requirements"] if r["id"] == "robots.4.6.x2")
    assert requirement["wording"]["text"] == X2_FRENCH
    assert requirement["wording"]["language"] == "fr"
    markdown = (out / "report.md").read_text(encoding="utf-8")
    title_line = f"- **`robots.4.6.x2`** (robots 4): {requirement['title']}"
    assert f"{title_line}\n  > *robots 4, French original:*\n  > {X2_FRENCH}" in markdown
    html = (out / "report.html").read_text(encoding="utf-8")
    assert '<blockquote class="words" lang="fr">' in html and escape(X2_FRENCH) in html
    case = next(
        c
        for c in ET.parse(out / "junit.xml").getroot().iter("testcase")
        if c.get("name", "").startswith("robots.4.6.x2 ")
    )
    system_out = case.findtext("system-out") or ""
    assert f"robots 4, French original: « {X2_FRENCH} »" in system_out
    ctrf = json.loads((out / "ctrf.json").read_text(encoding="utf-8"))
    test = next(t for t in ctrf["results"]["tests"] if t["extra"]["requirement"] == "robots.4.6.x2")
    assert test["extra"]["wording"]["text"] == X2_FRENCH


def test_a_requirement_no_clause_holds_shows_no_words(run: tuple[Path, str]) -> None:
    out, _ = run
    requirement = next(r for r in _doc(out)["requirements"] if r["id"] == "play.4.1.history")
    assert requirement["wording"] is None  # a made-up id no clause maps: nothing, not a guess
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "- **`play.4.1.history`** (contract 4): title of play.4.1.history\n-" in markdown


def test_words_without_a_french_original_are_labelled_english() -> None:
    requirement = load_catalogue()["play.sales.no_double_sale"]
    found = requirement_wording(requirement)
    assert found is not None and found["language"] == "en"
    text = line({"wording": found})
    assert text == f'contract 4, in English (no French text exists): "{found["text"]}"'
    french = line({"wording": requirement_wording(load_catalogue()["robots.4.11.losing"])})
    assert (
        french
        == "robots 4.11, French original: « L'unité de jeu est perdante dans tous les autres cas. »"
    )
