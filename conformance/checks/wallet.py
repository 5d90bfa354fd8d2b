"""One account's balance (contract 4): the read right after a play, and plays made at the
same moment on the same account (the double spend of every wallet).

``play.money.balance_read``: the balance read right after a play equals that play's
``balance_cents``.

``play.money.concurrent_one_account``: an account funded for k stakes sends n > k plays at
once (n threads released together by a barrier, same account and token), for a few rounds.
The prize is credited at once, so a win can pay for more plays: the judgement is that the
plays sold form one serial order. Starting from the funding, each sold play's balance before
(its ``balance_cents`` + stake − its lot) is the balance after the previous one; every refusal
is a 402 (or a 409, below), and a 402 only if that order ends below the stake; no balance is
negative;
the balance read after is the order's end; the history lists exactly the plays sold, and no
unit was sold twice. A play refused with 409 while the account is busy with another (an
optimistic lock lost, docs/contract-decisions.md ``play-conflict``) is a refusal that changed
nothing, judged as one by the order and the balance read; when such refusals kept every round
from emptying the account, the race for the last stake was not run: a reservation.

The history's order of plays sent at once is judged only where the target's own answers fix it
(docs/contract-decisions.md, ``history-ties``): a play that follows another in every serial
order the balances allow *and* whose ``created_at`` is strictly later is the newer, and a
listing that puts the other above it fails ``play.history.order`` (a history sorted by a
truncated time with ties broken by a random id, a fifth red team's, lists a double tap so).
Times that tie, or balances that allow either order, leave the pair unjudged: which of two plays
sent at once was bought first is then the target's to say.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from typing import Any

from contract import ErrorReply

from .._registry import CheckContext, CheckFailure, Evidence, NotSupported, Reservation, check
from .._timestamps import read_time
from . import _scenarios as sc
from ._races import race
from ._scenarios import overlap
from ._session import session
from .history import last_unit
from .play import first_found, held, pairs, plays_per_stake

BALANCE_READ = "play.money.balance_read"
ONE_ACCOUNT = "play.money.concurrent_one_account"
REFUSAL = "play.refusal.insufficient_funds"
ORDER = "play.history.order"
STAKES_FUNDED = 3  # k: the account can pay this many stakes
AT_ONCE = 8  # n: plays sent at the same moment
MAX_READS = 8  # plays per stake for the balance read
SERIAL_ORDERS = 1000  # the serial orders of plays at once enumerated before none is judged
CONFLICT = overlap.CONFLICT  # a play refused, the account busy with another (play-conflict)


def scenario_balance_read(session: sc.Session, case: Mapping[str, Any]) -> Evidence | None:
    """``plays`` plays at (game, stake): after each, the balance read equals the play's
    ``balance_cents``."""
    game, stake, plays = case["game"], case["stake_cents"], case["plays"]
    account = session.open(stake * plays * 3)
    for n in range(plays):
        played = session.play(account, game, stake)
        read = session.balance(account)
        if read != played["balance_cents"]:
            return sc.evidence(
                case,
                {"balance_cents": played["balance_cents"]},
                {"balance_cents": read, "play": played},
                f"play {n + 1} answered balance_cents {played['balance_cents']}; the balance "
                f"read right after it is {read}",
                {"operation": "balance", "after": played["play_id"]},
            )
    return None


def _serial(start: int, stake: int, plays: list[tuple[int, int]]) -> list[int] | None:
    """An order of ``plays`` ((balance_cents, lot), one per sold play) in which each play's
    balance before (balance_cents + stake − lot) is the previous one's balance after, from
    ``start``: the indices in that order, or None when there is none."""
    orders = _serial_orders(start, stake, plays, 1)
    return orders[0] if orders else None


def _serial_orders(
    start: int, stake: int, plays: list[tuple[int, int]], most: int = 1000
) -> list[list[int]]:
    """Every order of ``_serial`` (up to ``most`` of them)."""
    left = list(range(len(plays)))
    order: list[int] = []
    found: list[list[int]] = []

    def extend(balance: int) -> None:
        if not left:
            found.append(list(order))
            return
        for i in [i for i in left if plays[i][0] + stake - plays[i][1] == balance]:
            if len(found) >= most:
                return
            left.remove(i)
            order.append(i)
            extend(plays[i][0])
            order.pop()
            left.append(i)

    extend(start)
    return found


def misplaced_at_once(
    ids: list[str], orders: list[list[int]], entries: list[dict[str, Any]]
) -> tuple[str, str] | None:
    """Of plays ``ids`` sent at once, whose possible serial orders (indices into ``ids``) are
    ``orders``, a pair the listing ``entries`` (newest first) puts the wrong way round while the
    target's answers fix their order: (the newer, the older listed above it), or None. The
    newer follows the older in every serial order and its ``created_at`` is strictly later
    (both read the same way, neither a whole day); any other pair is not judged."""
    if not orders:
        return None
    place = {str(e.get("play_id")): n for n, e in enumerate(entries)}
    times = {str(e.get("play_id")): read_time(e.get("created_at")) for e in entries}
    for older, newer in itertools.permutations(range(len(ids)), 2):
        if not all(o.index(older) < o.index(newer) for o in orders):
            continue
        before, after = times.get(ids[older]), times.get(ids[newer])
        if before is None or after is None or before.aware != after.aware:
            continue
        if before.span or after.span or after.value <= before.value:
            continue
        if place[ids[older]] < place[ids[newer]]:
            return ids[newer], ids[older]
    return None


def _at_once(session: sc.Session, account: sc.Account, game: str, stake: int, n: int) -> list[Any]:
    """``n`` plays on ``account`` released together: each a play document or an ErrorReply."""
    barrier = threading.Barrier(n)
    answers: list[Any] = [None] * n

    def run(t: int) -> None:
        barrier.wait(timeout=30)
        answers[t] = sc.refused(lambda: session.play(account, game, stake))

    sc.in_threads(n, run)
    return answers


def _serial_fault(session: sc.Session, game: str, stake: int, funded: int, n: int) -> str | None:
    """The requirement plays made one after another already break, or None: a fault seen at
    once that shows without concurrency is that requirement's, not a race. Accounts funded
    for ``funded`` stakes play one after another until a win was seen, then one funded for a
    single stake until its refusal (at most ``n`` plays in all): each play answers before −
    stake + lot (play.money.exact; a lot missing after a play judged exact, its game's
    prize_credited: ``credit_requirement``); the refusal comes once the balance cannot pay,
    is a 402 and changes nothing, and no balance goes below zero
    (play.refusal.insufficient_funds)."""
    account, balance, won = session.open(funded * stake), funded * stake, False
    exact = False  # a play judged exact before: a debit taken twice would have shown there
    for _ in range(n):
        reply = sc.refused(partial(session.play, account, game, stake))
        if isinstance(reply, ErrorReply):
            # changed nothing: read twice, as a read may lag one play (balance_read's fault)
            kept = balance in (session.balance(account), session.balance(account))
            if reply.status != 402 or balance >= stake or not kept:
                return REFUSAL
            if won:
                return None
            account, balance = session.open(funded * stake), funded * stake
            continue
        if reply["balance_cents"] < 0:
            return REFUSAL
        ticket, _ = session.auto(account, reply["play_id"])
        lot = sc.ref_prize(game, stake, ticket)
        if lot is None:
            return "play.money.exact"
        if reply["balance_cents"] != balance - stake + lot:
            if not exact:  # the first play off: a lot equal to the stake missing, or the debit
                return "play.money.exact"
            return sc.credit_requirement(game, balance, stake, lot, reply["balance_cents"])
        balance, exact = reply["balance_cents"], True
        if lot > 0 and not won:  # now the refusal: an account that pays one stake
            won, account, balance = True, session.open(stake), stake
    return None


def scenario_one_account(session: sc.Session, case: Mapping[str, Any]) -> Evidence | None:
    """``rounds`` times: an account funded for ``funded`` stakes sends ``at_once`` plays at
    the same moment; the plays sold must form one serial order (see the module docstring).
    A fault that plays one after another show too is named by the requirement they break."""
    found = _one_account_rounds(session, case)
    if found is None or found.input.get("requirement") not in (None, BALANCE_READ):
        return found
    serial = _serial_fault(session, case["game"], case["stake_cents"], 2, 10 * int(case["at_once"]))
    if serial is None:
        return found
    note = f"{found.note}; plays made one after another show it too, so it breaks {serial}"
    return replace(found, input={**found.input, "requirement": serial}, note=note)


def scenario_overlap(session: sc.Session, case: Mapping[str, Any]) -> Evidence | None:
    """``overlap.scenario_overlap``: one account's plays at two pairs, AUTO and balance reads
    sent at once. A fault that plays one after another at those pairs show too is named by the
    requirement they break (as ``scenario_one_account`` names it)."""
    found = overlap.scenario_overlap(session, case)
    if found is None or found.input.get("requirement") != ONE_ACCOUNT:
        return found
    serials = (partial(_serial_fault, session, g, s, 2, 10 * AT_ONCE) for g, s in case["pairs"])
    replays = (partial(overlap.serial_replay, session, case), *serials)
    replays += (partial(overlap.serial_reads, session, case),)
    for serial in (s() for s in replays):
        if serial is not None:
            note = f"{found.note}; plays made one after another show it too, so it breaks {serial}"
            return replace(found, input={**found.input, "requirement": serial}, note=note)
    return found


def _one_account_rounds(session: sc.Session, case: Mapping[str, Any]) -> Evidence | None:
    game, stake = case["game"], case["stake_cents"]
    funded, n = int(case["funded"]), int(case["at_once"])
    conflicts, emptied = 0, False
    for round_ in range(int(case["rounds"])):
        account = session.open(funded * stake)
        answers = _at_once(session, account, game, stake, n)
        sold = [a for a in answers if not isinstance(a, ErrorReply)]
        refusals = [a for a in answers if isinstance(a, ErrorReply)]
        conflicts += sum(1 for r in refusals if r.status == CONFLICT)
        where = f"round {round_ + 1}: {n} plays at once on a balance of {funded * stake} cents"
        request = {"operation": "play", "at_once": n, "account_id": account.account_id}

        def found(
            expected: Any, got: Any, note: str, where: str = where, request: Any = request
        ) -> Evidence:
            return sc.evidence(case, expected, got, f"{where}: {note}", request)

        wrong = [r for r in refusals if r.status not in (402, CONFLICT)]
        if wrong:
            return found(
                {"refusals": "402, or 409 for a play the account was busy with another"},
                [sc.reply_doc(r) for r in wrong[:3]],
                f"a play was refused with {wrong[0].status} {wrong[0].code}, not 402 or 409",
            )
        negative = [p for p in sold if p["balance_cents"] < 0]
        if negative:
            return found(
                "no negative balance",
                negative[:3],
                f"a play left the balance at {negative[0]['balance_cents']} cents",
            )
        lots = []
        for played in sold:
            ticket, _ = session.auto(account, played["play_id"])
            lot = sc.ref_prize(game, stake, ticket)
            lots.append(lot if lot is not None else 0)
        pairs_ = [(p["balance_cents"], lot) for p, lot in zip(sold, lots, strict=True)]
        order = _serial(funded * stake, stake, pairs_)
        answered = [{"balance_cents": b, "lot": lot} for b, lot in pairs_]
        if order is None:
            return found(
                f"at most {funded} plays sold (more only when a win pays for them), the "
                "balances one serial order",
                {"sold": len(sold), "refused": len(refusals), "plays": answered},
                f"{len(sold)} plays sold, {len(refusals)} refused: their balances fit no "
                "order of one play after another",
            )
        end = pairs_[order[-1]][0] if order else funded * stake
        poor = [r for r in refusals if r.status == 402]
        if poor and end >= stake:
            return found(
                {"refused": 0},
                {"sold": len(sold), "refused": len(poor), "balance_after": end},
                f"{len(poor)} play(s) refused with 402 although the balance left "
                f"({end} cents) pays a stake",
            )
        emptied = emptied or end < stake
        units = [(p["block_id"], p["index"]) for p in sold]
        if len(set(units)) != len(units):
            return sc.evidence(
                {**case, "requirement": "play.sales.no_double_sale"},
                "each unit sold once",
                units,
                f"{where}: one unit was sold to two of the plays",
                request,
            )
        ids = [p["play_id"] for p in sold]
        # a maximum of the target's own on ``limit`` (rows history-own-limit, limit-far-out)
        # lists the newest that many: the plays at once are not ordered, so none is missing
        # from a listing shorter than them, and only a stranger is judged there
        entries, own = session.history_up_to(account, 50)
        listed = {p["play_id"] for p in entries}
        strangers = sorted(listed - set(ids))
        whole = own is None or own >= len(ids)
        missing = [i for i in ids if i not in listed] if whole else []
        if strangers or missing:
            # a play listed that was never answered is this requirement's; plays missing
            # are the history's (one alone that can be the newest, ending where the serial
            # order ends: the last unit recorded)
            newest = len(missing) == 1 and next(
                p["balance_cents"] == end for p in sold if p["play_id"] == missing[0]
            )
            requirement = (
                ONE_ACCOUNT if strangers else last_unit(game) if newest else "play.history.complete"
            )
            return sc.evidence(
                {**case, "requirement": requirement},
                {"history": sorted(ids)},
                {"history": sorted(listed)},
                f"{where}: {len(sold)} plays sold; the history lists {len(listed)} play(s)"
                + (f", {len(strangers)} never answered" if strangers else "")
                + (f", and misses {len(missing)}" if missing else ""),
                request,
            )
        orders = _serial_orders(funded * stake, stake, pairs_, SERIAL_ORDERS)
        if len(orders) >= SERIAL_ORDERS:  # not all of them: no order is fixed
            orders = []
        misplaced = misplaced_at_once(ids, orders, [e for e in entries if e["play_id"] in ids])
        if misplaced is not None:
            newer, older = misplaced
            return sc.evidence(
                {**case, "requirement": ORDER},
                {"newest first": [newer, older]},
                {"history": [e["play_id"] for e in entries if e["play_id"] in ids]},
                f"{where}: play {newer!r} was bought after {older!r} (its balance follows "
                f"{older!r}'s in every serial order of the answers, and its created_at is "
                f"later), but the history lists it below",
                request,
            )
        read = session.balance(account)
        if read != end:
            return sc.evidence(
                {**case, "requirement": BALANCE_READ},
                {"balance_cents": end},
                {"balance_cents": read},
                f"{where}: the {len(sold)} plays sold answered balances ending at {end} "
                f"cents; the balance read after is {read}",
                request,
            )
    if conflicts and not emptied:
        session.reserve(
            Reservation(
                f"{game} at {stake} cents: {conflicts} of the plays sent at once on one "
                "account were refused with 409 (the account busy with another play, or with "
                "a ticket unfinished), and "
                f"no round of {n} plays at once emptied the account: whether plays at once "
                "can overdraw it was not seen",
                basis="play-conflict",
                lift=f"take {n} plays of one account at the same moment (each waiting for "
                "the account rather than refused), or certify again",
                kind="unverifiable",
                requirements=[ONE_ACCOUNT],
            )
        )
    return None


sc.SCENARIOS["balance_read"] = scenario_balance_read
sc.SCENARIOS["one_account"] = scenario_one_account
sc.SCENARIOS["overlap"] = scenario_overlap


def _raise(message: str, found: Evidence, requirement: str) -> None:
    raise CheckFailure(f"{message}: {found.note}", [found], requirements=(requirement,))


@check("play.balance_read", covers=[BALANCE_READ], capability="play", cost="long")
def balance_read(ctx: CheckContext) -> None:
    """After each play, the balance read at once equals the play's ``balance_cents``."""
    target = session(ctx)
    cases = [
        sc.case_of(
            "balance_read",
            game=game,
            stake_cents=stake,
            plays=min(MAX_READS, plays_per_stake(ctx, game)),
        )
        for game, stake in pairs(ctx)
    ]
    # the pairs at once, each on its own account; the first failure in pair order
    first = first_found(ctx, partial(scenario_balance_read, target), cases)
    if first is not None:
        case, found = first
        _raise(f"{case['game']} at {case['stake_cents']} cents", found, BALANCE_READ)
    ctx.details["plays"] = sum(case["plays"] for case in cases)


