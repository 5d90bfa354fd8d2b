"""Clicks sent at the same moment (a double click, two open tabs): each reveal is handed out
once, whichever order the target gives the clicks it got together (R-I5, robots 4.7), for any
game with buttons (``clicks``)."""

from __future__ import annotations

from functools import partial

from contract import ErrorReply

from ..._pool import map_in_order
from ..._registry import Evidence
from .clicks import Shown, click, game_of, game_of_play
from .client import (
    MAX_CLICKS,
    Account,
    Case,
    Document,
    Session,
    _funded,
    evidence,
    refused,
    reveal_tuple,
    ticket_buttons,
)

CONCURRENT_CLICKS = 2  # clicks sent at the same moment on each button (a double click)


def _clicked(
    session: Session, account: Account, play_id: str, buttons: int, together: int
) -> list[list[Shown]]:
    """Each button's reveals when every button is clicked ``CONCURRENT_CLICKS`` times, button
    after button, ``together`` clicks at a time (1: one after another), then each in turn
    until it is refused (409)."""
    game = game_of_play(session, play_id)
    clicks = [b for b in range(buttons) for _ in range(CONCURRENT_CLICKS)]

    def at_once(button: int) -> ErrorReply | Document:
        return refused(partial(session.adapter.reveal, play_id, account.token, button))

    replies = map_in_order(at_once, clicks, together) if together > 1 else map(at_once, clicks)
    got: list[list[Shown]] = [[] for _ in range(buttons)]
    for button, reply in zip(clicks, replies, strict=True):
        if isinstance(reply, ErrorReply):
            if reply.status != 409:
                raise reply
            continue
        got[button].append(reveal_tuple(game, reply, button))
    for button in range(buttons):
        while len(got[button]) <= MAX_CLICKS:
            doc = click(session, account, play_id, button)
            if doc is None:
                break
            got[button].append(reveal_tuple(game, doc, button))
    return got


def _differs(want: list[list[Shown]], got: list[list[Shown]]) -> int | None:
    """The first button holding a single reveal (no +1) whose reveals are not exactly that
    one, or None. The buttons with a +1 are left out: how many clicks they take is the +1
    rule's (``plus_one``), whose faults look the same (a reveal shown again) without any
    race, and the second play cannot have the same +1s to tell them apart."""
    return next(
        (b for b in range(len(want)) if len(want[b]) == 1 and got[b] != want[b]),
        None,
    )


def scenario_reveal_concurrent(session: Session, case: Case) -> Evidence | None:
    """Clicks sent at the same moment, as a double click or two open tabs send them: every
    button of a play clicked ``CONCURRENT_CLICKS`` times in a row, ``case["workers"]`` clicks
    in flight at once (the run's ``scenario_workers``: no more requests at once than any
    other check sends), then each clicked in turn until it is refused (409). Each reveal is
    handed out once: a button's reveals are exactly the ticket's under it, none shown twice,
    none lost (R-I5, 4.7), whichever order the target gave the clicks it got together.

    Only a fault of clicks at once is judged here, on the buttons that hold a single reveal
    (``_differs``): when the same clicks sent one after another on a second play go wrong
    too, the protocol is wrong without any race, and the reveal-order and +1 checks name that
    (None). With ``scenario_workers`` 1 no clicks are sent at once (None)."""
    game = game_of(case)
    stake = case["stake_cents"]
    account = _funded(session, stake, 2)
    played = session.play(account, game, stake)
    truth, source = session.truth(account, played)
    want = ticket_buttons(game, truth) if truth is not None else None
    if want is None:
        return None  # an invalid ticket: the other reveal scenarios name that fault
    at_once = int(case.get("workers", 8))
    if at_once < CONCURRENT_CLICKS:
        return None  # scenario_workers 1: this run sends no two requests at once
    got = _clicked(session, account, played["play_id"], len(want), together=at_once)
    button = _differs(want, got)
    if button is None:
        return None
    control = session.play(account, game, stake)
    control_truth, _ = session.truth(account, control)
    control_want = ticket_buttons(game, control_truth) if control_truth is not None else None
    if control_want is None:
        return None
    alone = _clicked(session, account, control["play_id"], len(control_want), together=1)
    if _differs(control_want, alone) is not None:
        return None  # wrong one click after another too: not a race
    return evidence(
        case,
        {"button": button, "reveals": want[button], "ticket": truth},
        {"button": button, "reveals": got[button]},
        f"with every button clicked {CONCURRENT_CLICKS} times, {at_once} clicks at once, "
        f"button {button} revealed "
        f"{len(got[button])} symbols for the {len(want[button])} the ticket (from the "
        f"{source}) holds under it, or others: a reveal shown twice or lost (the same clicks "
        "one after another, on play " + repr(control["play_id"]) + ", revealed right)",
        {
            "operation": "reveal",
            "play_id": played["play_id"],
            "clicks": f"every button {CONCURRENT_CLICKS} times, {at_once} at once, then each "
            "in turn",
        },
    )
