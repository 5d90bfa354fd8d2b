"""Top prize tiers bought on purpose (issue 27): a lot of 1 000 EUR or more, judged as any play.

The money checks meet a top-tier lot by chance only (robots: 32 units in 2 000 000; eldorado:
2 to 7 in 900 000), so a target that pays those apart (a fee, a smaller tier, another wallet)
is certified by them. In the soak profile (``top_tier_units``) the player sessions play
through to one at every (game, stake) in scope: an account bought like any other plays ticket
after ticket, back to back, until it buys the nearest unit of a top tier in the block on sale.

Where that unit lies is known before the first play: from this run's block audit
(``Session.known``), else from a read of the whole block at the start of the sessions, units
and minutes before the purchase, never a read of the units ahead right before it (a look-ahead
would tell a target which play is watched). For the last ``HOLD_UNITS`` units the stream is
held (``CheckContext.hold``: no other check buys them meanwhile, as ``play.top_lots`` does), so
the unit is the account's; when another check bought it first all the same, the next one is
aimed at.

Each play is judged as any play: its balance, before - stake + its unit's declared lot
(``credit_requirement``: a top-tier lot credited short names its game's ``prize_credited``),
the top-tier play's ticket by AUTO (tied to its unit like every AUTO answer, a share of the
other plays AUTO'd too), the balance read after it; on the way back, AUTO again on it (the
same ticket and prize, or a refusal: ``auto-again``) and the balance unmoved. A top-tier
unit the account could not reach within the span, or a block without one left, is said in
the check's details, never passed as judged.

An account refused a play by a limit of its own on the way (row ``stake-own-limit``: a play
refused with 409, 403 or 422 while its balance, unmoved by the refusal, pays the stake and a
new account is sold a play there, ``Session.own_limit``) is left there: the plays go on from
the unit they had reached on a fresh account, opened as the first one was (``FRESH_ACCOUNTS``
at most, past them the top tier is said not judged). Each account's plays are judged from the
balance it was opened with; the top-tier play is judged on the account that bought it.
"""

from __future__ import annotations

import random
import time
from array import array
from collections.abc import Callable, Collection
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contract import ErrorReply

from ..._registry import Evidence
from .._block_reading import of_pair, read_prizes
from .client import (
    TOP_TIER_CENTS,
    Account,
    Case,
    Document,
    Session,
    credit_requirement,
    evidence,
    ref_prize,
)

BALANCE_READ = "play.money.balance_read"
AUTO_ANSWER = "play.auto.answer"
MONEY = "play.money.exact"
HOLD_UNITS = 200
"""The last units before the top-tier unit, bought with the stream held."""
AUTO_SHARE = 0.01
"""The share of the other plays the account finishes by AUTO (tied to their units too)."""
FRESH_ACCOUNTS = 40_000
"""Fresh accounts a play through opens, at most, to go on past accounts' own limits (a safety
bound: the span says how far the plays get)."""
RATE_EVERY = 500
"""Plays between two measures of the pace (said when the span ends before the unit). The
account plays on to the span's end whatever the pace: a pace measured while the other checks
run is no guide to the one after them, and the soak's other players mostly wait."""

Hold = Callable[[Collection[tuple[str, int]]], AbstractContextManager[None]]
Prizes = tuple[int, Any]  # (start, declared prizes from there: a numpy array, -1 unknown)


class Found(Exception):
    """A fault met on the way: its evidence (its input names the requirement)."""

    def __init__(self, found: Evidence) -> None:
        super().__init__(found.note)
        self.found = found


@dataclass
class Leg:
    """One account's plays of a play through: the balance it was opened with, then each
    play's unit and answered balance, in the order bought."""

    account: Account
    funding: int
    indices: array[int] = field(default_factory=lambda: array("q"))
    balances: array[int] = field(default_factory=lambda: array("q"))


