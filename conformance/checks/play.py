"""Play checks (issue 5 item 4): money, history, sales order, the served unit and refusals,
each a loop over one scenario of ``_scenarios``; the reveal protocol's are in ``play_reveal``.

Every play buys a fresh unit of the block on sale, so the number of plays is the profile's
``play_count`` (split over the stakes in scope), and the hypothesis-driven click orders make
``play_count`` examples too, seeded with ``ctx.seed``. Evidence is ``PlayEvidence`` (kind
``play``, ``conformance._evidence``), which replays itself.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from contextlib import closing
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from .._lazy import strategies_module
from .._pool import iter_in_order, map_in_order, workers_of
from .._registry import CheckContext, CheckFailure, Evidence, NotSupported, Reservation, check
from ..games import GameKit, each_kit, kit
from . import _scenarios as sc
from ._block_reading import of_pair, read_slice
from ._races import race
from ._scenarios import SCENARIOS, Case, case_of
from ._scenarios.client import TOP_UPS, note_shown_ahead
from ._session import session
from .blocks import audited_prizes

if TYPE_CHECKING:
    from hypothesis import strategies as st
else:  # imported on first use (conformance._lazy): a run of block checks never needs it
    st = strategies_module()

R = TypeVar("R")


def plays_per_stake(ctx: CheckContext, game: str) -> int:
    """``play_count`` split over the game's stakes in scope (at least 5 each)."""
    stakes = ctx.stakes(game)
    return max(5, math.ceil(ctx.settings.play_count / max(1, len(stakes))))


def pairs(ctx: CheckContext, games: tuple[str, ...] | None = None) -> list[Any]:
    """Every (game, stake) in scope, of ``games`` only (default: every game with a kit)."""
    found = [(g, s) for g in ctx.games(games) for s in ctx.stakes(g)]
    if not found:
        raise NotSupported(f"no stake of {', '.join(games or ctx.games())} in this run's scope")
    return found


def failure(message: str, found: list[Evidence], *requirements: str) -> CheckFailure:
    """A failure on ``found``; the requirement a scenario named in its evidence input (a
    fault met on the way that breaks another requirement) wins over ``requirements``."""
    named = found[0].input.get("requirement")
    return CheckFailure(
        f"{message}: {found[0].note}",
        found,
        requirements=(str(named),) if named else (requirements or None),
    )


#: scenarios that split their plays over ``case["accounts"]`` accounts played side by side
SPLIT_OVER_ACCOUNTS = frozenset(
    {"stake_debited", "prize_credited", "money_exact", "history_unrevealed", "auto_answer"}
)


def run_per_stake(
    ctx: CheckContext,
    games: tuple[str, ...] | None,
    scenario: str,
    message: str,
    *,
    most: int | None = None,
    watching: bool = False,
    **params: Any,
) -> None:
    """Run ``scenario`` at every (game, stake) in scope; fail with the first evidence in pair
    order (the one a run of the pairs one after another reports).

    The pairs are played at once, up to ``scenario_workers``, each on accounts of its own. They
    do not race one another: each (game, stake) sells the units of its own blocks (contract
    section 4), so a play at one pair never moves the unit on sale at another. A scenario of
    ``SPLIT_OVER_ACCOUNTS`` also spreads one pair's plays over the workers that pair gets
    (``accounts`` in its case, so a replay plays the same way): those plays do race, on one
    block, so a scenario whose verdict would also catch a race (one ``play.concurrent_sales``
    judges) is not in that set and plays each pair's units in a row on one account.
    ``most``: at most this many plays a pair. ``watching``: each pair's scenario watches the
    units on sale of its (game, stake), which it holds meanwhile (``CheckContext.hold``; the
    check is ``exclusive`` and ``holds_streams``)."""
    found = pairs(ctx, games)
    workers = workers_of(ctx.settings)
    target = session(ctx)
    scenario_of = partial(SCENARIOS[scenario], target)
    play_one = held(ctx, scenario_of) if watching else scenario_of

    def case(number: int, pair: tuple[str, int]) -> dict[str, Any]:
        game, stake = pair
        extra = {}
        if scenario in SPLIT_OVER_ACCOUNTS:
            # every worker plays: 8 over 3 pairs is 3, 3 and 2 accounts (not 2 each)
            share = workers // len(found) + (1 if number < workers % len(found) else 0)
            extra = {"accounts": max(1, share)}
        plays = plays_per_stake(ctx, game)
        plays = plays if most is None else min(plays, most)
        return case_of(scenario, game=game, stake_cents=stake, plays=plays, **extra, **params)

    cases = [case(number, pair) for number, pair in enumerate(found)]
    done = 0
    # closed on the first failure: the pairs not yet started are not played
    with closing(iter_in_order(play_one, cases, workers)) as ran:
        for (game, stake), one, evidence in zip(found, cases, ran, strict=True):
            if evidence is not None:
                raise failure(f"{message} ({game} at {stake} cents)", [evidence])
            done += one["plays"]
            ctx.progress(done, None, f"{scenario}: {game} at {stake} cents")
    target.settle()  # every AUTO answer tied to its play's block unit
    ctx.details["plays"] = done  # what was not judged: said when the check ends (_session)


