"""The play scenarios' contract client: a ``Session`` on a target (open accounts, play,
balance, AUTO, history, the served block's units), and the helpers every scenario shares to read
the target's answers, to ask the reference about a ticket and to write evidence. Every answer
is a document of the contract by the time a scenario reads it: the session's adapter is
``contract.Validated`` (its schema, or a ProtocolViolation naming the fault).
"""

from __future__ import annotations

import functools
import re
import threading
import weakref
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import reference
from contract import ContractBreach, ErrorReply, ProtocolViolation, Validated
from contract._validated import check
from reference import GameError
from reference import _strict_json as strict_json

from ..._evaluation import expected_result, is_error, wins_multiset
from ..._evidence import PlayEvidence
from ..._registry import EVERY_STREAM, CheckFailure, Evidence, Reservation
from ...games import kit
from .._block_reading import read_slice
from .open_tickets import CONFLICT, NOTE, OpenTickets

Document = dict[str, Any]
Case = Mapping[str, Any]
Chooser = Callable[[int], int]
KIND = "play"
WHOLE_HISTORY = 1000  # an explicit limit above any scenario's plays on one account
NO_LIMIT_JUDGES = ("play.history.order", "play.history.complete", "play.history.limit")
"""What a history asked without ``limit`` is judged for (a check covering neither: its own)."""
OWN_LIMITS = (10_000, 5_000, 2_000, 1_000, 500, 200, 100, 50, 20, 10)
"""The largest ``limit`` values APIs usually take, tried in turn when a target refuses the one
a whole history needs (``Session.history_up_to``)."""
MAX_CLICKS = 64  # more clicks than any valid unit of a game with buttons has (robots: 18 + +1s)
MONEY = "play.money.exact"
TOP_TIER_CENTS = 100_000
# The top prize tiers: a lot of 1 000 EUR or more (each game's highest lots: docs/play-checks.md).
# The money checks meet one by chance only; the soak's player sessions play through to one
# (``_scenarios.top_tiers``).


@functools.cache
def reveal_symbols(game: str) -> dict[str, str]:
    """Every spelling a reveal of ``game`` may name a symbol with -> the symbol's letter (the
    game's engine says which: ``GameEngine.reveal_symbols``)."""
    return reference.game_engine(game).reveal_symbols()


# -- talking to the target ---------------------------------------------------------------------


SENDABLE_TOKEN = re.compile(r"[\x21-\x7e]{1,4096}")
"""A token the contract's ``Authorization: Bearer <token>`` can carry: visible ASCII, no space
(HTTP header values are Latin-1 at best; RFC 6750's b64token is a subset).
docs/contract-decisions.md says why a token outside it fails security.tokens.required."""


