"""Player sessions (issue 27): accounts that live as a player's do, judged again at the end.

A harness that only ever makes fresh accounts play back to back, finishes every ticket at
once and judges it a moment later sees a young target. These scenarios play like people:

- **paced players** (``accounts`` of them, round robin over the pairs in scope, one in two opening
  its account with a player's deposit, ``_funding``): a pause of seconds before each request (drawn
  from the case's ``seed``), a ticket bought (after its first, now and then at another pair in scope
  it then stays at: ``_changed``), some of its buttons clicked one by one, then AUTO (one time in
  two after a person's pause: a ticket put down) or the ticket left half revealed (or, without
  buttons, never shown), a balance read now and then (each judged on the way back against its plays
  then: ``_read``), a history read now and then, a token mistyped now and then (a client's mistake,
  refused 401: the probes of the run spread through it at places the seed draws), until ``span_s``
  seconds have passed; in a span of a minute or more (the soak's) every other one signs up late,
  alone, at a moment of the span's first half the seed draws (``_joins``);
- **old accounts** (one per game, at the game's first pair): a first ticket left half revealed
  (without buttons: never shown), then ``old_plays`` plays back to back, each finished by AUTO; as a
  player who settles on a game and stake and then tries another, a run of a few plays at its pair,
  then one to three at another pair in scope (another stake, the other game), then back, the lengths
  and pairs the seed draws (``_excursions``: a wallet that keys a credit on the account's settled
  stake or game, never met by accounts of one pair or by ones that change at every play, shows);
  bought in runs of 1 to ``RUN_PLAYS`` the seed draws: each ticket of a run bought the moment the
  previous one's answer arrives (a player buying again at once), then each finished by AUTO; plays
  so close share a ``created_at`` second always, and its millisecond often (a history whose ties are
  broken by another key than the order bought shows: ``play.history.order``); one run in four has
  its last ticket put down (clicked 0 to 2 times, or never shown), for the way back; one ticket
  with buttons in eight is not finished by AUTO but revealed by hand to its end, every button
  in turn (``BY_HAND``: the chain and the history judge it as its player left it);
- **the way back**: when the span is over, each account's token as it comes back (an old account's,
  unused since its plays) asks for the next account's balance: refused 403/404
  (``security.tokens.isolation``); after a person's pause every account reads its balance (the app
  opens on it) and plays once more (a paced player three times in four at a pair it never played:
  ``_back_pair``), then is judged again: each play's balance (the chain from the opening: before -
  stake + its ticket's lot, ``play.money.exact``, or ``<game>.prize_credited`` when only the lot is
  missing, ``<game>.stake_debited`` when one same error falls on every play), AUTO sent again on a
  share of the finished plays (the same ticket and prize, ``play.auto.answer``, or a refusal: the
  target's choice, ``auto-again``; the balance unmoved either way, ``play.money.exact``), the
  balance read and every balance read at the player's pace before it (``play.money.balance_read``),
  one in two of the tickets left unfinished finished by AUTO now (its ticket and prize,
  ``play.auto.answer``; the balance unmoved, ``play.money.exact``), the whole history
  (``play.history.complete``), the account's plays listed in the order bought
  (``play.history.order``), each of its entries, the oldest too, showing its play, ticket and prize
  (``<game>.history_unrevealed``), and so each entry of the history read as an app reads it, without
  a limit, their ``created_at`` newest first (``play.history.created_at``), every half revealed
  ticket revealed on from where it stopped (``robots.4.3.reveal_symbols``); last, an old account
  sends ``overlap.OLD_ROUNDS`` rounds of requests that overlap (plays at two pairs, AUTO, a click,
  balance reads), each request at a moment drawn over a person's fraction of a second
  (``overlap.old_account_rounds``: ``play.money.concurrent_one_account``);
- **slow tappers** (as many as the paced players, ``tappers_of``): through the span, in the
  background, tickets looked at as a person does (``_tapped_slowly``: a read after a glance, a
  few clicks, a read again, AUTO), the run's gaps stratified over a person's range and dealt
  from the seed (``pace``); every click's answer of the run's players judged on the way back
  against its ticket (``_taps_judged``);
- **newcomers**: at the end, at each game's first stake, accounts of exactly one stake (one in two
  with a residue under a stake beside it) play once each until one loses and one of each kind wins
  (``money.emptied_accounts``): a wallet that treats accounts opened after some number of others
  otherwise shows there;
- **sleepers** (``SLEEPERS``, round robin over the pairs in scope, each opened with a player's
  deposit): one play each as the scenario starts, before the span (finished by AUTO, its
  balance judged), then nothing until the scenario is over, every part above included: the
  longest idle of the run (a player back the next day), its token unused as long. Each then
  comes back, one in ``PROBE_FIRST`` with its token asking for another sleeper's balance first
  (refused 403/404, ``security.tokens.isolation``) and then a play, the others with a play
  first and the probe after; each play back judged as the first (the balance the play
  answers: before - stake + its ticket's lot, ``play.money.exact`` or
  ``<game>.prize_credited``). A fifteenth red team's wallet that queued the lot of an account's
  first play after 10 s without one, and a token cache that let a token unused for 10 s open
  any account, were CERTIFIED: no account of the run lay idle longer than a person's pause or
  the span.

Plays deep in a block, and through its end, are ``deep.py``'s.

The pauses are the seed's; what the target answers, and so which tickets are won, is not: a
replay re-runs the same sessions, not the same tickets (as every play scenario).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import random
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import reference
from contract import ErrorReply

from ..._pool import map_in_order
from ..._registry import Evidence, Reservation
from ..._timestamps import ReadTime, read_time
from ...games import kit
from .. import _pace as pace
from .clicks import requirements_of
from .client import (
    MAX_CLICKS,
    WHOLE_HISTORY,
    Account,
    Case,
    Document,
    LimitReached,
    Session,
    balance_requirement,
    credit_requirement,
    evidence,
    funded_with,
    mistyped,
    one_same_error,
    ref_prize,
    refused,
    reply_doc,
    reveal_tuple,
    ticket_buttons,
)
from .money import emptied_accounts
from .overlap import (
    Won,
    old_account_rounds,
    own_account_replay,
    paced_rounds,
    serial_reads,
    serial_replay,
)
from .reveal import revealed_on
from .top_tiers import Found, Hold, Through, judge_again, no_hold, play_through

MONEY = "play.money.exact"
ONE_ACCOUNT = "play.money.concurrent_one_account"
OLD_REPLAYS = 4  # rounds an old account's overlapping round that found a fault replays
OWN_REPLAYS = 2  # rounds of them replayed on the round's own account after that (at its pace)
BALANCE_READ = "play.money.balance_read"
HISTORY = "play.history.complete"
CREATED_AT = "play.history.created_at"
ORDER = "play.history.order"
AUTO_ANSWER = "play.auto.answer"
LIMIT = "play.history.limit"
PAGE = 10  # the page of the history a paced player reads now and then
#: the limits every account's history is asked with below its count (``_pages_judged_below``):
#: up to this one (``play.history_listing`` asks up to 101, on a young account) ...
DEEP_PAGE_FROM = 101
#: ... the page sizes of the usual maximum and below it, and past it ...
USUAL_PAGES = (10, 20, 25, 50, 100)
#: ... the sizes a history is commonly paged by past it
DEEP_PAGES = (120, 128, 150, 200, 250, 256, 300, 400, 500, 512, 1000)
TOKENS = "security.tokens.required"
ISOLATION = "security.tokens.isolation"

PAUSE_S = (0.5, 3.0)  # a player's pause before a play or a read, seconds
CHANGE_PAIR = 0.25  # a paced player's chance, at a purchase after its first, to change pair
PUT_DOWN = 0.5  # a paced player's chance to pause a person's pause before AUTO on a ticket
FINISHED_LATER = 0.5  # a ticket left unfinished that the way back finishes by AUTO
PUT_DOWN_RUN = 0.25  # an old account's run whose last ticket is put down unfinished
BY_HAND = 1 / 8  # an old account's ticket with buttons revealed by hand to its end, no AUTO
BACK_ELSEWHERE = 0.75  # a paced player's way back at another pair than its own
CLICK_PAUSE_S = (0.2, 1.0)  # between two clicks
HALF_CLICKS = 6  # clicks before an old account's first ticket is left
MID_CHAIN_CLICKS = 10  # clicks more, at most, until one shows a +1 (``_to_a_plus_one``)
RUN_PLAYS = 8  # an old account's tickets bought in a row before it finishes them
RESENT_AUTOS = 8  # finished plays a player has AUTO sent again on the way back
OLDEST_RESENT = 3  # ... of which its oldest ones
FUNDED_PLAYS = 300  # a paced player's funding, in stakes
#: a player's deposits, cents: what one paced player in two opens its account with (the others
#: FUNDED_PLAYS stakes), an app's preset amount or, as often, one typed by hand
#: (``TYPED_DEPOSIT_EUROS``); when its balance no longer pays a stake, it only reads
USUAL_DEPOSITS = (2_000, 5_000, 10_000, 20_000, 50_000)
TYPED_DEPOSIT_EUROS = (5, 300)  # a deposit typed by hand: whole euros in this range
LATE_SPAN_S = 60.0  # a span at least this long has paced players that sign up late
SLEEPERS = 48
"""Sleepers: accounts that play once as the scenario starts (round robin over the pairs in
scope) and come back only at its very end, the longest idle the run has (``_sleepers``) ..."""
PROBE_FIRST = 4  # ... one in this many coming back with its token's probe first, else its play


@dataclass
class Bought:
    """One play as the harness knows it: the answer, the clicks made (robots), AUTO's answer."""

    played: Document
    game: str
    stake: int
    clicks: list[int] = field(default_factory=list)  # reveals shown, per button
    order: list[int] = field(default_factory=list)  # the buttons clicked, in turn
    again: bool = False  # the last reveal showed a +1: its button has one more click
    #: each click's answer: (button, its reveal number under that button, what it showed),
    #: judged on the way back against the ticket (``_taps_judged``)
    shown: list[tuple[int, int, tuple[str, bool, bool]]] = field(default_factory=list)
    by_hand: bool = False  # revealed by hand to its end (every button clicked), never AUTO'd
    ticket: str | None = None
    prize: int | None = None

    @property
    def finished(self) -> bool:
        """Finished by AUTO (its ticket and prize are AUTO's)."""
        return self.prize is not None


