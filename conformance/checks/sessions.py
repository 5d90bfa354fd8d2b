"""Old accounts, a player's pace and deep units (issue 27): the play checks that need time.

``play.player_sessions`` plays paced players and old accounts for ``player_span_s`` seconds
(the soak profile: its whole ``--duration``), then judges every account again
(``_scenarios.players``); in the soak, accounts play through to a top-tier lot beside them
(``_scenarios.top_tiers``). It mostly waits, so it starts early and runs beside the other
checks: its pauses cost the run no wall time while the others still work.
``play.deep_stream`` plays through to unit ``deep_units`` of the block on sale at each game's
first stake when the target sells fast enough to get there within ``deep_budget_s``, and, at
every (game, stake), through the end of the block on sale when that lies within reach; it
judges the plays there (their balances, AUTO, their history entries). Both say in their
details' ``reach`` the ages they reached, and what they did not as "not covered" (the report's
ages: ``harness._runner.Runner.reach``). docs/play-checks.md says what each judges and why.
"""

from __future__ import annotations

import time
from functools import partial

from .._pool import workers_of
from .._registry import CheckContext, Reservation, check
from ._scenarios import case_of
from ._scenarios.deep import Deep, deep_plays
from ._scenarios.players import Player, reach_of, scenario_players, tappers_of
from ._session import session
from .blocks import audited_prizes
from .play import failure, pairs

#: what the player sessions judge on the way back (docs/play-checks.md)
SESSIONS_COVER = [
    "play.money.exact",
    "play.money.balance_read",
    "play.money.concurrent_one_account",  # the old accounts' requests that overlap, last
    "play.history.complete",
    "play.history.order",
    "play.history.limit",  # the pages of 10, and an old account's limits past 101
    "play.history.created_at",
    "play.auto.answer",
    "security.tokens.required",
    "security.tokens.isolation",
]
DEEP_JUDGED = 30  # plays judged past ``deep_units`` (their AUTO tied to their units too)


@check(
    "play.player_sessions",
    covers=SESSIONS_COVER,
    per_game=lambda k: [
        f"{k.prize_article}.prize_credited",
        f"{k.history_article}.history_unrevealed",
        *(k.reveals.revealed_on if k.reveals else ()),
        # a button tapped as AUTO reveals its ticket, in the accounts' overlapping rounds
        *((k.reveals.auto_any_moment,) if k.reveals else ()),
    ],
    capability="play",
    cost="long",
    first=True,  # it mostly waits: started first, it ends with the others
)
def player_sessions(ctx: CheckContext) -> None:
    """Paced players (pauses of seconds, clicks one by one, tickets left half revealed, reads,
    a mistyped token now and then) and an old account per game (hundreds of plays) side by side
    for ``player_span_s`` seconds; then every account judged again: each play's balance, AUTO
    sent again long after, the balance read, the whole history, the half revealed tickets
    revealed on, each account playing once more first. With ``top_tier_units`` (the soak), an
    account at every (game, stake) plays through to the nearest unit of a lot of 1 000 EUR or
    more beside them, each play judged; its details say what each bought, or why not."""
    in_scope = pairs(ctx)
    top_tier = ctx.settings.top_tier_units
    players = ctx.settings.player_accounts + len(ctx.games())
    players += tappers_of(ctx.settings.player_accounts)  # the slow tappers beside them
    players += len(in_scope) if top_tier is not None else 0
    case = case_of(
        "players",
        pairs=[list(p) for p in in_scope],
        accounts=ctx.settings.player_accounts,
        span_s=ctx.settings.player_span_s,
        old_plays=ctx.settings.old_account_plays,
        seed=ctx.seed,
        # every player at once (they mostly wait); scenario_workers 1: one request at a time
        workers=1 if workers_of(ctx.settings) == 1 else players,
        top_tier_units=top_tier,
    )
    target = session(ctx)
    target.known = partial(audited_prizes, ctx.adapter)  # the blocks this run's audit read
    started = time.monotonic()
    notes: list[str] = []
    limited: list[str] = []
    ties: list[int] = []
    ages: list[Player] = []
    found = scenario_players(target, case, ctx.hold, notes, limited, ties, ages)
    ctx.details["ran_s"] = round(time.monotonic() - started, 1)  # the span and the way back
    if found is None:
        target.settle()  # every AUTO of the sessions tied to its block unit
    ctx.details["span_s"] = ctx.settings.player_span_s
    ctx.details["accounts"] = players
    ctx.details["reach"] = reach_of(ages)
    # plays one after another listed side by side with the same created_at, each pair judged
    # in the order bought (docs/contract-decisions.md, history-ties): what a tie broken by
    # another key would have failed
    ctx.details["history_ties_judged"] = sum(ties)
    if top_tier is not None:  # what was bought of a top tier, and what was not (never passed)
        ctx.details["top_tiers"] = notes
    if found is not None:
        raise failure("an account judged again after a while", [found])
    if limited:  # the target's own limit on ``limit``: the older plays could not be read
        ctx.details["history_listed_up_to"] = limited
        ctx.reserve(
            Reservation(
                f"{len(limited)} account(s) with more plays than the history lists at once: "
                f"{limited[0]}; their older plays were not judged there",
                basis="history-own-limit",
                lift="take a history limit at least the number of plays of an account (the "
                "soak's old accounts make over 1 000), or certify with a profile whose "
                "old_account_plays is below the target's own limit",
                kind="unverifiable",
                requirements=["play.history.complete"],
            )
        )


