"""``instantcert generate-block`` as contract section 6 says: reproducible files, clear faults."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import reference
from harness._cli import main

SEED_HEX = "00112233445566778899aabbccddeeff" * 2


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from harness._cli import entry_point; entry_point()", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_writes_the_reference_block_slice(tmp_path: Path) -> None:
    out = tmp_path / "b.jsonl.gz"
    done = run(
        "generate-block", "--game", "eldorado", "--stake-cents", "200", "--seed", SEED_HEX,
        "--start", "1000", "--count", "1500", "-o", str(out), "--workers", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    block = reference.Block("eldorado", 200, "eldorado-200-0001", bytes.fromhex(SEED_HEX))
    assert gzip.decompress(out.read_bytes()) == b"".join(block.document_lines(1000, 1500))
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    assert digest in done.stdout and "eldorado-200-0001" in done.stdout
    assert SEED_HEX not in done.stdout + done.stderr  # given seeds are not echoed


def test_defaults_stake_100_block_1_whole_slice_from_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "b.jsonl"
    code = main(["generate-block", "--game", "robots", "--seed", SEED_HEX, "--start", "1999990",
                 "-o", str(out), "--workers", "1"])  # fmt: skip
    assert code == 0
    lines = out.read_bytes().splitlines()
    header = json.loads(lines[0])
    assert (header["stake_cents"], header["block_id"]) == (100, "robots-100-0001")
    assert (header["start"], header["count"], len(lines)) == (1_999_990, 10, 11)


def test_same_seed_same_bytes_whatever_the_workers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    digests = set()
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.jsonl.gz"
        args = ["generate-block", "--game", "robots", "--seed", SEED_HEX, "--count", "20000",
                "--block-id", "lab-test-7", "-o", str(out), "--workers", workers]  # fmt: skip
        assert main(args) == 0
        digests.add(out.read_bytes())
    assert len(digests) == 1


def test_without_seed_a_fresh_one_is_printed_and_reproduces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = tmp_path / "a.jsonl"
    assert main(["generate-block", "--game", "eldorado", "--count", "300", "-o", str(first)]) == 0
    err = capsys.readouterr().err
    seed = err.split("--seed ")[1].split()[0]
    assert len(seed) == 64 and len(err.strip().splitlines()) == 1
    again = tmp_path / "b.jsonl"
    args = ["generate-block", "--game", "eldorado", "--count", "300", "--seed", seed]
    assert main([*args, "-o", str(again)]) == 0
    assert first.read_bytes() == again.read_bytes()
    header = json.loads(first.read_bytes().splitlines()[0])
    assert header["seed_sha256"] == hashlib.sha256(bytes.fromhex(seed)).hexdigest()


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["--game", "chess"], "--game 'chess'"),
        (["--game", "robots", "--stake-cents", "50"], "--stake-cents"),
        (["--game", "robots", "--stake-cents", "1e2"], "--stake-cents '1e2'"),
        (["--game", "robots", "--seed", "abc"], "--seed 'abc'"),
        (["--game", "robots", "--seed", "g" * 64], "not hexadecimal"),
        (["--game", "robots", "--block-id", "../etc"], "--block-id"),
        (["--game", "robots", "--start", "-1"], "--start '-1'"),
        (["--game", "robots", "--start", "x"], "--start 'x'"),
        (["--game", "robots", "--start", "2000001"], "--start"),
        (["--game", "eldorado", "--count", "900001"], "--count"),
        (["--game", "robots", "--workers", "0"], "--workers '0'"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], shown: str
) -> None:
    out = tmp_path / "b.jsonl"
    assert main(["generate-block", *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and shown in err, err
    assert err.startswith("instantcert generate-block: ")
    assert "fresh from secrets" not in err  # nothing is drawn before the arguments are checked
    assert not out.exists()


def test_bad_output_names_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in (str(tmp_path / "b.json"), str(tmp_path / "missing" / "b.jsonl")):
        args = ["generate-block", "--game", "robots", "--seed", SEED_HEX, "--count", "5"]
        assert main([*args, "-o", name]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "-o " in err and repr(name) in err
