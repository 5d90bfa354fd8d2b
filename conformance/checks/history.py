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

Then ``limit`` 1, 2 and 3 must give the first 1, 2, 3 entries of the full listing
(``play.history.limit``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from .._registry import CheckContext, CheckFailure, Evidence, NotSupported, check
from ..games import kit
from . import _scenarios as sc

COMPLETE = "play.history.complete"
ORDER = "play.history.order"
LIMIT = "play.history.limit"
LISTING = 50  # the limit of the full listing: more than the plays of one scenario
LIMITS = (1, 2, 3)


def last_unit(game: str) -> str:
    """``<game>.<article>.last_unit``: the history article of ``game``'s kit."""
    return f"{kit(game).history_article}.last_unit"


def _ids(listing: list[dict[str, Any]]) -> list[str]:
    return [p["play_id"] for p in listing]


def judge_listing(sold: list[str], listed: list[str]) -> tuple[str | None, str]:
    """Which history requirement ``listed`` breaks, the plays ``sold`` (oldest first) being
    the account's: (requirement or None, what was seen). ``last_unit`` stands for the game's
    ``<game>.last_unit``."""
    counts = Counter(listed)
    twice = sorted(p for p, n in counts.items() if n > 1)
    if twice:
        return COMPLETE, f"play(s) {twice} listed {max(counts.values())} times"
    strangers = [p for p in listed if p not in set(sold)]
    if strangers:
        return COMPLETE, f"play(s) {strangers[:3]} listed that this account never made"
    missing = [p for p in sold if p not in counts]
    if missing and missing != [sold[-1]]:
        earlier = [p for p in missing if p != sold[-1]]
        return COMPLETE, f"{len(earlier)} earlier play(s) missing, e.g. {earlier[0]}"
    if missing:
        return "last_unit", f"the play just made ({sold[-1]}) is not in the history"
    newest_first = sold[::-1]
    if listed != newest_first:
        where = next(i for i, (a, b) in enumerate(zip(listed, newest_first, strict=True)) if a != b)
        return ORDER, (
            f"every play is listed once, but entry {where} is {listed[where]} where the "
            f"newest-first order puts {newest_first[where]}"
            + (" (the listing is oldest first)" if listed == sold and len(sold) > 1 else "")
        )
    return None, ""


def scenario_history_listing(session: sc.Session, case: Mapping[str, Any]) -> Evidence | None:
    """``plays`` plays over ``pairs`` in turn on one account, each finished with AUTO; after
    each, the listing is complete, its newest entry the play just made, newest first; then
    ``limit`` 1, 2, 3 give the newest 1, 2, 3 (``requirement`` in the evidence input)."""
    pairs = [(g, s) for g, s in case["pairs"]]
    plays = int(case["plays"])
    account = session.open(max(s for _, s in pairs) * plays * 3)
    sold: list[str] = []
    listing: list[dict[str, Any]] = []
    for n in range(plays):
        game, stake = pairs[n % len(pairs)]
        played = session.play(account, game, stake)
        sold.append(played["play_id"])
        session.auto(account, played["play_id"])
        listing = session.history(account, LISTING)
        requirement, seen = judge_listing(sold, _ids(listing))
        if requirement is not None:
            if requirement == "last_unit":
                requirement = last_unit(game)
            return sc.evidence(
                {**case, "requirement": requirement},
                {"plays": sold[::-1]},
                {"plays": _ids(listing)},
                f"after play {n + 1} ({game} at {stake} cents): {seen}",
                {"operation": "history", "limit": LISTING, "after": played["play_id"]},
            )
    for limit in LIMITS:
        got = _ids(session.history(account, limit))
        want = _ids(listing)[:limit]
        if got != want:
            more = f"{len(got)} entries" if len(got) > limit else f"entries {got}"
            return sc.evidence(
                {**case, "requirement": LIMIT},
                {"plays": want},
                {"plays": got},
                f"limit={limit} gave {more}; the newest {limit} are {want}",
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
    made, newest first; ``limit`` 1, 2 and 3 give the newest 1, 2 and 3."""
    pairs = [[g, s] for g in ctx.games() for s in ctx.stakes(g)]
    if not pairs:
        raise NotSupported("no game and stake in this run's scope")
    plays = max(6, min(12, len(pairs) * 2))
    case = sc.case_of("history_listing", pairs=pairs, plays=plays)
    found = scenario_history_listing(sc.Session.of(ctx.adapter, ctx.implementation), case)
    ctx.details["plays"] = plays
    if found is not None:
        raise CheckFailure(
            f"the history listing: {found.note}",
            [found],
            requirements=(str(found.input["requirement"]),),
        )
