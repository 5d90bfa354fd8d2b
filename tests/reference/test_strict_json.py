"""The one strict JSON parser and the JSON writer every report uses (issue 11)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference._strict_json import JsonError, dumps, loads


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("NaN", "NaN is not a JSON number"),
        ('{"a": Infinity}', "Infinity is not a JSON number"),
        ("[-Infinity]", "-Infinity is not a JSON number"),
        ("1e99999", "overflows a double"),
        ("-1e400", "overflows a double"),
        ("1" * 1001, "1001 digits"),
        ("1" * 5000, "5000 digits"),
        ("[" * 100_000, "nested deeper than 64"),
        ("[" * 65 + "]" * 65, "nested deeper than 64"),
        ("\ufeff{}", "byte order mark"),
        (b"\xff\xfe{}", "not UTF-8 at byte 0"),
        ("{'a': 1}", "not JSON (line 1 column 2"),
        ("", "not JSON"),
    ],
)
def test_what_python_reads_but_json_is_not_is_refused(text: str | bytes, fault: str) -> None:
    with pytest.raises(JsonError, match=fault.replace("(", r"\(").replace("[", r"\[")):
        loads(text)


def test_bounds_are_parameters() -> None:
    assert loads("[" * 64 + "]" * 64) is not None
    with pytest.raises(JsonError, match="exceeds 10 bytes"):
        loads(b"[1, 2, 3, 4, 5]", max_bytes=10)
    with pytest.raises(JsonError, match="deeper than 2"):
        loads('{"a": [[1]]}', max_depth=2)
    assert loads('"\\ud800"') == "\ud800"  # a lone surrogate escape is valid JSON text


def test_dumps_always_writes_json() -> None:
    value = {"inf": math.inf, "nan": [math.nan, -math.inf], "s": "\ud800x", "t": (1, 2)}
    text = dumps(value)
    text.encode("utf-8")  # a lone surrogate is escaped, so the text encodes
    back = loads(text)
    assert back == {"inf": "Infinity", "nan": ["NaN", "-Infinity"], "s": "\ud800x", "t": [1, 2]}
    with pytest.raises(ValueError):
        json.dumps(math.inf, allow_nan=False)  # what dumps avoids by naming non-finite floats


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=15,
)


@given(JSONISH)
def test_dumps_then_loads_never_fails(value: object) -> None:
    loads(dumps(value))