@dataclass
class Player:
    """An account and everything it did; ``paced``: a person's pauses between requests."""

    account: Account
    game: str
    stake: int
    opening: int
    paced: bool
    bought: list[Bought] = field(default_factory=list)
    elsewhere: list[tuple[str, int]] = field(default_factory=list)  # other pairs it may try
    listed_up_to: int | None = None  # the target's own limit on ``limit``, when it has one
    ties: int = 0  # plays one after another listed side by side with the same created_at
    opened_at: float = field(default_factory=time.monotonic)  # when its account was opened
    last_play_at: float | None = None  # when its last play was bought
    listed: int = 0  # entries of the whole history read on the way back
    at: tuple[str, int] | None = None  # the pair a paced player changed to (None: its own)
    reads: list[tuple[int, int]] = field(default_factory=list)  # (plays bought, balance read)
    #: (plays bought, limit asked, play ids listed): the history read at the player's pace
    pages: list[tuple[int, int | None, list[str]]] = field(default_factory=list)
    limited: bool = False  # its account reached a limit of its own: it buys no more
    tapper: bool = False  # a slow tapper (``_tapping``): its way back sends no rounds at once


class _Limited(Exception):
    """A player's account reached a limit of its own (``LimitReached``, row
    ``stake-own-limit``): the player stops buying, as a person whose limit is reached does;
    what it bought is judged on the way back."""


class _Found(Exception):
    """A fault met on the way: its evidence and the requirement it breaks."""

    def __init__(self, found: Evidence, requirement: str) -> None:
        super().__init__(requirement)
        self.found = found
        self.requirement = requirement


def _pause(rng: random.Random, bounds: tuple[float, float], deadline: float) -> None:
    """Sleep a player's pause, never past ``deadline``."""
    time.sleep(max(0.0, min(rng.uniform(*bounds), deadline - time.monotonic())))


def _buy(session: Session, player: Player, pair: tuple[str, int] | None = None) -> Bought:
    """A play at the player's (game, stake), or at ``pair``. Refused by a limit of the
    account's own (``LimitReached``): the reservation handed over (what the player would have
    gone on to do is not judged), the player ``limited`` and ``_Limited`` raised; every other
    player, and what this one did before, are judged all the same."""
    game, stake = pair or (player.game, player.stake)
    if player.limited:
        raise _Limited()
    try:
        played = session.play(player.account, game, stake)
    except LimitReached as limit:
        _finished_early(session, player)  # a 409 first finishes its tickets (one-open-ticket)
        player.limited = True
        session.reserve(limit.reservation)
        raise _Limited() from None
    one = Bought(played, game, stake)
    _finished_early(session, player)
    if kit(game).reveals and "reveal" in session.capabilities:
        one.clicks = [0] * reference.game_engine(game).buttons
    player.bought.append(one)
    player.last_play_at = time.monotonic()
    return one


def _finished_early(session: Session, player: Player) -> None:
    """The player's tickets the session finished by AUTO to free the account for a play the
    target refused meanwhile (one unfinished ticket per account, row ``one-open-ticket``):
    finished, with AUTO's ticket and prize, as their player left them (never clicked on)."""
    if not session.tickets.finished_early:
        return
    for one in player.bought:
        early = None if one.finished else session.tickets.early(str(one.played["play_id"]))
        if early is not None:
            one.ticket, one.prize = early


def _finish(session: Session, player: Player, one: Bought) -> None:
    one.ticket, one.prize = session.auto(player.account, str(one.played["play_id"]))


def _found(case: Case, requirement: str, expected: Any, got: Any, note: str, op: str) -> _Found:
    """A fault of ``requirement``: its evidence names it (the check may cover others)."""
    proof = evidence({**case, "requirement": requirement}, expected, got, note, {"operation": op})
    return _Found(proof, requirement)


def _paced(
    session: Session, case: Case, player: Player, rng: random.Random, deadline: float
) -> None:
    """A person playing until ``deadline``: pauses of seconds, clicks one by one, reads."""
    _read(session, player)  # the app opens on the balance
    while time.monotonic() < deadline:
        _pause(rng, PAUSE_S, deadline)
        if time.monotonic() >= deadline:
            return
        action = rng.random()
        if action < 0.12:
            _read(session, player)
        elif action < 0.22:  # the app's screen (no limit) or a page of 10, as the draw falls
            _listing(session, player, None if action < 0.17 else PAGE)
        elif action < 0.27:
            _mistake(session, case, player)
        elif not _affords(player, _changed(rng, player)[1]):  # its deposit spent: it only reads
            _read(session, player)
        else:
            one = _buy(session, player, player.at)
            if not one.clicks and rng.random() < 0.3:
                continue  # a ticket never shown (an app closed): the way back finishes it
            if one.clicks:
                leave = rng.random() < 0.3  # left half revealed: come back to at the end
                for _ in range(rng.randrange(0, 6)):
                    _pause(rng, CLICK_PAUSE_S, deadline)
                    # a ticket left is clicked buttons in turn (what it shows on the way back
                    # is then 4.3's to judge); one finished by AUTO anywhere
                    button = _in_turn(one) if leave else rng.randrange(len(one.clicks))
                    _tap(session, player, one, button)  # refused (409): the way back judges
                if leave:
                    _to_a_plus_one(session, player, one, deadline)
                    continue
            # AUTO at once, or after the phone was put down a while (a reveal session expired)
            _pause(rng, PAUSE_S if rng.random() < PUT_DOWN else CLICK_PAUSE_S, deadline)
            _finish(session, player, one)


def _page(session: Session, player: Player, rng: random.Random) -> None:
    """One time in two, a paced player's app reads the history's newest page (``PAGE``),
    kept to be judged (``_pages_judged``)."""
    if player.paced and rng.random() < 0.5:
        _listing(session, player, PAGE)


def _listing(session: Session, player: Player, limit: int | None) -> None:
    """The history read at the player's pace (``limit`` None: the app's screen), kept to be
    judged on the way back (``_pages_judged``)."""
    listed = session.history(player.account, limit)
    player.pages.append((len(player.bought), limit, [str(p.get("play_id")) for p in listed]))


def _read(session: Session, player: Player) -> None:
    """A balance read at the player's pace, kept to be judged on the way back (against the
    balance its plays so far end at, once every ticket is known): a read served otherwise
    seconds after a play than right after it (every other judged read's moment) shows."""
    player.reads.append((len(player.bought), session.balance(player.account)))


def _changed(rng: random.Random, player: Player) -> tuple[str, int]:
    """The pair of the paced player's next purchase: now and then, after its first, another
    pair in scope (a person changing the game or stake after a pause: a wallet that treats a
    first ticket at a new pair after a pause otherwise, never met by accounts of one pair or by
    the old accounts' changes without a pause, shows); it stays there until it changes again."""
    if player.bought and player.elsewhere and rng.random() < CHANGE_PAIR:
        player.at = rng.choice([*player.elsewhere, (player.game, player.stake)])
    return player.at or (player.game, player.stake)


