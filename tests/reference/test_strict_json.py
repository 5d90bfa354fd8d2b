"""The one strict JSON parser and the JSON writer every report uses (issue 11)."""

from __future__ import annotations

import json
import math
from itertools import accumulate, count
from operator import sub

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import _strict_json
from reference._strict_json import (
    _NOT_BRACKETS,
    _STRING,
    JsonError,
    dumps,
    loads,
    sanitise,
    structure,
)


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("NaN", "NaN is not a JSON number"),
        ('{"a": Infinity}', "Infinity is not a JSON number"),
        ("[-Infinity]", "-Infinity is not a JSON number"),
        ("1e99999", "overflows a double"),
        ("-1e400", "overflows a double"),
        ("1" * 5000, "4300 digits"),
        ("[" + "9" * 4301 + "]", "4300 digits"),
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
    assert loads("1" * 4300) > 0
    with pytest.raises(JsonError, match="an integer of 11 digits"):
        loads("[12345678901]", max_int_digits=10)
    assert loads('["[[[[", {"a": "]]]]"}]', max_depth=2) == ["[[[[", {"a": "]]]]"}]


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


@given(JSONISH, st.sampled_from([None, 2]))
def test_dumps_is_the_text_of_the_sanitised_value(value: object, indent: int | None) -> None:
    """Without a non-finite float ``dumps`` writes the value itself (no copy), else the copy
    ``sanitise`` makes: the text is the same as always writing the copy."""
    copied = json.dumps(
        sanitise(value), indent=indent, ensure_ascii=False, allow_nan=False, default=str
    )
    assert dumps(value, indent=indent) == copied.encode("utf-8", "backslashreplace").decode()


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


TRICKY_TEXT = st.text(alphabet=st.sampled_from(list('[]{}"\\ab')), max_size=8)
NESTED = st.recursive(
    st.none() | st.integers() | TRICKY_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY_TEXT, inner, max_size=3),
    max_leaves=30,
)


@given(NESTED, st.integers(min_value=1, max_value=8))
def test_the_depth_bound_is_exact_whatever_the_strings_hold(value: object, limit: int) -> None:
    """Brackets, quotes and backslashes inside strings never fool the depth count."""
    text = json.dumps(value)
    if _depth(value) > limit:
        with pytest.raises(JsonError, match="nested deeper"):
            loads(text, max_depth=limit)
    else:
        assert loads(text, max_depth=limit) == value


#: brackets to steps of depth as first written: an opening one 2, a closing one 0, minus 1 per
#: bracket (``count``) in the prefix sums
STEPS_AS_FIRST_WRITTEN = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")


def _structure_by_pattern(data: bytes) -> tuple[int, int, int]:
    """``structure`` as first written: strings removed by the pattern, depth by prefix sums."""
    bare = _STRING.sub(b'""', data)
    containers = bare.count(b"{") + bare.count(b"[")
    values = bare.count(b",") + bare.count(b":") + containers
    if containers <= 1:
        return containers, values, min(containers, 1)
    steps = bare.translate(STEPS_AS_FIRST_WRITTEN, _NOT_BRACKETS)
    return containers, values, max(map(sub, accumulate(steps), count(1)), default=0)


@given(st.lists(st.sampled_from(list(b'[]{}",:\\ a1')), max_size=40).map(bytes))
def test_structure_counts_as_the_string_pattern_does(data: bytes) -> None:
    """The split that removes strings' content (no backslash, quotes paired) and the passes
    that take the depth (balanced brackets) count exactly as the pattern and the prefix sums:
    text or bytes, valid JSON or not."""
    assert tuple(structure(data)) == _structure_by_pattern(data)
    assert tuple(structure(data.decode())) == _structure_by_pattern(data)


@given(st.lists(st.sampled_from(list(b"[]{} ")), max_size=40).map(bytes))
def test_the_depth_is_the_prefix_sums_across_the_chunks(data: bytes) -> None:
    """The running sum taken a few brackets at a time (``DEPTH_CHUNK``, 3 here) is the prefix
    sums' highest, wherever a chunk ends."""
    chunk = _strict_json.DEPTH_CHUNK
    _strict_json.DEPTH_CHUNK = 3
    try:
        assert tuple(structure(data)) == _structure_by_pattern(data)
    finally:
        _strict_json.DEPTH_CHUNK = chunk


@pytest.mark.parametrize("levels", [1, 2, 5, 64, 65, 66, 200])
def test_structure_depth_of_deep_documents(levels: int) -> None:
    text = b'{"a":' * levels + b"[]" + b"}" * levels
    assert tuple(structure(text)) == _structure_by_pattern(text)
    assert structure(b"[" * levels).depth == levels
