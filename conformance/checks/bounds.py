"""Parameters at and past their bounds (issue 27 item 3): what a player's client sends wrong,
or what a long-lived account reaches, and the contract still fixes.

- ``play.reveal_bounds`` (``play.reveal.bounds``): a reveal names a button 0..17 (contract 4:
  body ``{"button": 0..17}``, robots 4.2's 18 buttons): -1, 18 and numbers far out (10**6,
  2**31, 2**63, and one of them negative) are refused with a 4xx and reveal nothing (each
  button then still shows its first reveal); a reveal on a play of a game without buttons
  (eldorado: "the next reveal under that button (robots only)") is refused with a 4xx.
- ``play.money_bounds`` (``play.money.exact``): balances past 2^53 cents (odd, so a double
  cannot hold them) are held exactly, opened and played from, or refused with a 4xx (a limit
  of the target's own, as ``play.money_exact`` reads one); never rounded.
- ``play.limit_bounds`` (``play.history.limit``): ``limit`` far past the listing, where a
  16-, 32- or 64-bit integer ends: the whole listing, or refused with a 4xx.

Which values, and in which order, is drawn from the run's seed (``case["seed"]``); a replay
sends the same.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import partial
from typing import Any

import reference
from contract import ErrorReply

from .._registry import CheckContext, CheckFailure, Evidence, NotSupported, check
from ..games import kit
from . import _scenarios as sc
from ._session import session
from .block_slice_bounds import scenario_slice_bounds

REVEAL_BOUNDS = "play.reveal.bounds"
MONEY_EXACT = "play.money.exact"
BUTTONS = 18  # a button number asked of a game without buttons (the contract's 0..17)
FAR_BUTTONS = (10**6, 2**31, 2**63)
CONTROL_PLAYS = 8
"""Plays with no refused click, clicked in the same order, before a wrong first reveal is laid
at a refused click's door (``scenario_reveal_bounds``): a target blind to the button clicked
shows every first reveal right on a ticket whose buttons' first reveals happen to coincide in
that order (coins' two purses often do), so one such play cleared it only most of the time,
and three together, in one fast-tier run of about forty (test_third_game's button-blind
target named ``play.reveal.bounds`` beside the reveal checks). They are played only once a
refused click looks to have consumed a reveal: a correct target never pays for them."""
TWO_53 = 2**53


def _rng(case: Mapping[str, Any], what: str) -> random.Random:
    return random.Random(f"{case['seed']}:{case.get('game')}:{case.get('stake_cents')}:{what}")


# -- buttons and reveals --------------------------------------------------------------------


def _first_reveal(game: str, doc: Mapping[str, Any], button: int) -> tuple[str, bool, bool]:
    """A reveal document (the target's, or the engine's without ``button``) as a tuple."""
    return sc.reveal_tuple(game, {"button": button, **doc}, button)


def scenario_reveal_bounds(session: sc.Session, case: Mapping[str, Any]) -> Evidence | None:
    """A play of a game with buttons: numbers outside its buttons refused, none of them
    consuming a reveal; a play of a game without buttons (when one is in scope): a reveal
    refused."""
    rng = _rng(case, "buttons")
    judged = {**case, "requirement": REVEAL_BOUNDS}
    if case.get("buttonless"):
        other, other_stake = case["buttonless"]
        account = session.open(other_stake * 3)
        played = session.play(account, other, other_stake)
        button = rng.randrange(BUTTONS)
        reply = sc.refused(
            partial(session.adapter.reveal, played["play_id"], account.token, button)
        )
        session.auto(account, played["play_id"])
        if not isinstance(reply, ErrorReply):
            return sc.evidence(
                judged,
                "a refusal (4xx): a play of a game without buttons has nothing to click",
                reply,
                f"a reveal of button {button} on a play of {other} (no buttons) was answered",
                {"operation": "reveal", "game": other, "button": button},
            )
    game, stake = case["game"], case["stake_cents"]
    buttons = reference.game_engine(game).buttons
    account = session.open(stake * (2 + CONTROL_PLAYS))
    played = session.play(account, game, stake)
    wrong = [-1, buttons, *FAR_BUTTONS, -rng.choice(FAR_BUTTONS)]
    rng.shuffle(wrong)
    for button in wrong:
        reply = sc.refused(
            partial(session.adapter.reveal, played["play_id"], account.token, button)
        )
        if not isinstance(reply, ErrorReply):
            session.auto(account, played["play_id"])
            return sc.evidence(
                judged,
                f"a refusal (4xx): the buttons are 0..{buttons - 1}",
                reply,
                f"a reveal of button {button} was answered",
                {"operation": "reveal", "button": button},
            )
    order = list(range(buttons))
    rng.shuffle(order)
    consumed, _ = _first_clicks(session, account, played, game, order)
    if consumed is None:
        return None
    # a target that reveals wrongly whatever was refused (blind to the button clicked, say)
    # shows a wrong first reveal on a play with no refused click too: the reveal checks' (4.3,
    # 4.4), not a refused click's
    for _ in range(CONTROL_PLAYS):
        control = session.play(account, game, stake)
        if _first_clicks(session, account, control, game, order)[1]:
            return None
    button, first, shown = consumed
    return sc.evidence(
        judged,
        {"button": button, "first_reveal": first},
        {"button": button, "reveal": shown},
        f"after refused clicks on buttons outside 0..{buttons - 1}, button {button}'s "
        "first click did not show its first reveal (a refused click revealed something; "
        f"{CONTROL_PLAYS} plays with no refused click, clicked in the same order, showed "
        "every first reveal)",
        {"operation": "reveal", "button": button},
    )


def _first_clicks(
    session: sc.Session,
    account: sc.Account,
    played: dict[str, Any],
    game: str,
    order: list[int],
) -> tuple[tuple[int, tuple[str, bool, bool], object] | None, bool]:
    """Each button of ``order`` clicked once, in that order, then the play finished by AUTO.
    Returns the first button whose click showed one of its later reveals, or nothing left
    (``(button, its first reveal, what was shown)``, or None), and whether any click showed
    other than its button's first reveal. (None, False) when the ticket cannot be read (the
    other checks judge it)."""
    ticket, _ = session.truth(account, played)
    try:
        want = reference.game_engine(game).button_reveals(ticket) if ticket else ()
    except reference.GameError:
        want = ()
    consumed, wrong = None, False
    if len(want) == len(order):
        for button in order:
            answer = sc.refused(
                partial(session.adapter.reveal, played["play_id"], account.token, button)
            )
            first = _first_reveal(game, want[button][0], button)
            if isinstance(answer, ErrorReply):
                if answer.status != 409:
                    raise answer
                shown: object = f"refused {answer.status}: nothing left under the button"
            else:
                shown = sc.reveal_tuple(game, answer, button)
            later = [_first_reveal(game, r, button) for r in want[button][1:]]
            wrong = wrong or shown != first
            # a reveal consumed before the click when it shows a later one, or nothing
            # left; any other difference is the reveal checks' (4.3, 4.4) to judge
            past_first = shown in later or isinstance(answer, ErrorReply)
            if consumed is None and shown != first and past_first:
                consumed = (button, first, shown)
    session.auto(account, played["play_id"])
    return consumed, wrong


sc.SCENARIOS["reveal_bounds"] = scenario_reveal_bounds


@check("play.reveal_bounds", covers=[REVEAL_BOUNDS], capability="reveal")
def reveal_bounds(ctx: CheckContext) -> None:
    """Button numbers -1, one past the last and far out refused, revealing nothing; a reveal
    on a play of a game without buttons refused."""
    in_scope = [g for g in ctx.games() if ctx.stakes(g)]
    with_buttons = [g for g in in_scope if kit(g).reveals]
    if not with_buttons:
        raise NotSupported("no game with buttons in this run's scope: nothing to click")
    stakes = random.Random(f"{ctx.seed}:reveal_bounds:stakes")  # each game's: the seed's
    others = [(g, stakes.choice(ctx.stakes(g))) for g in in_scope if not kit(g).reveals]
    game = with_buttons[0]
    case = sc.case_of(
        "reveal_bounds",
        game=game,
        stake_cents=stakes.choice(ctx.stakes(game)),
        buttonless=list(others[0]) if others else None,
        seed=ctx.seed,
    )
    found = scenario_reveal_bounds(session(ctx), case)
    if found is not None:
        raise CheckFailure(found.note, [found], requirements=(REVEAL_BOUNDS,))


# -- balances past 2^53 ---------------------------------------------------------------------


def large_balances(rng: random.Random) -> list[int]:
    """Odd balances past 2^53 (no double holds them), up to a 64-bit integer's largest."""
    found = [TWO_53 + 2 * rng.randrange(1, 2**20) + 1, 2**62 + 2 * rng.randrange(2**30) + 1]
    found.append(2**63 - 1 - 2 * rng.randrange(2**10))
    return found


