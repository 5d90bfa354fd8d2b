"""The project's YAML data read by libyaml means exactly what ``yaml.safe_load`` reads."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from reference import _yaml

ROOT = Path(__file__).resolve().parents[2]
DATA = sorted(
    p for package in ("reference", "conformance") for p in (ROOT / package).rglob("*.yaml")
)


def test_there_is_data_to_compare() -> None:
    assert len(DATA) >= 8


@pytest.mark.parametrize("path", DATA, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_packaged_yaml_file_loads_the_same(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert _yaml.load(text) == yaml.safe_load(text)


def test_the_safe_schema_holds() -> None:
    with pytest.raises(yaml.YAMLError):
        _yaml.load("!!python/object/apply:os.system ['true']")
