"""A history entry's ``created_at`` (contract 4): the time the play was bought.

The contract names the field in the history's entries and nothing more. What its name says is
the letter: a creation time, so each play's ``created_at`` lies between the moments just before
and just after its purchase (and so after the account was opened, and not in the future), and
along the listing, which is newest first, the times never go up; between two plays bought one
after the other, as much time passes by their ``created_at`` as by the harness's clock (within
``PRECISION``: the clock skew cancels out), and finishing the oldest ticket later does not move
its time (a creation time, not the last save's). Its *format* the contract does
not fix: RFC 3339 with an offset is the project's reading (``history.schema.json``, ``format:
date-time``), and any other format that still names a time (``conformance._timestamps``: ISO
8601 without the ``T`` or the offset, an HTTP date, a Unix time) is judged the same way and
gives a reservation (docs/contract-decisions.md, ``created-at``); a value no reader understands
cannot be judged: a reservation too, never a failure.

The target's clock and the harness's may differ: ``CLOCK_SKEW`` either way is allowed. A time
without an offset names no instant: it is allowed anywhere within the widest offsets of civil
time (UTC-12 to UTC+14) of the instant, and the order along the listing is still judged.
"""

from __future__ import annotations

import datetime as dt
import itertools
import time
from collections.abc import Callable, Mapping
from typing import Any

from .._registry import CheckContext, CheckFailure, Evidence, NotSupported, Reservation, check
from .._timestamps import ReadTime, read_time
from . import _scenarios as sc
from ._session import session

