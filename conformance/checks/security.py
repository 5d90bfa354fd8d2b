"""Security checks (contract section 4): a token is needed, and opens its own account only.

Both run at every (game, stake) in scope, in an order drawn from the run's seed (a robots play
adds the reveal endpoint), and after the refusals check that nothing moved: balance, history,
and the play's reveal state. Every stake, not each game's first: a purchase handler of the
stakes added after a game's launch that never checked whose token it was
(``tests/faulty/_round13_surface_faults.py``) was CERTIFIED while these played each game's
first stake alone (docs/coverage.md).
"""

from __future__ import annotations

import random

from .._registry import CheckContext, CheckFailure, NotSupported, check
from . import _scenarios as sc
from ._session import session


def _each_game(ctx: CheckContext, scenario: str) -> None:
    target = session(ctx)
    pairs = [(g, stake) for g in ctx.games() for stake in ctx.stakes(g)]
    if not pairs:
        raise NotSupported("no game and stake in this run's scope")
    random.Random(f"{ctx.seed}:{scenario}:stakes").shuffle(pairs)
    for game, stake in pairs:
        found = sc.SCENARIOS[scenario](target, sc.case_of(scenario, game=game, stake_cents=stake))
        if found is not None:
            raise CheckFailure(f"{game} at {stake} cents: {found.note}", [found])


@check("security.no_token", covers=["security.tokens.required"], capability="play")
def no_token(ctx: CheckContext) -> None:
    """Balance, play, reveal, auto and history without a token, with an empty one and with
    one that opens no account: each refused with 401, and the account is untouched."""
    _each_game(ctx, "no_token")


@check("security.cross_account", covers=["security.tokens.isolation"], capability="play")
def cross_account(ctx: CheckContext) -> None:
    """Another account's valid token on this account's balance, plays, history and on its
    play's reveal and auto: each refused with 403 or 404, and the account is untouched."""
    _each_game(ctx, "cross_account")