@dataclass
class Through:
    """One (game, stake)'s play through to a top-tier unit: what was bought, and what the
    check's details say of it."""

    game: str
    stake: int
    note: str = ""
    account: Account | None = None
    top: Document | None = None  # the top-tier play
    lot: int = 0
    ticket: str | None = None
    prize: int | None = None
    balance: int | None = None  # the account's balance after its last play
    plays: int = 0
    aimed: list[int] = field(default_factory=list)  # the units aimed at, in turn
    legs: list[Leg] = field(default_factory=list)  # one per account, the first one's first


def no_hold(streams: Collection[tuple[str, int]]) -> AbstractContextManager[None]:
    """The hold of a session without a run's gate (a replay): nothing else plays."""
    return nullcontext()


def known_prizes(session: Session, game: str, stake: int, block_id: str, at: int) -> Prizes:
    """The declared prizes of ``block_id`` from unit ``at`` on: the slice this run's audit
    read that holds ``at``, else the whole block, read now (``_block_reading.read_prizes``)."""
    for start, prizes in session.known(block_id):
        if start <= at < start + len(prizes):
            return start, np.asarray(prizes)
    start, prizes = read_prizes(session.adapter, game, stake, block_id)
    return start, np.asarray(prizes)


def ahead(prizes: Prizes, after: int, most: int) -> list[int]:
    """The units after ``after`` (at most ``most`` further) whose declared lot is a top
    tier's, nearest first."""
    start, values = prizes
    window = values[max(0, after + 1 - start) : max(0, after + 1 + most - start)]
    return [int(i) + after + 1 for i in np.flatnonzero(window >= TOP_TIER_CENTS)]


def play_through(
    session: Session,
    case: Case,
    game: str,
    stake: int,
    rng: random.Random,
    deadline: float,
    hold: Hold = no_hold,
) -> Through:
    """Play through to the nearest top-tier unit of the block on sale (the module docstring);
    ``Found`` for a fault met."""
    done = Through(game, stake)
    most = int(case["top_tier_units"])
    where = f"{game} at {stake} cents"
    if "blocks" not in session.capabilities:
        done.note = f"{where}: not judged, the target serves no blocks to find a top tier in"
        return done
    listed = of_pair(session.adapter.list_blocks(game, stake), game, stake)
    sizes = [int(b["units"]) for b in listed]
    funding = stake * (min(most, max(sizes, default=most)) + 10)
    try:
        done.account = account = session.open(funding)
    except ErrorReply as refusal:
        if 400 <= refusal.status < 500:
            done.note = f"{where}: not judged, an account of {funding} cents was refused"
            return done
        raise
    first = session.adapter.play(account.account_id, account.token, game, stake)
    block_id, at = str(first["block_id"]), int(first["index"])
    prizes = known_prizes(session, game, stake, block_id, at)
    targets = ahead(prizes, at, most)
    if not targets:
        done.note = (
            f"{where}: not judged, no unit of {TOP_TIER_CENTS} cents or more in block "
            f"{block_id!r} within {most} units after unit {at}"
        )
        return done
    done.legs.append(Leg(account, funding))
    done.legs[-1].indices.append(at)
    done.legs[-1].balances.append(int(first["balance_cents"]))
    done.aimed.append(targets[0])
    _reach(session, game, stake, (block_id, targets), deadline, rng, hold, done)
    # a fresh account whose first play was of another block holds no play of the chain
    done.legs = [leg for leg in done.legs if leg.indices]
    done.plays = sum(len(leg.indices) for leg in done.legs)
    done.account = done.legs[-1].account
    done.balance = done.legs[-1].balances[-1]
    for leg in done.legs:
        _judge_chain(case, done, leg, prizes, block_id)
    if done.top is not None:
        _judge_top(session, case, done, prizes)
        accounts = (
            f" on {len(done.legs)} accounts (accounts' own limits met on the way)"
            if len(done.legs) > 1
            else ""
        )
        done.note = (
            f"{where}: unit {done.top['index']} of {block_id!r} (lot {done.lot} cents) bought "
            f"after {done.plays} plays through from unit {at}{accounts}, judged"
        )
    return done