def _mistake(session: Session, case: Case, player: Player) -> None:
    """The player's client sends a mistyped token: refused with 401, nothing else."""
    token = mistyped(player.account.token)
    reply = refused(lambda: session.adapter.balance(player.account.account_id, token))
    if not isinstance(reply, ErrorReply) or reply.status != 401:
        raise _found(
            case,
            TOKENS,
            {"status": 401},
            reply_doc(reply),
            f"{player.game} account {player.account.account_id!r}: a balance read with its "
            "token mistyped (the last character changed) was not refused with 401",
            "balance",
        )


def _kept_to_its_own(session: Session, case: Case, player: Player, other: Player | None) -> None:
    """On the way back, the player's token (an old session's: a target that checks ownership
    only for the tokens its cache still holds serves another account to it; a fifth red
    team's was CERTIFIED) asks for another player's balance: refused with 403 or 404."""
    if other is None or other is player:
        return
    target, token = other.account.account_id, player.account.token
    reply = refused(lambda: session.adapter.balance(target, token))
    if not isinstance(reply, ErrorReply) or reply.status not in (403, 404):
        raise _found(
            case,
            ISOLATION,
            {"status": [403, 404]},
            reply_doc(reply),
            f"account {player.account.account_id!r}'s token, on the way back, read account "
            f"{target!r}'s balance: not refused",
            "balance",
        )


def _in_turn(one: Bought) -> int:
    """The next button of buttons in turn: the last one clicked again when it showed a +1
    (robots 4.7: one more click), else the next one."""
    if not one.order:
        return 0
    last = one.order[-1]
    return last if one.again else min(last + 1, len(one.clicks) - 1)


def _old(session: Session, player: Player, plays: int, rng: random.Random) -> None:
    """An old account: its first ticket left half revealed, then ``plays`` plays in a row, at
    its pair but for the excursions ``rng`` draws (``_excursions``), bought in runs
    (``_runs``): each ticket of a run bought the moment the previous one's answer arrives,
    then each finished by AUTO in turn (one with buttons in ``BY_HAND`` revealed by hand to its
    end instead)."""
    first = _buy(session, player)
    if first.clicks:  # buttons in turn, each to its end before the next
        _clicked(session, player, first, HALF_CLICKS)
        # ... and on until a click shows a +1 (``MID_CHAIN_CLICKS`` more at most): the ticket
        # left in the middle of a button's reveals, one more click owed there (a target that
        # closes the clicked buttons of a ticket when its account plays again cuts that click
        # off; the way back shows it: row ticket-closed-by-play)
        for _ in range(MID_CHAIN_CLICKS):
            if first.again or not _tap(session, player, first, _in_turn(first)):
                break
    # a game without buttons: its first ticket left never shown (the way back finishes it)
    pairs = _excursions(rng, (player.game, player.stake), player.elsewhere, plays)
    at = 0
    for run in _runs(rng, plays):
        chosen = pairs[at : at + run]
        if not _affords(player, sum(stake for _, stake in chosen)):
            return  # its balance spent (a wallet limit kept it small): the report says how old
        bought = [_buy(session, player, pair) for pair in chosen]
        # now and then the run's last ticket is put down: clicked a little, or never shown
        # (the way back finishes it by AUTO or clicks it on, seconds later)
        left = bought.pop() if rng.random() < PUT_DOWN_RUN else None
        for one in bought:
            # now and then revealed by hand to its end, every button in turn, never AUTO (as
            # people play: the next plays' balances and the way back's history judge what that
            # did, a settlement on the last click that credits the lot again, or a history that
            # shows no prize for a ticket no AUTO settled)
            one.by_hand = bool(one.clicks) and rng.random() < BY_HAND and not one.finished
            if one.by_hand:
                _clicked(session, player, one, MAX_CLICKS)
            elif not one.finished:  # finished already to free the account (one-open-ticket)
                _finish(session, player, one)
        if left is not None and left.clicks:
            _clicked(session, player, left, rng.randint(0, 2))
        at += run


def _old_funded(session: Session, stake: int, plays: int) -> tuple[Account, int]:
    """An old account for ``plays`` plays at ``stake`` (``funded_with``); refused for a wallet
    limit of the target's own, for half as many, down to ``MIN_OLD_PLAYS`` (its plays then
    stop when its balance is spent: ``_old``)."""
    while True:
        try:
            return funded_with(session, stake, plays)
        except ErrorReply as refusal:
            if not 400 <= refusal.status < 500 or plays // 2 < MIN_OLD_PLAYS:
                raise
            plays //= 2


def _to_a_plus_one(session: Session, player: Player, one: Bought, deadline: float) -> None:
    """A ticket about to be left half revealed, clicked on in turn (a quick tap each, no draw
    of the seed's) until a click shows a +1, ``MID_CHAIN_CLICKS`` more at most: left owing
    its button a click (a target that closes the clicked buttons of a ticket when its account
    plays again cuts that click off; the way back shows it, robots 4.7). Clicked once at
    least, and not past a click that showed a +1 already."""
    if not one.order:
        return
    for _ in range(MID_CHAIN_CLICKS):
        if one.again:
            return
        time.sleep(max(0.0, min(CLICK_PAUSE_S[0], deadline - time.monotonic())))
        if not _tap(session, player, one, _in_turn(one)):
            return


def _clicked(session: Session, player: Player, one: Bought, clicks: int) -> None:
    """``clicks`` clicks on ``one``, buttons in turn (a button with nothing left: stop)."""
    for _ in range(clicks):
        if not _tap(session, player, one, _in_turn(one)):
            return  # the way back judges the ticket


def _tap(session: Session, player: Player, one: Bought, button: int) -> bool:
    """A click on ``button`` of ``one``, its answer kept to be judged (``_taps_judged``);
    False when refused with 409 (nothing left under it: the way back judges the ticket)."""
    play_id, token = str(one.played["play_id"]), player.account.token
    reply = refused(partial(session.adapter.reveal, play_id, token, button))
    if isinstance(reply, ErrorReply):
        if reply.status != 409:
            raise reply
        return False
    got = reveal_tuple(one.game, reply, button)
    one.shown.append((button, one.clicks[button], got))
    one.again = got[2]
    one.clicks[button] += 1
    one.order.append(button)
    return True


def _runs(rng: random.Random, plays: int) -> list[int]:
    """``plays`` cut into runs of 1 to ``RUN_PLAYS`` plays, the seed's."""
    runs: list[int] = []
    while sum(runs) < plays:
        runs.append(min(rng.randint(1, RUN_PLAYS), plays - sum(runs)))
    return runs


MIN_OLD_PLAYS = 20  # an old account's plays funded at least, past a wallet limit
SETTLE_PLAYS = (3, 6)  # plays at its own pair before an old account tries another
TRY_PLAYS = (1, 3)  # plays at the other pair before it comes back


def _excursions(
    rng: random.Random, home: tuple[str, int], elsewhere: list[tuple[str, int]], plays: int
) -> list[tuple[str, int]]:
    """The (game, stake) of each of ``plays`` plays: runs of ``SETTLE_PLAYS`` at ``home``, each
    followed by ``TRY_PLAYS`` at one of ``elsewhere`` (none: every play at home)."""
    chosen: list[tuple[str, int]] = []
    while len(chosen) < plays:
        chosen += [home] * rng.randint(*SETTLE_PLAYS)
        if elsewhere:
            chosen += [rng.choice(elsewhere)] * rng.randint(*TRY_PLAYS)
    return chosen[:plays]


