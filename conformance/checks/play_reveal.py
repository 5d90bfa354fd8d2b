"""Play checks of the reveal protocol (robots 4.3, 4.4, 4.7), for every game whose engine has
buttons: buttons clicked in turn, in click orders hypothesis picks, all at once, left half
revealed; the +1 protocol; AUTO at any moment. Each a loop over the reveal scenarios of
``_scenarios`` (``reveal``, ``reveal_at_once``, ``plus_one``, ``auto_midway``); the click
orders make ``play_count`` examples, seeded with ``ctx.seed``.

The checks are registered for each game's kit that names reveal requirements
(``GameKit.reveals``, given exactly when its engine has buttons): ``play.<game>_reveal_order``,
``play.<game>_plus_one`` and ``play.<game>_auto_any_moment``, covering the requirements the
kit names. The buttons, what each reveals and how a reveal names its symbol are the engine's.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import reference

from .._lazy import strategies_module
from .._pool import map_in_order, split, workers_of
from .._registry import CheckContext, Evidence, check
from ..games import GameKit, RevealRequirements, each_kit
from . import _scenarios as sc
from ._races import race
from ._scenarios import reveal_case
from ._session import session
from .play import failure, pairs, plays_per_stake

if TYPE_CHECKING:
    from hypothesis import strategies as st
else:  # imported on first use (conformance._lazy): a run of block checks never needs it
    st = strategies_module()

MAX_STOP = 30  # AUTO after 0..30 clicks (robots: 18 buttons plus their +1 reveals)
MAX_CLICKS = 40  # click choices drawn per example; later clicks take the first open button


def explore(
    ctx: CheckContext, buttons: int, run_one: Callable[[list[int], int], Evidence | None]
) -> list[Evidence]:
    """Run ``run_one(choices, stop)`` for ``play_count`` hypothesis examples seeded with
    ``ctx.seed``: ``choices`` pick the open button of each click among the game's ``buttons``
    (taken modulo the buttons still open; 0 = the first open one, so the simplest are buttons
    in turn), ``stop`` a number of clicks. The examples are drawn first, all of them, as the
    target's answers may not steer hypothesis; then they are played, up to
    ``scenario_workers`` at once (each buys its own unit on its own account). Returns
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
        st.lists(st.integers(0, buttons - 1), min_size=MAX_CLICKS, max_size=MAX_CLICKS),
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


def first_stake(ctx: CheckContext, game: str) -> int:
    """The first stake of ``game`` in scope: the reveal checks play at one stake."""
    return int(pairs(ctx, (game,))[0][1])


CONCURRENT_PLAYS = 3  # plays whose buttons are all clicked twice at once (reveal_order)
RESUME_AFTER_CLICKS = 6  # clicks before a ticket is left half revealed (reveal_order)


def reveal_order(ctx: CheckContext, game: str, rules: RevealRequirements) -> None:
    """Buttons clicked in turn, then in click orders hypothesis picks, then all at once (each
    twice: a double click), then a ticket left half revealed during ``reveal_resume_plays``
    other plays: each button reveals the ticket's symbols under it, in order, each once, and
    AUTO ends on the ticket bought (R-I5)."""
    target, stake = session(ctx), first_stake(ctx, game)
    in_turn = [reveal_case("reveal_order", game, stake_cents=stake) for _ in range(3)]
    # buttons in turn (three plays side by side): a fault here breaks 4.3 whatever the order
    for found in map_in_order(
        partial(sc.scenario_reveal_order, target), in_turn, workers_of(ctx.settings)
    ):
        if found is not None:
            raise failure("clicked button by button", [found], rules.symbols)

    def one(choices: list[int], stop: int) -> Evidence | None:
        case = reveal_case("reveal_order", game, stake_cents=stake, choices=choices)
        return sc.scenario_reveal_order(target, case)

    found_all = explore(ctx, buttons_of(game), one)
    if found_all:
        best = _simplest(found_all)
        natural = not any(best.input.get("choices", []))
        which = rules.symbols if natural else rules.order
        raise failure("a click order changed the unit", [best], which)
    # clicks at the same moment (a double click, two tabs): each reveal handed out once
    clicks = sc.CONCURRENT_CLICKS
    if workers_of(ctx.settings) < clicks:  # the run's choice, not the target's: said
        ctx.details["clicks_at_once"] = (
            f"not sent: scenario_workers {workers_of(ctx.settings)} sends no {clicks} requests "
            f"at once; {rules.order} is judged here on the click orders alone"
        )
    with race(ctx, clicks, [rules.order], f"each button clicked {clicks} times at once"):
        for _ in range(CONCURRENT_PLAYS):
            found = sc.scenario_reveal_concurrent(
                target,
                reveal_case(
                    "reveal_concurrent", game, stake_cents=stake, workers=workers_of(ctx.settings)
                ),
            )
            if found is not None:
                raise failure("clicked at the same moment", [found], rules.order)
    # a ticket left half revealed while other plays go on, then revealed on
    resumed = reveal_case(
        "reveal_resumed",
        game,
        stake_cents=stake,
        first_clicks=RESUME_AFTER_CLICKS,
        plays_between=ctx.settings.reveal_resume_plays,
        workers=workers_of(ctx.settings),
    )
    found = sc.scenario_reveal_resumed(target, resumed)
    if found is not None:
        raise failure("revealed on after other plays", [found], rules.symbols)
    target.settle()


