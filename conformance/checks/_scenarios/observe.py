"""Plays observed for the money scenarios: each play's balance before and after, its unit and
lot (``Observed``), played on one account or several side by side until a quota is met
(``Quota``: a number of plays, or every kind of win paid), and a balance read that lags behind
(``read_lag_of``). The money scenarios (``money``) judge what these observe.
"""

from __future__ import annotations

import threading
from collections.abc import Set
from dataclasses import dataclass, field
from typing import Any

import reference
from contract import ErrorReply

from ..._pool import map_in_order
from ..._registry import Evidence
from .client import (
    Account,
    Case,
    Document,
    Session,
    _funded,
    evidence,
    ref_prize,
)


@dataclass(frozen=True)
class Observed:
    """One play and the balances around it: before, as the play said, and as read after."""

    play: Document
    before: int
    said: int
    after: int
    ticket: str
    prize: int  # the reference's prize of the ticket AUTO shows: the unit's lot

    @property
    def delta(self) -> int:
        return self.after - self.before


#: the most plays ``observe_plays`` makes to see every kind of win: an Extra-grid win is in
#: about 1 unit of 23 (eldorado), so missing one kind in this many plays is below 1e-7
EVERY_KIND_CAP = 400


@dataclass
class Quota:
    """The plays still to make, shared by the accounts of one scenario played side by side:
    ``plays`` at least, split evenly over the accounts (``shares``), then on (up to ``cap`` in
    all) while a kind of win in ``wanted`` is unseen, by whichever account is free first."""

    plays: int
    cap: int
    wanted: set[str]
    shares: list[int] = field(default_factory=lambda: [0])
    made: list[int] = field(default_factory=lambda: [0])
    stopped: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def take(self, account: int = 0) -> bool:
        """Whether account number ``account`` makes one more play (counted at once)."""
        with self.lock:
            if self.stopped or sum(self.made) >= self.cap:
                return False
            if self.made[account] >= self.shares[account] and not self.wanted:
                return False
            self.made[account] += 1
            return True

    def saw(self, kinds: Set[str]) -> None:
        with self.lock:
            self.wanted -= kinds

    def stop(self) -> None:
        """An account met a fault: the others make no more plays."""
        with self.lock:
            self.stopped = True