def scenario_money_bounds(
    session: sc.Session, case: Mapping[str, Any], refused: list[int] | None = None
) -> Evidence | None:
    """Each balance of ``large_balances``: opened and played from exactly, or refused (4xx);
    a balance refused (a limit of the target's own, not judged) goes to ``refused``."""
    game, stake = case["game"], case["stake_cents"]
    judged = {**case, "requirement": MONEY_EXACT}
    for balance in large_balances(_rng(case, "balances")):
        try:
            opened = session.adapter.open_account(balance)
        except ErrorReply as refusal:
            if 400 <= refusal.status < 500:
                if refused is not None:
                    refused.append(balance)
                continue  # a limit of the target's own: not judged
            raise
        account = sc.Account(opened["account_id"], opened["token"])
        request = {"operation": "open_account+play", "balance_cents": balance}
        if opened["balance_cents"] != balance or session.balance(account) != balance:
            return sc.evidence(
                judged,
                {"balance_cents": balance},
                {"opened": opened["balance_cents"], "read": session.balance(account)},
                f"an account opened with {balance} cents holds another balance",
                request,
            )
        try:
            played = session.play(account, game, stake)
        except ErrorReply as refusal:
            if 400 <= refusal.status < 500:
                if refused is not None:
                    refused.append(balance)
                continue
            raise
        ticket, shown = session.auto(account, played["play_id"])
        lot = sc.ref_prize(game, stake, ticket)
        prize = shown if lot is None else lot  # the unit's lot (a wrong one is others' to judge)
        exact = balance - stake + prize
        after = session.balance(account)
        if played["balance_cents"] != exact or after != exact:
            return sc.evidence(
                judged,
                {"balance_cents": exact},
                {"play_balance_cents": played["balance_cents"], "balance_after": after},
                f"balance {balance} - stake {stake} + prize {prize} is {exact}; the play said "
                f"{played['balance_cents']}, the account then held {after}",
                request,
            )
    return None


