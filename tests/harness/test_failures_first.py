"""What a person reads first, first (issue 30): the console lists failed and errored
requirements before anything else, their reasons whole (wrapped, never cut), and one line per
group of not supported / not run / waived; ``compare`` folds the rows a narrower newer run
explains (``pass -> not run`` when it was filtered or quick) and lists regressions first."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance._profiles import load_profile
from harness._compare import compare, markdown
from harness._reference_adapter import ReferenceAdapter
from harness._reports import report_handlers
from harness._reports.console import render
from harness._runner import Runner, RunPlan

from . import _support as support

ROOT = Path(__file__).resolve().parents[2]
COMPARE_SCHEMA = json.loads((ROOT / "harness" / "schemas" / "compare.schema.json").read_text())
LONG = "the largest lot on sale was not paid exactly " + " ".join(
    f"(play {n}: balance 1{n:03d} cents, expected 2{n:03d})" for n in range(12)
)


@pytest.fixture(scope="module")
def doc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real report of the runner's small catalogue: a pass, a failure, not supported,
    not run; the failure's message made long, as a play check's can be."""
    out = tmp_path_factory.mktemp("first")
    handlers = report_handlers(out, __import__("io").StringIO())
    runner = Runner(
        RunPlan("t", "full", load_profile("full"), 7, {}),
        handlers,
        checks=support.make_checks(),
        catalogue=support.CATALOGUE,
    )
    adapter = support.broken_x2()
    try:
        runner.run(adapter)
    finally:
        adapter.close()
    for handler in handlers:
        handler.close()
    found: dict[str, Any] = json.loads((out / "report.json").read_text())
    return found


def test_failures_come_first_with_their_reason_whole(doc: dict[str, Any]) -> None:
    long = copy.deepcopy(doc)
    failed = next(r for r in long["requirements"] if r["outcome"] == "fail")
    failed["message"] = LONG
    shown = render(long)
    assert shown.startswith(f"FAIL  {failed['id']} (")
    assert " ".join(shown.split()).count(LONG) == 1  # whole: wrapped, never cut
    assert "…" not in shown.split("\n\n")[0]
    assert max(len(line) for line in shown.split("\n\n")[0].splitlines()) <= 100
    assert shown.index(failed["id"]) < shown.index("requirements      count")


def test_what_was_not_checked_is_one_line_per_group(doc: dict[str, Any]) -> None:
    shown = render(doc)
    lines = shown.splitlines()
    grouped = [line for line in lines if line.startswith(("not supported (", "not run ("))]
    assert grouped == [
        "not supported (1): no play here: play.4.1.history",
        "not run (2): robots.4.8.gauge, robots.9.optional",  # two reasons: none shown
    ]
    assert not any(line.startswith("play.4.1.history ") for line in lines)  # no row of its own
    assert "play.4.1.history" in render(doc, verbose=True).split("requirements      count")[0]


def _narrower(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` again as a filtered run that ran only the failing requirement."""
    new = copy.deepcopy(doc)
    new["filtered"] = True
    for req in new["requirements"]:
        if req["outcome"] == "pass":
            req["outcome"], req["message"] = "not_run", "outside this run's scope (filtered)"
    return new


def test_compare_folds_what_a_narrower_run_explains(doc: dict[str, Any]) -> None:
    old = copy.deepcopy(doc)
    for req in old["requirements"]:
        if req["outcome"] == "fail":
            req["outcome"], req["message"] = "pass", ""
    result = compare(old, _narrower(doc))
    jsonschema.Draft202012Validator(COMPARE_SCHEMA).validate(result)
    assert [e["id"] for e in result["regressions"]] == ["robots.4.6.x2"]  # pass -> fail
    assert [e["id"] for e in result["narrower"]] == ["eldorado.4.4.rows", "robots.3.lot_table"]
    assert result["exit_code"] == 1
    text = markdown(result)
    assert text.index("### Regressions (1)") < text.index("Not run in the new run")
    assert "Not run in the new run, which is filtered (2, passed before; not regressions)" in text
    assert "| `eldorado.4.4.rows` |" not in text  # folded, not a row


def test_a_full_newer_run_still_regresses_on_not_run(doc: dict[str, Any]) -> None:
    new = _narrower(doc)
    new["filtered"] = False
    result = compare(doc, new)
    assert {e["id"] for e in result["regressions"]} >= {"eldorado.4.4.rows"}
    assert result["narrower"] == []


def test_the_reference_still_prints_its_verdict_last() -> None:
    shown = render(_reference_doc())
    assert shown.rstrip().splitlines()[-1].startswith("INCOMPLETE: ")


def _reference_doc() -> dict[str, Any]:
    import io
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        handlers = report_handlers(out, io.StringIO())
        runner = Runner(
            RunPlan("t", "full", load_profile("full"), 7, {}),
            handlers,
            checks=support.make_checks(),
            catalogue=support.CATALOGUE,
        )
        adapter = ReferenceAdapter()
        try:
            runner.run(adapter)
        finally:
            adapter.close()
        for handler in handlers:
            handler.close()
        found: dict[str, Any] = json.loads((out / "report.json").read_text())
        return found