def mistyped(text: str) -> str:
    """``text`` with its last character changed within its class (a digit for a digit, a
    letter for a letter of the same case): a client's typo of a token or a name, of the
    target's own format, never a label that says who sent it (issue 27)."""
    if not text:
        return "0"
    last = text[-1]
    for alphabet in ("0123456789", "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
        if last in alphabet:
            return text[:-1] + alphabet[(alphabet.index(last) + 1) % len(alphabet)]
    return text[:-1] + ("A" if last != "A" else "B")


def misspelt(game: str) -> str:
    """A game's name as a client misspells it: its last letter doubled (``robotss``); for no
    name, the first registered game's."""
    return game + game[-1:] if game else reference.games()[0]


def token_fault(balance_cents: int, answer: object) -> Evidence:
    """The evidence of an account answer whose token no request could send back."""
    token = answer.get("token") if isinstance(answer, Mapping) else None
    return evidence(
        case_of("account_token", balance_cents=balance_cents),
        "a token of visible ASCII characters (it is sent as 'Authorization: Bearer <token>')",
        answer,
        f"the account's token {_short(token, 80)} cannot be sent in an Authorization header "
        "(not visible ASCII): no play endpoint can be called with it",
        {"operation": "open_account", "balance_cents": balance_cents},
    )


def _short(value: object, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


@dataclass(frozen=True)
class Account:
    account_id: str
    token: str


class _ClosedButtons:
    """The session's adapter, noting for each play the buttons the target closed: a reveal
    answered without a +1, or a 409 on the button. A play whose every button is closed has
    nothing left for AUTO to reveal (``Session.auto``)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.closed: dict[str, set[int]] = {}
        self._lock = threading.Lock()

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        try:
            doc: Document = self.inner.reveal(play_id, token, button)
        except ErrorReply as refusal:
            if refusal.status == 409:
                self._close(play_id, button)
            raise
        if doc.get("plus_one") is False:
            self._close(play_id, button)
        return doc

    def _close(self, play_id: object, button: object) -> None:
        with self._lock:
            self.closed.setdefault(str(play_id), set()).add(button)  # type: ignore[arg-type]

    def every_button_closed(self, play_id: str, buttons: int) -> bool:
        with self._lock:
            return buttons > 0 and self.closed.get(play_id, set()) >= set(range(buttons))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class LimitReached(ErrorReply):
    """A play refused by a limit of the account's own (``Session._own_limit``, row
    ``stake-own-limit``): the same refusal to a caller that judges refusals (a round of plays
    at once, a refusal scenario); uncaught, the check ends *reserved* by ``reservation``
    (``conformance._execute``), not in *error*."""

    def __init__(self, refusal: ErrorReply, reservation: Reservation) -> None:
        super().__init__(refusal.status, refusal.code, refusal.message)
        self.reservation = reservation


LIMIT_AFTER_PLAYS = 1
"""The plays an account must have bought before a refusal of the next is read as a limit of
its own (``Session._own_limit``, row ``stake-own-limit``): a limit of one play is still a
limit; an account refused its very first play has no limit to show, only a refusal."""

LIMIT_STATUSES = frozenset((403, 409, 422))
"""The statuses a limit of the account's own may come with (contract 4: "a 4xx status that
fits"): 409 "wrong state" (the account's), 403 (the player may not), 422 (the stake is invalid
for this account). 401, 402 and 404 say what is false of an account that holds its token, its
funds and its id, and 400 a request the target took before."""


@dataclass
class Session:
    """A target and what it declares: scenarios take one, checks and the replayer build it."""

    adapter: Any
    capabilities: frozenset[str]
    units: dict[str, int] = field(default_factory=dict)  # block_id -> units, from list_blocks
    bought: dict[str, tuple[str, int]] = field(default_factory=dict)  # play_id -> game, stake
    sold: dict[str, tuple[str, int]] = field(default_factory=dict)  # play_id -> block_id, index
    untied: list[Tied] = field(default_factory=list)  # AUTO answers not yet tied to their units
    _lock: threading.Lock = field(default_factory=threading.Lock)
    known: Callable[[str], list[tuple[int, Any]]] = field(default=lambda block_id: [])
    """(start, declared prizes) of the slices of a block already read (this run's audit)."""
    reserved: list[Reservation] = field(default_factory=list)
    """What the scenarios handed over (``reserve``), for the check to make its reservations of
    (``checks._session.hand_over``)."""
    notes: list[str] = field(default_factory=list)
    """What a scenario left unjudged where the check judges the requirement all the same (a
    limit of the target's own on one of several balances): said in the check's details
    (``note``), no reservation."""
    no_limit_refused: list[str] = field(default_factory=list)
    """The refusals of a history asked without ``limit`` (row ``history-default-page``)."""
    declared: tuple[tuple[int, str], ...] = ()
    """The (stake, game) pairs the target declares, smallest stake first: what an account
    opened above a minimum deposit is played down with (``open``)."""
    down_plays: set[str] = field(default_factory=set)
    """The plays that brought accounts down to the balance asked (``played_down``): left out
    of the histories read (``history``)."""
    down_sold: dict[tuple[str, int], list[Document]] = field(default_factory=dict)
    """(game, stake) -> the units (``block_id``, ``index``) those plays were sold
    (``sold_down``)."""
    _down_flying: int = 0
    _down_landed: threading.Condition = field(default_factory=threading.Condition)
    watched: Counter[object] = field(default_factory=Counter)
    """The (game, stake) streams the check holds now (``watching``; ``EVERY_STREAM``: all):
    no play brings an account down there (``played_down``)."""
    plays_made: Counter[str] = field(default_factory=Counter)
    """account_id -> the plays bought on it through the session (``play``)."""
    tickets: OpenTickets = field(default_factory=OpenTickets)
    """Each account's plays not finished yet, and those finished to free their account for a
    play the target refused meanwhile (row ``one-open-ticket``: ``play``)."""

    def __post_init__(self) -> None:
        self.adapter = Validated(self.adapter)  # every answer in the contract's shape
        self.adapter = _ClosedButtons(self.adapter)  # what AUTO has left to reveal

    @classmethod
    def of(cls, adapter: Any, implementation: Mapping[str, Any] | None = None) -> Session:
        described = implementation if implementation is not None else adapter.describe()
        return cls(
            adapter, frozenset(described.get("capabilities", [])), declared=declared(described)
        )

    def reserve(self, reservation: Reservation) -> None:
        """The one way a scenario hands over a reservation, and goes on: a case it met and
        could not judge (a freedom of the target's, a capability it skipped: kind
        ``unverifiable``), or a reading of the project's the target does not meet (kind
        ``reading``). The check makes its reservations of them when it ends
        (``checks._session.hand_over``): never a silent pass. A replay of the scenario has no
        check: they are dropped there."""
        with self._lock:
            self.reserved.append(reservation)

    def taken(self) -> list[Reservation]:
        """What was handed over (``reserve``) since the last call, in order."""
        with self._lock:
            taken, self.reserved = self.reserved, []
        return taken

    def note(self, text: str) -> None:
        """A case left unjudged that the check judges otherwise (``notes``): no reservation."""
        with self._lock:
            self.notes.append(text)

    def open(self, balance_cents: int) -> Account:
        """An account holding exactly ``balance_cents``. Refused with a 4xx while a larger
        balance is taken (a minimum deposit of the target's own: row
        ``balance-own-minimum``), one opened at the least balance taken and played down to
        it (``played_down``); the refusal itself when no larger balance is taken (a limit
        the callers read: ``funded_with``, ``open_least``)."""
        try:
            doc = self.adapter.open_account(balance_cents)
        except ErrorReply as refusal:
            if not 400 <= refusal.status < 500 or type(balance_cents) is not int:
                raise
            return played_down(self, balance_cents, refusal)
        return self._account(balance_cents, doc)

    def _account(self, balance_cents: int, doc: Mapping[str, Any]) -> Account:
        account = Account(doc["account_id"], doc["token"])
        if not SENDABLE_TOKEN.fullmatch(account.token):
            found = token_fault(balance_cents, doc)
            raise CheckFailure(  # kept where the check covers it
                found.note, [found], requirements=("security.tokens.required",)
            )
        return account

    def balance(self, account: Account) -> int:
        doc = self.adapter.balance(account.account_id, account.token)
        value: int = doc["balance_cents"]
        return value

    def play(self, account: Account, game: str, stake: int, *, free: bool = True) -> Document:
        """A play bought. Refused with 409 while a ticket of the account is unfinished (a
        target that keeps one per account, row ``one-open-ticket``), and ``free``: the
        account's unfinished tickets finished by AUTO (``tickets.finished_early``) and the play
        sent once more. Refused with 409, 403 or 422 with no ticket of the account unfinished,
        alone, on an account that bought plays before and whose balance pays the stake, while a
        new account is sold a play there: a limit of the account's own (row
        ``stake-own-limit``), ``LimitReached`` raised (``_own_limit``)."""
        doc = self._bought(account, game, stake, free)
        self.remember(doc, game, stake)
        self.tickets.bought(account.account_id, str(doc["play_id"]))
        with self._lock:
            self.plays_made[account.account_id] += 1
        return dict(doc)

    def _bought(self, account: Account, game: str, stake: int, free: bool) -> Mapping[str, Any]:
        send = functools.partial(self.adapter.play, account.account_id, account.token, game, stake)
        with self.tickets.sending(account.account_id) as alone:
            try:
                doc: Mapping[str, Any] = send()
                return doc
            except ErrorReply as refusal:
                waiting = self._unfinished(account) if refusal.status == CONFLICT else []
                if not (free and waiting and alone()):
                    if not waiting and alone():
                        self._own_limit(account, game, stake, refusal)
                    raise
                first = refusal
        for play_id in waiting:
            ticket, prize = self.auto(account, play_id)
            self.tickets.freed(play_id, ticket, prize)
        if self.tickets.refused(first.status, first.code):
            self.note(NOTE.format(refusal=f"{first.status} {first.code}: {first.message[:120]}"))
        try:
            doc = send()
        except ErrorReply as refusal:  # AUTO did not lift it: a limit, or the target's fault
            self._own_limit(account, game, stake, refusal)
            raise
        return doc

    def _own_limit(self, account: Account, game: str, stake: int, refusal: ErrorReply) -> None:
        """A play refused with a status of ``LIMIT_STATUSES`` on an account that bought at
        least ``LIMIT_AFTER_PLAYS`` plays through the session before (its unfinished tickets,
        if any, finished by AUTO first on a 409: row ``one-open-ticket``), and none otherwise
        (its history lists only those), that still holds the stake, at a (game, stake) the
        target declares, while a fresh account is sold a play there (``_sold_to_another``: the
        refusal is of that account, not of the pair): the account's own limit (a
        responsible-gaming stake, loss or play-count limit, row ``stake-own-limit``), which the
        contract leaves the target; what the check had left to do on that account is not
        judged: ``LimitReached`` carrying a ``Reservation`` (kind *unverifiable*), never a
        failure. Anything else: nothing (the refusal is the caller's to judge)."""
        with self._lock:
            made = self.plays_made[account.account_id]
        if (
            refusal.status not in LIMIT_STATUSES
            or made < LIMIT_AFTER_PLAYS
            or (stake, game) not in self.declared
        ):
            return
        try:
            balance = self.balance(account)
            listed, own_limit = self.history_up_to(account, made + 1)
        except ErrorReply:
            return
        known = all(str(entry.get("play_id")) in self.bought for entry in listed)
        if balance < stake or not known or (own_limit is None and len(listed) != made):
            return
        if refusal.status == CONFLICT and self._unfinished(account):
            return  # a play that landed beside this one left its ticket open (one-open-ticket)
        if not self._sold_to_another(game, stake):
            return
        raise LimitReached(
            refusal,
            Reservation(
                f"a play of {game} at {stake} cents refused ({refusal.status} {refusal.code}: "
                f"{refusal.message[:120]}) on an account that had bought {made} play(s) and held "
                f"{balance} cents, while a new account was sold one there: a limit of the "
                "account's own (a stake, loss or play-count limit); what the check had left to "
                "do on that account was not judged",
                basis="stake-own-limit",
                kind="unverifiable",
                lift="certify with accounts whose own limit takes the plays the checks make (the "
                "full profile plays up to about 12 000 units on one account), or lift the limit "
                "for the certification's accounts",
            ),
        )

    def own_limit(
        self, account: Account, game: str, stake: int, refusal: ErrorReply, balance: int
    ) -> str | None:
        """For a scenario that plays through thousands of units on the adapter (not through
        ``play``: ``top_tiers``): whether ``refusal`` of a play on ``account``, whose last play
        answered ``balance``, is the account's own limit (row ``stake-own-limit``), as
        ``_own_limit`` reads one: a status of ``LIMIT_STATUSES``, at a (game, stake) the target
        declares, the account's balance read now still ``balance`` (the refusal changed
        nothing) and paying the stake, while a new account is sold a play there. Its wording,
        or None (the refusal is the caller's to judge)."""
        if refusal.status not in LIMIT_STATUSES or (stake, game) not in self.declared:
            return None
        try:
            read = self.balance(account)
        except ErrorReply:
            return None
        if read != balance or read < stake or not self._sold_to_another(game, stake):
            return None
        return (
            f"a play of {game} at {stake} cents refused ({refusal.status} {refusal.code}: "
            f"{refusal.message[:120]}) on an account holding {read} cents, while a new account "
            "was sold one there: a limit of the account's own"
        )

    def _sold_to_another(self, game: str, stake: int) -> bool:
        """Whether a new account holding the stake is sold a play at (game, stake): the play
        kept out of the histories read and its unit noted as ``played_down``'s are
        (``play_down``, ``sold_down``). A refusal, of the account or of the play: False."""
        try:
            fresh = self.open(stake)
            self.play_down(fresh, game, stake)
        except (ErrorReply, Reservation):  # a Reservation: no account of the stake to be had
            return False
        return True

    def _unfinished(self, account: Account) -> list[str]:
        """The account's plays bought through the session and never AUTO'd: a ticket clicked
        to its end too (a target may want AUTO to close it; AUTO refused then, nothing left,
        its ticket is the history's: ``auto``)."""
        return self.tickets.open_of(account.account_id)

    def remember(self, doc: Mapping[str, Any], game: str, stake: int) -> None:
        """Keep what AUTO's answer for the play ``doc`` is judged and tied by (``play`` does
        it for every play; a scenario that plays through thousands of units on the adapter
        keeps only the plays it AUTOs)."""
        self.bought[str(doc["play_id"])] = (game, stake)  # what AUTO's answer is judged by
        self.sold[str(doc["play_id"])] = (str(doc["block_id"]), int(doc["index"]))

    def auto(self, account: Account, play_id: str) -> tuple[str, int]:
        """AUTO's ticket and prize. Its wins are judged here, whichever check asked
        (``auto_fault``): a fault fails ``play.auto.answer``. A play whose every button was
        clicked to its end has nothing left to reveal: AUTO may be refused then (a 4xx, row
        ``auto-again``), and the ticket and prize are the history's entry's."""
        try:
            doc = self.adapter.auto(play_id, account.token)
        except ErrorReply as refusal:
            shown = self._clicked_through(account, play_id, refusal)
            if shown is None and 400 <= refusal.status < 500:
                shown = self.tickets.early(play_id)  # AUTO'd already: refused again (auto-again)
            if shown is None:
                raise
            self.tickets.finished(play_id)
            return shown
        return self.took_auto(play_id, doc)

    def took_auto(self, play_id: str, doc: Document) -> tuple[str, int]:
        """An AUTO answer for ``play_id`` the caller asked for itself (sent with other
        requests at once): judged and kept as ``auto``'s."""
        bought = self.bought.get(play_id)
        fault = None if bought is None else auto_fault(*bought, doc)
        if bought is not None and doc["play_id"] != play_id:  # the play revealed, no other
            fault = f"its play_id is {_short(doc['play_id'], 80)}, not the play asked for"
        if fault is not None:
            assert bought is not None
            game, stake = bought
            found = evidence(
                case_of("auto_answer", game=game, stake_cents=stake, plays=1),
                expected_result(game, stake, doc["ticket"]),
                dict(doc),
                f"AUTO's answer for play {play_id!r}: {fault}",
                {"operation": "auto", "play_id": play_id},
            )
            raise CheckFailure(found.note, [found], requirements=(AUTO_ANSWER,))
        self._tie_later(play_id, doc["ticket"], doc["prize_cents"])
        self.tickets.finished(play_id)
        return doc["ticket"], doc["prize_cents"]

    def _clicked_through(
        self, account: Account, play_id: str, refusal: ErrorReply
    ) -> tuple[str, int] | None:
        """The history's ticket and prize of a play AUTO refused (a 4xx) once every one of its
        buttons was clicked to its end (its block unit's, when the history does not list it
        any more); None for any other refusal."""
        bought = self.bought.get(play_id)
        if bought is None or not 400 <= refusal.status < 500:
            return None
        buttons = reference.game_engine(bought[0]).buttons
        if not self.adapter.every_button_closed(play_id, buttons):
            return None
        entry = self.entry(account, play_id)
        if entry is None and play_id in self.sold and "blocks" in self.capabilities:
            # older than the history lists (a limit of the target's own): the block's unit
            block_id, index = self.sold[play_id]
            entry = self.block_units(block_id, index, 1).get(index)
        if entry is None:
            return None
        self._tie_later(play_id, entry["ticket"], entry["prize_cents"])
        return entry["ticket"], entry["prize_cents"]

    def auto_again(self, account: Account, play_id: str) -> tuple[str, int] | None:
        """AUTO asked again for a play AUTO already finished: its ticket and prize, judged as
        ``auto``'s, or None when the target refuses it with a 4xx. Either answer is the
        target's choice (docs/contract-decisions.md, ``auto-again``): "reveals all that is
        left", and nothing is left; what the letter fixes is that the balance does not move,
        which the caller judges."""
        try:
            return self.auto(account, play_id)
        except ErrorReply as refusal:
            if not 400 <= refusal.status < 500:
                raise
            return None

    def _tie_later(self, play_id: str, ticket: str, prize: int) -> None:
        """Keep AUTO's answer to be compared with the play's block unit (``settle``)."""
        where, bought = self.sold.get(play_id), self.bought.get(play_id)
        if where is None or bought is None or "blocks" not in self.capabilities:
            return
        with self._lock:
            self.untied.append(Tied(play_id, *bought, *where, ticket, prize))
            due = len(self.untied) >= TIE_BATCH
        if due:
            self.settle()

    def settle(self) -> None:
        """Every AUTO answer kept since the last call compared with the unit at its play's
        (block_id, index), read now (sold units only, behind the sales cursor): the same
        ticket, and the same prize where the block's unit declares its ticket's own. A play
        whose AUTO shows another ticket was not tied to the audited block: a CheckFailure of
        ``play.sales.block_unit``, whichever check made it (of ``play.auto.answer`` when it
        shows the unit's ticket with another prize: ``Tied.fault``)."""
        with self._lock:
            taken, self.untied = self.untied, []
        ahead = shown_ahead(self.adapter)
        for block_id, runs in _runs(taken):
            before = ahead.get(block_id, ShownAhead())
            for run in runs:
                first = run[0].index
                units = self.block_units(block_id, first, run[-1].index - first + 1)
                for tied in run:
                    fault = tied.fault(units.get(tied.index)) or tied.unlike(before.get(tied.index))
                    if fault is not None:
                        found = evidence(
                            case_of("block_unit", game=tied.game, stake_cents=tied.stake, plays=1),
                            fault[0],
                            fault[1],
                            f"play {tied.play_id!r} ({tied.game} at {tied.stake} cents) was "
                            f"sold as unit {tied.index} of block {block_id}, and {fault[2]}",
                            {"operation": "auto+read_block", "play_id": tied.play_id},
                        )
                        raise CheckFailure(found.note, [found], requirements=(fault[3],))

    def history(self, account: Account, limit: int | None) -> list[Document]:
        """The account's listing, newest first: the newest ``limit``, or (None) the listing
        without a limit, of the length the target chooses. A target that refuses a history
        without ``limit`` (a 4xx: the contract writes ``history?limit=`` and gives no default)
        is read with the whole history's limit instead, and the check reserved once (row
        ``history-default-page``)."""
        try:
            doc = self.adapter.history(account.account_id, account.token, limit)
        except ErrorReply as refusal:
            if limit is not None or not 400 <= refusal.status < 500:
                raise
            self._no_limit_refused(refusal)
            return self.history_up_to(account, WHOLE_HISTORY)[0]
        return [dict(p) for p in doc["plays"] if p["play_id"] not in self.down_plays]

    @contextmanager
    def watching(self, streams: Collection[tuple[str, int]] | str) -> Iterator[None]:
        """The check holds ``streams`` meanwhile (``CheckContext.hold``: its judgement reads
        their units on sale): ``played_down`` plays elsewhere."""
        held = [streams] if isinstance(streams, str) else [tuple(s) for s in streams]
        with self._lock:
            self.watched.update(held)
        try:
            yield
        finally:
            with self._lock:
                self.watched.subtract(held)

    def play_down(self, account: Account, game: str, stake: int) -> Document:
        """A play that brings ``account`` down towards a balance asked (``played_down``): kept
        out of the histories read and its unit noted (``sold_down``); left unfinished, and
        finished by AUTO when the target refuses the account's next play for it (row
        ``one-open-ticket``: ``play``)."""
        with self._down_landed:
            self._down_flying += 1
        try:
            doc = self._bought(account, game, stake, True)
            self.tickets.bought(account.account_id, str(doc["play_id"]))
            with self._down_landed:
                self.down_plays.add(str(doc["play_id"]))
                unit = {"block_id": doc["block_id"], "index": doc["index"]}
                self.down_sold.setdefault((game, stake), []).append(unit)
            return dict(doc)
        finally:
            with self._down_landed:
                self._down_flying -= 1
                self._down_landed.notify_all()

    def sold_down(self, game: str, stake: int) -> list[Document]:
        """The units sold at (game, stake) to the plays that brought accounts down to a
        balance asked (``played_down``), once none is in flight: a check that judges units
        in a row skips them (``sales._follows``)."""
        with self._down_landed:
            self._down_landed.wait_for(lambda: self._down_flying == 0, timeout=60)
            return list(self.down_sold.get((game, stake), []))

    def unwatched(self) -> list[tuple[int, str]]:
        """The declared (stake, game) pairs no hold of the check's covers now."""
        with self._lock:
            every = +self.watched
        if EVERY_STREAM in every:
            return []
        return [(stake, game) for stake, game in self.declared if (game, stake) not in every]

    def _no_limit_refused(self, refusal: ErrorReply) -> None:
        with self._lock:
            first = not self.no_limit_refused
            self.no_limit_refused.append(f"{refusal.status} {refusal.code}")
        if first:
            self.reserve(
                Reservation(
                    f"the history without limit was refused ({refusal.status} "
                    f"{refusal.code}: {refusal.message[:120]}); the listing an app reads "
                    f"without a limit was read with limit={WHOLE_HISTORY} instead",
                    basis="history-default-page",
                    lift="answer a history asked without limit (a default page of the "
                    "newest plays, newest first)",
                    requirements=NO_LIMIT_JUDGES,
                )
            )

    def entry(self, account: Account, play_id: str, limit: int | None = 10) -> Document | None:
        """The history's entry of ``play_id`` among the newest ``limit`` (None: the listing an
        app reads, without a limit, whose page is the target's choice), else anywhere in
        the whole listing asked with ``WHOLE_HISTORY`` (an entry out of place is
        play.history.order's fault, not a missing one), or None."""
        found = next((p for p in self.history(account, limit) if p["play_id"] == play_id), None)
        if found is None:  # an explicit limit: without one, the length is the target's
            plays, _ = self.history_up_to(account, WHOLE_HISTORY)
            found = next((p for p in plays if p["play_id"] == play_id), None)
        return found

    def history_up_to(self, account: Account, wanted: int) -> tuple[list[Document], int | None]:
        """The listing asked with the explicit limit ``wanted``, and None; or, when the target
        refuses that limit (a 4xx: a limit of its own, which ``play.limit_bounds`` accepts,
        row ``limit-far-out``), the listing of the largest of ``OWN_LIMITS`` below it that
        the target takes, and that limit (row ``history-own-limit``): the caller judges the
        newest that many plays. Every one refused too: the refusal of ``wanted`` is raised."""
        try:
            return self.history(account, wanted), None
        except ErrorReply as refusal:
            if not 400 <= refusal.status < 500:
                raise
            for limit in (n for n in OWN_LIMITS if n < wanted):
                try:
                    return self.history(account, limit), limit
                except ErrorReply as again:
                    if not 400 <= again.status < 500:
                        raise
            raise

    def block_units(self, block_id: str, first: int, count: int) -> dict[int, Document]:
        """The served units ``first .. first+count-1`` of ``block_id``, by their index."""
        stream = read_slice(self.adapter, block_id, first, count)
        try:
            units = {}
            for line in stream.lines():
                unit = strict_json.loads_block_line(line)
                check(f"block {block_id} unit line", "block-unit", unit)
                units[unit["index"]] = unit
            return units
        except ValueError as exc:
            raise ProtocolViolation(f"block {block_id}: a unit line is not JSON: {exc}") from None
        finally:
            stream.close()

    def known_prizes(self, block_id: str, first: int, count: int) -> dict[int, int] | None:
        """The declared prizes of units ``first .. first+count-1`` of ``block_id`` as already
        read (``known``: the run's block audit), by index; None when no slice read holds them
        all (a unit without a declared prize included)."""
        for start, prizes in self.known(block_id):
            if start <= first and first + count <= start + len(prizes):
                window = [int(p) for p in prizes[first - start : first - start + count]]
                if min(window) < 0:  # -1: a line the audit found without a prize
                    return None
                return {first + k: p for k, p in enumerate(window)}
        return None

    def block_size(self, game: str, stake: int, block_id: str) -> int | None:
        """The units of ``block_id`` if the target lists it (blocks capability), else None."""
        if block_id not in self.units and "blocks" in self.capabilities:
            for block in self.adapter.list_blocks(game, stake):
                self.units[block["block_id"]] = block["units"]
        return self.units.get(block_id)

    def truth(self, account: Account, played: Document) -> tuple[str | None, str]:
        """The ticket the play bought and where it was read (see the module docstring)."""
        entry = self.entry(account, played["play_id"])
        if entry is not None and isinstance(entry.get("ticket"), str):
            return entry["ticket"], "history"
        if "blocks" in self.capabilities:
            unit = self.block_units(played["block_id"], played["index"], 1).get(played["index"])
            if unit is not None and isinstance(unit.get("ticket"), str):
                return unit["ticket"], "block"
        return None, "auto"


def refused(call: Callable[[], object]) -> ErrorReply | Document:
    """The ErrorReply a call met, or what it answered when it was accepted."""
    try:
        answer = call()
    except ErrorReply as reply:
        return reply
    return dict(answer) if isinstance(answer, Mapping) else {"answer": answer}


def reply_doc(reply: ErrorReply | Document) -> Document:
    if isinstance(reply, ErrorReply):
        return {"status": reply.status, "error": {"code": reply.code, "message": reply.message}}
    return reply


AUTO_ANSWER = "play.auto.answer"
BLOCK_UNIT = "play.sales.block_unit"
TIE_BATCH = 200  # AUTO answers kept before they are tied to their block units in one read
TIE_GAP = 2000  # units between two AUTO answers' units that are read apart (not in one slice)


@dataclass(frozen=True)
class Tied:
    """An AUTO answer and the unit its play was sold as."""

    play_id: str
    game: str
    stake: int
    block_id: str
    index: int
    ticket: str
    prize: int

    def fault(self, unit: Mapping[str, Any] | None) -> tuple[Any, Any, str, str] | None:
        """(expected, got, what is wrong, the requirement it breaks) when ``unit`` is not this
        AUTO answer's, else None. Another ticket than the unit's: the play was not sold as
        that unit (``play.sales.block_unit``). The unit's ticket, whose prize the block
        declares right, with another prize: the sale was that unit, and AUTO's answer is not
        its own ticket's (``play.auto.answer``: an AUTO answered from an archive that lost the
        prize column shows only here, once its play is old)."""
        if unit is None:
            return {"unit": self.index}, None, "the block served no unit at that index", BLOCK_UNIT
        if unit.get("ticket") != self.ticket:
            return (
                {"ticket": unit.get("ticket")},
                {"ticket": self.ticket},
                "AUTO shows another ticket than that unit's",
                BLOCK_UNIT,
            )
        declared = unit.get("prize_cents")
        own = ref_prize(self.game, self.stake, self.ticket)
        if declared == own and self.prize != declared:  # a block at odds is the audit's
            return (
                {"prize_cents": declared},
                {"prize_cents": self.prize},
                "AUTO shows that unit's ticket with another prize than its own",
                AUTO_ANSWER,
            )
        return None

    def unlike(self, shown: int | None) -> tuple[Any, Any, str, str] | None:
        """(expected, got, what is wrong, the requirement it breaks) when the unit as the run
        read it before any play (``shown``: its ticket's CRC-32, from ``note_shown_ahead``)
        holds another ticket than this AUTO answer, else None: units sold are the block's as
        it was shown before their sale, not only as it is shown after
        (``play.sales.block_unit``). A prize at odds with the same ticket is ``fault``'s to
        name (AUTO's, or the audit's when the block declares it wrong)."""
        if shown is None or shown == ticket_digest(self.ticket):
            return None
        return (
            {"ticket_crc32": shown},
            {"ticket": self.ticket, "ticket_crc32": ticket_digest(self.ticket)},
            "the block showed another unit there before the run's first play (read then, "
            "its ticket is not the one sold)",
            BLOCK_UNIT,
        )


def ticket_digest(ticket: object) -> int:
    """A unit's ticket as ``note_shown_ahead`` keeps it: its CRC-32."""
    return zlib.crc32(str(ticket).encode("utf-8", "replace"))


class ShownAhead:
    """The tickets' CRC-32 of a block's units ``0 .. n-1`` as read before the run's first
    play (-1: a unit not read), 8 bytes a unit."""

    def __init__(self) -> None:
        self.digests = array("q")

    def note(self, units: Mapping[int, Mapping[str, Any]]) -> None:
        top = max((i for i in units if i >= 0), default=-1)
        if top >= len(self.digests):
            self.digests.extend([-1] * (top + 1 - len(self.digests)))
        for index, unit in units.items():
            if index >= 0 and isinstance(unit.get("ticket"), str):
                self.digests[index] = ticket_digest(unit["ticket"])

    def get(self, index: int) -> int | None:
        if 0 <= index < len(self.digests) and self.digests[index] >= 0:
            return int(self.digests[index])
        return None


_SHOWN_AHEAD: weakref.WeakKeyDictionary[Any, dict[str, ShownAhead]] = weakref.WeakKeyDictionary()
_SHOWN_LOCK = threading.Lock()


def _underlying(adapter: Any) -> Any:
    """The run's adapter under a check's (what ``blocks.audited_prizes`` keys on too)."""
    return getattr(adapter, "underlying", adapter)


def note_shown_ahead(adapter: Any, block_id: str, units: Mapping[int, Mapping[str, Any]]) -> None:
    """Keep ``units`` of ``block_id`` as the run read them before its first play
    (``play.units_shown_ahead``): each sale the run ties later is compared with them too."""
    try:
        with _SHOWN_LOCK:
            blocks = _SHOWN_AHEAD.setdefault(_underlying(adapter), {})
            blocks.setdefault(block_id, ShownAhead()).note(units)
    except TypeError:  # an adapter that cannot be weakly referenced: nothing kept
        pass


def shown_ahead(adapter: Any) -> dict[str, ShownAhead]:
    """The blocks ``note_shown_ahead`` kept for ``adapter``'s target, by block id."""
    try:
        with _SHOWN_LOCK:
            return dict(_SHOWN_AHEAD.get(_underlying(adapter), {}))
    except TypeError:
        return {}


def _runs(taken: list[Tied]) -> list[tuple[str, list[list[Tied]]]]:
    """``taken`` by block, each block's in runs of units close enough to read as one slice."""
    by_block: dict[str, list[Tied]] = {}
    for tied in taken:
        by_block.setdefault(tied.block_id, []).append(tied)
    found = []
    for block_id, ties in by_block.items():
        ties.sort(key=lambda t: t.index)
        runs: list[list[Tied]] = [[ties[0]]]
        for tied in ties[1:]:
            if tied.index - runs[-1][-1].index > TIE_GAP:
                runs.append([tied])
            else:
                runs[-1].append(tied)
        found.append((block_id, runs))
    return found


def auto_fault(game: str, stake: int, doc: Mapping[str, Any]) -> str | None:
    """What is wrong with the wins of an AUTO answer (contract 2 and 4), or None: they are the
    wins of its ticket, as a multiset (as evaluate's are compared), and add up to its
    ``prize_cents``. An invalid ticket, or a prize that is not its ticket's lot, is the
    scenario's to judge under its own requirement: those answers are not judged here."""
    expected = expected_result(game, stake, doc["ticket"])
    if is_error(expected) or doc["prize_cents"] != expected["prize_cents"]:
        return None
    amounts = [w.get("amount_cents") for w in doc["wins"]]
    if not all(type(a) is int for a in amounts):
        return f"a win without an integer amount_cents: {_short(doc['wins'])}"
    if sum(amounts) != doc["prize_cents"]:
        return (
            f"its wins add up to {sum(amounts)} cents, its prize_cents is {doc['prize_cents']} "
            "(prize_cents is the sum of wins[].amount_cents)"
        )
    want, have = wins_multiset(game, expected), wins_multiset(game, doc)
    if want != have:
        missing, extra = sorted((want - have).elements()), sorted((have - want).elements())
        return (
            f"its wins are not the ticket's: missing {missing or 'none'}, extra {extra or 'none'}"
        )
    return None


def credit_requirement(game: str, before: int, stake: int, lot: int, got: int) -> str:
    """The requirement a play's wrong balance ``got`` breaks (``before - stake + lot`` was
    due): its game's ``prize_credited`` when the stake was debited and the lot not credited,
    or a top-tier lot (``TOP_TIER_CENTS`` or more) credited short (a fee, a smaller tier);
    else ``play.money.exact``. A smaller lot credited short stays the money's: a cent lost to
    a rounding wallet may fall on any play, a winning one too."""
    missing = lot > 0 and got == before - stake
    short = lot >= TOP_TIER_CENTS and before - stake <= got < before - stake + lot
    return f"{kit(game).prize_article}.prize_credited" if missing or short else MONEY


def one_same_error(
    opening: int, stake: int | list[int], answered: list[int], lots: list[int]
) -> bool:
    """Whether plays of an account from ``opening`` (their ``answered`` balances, their
    units' ``lots``, at ``stake``, or each at its own of a list) are all off alike on the
    balance each was played from: by one same amount (a fee), or by one same share of each
    play's stake (a stake debited twice, at plays of several stakes): two plays or more, every
    one in error alike, is the debit's, though the first one alone, with a lot equal to the
    stake, looks like a lot not credited."""
    befores = [opening, *answered[:-1]]
    stakes = [stake] * len(answered) if isinstance(stake, int) else stake
    errors = [
        a - (b - s + lot) for a, b, s, lot in zip(answered, befores, stakes, lots, strict=True)
    ]
    same_amount = len(set(errors)) == 1
    same_share = (
        all(s > 0 for s in stakes)
        and len({Fraction(e, s) for e, s in zip(errors, stakes, strict=True)}) == 1
    )
    return len(answered) >= 2 and (same_amount or same_share) and any(errors)


def balance_requirement(game: str, debit: bool, before: int, stake: int, lot: int, got: int) -> str:
    """The requirement a play's wrong balance breaks: its game's ``stake_debited`` when every
    play is off alike (``one_same_error``), else ``credit_requirement``'s."""
    if debit:
        return f"{kit(game).history_article}.stake_debited"
    return credit_requirement(game, before, stake, lot, got)


def ref_prize(game: str, stake: int, ticket: str) -> int | None:
    """The reference's prize of ``ticket``, None when it is not a valid ticket."""
    try:
        return reference.prize_cents(game, stake, ticket)
    except GameError:
        return None


def ticket_buttons(game: str, ticket: str) -> list[list[tuple[str, bool, bool]]] | None:
    """Each button's reveals (letter, x2, plus_one) in click order, as the game's engine
    describes them (``GameEngine.button_reveals``); None for an invalid ticket."""
    try:
        buttons = reference.game_engine(game).button_reveals(ticket)
    except GameError:
        return None
    letters = reveal_symbols(game)
    return [[(letters[r["symbol"]], r["x2"], r["plus_one"]) for r in button] for button in buttons]


REVEAL_ANSWER = "play.reveal.answer"


def reveal_tuple(game: str, doc: object, button: int) -> tuple[str, bool, bool]:
    """A reveal document as (letter, x2, plus_one); ProtocolViolation if it is not one in
    shape, ContractBreach (a fail of play.reveal.answer) if it names another button or no
    symbol of ``game``."""
    what = f"reveal of button {button}"
    letters = reveal_symbols(game)
    check(what, "reveal", doc)  # an answer of the session's adapter already passed it
    assert isinstance(doc, Mapping)
    symbol, got_button, x2, plus_one = doc["symbol"], doc["button"], doc["x2"], doc["plus_one"]
    fault = None
    if got_button != button:
        fault = f"the answer names button {got_button!r}, not the button clicked"
    elif symbol not in letters:
        name, letter = next(iter(letters.items()), ("", ""))
        fault = f"symbol {symbol!r} is no {game} symbol (a name such as {name!r}, or {letter})"
    if fault is not None:
        answer: dict[str, object] = {
            "operation": what,
            "body": dict(doc),
            "expected": {"button": button},
        }
        raise ContractBreach(REVEAL_ANSWER, f"{what}: {fault}", answer)
    return letters[symbol], x2, plus_one


def case_of(scenario: str, **params: Any) -> dict[str, Any]:
    return {"kind": KIND, "scenario": scenario, **params}


def evidence(
    case: Case, expected: Any, got: Any, note: str, request: Mapping[str, Any] | None = None
) -> PlayEvidence:
    """The evidence of a scenario's ``case`` (``PlayEvidence``: the case is its input)."""
    return PlayEvidence.of(case, expected, got, note, request)


def declared(described: Mapping[str, Any]) -> tuple[tuple[int, str], ...]:
    """The (stake, game) pairs a target's description declares, smallest stake first."""
    games = described.get("games")
    pairs = set()
    for game, spec in games.items() if isinstance(games, Mapping) else ():
        stakes = spec.get("stakes_cents") if isinstance(spec, Mapping) else None
        for stake in stakes if isinstance(stakes, list) else ():
            if type(stake) is int and stake > 0:
                pairs.add((stake, str(game)))
    return tuple(sorted(pairs))


DOWN_PLAYS = 64
"""At most this many plays bring an account opened at a minimum deposit down to the balance a
scenario asked (``played_down``), on each of at most ``DOWN_ACCOUNTS`` accounts."""
DOWN_ACCOUNTS = 3
SEARCHED_STAKES = 4096
"""The least balance taken above one refused is looked for up to this many stakes above it
(``_least_taken``): further up, the refusal is no minimum deposit the suite plays down from."""
MINIMUM = "balance-own-minimum"
EXACT_IN_JSON = 2**53


def played_down(session: Session, balance: int, refusal: ErrorReply) -> Account:
    """An account holding exactly ``balance`` cents on a target that refused it (``refusal``,
    a 4xx) as below a minimum deposit of its own (row ``balance-own-minimum`` of
    docs/contract-decisions.md): opened at the least ``balance`` plus whole stakes the target
    takes, then played down at the declared (game, stake) pairs the check does not hold now
    (``Session.watching``), or at any when it holds them all (a check judging units in a row
    skips the units those plays were sold: ``Session.sold_down``), each play's answered
    ``balance_cents`` the next step's (a win credits its lot: the rest is recomputed), never
    below ``balance``; after a win that leaves a rest no stake pays, or ``DOWN_PLAYS`` plays,
    on another account. ``refusal`` again when no larger balance is taken (a limit of another
    kind, which the callers read); a Reservation (kind *unverifiable*, ending the check) when
    no account could be played down: never a larger account. The plays made so are left out
    of the histories the session reads (``Session.history``): they are older than the
    scenario's."""
    if not 0 <= balance < EXACT_IN_JSON or not session.declared:
        raise refusal  # past 2**53: a limit of the target's own (row balances-past-2-53)
    pairs = session.unwatched() or list(session.declared)
    left = None
    for _ in range(DOWN_ACCOUNTS):
        opened = _least_taken(session, balance, pairs[0][0])
        if opened is None:
            raise refusal
        account, left = opened
        left = _play_down(session, account, left, balance, pairs)
        if left == balance:
            return account
    what = f"{refusal.status} {refusal.code}"
    raise Reservation(
        f"an account of {balance} cents was refused ({what}: a minimum deposit) and the "
        f"ones opened above it could not be played down to exactly {balance} cents (a win "
        f"left a rest no stake pays, or more than {DOWN_PLAYS} plays; {DOWN_ACCOUNTS} "
        f"accounts, the last holding {left} cents): the cases on it were not judged",
        basis=MINIMUM,
        lift=f"open accounts of {balance} cents (a minimum deposit at or below it)",
        kind="unverifiable",
    )


def _play_down(
    session: Session, account: Account, left: int, balance: int, pairs: list[tuple[int, str]]
) -> int:
    """Plays ``account`` holding ``left`` cents down towards ``balance`` at ``pairs``, the
    dearest stake that keeps the rest a multiple of the smallest first (the fewest plays):
    the balance it holds once it holds ``balance``, or when no stake pays the rest or
    ``DOWN_PLAYS`` plays were made."""
    grid = pairs[0][0]
    for _ in range(DOWN_PLAYS):
        rest = left - balance
        fits = [(s, g) for s, g in pairs if s <= rest and (rest - s) % grid == 0]
        if rest <= 0 or not fits:
            break
        stake, game = fits[-1]
        left = int(session.play_down(account, game, stake)["balance_cents"])
    return left


def _least_taken(session: Session, balance: int, stake: int) -> tuple[Account, int] | None:
    """The account of the least ``balance + k * stake`` (1 <= k <= ``SEARCHED_STAKES``) the
    target takes and that balance, or None: k doubles until one is taken, then the gap is
    halved (the larger accounts opened on the way are left unused)."""
    refused, k = 0, 1
    while (taken := _taken(session, balance + k * stake)) is None:
        if k == SEARCHED_STAKES:
            return None
        refused, k = k, min(SEARCHED_STAKES, k * 2)
    while k - refused > 1:
        middle = (refused + k) // 2
        smaller = _taken(session, balance + middle * stake)
        if smaller is None:
            refused = middle
        else:
            taken, k = smaller, middle
    return taken, balance + k * stake


def _taken(session: Session, balance: int) -> Account | None:
    """An account of ``balance`` cents, or None when the target refuses it with a 4xx."""
    try:
        return session._account(balance, session.adapter.open_account(balance))
    except ErrorReply as refusal:
        if not 400 <= refusal.status < 500:
            raise
        return None


def open_least(session: Session, fallback: int) -> tuple[Account, int]:
    """An account holding nothing (0 cents) and the balance it was opened with: played down
    to 0 where the target refuses an empty account and takes a larger one (``Session.open``,
    row ``balance-own-minimum``); when it still refuses with a 4xx (a least balance of its
    own, as a ``PositiveInt`` field has, and no stake to play it down with: row
    ``balance-own-limit`` of docs/contract-decisions.md), one of ``fallback`` cents."""
    try:
        return session.open(0), 0
    except ErrorReply as refusal:
        if not 400 <= refusal.status < 500 or fallback == 0:
            raise
    return session.open(fallback), fallback


def _funded(session: Session, stake: int, plays: int) -> Account:
    """An account that can pay ``plays`` stakes three times over (a faulty double debit too);
    when the target refuses that balance with a 4xx (a wallet limit of its own: row
    ``balance-own-limit`` of docs/contract-decisions.md), one that can pay them once."""
    return funded_with(session, stake, plays)[0]


def funded_with(session: Session, stake: int, plays: int) -> tuple[Account, int]:
    """``_funded``'s account and the balance it was opened with."""
    try:
        return session.open(stake * plays * 3), stake * plays * 3
    except ErrorReply as refusal:
        if not 400 <= refusal.status < 500 or plays * stake == 0:
            raise
    return session.open(stake * plays), stake * plays


TOP_UPS = 64
"""At most this many accounts more that a scenario playing ``funded_within``'s accounts opens
when one runs dry (a faulty target answering 402 to every play stops there)."""


def funded_within(session: Session, stake: int, plays: int) -> tuple[Account, int]:
    """``funded_with``'s account; when the target refuses even the stakes once with a 4xx (a
    wallet limit below them), the first balance it takes of half that, then half again, in
    whole stakes, down to one stake: the account and the balance it was opened with. A
    scenario that needs all ``plays`` then opens another account of that balance when one runs
    dry (a player whose wallet is capped tops up with another), at most ``TOP_UPS`` times."""
    try:
        return funded_with(session, stake, plays)
    except ErrorReply as refusal:
        if not 400 <= refusal.status < 500 or plays * stake == 0:
            raise
        last = refusal
    balance = stake * plays
    while balance > stake:
        balance = max(stake, balance // 2 // stake * stake)
        try:
            return session.open(balance), balance
        except ErrorReply as refusal:
            if not 400 <= refusal.status < 500:
                raise
            last = refusal
    raise last
