"""History scenario (robots 4.1, eldorado 4.2): a play is listed at once, unrevealed."""

from __future__ import annotations

from ..._pool import map_in_order, split
from ..._registry import Evidence
from .client import (
    Case,
    Session,
    _funded,
    evidence,
    ref_prize,
)


def scenario_history_unrevealed(session: Session, case: Case) -> Evidence | None:
    """A play is in the history at once, unrevealed, with a valid ticket and its prize (read one
    time in two without a limit, as an app reads it, else with one); AUTO
    later shows that same ticket and prize, and the history still does. The plays are split
    over ``case["accounts"]`` accounts (default 1) played side by side; the first evidence,
    in account order, is the scenario's."""
    parts = split(case["plays"], max(1, int(case.get("accounts", 1))))
    found = map_in_order(lambda plays: _history_of(session, case, plays), parts, len(parts))
    return next((e for e in found if e is not None), None)


def _history_of(session: Session, case: Case, plays: int) -> Evidence | None:
    """``plays`` plays of one new account, each judged as ``scenario_history_unrevealed`` says."""
    game, stake = case["game"], case["stake_cents"]
    account = _funded(session, stake, plays)
    keys = ("game", "stake_cents", "block_id", "index")
    for number in range(plays):
        played = session.play(account, game, stake)
        play_id = played["play_id"]
        # read one time in two as an app reads it, without a limit (a history right only when
        # asked with one, a sixth red team's, was CERTIFIED), else with a page of 10
        limit = None if number % 2 == 0 else 10
        request = {
            "operation": "history",
            "account_id": account.account_id,
            "after": play_id,
            "limit": limit,
        }
        entry = session.entry(account, play_id, limit)
        if entry is None:
            return evidence(
                case,
                f"play {play_id} in the history",
                "absent",
                "a play bought and never revealed is missing from the history",
                request,
            )
        want = {k: played[k] for k in keys}
        got = {k: entry.get(k) for k in keys}
        ticket, prize = entry.get("ticket"), entry.get("prize_cents")
        lot = ref_prize(game, stake, ticket) if isinstance(ticket, str) else None
        if got != want or lot is None or prize != lot:
            return evidence(
                case,
                {**want, "ticket": "a valid ticket", "prize_cents": lot},
                entry,
                "the unrevealed play's history entry does not show the play bought, "
                "with a valid ticket and that ticket's prize",
                request,
            )
        shown = session.auto(account, play_id)
        again = session.entry(account, play_id)
        seen_later = None if again is None else (again.get("ticket"), again.get("prize_cents"))
        if shown != (ticket, prize) or seen_later != (ticket, prize):
            return evidence(
                case,
                {"ticket": ticket, "prize_cents": prize},
                {"auto": list(shown), "history_after_auto": seen_later},
                "the history showed one unit before the reveal, AUTO or the history another "
                "after it",
                {"operation": "auto", "play_id": play_id},
            )
    return None
