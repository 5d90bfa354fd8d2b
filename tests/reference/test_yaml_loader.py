"""The project's YAML data read by libyaml means exactly what ``yaml.safe_load`` reads."""

from __future__ import annotations

import marshal
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
    with pytest.raises(_yaml.YAMLError) as raised:
        _yaml.load("!!python/object/apply:os.system ['true']")
    assert isinstance(raised.value.__cause__, yaml.YAMLError)


def test_every_packaged_yaml_file_is_parsed_ahead_by_the_build() -> None:
    """The install (setup.py) kept every shipped file's data: a command reads it without
    PyYAML (issue 32, item 5). Fails on an install whose build did not write the table."""
    with open(_yaml.PARSED, "rb") as handle:
        table = marshal.load(handle)
    for path in DATA:
        kept = table.get(_yaml.digest(path.read_bytes()))
        assert kept is not None, f"{path} not parsed ahead: reinstall (pip install -e .)"
        assert marshal.loads(kept) == yaml.safe_load(path.read_bytes())


def test_the_table_keeps_exact_types_and_leaves_out_what_marshal_cannot_hold() -> None:
    texts = [b"a: [1, true, 1.0, null, x]\n", b"when: 2026-12-05\n", b"b: .nan\n", b"c: 2\n"]
    table = marshal.loads(_yaml.parsed_table(texts))
    assert set(table) == {_yaml.digest(texts[0]), _yaml.digest(texts[3])}
    data = marshal.loads(table[_yaml.digest(texts[0])])
    assert [type(v) for v in data["a"]] == [int, bool, float, type(None), str]


def test_a_text_not_in_the_table_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """An edited file (its digest unknown to the table) is parsed, never read stale."""
    monkeypatch.setattr(_yaml, "_table", {_yaml.digest("a: 1\n"): marshal.dumps({"a": 2})})
    assert _yaml.load("a: 1\n") == {"a": 2}  # (a table entry is what the file said)
    assert _yaml.load("a: 1 \n") == {"a": 1}