sc.SCENARIOS["money_bounds"] = scenario_money_bounds


@check("play.money_bounds", covers=[MONEY_EXACT], capability="play")
def money_bounds(ctx: CheckContext) -> None:
    """Balances past 2^53 cents, up to 2^63 - 1: held exactly, or refused (4xx), at every
    game and stake in scope (a stake's own code path, its own tables, is where a vendor's
    arithmetic differs), the (game, stake) pairs in an order the seed draws."""
    pairs = [(g, stake) for g in ctx.games() for stake in ctx.stakes(g)]
    if not pairs:
        raise NotSupported("no game and stake in this run's scope")
    random.Random(f"{ctx.seed}:money_bounds").shuffle(pairs)
    refused: list[int] = []
    judged = 0
    target = session(ctx)
    for game, stake in pairs:
        case = sc.case_of("money_bounds", game=game, stake_cents=stake, seed=ctx.seed)
        mine: list[int] = []
        found = scenario_money_bounds(target, case, mine)
        if found is not None:
            raise CheckFailure(found.note, [found], requirements=(MONEY_EXACT,))
        judged += len(large_balances(_rng(case, "balances"))) - len(mine)
        refused.extend(mine)
    ctx.details["balances_judged"] = judged
    ctx.details["stakes_judged"] = [f"{game} at {stake} cents" for game, stake in pairs]
    if refused:  # a limit of the target's own (row balances-past-2-53): its right, and the
        # requirement is judged on the balances it takes by the money checks (a green here
        # must have been able to go red: what it did not judge is said)
        ctx.details["balances_refused"] = refused
        ctx.details["not_judged"] = (
            f"{len(refused)} balance(s) past 2^53 cents refused with a 4xx (a limit of the "
            f"target's own): {MONEY_EXACT} is judged below them by play.money_exact (odd "
            "balances up to 4 503 599 627 370 553 cents) and play.concurrent_sales"
        )