def scenario_players(
    session: Session,
    case: Case,
    hold: Hold = no_hold,
    notes: list[str] | None = None,
    limited: list[str] | None = None,
    ties: list[int] | None = None,
    ages: list[Player] | None = None,
) -> Evidence | None:
    """Paced players and old accounts side by side for ``span_s`` seconds, then every account
    judged again (the module docstring); with ``top_tier_units``, an account a (game, stake)
    playing through to a top-tier unit beside them (``top_tiers``: ``hold`` holds a stream for
    its last units, ``notes`` gets what each bought or why it did not). ``limited`` gets a
    line for each account whose whole history the target would not list
    (``Session.history_up_to``); ``ties`` each account's count of plays listed side by side
    with the same ``created_at``, judged in the order bought (``Player.ties``); ``ages`` each
    player judged again to its end (how old it grew: ``reach_of``)."""
    seed, span = int(case["seed"]), float(case["span_s"])
    pairs = [(str(g), int(s)) for g, s in case["pairs"]]
    try:  # the sleepers first, before the span starts: they lie idle through everything below
        sleepers = _sleepers(session, case, pairs, seed)
    except _Found as asleep:
        return _named(asleep)
    deadline = time.monotonic() + span
    through: list[Through | None] = (
        [None] * len(pairs) if case.get("top_tier_units") is not None else []
    )
    firsts: dict[str, int] = {}
    for game, stake in pairs:
        firsts.setdefault(game, stake)
    players: list[Player | None] = []
    dearest = max(stake for _, stake in pairs)  # an old account's tries may cost more
    for game, stake in firsts.items():
        # its plays paid three times over, or less past a wallet limit of the target's own
        account, funding = _old_funded(session, dearest, int(case["old_plays"]) + 20)
        old = Player(account, game, stake, funding, paced=False)
        old.elsewhere = [p for p in pairs if p != (game, stake)]
        players.append(old)
    # every player at once (they mostly wait), up to ``workers`` (1: the players in turn)
    tappers = tappers_of(int(case["accounts"]))
    default = len(players) + int(case["accounts"]) + tappers
    workers = max(1, int(case.get("workers", default)))
    joins = _joins(seed, int(case["accounts"]), span if workers > 1 else 0.0)
    for number in range(int(case["accounts"])):
        game, stake = pairs[number % len(pairs)]
        funding = _funding(seed, number, stake, span)
        late = joins[number] > 0
        players.append(
            None if late else _newcomer(session.open(funding), game, stake, funding, pairs)
        )
    olds = len(firsts)
    first_tapper = len(players)
    for number in range(tappers):  # at a pair with buttons when one is in scope
        game, stake = _buttons_pair(session, pairs, random.Random(f"{seed}:tapper:{number}"))
        funding = stake * FUNDED_PLAYS
        tapper = _newcomer(session.open(funding), game, stake, funding, pairs)
        tapper.tapper = True
        players.append(tapper)
    errors: list[BaseException] = []

    def join(number: int) -> Player | None:
        """A paced player that signs up late: its account opened alone, ``joins`` seconds
        into the span (None when the span is over by then)."""
        at = number - olds
        time.sleep(max(0.0, min(joins[at], deadline - time.monotonic())))
        if time.monotonic() >= deadline:
            return None
        game, stake = pairs[at % len(pairs)]
        funding = _funding(seed, at, stake, span)
        players[number] = _newcomer(session.open(funding), game, stake, funding, pairs)
        return players[number]

    def live(number: int) -> None:
        if errors:  # a fault found or the target failed: the first decides, no one else starts
            return  # (a tapper's ticket in turn takes up to half a minute at a person's pace)
        if number >= len(players):  # a play through to a top tier
            at = number - len(players)
            game, stake = pairs[at]
            rng = random.Random(f"{seed}:through:{game}:{stake}")
            try:
                through[at] = play_through(session, case, game, stake, rng, deadline, hold)
            except BaseException as exc:  # judged in order below
                errors.append(exc)
            return
        try:
            player = players[number] or join(number)
            if player is None:
                return
            if number >= first_tapper:
                if number not in background:  # one request at a time: in turn
                    _tapping(session, player, seed, number - first_tapper, tappers, deadline)
            elif player.paced:
                _paced(session, case, player, random.Random(f"{seed}:player:{number}"), deadline)
            else:
                rng = random.Random(f"{seed}:old:{number}")
                _old(session, player, int(case["old_plays"]), rng)
        except _Limited:  # its limit reached: it stops, the way back judges what it did
            return
        except BaseException as exc:  # judged in order below
            errors.append(exc)

    # the slow tappers tap beside everything, their last ticket's gaps past the deadline too:
    # each one's way back waits for it alone, the others' never do (``_tapped_slowly``)
    background: dict[int, Future[None]] = {}
    if workers > 1:
        pool = ThreadPoolExecutor(max_workers=tappers)
        for number in range(first_tapper, len(players)):
            who = players[number]
            assert who is not None
            args = (session, who, seed, number - first_tapper, tappers, deadline)
            background[number] = pool.submit(_tapping_caught, *args)
        pool.shutdown(wait=False)  # each one's way back waits for its own
    map_in_order(live, range(len(players) + len(through)), workers)
    if notes is not None:
        notes.extend(t.note for t in through if t is not None)
    if errors:
        first = errors[0]
        if isinstance(first, _Found):
            return _named(first)
        if isinstance(first, Found):
            return first.found
        raise first
    time.sleep(max(0.0, deadline - time.monotonic()))  # old accounts wait for the way back

    def back(number: int) -> Evidence | None:
        player = players[number]
        if player is None:  # a late player the span ended before
            return None
        if number in background:  # a slow tapper's last ticket, tapped to its end first
            background[number].result()
        try:
            # first, the token as it comes back (an old account's: unused for the span)
            _kept_to_its_own(session, case, player, players[(number + 1) % len(players)])
            _way_back(session, case, player, random.Random(f"{seed}:back:{number}"))
        except _Found as found:
            return _named(found)
        if ages is not None:
            ages.append(player)
        if ties is not None:
            ties.append(player.ties)
        if player.listed_up_to is not None and limited is not None:
            limited.append(
                f"account {player.account.account_id!r} ({player.game} at {player.stake} "
                f"cents): {len(player.bought)} plays, its history listed up to "
                f"{player.listed_up_to} (a larger limit refused)"
            )
        return None

    # every account judged again side by side (each its own requests in turn); the first
    # fault in account order is the one reported, as one after another would report it
    for found in map_in_order(back, range(len(players)), workers):
        if found is not None:
            return found
    # newcomers: accounts opened now, at the run's end, each of exactly one stake (its balance
    # to 0 before the lot) or one with a residue under a stake, one play each until each kind
    # wins (a wallet that treats accounts opened after some number of others, or after some
    # uptime, otherwise shows here)
    for game, stake in firsts.items():
        prize = f"{kit(game).prize_article}.prize_credited"
        newcomer = {**case, "game": game, "stake_cents": stake, "requirement": prize}
        found = emptied_accounts(session, newcomer)
        if found is not None:
            return found
    for done in through:  # the top-tier plays, long after
        try:
            if done is not None:
                judge_again(session, case, done)
        except Found as fault:
            return fault.found
    return _sleepers_back(session, case, sleepers)  # last: the longest idle of the run


def _sleepers(
    session: Session, case: Case, pairs: list[tuple[str, int]], seed: int
) -> list[Player]:
    """``SLEEPERS`` accounts, round robin over ``pairs``, each opened with a player's deposit
    the seed draws (``USUAL_DEPOSITS``; one the target refuses with a 4xx, a wallet limit of its
    own, is left out) and played once (``_slept_play``): they come back at the scenario's end
    (``_sleepers_back``)."""
    sleepers = []
    for number in range(SLEEPERS):
        game, stake = pairs[number % len(pairs)]
        funding = random.Random(f"{seed}:sleeper:{number}").choice(USUAL_DEPOSITS)
        try:
            account = session.open(funding)
        except ErrorReply as refusal:  # a wallet limit of the target's own: no such sleeper
            if not 400 <= refusal.status < 500:
                raise
            continue
        sleeper = _newcomer(account, game, stake, funding, pairs)
        sleeper.paced = False
        sleepers.append(sleeper)
    for sleeper in sleepers:
        with contextlib.suppress(_Limited):  # its limit reached: it stops there
            _slept_play(session, case, sleeper, "as the scenario started")
    return sleepers


def _sleepers_back(session: Session, case: Case, sleepers: list[Player]) -> Evidence | None:
    """Each sleeper back after the scenario's whole length: one in ``PROBE_FIRST`` its token's
    probe (``_kept_to_its_own``: another sleeper's balance, refused) and then a play, the others
    the play first; the first fault met, in sleeper order."""
    for number, sleeper in enumerate(sleepers):
        other = sleepers[(number + 1) % len(sleepers)]
        try:
            if number % PROBE_FIRST == PROBE_FIRST - 1:
                _kept_to_its_own(session, case, sleeper, other)
            if not sleeper.limited:
                _slept_play(session, case, sleeper, "back after the scenario's whole length")
            if number % PROBE_FIRST != PROBE_FIRST - 1:
                _kept_to_its_own(session, case, sleeper, other)
        except _Found as found:
            return _named(found)
        except _Limited:
            continue
    return None


