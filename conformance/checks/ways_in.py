"""Every way in (issue 27 item 3): the play endpoints refuse every request that is not the
account's owner with ``Authorization: Bearer <token>``, and nothing moves
(``_scenarios/ways_in.py`` says which probes, and why each is a client's plausible mistake).

``security.ways_in_token`` sends other token values (altered, a neighbour's) through the
contract's operations, on any adapter; ``security.ways_in_request`` sends requests as written
(another scheme, a query parameter, a cookie; the path spelled otherwise) where the adapter can
(``contract.RawRequests``: over HTTP). A wrong token carried otherwise fails; the account's own
token carried otherwise and let in is a reservation (docs/contract-decisions.md,
``bearer-only``: RFC 6750 offers ``access_token``, the contract names Bearer). An in-process
adapter carries the token as a value and has no header or path: that check passes there having
asked nothing, and says so in its details. Each (game, first stake in scope) is probed, the
families in an order drawn from the run's seed.
"""

from __future__ import annotations

import random

from .._registry import CheckContext, CheckFailure, Evidence, NotSupported, Reservation, check
from . import _scenarios as sc
from ._scenarios.ways_in import REQUIREMENT, has_raw, scenario_ways_in
from ._session import session

sc.SCENARIOS["ways_in"] = scenario_ways_in


def _probe(ctx: CheckContext, families: tuple[str, ...]) -> None:
    target = session(ctx)
    stakes = random.Random(f"{ctx.seed}:ways_in:stakes")  # each game's stake: the seed's
    pairs = [(g, stakes.choice(ctx.stakes(g))) for g in ctx.games() if ctx.stakes(g)]
    if not pairs:
        raise NotSupported("no game and stake in this run's scope")
    rng = random.Random(f"{ctx.seed}:ways_in:{','.join(families)}")
    runs = [(game, stake, ways) for game, stake in pairs for ways in families]
    rng.shuffle(runs)
    allowed: list[str] = []

    def reserve(seen: Evidence) -> None:
        allowed.append(f"{seen.input['game']}: {seen.note}")
        if len(allowed) == 1:  # one reservation: the same reading at every game
            ctx.reserve(
                Reservation(
                    f"a token carried otherwise than Authorization: Bearer opens its own "
                    f"account: {seen.note}",
                    basis="bearer-only",
                    lift="read the token from the Authorization: Bearer header only, and "
                    "refuse it elsewhere (Basic, another scheme, a query parameter, a cookie)",
                    evidence=[seen],
                    requirements=(REQUIREMENT["scheme"],),
                )
            )

    for game, stake, ways in runs:
        case = sc.case_of(
            "ways_in", game=game, stake_cents=stake, ways=ways, seed=rng.randrange(2**32)
        )
        found = scenario_ways_in(target, case, reserve)
        if found is not None:
            raise CheckFailure(f"{game}: {found.note}", [found], requirements=(REQUIREMENT[ways],))
    ctx.details["ways_in"] = sorted(families)
    if allowed:
        ctx.details["own_token_carried_otherwise"] = allowed


@check(
    "security.ways_in_token",
    covers=[REQUIREMENT["token"], REQUIREMENT["neighbour"]],
    capability="play",
)
def ways_in_token(ctx: CheckContext) -> None:
    """The account's token with its tail changed, cut short, lengthened or in another case,
    and the tokens of the accounts opened just before and just after it: refused on every
    play endpoint (balance, plays, reveal, AUTO, history), and the account unchanged."""
    _probe(ctx, ("token", "neighbour"))


@check(
    "security.ways_in_request",
    covers=[REQUIREMENT["scheme"], REQUIREMENT["path"]],
    capability="play",
)
def ways_in_request(ctx: CheckContext) -> None:
    """Over HTTP: tokens sent otherwise than ``Authorization: Bearer`` (Basic, the Token
    scheme, a query parameter, a cookie): one that opens no account or another account's,
    and a bad Bearer header beside the account's own token in a query or a cookie, refused
    (the account unchanged); the account's own token so carried, when let in, a reservation
    (``bearer-only``). Every play endpoint's path with a trailing slash, a doubled slash or a
    percent-encoded character and no valid token: refused, and the account unchanged.
    In-process: nothing to send (details say so)."""
    if not has_raw(session(ctx)):
        ctx.details["ways_in"] = (
            "none: an in-process adapter carries the token as a value, with no scheme or path"
        )
        return
    _probe(ctx, ("scheme", "path"))
