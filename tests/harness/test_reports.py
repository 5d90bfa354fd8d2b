"""Every report format, from one run of a faulty target: parsed and checked as tools read them."""

from __future__ import annotations

import copy
import io
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance._profiles import load_profile
from harness._reports import REPORT_FILES, _record, report_handlers
from harness._reports._record import Collector, document
from harness._reports._render import euros, render_unit
from harness._reports.manifest import verify
from harness._runner import Runner, RunPlan

from . import _support as support

SCHEMA = Path(__file__).parents[2] / "harness" / "schemas" / "report.schema.json"


def run_faulty(out: Path, stdout: io.StringIO) -> list[Any]:
    """One full-profile run of the broken-X2 target into every report handler, not closed."""
    settings = load_profile("full")
    handlers = report_handlers(out, stdout)
    plan = RunPlan(
        target="python:tests.harness._support:broken_x2",
        profile="full",
        settings=settings,
        seed=11,
        config={"effective_settings": settings},
        out_dir=out,
    )
    adapter = support.broken_x2()
    Runner(plan, handlers, checks=support.make_checks(), catalogue=support.CATALOGUE).run(adapter)
    adapter.close()
    return handlers


@pytest.fixture(scope="module")
def faulty_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("report")
    stdout = io.StringIO()
    for handler in run_faulty(out, stdout):
        handler.close()
    return out, stdout.getvalue()


def test_the_writers_share_one_document_and_none_changes_it(tmp_path: Path) -> None:
    """``document`` is built once for all the formats of a run; each writer gets the same
    object, so none may change it: after every report is written it still equals a fresh one."""
    handlers = run_faulty(tmp_path, io.StringIO())
    collectors = [h for h in handlers if isinstance(h, Collector)]
    assert len(collectors) >= 8
    shared = document(collectors[0].record)
    fresh = copy.deepcopy(shared)
    for handler in handlers:
        handler.close()
    assert all(document(c.record) is shared for c in collectors)
    assert shared == fresh == _record._document(collectors[0].record)
    other = _record.RunRecord(**{**vars(collectors[0].record), "checks": []})
    assert document(other) is not shared  # other events: another document


def test_every_file_is_written(faulty_report: tuple[Path, str]) -> None:
    out, _ = faulty_report
    for name in REPORT_FILES:
        assert (out / name).is_file(), name
    assert (out / "cases" / "robots_rules.x2-1.json").is_file()


