"""AUTO at any moment of the reveal protocol (robots 4.4; R-I5), for any game with buttons
(``clicks``): after any clicks in any order, AUTO shows the unit bought and its lot, and
leaves nothing to reveal."""

from __future__ import annotations

from contract import ErrorReply

from ..._registry import Evidence
from .clicks import clicked_then_auto
from .client import Case, Session, evidence, ref_prize, refused, reply_doc, ticket_buttons


def scenario_auto(session: Session, case: Case) -> Evidence | None:
    """After ``case["stop"]`` clicks in the order chosen, AUTO shows the ticket bought and its
    lot (whether the clicks showed that ticket's reveals is reveal_order's to judge)."""
    c = clicked_then_auto(session, case, case["stop"])
    game, stake, account, played, done, case = c.game, c.stake, c.account, c.played, c.done, c.case
    truth, source, ticket, prize = c.truth, c.source, c.ticket, c.prize
    request = {"operation": "auto", "play_id": played["play_id"], "after_clicks": done.clicks}
    lot = ref_prize(game, stake, ticket)
    if truth is not None and ticket != truth:
        return evidence(
            case,
            {"ticket": truth},
            {"ticket": ticket},
            f"AUTO after {len(done.clicks)} click(s) shows another ticket than the "
            f"{source} showed when the play was bought",
            request,
        )
    if lot is None or prize != lot:
        return evidence(
            case,
            {"ticket": ticket, "prize_cents": lot},
            {"prize_cents": prize},
            "AUTO's prize is not its ticket's lot",
            request,
        )
    # AUTO finished the play (robots 4.4: "the rest revealed"): a button that had something
    # left before AUTO has nothing left after it
    buttons = ticket_buttons(game, ticket) or []
    left = [b for b, shows in enumerate(buttons) if done.clicks.count(b) < len(shows)]
    if not left:
        return None
    # a button of one reveal if any: a +1 button's extra click is the +1 rule's to judge
    button = min(left, key=lambda b: (len(buttons[b]) > 1, b))
    after = refused(lambda: session.adapter.reveal(played["play_id"], account.token, button))
    if not isinstance(after, ErrorReply) or after.status != 409:
        return evidence(
            case,
            "409: nothing left to reveal once AUTO has revealed the rest",
            reply_doc(after),
            f"after AUTO, a click on button {button} was "
            + ("accepted" if not isinstance(after, ErrorReply) else f"refused {after.status}"),
            {**request, "then": {"operation": "reveal", "button": button}},
        )
    return None
