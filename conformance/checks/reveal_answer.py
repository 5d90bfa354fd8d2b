"""What a reveal answer carries (contract 4), for every game whose engine has buttons: the
button clicked, and the symbol, X2 and +1 of that reveal exactly as the ticket holds them.

Buttons are clicked in turn, each as many times as the ticket has reveals under it, and
every answer is compared with the ticket (the history's, else the served block's, else
AUTO's). The symbol may be named (robots: ``blue_diamond``) or given as its letter (``D``),
as the game's engine lists them (``reveal_symbols``), see docs/contract-decisions.md. A
difference that is a fixed misreport (a symbol always answered as the same other letter, an
X2 or +1 always answered the same way) is this requirement's; any other difference, with
buttons clicked in turn, is a wrong reveal (the kit's ``reveals.symbols``: robots 4.3). A
click the ticket allows but the target refuses (409) is the +1 rule's to judge and ends that
button here. One check per game with buttons: ``play.<game>_reveal_answer``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import reference
from contract import ErrorReply

from .._registry import CheckContext, Evidence, check
from ..games import GameKit, each_kit
from . import _scenarios as sc
from ._session import session
from .play import failure, plays_per_stake
from .play_reveal import first_stake

MAX_PLAYS = 4


def scenario_reveal_answer(session: sc.Session, case: Mapping[str, Any]) -> Evidence | None:
    """``plays`` plays of a game with buttons, buttons clicked in turn as often as the ticket
    allows: each answer names the button clicked and the ticket's symbol, X2 and +1 of that
    reveal."""
    game = sc.game_of(case)
    symbols = sc.requirements_of(game).symbols
    stake = case["stake_cents"]
    account = session.open(stake * int(case["plays"]) * 3)
    for _ in range(int(case["plays"])):
        played = session.play(account, game, stake)
        truth, source = session.truth(account, played)
        want = sc.ticket_buttons(game, truth) if truth is not None else None
        got: list[list[tuple[str, bool, bool]]] = []
        raw: list[list[Any]] = []
        buttons = len(want) if want is not None else reference.game_engine(game).buttons
        for button in range(buttons):
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
                got[-1].append(sc.reveal_tuple(game, reply, button))
                raw[-1].append(reply)
        if want is None:
            truth, _ = session.auto(account, played["play_id"])
            want, source = sc.ticket_buttons(game, truth), "auto"
            if want is None:
                return sc.evidence(
                    case, f"a valid {game} ticket", truth, "AUTO shows an invalid ticket"
                )
        for button, answers in enumerate(got):
            for click, answer in enumerate(answers):
                if click < len(want[button]) and answer == want[button][click]:
                    continue
                held = want[button][click] if click < len(want[button]) else None
                requirement = sc.REVEAL_ANSWER if sc.misreported(want, got) else symbols
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


def reveal_answer(ctx: CheckContext, game: str) -> None:
    """Buttons clicked in turn on a few plays: every reveal answer names the button clicked
    and carries the symbol (name or letter), X2 and +1 exactly as the ticket holds them."""
    plays = min(MAX_PLAYS, plays_per_stake(ctx, game))
    case = sc.reveal_case("reveal_answer", game, stake_cents=first_stake(ctx, game), plays=plays)
    found = scenario_reveal_answer(session(ctx), case)
    ctx.details["plays"] = plays
    if found is not None:
        raise failure("a reveal answer", [found], sc.REVEAL_ANSWER)


def _register(game_kit: GameKit) -> None:
    """``play.<game>_reveal_answer`` for a game with buttons (``GameKit.reveals``)."""
    if game_kit.reveals is None:
        return
    game = game_kit.name

    def run(ctx: CheckContext) -> None:
        reveal_answer(ctx, game)

    run.__doc__ = reveal_answer.__doc__
    check(
        f"play.{game}_reveal_answer",
        covers=[sc.REVEAL_ANSWER],
        capability="reveal",
        games=(game,),
        cost="long",
    )(run)


each_kit(_register)