def first_found(
    ctx: CheckContext, scenario: Callable[[Case], Evidence | None], cases: Sequence[Case]
) -> tuple[Case, Evidence] | None:
    """The first case, in order, whose scenario found evidence, and that evidence (the one a
    run of the cases one after another reports); the cases side by side, up to
    ``scenario_workers``, those not yet started once it is found left unplayed."""
    with closing(iter_in_order(scenario, cases, workers_of(ctx.settings))) as ran:
        for case, found in zip(cases, ran, strict=True):
            if found is not None:
                return case, found
    return None


def held(ctx: CheckContext, scenario: Callable[[Case], R]) -> Callable[[Case], R]:
    """``scenario(case)`` while the check holds the case's (game, stake): no other check buys
    a unit of it meanwhile (``CheckContext.hold``)."""

    def run(case: Case) -> R:
        with ctx.hold([(case["game"], case["stake_cents"])]):
            return scenario(case)

    return run


def history_article(game: str) -> str:
    """The article of ``game``'s stake and history (its kit's): ``robots.4.1``."""
    return kit(game).history_article


def prize_article(game: str) -> str:
    """The article by which ``game``'s gains add up (its kit's): ``robots.4.10``."""
    return kit(game).prize_article


_PER_GAME = (  # scenario, the kit's article it breaks, the failure's message
    ("stake_debited", history_article, "a losing play did not take exactly its stake"),
    ("prize_credited", prize_article, "a winning play was not credited exactly its unit's lot"),
    (
        "history_unrevealed",
        history_article,
        "a play was not in the history at once with its ticket and prize",
    ),
)


def _register_per_game(name: str, article: Callable[[str], str], message: str) -> None:
    """Register ``play.<game>_<name>`` for each game's kit (now and registered later),
    covering ``<article>.<name>`` and running scenario ``name``: one check per game, so a
    fault names its game's article."""

    def register(game_kit: GameKit) -> None:
        game = game_kit.name

        def run(ctx: CheckContext) -> None:
            run_per_stake(ctx, (game,), name, message)

        run.__doc__ = f"{game}: {SCENARIOS[name].__doc__}"
        check(
            f"play.{game}_{name}",
            covers=[f"{article(game)}.{name}"],
            capability="play",
            games=(game,),
            cost="long",
        )(run)

    each_kit(register)


for _name, _article, _message in _PER_GAME:
    _register_per_game(_name, _article, _message)


def _needs_blocks(what: str, requirements: list[str]) -> Reservation:
    """The reservation of a play check that reads blocks, on a target that serves none: the
    contract lets it skip the capability, so what the check needs could not be verified."""
    return Reservation(
        f"the target does not declare the blocks capability: {what}",
        kind="unverifiable",
        basis="capability-skipped",
        lift="serve the blocks capability (GET /v1/blocks) and declare it, then certify again",
        requirements=requirements,
    )


