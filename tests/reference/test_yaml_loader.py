"""The project's YAML data read by libyaml means exactly what ``yaml.safe_load`` reads."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest
import yaml

from reference import _yaml

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("contract", "reference", "conformance", "harness")  # setup.py's
DATA = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.yaml"))


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


def test_the_build_parses_every_packaged_yaml_file_ahead(tmp_path: Path) -> None:
    """What setup.py writes as it builds (``write_parsed``) keeps every shipped file's data,
    and this install's build wrote such a table (a command then reads its YAML without
    PyYAML: issue 32, item 5). A file edited since the install is missing from the
    installed table, and parsed: reinstall (pip install -e .) to keep it out of start-up."""
    out = tmp_path / _yaml.PARSED_NAME
    assert _yaml.write_parsed(str(ROOT), str(out), PACKAGES) == len(DATA)
    table = marshal.loads(out.read_bytes())
    for path in DATA:
        kept = table.get(_yaml.digest(path.read_bytes()))
        assert kept is not None, f"{path} not parsed ahead"
        assert marshal.loads(kept) == yaml.safe_load(path.read_bytes())
    with open(_yaml.PARSED, "rb") as handle:  # the install's own
        assert len(marshal.load(handle)) >= len(DATA) // 2


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
