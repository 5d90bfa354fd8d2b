"""report.html as a person reads it (issue 30): no word broken mid-word, expected against got as
the lines that differ, one fault shown once with the checks that met it, "minimal" only on a
counterexample a search shrank, and a clean block audit that reads as a pass of what an audit
checks. The page in a real browser, at 1400 and 800 px: tests/harness/test_html_in_browser.py
(slow tier)."""

from __future__ import annotations

import copy
import io
import json
import re
from typing import Any

import pytest

from harness._reports import _diff
from harness._reports._faults import faults, is_minimal
from harness._reports._render import breakable
from harness._reports.html import audit_passed, css, render

from .test_reports import run_faulty


@pytest.fixture(scope="module")
def faulty_doc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("html")
    for handler in run_faulty(out, io.StringIO()):
        handler.close()
    doc: dict[str, Any] = json.loads((out / "report.json").read_text())
    return doc


def _failures(html: str) -> str:
    """The page's failures section."""
    return html[html.index("<h2>Failures and errors</h2>") : html.index("<h2>Results per")]


def test_the_css_never_breaks_a_word_anywhere() -> None:
    style = css()
    assert "break-all" not in style and "word-break" not in style
    # long tokens wrap anywhere inside code blocks and the run facts (hashes) only
    for rule in re.findall(r"([^{}]+)\{[^}]*overflow-wrap:anywhere", style):
        assert rule.strip().split(" ")[-1] in ("pre", "dd"), rule


def test_a_long_id_may_wrap_after_its_dots_never_inside_a_word() -> None:
    assert breakable("robots_rules.differential_edges: 2 found") == (
        "robots_<wbr>rules.<wbr>differential_<wbr>edges: 2 found"
    )
    assert breakable("a short text & <b>") == "a short text &amp; &lt;b&gt;"
    assert "<script>" not in breakable("<script>alert('x')</script>.long.token")


def test_the_difference_shows_the_differing_lines_with_a_little_context() -> None:
    expected = {f"field_{n:02}": n for n in range(30)} | {"prize_cents": 500}
    got = dict(expected, prize_cents=0)
    lines = _diff.difference(expected, got)
    assert [(line.mark, line.text.strip()) for line in lines if line.mark in "-+"] == [
        ("-", '"prize_cents": 500'),
        ("+", '"prize_cents": 0'),
    ]
    # two lines of context either side, the equal fields beyond them left out
    assert len(lines) <= 2 + 2 * _diff.CONTEXT + 2
    assert lines[0].mark == "…" and not any('"field_00"' in line.text for line in lines)
    assert _diff.difference(expected, copy.deepcopy(expected)) == []
    html = _diff.render(expected, got)
    assert '<span class="del">-   &quot;prize_cents&quot;: 500</span>' in html
    assert '<span class="add">+   &quot;prize_cents&quot;: 0</span>' in html


def test_a_counterexample_shows_the_difference_first_and_the_full_values_folded(
    faulty_doc: dict[str, Any],
) -> None:
    failures = _failures(render(faulty_doc))
    assert failures.index('<pre class="diff">') < failures.index('<details class="values">')
    assert '<table class="evidence">' not in failures


def _three_checks_one_fault(doc: dict[str, Any]) -> dict[str, Any]:
    """The faulty run's failed check, met again by two more checks (as a wrong X2 fails the
    edge search, the gauge fills and the several-gauges search alike)."""
    doc = copy.deepcopy(doc)
    failed = next(c for c in doc["checks"] if c["outcome"] == "fail")
    for name in ("robots_rules.gauge_fills", "robots_rules.several_gauges"):
        other = copy.deepcopy(failed)
        other["check_id"] = name
        other["case_files"] = [f"cases/{name}-1.json"]
        doc["checks"].append(other)
    shrunk = doc["checks"][-1]["evidence"][0]
    shrunk["note"] = "minimal ticket: " + shrunk["note"]
    return doc


def test_one_fault_is_shown_once_with_the_checks_that_met_it(faulty_doc: dict[str, Any]) -> None:
    doc = _three_checks_one_fault(faulty_doc)
    found = faults(doc["checks"])
    assert len(found) == 1 and len(found[0].checks) == 3
    failures = _failures(render(doc))
    assert failures.count('<div class="failure">') == 1
    assert "met by 3 check(s)" in failures
    for name in ("robots_<wbr>rules.<wbr>x2", "gauge_<wbr>fills", "several_<wbr>gauges"):
        assert name in failures
    # the shrunk one is shown first, and it alone is called minimal
    first = failures.index("<h4>")
    assert failures.startswith("<h4>minimal counterexample", first)
    assert "several_<wbr>gauges" in failures[first : failures.index("</h4>", first)]
    assert failures.count("minimal counterexample") == 1
    # the others stay, folded under the check that found them
    folded = failures[failures.index("what each check found") :]
    assert folded.count("<summary>counterexample 1") == 2


def test_different_faults_stay_apart(faulty_doc: dict[str, Any]) -> None:
    doc = _three_checks_one_fault(faulty_doc)
    doc["checks"][-1]["requirements"] = ["robots.4.7.plus_one"]
    assert [len(f.checks) for f in faults(doc["checks"])] == [2, 1]
    assert _failures(render(doc)).count('<div class="failure">') == 2


def test_minimal_only_when_a_search_shrank_it() -> None:
    assert is_minimal({"note": "minimal ticket: prize_cents 0, expected 500"})
    assert not is_minimal({"note": "first found, before shrinking: prize_cents 0"})
    assert not is_minimal({"note": "prize_cents 0, expected 500"})


def _clean_audit(doc: dict[str, Any]) -> dict[str, Any]:
    """The faulty run's document, as a block audit in which every block requirement passed and
    the play requirements could not be checked."""
    doc = copy.deepcopy(doc)
    doc["profile"] = "audit"
    for req in doc["requirements"]:
        req["outcome"] = "not_supported" if req["id"].startswith("play") else "pass"
    for check in doc["checks"]:
        check["outcome"], check["evidence"] = "pass", []
    outcomes = [r["outcome"] for r in doc["requirements"]]
    doc["verdict"] |= {
        "overall": "INCOMPLETE",
        "exit_code": 0,
        "note": "block audit: every block requirement checked passed; a block audit alone "
        "does not certify an implementation",
        "counts": {o: outcomes.count(o) for o in doc["verdict"]["counts"]},
    }
    return doc


def test_a_clean_block_audit_reads_as_a_pass_of_what_an_audit_checks(
    faulty_doc: dict[str, Any],
) -> None:
    doc = _clean_audit(faulty_doc)
    assert audit_passed(doc)
    html = render(doc)
    assert '<div class="verdict AUDIT_PASSED"><div class="big">BLOCK AUDIT PASSED</div>' in html
    assert 'class="verdict INCOMPLETE"' not in html
    assert 'class="o not_supported"' not in html and 'class="o not_run"' not in html
    assert "outside the audit" in html and "a block audit alone never certifies" in html
    assert re.search(r"pass, \d+ outside the audit\)</summary>", html)
    assert "report.json: verdict INCOMPLETE" in html  # the JSON's verdict, named plainly
    assert doc["verdict"]["overall"] == "INCOMPLETE"


def test_a_failed_block_audit_is_shown_as_it_is(faulty_doc: dict[str, Any]) -> None:
    doc = copy.deepcopy(faulty_doc)
    doc["profile"] = "audit"
    assert not audit_passed(doc)
    html = render(doc)
    assert "BLOCK AUDIT PASSED" not in html and '<div class="big">NOT CERTIFIED</div>' in html