def _play(session: Session, game: str, stake: int, done: Through) -> Document | None:
    """One play on the newest leg's account; past that account's own limit
    (``Session.own_limit``), on a fresh account opened as the first one was (a new leg);
    None when no fresh account is to be had (``done.note`` says why)."""
    leg = done.legs[-1]
    account = leg.account
    try:
        return dict(session.adapter.play(account.account_id, account.token, game, stake))
    except ErrorReply as refusal:
        where = f"{game} at {stake} cents"
        if session.own_limit(account, game, stake, refusal, leg.balances[-1]) is None:
            raise
        if len(done.legs) > FRESH_ACCOUNTS:
            done.note = f"{where}: not judged, {FRESH_ACCOUNTS} accounts met their own limits"
            return None
        try:
            fresh = Leg(session.open(leg.funding), leg.funding)
        except ErrorReply as again:
            if not 400 <= again.status < 500:
                raise
            done.note = (
                f"{where}: not judged, an account's own limit met ({refusal.status} "
                f"{refusal.code}) and a fresh account of {leg.funding} cents refused"
            )
            return None
    done.legs.append(fresh)
    account = fresh.account
    return dict(session.adapter.play(account.account_id, account.token, game, stake))


def _reach(
    session: Session,
    game: str,
    stake: int,
    aim: tuple[str, list[int]],
    deadline: float,
    rng: random.Random,
    hold: Hold,
    done: Through,
) -> None:
    """Plays one after another until the aimed unit is bought (``done.top``), or the block,
    the span or the pace says it will not be (``done.note``)."""
    block_id, targets = aim
    where = f"{game} at {stake} cents"
    target = targets.pop(0)
    mark = time.monotonic()
    pace = 0.0
    bought = 0  # plays bought here, on every account
    with ExitStack() as held:
        holding = False
        while True:
            now = time.monotonic()
            if now >= deadline:
                last = done.legs[-1].indices[-1]
                done.note = (
                    f"{where}: not judged, the span ended at unit {last} of "
                    f"{block_id!r}, {target - last} units before the top-tier unit "
                    f"{target} ({pace:.0f} plays a second lately: a longer --duration reaches it)"
                )
                return
            if not holding and target - done.legs[-1].indices[-1] <= HOLD_UNITS:
                held.enter_context(hold([(game, stake)]))
                holding = True
            played = _play(session, game, stake, done)
            if played is None:
                return
            leg = done.legs[-1]
            indices, balances = leg.indices, leg.balances
            if str(played["block_id"]) != block_id:
                done.note = f"{where}: not judged, block {block_id!r} ended before unit {target}"
                return
            index = int(played["index"])
            indices.append(index)
            balances.append(int(played["balance_cents"]))
            if index == target:
                done.top = dict(played)
                return
            if rng.random() < AUTO_SHARE:  # a ticket finished, as a player would now and then
                session.remember(played, game, stake)
                session.auto(leg.account, str(played["play_id"]))
            if index > target:  # bought by another check first: the next one
                later = [t for t in targets if t > index]
                if not later:
                    done.note = (
                        f"{where}: not judged, every top-tier unit aimed at was sold to others"
                    )
                    return
                targets[:] = later[1:]
                target = later[0]
                done.aimed.append(target)
                held.close()
                holding = False
            bought += 1
            if bought % RATE_EVERY == 0:  # the pace, for the note if the span ends
                now = time.monotonic()
                pace = RATE_EVERY / max(now - mark, 1e-9)
                mark = now


