"""The +1 rule of the reveal protocol (robots 4.7; R-I4), for any game with buttons
(``clicks``): a reveal with +1 allows exactly one more click on its button, one without it
allows none (409)."""

from __future__ import annotations

from functools import partial

import reference
from contract import ContractBreach, ErrorReply

from ..._registry import Evidence
from .clicks import Shown, game_of
from .client import (
    MAX_CLICKS,
    REVEAL_ANSWER,
    Case,
    Session,
    _funded,
    evidence,
    refused,
    reply_doc,
    reveal_tuple,
    ticket_buttons,
)


def scenario_plus_one(session: Session, case: Case) -> Evidence | None:
    """Buttons in turn: a reveal with +1 allows one more click, one without it allows none
    (409), for ``case["plays"]`` plays."""
    game = game_of(case)
    stake = case["stake_cents"]
    account = _funded(session, stake, case["plays"])
    for _ in range(case["plays"]):
        played = session.play(account, game, stake)
        play_id = played["play_id"]
        truth, _ = session.truth(account, played)
        held = ticket_buttons(game, truth) if truth is not None else None
        for button in range(reference.game_engine(game).buttons):
            reveals: list[Shown] = []
            while len(reveals) < MAX_CLICKS:
                reply = refused(partial(session.adapter.reveal, play_id, account.token, button))
                request = {
                    "operation": "reveal",
                    "play_id": play_id,
                    "button": button,
                    "click": len(reveals) + 1,
                }
                is_409 = isinstance(reply, ErrorReply) and reply.status == 409
                exhausted = bool(reveals) and not reveals[-1][2]
                if isinstance(reply, ErrorReply) and not is_409:
                    if not exhausted or not 400 <= reply.status < 500:
                        raise reply
                    # refused, as it must be, but not with the status the contract fixes
                    raise ContractBreach(
                        "protocol.refusals.status",
                        f"a click on button {button}, which has nothing left to reveal, was "
                        f"refused with {reply.status} {reply.code}; the contract fixes 409",
                        {"operation": "reveal", **reply_doc(reply), "expected": {"status": 409}},
                    )
                if exhausted:  # the last reveal had no +1
                    if not is_409:
                        # the ticket holds a +1 there: the answer dropped it, the protocol
                        # is right (play.reveal.answer's fault)
                        dropped = held is not None and len(held[button]) > len(reveals)
                        return evidence(
                            {**case, "requirement": REVEAL_ANSWER} if dropped else case,
                            {"status": 409},
                            reply_doc(reply),
                            f"button {button} was clicked again after a reveal "
                            "without +1, and revealed",
                            request,
                        )
                    break
                if is_409:
                    return evidence(
                        case,
                        "the next reveal of the button",
                        reply_doc(reply),
                        f"click {len(reveals) + 1} on button {button} was refused "
                        + (
                            "although the +1 above it allowed it"
                            if reveals
                            else "although it was never clicked"
                        ),
                        request,
                    )
                reveals.append(reveal_tuple(game, reply, button))
    return None
