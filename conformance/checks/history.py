"""The history listing (contract 4; robots 4.1, eldorado 4.2): newest first, ``limit``
honoured, every play once, the newest entry the last play.

One account plays the (game, stake) pairs in scope in turn (so a listing sorted by game or
block instead of by time shows), each play finished with AUTO before the listing is read: a
history that hides unrevealed plays is ``*.history_unrevealed``'s fault, not these. After each
play the listing (``limit`` 50) is judged, in this order, so each fault is named once and by
the requirement it breaks:

1. ``play.history.complete``: a play listed twice, a play of no one's here, or a play missing
   that is not the newest;
2. ``<game>.last_unit``: the play just made is not listed (the last unit is not recorded);
3. ``play.history.order``: every play there once, but not newest first (an entry out of place
   is reported as order, never as missing).

Then the account plays on, still in turn and each play finished with AUTO, up to
``history_plays`` plays (setting: 37 quick, 117 full, counts no page size divides): a history
read from its store a page at a time shows its faults only in a listing longer than a page
(a red team's vendor lost the 11th newest play of every listing of more than 10 and was
CERTIFIED by listings of 8). The whole listing, asked with an explicit ``limit`` above the
count, is judged as above; then ``limit`` 1, 2, 3 and every usual page size, one less and one
more (9 to 11, 19 to 21, 24 to 26, 49 to 51, 99 to 101) below the count, and the count itself,
must give the first that many entries of the whole listing (``play.history.limit``). After
about half the first plays (drawn from the run's seed) the listing is asked with ``limit``
exactly the number of plays made rather than 50: a page trimmed as if it held one more
(``len(rows) >= limit``) loses the oldest play only there (``tests/faulty/
_round13_surface_faults.py``; the listings went below and above the count, at it by chance).

Without ``limit`` the contract gives no length: the listing must be the newest plays, newest
first (a prefix of the whole, at least the newest play), of whatever length the target chooses
(a default page of 10 or 20 is correct; docs/contract-decisions.md, ``history-default-page``).
A listing with an explicit ``limit`` above the count that stops short, at any length, is a
failure: the contract's ``limit`` asks for that many, and plays older than a page capped without
a way to page on could never be read (issue 28: completeness is judged with an explicit limit at
least the number of plays; ``play.player_sessions`` judges the same way).

A ``limit`` refused with a 4xx is a maximum of the target's own (docs/contract-decisions.md,
``history-own-limit``; the contract gives ``limit`` none): each listing is asked again at the
largest usual maximum below it the target takes (``Session.history_up_to``) and judged as the
newest that many plays, exactly; the limits then asked are below it, so a refusal there (a
floor) fails ``play.history.limit``, as does a history that takes no usual maximum down to 10.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from contract import ErrorReply

from .._registry import CheckContext, CheckFailure, Evidence, NotSupported, check
from ..games import kit
from . import _scenarios as sc
from ._session import session

COMPLETE = "play.history.complete"
ORDER = "play.history.order"
LIMIT = "play.history.limit"
LISTING = 50  # the limit of the full listing: more than the plays of one scenario
LIMITS = (1, 2, 3)
#: usual page sizes: a listing of one more or one less than a page shows an off-by-one
PAGE_SIZES = (10, 20, 25, 50, 100)


def last_unit(game: str) -> str:
    """``<game>.<article>.last_unit``: the history article of ``game``'s kit."""
    return f"{kit(game).history_article}.last_unit"


def _ids(listing: list[dict[str, Any]]) -> list[str]:
    return [p["play_id"] for p in listing]


def judge_listing(
    sold: list[str], listed: list[str], limit: int | None = None
) -> tuple[str | None, str]:
    """Which history requirement ``listed`` breaks, the plays ``sold`` (oldest first) being
    the account's and ``limit`` the one the listing was asked with (None: the whole): (requirement
    or None, what was seen). The newest ``limit`` plays must be there, newest first, and no
    more; ``last_unit`` stands for the game's ``<game>.last_unit``."""
    newest = sold if limit is None else sold[-limit:]
    counts = Counter(listed)
    twice = sorted(p for p, n in counts.items() if n > 1)
    if twice:
        return COMPLETE, f"play(s) {twice} listed {max(counts.values())} times"
    strangers = [p for p in listed if p not in set(sold)]
    if strangers:
        return COMPLETE, f"play(s) {strangers[:3]} listed that this account never made"
    if limit is not None and len(listed) > limit:
        return LIMIT, f"limit={limit} gave {len(listed)} entries"
    missing = [p for p in newest if p not in counts]
    if missing and missing != [sold[-1]]:
        earlier = [p for p in missing if p != sold[-1]]
        among = "" if len(newest) == len(sold) else f" of the newest {len(newest)}"
        return COMPLETE, f"{len(earlier)} earlier play(s){among} missing, e.g. {earlier[0]}"
    if missing:
        return "last_unit", f"the play just made ({sold[-1]}) is not in the history"
    newest_first = newest[::-1]
    if listed != newest_first:
        where = next(i for i, (a, b) in enumerate(zip(listed, newest_first, strict=True)) if a != b)
        return ORDER, (
            f"every play is listed once, but entry {where} is {listed[where]} where the "
            f"newest-first order puts {newest_first[where]}"
            + (" (the listing is oldest first)" if listed == newest and len(newest) > 1 else "")
        )
    return None, ""


