"""``created_at`` read as a time whatever its format (conformance/_timestamps.py)."""

from __future__ import annotations

import datetime as dt

import pytest

from conformance._timestamps import NAIVE_SPREAD, read_time

INSTANT = dt.datetime(2026, 12, 3, 15, 4, 5, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("value", "rfc3339"),
    [
        ("2026-12-03T15:04:05Z", True),
        ("2026-12-03T16:04:05+01:00", True),
        ("2026-12-03T15:04:05.000000000Z", True),
        # RFC 9557 (updates RFC 3339): a time zone's name and tags after the offset
        ("2026-12-03T16:04:05+01:00[Europe/Paris]", True),
        ("2026-12-03T15:04:05Z[!Etc/UTC][u-ca=iso8601]", True),
        ("2026-12-03 16:04:05+01:00[Europe/Paris]", False),
        ("2026-12-03 15:04:05+00:00", False),
        ("20261203T150405Z", False),
        ("2026-12-03T16:04:05.000+0100", False),
        ("Thu, 03 Dec 2026 15:04:05 GMT", False),
        ("1796310245", False),
        ("1796310245000", False),
        (1796310245, False),
        (1796310245.0, False),
    ],
)
def test_an_instant_in_any_readable_form(value: object, rfc3339: bool) -> None:
    seen = read_time(value)
    assert seen is not None and seen.aware
    assert seen.earliest() == seen.latest() == INSTANT
    assert seen.rfc3339 is rfc3339


def test_a_time_without_an_offset_spans_every_zone() -> None:
    seen = read_time("2026-12-03 15:04:05")
    assert seen is not None and not seen.aware and not seen.rfc3339
    assert seen.earliest() == INSTANT - NAIVE_SPREAD and seen.latest() == INSTANT + NAIVE_SPREAD


def test_a_date_alone_spans_its_day() -> None:
    seen = read_time("2026-12-03")
    assert seen is not None
    assert seen.earliest() <= INSTANT <= seen.latest()
    assert seen.latest() - seen.earliest() == 2 * NAIVE_SPREAD + dt.timedelta(days=1)


@pytest.mark.parametrize(
    "value",
    [
        "02/12/2026 02:24:10",
        "yesterday",
        "",
        "2026-13-03T15:04:05Z",
        "2026-12-03T15:04:05Z[]",
        "[Europe/Paris]",
        None,
        True,
        [],
        "9" * 200,
    ],
)
def test_what_names_no_time_is_none(value: object) -> None:
    assert read_time(value) is None