def _quota(case: Case, until_every_kind: bool, accounts: int = 1) -> Quota:
    game, plays = case["game"], case["plays"]
    cap = max(plays, EVERY_KIND_CAP) if until_every_kind else plays
    wanted = set(reference.game_win_kinds(game)) | {"loss"} if until_every_kind else set()
    shares = [plays // accounts + (1 if k < plays % accounts else 0) for k in range(accounts)]
    return Quota(plays, cap, wanted, shares, [0] * accounts)


def observe_plays(
    session: Session,
    case: Case,
    *,
    until_every_kind: bool = False,
    quota: Quota | None = None,
    number: int = 0,
) -> list[Observed] | Evidence:
    """``case["plays"]`` plays of one account, each revealed with AUTO; with
    ``until_every_kind`` it goes on (up to ``EVERY_KIND_CAP`` plays) until it has seen a losing
    unit and a winning unit of every kind the game has (``reference.game_win_kinds``), so a
    fault in one way of winning is met whichever units the block happens to sell. With a
    ``quota`` shared by several accounts (``observe_accounts``; this one is account
    ``number``), those counts are theirs together."""
    game, stake = case["game"], case["stake_cents"]
    quota = quota if quota is not None else _quota(case, until_every_kind)
    account = _funded(session, stake, quota.cap)
    before = session.balance(account)
    seen: list[Observed] = []
    retried = False
    while quota.take(number):
        played = session.play(account, game, stake)
        ticket, _ = session.auto(account, played["play_id"])
        prize = ref_prize(game, stake, ticket)
        if prize is None:
            quota.stop()
            return evidence(
                case,
                "a valid ticket",
                ticket,
                f"AUTO of play {played['play_id']} shows a "
                "ticket that is not valid: its lot is unknown",
                {"operation": "auto"},
            )
        quota.saw(reference.win_kinds(game, stake, ticket) if prize else {"loss"})
        after = session.balance(account)
        seen.append(Observed(played, before, played["balance_cents"], after, ticket, prize))
        if prize and not retried and after == played["balance_cents"]:
            retried = True  # once an account: a client's retried AUTO of a settled play
            paid_again = retried_auto(session, account, played, after)
            if paid_again is not None:
                quota.stop()
                return money_evidence(
                    {**case, "requirement": "play.money.exact"},
                    seen[-1],
                    {"balance_cents": after},
                    {"balance_before_second_auto": after, "balance_after": paid_again},
                    f"AUTO asked again for play {played['play_id']}, already revealed and "
                    f"paid, moved the balance from {after} to {paid_again} cents: a play "
                    "credits its prize once, at the purchase",
                )
        before = after
    return seen


def retried_auto(session: Session, account: Account, played: Document, settled: int) -> int | None:
    """The balance after AUTO is asked a second time for ``played`` (a client retrying, or
    AUTO after every button is clicked), when it is not ``settled`` any more; None when it
    is. The second AUTO may answer the ticket again or be refused (4xx): either way it pays
    nothing."""
    try:
        session.adapter.auto(played["play_id"], account.token)
    except ErrorReply as refusal:
        if not 400 <= refusal.status < 500:
            raise
    balance = session.balance(account)
    return None if balance == settled else balance


def observe_accounts(
    session: Session, case: Case, *, until_every_kind: bool = False
) -> list[list[Observed]] | Evidence:
    """``observe_plays`` on ``case["accounts"]`` accounts (default 1) played side by side, the
    plays (and ``until_every_kind``) counted over all of them; each account's plays are made
    one after another, so its balances are judged exactly. Returns each account's plays, in
    account order, or the evidence of the first account (in that order) that met a fault."""
    accounts = max(1, int(case.get("accounts", 1)))
    quota = _quota(case, until_every_kind, accounts)

    def one(number: int) -> list[Observed] | Evidence:
        try:
            return observe_plays(
                session, case, until_every_kind=until_every_kind, quota=quota, number=number
            )
        except BaseException:
            quota.stop()
            raise

    chains: list[list[Observed]] = []
    for found in map_in_order(one, range(accounts), accounts):
        if isinstance(found, Evidence):
            return found
        chains.append(found)
    return chains


def _said_exact(case: Case, seen: list[Observed]) -> bool:
    """Whether the plays' own ``balance_cents`` follow one another exactly from the first
    balance read."""
    balance = seen[0].before if seen else 0
    for o in seen:
        if o.said != balance - case["stake_cents"] + o.prize:
            return False
        balance = o.said
    return True


def read_lag_of(case: Case, chains: list[list[Observed]]) -> Evidence | None:
    """Evidence for play.money.balance_read when every account's own ``balance_cents`` are
    exact one after another (from its first balance read) but a balance read after a play
    differs (the first, in account order): the reads are wrong, not the debits and credits,
    so the money requirements are not blamed. None otherwise."""
    if not any(chains) or not all(_said_exact(case, seen) for seen in chains):
        return None
    bad = next((o for seen in chains for o in seen if o.after != o.said), None)
    if bad is None:
        return None
    return money_evidence(
        {**case, "requirement": "play.money.balance_read"},
        bad,
        {"balance_cents": bad.said},
        {"play_balance_cents": bad.said, "balance_read_after": bad.after},
        f"every play's balance_cents is exact, but the balance read right after play "
        f"{bad.play['play_id']} is {bad.after}, not the {bad.said} the play answered",
    )


def money_evidence(case: Case, o: Observed, expected: Any, got: Any, note: str) -> Evidence:
    request = {"operation": "play", "game": o.play.get("game"), "play_id": o.play["play_id"]}
    got = {**got, "ticket": o.ticket, "prize_cents": o.prize}
    return evidence(case, expected, got, note, request)