@check(
    "play.top_lots",
    covers=[],
    per_game=lambda game_kit: [f"{game_kit.prize_article}.prize_credited"],
    capability="play",
    cost="long",
    exclusive=True,
    holds_streams=True,
    first=True,  # the first exclusive check: its window depends the least on what they buy
)
def top_lots(ctx: CheckContext) -> None:
    """At every (game, stake), accounts play on up to the largest lot among the next
    ``top_lot_units`` units on sale (known from the run's block audit; where it did not read
    them, played through blind and read afterwards): every play moves the balance by
    exactly -stake + its unit's lot, the largest lot too (``scenario_top_lot``). The pairs
    side by side, ``scenario_workers`` accounts in all playing at once (over a distant target
    the plays' round trips add up); each pair's stream held while its scenario runs, since
    its units on sale are counted: no other check buys one of them meanwhile.

    The pairs are played one after another, in an order the seed draws, each with every
    worker: all four held at once for 34-63 s (a full run) stopped every other check's plays
    at those stakes meanwhile, the player sessions' paced players and old accounts at the
    eldorado stakes among them (their span's pace lost); one held at a time, each for a
    quarter of that, the others play on."""
    if "blocks" not in ctx.implementation.get("capabilities", []):
        raise _needs_blocks(
            "the units on sale cannot be read: the largest lot on sale could not be bought",
            [f"{prize_article(g)}.prize_credited" for g in ctx.games()],
        )
    target = session(ctx)
    target.known = partial(audited_prizes, ctx.adapter)  # the block as the audit read it
    in_scope = pairs(ctx)
    random.Random(f"{ctx.seed}:top_lots").shuffle(in_scope)
    cases = [
        case_of(
            "top_lot",
            game=game,
            stake_cents=stake,
            window=ctx.settings.top_lot_units,
            workers=workers_of(ctx.settings),
        )
        for game, stake in in_scope
    ]
    unjudged: dict[tuple[str, int], list[str]] = {pair: [] for pair in in_scope}  # why, if

    def top_lot(case: Case) -> Evidence | None:
        return sc.scenario_top_lot(target, case, unjudged[(case["game"], case["stake_cents"])])

    results = map_in_order(held(ctx, top_lot), cases, 1)  # one stream held at a time
    target.settle()
    for case, found in zip(cases, results, strict=True):
        if found is not None:
            game, stake = case["game"], case["stake_cents"]
            raise failure(
                f"the largest lot on sale was not paid exactly ({game} at {stake} cents)",
                [found],
                f"{prize_article(game)}.prize_credited",
            )
    missed = [(game, stake, why[0]) for (game, stake), why in unjudged.items() if why]
    ctx.details["pairs_judged"] = len(cases) - len(missed)
    if missed:  # a pass must have been able to fail: what was not bought is said, not passed
        ctx.details["not_judged"] = [f"{g} at {s} cents: {why}" for g, s, why in missed]
        game, stake, why = missed[0]
        ctx.reserve(
            Reservation(
                f"the largest lot on sale was not bought at {len(missed)} of {len(cases)} "
                f"(game, stake): {game} at {stake} cents: {why}",
                basis="not-reached",
                lift="accounts of the stakes of the window taken, or of enough of them to buy "
                f"its largest lot within {TOP_UPS} top-ups each, and the window of "
                f"{ctx.settings.top_lot_units} units on sale ahead: certify again",
                kind="unverifiable",
                requirements=sorted({f"{prize_article(g)}.prize_credited" for g, _, _ in missed}),
            )
        )


@check("play.money_exact", covers=["play.money.exact"], capability="play", cost="long")
def money_exact(ctx: CheckContext) -> None:
    """Every play's balance, as answered and as read after, is before - stake + lot."""
    run_per_stake(ctx, None, "money_exact", "a balance was not exact")


@check(
    "play.block_order",
    covers=["play.sales.block_order"],
    capability="play",
    cost="long",
    exclusive=True,
    holds_streams=True,
)
def block_order(ctx: CheckContext) -> None:
    """Plays in a row get one unit each, the next unit of the block on sale every time."""
    run_per_stake(ctx, None, "block_order", "plays were not in block order", watching=True)


AHEAD_UNITS = 8_000
"""Units of each listed block read from its unit 0 before the run's first play
(``play.units_shown_ahead``), at least: more than twice what a quick run sells of a (game,
stake) on a fresh target (about 3 100 plays in all, over its four pairs); with deep plays
(the full profile), ``deep_units`` and 5 000 more (17 000 units: a full run sells about
12 000 of a pair)."""
AHEAD_BLOCKS = 6
"""Listed blocks of a (game, stake) read so, at most (the listing's order is the target's)."""


