"""The suite's SHA-256: the same files, read from the package's folder or its resources."""

from __future__ import annotations

import hashlib
import importlib.util
from importlib import resources

import pytest

from harness import _provenance


def _digest_of(files: list[tuple[str, bytes]]) -> str:
    digest = hashlib.sha256()
    for path, data in sorted(files):
        digest.update(path.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return digest.hexdigest()


def test_the_suite_read_from_its_folder_is_the_suite_read_through_its_resources() -> None:
    on_disk = sorted(_provenance.suite_files())
    through_resources = sorted(_provenance._walk(resources.files("conformance"), ""))
    assert on_disk == through_resources
    assert {"_stats.py", "requirements/blocks.yaml", "profiles.yaml"} <= {p for p, _ in on_disk}
    assert not any("__pycache__" in p or p.endswith(".pyc") for p, _ in on_disk)
    assert _provenance.suite_sha256() == _digest_of(through_resources)


def test_a_suite_not_in_a_folder_is_read_through_its_resources(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = _provenance.suite_sha256()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)  # e.g. in a zip
    scanned: list[str] = []
    monkeypatch.setattr(_provenance, "_scan", lambda *a: scanned.append("scan") or iter(()))
    assert _provenance.suite_sha256() == expected
    assert not scanned
