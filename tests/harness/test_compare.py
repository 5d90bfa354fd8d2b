"""``instantcert compare OLD NEW``: real runs of two builds, and report.json files changed on
purpose (each still valid against the report schema) for every kind of difference."""

from __future__ import annotations

import copy
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness._cli import main

from . import _runs

ROOT = Path(__file__).parents[2]
REPORT_SCHEMA = json.loads((ROOT / "harness" / "schemas" / "report.schema.json").read_text())
COMPARE_SCHEMA = json.loads((ROOT / "harness" / "schemas" / "compare.schema.json").read_text())
TINY = """\
profile: quick
seed: 5
settings:
  hypothesis_max_examples: 10
  block_sample_units: 2000
  play_count: 3
"""
FAULTY = "python:tests.faulty.variants:robots_x2_counted_once"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {
        "reference": _runs.reference_run(tmp_path_factory.mktemp("reference")),
        "broken": _runs.broken_run(tmp_path_factory.mktemp("broken")),
        "hostile": _runs.hostile_run(tmp_path_factory.mktemp("hostile")),
    }


def _compare(
    capsys: pytest.CaptureFixture[str], old: Path, new: Path, *extra: str
) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["compare", str(old), str(new), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _json_compare(capsys: pytest.CaptureFixture[str], old: Path, new: Path) -> tuple[int, Any]:
    code, out, _ = _compare(capsys, old, new, "--format", "json")
    result = json.loads(out)
    jsonschema.Draft202012Validator(COMPARE_SCHEMA).validate(result)
    return code, result


def _ids(result: dict[str, Any], category: str) -> list[str]:
    return [e["id"] for e in result[category]]


def test_a_faulty_build_after_a_good_one_is_a_regression(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = _json_compare(capsys, runs["reference"], runs["broken"])
    assert code == 1 == result["exit_code"]
    # robots.4.8.gauge passed and is now not run (its check stopped at the X2 failure): a
    # required requirement no longer shown to hold is a regression too
    assert _ids(result, "regressions") == ["robots.4.6.x2", "robots.4.8.gauge"]
    assert "stopped at a failure of robots.4.6.x2" in result["regressions"][1]["new"]["message"]
    entry = result["regressions"][0]
    assert (entry["old"]["outcome"], entry["new"]["outcome"]) == ("pass", "fail")
    assert entry["new"]["case_files"] == ["cases/robots_rules.x2-1.json"]
    assert entry["old"]["evidence_sha256"] != entry["new"]["evidence_sha256"]
    assert result["fixes"] == result["added"] == result["removed"] == []
    assert result["unchanged"] == 4  # the other requirements of the test catalogue

    code, result = _json_compare(capsys, runs["broken"], runs["reference"])
    assert code == 0 and _ids(result, "fixes") == ["robots.4.6.x2"]
    assert _ids(result, "changed_outcome") == ["robots.4.8.gauge"]  # not run -> pass
    assert result["regressions"] == []


def test_a_run_against_itself_shows_nothing(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = _json_compare(capsys, runs["broken"], runs["broken"])
    assert code == 0 and result["unchanged"] == 6 and result["notes"] == []
    code, out, _ = _compare(capsys, runs["broken"], runs["broken"])
    assert out.startswith("## instantcert compare: 0 regression(s)")
    assert "###" not in out  # no section when nothing changed


def _variant(
    tmp_path: Path, source: Path, name: str, change: Callable[[dict[str, Any]], None]
) -> Path:
    """A copy of ``source``'s report.json changed by ``change``; still a valid report."""
    doc = json.loads((source / "report.json").read_text())
    change(doc)
    jsonschema.Draft202012Validator(REPORT_SCHEMA).validate(doc)
    folder = tmp_path / name
    folder.mkdir()
    (folder / "report.json").write_text(json.dumps(doc))
    return folder


def _req(doc: dict[str, Any], rid: str) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in doc["requirements"] if r["id"] == rid)
    return found


def _set(rid: str, **fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda doc: _req(doc, rid).update(fields)


def _drop(rid: str) -> Callable[[dict[str, Any]], None]:
    return lambda doc: doc["requirements"].remove(_req(doc, rid))


def _add(doc: dict[str, Any]) -> None:
    doc["requirements"].append(
        dict(_req(doc, "robots.3.lot_table"), id="robots.12.new_rule", title="a new rule")
    )


def _other_counterexample(doc: dict[str, Any]) -> None:
    check = next(c for c in doc["checks"] if c["check_id"] == "robots_rules.x2")
    check["evidence"][0]["input"]["ticket"] = "another ticket"


LOT, X2, PLAY = "robots.3.lot_table", "robots.4.6.x2", "play.4.1.history"


@pytest.mark.parametrize(
    ("base", "change", "category", "rid"),
    [
        ("reference", _set(LOT, outcome="error"), "regressions", LOT),
        ("reference", _set(LOT, outcome="not_run"), "regressions", LOT),
        ("reference", _set(LOT, outcome="not_run", required=False), "changed_outcome", LOT),
        ("reference", _set(PLAY, outcome="fail"), "regressions", PLAY),
        ("broken", _set(X2, outcome="error"), "changed_outcome", X2),
        ("broken", _set(X2, message="another message"), "changed_evidence", X2),
        ("broken", _other_counterexample, "changed_evidence", X2),
        ("broken", _drop("robots.9.optional"), "removed", "robots.9.optional"),
        ("broken", _add, "added", "robots.12.new_rule"),
    ],
)
def test_every_kind_of_difference(
    runs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    base: str,
    change: Callable[[dict[str, Any]], None],
    category: str,
    rid: str,
) -> None:
    new = _variant(tmp_path, runs[base], "new", change)
    code, result = _json_compare(capsys, runs[base], new)
    changed = {
        c: _ids(result, c) for c in COMPARE_SCHEMA["required"] if isinstance(result[c], list)
    }
    assert changed.pop(category) == [rid]
    assert all(ids == [] for key, ids in changed.items() if key != "notes"), changed
    assert code == (1 if category == "regressions" else 0)
    code, markdown, _ = _compare(capsys, runs[base], new)
    assert f"| `{rid}` |" in markdown


def test_a_waiver_does_not_hide_a_regression(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = _json_compare(capsys, runs["reference"], runs["hostile"])
    assert code == 1
    assert _ids(result, "regressions") == ["robots.4.6.x2", "robots.4.8.gauge", "eldorado.4.4.rows"]
    assert result["regressions"][0]["new"]["waived"] is True
    code, out, _ = _compare(capsys, runs["reference"], runs["hostile"])
    assert "| fail (waived) |" in out
    rows = [line for line in out.splitlines() if line.startswith("| `eldorado.4.4.rows`")]
    assert len(re.split(r"(?<!\\)\|", rows[0])) == 8  # six cells: the message's | is escaped
    assert "<script>" not in re.sub(r"(`+).*?\1", "", rows[0])


def test_notes_say_when_runs_are_not_alike(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def other_run(doc: dict[str, Any]) -> None:
        doc.update(seed=12, profile="quick", suite_sha256="f" * 64, filtered=True)

    new = _variant(tmp_path, runs["broken"], "new", other_run)
    _, result = _json_compare(capsys, runs["broken"], new)
    notes = " ".join(result["notes"])
    assert "suites differ" in notes and "profiles differ: full then quick" in notes
    assert "seeds differ (11 then 12)" in notes and "filtered" in notes


def test_a_report_of_an_older_instantcert_is_compared(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old"
    old.mkdir()
    doc = json.loads((runs["broken"] / "report.json").read_text())
    del doc["clauses"]  # added to report.json after 0.1.0's first reports
    (old / "report.json").write_text(json.dumps(doc))
    code, result = _json_compare(capsys, old, runs["reference"])
    assert code == 0 and _ids(result, "fixes") == ["robots.4.6.x2"]
    del doc["requirements"]  # what compare reads must be there
    (old / "report.json").write_text(json.dumps(doc))
    code, _, err = _compare(capsys, old, runs["reference"])
    assert code == 2 and "'requirements' is a required property" in err


def test_out_writes_the_file(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "diff.md"
    code, out, _ = _compare(capsys, runs["reference"], runs["broken"], "--out", str(target))
    assert code == 1
    assert out.startswith("2 regression(s), 0 fix(es)") and str(target) in out
    assert target.read_text().startswith("## instantcert compare: 2 regression(s)")
    code, _, err = _compare(capsys, runs["reference"], runs["broken"], "--out", "/nonexistent/x")
    assert code == 2 and "/nonexistent/x" in err


def _corrupt(text: str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        (folder / "report.json").write_text(text)
        return folder

    return make


def _invalid(folder: Path) -> Path:
    doc = json.loads((folder / "report.json").read_text())
    doc["requirements"][0]["outcome"] = "broken"
    (folder / "report.json").write_text(json.dumps(doc))
    return folder


def _duplicate(folder: Path) -> Path:
    doc = json.loads((folder / "report.json").read_text())
    doc["requirements"].append(copy.deepcopy(doc["requirements"][0]))
    (folder / "report.json").write_text(json.dumps(doc))
    return folder


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda folder: folder / "missing", "no report.json there"),
        (lambda folder: (folder / "report.json").unlink() or folder, "no report.json there"),
        (_corrupt("{not json"), "not valid JSON"),
        (_corrupt("[]"), "not an instantcert report: at the top level"),
        (_invalid, "not an instantcert report: at requirements/0/outcome: 'broken'"),
        (_duplicate, "appears twice"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    runs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    spoil: Callable[[Path], Path],
    message: str,
) -> None:
    folder = spoil(Path(shutil.copytree(runs["broken"], tmp_path / "copy")))
    for old, new, label in ((folder, runs["broken"], "OLD"), (runs["broken"], folder, "NEW")):
        code, out, err = _compare(capsys, old, new)
        lines = err.strip().splitlines()
        assert code == 2 and out == ""
        assert len(lines) == 1 and message in lines[0] and f"compare: {label} " in lines[0]


def test_two_certify_runs_of_two_builds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY)
    argv = ["certify", "--config", str(config), "--requirement", "robots.4.6.x2"]
    assert main([*argv, "--out", str(tmp_path / "v1")]) == 0
    assert main([*argv, "--out", str(tmp_path / "v2"), "--target", FAULTY]) == 1
    code, result = _json_compare(capsys, tmp_path / "v1", tmp_path / "v2")
    assert code == 1 and _ids(result, "regressions") == ["robots.4.6.x2"]
    assert result["regressions"][0]["new"]["case_files"]
    code, result = _json_compare(capsys, tmp_path / "v2", tmp_path / "v1" / "report.json")
    assert code == 0 and _ids(result, "fixes") == ["robots.4.6.x2"]