@check(
    "play.deep_stream",
    covers=["play.money.exact"],
    per_game=lambda k: [
        f"{k.prize_article}.prize_credited",
        f"{k.history_article}.history_unrevealed",
    ],
    capability="play",
    cost="long",
)
def deep_stream(ctx: CheckContext) -> None:
    """At each game's first stake, plays through to unit ``deep_units`` of the block on sale
    when the target gets there within ``deep_budget_s``, then ``DEEP_JUDGED`` more; at every
    (game, stake), through the block's end and into the next when it lies within reach
    (``_scenarios.deep``): every play's balance judged against its unit read afterwards, the
    watched ones' history entries against their units; what was not reached, in ``reach``."""
    depth = ctx.settings.deep_units
    if depth is None:  # nothing to judge, nothing missing: the quick profile's
        ctx.details["deep_units"] = "null: no play through in this profile (full, soak: some)"
        ctx.details["reach"] = [
            "units deep in a block, a block's end: no play through in this profile: not covered"
        ]
        return
    if not ctx.supports("blocks"):
        raise Reservation(  # the contract lets a target skip blocks (capability-skipped)
            "the target does not declare the blocks capability: a deep play cannot be tied "
            "to its unit",
            kind="unverifiable",
            basis="capability-skipped",
            lift="serve the blocks capability (GET /v1/blocks) and declare it, then certify again",
            requirements=["play.money.exact"],
        )
    firsts: dict[str, int] = {}
    for game, stake in pairs(ctx):
        firsts.setdefault(game, stake)
    target = session(ctx)
    reached, reach = [], []
    # each game's first stake through to the depth; every pair on through its block's end when
    # that lies within reach (its units left at the pace measured, within deep_budget_s); all
    # of it within deep_budget_s for each game, as when only the first stakes played deep
    budget = ctx.settings.deep_budget_s
    ends = time.monotonic() + budget * len(firsts)
    for game, stake in pairs(ctx):
        first = firsts[game] == stake
        case = case_of(
            "deep",
            game=game,
            stake_cents=stake,
            depth=depth if first else 0,
            budget_s=round(max(0.0, min(budget, ends - time.monotonic())), 1),
            judged=DEEP_JUDGED,
        )
        deep = deep_plays(target, case)
        if deep.found is not None:
            target.settle()
            raise failure(f"a play deep in a block ({game} at {stake} cents)", [deep.found])
        reached.append(f"{game} at {stake} cents: {deep.what}")
        reach.append(deep_reach(game, stake, deep, depth if first else None))
    target.settle()
    ctx.details["deep_units"] = depth
    ctx.details["pairs"] = reached
    ctx.details["reach"] = reach


def deep_reach(game: str, stake: int, deep: Deep, depth: int | None) -> str:
    """One line of the report's reach: how deep the plays at (game, stake) were judged and
    whether a block's end was crossed; what was not reached is said "not covered"."""
    where = f"{game} at {stake} cents"
    if deep.deepest is None:
        return f"{where}: no deep play judged ({deep.not_reached}): not covered"
    line = f"{where}: units judged to {deep.deepest} of the block on sale"
    if depth is not None and deep.deepest < depth and deep.crossed is None:
        line += f" (depth {depth} not reached: not covered)"
    if deep.crossed is not None:
        return f"{line}; block end crossed ({deep.crossed})"
    return f"{line}; block end not reached ({deep.not_reached}): not covered"