@check(
    "play.concurrent_one_account",
    # AUTO twice at once on a ticket, and a button tapped as AUTO reveals it, in the rounds of
    # requests of every kind
    covers=[ONE_ACCOUNT, ORDER, "play.auto.answer"],
    per_game=lambda k: [k.reveals.auto_any_moment] if k.reveals else [],
    capability="play",
    cost="long",
    exclusive=True,  # the units sold at once are compared with the units on sale
    holds_streams=True,
)
def concurrent_one_account(ctx: CheckContext) -> None:
    """An account funded for 3 stakes sends 8 plays at the same moment (a barrier), for
    ``one_account_rounds`` rounds at the first stake of each game: the plays sold form one
    serial order, the rest are refused with 402 (or 409: the account busy with another play),
    no balance goes negative, the balance read
    and the history agree with what was sold."""
    games = ctx.games()
    if not any(ctx.stakes(g) for g in games):
        raise NotSupported("no game and stake in this run's scope")
    target = session(ctx)
    rounds = ctx.settings.one_account_rounds
    cases = [
        sc.case_of(
            "one_account",
            game=game,
            stake_cents=ctx.stakes(game)[0],
            funded=STAKES_FUNDED,
            at_once=AT_ONCE,
            rounds=rounds,
        )
        for game in games
        if ctx.stakes(game)
    ]
    # the games at once: each round's units are compared with those on sale at its own
    # (game, stake), whose block no other game's play touches; the first failure in game order
    with race(ctx, AT_ONCE, [ONE_ACCOUNT], f"{AT_ONCE} plays of one account at the same moment"):
        first = first_found(ctx, held(ctx, partial(scenario_one_account, target)), cases)
    if first is not None:
        case, found = first
        named = str(found.input.get("requirement", ONE_ACCOUNT))
        _raise(f"{case['game']} at {case['stake_cents']} cents", found, named)
    ctx.details["plays"] = rounds * AT_ONCE * len(games)
    # then one account's requests of every kind at once: plays at two pairs, AUTO, reads
    mixed = sc.case_of("overlap", pairs=pairs(ctx), rounds=2 * rounds, seed=ctx.seed)
    least = overlap.PLAYS_AT_ONCE[0] + 1 + overlap.READS_AT_ONCE
    # held, as the rounds above: the check holds the streams it buys from (its plays' units
    # are the streams' own, and no other check's purchase lands between its requests)
    with (
        race(ctx, least, [ONE_ACCOUNT], "plays at two pairs, AUTO and reads of one account"),
        ctx.hold(pairs(ctx)),
    ):
        overlapping = scenario_overlap(target, mixed)
    if overlapping is not None:
        named = str(overlapping.input.get("requirement", ONE_ACCOUNT))
        _raise("one account's requests at once", overlapping, named)
    ctx.details["overlap_rounds"] = 2 * rounds
    # plays sent at once have an order only where the answers fix it and their created_at
    # differ (``misplaced_at_once``): with times to the second, often none here
    ctx.details["history_order"] = (
        f"judged on plays at once whose serial order the answers fix and whose created_at "
        f"differ (none when every time is the same); play.history_listing judges {ORDER} on "
        "plays one after another"
    )
