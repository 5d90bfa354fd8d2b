"""``instantcert audit-block FILE FILE ...``: several block files audited together, their
randomness statistics pooled (issue 10)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness._cli import main


def _slice(path: Path, seed: str, block_id: str) -> Path:
    args = ["generate-block", "--game", "eldorado", "--stake-cents", "100", "--seed", seed]
    args += ["--block-id", block_id, "--start", "0", "--count", "3000", "-o", str(path)]
    assert main(args) == 0
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("several")
    return (
        _slice(folder / "a.jsonl", "ab" * 32, "eldorado-100-0001"),
        _slice(folder / "b.jsonl", "cd" * 32, "eldorado-100-0002"),
    )


def _outcomes(out: Path) -> dict[str, str]:
    doc = json.loads((out / "report.json").read_text())
    return {r["id"]: r["outcome"] for r in doc["requirements"]}


def test_two_files_are_audited_together(files: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert main(["audit-block", *map(str, files), "--out", str(out), "--seed", "3"]) == 0
    doc = json.loads((out / "report.json").read_text())
    assert [b["block_id"] for b in doc["blocks"]] == ["eldorado-100-0001", "eldorado-100-0002"]
    outcomes = _outcomes(out)
    # two blocks: the comparison runs (one file alone makes it not_supported)
    assert outcomes["eldorado.randomness.unrelated_blocks"] == "pass"
    assert outcomes["eldorado.randomness.top_tiers"] in ("pass", "not_supported")


def test_a_shifted_copy_among_the_files_fails_unrelated_blocks(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    # the second file is the first's units read one on (tickets and prizes unchanged)
    header, *units = files[0].read_text().splitlines()
    head = {**json.loads(header), "block_id": "eldorado-100-0002"}
    moved = [json.loads(line) for line in units[1:] + units[:1]]
    lines = [json.dumps({**u, "index": i}, separators=(",", ":")) for i, u in enumerate(moved)]
    copy = tmp_path / "copy.jsonl"
    copy.write_text("\n".join([json.dumps(head), *lines]) + "\n")
    out = tmp_path / "report"
    assert main(["audit-block", str(files[0]), str(copy), "--out", str(out), "--seed", "3"]) == 1
    failed = {r for r, o in _outcomes(out).items() if o == "fail"}
    assert failed == {"eldorado.randomness.unrelated_blocks"}
    doc = json.loads((out / "report.json").read_text())
    case = out / doc["failures"][0]["case_files"][0]
    assert main(["replay", str(case)]) == 2  # a file: target only when --target names it
    both = f"file:{files[0]}{os.pathsep}{copy}"
    assert main(["replay", str(case), "--target", both]) == 1  # both files: still failing


def test_two_files_holding_one_block_are_refused(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["audit-block", str(files[0]), str(files[0]), "--out", str(out)]) == 2
    assert "both hold block 'eldorado-100-0001'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "change", [{"count": "3000"}, {"generator": [1, 2]}, {"format": {"v": 1}}, {"start": -1}]
)
def test_a_bad_header_field_of_a_file_fails_its_header_not_an_error(
    files: tuple[Path, Path], tmp_path: Path, change: dict[str, object]
) -> None:
    """A file's header line is the file's content, judged by the block checks: a field of the
    wrong type fails ``blocks.contract3.header``; it is not the target misbehaving (the seam's
    schema would have ended every block check in error)."""
    header, *units = files[0].read_text().splitlines()
    path = tmp_path / "bad-header.jsonl"
    path.write_text("\n".join([json.dumps({**json.loads(header), **change}), *units]) + "\n")
    out = tmp_path / "report"
    assert main(["audit-block", str(path), "--out", str(out)]) == 1
    outcomes = _outcomes(out)
    assert outcomes["blocks.contract3.header"] == "fail"
    assert "error" not in outcomes.values(), outcomes