def _judge_chain(case: Case, done: Through, leg: Leg, prizes: Prizes, block_id: str) -> None:
    """Every play of ``leg``'s account: the balance before - stake + its unit's declared lot."""
    start, values = prizes
    indices, balances = leg.indices, leg.balances
    before = leg.funding
    for number, (index, got) in enumerate(zip(indices, balances, strict=True)):
        lot = int(values[index - start]) if 0 <= index - start < len(values) else -1
        if lot < 0:
            return  # a unit without a declared prize: the block checks' to judge
        want = before - done.stake + lot
        if got != want:
            top = done.top is not None and index == int(done.top["index"])
            raise Found(
                _evidence(
                    case,
                    done,
                    credit_requirement(done.game, before, done.stake, lot, got),
                    {"balance_cents": want, "lot_cents": lot},
                    {"balance_cents": got},
                    f"account {leg.account.account_id!r}: "
                    f"play {number + 1} of {len(indices)} (unit {index} of {block_id!r}"
                    f"{', the top-tier unit played through to' if top else ''}) answered a "
                    f"balance of {got} cents, {want} expected (before {before}, stake "
                    f"{done.stake}, its unit's lot {lot})",
                    "play",
                )
            )
        before = want


def _judge_top(session: Session, case: Case, done: Through, prizes: Prizes) -> None:
    """The top-tier play finished by AUTO (its ticket tied to its unit), its prize the
    unit's lot, the balance read after it the last play's."""
    assert done.top is not None and done.account is not None
    start, values = prizes
    done.lot = int(values[int(done.top["index"]) - start])
    session.remember(done.top, done.game, done.stake)
    done.ticket, done.prize = session.auto(done.account, str(done.top["play_id"]))
    if ref_prize(done.game, done.stake, done.ticket) != done.lot:
        return  # another ticket than the unit's: the tie fails play.sales.block_unit
    if done.prize != done.lot:
        raise Found(
            _evidence(
                case,
                done,
                AUTO_ANSWER,
                {"prize_cents": done.lot},
                {"ticket": done.ticket, "prize_cents": done.prize},
                f"AUTO on the top-tier play {done.top['play_id']!r} answered a prize of "
                f"{done.prize} cents; its ticket's lot is {done.lot}",
                "auto",
            )
        )
    _judge_balance(
        session,
        case,
        done,
        done.account,
        BALANCE_READ,
        lambda read: (
            f"the balance read after the top-tier play is {read} cents; its plays end "
            f"at {done.balance}"
        ),
    )


def _judge_balance(
    session: Session,
    case: Case,
    done: Through,
    account: Account,
    requirement: str,
    note: Callable[[int], str],
) -> None:
    """``account``'s balance read now is the one its plays end at (``Found`` for
    ``requirement`` otherwise, ``note`` telling the balance read)."""
    read = session.balance(account)
    if read != done.balance:
        raise Found(
            _evidence(
                case,
                done,
                requirement,
                {"balance_cents": done.balance},
                {"balance_cents": read},
                note(read),
                "balance",
            )
        )


def judge_again(session: Session, case: Case, done: Through) -> None:
    """On the way back, long after: AUTO again on the top-tier play gives the same ticket and
    prize (or is refused, a 4xx: ``auto-again``), and the balance has not moved."""
    if done.top is None or done.account is None or done.ticket is None:
        return
    answer = session.auto_again(done.account, str(done.top["play_id"]))
    if answer is not None and answer != (done.ticket, done.prize):
        ticket, prize = answer
        raise Found(
            _evidence(
                case,
                done,
                AUTO_ANSWER,
                {"ticket": done.ticket, "prize_cents": done.prize},
                {"ticket": ticket, "prize_cents": prize},
                f"AUTO sent again on the top-tier play {done.top['play_id']!r} long after "
                "answered another ticket or prize than the first time",
                "auto",
            )
        )
    _judge_balance(
        session,
        case,
        done,
        done.account,
        MONEY,
        lambda read: (
            f"the balance of the account that bought a top-tier unit moved from "
            f"{done.balance} to {read} cents while it did not play"
        ),
    )


def _evidence(
    case: Case, done: Through, requirement: str, expected: Any, got: Any, note: str, op: str
) -> Evidence:
    named = {**case, "game": done.game, "stake_cents": done.stake, "requirement": requirement}
    who = "" if done.account is None else f", account {done.account.account_id!r}"
    where = f"{done.game} at {done.stake} cents{who} (played through to a top tier): "
    return evidence(named, expected, got, where + note, {"operation": op})