@check(
    "play.units_shown_ahead",
    covers=["play.sales.block_unit"],
    capability="play",
    cost="block",  # with the block checks: alone and first, before any play of the run
)
def units_shown_ahead(ctx: CheckContext) -> None:
    """The units every listed block shows before the run's first play, from its unit 0
    (``AHEAD_UNITS``, or the deep plays' ``deep_units`` and 5 000 more where larger), kept
    (their tickets' CRC-32: ``note_shown_ahead``) for every later tie of a sale to its unit
    (``Session.settle``, whichever check sold it): a unit sold must be the one its block
    showed *before* the sale, not only the one it shows after. A target whose sales draw
    other units than the block it serves, and serves the units sold as sold, shows it only
    to a read made before the sale. This check reads (it runs with the block checks, before
    any play); the judging is every tie's. A block it cannot read is the block checks' to
    judge: skipped here."""
    if "blocks" not in ctx.implementation.get("capabilities", []):
        return  # nothing to read: play.block_unit reserves the tie (capability-skipped)
    deep = ctx.settings.deep_units
    wanted = max(AHEAD_UNITS, 0 if deep is None else int(deep) + 5_000)
    read, skipped = 0, []
    for game, stake in pairs(ctx):
        try:
            listed = of_pair(ctx.adapter.list_blocks(game, stake), game, stake)
        except Exception as exc:  # the block checks judge the listing
            skipped.append(f"{game} at {stake} cents: {exc}"[:200])
            continue
        for entry in listed[:AHEAD_BLOCKS]:
            block_id = str(entry.get("block_id"))
            units = entry.get("units")
            count = min(wanted, units) if type(units) is int and units > 0 else wanted
            try:
                shown = _units_read(ctx.adapter, block_id, count)
            except Exception as exc:  # a block refused or cut: the block checks' to judge
                skipped.append(f"{block_id}: {exc}"[:200])
                continue
            note_shown_ahead(ctx.adapter, block_id, shown)
            read += len(shown)
    ctx.details["units_read"] = read
    if skipped:
        ctx.details["not_read"] = skipped[:10]


def _units_read(adapter: Any, block_id: str, count: int) -> dict[int, dict[str, Any]]:
    """Units 0 .. count-1 of ``block_id`` as served, by index (a line that is no unit
    object is left out: the block checks judge lines)."""
    stream = read_slice(adapter, block_id, 0, count)
    try:
        found: dict[int, dict[str, Any]] = {}
        for line in stream.lines():
            try:
                unit = json.loads(line)
            except ValueError:
                continue
            if isinstance(unit, dict) and type(unit.get("index")) is int:
                found[unit["index"]] = unit
        return found
    finally:
        stream.close()


@check("play.block_unit", covers=["play.sales.block_unit"], capability="play", cost="long")
def block_unit(ctx: CheckContext) -> None:
    """Each play's ticket and prize are the unit at its (block_id, index) in the served block:
    live play is tied to the audited block."""
    if not ctx.supports("blocks"):
        raise _needs_blocks("a play cannot be tied to its unit", ["play.sales.block_unit"])
    # each pair's plays in a row on one account (block_unit is not in SPLIT_OVER_ACCOUNTS): a
    # unit reported for a play raced by another is a double sale (play.concurrent_sales'),
    # not a play tied to another unit than its own
    run_per_stake(ctx, None, "block_unit", "a play was not the served block's unit")


AUTO_ANSWER_PLAYS = 40
"""Plays of ``play.auto_answer`` a (game, stake), at most: every other check's AUTO answers are
judged too (hundreds of plays, and the money scenarios play on until every kind of win, the
rarest among them, is paid), so this check's own plays need not be the
profile's ``play_count`` (500 plays a stake made it the full profile's third longest check)."""


@check("play.auto_answer", covers=["play.auto.answer"], capability="play")
def auto_answer(ctx: CheckContext) -> None:
    """Plays finished by AUTO at every (game, stake): each answer's wins are its ticket's and
    add up to its prize (every other check's AUTO answers are judged the same way)."""
    run_per_stake(
        ctx, None, "auto_answer", "an AUTO answer's wins are wrong", most=AUTO_ANSWER_PLAYS
    )