def _slept_play(session: Session, case: Case, sleeper: Player, when: str) -> None:
    """One play of ``sleeper`` at its pair, finished by AUTO at once: the balance its answer
    shows must be the balance before it (the opening's, or its last play's, judged so) less
    the stake plus its ticket's lot (``credit_requirement``'s)."""
    before = int(sleeper.bought[-1].played["balance_cents"]) if sleeper.bought else sleeper.opening
    if before < sleeper.stake:  # its deposit spent: it only comes back to read
        return
    one = _buy(session, sleeper)
    _finish(session, sleeper, one)
    lot = ref_prize(one.game, one.stake, one.ticket) if isinstance(one.ticket, str) else None
    lot = one.prize if lot is None else lot
    got = one.played.get("balance_cents")
    due = before - one.stake + (lot or 0)
    if got != due:
        requirement = (
            credit_requirement(one.game, before, one.stake, lot or 0, got)
            if isinstance(got, int)
            else MONEY
        )
        raise _found(
            case,
            requirement,
            {"balance_cents": due},
            {"balance_cents": got},
            f"{one.game} account {sleeper.account.account_id!r}, played {when}: the play's "
            f"answer shows a balance of {got} cents, {before} - {one.stake} + its lot of "
            f"{lot} cents was due",
            "play",
        )


def _newcomer(
    account: Account, game: str, stake: int, funding: int, pairs: list[tuple[str, int]]
) -> Player:
    """A paced player at (game, stake), the other pairs in scope its to change to."""
    player = Player(account, game, stake, funding, paced=True)
    player.elsewhere = [p for p in pairs if p != (game, stake)]
    return player


def _funding(seed: int, number: int, stake: int, span: float) -> int:
    """What paced player ``number`` opens its account with: one in two (numbers 0 and 3 of
    every 4, so late sign-ups too) a player's deposit the seed draws, number 0 one of
    ``USUAL_DEPOSITS``, number 3 a whole number of euros typed by hand
    (``TYPED_DEPOSIT_EUROS``, small sums more often), at least a stake: a target that treats
    accounts of a deposit's size otherwise, as a harness funds its accounts with odd or large
    sums, shows, and one honest only for the preset amounts a harness could list (a sixth red
    team's) too; the others a ticket every few seconds at most."""
    rng = random.Random(f"{seed}:deposit:{number}")
    if number % 4 == 0:
        return rng.choice(USUAL_DEPOSITS)
    if number % 4 == 3:  # log-uniform: small sums typed more often than large ones
        low, high = TYPED_DEPOSIT_EUROS
        return max(stake, 100 * round(math.exp(rng.uniform(math.log(low), math.log(high)))))
    return stake * max(FUNDED_PLAYS, int(span))


def _affords(player: Player, cents: int | None = None) -> bool:
    """Whether the player's balance, as its last play answered it, pays one more stake (or
    ``cents``)."""
    last = player.bought[-1].played["balance_cents"] if player.bought else player.opening
    return int(last) >= (player.stake if cents is None else cents)


def _joins(seed: int, accounts: int, span: float) -> list[float]:
    """When each paced player opens its account, seconds into the span: at once, except in a
    span of ``LATE_SPAN_S`` or more (the soak's), where every other one signs up alone at a
    moment of the span's first half the seed draws (a target that treats accounts opened in
    a burst, as a harness opens them, unlike one a person opens alone, shows)."""
    rng = random.Random(f"{seed}:joins")
    draws = [rng.uniform(1.0, span / 2) for _ in range(accounts)]
    late = span >= LATE_SPAN_S
    return [draws[n] if late and n % 2 else 0.0 for n in range(accounts)]


def _named(found: _Found) -> Evidence:
    """The evidence of a fault met (its input names the requirement it breaks)."""
    return found.found


def _way_back(session: Session, case: Case, player: Player, rng: random.Random) -> None:
    """Everything ``player`` did, judged again now (the module docstring's order)."""
    game, stake, account = player.game, player.stake, player.account
    who = "a paced player" if player.paced else "an old account"

    def fault(
        requirement: str,
        expected: Any,
        got: Any,
        note: str,
        op: str,
        pair: tuple[str, int] | None = None,
    ) -> _Found:
        """The fault, named by the (game, stake) of the play it is about (``pair``; else the
        player's)."""
        at_game, at_stake = pair or (game, stake)
        where = f"{at_game} at {at_stake} cents, account {account.account_id!r} ({who}): "
        named = {**case, "game": at_game, "stake_cents": at_stake}
        return _found(named, requirement, expected, got, where + note, op)

    # back after a while, the account plays first (a pause of seconds since its last request),
    # when its balance pays a stake
    # after a person's pause, the app opens on the balance (judged below with the span's reads)
    _pause(rng, PAUSE_S, math.inf)
    _read(session, player)
    # a paced player's app shows its last tickets beside the balance now and then, before the
    # play and after it (judged with the span's pages: a page cached from the first read shows)
    _page(session, player, rng)
    pair = _back_pair(rng, player)
    if _affords(player, pair[1] if pair else None) and not player.limited:
        with contextlib.suppress(_Limited):  # its limit reached now: judged without that play
            _finish(session, player, _buy(session, player, pair))
    _page(session, player, rng)
    # the tickets of the plays left unfinished: the history's entry (the whole listing read
    # once when there are several), else the block's unit
    unshown = [one for one in player.bought if not one.finished]
    tickets: dict[str, Any] = {}
    if len(unshown) > 2:
        whole, _ = session.history_up_to(account, WHOLE_HISTORY)
        tickets = {str(p.get("play_id")): p.get("ticket") for p in whole}
    for one in unshown:
        ticket = tickets.get(str(one.played["play_id"]))
        one.ticket = ticket if isinstance(ticket, str) else session.truth(account, one.played)[0]
    balance = _chain(player, fault)
    if balance is not None:
        _reads_judged(player, fault)
        read = session.balance(account)
        if read != balance:
            raise fault(
                BALANCE_READ,
                {"balance_cents": balance},
                {"balance_cents": read},
                f"the balance read on the way back is {read} cents; its plays end at {balance}",
                "balance",
            )
    # AUTO sent again, long after: the same ticket and prize, the balance unmoved
    finished = [one for one in player.bought if one.finished]
    # the oldest finished plays (the longest after: an answer that changes with a finished
    # ticket's age shows there), the oldest winning ones too (a prize answered wrong, as an
    # archive that lost the column answers it, shows on a win only), and others the seed draws
    oldest = finished[:OLDEST_RESENT]
    taken = {id(one) for one in oldest}
    oldest += [one for one in finished if one.prize and id(one) not in taken][:OLDEST_RESENT]
    taken |= {id(one) for one in oldest}
    others = [one for one in finished if id(one) not in taken]
    resent = oldest + rng.sample(others, min(RESENT_AUTOS - len(oldest), len(others)))
    for one in resent:
        answer = session.auto_again(account, str(one.played["play_id"]))
        if answer is not None and answer != (one.ticket, one.prize):
            ticket, prize = answer
            raise fault(
                AUTO_ANSWER,
                {"ticket": one.ticket, "prize_cents": one.prize},
                {"ticket": ticket, "prize_cents": prize},
                f"AUTO sent again on play {one.played['play_id']!r} long after answered another "
                "ticket or prize than the first time",
                "auto",
            )
    # tickets left unfinished (half revealed, or never shown), one in two finished by AUTO now,
    # seconds after the last click: their ticket and prize (a settlement of a ticket put down
    # that credits its lot again, or one that swept an unshown ticket's lot, shows below); a
    # ticket revealed by hand to its end is finished, as its player left it (its history entry
    # judged below as it is: no AUTO settled it); an old account's first ticket, half revealed
    # since the span began, is always revealed on below instead (the oldest reveal state a run
    # keeps: a state that expires shows there whatever the draws)
    kept = None if player.paced or not player.bought else player.bought[0]
    later = [
        o
        for o in player.bought
        if not o.finished and not o.by_hand and o.ticket is not None and o is not kept
    ]
    for one in [o for o in later if rng.random() < FINISHED_LATER]:
        shown = str(one.ticket)
        ticket, prize = session.auto(account, str(one.played["play_id"]))
        want = (shown, ref_prize(one.game, one.stake, shown))
        if (ticket, prize) != want:
            raise fault(
                AUTO_ANSWER,
                {"ticket": want[0], "prize_cents": want[1]},
                {"ticket": ticket, "prize_cents": prize},
                f"AUTO on play {one.played['play_id']!r}, left unfinished since the span, "
                "answered another ticket or prize than its history entry",
                "auto",
                (one.game, one.stake),
            )
        one.prize = prize
    if balance is not None:
        again = session.balance(account)
        if again != balance:
            raise fault(
                MONEY,
                {"balance_cents": balance},
                {"balance_cents": again},
                f"AUTO sent again on finished plays, or on tickets left unfinished, moved the "
                f"balance from {balance} to {again}",
                "auto+balance",
            )
    # the whole history, asked with an explicit limit above its count (without one, a page
    # is the target's choice: docs/contract-decisions.md, history-default-page; issue 28:
    # completeness is judged with an explicit limit at least the number of plays): every
    # play, none other
    mine = [str(one.played["play_id"]) for one in player.bought]
    # the target's own limit on ``limit`` below that: the newest it lists are judged, the
    # older ones cannot be read (a reservation: row history-own-limit)
    entries, own = session.history_up_to(account, len(mine) + 10)
    player.listed = len(entries)
    player.listed_up_to = own if own is not None and own < len(mine) else None
    listed = [str(p["play_id"]) for p in entries]
    judged = mine if player.listed_up_to is None else mine[-player.listed_up_to :]
    missing = [p for p in judged if p not in set(listed)]
    strangers = [p for p in listed if p not in set(mine)]
    if missing or strangers or len(listed) != len(set(listed)):
        unfinished = {str(one.played["play_id"]) for one in player.bought if not one.finished}
        hidden = not strangers and len(listed) == len(set(listed)) and set(missing) <= unfinished
        raise fault(
            f"{kit(game).history_article}.history_unrevealed" if hidden else HISTORY,
            {"plays": len(judged)},
            {"plays": len(listed), "missing": missing[:10], "strangers": strangers[:10]},
            f"the whole history lists {len(listed)} plays of its {len(judged)}: "
            f"{len(missing)} missing, {len(strangers)} not its own"
            + (", some twice" if len(listed) != len(set(listed)) else ""),
            "history",
        )
    _entries_judged(player, entries, fault)
    # the history as an app reads it, without a limit (its page is the target's choice): each
    # of its entries shows its play, ticket and prize too, the unfinished ones' included (a
    # view of the app's own, right only when asked with a limit, a sixth red team's, shows)
    _entries_judged(player, session.history(account, None), fault)
    _pages_judged(player, fault)
    _pages_judged_below(session, player, listed, rng, fault)
    # the tickets left half revealed: each button goes on where it stopped
    for one in player.bought:
        if one.clicks and not one.finished and not one.by_hand and one.ticket is not None:
            _revealed_on(session, player, one, fault)
    # every click's answer, the span's and the slow ticket's, against the ticket
    _taps_judged(player, fault)
    # last, an old account sends requests that overlap, as the eighth red team's round does on
    # a fresh account, each at a moment of a person's fraction of a second: plays at two pairs,
    # AUTO, a click and balance reads (``overlap.old_account_rounds``: a wallet that loses
    # updates only between an old account's requests, or only between requests some tens of
    # milliseconds apart, shows; its plays come after everything above is judged)
    if player.limited:  # its limit reached (its reservation made): no play to send
        return
    if player.tapper:  # the paced players send those rounds; a tapper's way back ends here,
        return  # so that its span, a ticket's gaps past the deadline, costs no wall time
    try:
        _overlapping(session, case, player, balance, rng)
    except LimitReached as limit:  # reached now: what is left of the rounds is not judged
        _finished_early(session, player)
        player.limited = True
        session.reserve(limit.reservation)


