"""A history entry's ``created_at`` read as a time, whatever format the target chose.

The contract names the field and nothing more (docs/contract-decisions.md, ``created-at``): its
*value* is the letter (a creation time: the play's purchase, so after the account was opened,
not in the future, and newest first along a listing that is newest first), its *format* is the
project's reading (RFC 3339 with an offset, ``history.schema.json``'s ``format: date-time``). So
a format other than RFC 3339 that still names a time is read, judged, and reserved; only a value
no reader here understands is left unjudged (a reservation too).

Read, in this order:

- RFC 3339 (``2026-12-03T15:04:05.123Z``, ``…+01:00``): the reading met; also with RFC 9557's
  suffix (``…+01:00[Europe/Paris]``, Java's ``ZonedDateTime``, JavaScript's Temporal): RFC 9557
  updates RFC 3339 and keeps its offset authoritative, so the suffix (a time zone's name, tags,
  each in brackets) changes no instant and the reading is met;
- any other ISO 8601 that Python reads (``2026-12-03 15:04:05+01:00``, ``20261203T150405Z``,
  no offset at all);
- an HTTP / e-mail date (RFC 9110 / RFC 5322: ``Thu, 03 Dec 2026 15:04:05 GMT``);
- a Unix time as a number or a string of digits (seconds, milliseconds, microseconds or
  nanoseconds since 1970, told apart by magnitude), which names an instant in UTC.

A time without an offset names no instant: it is judged within the widest offsets in use
(UTC-12 to UTC+14) and reserved.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import re
from dataclasses import dataclass

from contract._validated import is_date_time

UTC = dt.UTC

#: the widest offsets of civil time: a time without an offset is somewhere in this range
NAIVE_SPREAD = dt.timedelta(hours=14)

#: RFC 9557's suffix after an RFC 3339 date-time: a time zone's name or tags, each in brackets
_SUFFIX = re.compile(r"(?:\[!?[A-Za-z0-9_+\-/.=]{1,255}\])+\Z", re.ASCII)
_DIGITS = re.compile(r"-?\d{9,19}(\.\d+)?")
_EPOCH_UNITS = (
    (1e17, 1e9, "nanoseconds"),
    (1e14, 1e6, "microseconds"),
    (1e11, 1e3, "milliseconds"),
)


@dataclass(frozen=True)
class ReadTime:
    """``created_at`` as read: the time (aware when the value names an instant), whether it is
    RFC 3339 (the project's reading met), and the form it was read in, for messages."""

    value: dt.datetime
    rfc3339: bool
    form: str
    span: dt.timedelta = dt.timedelta(0)  # a date alone names a whole day

    @property
    def aware(self) -> bool:
        return self.value.tzinfo is not None

    def earliest(self) -> dt.datetime:
        """The earliest instant it can name (itself when aware), in UTC."""
        if self.aware:
            return self.value.astimezone(UTC)
        return self.value.replace(tzinfo=UTC) - NAIVE_SPREAD

    def latest(self) -> dt.datetime:
        if self.aware:
            return self.value.astimezone(UTC)
        return self.value.replace(tzinfo=UTC) + NAIVE_SPREAD + self.span


def _iso(text: str) -> dt.datetime | None:
    """``text`` as Python's ISO 8601 reader reads it (fractions cut to microseconds)."""
    cut = re.sub(r"(\.\d{6})\d+", r"\1", text.strip())
    cut = re.sub(r"[Zz]$", "+00:00", cut)
    try:
        return dt.datetime.fromisoformat(cut)
    except ValueError:
        return None


def _epoch(number: float) -> dt.datetime | None:
    seconds = number
    for above, scale, _unit in _EPOCH_UNITS:
        if abs(number) >= above:
            seconds = number / scale
            break
    try:
        return dt.datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def read_time(value: object) -> ReadTime | None:
    """``value`` read as a time, or None when no reader here understands it."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        moment = _epoch(float(value))
        return None if moment is None else ReadTime(moment, False, "a Unix time (a number)")
    if not isinstance(value, str) or not value.strip() or len(value) > 100:
        return None
    stamp = _SUFFIX.sub("", value)
    if is_date_time(stamp):
        moment = _iso(stamp.upper())
        if moment is not None:
            form = "RFC 3339" if stamp == value else "RFC 9557 (RFC 3339 and a time zone suffix)"
            return ReadTime(moment, True, form)
    if _DIGITS.fullmatch(value.strip()):
        moment = _epoch(float(value))
        return None if moment is None else ReadTime(moment, False, "a Unix time (a string)")
    moment = _iso(stamp)
    if moment is not None:
        if not re.search(r"[T ]\d|:", stamp.strip()):  # a date alone
            return ReadTime(moment, False, "an ISO 8601 date alone", dt.timedelta(days=1))
        form = "ISO 8601 with an offset" if moment.tzinfo else "ISO 8601 without an offset"
        return ReadTime(moment, False, form)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    form = "an HTTP date" if moment.tzinfo else "an HTTP date without a zone"
    return ReadTime(moment, False, form)
