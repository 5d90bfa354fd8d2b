"""Security checks (contract section 4): a token is needed, and opens its own account only.

Both run at every game in scope (a robots play adds the reveal endpoint), and after the
refusals check that nothing moved: balance, history, and the play's reveal state.
"""

from __future__ import annotations

from .._registry import CheckContext, CheckFailure, NotSupported, check
from . import _scenarios as sc
from ._session import session


def _each_game(ctx: CheckContext, scenario: str) -> None:
    target = session(ctx)
    games = [(g, ctx.stakes(g)) for g in ctx.games()]
    if not any(stakes for _, stakes in games):
        raise NotSupported("no game and stake in this run's scope")
    for game, stakes in games:
        if not stakes:
            continue
        found = sc.SCENARIOS[scenario](
            target, sc.case_of(scenario, game=game, stake_cents=stakes[0])
        )
        if found is not None:
            raise CheckFailure(f"{game}: {found.note}", [found])


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