TAPS = 2  # clicks of a ticket tapped at a person's pace
GLANCES = 2  # the app's reads of it: after its purchase, before its AUTO


def tappers_of(accounts: int) -> int:
    """The slow tappers beside ``accounts`` paced players: as many, two at least."""
    return max(2, accounts)


@dataclass(frozen=True)
class Slow:
    """A ticket tapped at a person's pace (``_tapped_slowly``): the gaps before each of its
    ``TAPS`` clicks, before each of the app's ``GLANCES`` reads (a glance back at the screen:
    its history, then its balance), and the seed of its own draws (the first button tapped,
    each read's kind)."""

    taps: tuple[float, ...]
    glances: tuple[float, ...]
    seed: str


def _slow_shares(seed: object, players: int) -> list[Slow]:
    """Each of ``players`` tappers' ``Slow``: the taps' gaps stratified over ``pace.TAP_S``
    and the glances' over ``pace.GLANCE_S`` (``pace.stratified``), each kind dealt from the
    seed (``pace.dealt``), the glances the other way round (the player of the longest taps
    gets the shortest glances): any window of a person's range holds gaps of each kind,
    whatever player the seed hands them to, and the slowest player is not much slower than
    the rest."""
    rng = random.Random(f"{seed}:pace")
    taps = pace.dealt(rng, pace.stratified(rng, TAPS * players, pace.TAP_S), players)
    glances = pace.dealt(rng, pace.stratified(rng, GLANCES * players, pace.GLANCE_S), players)
    by_taps = sorted(range(players), key=lambda n: sum(taps[n]))
    by_glances = sorted(range(players), key=lambda n: sum(glances[n]), reverse=True)
    paired = dict(zip(by_taps, by_glances, strict=True))
    return [
        Slow(tuple(taps[n]), tuple(glances[paired[n]]), f"{seed}:slow:{n}") for n in range(players)
    ]


def _tapping_caught(
    session: Session, player: Player, seed: int, number: int, tappers: int, deadline: float
) -> None:
    """``_tapping``, stopped by a limit of the account's own (the way back judges what it
    did, as a paced player's)."""
    with contextlib.suppress(_Limited):
        _tapping(session, player, seed, number, tappers, deadline)


def _tapping(
    session: Session, player: Player, seed: int, number: int, tappers: int, deadline: float
) -> None:
    """Slow tapper ``number`` of ``tappers``: tickets tapped at a person's pace
    (``_tapped_slowly``) one after another while the next one ends before ``deadline`` (the
    first one always), each ticket's gaps the tapper's share of that round's
    (``_slow_shares``, round after round: a span of minutes draws them again). A ticket's gaps
    are never cut short: the tapper's way back waits for its last one."""
    for turn in itertools.count():
        if player.limited or not _affords(player):
            return  # a limit of its own reached, or its balance spent: it buys no more
        slow = _slow_shares(f"{seed}:{turn}", tappers)[number]
        if turn and time.monotonic() + sum(slow.taps) + sum(slow.glances) > deadline:
            return  # another would end past the deadline: the first one always runs
        _tapped_slowly(session, player, slow)


def _tapped_slowly(session: Session, player: Player, slow: Slow) -> None:
    """A ticket bought at the player's pair and looked at as a person does: the app's read
    after a glance (the history, newest page or screen as the seed draws, then the balance:
    judged on the way back with the paced players' reads), ``TAPS`` clicks, buttons in turn
    from one the seed draws, each after its gap, the app's read again after a glance, then
    AUTO. A ticket whose reveal session expires after a second of idleness, or a listing
    routed elsewhere after an account lay quiet some seconds (a thirteenth red team's,
    CERTIFIED while every tap came under a second after the last and every request 0.5 to 3 s
    after the account's last), shows: each click's answer is judged on the way back
    (``_taps_judged``), the reads with the span's (``_pages_judged``, ``_reads_judged``)."""
    rng = random.Random(slow.seed)
    if player.limited or not _affords(player):
        return
    try:
        one = _buy(session, player)
    except _Limited:
        return
    first = rng.randrange(len(one.clicks)) if one.clicks else 0
    glances = iter(slow.glances)
    _glanced(session, player, next(glances, 0.0), rng)
    for gap in slow.taps:
        if one.clicks and not one.finished:  # a ticket without buttons is not tapped
            time.sleep(gap)
            _tap(session, player, one, _in_turn(one) if one.order else first)
    for gap in glances:
        _glanced(session, player, gap, rng)
    if not one.finished:  # finished already to free the account (one-open-ticket)
        _finish(session, player, one)


def _glanced(session: Session, player: Player, gap: float, rng: random.Random) -> None:
    """The app's read after ``gap`` seconds: the history (its screen or newest page, as the
    seed draws), then the balance, both kept to be judged on the way back."""
    time.sleep(gap)
    _listing(session, player, None if rng.random() < 0.5 else PAGE)
    _read(session, player)


def _buttons_pair(
    session: Session, pairs: list[tuple[str, int]], rng: random.Random
) -> tuple[str, int]:
    """A slow tapper's pair: one with buttons the seed draws when one is in scope (and the
    target reveals), else any."""
    with_buttons = [p for p in pairs if kit(p[0]).reveals and "reveal" in session.capabilities]
    return rng.choice(with_buttons or pairs)


