"""``instantcert certify`` / ``replay`` / ``audit-block`` end to end, in-process."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from harness._cli import main
from harness._reports.manifest import verify

#: handed to an xdist worker first (tests/conftest.py): few tests, whole certify runs (30 s)
pytestmark = pytest.mark.early

TINY = """\
profile: quick
seed: 5
settings:
  hypothesis_max_examples: 10
  block_sample_units: 2000
  play_count: 3
  concurrency_threads: 2
  concurrent_plays_per_thread: 2
"""
BROKEN = "python:tests.harness._support:broken_x2"
SCHEMA = Path(__file__).parents[2] / "harness" / "schemas" / "report.schema.json"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY, encoding="utf-8")
    return path


def test_certify_the_reference_exits_0(
    tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["certify", "--config", str(tiny), "--out", str(out)]) == 0
    doc = json.loads((out / "report.json").read_text())
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    assert verify(out) == []
    assert doc["target"] == "python:reference" and doc["seed"] == 5
    assert {b["game"] for b in doc["blocks"]} == {"robots", "eldorado"}
    assert doc["verdict"]["counts"]["fail"] == doc["verdict"]["counts"]["error"] == 0
    assert doc["verdict"]["overall"] == "INCOMPLETE"  # a quick run never certifies
    unchecked = [
        r["id"]
        for r in doc["requirements"]
        if r["required"] and r["outcome"] in ("not_supported", "not_run")
    ]
    note = doc["verdict"]["note"]
    if unchecked:
        assert note.startswith(f"{len(unchecked)} required requirement(s) not checked")
    else:
        assert note == "quick run: passed, not valid for certification"
    assert doc["config"]["effective_settings"]["hypothesis_max_examples"] == 10
    stdout = capsys.readouterr().out
    assert f"INCOMPLETE: {note}" in stdout
    assert not (out / "cases").exists()


def test_a_fault_exits_1_and_its_case_replays(
    tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(
        [
            "certify",
            "--config",
            str(tiny),
            "--out",
            str(out),
            "--target",
            BROKEN,
            "--requirement",
            "robots.4.6.x2",
        ]
    )
    assert code == 1
    doc = json.loads((out / "report.json").read_text())
    assert doc["verdict"]["overall"] == "NOT CERTIFIED"
    failed = {r["id"] for r in doc["requirements"] if r["outcome"] == "fail"}
    assert "robots.4.6.x2" in failed
    cases = sorted((out / "cases").glob("*.json"))
    assert cases
    x2_case = next(c for c in cases if "robots.4.6.x2" in json.loads(c.read_text())["requirements"])
    capsys.readouterr()
    assert main(["replay", str(x2_case)]) == 2  # a python:module target only with --target
    assert "pass it explicitly with --target" in capsys.readouterr().err
    assert main(["replay", str(x2_case), "--target", BROKEN]) == 1  # it still fails
    assert "expected:" in capsys.readouterr().out
    assert main(["replay", str(x2_case), "--target", "python:reference"]) == 0
    assert "passes" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["certify", "--profile", "quik"], "unknown profile 'quik'; did you mean 'quick'?"),
        (["certify", "--target", "ftp://x"], "target 'ftp://x' is not one of"),
        (["certify", "--target", "python:no_such_module_x:f"], "cannot import"),
        (["certify", "--stake-cents", "7"], "no game in scope"),
        (["certify", "--config", "/nonexistent/c.yaml"], "/nonexistent/c.yaml"),
        (["certify", "--waivers", "/nonexistent/w.yaml"], "/nonexistent/w.yaml"),
        (["replay", "/nonexistent/case.json"], "/nonexistent/case.json"),
        (["audit-block", "/nonexistent/block.jsonl.gz"], "no such file"),
        (["audit-block", "/"], "'/': is a directory, expected a block file"),
        (["audit-block", "/dev/null"], "'/dev/null': not a regular file"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_an_unreachable_target_exits_2_with_reports(tmp_path: Path, tiny: Path) -> None:
    out = tmp_path / "out"
    code = main(
        [
            "certify",
            "--config",
            str(tiny),
            "--out",
            str(out),
            "--target",
            "python:tests.harness._support:unreachable",
        ]
    )
    assert code == 2
    doc = json.loads((out / "report.json").read_text())
    assert not doc["smoke"]["ok"] and doc["verdict"]["exit_code"] == 2


def test_a_bad_case_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "case.json"
    case.write_text(json.dumps({"format": "instantcert-case/1", "evidence": {"input": {}}}))
    assert main(["replay", str(case)]) == 2
    assert "evidence.input.kind" in capsys.readouterr().err


def test_audit_block_reports_and_replays(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    seed = "cd" * 32
    assert (
        main(
            [
                "generate-block",
                "--game",
                "eldorado",
                "--stake-cents",
                "100",
                "--seed",
                seed,
                "--start",
                "0",
                "--count",
                "2000",
                "-o",
                str(good),
            ]
        )
        == 0
    )
    lines = good.read_text().splitlines()
    for n, line in enumerate(lines[1:], start=1):
        unit = json.loads(line)
        if unit["prize_cents"] > 0:
            unit["prize_cents"] += 100  # a declared prize the ticket does not win
            lines[n] = json.dumps(unit)
            break
    bad.write_text("\n".join(lines) + "\n")

    out = tmp_path / "good-report"
    assert main(["audit-block", str(good), "--out", str(out), "--seed", "3"]) == 0
    doc = json.loads((out / "report.json").read_text())
    assert doc["profile"] == "audit" and doc["blocks"][0]["audited_units"] == 2000
    assert "block audit" in doc["verdict"]["note"]
    assert {r["id"].split(".")[0] for r in doc["requirements"]} <= {"eldorado", "blocks"}

    out = tmp_path / "bad-report"
    assert main(["audit-block", str(bad), "--out", str(out), "--seed", "3"]) == 1
    doc = json.loads((out / "report.json").read_text())
    assert [r["id"] for r in doc["requirements"] if r["outcome"] == "fail"] == [
        "eldorado.3.unit_prize"
    ]
    case = out / doc["failures"][0]["case_files"][0]
    assert main(["replay", str(case)]) == 2  # a file: target only when --target names it
    assert main(["replay", str(case), "--target", f"file:{bad}"]) == 1
    assert main(["replay", str(case), "--target", f"file:{good}"]) == 0
