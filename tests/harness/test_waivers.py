"""Waivers: validated, honoured until they expire, flagged when no longer needed."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from harness._errors import ConfigError
from harness._waivers import Waiver, active, load_waivers, parse_waivers

KNOWN = ["robots.4.6.x2", "robots.4.7.plus_one"]


def test_a_waivers_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "waivers.yaml"
    path.write_text(
        "waivers:\n"
        "  - requirement: robots.4.6.x2\n    reason: ' fix in 2.4 '\n    expires: 2027-03-31\n",
        encoding="utf-8",
    )
    assert load_waivers(str(path), KNOWN) == [
        Waiver("robots.4.6.x2", "fix in 2.4", dt.date(2027, 3, 31))
    ]
    assert load_waivers(None, KNOWN) == []


def test_expiry_counts_the_last_day_in() -> None:
    waiver = Waiver("robots.4.6.x2", "r", dt.date(2027, 3, 31))
    assert not waiver.expired(dt.date(2027, 3, 31))
    assert waiver.expired(dt.date(2027, 4, 1))
    assert active([waiver], dt.date(2027, 3, 31)) == {"robots.4.6.x2": waiver}
    assert active([waiver], dt.date(2027, 4, 1)) == {}
    assert waiver.to_dict(dt.date(2028, 1, 1))["expired"] is True


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            [{"requirement": "robots.4.6.x3", "reason": "r", "expires": "2027-01-01"}],
            "unknown requirement id 'robots.4.6.x3'; did you mean 'robots.4.6.x2'?",
        ),
        (
            [{"requirement": "robots.4.6.x2", "reason": "r", "expiry": "2027-01-01"}],
            "unknown key 'expiry'; did you mean 'expires'?",
        ),
        ([{"requirement": "robots.4.6.x2", "reason": "r"}], "missing 'expires'"),
        (
            [{"requirement": "robots.4.6.x2", "reason": "", "expires": "2027-01-01"}],
            "reason must be a non-empty string",
        ),
        (
            [{"requirement": "robots.4.6.x2", "reason": "r", "expires": "soon"}],
            "expires must be a date YYYY-MM-DD, got 'soon'",
        ),
        (
            [{"requirement": "robots.4.6.x2", "reason": "r", "expires": "2027-01-01"}] * 2,
            "waived twice",
        ),
        ({"waiver": []}, "unknown key 'waiver'"),
        ("x", "must be a list"),
    ],
)
def test_bad_waivers_are_refused(raw: object, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_waivers(raw, "w.yaml", KNOWN)
    assert message in str(caught.value)


def test_a_missing_waivers_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"absent\.yaml"):
        load_waivers(str(tmp_path / "absent.yaml"), KNOWN)