def _taps_judged(player: Player, fault: Fault) -> None:
    """Every click the player made (at its pace in the span, in turn on an old account, on
    the slow ticket) showed the ticket's next reveal under its button (the ticket: AUTO's, or
    the history's for a ticket left unfinished): else the reveal rule when the ticket's clicks
    were buttons in turn, the order rule when not (as ``reveal.revealed_on`` names them)."""
    for one in player.bought:
        buttons = None if one.ticket is None else ticket_buttons(one.game, str(one.ticket))
        if not one.shown or buttons is None:
            continue
        rules = requirements_of(one.game)
        wrong = rules.symbols if _buttons_in_turn(one.order, buttons) else rules.order
        for button, number, got in one.shown:
            reveals = buttons[button]
            want = reveals[number] if number < len(reveals) else None
            if got != want:
                raise fault(
                    wrong,
                    {"reveal": None if want is None else list(want)},
                    {"reveal": list(got)},
                    f"play {one.played['play_id']!r}: its click {number + 1} on button "
                    f"{button} showed {got}, the ticket's reveal there is {want}",
                    "reveal",
                    (one.game, one.stake),
                )


def _buttons_in_turn(order: list[int], buttons: list[list[Any]]) -> bool:
    """Whether ``order`` clicked buttons in turn from button 0: each button to its end (its
    +1 chain) before the next, as ``reveal.revealed_on`` reads "in turn" (a ticket whose clicks
    began elsewhere shows a click order's fault as the order rule's)."""
    natural = [b for b, reveals in enumerate(buttons) for _ in reveals]
    return order == natural[: len(order)]


def _overlapping(
    session: Session, case: Case, player: Player, balance: int | None, rng: random.Random
) -> None:
    """The way back's last requests, that overlap (``_way_back``)."""
    game, stake, account = player.game, player.stake, player.account
    if not player.paced and balance is not None:
        rounds_rng = random.Random(f"{case['seed']}:overlap:old:{game}:{stake}")
        rank = sorted(reference.GAMES).index(game) if game in reference.GAMES else 0
        won = _won(player)
        overlapping = old_account_rounds(session, case, account, rounds_rng, rank, won)
        if overlapping is not None:
            salt = f"overlap:old:{game}:{stake}"
            raise _Found(*_replay_named(session, case, overlapping, salt, account))
    # a paced player (a person: a young account that never sent two requests at once) ends
    # with two such rounds, the first after a person's pause (the account idle, then "buy"
    # tapped on two devices), at one instant or spread over a fraction of a second as the
    # seed draws (``overlap.paced_rounds``: a wallet that loses updates only after an account
    # lay idle, or only between a young account's requests some tens of milliseconds apart)
    if player.paced and balance is not None:
        drawn = rng.getrandbits(32)  # the way back's rng: the player's own seed
        paced_rng = random.Random(f"{drawn}:overlap")
        overlapping = paced_rounds(session, case, account, paced_rng, _won(player))
        if overlapping is not None:
            salt = f"overlap:paced:{drawn}"
            raise _Found(*_replay_named(session, case, overlapping, salt, account))


def _replay_named(
    session: Session, case: Case, found: Evidence, salt: str, account: Account
) -> tuple[Evidence, str]:
    """An old account's overlapping round's ``found`` and the requirement it breaks: the
    round's own, or, where it found the plays' order broken, the one plays made one after
    another show too (``overlap.serial_replay``, ``OLD_REPLAYS`` rounds on fresh accounts, at
    the pace of the round's pause if it came after one, then ``overlap.serial_reads``, then
    the rounds again one after another on the round's own ``account``, each play judged from
    its own answer): a wallet that credits every win late, whoever plays, every win of a play
    that comes after a person's pause, or every win of an account past its first minute,
    breaks its game's prize_credited, a history page cached for seconds whoever reads it the
    history limit's, not the one account's atomicity."""
    named = str(found.input.get("requirement", ONE_ACCOUNT))
    if named != ONE_ACCOUNT:
        return found, named
    idle = (found.request or {}).get("idle_s")  # the pause the round came after, if any
    pause_s = float(idle) if isinstance(idle, int | float) else 0.0
    serial = serial_replay(session, case, OLD_REPLAYS, f"{salt}:replay", pause_s)
    serial = serial_reads(session, case, pause_s=pause_s) if serial is None else serial
    if serial is None:  # last, the old account itself, its plays one after another
        serial = own_account_replay(session, case, account, OWN_REPLAYS, f"{salt}:own", pause_s)
    if serial is None:
        return found, named
    note = f"{found.note}; plays made one after another show it too, so it breaks {serial}"
    return replace(found, input={**found.input, "requirement": serial}, note=note), serial


ENTRY_KEYS = ("game", "stake_cents", "block_id", "index")


def _won(player: Player) -> Won | None:
    """The player's newest ticket finished by AUTO with a prize (None: none won), for its
    overlapping rounds after a pause to send AUTO on twice (``overlap._won_twice``)."""
    for one in reversed(player.bought):
        if one.finished and one.prize and one.ticket is not None:
            return Won(str(one.played["play_id"]), one.game, one.ticket, int(one.prize))
    return None


def _back_pair(rng: random.Random, player: Player) -> tuple[str, int] | None:
    """The pair of the way back's play: a paced player's, ``BACK_ELSEWHERE`` of the time,
    another pair in scope, one it never played when there is one (a person back after a while
    trying another game or stake); else its own (None)."""
    if not player.paced or not player.elsewhere or rng.random() >= BACK_ELSEWHERE:
        return None
    played = {(one.game, one.stake) for one in player.bought}
    return rng.choice([p for p in player.elsewhere if p not in played] or player.elsewhere)


def _reads_judged(player: Player, fault: Fault) -> None:
    """Each balance the player read at its pace (``_read``) is the balance its plays then ended
    at (every play's answer already judged by ``_chain``), else ``play.money.balance_read``."""
    for bought, read in player.reads:
        want = int(player.bought[bought - 1].played["balance_cents"]) if bought else player.opening
        if read != want:
            raise fault(
                BALANCE_READ,
                {"balance_cents": want},
                {"balance_cents": read},
                f"a balance read at a player's pace, after its play {bought} of "
                f"{len(player.bought)}, answered {read} cents; its plays then ended at {want}",
                "balance",
            )


def _pages_judged_below(
    session: Session, player: Player, listed: list[str], rng: random.Random, fault: Fault
) -> None:
    """Every account's history (``listed``, the whole listing, newest first) asked with limits
    below its count drawn from the seed: one of the sizes a history is commonly paged by up to
    100 (``USUAL_PAGES``), one past it (``DEEP_PAGES``: the app's "load more" asking for more
    each time), one drawn anywhere from 2 to 101 (``DEEP_PAGE_FROM``), and on an account listed
    deeper than that, one drawn anywhere past it; each must be the newest that many plays of
    the whole listing, in its order (its plays there, out of that order: ``play.history.order``;
    else ``play.history.limit``). A listing cut by a limit that reads a second internal page of
    128 one entry late (an eleventh red team's), or a heavy player's pages of at most 100
    served from a set sorted by milliseconds, its ties by id (a twelfth red team's), right
    asked whole, was CERTIFIED: an old account was asked below its count only past 101, a
    young one only at the usual page sizes (``play.history_listing``). A limit refused with a
    4xx is the target's own maximum (judged whole above)."""
    count = len(listed)
    if count <= 2 or player.listed_up_to is not None:
        return
    limits: list[int] = []
    for sizes in (USUAL_PAGES, DEEP_PAGES):  # a usual page size in each range, below the count
        below = [size for size in sizes if size < count]
        limits += [rng.choice(below)] if below else []
    limits.append(rng.randint(2, min(count - 1, DEEP_PAGE_FROM)))
    if count > DEEP_PAGE_FROM + 1:
        limits.append(rng.randint(DEEP_PAGE_FROM + 1, count - 1))
    for limit in limits:
        answer = refused(partial(session.history, player.account, limit))
        if isinstance(answer, ErrorReply):
            continue  # a maximum of the target's own below it
        page = [str(p.get("play_id")) for p in answer["answer"]]
        want = listed[:limit]
        if page != want:
            wrong = next(
                (i for i, (a, b) in enumerate(zip(page, want, strict=False)) if a != b), None
            )
            out_of_order = sorted(page) == sorted(want)
            raise fault(
                ORDER if out_of_order else LIMIT,
                {"plays": limit, "first_differing": None},
                {"plays": len(page), "first_differing": wrong},
                f"the history asked with limit {limit} (of {count} plays) is not the newest "
                f"{limit} of the whole listing, in its order: {len(page)} listed"
                + ("" if wrong is None else f", the entry at {wrong} another play")
                + (" (the same plays, out of the order bought)" if out_of_order else ""),
                "history",
            )