CREATED_AT = "play.history.created_at"
PLAYS = 3
PAUSE_S = 1.1  # between plays: whole-second times of two plays differ, their order shows
PRECISION = dt.timedelta(seconds=1)  # a time in whole seconds may be up to a second off
CLOCK_SKEW = dt.timedelta(seconds=60)
"""How far the target's clock may be from the harness's. Hosts kept by NTP agree within
milliseconds and a container shares its host's clock; a minute also covers a virtual machine
left without NTP for a day or two. The faults this check is for are off by far more: a local
time labelled UTC or the other way round (an hour or more), a time in the wrong unit (a
millisecond count read as seconds), the account's or a fixed date instead of the play's."""


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _shown(moment: dt.datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def scenario_created_at(
    session: sc.Session,
    case: Mapping[str, Any],
    reserve: Callable[[str, Evidence], None] | None = None,
) -> Evidence | None:
    """``plays`` plays over ``pairs`` in turn on a new account, ``PAUSE_S`` apart, each
    bracketed by the harness's clock, the oldest finished by AUTO ``PAUSE_S`` later; then the
    listing (explicit limit): each entry's ``created_at`` within its play's bracket
    (``CLOCK_SKEW`` either side), never later than the entry before it, and as far from the
    next purchase's as the brackets say (``_elapsed_fault``). ``reserve(why, evidence)``
    hears of a format the project does not read as RFC 3339, or of a value no reader
    understands."""
    pairs = [(g, s) for g, s in case["pairs"]]
    plays = int(case["plays"])
    opened = _now()
    account = session.open(max(s for _, s in pairs) * plays * 3)
    brackets: dict[str, tuple[dt.datetime, dt.datetime]] = {}
    for n in range(plays):
        if n:
            time.sleep(PAUSE_S)
        game, stake = pairs[n % len(pairs)]
        before = _now()
        played = session.play(account, game, stake)
        brackets[played["play_id"]] = (before, _now())
    bought = list(brackets)  # oldest first
    # the oldest ticket finished a while after the others were bought: its created_at stays
    # its purchase's (a timestamp moved by every save would show the AUTO's time)
    time.sleep(PAUSE_S)
    session.adapter.auto(bought[0], account.token)
    # a maximum of the target's own on ``limit``: its newest that many judged
    # (rows history-own-limit, limit-far-out)
    listing, own = session.history_up_to(account, plays + 10)
    request = {"operation": "history", "limit": plays + 10 if own is None else own}
    # a play bought missing from the listing (a faulty target only: "a play shows here as
    # soon as it is bought") is not judged here: play.history_listing fails it (complete)
    entries = [p for p in listing if p["play_id"] in brackets]

    def fault(expected: Any, got: Any, note: str) -> Evidence:
        return sc.evidence(case, expected, got, note, request)

    previous: tuple[str, ReadTime] | None = None
    times: dict[str, ReadTime] = {}
    for entry in entries:
        raw = entry.get("created_at")
        seen = read_time(raw)
        if seen is None:
            if reserve is not None:
                reserve(
                    f"created_at {raw!r} of play {entry['play_id']} is in no format the suite "
                    "reads as a time: its value could not be judged",
                    fault("a time (RFC 3339, e.g. '2026-11-29T19:18:46Z')", raw, "unreadable"),
                )
            previous = None
            continue
        if not seen.rfc3339 and reserve is not None:
            reserve(
                f"created_at {raw!r} is {seen.form}, not RFC 3339 with an offset",
                fault("an RFC 3339 date-time with its offset", raw, seen.form),
            )
        before, after = brackets[entry["play_id"]]
        low, high = before - CLOCK_SKEW, after + CLOCK_SKEW
        if seen.latest() < low or seen.earliest() > high:
            where = "before the account was opened" if seen.latest() < opened else "at"
            where = "in the future" if seen.earliest() > _now() + CLOCK_SKEW else where
            return fault(
                f"between {_shown(before)} and {_shown(after)} (the purchase, ± "
                f"{CLOCK_SKEW.seconds} s of clock skew)",
                raw,
                f"play {entry['play_id']}: created_at {raw!r} ({seen.form}) is not the time "
                f"of its purchase ({where if where != 'at' else 'another time'})",
            )
        if previous is not None and previous[1].aware == seen.aware:
            newer_id, newer = previous
            if seen.value > newer.value:
                return fault(
                    "created_at never later than the entry before it (newest first)",
                    {
                        "entries": [newer_id, entry["play_id"]],
                        "created_at": [_raw(listing, newer_id), raw],
                    },
                    f"play {entry['play_id']} is listed after {newer_id} but created later "
                    f"({raw!r} after {_raw(listing, newer_id)!r})",
                )
        previous = (entry["play_id"], seen)
        times[entry["play_id"]] = seen
    return _elapsed_fault(bought, brackets, times, fault)


def _elapsed_fault(
    bought: list[str],
    brackets: Mapping[str, tuple[dt.datetime, dt.datetime]],
    times: Mapping[str, ReadTime],
    fault: Callable[[Any, Any, str], Evidence],
) -> Evidence | None:
    """Between two plays bought one after the other, the time their ``created_at`` say passed
    is the time that passed on the harness's clock (± ``PRECISION``): the clock skew allowed
    above cancels out, so a time that is the play's only to within a minute (the account's
    opening, the same for every play) still shows."""
    for older, newer in itertools.pairwise(bought):
        one, two = times.get(older), times.get(newer)
        if one is None or two is None or one.aware != two.aware or one.span or two.span:
            continue  # unread, or a day alone: no time between them to judge
        apart = brackets[newer][0] - brackets[older][1]
        low = apart - PRECISION
        high = brackets[newer][1] - brackets[older][0] + PRECISION
        passed = two.value - one.value
        if not low <= passed <= high:
            return fault(
                f"{low.total_seconds():.1f} s to {high.total_seconds():.1f} s between them "
                "(the time between the two purchases on the harness's clock, ± "
                f"{PRECISION.total_seconds():g} s)",
                {"entries": [older, newer], "seconds_between": passed.total_seconds()},
                f"plays {older} and {newer} were bought {apart.total_seconds():.1f} s or more "
                f"apart, and their created_at are {passed.total_seconds():.3f} s apart: a time "
                "that is not each play's own purchase",
            )
    return None


def _raw(listing: list[dict[str, Any]], play_id: str) -> Any:
    return next(p.get("created_at") for p in listing if p["play_id"] == play_id)


sc.SCENARIOS["history_created_at"] = scenario_created_at


@check("play.history_created_at", covers=[CREATED_AT], capability="play")
def history_created_at(ctx: CheckContext) -> None:
    """Three plays a second apart on a new account, the oldest finished by AUTO a second
    later: each history entry's ``created_at`` is its purchase time (± a minute of clock skew;
    the time between two purchases to within a second), newest first; a format other than RFC 3339,
    or a value no reader understands, is a reservation."""
    pairs = [[g, s] for g in ctx.games() for s in ctx.stakes(g)]
    if not pairs:
        raise NotSupported("no game and stake in this run's scope")
    case = sc.case_of("history_created_at", pairs=pairs, plays=PLAYS)
    reasons: dict[str, tuple[str, Evidence]] = {}

    def reserve(why: str, seen: Evidence) -> None:
        kind = seen.note
        reasons.setdefault(kind, (why, seen))  # one reservation per format seen

    found = scenario_created_at(session(ctx), case, reserve)
    for why, seen in reasons.values():
        ctx.reserve(
            Reservation(
                why,
                basis="created-at",
                lift="answer created_at as an RFC 3339 date-time with its offset "
                "(e.g. '2026-11-29T19:18:46.352Z' or '…+01:00')",
                evidence=[seen],
                requirements=(CREATED_AT,),
            )
        )
    if found is not None:
        raise CheckFailure(
            f"a history entry's created_at: {found.note}", [found], requirements=(CREATED_AT,)
        )