@check(
    "play.concurrent_sales",
    covers=["play.sales.no_double_sale", "play.sales.block_order", "play.money.exact"],
    capability="play",
    cost="long",
    exclusive=True,
    holds_streams=True,
)
def concurrent_sales(ctx: CheckContext) -> None:
    """Accounts playing at once (one thread each, all stakes in scope): no unit sold twice,
    the units sold are consecutive, every balance ends exact."""
    threads = ctx.settings.concurrency_threads
    per_thread = ctx.settings.concurrent_plays_per_thread
    case = case_of(
        "concurrent",
        pairs=[list(p) for p in pairs(ctx)],
        threads=threads,
        plays_per_thread=per_thread,
    )
    covered = ["play.sales.no_double_sale", "play.sales.block_order", "play.money.exact"]
    with (
        ctx.hold([(game, stake) for game, stake in pairs(ctx)]),  # every pair it plays
        race(ctx, threads, covered, f"{threads} accounts playing at once"),
    ):
        target = session(ctx)
        found = sc.concurrent_sales(target, case)
    ctx.details["plays"] = threads * per_thread
    if found is not None:
        requirement, proof = found
        raise failure("concurrent plays broke the sales", [proof], requirement)


@check(
    "play.insufficient_funds",
    covers=["play.refusal.insufficient_funds"],
    capability="play",
    exclusive=True,  # a refused play must take no unit off sale: the next unit is watched
    holds_streams=True,
)
def insufficient_funds(ctx: CheckContext) -> None:
    """A stake above the balance is refused with 402 and changes nothing (balance, history,
    the unit on sale); a balance of exactly the stake still plays."""
    cases = [case_of("insufficient_funds", game=g, stake_cents=s) for g, s in pairs(ctx)]
    scenario = held(ctx, partial(sc.scenario_insufficient_funds, session(ctx)))
    # the pairs at once (each watches the unit on sale of its own block), the first in order
    first = first_found(ctx, scenario, cases)
    if first is not None:
        case, found = first
        raise failure(f"{case['game']} at {case['stake_cents']} cents", [found])


@check("play.invalid_requests", covers=["play.refusal.invalid"], capability="play", exclusive=True)
def invalid_requests(ctx: CheckContext) -> None:
    """Stakes a game does not sell and games that do not exist are refused with 422, and the
    refusal changes nothing (balance, history, the unit on sale)."""
    offered = {g: list(ctx.implementation["games"][g]["stakes_cents"]) for g in ctx.games()}
    watched = pairs(ctx)  # every stream: an invalid stake's play has none of its own
    random.Random(f"{ctx.seed}:invalid:witnesses").shuffle(watched)
    requests = [list(r) for r in sc.invalid_requests(offered)]
    near = [list(r) for r in sc.near_misses(offered)]
    case = case_of(
        "invalid",
        witness=list(watched[0]),
        witnesses=[list(w) for w in watched],
        requests=requests,
        near_misses=near,
    )
    unjudged: list[int] = []
    read_as: list[str] = []
    found = sc.scenario_invalid(session(ctx), case, unjudged, read_as)
    ctx.details["refusals_tried"] = len(requests) + len(near)
    if found is not None:
        raise failure("an invalid play", [found])
    if read_as:
        ctx.reserve(
            Reservation(
                f"game names other than the contract's were sold as the game they name "
                f"(read whatever their case, spaces trimmed): {', '.join(map(repr, read_as))}; "
                "the project reads a name as the contract writes it, and refuses the others "
                "(422)",
                basis="game-name-forms",
                lift="refuse a game name other than the contract's exactly, with 422",
                requirements=["play.refusal.invalid"],
            )
        )
    if unjudged:
        stakes = ", ".join(f"{s:,}" for s in sorted(set(unjudged)))
        ctx.reserve(
            Reservation(
                f"the target refused to open an account of {sc.HUGE_STAKE_FUNDS:,} cents (a "
                f"limit of its own), and refused the invalid stake(s) of {stakes} cents, above "
                f"the {sc.SMALLER_FUNDS:,} cents opened instead, with 402: that they would be "
                "refused as invalid (422) could not be verified",
                kind="unverifiable",
                basis="balance-own-limit",
                lift=f"open accounts of {sc.HUGE_STAKE_FUNDS:,} cents, then certify again",
                requirements=["play.refusal.invalid"],
            )
        )