def _pages_judged(player: Player, fault: Fault) -> None:
    """Each history the player read at its pace (``_paced``) listed its plays bought until then,
    newest first, the newest play first: a page of ``PAGE`` exactly the newest ``PAGE`` (else
    ``play.history.limit``), a listing without a limit a run of them from the newest, of the
    target's length (else ``<game>.last_unit`` when the newest play is not first, else
    ``play.history.complete``; its plays all there but out of the order bought:
    ``play.history.order``). A page served from a cache of an earlier read (an app widget's,
    right only when read for the first time, as a test reads it) shows."""
    for bought, limit, listed in player.pages:
        newest = [str(one.played["play_id"]) for one in reversed(player.bought[:bought])]
        want = newest[: len(listed)] if limit is None else newest[:limit]
        if listed == want and (listed or not newest):
            continue
        if sorted(listed) == sorted(want) and listed:  # its plays, out of the order bought
            requirement = ORDER
        elif limit is not None:
            requirement = LIMIT
        elif newest and listed[:1] != newest[:1]:
            requirement = f"{kit(player.bought[bought - 1].game).history_article}.last_unit"
        else:
            requirement = HISTORY
        raise fault(
            requirement,
            {"plays": want or newest[:1]},
            {"plays": listed},
            f"the history read at a player's pace after its play {bought} of "
            f"{len(player.bought)}, with "
            + (f"limit={limit}" if limit is not None else "no limit")
            + ", did not list its plays until then, newest first from the newest",
            "history",
        )


def _entries_judged(player: Player, entries: list[Document], fault: Fault) -> None:
    """Every entry of the whole history, the oldest included, shows its play: the play's game,
    stake, block and unit, its ticket (AUTO's) and that ticket's prize. A history right for its
    newest entries only (an archive of older plays that lost a column) fails
    ``<game>.history_unrevealed``: the play's ticket and prize in the history (robots 4.1);
    its ``created_at`` never later than the entry before it (newest first), else
    ``play.history.created_at``."""
    _listed_as_bought(player, entries, fault)
    _created_in_order(entries, fault)
    listed = {str(p["play_id"]): p for p in entries}
    for age, one in enumerate(reversed(player.bought)):
        entry = listed.get(str(one.played["play_id"]))
        if entry is None or one.ticket is None:
            continue
        want = {k: one.played[k] for k in ENTRY_KEYS}
        want["ticket"] = one.ticket
        want["prize_cents"] = ref_prize(one.game, one.stake, one.ticket)
        got = {k: entry.get(k) for k in want}
        if got != want:
            raise fault(
                f"{kit(one.game).history_article}.history_unrevealed",
                want,
                got,
                f"the history entry of play {one.played['play_id']!r} (entry {age + 1} from "
                f"the newest, of {len(player.bought)}) does not show the play bought, its "
                "ticket and that ticket's prize: "
                + ", ".join(f"{k} {got[k]!r}, not {want[k]!r}" for k in want if got[k] != want[k]),
                "history",
                (one.game, one.stake),
            )


def _listed_as_bought(player: Player, entries: list[Document], fault: Fault) -> None:
    """The account's plays, bought one after another (each sent after the previous one's
    answer came back), listed newest first: else ``play.history.order``, whatever their
    ``created_at`` (docs/contract-decisions.md, ``history-ties``). Plays bought in the same
    second or millisecond, their ties broken by another key (a random id), are listed out of
    order with times that tie or differ by microseconds: the order is wrong, not the times
    (the fifth red team's ``play_history_same_ms_ties``; ``play_history_same_second_ties``, a
    ``timestamp(0)`` column, shows at any pace: the old accounts' runs share a second)."""
    rank = {str(one.played["play_id"]): n for n, one in enumerate(player.bought)}
    mine = [p for p in entries if str(p.get("play_id")) in rank]
    listed = [str(p.get("play_id")) for p in mine]
    player.ties = sum(_same_time(a, b) for a, b in itertools.pairwise(mine))
    for newer, older in itertools.pairwise(listed):
        if rank[newer] < rank[older]:
            raise fault(
                ORDER,
                "the account's plays newest first, as they were bought one after another",
                {"entries": [newer, older]},
                f"in the whole history, play {older!r}, bought after {newer!r} (one after "
                "the other, by one player), is listed after it",
                "history",
            )


def _same_time(one: Document, other: Document) -> bool:
    """Both entries' ``created_at`` read as the same time (a tie at the target's precision)."""
    first, second = read_time(one.get("created_at")), read_time(other.get("created_at"))
    return first is not None and second is not None and first.value == second.value


def _created_in_order(entries: list[Document], fault: Fault) -> None:
    """Along the whole listing (newest first) no ``created_at`` later than the one before it;
    values no reader understands, or of another kind (with and without an offset), are left
    to ``play.history_created_at``."""
    previous: tuple[Document, ReadTime] | None = None
    for entry in entries:
        seen = read_time(entry.get("created_at"))
        if seen is None:
            previous = None
            continue
        if previous is not None and previous[1].aware == seen.aware:
            newer, when = previous
            if seen.value > when.value:
                raise fault(
                    CREATED_AT,
                    "created_at never later than the entry before it (newest first)",
                    {
                        "entries": [newer["play_id"], entry["play_id"]],
                        "created_at": [newer.get("created_at"), entry.get("created_at")],
                    },
                    f"in the whole history, play {entry['play_id']!r} is listed after "
                    f"{newer['play_id']!r} but created later ({entry.get('created_at')!r} after "
                    f"{newer.get('created_at')!r})",
                    "history",
                )
        previous = (entry, seen)


def _chain(player: Player, fault: Fault) -> int | None:
    """The balance every play of ``player`` should end at, each play's answer judged on the way
    (before - its stake + its ticket's lot); None when a ticket is unknown or not valid."""
    prizes = [
        None if one.ticket is None else ref_prize(one.game, one.stake, one.ticket)
        for one in player.bought
    ]
    lots = [lot for lot in prizes if lot is not None]
    if len(lots) != len(prizes):
        return None  # the rules and block checks judge an invalid ticket
    answered = [int(one.played["balance_cents"]) for one in player.bought]
    stakes = [one.stake for one in player.bought]
    debit = one_same_error(player.opening, stakes, answered, lots)
    balance = player.opening
    for number, (one, lot) in enumerate(zip(player.bought, lots, strict=True)):
        stake = one.stake
        want, got = balance - stake + lot, int(one.played["balance_cents"])
        if got != want:
            raise fault(
                balance_requirement(one.game, debit, balance, stake, lot, got),
                {"balance_cents": want, "lot_cents": lot},
                {"balance_cents": got},
                f"play {number + 1} of {len(player.bought)} (play {one.played['play_id']!r}) "
                f"answered a balance of {got} cents, {want} expected (before {balance}, stake "
                f"{stake}, its ticket's lot {lot})"
                + (", after a player's pause" if player.paced else ""),
                "play",
                (one.game, stake),
            )
        balance = want
    return balance


Fault = Callable[..., _Found]  # (requirement, expected, got, note, operation[, (game, stake)])


def _revealed_on(session: Session, player: Player, one: Bought, fault: Fault) -> None:
    """A half revealed ticket revealed on from where it stopped (``reveal.revealed_on``)."""
    play_id = str(one.played["play_id"])
    later = one is not player.bought[-1]  # the account bought a play after it
    found = revealed_on(
        session,
        player.account,
        play_id,
        str(one.ticket),
        one.clicks,
        one.order,
        played_after=later,
    )
    if isinstance(found, Reservation):  # closed by a later play (row ticket-closed-by-play)
        session.reserve(found)
    elif found is not None:
        raise fault(*found)


def reach_of(players: list[Player]) -> list[str]:
    """The ages the judged accounts reached, for the report: the most plays one made, the
    deepest history listed, the oldest account at its last play (each judged; anything older
    not covered)."""
    if not players:
        return ["accounts: none judged again to the end: not covered"]
    most = max(players, key=lambda p: len(p.bought))
    deepest = max(p.listed for p in players)
    age = max((p.last_play_at or p.opened_at) - p.opened_at for p in players)
    return [
        f"accounts: the oldest made {len(most.bought)} plays ({most.game} at {most.stake} "
        f"cents), each judged again at the end; a fault only past an account's first "
        f"{len(most.bought)} plays: not covered",
        f"histories: listed {deepest} entries deep, each judged; deeper: not covered",
        f"account age: up to {age:.0f} s between an account's opening and its last play; "
        "older accounts: not covered",
    ]