def test_report_json_matches_its_schema(faulty_report: tuple[Path, str]) -> None:
    out, _ = faulty_report
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    doc = json.loads((out / "report.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert doc["verdict"] == {
        "overall": "NOT CERTIFIED",
        "note": doc["verdict"]["note"],
        "exit_code": 1,
        "counts": doc["verdict"]["counts"],
        "reservations": [],
        "scope": doc["verdict"]["scope"],
    }
    assert doc["verdict"]["scope"]["covers"].startswith("certified for evaluate")
    assert doc["seed"] == 11
    assert doc["failures"][0]["requirements"] == ["robots.4.6.x2"]
    evidence = doc["failures"][0]["evidence"][0]
    assert evidence["input"]["ticket"] == support.X2_TICKET
    assert evidence["expected"]["prize_cents"] == 100 and evidence["got"]["prize_cents"] == 0
    assert doc["blocks"][0]["lots_observed"]["1000000"] == 2
    broken = dict(doc, seed="eleven")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_junit_has_the_shape_ci_tools_read(faulty_report: tuple[Path, str]) -> None:
    out, _ = faulty_report
    root = ET.parse(out / "junit.xml").getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    cases = suite.findall("testcase")
    assert int(suite.get("tests", "")) == len(cases) == len(support.CATALOGUE)
    for case in cases:
        assert case.get("classname") and case.get("name")
        float(case.get("time", "x"))
    failures = [c for c in cases if c.find("failure") is not None]
    assert [c.get("name") for c in failures] == ["robots.4.6.x2 (robots 4)"]
    assert int(suite.get("failures", "")) == 1 == int(root.get("failures", ""))
    assert int(suite.get("errors", "")) == 0
    skipped = [c for c in cases if c.find("skipped") is not None]
    assert int(suite.get("skipped", "")) == len(skipped) == 3
    text = failures[0].findtext("failure") or ""
    assert support.X2_TICKET in text and "instantcert replay cases/robots_rules.x2-1.json" in text
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["verdict"] == "NOT CERTIFIED" and props["seed"] == "11"


def test_manifest_detects_any_change(faulty_report: tuple[Path, str], tmp_path: Path) -> None:
    out, _ = faulty_report
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["files"]) == {
        "report.json",
        "junit.xml",
        "ctrf.json",
        "report.md",
        "summary.md",
        "badge.json",
        "report.html",
        "cases/robots_rules.x2-1.json",
    }
    assert verify(out) == []
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in [*manifest["files"], "manifest.json"]:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        (copy / name).write_bytes((out / name).read_bytes())
    report = copy / "report.md"
    report.write_text(report.read_text().replace("NOT CERTIFIED", "CERTIFIED"))
    (copy / "cases" / "robots_rules.x2-1.json").unlink()
    assert verify(copy) == ["cases/robots_rules.x2-1.json", "report.md"]


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_html_is_one_self_contained_file(faulty_report: tuple[Path, str]) -> None:
    out, _ = faulty_report
    html = (out / "report.html").read_text()
    parser = Tags()
    parser.feed(html)
    names = [t for t, _ in parser.tags]
    assert "script" not in names and "link" not in names and "img" not in names
    for _, attrs in parser.tags:
        for key in ("src", "href"):
            value = attrs.get(key)
            assert value is None or value.startswith("#"), (key, value)
    assert not re.search(r"url\((?!#)", html)
    assert "@import" not in html
    # verdict first, then the failure drawn as the game shows it, then plots
    assert html.index("NOT CERTIFIED") < html.index("Failures") < html.index("Blocks")
    assert names.count("svg") >= 3 + 8 + 18  # plots, robots, reveals
    assert 'class="x2"' in html and 'class="plus"' in html
    assert html.count('class="button"') == 18
    assert len(re.findall(r'class="robot( [a-z ]+)?"', html)) == 8
    # the diamond gauge is full by the rules (X2 counts 2) and the target missed it
    assert len(re.findall(r'class="robot full missed"', html)) == 1
    assert "cumulative payout" in html and "lot distribution" in html


def test_markdown_and_console(faulty_report: tuple[Path, str]) -> None:
    out, stdout = faulty_report
    markdown = (out / "report.md").read_text()
    assert markdown.startswith("# instantcert: NOT CERTIFIED")
    assert support.X2_TICKET in markdown and "instantcert replay cases/" in markdown
    assert "| `robots.4.6.x2` |" in markdown
    assert "robots.4.6.x2" in stdout and "FAIL" in stdout
    assert stdout.rstrip().splitlines()[-2].startswith("NOT CERTIFIED: 1 requirement(s) failed")


def test_eldorado_grids_show_winning_rows() -> None:
    expected: dict[str, Any] = {
        "prize_cents": 600000,
        "wins": [
            {"grid": 0, "row": 0, "symbol": "pyramid", "count": 4, "amount_cents": 500000},
            {"grid": 1, "row": 0, "symbol": "sun", "count": 5, "amount_cents": 100000},
        ],
    }
    got: dict[str, Any] = {"prize_cents": 500000, "wins": [expected["wins"][0]]}
    html = render_unit("eldorado", support.ELDORADO_TICKET, expected, got)
    assert html.count("<table>") == 2 and "Extra stage 1" in html
    assert html.count('<tr class="win">') == 1 and html.count('<tr class="win missed">') == 1


def test_an_invalid_ticket_is_shown_raw() -> None:
    html = render_unit("robots", "OHPSCTQD|C")
    assert "not a valid robots ticket" in html and "OHPSCTQD|C" in html


def test_euros() -> None:
    assert (euros(750), euros(100_000_00), euros(5)) == ("7,50 €", "100 000 €", "0,05 €")