def plus_one(ctx: CheckContext, game: str, rules: RevealRequirements) -> None:
    """Every button clicked until refused: a reveal with +1 allows exactly one more click, one
    without allows none (409) (R-I4: a +1 reveal may carry another +1)."""
    plays, stake, target = plays_per_stake(ctx, game), first_stake(ctx, game), session(ctx)
    cases = [
        reveal_case("plus_one", game, stake_cents=stake, plays=part)
        for part in split(plays, workers_of(ctx.settings))
    ]  # each part on its own account, side by side
    found = [e for e in map_in_order(partial(sc.scenario_plus_one, target), cases, len(cases)) if e]
    ctx.details["plays"] = plays
    if found:
        raise failure("the +1 protocol was broken", found[:1])


def auto_any_moment(ctx: CheckContext, game: str, rules: RevealRequirements) -> None:
    """AUTO after 0 to 30 clicks in hypothesis-picked orders shows the ticket bought and its
    lot (R-I5: the clicks never change the unit)."""
    target, stake = session(ctx), first_stake(ctx, game)

    def one(choices: list[int], stop: int) -> Evidence | None:
        case = reveal_case("auto", game, stake_cents=stake, stop=stop, choices=choices)
        return sc.scenario_auto(target, case)

    found = explore(ctx, buttons_of(game), one)
    if found:
        raise failure("AUTO changed the unit", [_simplest(found)])
    target.settle()


def buttons_of(game: str) -> int:
    """The buttons of ``game``'s plays, as its engine says."""
    return reference.game_engine(game).buttons


RevealCheck = Callable[[CheckContext, str, RevealRequirements], None]

_CHECKS: tuple[tuple[str, RevealCheck, Callable[[RevealRequirements], list[str]], bool], ...] = (
    ("reveal_order", reveal_order, lambda r: [r.symbols, r.order], True),
    ("plus_one", plus_one, lambda r: [r.plus_one], True),
    ("auto_any_moment", auto_any_moment, lambda r: [r.auto_any_moment], False),
)
"""Each reveal check: its name (``play.<game>_<name>``), its function, the requirements of
the kit's it covers, and whether it starts first (the longest: clicked through, ~25 requests
a play)."""


def _register(game_kit: GameKit) -> None:
    """The reveal checks of ``game_kit``'s game, when it has buttons (``GameKit.reveals``)."""
    rules = game_kit.reveals
    if rules is None:
        return
    game = game_kit.name
    for name, function, covered, first in _CHECKS:

        def run(ctx: CheckContext, function: RevealCheck = function) -> None:
            function(ctx, game, rules)

        run.__doc__ = function.__doc__
        check(
            f"play.{game}_{name}",
            covers=covered(rules),
            capability="reveal",
            games=(game,),
            cost="long",
            first=first,
        )(run)


each_kit(_register)
