"""The adapter kit certifies: each example passes the suite over the capabilities it offers.

The Python adapter runs the real ``quick`` profile; the HTTP vendor, a real server started as a
user would (``python examples/http_vendor/server.py``), runs a trimmed quick profile here and the
real one in the slow tier. The broken adapter shows that these runs can fail.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from conformance import load_catalogue
from harness._cli import main
from tests.reference._live import free_port

#: handed to an xdist worker first (tests/conftest.py): four tests, the examples' quick runs (25
#: s)
pytestmark = pytest.mark.early

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = "python:examples.python_adapter.adapter:make_adapter"
BROKEN = "python:examples.python_adapter.adapter:make_broken_adapter"
TRIMMED = """\
profile: quick
settings:
  hypothesis_max_examples: 20
  block_sample_units: 2000
"""


def _certify(out: Path, *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["certify", "--out", str(out), "--seed", "7", *args])
    return code, json.loads((out / "report.json").read_text(encoding="utf-8"))


def _outcomes(doc: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["outcome"] for r in doc["requirements"]}


def _of(doc: dict[str, Any], *capabilities: str) -> list[str]:
    catalogue = load_catalogue()
    return [r["id"] for r in doc["requirements"] if catalogue[r["id"]].capability in capabilities]


def test_the_python_adapter_passes_the_quick_profile(tmp_path: Path) -> None:
    code, doc = _certify(tmp_path / "out", "--target", ADAPTER, "--profile", "quick")
    outcomes = _outcomes(doc)
    assert code == 0
    assert doc["verdict"]["counts"]["fail"] == doc["verdict"]["counts"]["error"] == 0
    evaluate = _of(doc, "evaluate")
    assert evaluate and all(outcomes[rid] == "pass" for rid in evaluate)
    others = {outcomes[rid] for rid in _of(doc, "blocks", "play", "reveal")}
    assert others == {"not_supported"}  # not offered: never passed
    assert doc["verdict"]["overall"] == "INCOMPLETE"


def test_the_broken_adapter_fails_x2_and_only_x2(tmp_path: Path) -> None:
    config = tmp_path / "trimmed.yaml"
    config.write_text(TRIMMED, encoding="utf-8")
    code, doc = _certify(tmp_path / "out", "--target", BROKEN, "--config", str(config))
    failed = sorted(rid for rid, outcome in _outcomes(doc).items() if outcome == "fail")
    assert code == 1
    assert doc["verdict"]["overall"] == "NOT CERTIFIED"
    assert failed == ["robots.4.6.x2"]


@pytest.fixture(scope="module")
def http_vendor() -> Iterator[str]:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "examples/http_vendor/server.py", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None, server.communicate()[1].decode()
            try:
                requests.get(f"{url}/v1/implementation", timeout=1)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, "the example server did not start"
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


def _check_vendor(code: int, doc: dict[str, Any]) -> None:
    outcomes = _outcomes(doc)
    assert code == 0
    assert doc["verdict"]["counts"]["fail"] == doc["verdict"]["counts"]["error"] == 0
    offered = _of(doc, "evaluate", "blocks")
    assert offered and all(outcomes[rid] == "pass" for rid in offered)
    assert len(doc["blocks"]) == 8  # two per stake: unrelated_blocks was checked


def test_the_http_vendor_passes_evaluate_and_blocks(http_vendor: str, tmp_path: Path) -> None:
    config = tmp_path / "trimmed.yaml"
    config.write_text(TRIMMED, encoding="utf-8")
    _check_vendor(*_certify(tmp_path / "out", "--target", http_vendor, "--config", str(config)))


@pytest.mark.slow
def test_the_http_vendor_passes_the_quick_profile(http_vendor: str, tmp_path: Path) -> None:
    _check_vendor(*_certify(tmp_path / "out", "--target", http_vendor, "--profile", "quick"))
