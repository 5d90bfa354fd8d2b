"""Play checks of the reveal protocol (robots 4.3, 4.4, 4.7): buttons clicked in turn, in
click orders hypothesis picks, all at once, left half revealed; the +1 protocol; AUTO at any
moment. Each a loop over the reveal scenarios of ``_scenarios/reveal.py``; the click orders
make ``play_count`` examples, seeded with ``ctx.seed``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from .._lazy import strategies_module
from .._pool import map_in_order, split, workers_of
from .._registry import CheckContext, Evidence, check
from . import _scenarios as sc
from ._scenarios import case_of
from .play import failure, pairs, plays_per_stake, session

if TYPE_CHECKING:
    from hypothesis import strategies as st
else:  # imported on first use (conformance._lazy): a run of block checks never needs it
    st = strategies_module()

ROBOTS = "robots"  # the reveal protocol below is robots' own (robots 4.3, 4.4, 4.7)
MAX_STOP = 30  # AUTO after 0..30 clicks: a robots unit has 18 buttons plus its +1 reveals
MAX_CLICKS = 40  # click choices drawn per example; later clicks take the first open button
BUTTONS = 18  # robots 4.2: 18 buttons (choices are taken modulo the buttons still open)


def explore(
    ctx: CheckContext, run_one: Callable[[list[int], int], Evidence | None]
) -> list[Evidence]:
    """Run ``run_one(choices, stop)`` for ``play_count`` hypothesis examples seeded with
    ``ctx.seed``: ``choices`` pick the open button of each click (0 = the first open one, so
    the simplest are buttons in turn), ``stop`` a number of clicks. The examples are drawn
    first, all of them, as the target's answers may not steer hypothesis; then they are played,
    up to ``scenario_workers`` at once (each buys its own unit on its own account). Returns
    the evidence of the failing examples, in the order they were drawn (the target sells a new
    unit each time, so shrinking a failing example would replay it on another unit: the
    simplest failing example is chosen instead, by ``_simplest``)."""
    from hypothesis import HealthCheck, Verbosity, given, seed, settings

    from .. import _hypothesis  # noqa: F401  (draws depend on the seed alone)

    drawn: list[tuple[list[int], int]] = []

    @seed(ctx.seed)
    @settings(
        max_examples=ctx.settings.play_count,
        database=None,
        deadline=None,
        print_blob=False,
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        st.lists(st.integers(0, BUTTONS - 1), min_size=MAX_CLICKS, max_size=MAX_CLICKS),
        st.integers(0, MAX_STOP),
    )
    def example(choices: list[int], stop: int) -> None:
        drawn.append((list(choices), stop))

    example()
    results = map_in_order(lambda pick: run_one(*pick), drawn, workers_of(ctx.settings))
    return [found for found in results if found is not None]


def _simplest(found: list[Evidence]) -> Evidence:
    """The evidence whose click order strays least from the natural one, fewest clicks."""
    return min(
        found,
        key=lambda e: (
            sum(1 for c in e.input.get("choices", []) if c),
            len(e.input.get("clicks", [])),
        ),
    )


def robots_stake(ctx: CheckContext) -> int:
    return int(pairs(ctx, (ROBOTS,))[0][1])


CONCURRENT_PLAYS = 3  # plays whose buttons are all clicked twice at once (reveal_order)
RESUME_AFTER_CLICKS = 6  # clicks before a ticket is left half revealed (reveal_order)


@check(
    "play.robots_reveal_order",
    covers=["robots.4.3.reveal_symbols", "robots.4.4.reveal_order"],
    capability="reveal",
    games=(ROBOTS,),
    cost="long",
    first=True,  # the longest checks: clicked through, ~25 requests a play
)
def reveal_order(ctx: CheckContext) -> None:
    """Buttons clicked in turn, then in click orders hypothesis picks, then all at once (each
    twice: a double click), then a ticket left half revealed during ``reveal_resume_plays``
    other plays: each button reveals the ticket's symbols under it, in order, each once, and
    AUTO ends on the ticket bought (R-I5)."""
    target, stake = session(ctx), robots_stake(ctx)
    in_turn = [case_of("reveal_order", stake_cents=stake) for _ in range(3)]
    # buttons in turn (three plays side by side): a fault here breaks 4.3 whatever the order
    for found in map_in_order(
        partial(sc.scenario_reveal_order, target), in_turn, workers_of(ctx.settings)
    ):
        if found is not None:
            raise failure("clicked button by button", [found], "robots.4.3.reveal_symbols")

    def one(choices: list[int], stop: int) -> Evidence | None:
        case = case_of("reveal_order", stake_cents=stake, choices=choices)
        return sc.scenario_reveal_order(target, case)

    found_all = explore(ctx, one)
    if found_all:
        best = _simplest(found_all)
        natural = not any(best.input.get("choices", []))
        which = "robots.4.3.reveal_symbols" if natural else "robots.4.4.reveal_order"
        raise failure("a click order changed the unit", [best], which)
    # clicks at the same moment (a double click, two tabs): each reveal handed out once
    for _ in range(CONCURRENT_PLAYS):
        found = sc.scenario_reveal_concurrent(
            target,
            case_of("reveal_concurrent", stake_cents=stake, workers=workers_of(ctx.settings)),
        )
        if found is not None:
            raise failure("clicked at the same moment", [found], "robots.4.4.reveal_order")
    # a ticket left half revealed while other plays go on, then revealed on
    resumed = case_of(
        "reveal_resumed",
        stake_cents=stake,
        first_clicks=RESUME_AFTER_CLICKS,
        plays_between=ctx.settings.reveal_resume_plays,
        workers=workers_of(ctx.settings),
    )
    found = sc.scenario_reveal_resumed(target, resumed)
    if found is not None:
        raise failure("revealed on after other plays", [found], "robots.4.3.reveal_symbols")
    target.settle()


@check(
    "play.robots_plus_one",
    covers=["robots.4.7.reveal_plus_one"],
    capability="reveal",
    games=(ROBOTS,),
    cost="long",
    first=True,  # the longest checks: clicked through, ~25 requests a play
)
def plus_one(ctx: CheckContext) -> None:
    """Every button clicked until refused: a reveal with +1 allows exactly one more click, one
    without allows none (409) (R-I4: a +1 reveal may carry another +1)."""
    plays, stake, target = plays_per_stake(ctx, ROBOTS), robots_stake(ctx), session(ctx)
    cases = [
        case_of("plus_one", stake_cents=stake, plays=part)
        for part in split(plays, workers_of(ctx.settings))
    ]  # each part on its own account, side by side
    found = [e for e in map_in_order(partial(sc.scenario_plus_one, target), cases, len(cases)) if e]
    ctx.details["plays"] = plays
    if found:
        raise failure("the +1 protocol was broken", found[:1])


@check(
    "play.robots_auto_any_moment",
    covers=["robots.4.4.auto_any_moment"],
    capability="reveal",
    games=(ROBOTS,),
    cost="long",
)
def auto_any_moment(ctx: CheckContext) -> None:
    """AUTO after 0 to 30 clicks in hypothesis-picked orders shows the ticket bought and its
    lot (R-I5: the clicks never change the unit)."""
    target, stake = session(ctx), robots_stake(ctx)

    def one(choices: list[int], stop: int) -> Evidence | None:
        case = case_of("auto", stake_cents=stake, stop=stop, choices=choices)
        return sc.scenario_auto(target, case)

    found = explore(ctx, one)
    if found:
        raise failure("AUTO changed the unit", [_simplest(found)])
    target.settle()
