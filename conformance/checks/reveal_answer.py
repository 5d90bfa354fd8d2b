"""What a reveal answer carries (contract 4, robots only): the button clicked, and the
symbol, X2 and +1 of that reveal exactly as the ticket holds them.

Buttons are clicked in turn, each as many times as the ticket has reveals under it, and
every answer is compared with the ticket (the history's, else the served block's, else
AUTO's). The symbol may be named (``blue_diamond``) or given as its letter (``D``), see
docs/contract-decisions.md. A difference that is a fixed misreport (a symbol always answered
as the same other letter, an X2 or +1 always answered the same way) is this requirement's;
any other difference, with buttons clicked in turn, is a wrong reveal
(``robots.4.3.reveal_symbols``). A click the ticket allows but the target refuses (409) is
``robots.4.7.reveal_plus_one``'s to judge and ends that button here.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from contract import ErrorReply

from .._registry import CheckContext, Evidence, check
from . import _scenarios as sc
from .play import failure, plays_per_stake
from .play_reveal import robots_stake

ROBOTS = "robots"  # the reveal protocol checked here is robots' own (robots 4.3)
MAX_PLAYS = 4


def scenario_reveal_answer(session: sc.Session, case: Mapping[str, Any]) -> Evidence | None:
    """``plays`` robots plays, buttons clicked in turn as often as the ticket allows: each
    answer names the button clicked and the ticket's symbol, X2 and +1 of that reveal."""
    stake = case["stake_cents"]
    account = session.open(stake * int(case["plays"]) * 3)
    for _ in range(int(case["plays"])):
        played = session.play(account, ROBOTS, stake)
        truth, source = session.truth(account, played)
        want = sc.ticket_buttons(ROBOTS, truth) if truth is not None else None
        got: list[list[tuple[str, bool, bool]]] = []
        raw: list[list[Any]] = []
        for button in range(len(want) if want is not None else 18):
            got.append([])
            raw.append([])
            clicks = len(want[button]) if want is not None else sc.MAX_CLICKS
            for _click in range(clicks):
                reply = sc.refused(
                    partial(session.adapter.reveal, played["play_id"], account.token, button)
                )
                if isinstance(reply, ErrorReply):
                    if reply.status != 409:
                        raise reply
                    break
                got[-1].append(sc.reveal_tuple(ROBOTS, reply, button))
                raw[-1].append(reply)
        if want is None:
            truth, _ = session.auto(account, played["play_id"])
            want, source = sc.ticket_buttons(ROBOTS, truth), "auto"
            if want is None:
                return sc.evidence(
                    case, "a valid robots ticket", truth, "AUTO shows an invalid ticket"
                )
        for button, answers in enumerate(got):
            for click, answer in enumerate(answers):
                if click < len(want[button]) and answer == want[button][click]:
                    continue
                held = want[button][click] if click < len(want[button]) else None
                requirement = (
                    sc.REVEAL_ANSWER if sc.misreported(want, got) else "robots.4.3.reveal_symbols"
                )
                return sc.evidence(
                    {**case, "requirement": requirement},
                    {"button": button, "symbol_x2_plus_one": held, "ticket": truth},
                    {"answer": raw[button][click]},
                    f"click {click + 1} on button {button}: the ticket (from the {source}) "
                    f"holds {held}, the answer says {raw[button][click]}",
                    {"operation": "reveal", "play_id": played["play_id"], "button": button},
                )
    return None


sc.SCENARIOS["reveal_answer"] = scenario_reveal_answer


@check(
    "play.robots_reveal_answer",
    covers=[sc.REVEAL_ANSWER],
    capability="reveal",
    games=(ROBOTS,),
    cost="long",
)
def reveal_answer(ctx: CheckContext) -> None:
    """Buttons clicked in turn on a few plays: every reveal answer names the button clicked
    and carries the symbol (name or letter), X2 and +1 exactly as the ticket holds them."""
    plays = min(MAX_PLAYS, plays_per_stake(ctx, ROBOTS))
    case = sc.case_of("reveal_answer", stake_cents=robots_stake(ctx), plays=plays)
    found = scenario_reveal_answer(sc.Session.of(ctx.adapter, ctx.implementation), case)
    ctx.details["plays"] = plays
    if found is not None:
        raise failure("a reveal answer", [found], sc.REVEAL_ANSWER)