def scenario_history_listing(
    session: sc.Session,
    case: Mapping[str, Any],
) -> Evidence | None:
    """``plays`` plays over ``pairs`` in turn on one account, each finished with AUTO; after
    each, the listing is complete, its newest entry the play just made, newest first; then
    more plays up to ``long_plays`` (default ``plays``), the whole listing judged alike, and
    ``limits_to_ask`` give the newest that many (``requirement`` in the evidence input)."""
    pairs = [(g, s) for g, s in case["pairs"]]
    plays = int(case["plays"])
    long_plays = max(plays, int(case.get("long_plays", plays)))
    account = session.open(max(s for _, s in pairs) * long_plays * 3)
    at_count = _at_count(case, plays)
    sold: list[str] = []
    listing: list[dict[str, Any]] = []
    for n in range(plays):
        game, stake = pairs[n % len(pairs)]
        played = session.play(account, game, stake)
        sold.append(played["play_id"])
        session.auto(account, played["play_id"])
        wanted = len(sold) if n in at_count else LISTING
        got = _newest(session, case, account, wanted)
        if isinstance(got, Evidence):
            return got
        listing, asked = got
        requirement, seen = judge_listing(sold, _ids(listing), asked)
        if requirement is not None:
            if requirement == "last_unit":
                requirement = last_unit(game)
            return sc.evidence(
                {**case, "requirement": requirement},
                {"plays": sold[::-1][:asked]},
                {"plays": _ids(listing)},
                f"after play {n + 1} ({game} at {stake} cents): {seen}",
                {"operation": "history", "limit": asked, "after": played["play_id"]},
            )
    for n in range(plays, long_plays):
        game, stake = pairs[n % len(pairs)]
        played = session.play(account, game, stake)
        sold.append(played["play_id"])
        session.auto(account, played["play_id"])
    got = _newest(session, case, account, len(sold) + 7)  # an explicit limit above the count
    if isinstance(got, Evidence):
        return got
    listing, asked = got
    requirement, seen = judge_listing(sold, _ids(listing), asked)
    if requirement is not None:
        if requirement == "last_unit":
            requirement = last_unit(pairs[(len(sold) - 1) % len(pairs)][0])
        return sc.evidence(
            {**case, "requirement": requirement},
            {"plays": sold[::-1][:asked]},
            {"plays": _ids(listing)},
            f"the listing of {len(sold)} plays (limit {asked}): {seen}",
            {"operation": "history", "limit": asked},
        )
    default = _ids(session.history(account, None))
    if not _newest_prefix(sold, default):
        return sc.evidence(
            {**case, "requirement": ORDER if set(default) <= set(sold) else COMPLETE},
            {"plays": f"a newest-first prefix of {sold[::-1]}, at least one entry"},
            {"plays": default},
            f"the listing without limit ({len(default)} entries) is not the newest plays "
            f"first, of the {len(sold)} the account made",
            {"operation": "history", "limit": None},
        )
    return _judge_limits(session, case, account, _ids(listing), asked)


def _at_count(case: Mapping[str, Any], plays: int) -> set[int]:
    """The plays (0-based) after which the listing is asked with ``limit`` exactly the number
    of plays made, not ``LISTING``: about half of them, drawn from the case's seed (a listing
    trimmed wrong at exactly its limit is met whatever the count; the others stay above it)."""
    rng = random.Random(f"{case.get('seed')}:history:at_count")
    return {n for n in range(plays) if rng.random() < 0.5}