# -- the history's limit far out ------------------------------------------------------------


LIMIT = "play.history.limit"


def far_limits(rng: random.Random) -> list[int]:
    """``limit`` values past every plausible page size, where a narrow integer wraps."""
    found = [2**15, 2**31 - 1, 2**31, 2**32 + rng.randint(1, 2), 2**53 + 1, 2**63 - 1]
    rng.shuffle(found)
    return found


def scenario_limit_bounds(
    session: sc.Session, case: Mapping[str, Any], refused: list[int] | None = None
) -> Evidence | None:
    """An account with a few plays: every ``far_limits`` value gives the whole listing (more
    than it holds), or is refused with a 4xx (put in ``refused``)."""
    game, stake, plays = case["game"], case["stake_cents"], int(case["plays"])
    judged = {**case, "requirement": LIMIT}
    account = session.open(stake * plays * 3)
    for _ in range(plays):
        played = session.play(account, game, stake)
        session.auto(account, played["play_id"])
    whole = [p["play_id"] for p in session.history(account, None)]
    for limit in far_limits(_rng(case, "limits")):
        try:
            got = [p["play_id"] for p in session.history(account, limit)]
        except ErrorReply as refusal:
            if 400 <= refusal.status < 500:
                if refused is not None:
                    refused.append(limit)
                continue  # a limit of the target's own
            raise
        if got != whole:
            return sc.evidence(
                judged,
                {"plays": whole},
                {"plays": got},
                f"limit {limit} (more than the {len(whole)} plays held) gave {len(got)} "
                "entries, not the whole listing",
                {"operation": "history", "limit": limit},
            )
    return None


sc.SCENARIOS["limit_bounds"] = scenario_limit_bounds


@check("play.limit_bounds", covers=[LIMIT], capability="play")
def limit_bounds(ctx: CheckContext) -> None:
    """``limit`` far past the listing (2^15, 2^31 - 1, 2^31, just past 2^32, 2^53 + 1,
    2^63 - 1): the whole listing, or a 4xx refusal."""
    games = [g for g in ctx.games() if ctx.stakes(g)]
    if not games:
        raise NotSupported("no game and stake in this run's scope")
    drawn = random.Random(f"{ctx.seed}:limit_bounds")
    game = drawn.choice(games)
    stake = drawn.choice(ctx.stakes(game))  # the listing's plays at a stake the seed draws
    case = sc.case_of("limit_bounds", game=game, stake_cents=stake, plays=3, seed=ctx.seed)
    refused: list[int] = []
    target = session(ctx)
    found = scenario_limit_bounds(target, case, refused)
    if found is not None:
        raise CheckFailure(found.note, [found], requirements=(LIMIT,))
    if refused:  # a maximum of the target's own (row limit-far-out): its right, said
        ctx.details["limits_refused"] = sorted(refused)
        ctx.details["not_judged"] = (
            f"{len(refused)} limit(s) far out refused with a 4xx (a maximum of the target's "
            f"own): {LIMIT} is judged below them by play.history_listing"
        )


sc.SCENARIOS["slice_bounds"] = scenario_slice_bounds  # its check: block_slice_bounds