def _newest(
    session: sc.Session, case: Mapping[str, Any], account: sc.Account, wanted: int
) -> tuple[list[dict[str, Any]], int] | Evidence:
    """The listing asked with ``wanted`` and that limit; or, ``wanted`` refused with a 4xx
    (a maximum of the target's own: rows ``limit-far-out``, ``history-own-limit``), the listing
    at the largest usual maximum it takes and that maximum (``Session.history_up_to``). Every
    usual maximum down to the smallest refused too: the evidence of ``play.history.limit``
    (a page of ``OWN_LIMITS[-1]`` is the smallest maximum the suite takes for one)."""
    try:
        listing, own = session.history_up_to(account, wanted)
    except ErrorReply as refusal:
        if not 400 <= refusal.status < 500:
            raise
        smallest = sc.OWN_LIMITS[-1]
        return sc.evidence(
            {**case, "requirement": LIMIT},
            {"limit": f"{wanted}, or a maximum of the target's own of at least {smallest}"},
            sc.reply_doc(refusal),
            f"limit={wanted} refused ({refusal.status}), and every usual maximum below it down "
            f"to {smallest} too: a history that lists no page of {smallest} plays",
            {"operation": "history", "limit": min(wanted, smallest)},
        )
    return listing, wanted if own is None else own


def _newest_prefix(sold: list[str], listed: list[str]) -> bool:
    """``listed`` is the newest ``len(listed)`` plays of ``sold`` (oldest first), newest
    first, and holds at least the newest play (contract 4: a play shows as soon as bought)."""
    return bool(listed) and listed == sold[::-1][: len(listed)]


def limits_to_ask(count: int) -> list[int]:
    """``LIMITS``, then each of ``PAGE_SIZES`` and its neighbours, below ``count`` plays, then
    ``count`` itself (a listing asked for exactly the plays there are)."""
    around = (size + d for size in PAGE_SIZES for d in (-1, 0, 1))
    below = [*LIMITS, *sorted({n for n in around if n < count and n not in LIMITS})]
    return [n for n in below if n < count] + [count]


def _judge_limits(
    session: sc.Session,
    case: Mapping[str, Any],
    account: sc.Account,
    whole: list[str],
    answered: int,
) -> Evidence | None:
    """``limit`` n gives the first n entries of the ``whole`` listing (asked with the limit
    ``answered``), for every n of ``limits_to_ask``. Each n is below ``answered``: a refusal
    is no maximum of the target's own, which refuses the limits above it only."""
    for limit in limits_to_ask(len(whole)):
        try:
            got = _ids(session.history(account, limit))
        except ErrorReply as refusal:
            if not 400 <= refusal.status < 500:
                raise
            return sc.evidence(
                {**case, "requirement": LIMIT},
                {"plays": whole[:limit]},
                sc.reply_doc(refusal),
                f"limit={limit} refused ({refusal.status}) where limit={answered} was "
                f"answered: a maximum of the target's own refuses only the limits above it",
                {"operation": "history", "limit": limit},
            )
        want = whole[:limit]
        if got != want:
            lost = [p for p in want if p not in got]
            if len(got) > limit:
                more = f"{len(got)} entries"
            elif lost:
                more = f"{len(got)} entries, without {lost[:3]}"
            else:
                more = f"entries {got}"
            return sc.evidence(
                {**case, "requirement": LIMIT},
                {"plays": want},
                {"plays": got},
                f"limit={limit} gave {more}; the newest {limit} are the first {limit} of the "
                f"listing of {len(whole)} (limit {answered})",
                {"operation": "history", "limit": limit},
            )
    return None


sc.SCENARIOS["history_listing"] = scenario_history_listing


@check(
    "play.history_listing",
    covers=[COMPLETE, ORDER, LIMIT],
    per_game=lambda kit: [f"{kit.history_article}.last_unit"],
    capability="play",
    cost="long",
)
def history_listing(ctx: CheckContext) -> None:
    """One account plays every (game, stake) in scope in turn, each play finished with AUTO:
    after each play the history lists every play once, the newest entry is the play just
    made, newest first; after ``history_plays`` plays the whole listing does too, and
    ``limit`` 1, 2, 3 and each usual page size and its neighbours give the newest that many."""
    pairs = [[g, s] for g in ctx.games() for s in ctx.stakes(g)]
    if not pairs:
        raise NotSupported("no game and stake in this run's scope")
    plays = max(6, min(12, len(pairs) * 2))
    long_plays = max(plays, ctx.settings.history_plays)
    case = sc.case_of(
        "history_listing", pairs=pairs, plays=plays, long_plays=long_plays, seed=ctx.seed
    )

    found = scenario_history_listing(session(ctx), case)
    ctx.details["plays"] = long_plays
    ctx.details["listings_judged_after_each_play"] = plays
    if found is not None:
        raise CheckFailure(
            f"the history listing: {found.note}",
            [found],
            requirements=(str(found.input["requirement"]),),
        )
