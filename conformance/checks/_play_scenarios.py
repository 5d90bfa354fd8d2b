"""Play scenarios (contract section 4, robots 4.1-4.10, eldorado 4.2/4.6): each one buys a few
units on a target, watches what the target says, and judges it.

A scenario is a plain function ``scenario(session, case) -> Evidence | None``: ``case`` is the
evidence input itself (``{"kind": "play", "scenario": ..., ...}``), so the checks in ``play.py``
and ``security.py`` and the ``play`` replayer run exactly the same code, and a counterexample
found by a check is replayed by handing its input back. Every play buys a fresh unit of the
block on sale, so a replay meets other units than the first run: it re-runs the situation
(same game, stake, click choices, number of plays), not the same ticket.

Where a scenario needs the ticket a play bought, it takes the history's entry read right after
the purchase (robots 4.1: there at once, before any reveal), else the served block's unit, else
the ticket AUTO shows: so one fault (a history hiding unrevealed plays, say) does not make
other requirements fail too.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import reference
from harness._errors import ContractBreach, ErrorReply, ProtocolViolation
from reference import GameError
from reference import _strict_json as strict_json

from .._registry import CheckFailure, Evidence

Document = dict[str, Any]
Case = Mapping[str, Any]
Chooser = Callable[[int], int]
KIND = "play"
ROBOTS = "robots"
MAX_CLICKS = 64  # more clicks than any valid robots unit has (18 buttons + their +1 chains)


def _letters() -> dict[str, str]:
    """Symbol name or letter -> letter: a reveal may name its symbol either way."""
    symbols = reference.robots_rules().symbols
    return {**{s.name: s.letter for s in symbols}, **{s.letter: s.letter for s in symbols}}


LETTERS = _letters()


# -- talking to the target ---------------------------------------------------------------------


def need(doc: object, key: str, kind: type | tuple[type, ...], what: str) -> Any:
    """``doc[key]`` if it has the contract's type; a ProtocolViolation naming it otherwise."""
    if not isinstance(doc, Mapping) or key not in doc:
        if isinstance(doc, Mapping) and isinstance(doc.get("error"), Mapping):
            raise ContractBreach(
                "protocol.refusals.status",
                f"{what}: a refusal was answered as a success: {_short(doc)}",
                {"operation": what, "body": dict(doc), "expected": "a refusal (ErrorReply)"},
            )
        raise ProtocolViolation(f"{what}: no {key!r} in {_short(doc)}")
    value = doc[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ProtocolViolation(f"{what}: {key!r} is {value!r}, not of the contract's type")
    return value


SENDABLE_TOKEN = re.compile(r"[\x21-\x7e]{1,4096}")
"""A token the contract's ``Authorization: Bearer <token>`` can carry: visible ASCII, no space
(HTTP header values are Latin-1 at best; RFC 6750's b64token is a subset).
docs/contract-decisions.md says why a token outside it fails security.tokens.required."""


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


def scenario_account_token(session: Session, case: Case) -> Evidence | None:
    """An account is opened: its token must be one an Authorization header can carry."""
    balance = case.get("balance_cents", 1000)
    doc = session.adapter.open_account(balance)
    token = need(doc, "token", str, "open_account")
    return None if SENDABLE_TOKEN.fullmatch(token) else token_fault(balance, doc)


def _short(value: object, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


@dataclass(frozen=True)
class Account:
    account_id: str
    token: str


@dataclass
class Session:
    """A target and what it declares: scenarios take one, checks and the replayer build it."""

    adapter: Any
    capabilities: frozenset[str]
    units: dict[str, int] = field(default_factory=dict)  # block_id -> units, from list_blocks

    @classmethod
    def of(cls, adapter: Any, implementation: Mapping[str, Any] | None = None) -> Session:
        described = implementation if implementation is not None else adapter.describe()
        return cls(adapter, frozenset(described.get("capabilities", [])))

    def open(self, balance_cents: int) -> Account:
        doc = self.adapter.open_account(balance_cents)
        account = Account(
            need(doc, "account_id", str, "open_account"), need(doc, "token", str, "open_account")
        )
        if not SENDABLE_TOKEN.fullmatch(account.token):
            found = token_fault(balance_cents, doc)
            failure = CheckFailure(found.note, [found])
            failure.requirements = ("security.tokens.required",)  # kept where the check covers it
            raise failure
        return account

    def balance(self, account: Account) -> int:
        doc = self.adapter.balance(account.account_id, account.token)
        value: int = need(doc, "balance_cents", int, "balance")
        return value

    def play(self, account: Account, game: str, stake: int) -> Document:
        doc = self.adapter.play(account.account_id, account.token, game, stake)
        for key, kind in (
            ("play_id", str),
            ("game", str),
            ("stake_cents", int),
            ("block_id", str),
            ("index", int),
            ("balance_cents", int),
        ):
            need(doc, key, kind, "play")
        return dict(doc)

    def auto(self, account: Account, play_id: str) -> tuple[str, int]:
        doc = self.adapter.auto(play_id, account.token)
        return need(doc, "ticket", str, "auto"), need(doc, "prize_cents", int, "auto")

    def history(self, account: Account, limit: int) -> list[Document]:
        doc = self.adapter.history(account.account_id, account.token, limit)
        plays = need(doc, "plays", list, "history")
        for entry in plays:
            need(entry, "play_id", str, "history entry")
        return [dict(p) for p in plays]

    def entry(self, account: Account, play_id: str, limit: int = 10) -> Document | None:
        """The history's entry of ``play_id`` among the newest ``limit``, else anywhere in
        the whole listing (an entry out of place is play.history.order's fault, not a
        missing one), or None."""
        found = next((p for p in self.history(account, limit) if p["play_id"] == play_id), None)
        if found is None:
            doc = self.adapter.history(account.account_id, account.token, None)
            plays = need(doc, "plays", list, "history")
            found = next(
                (dict(p) for p in plays if isinstance(p, Mapping) and p.get("play_id") == play_id),
                None,
            )
        return found

    def block_units(self, block_id: str, first: int, count: int) -> dict[int, Document]:
        """The served units ``first .. first+count-1`` of ``block_id``, by their index."""
        stream = self.adapter.read_block(block_id, start=first, count=count)
        try:
            units = {}
            for line in stream.lines():
                unit = strict_json.loads(line)
                units[need(unit, "index", int, f"block {block_id} unit")] = unit
            return units
        except ValueError as exc:
            raise ProtocolViolation(f"block {block_id}: a unit line is not JSON: {exc}") from None
        finally:
            stream.close()

    def block_size(self, game: str, stake: int, block_id: str) -> int | None:
        """The units of ``block_id`` if the target lists it (blocks capability), else None."""
        if block_id not in self.units and "blocks" in self.capabilities:
            for block in self.adapter.list_blocks(game, stake):
                self.units[need(block, "block_id", str, "list_blocks")] = need(
                    block, "units", int, "list_blocks"
                )
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


def ref_prize(game: str, stake: int, ticket: str) -> int | None:
    """The reference's prize of ``ticket``, None when it is not a valid ticket."""
    try:
        return reference.prize_cents(game, stake, ticket)
    except GameError:
        return None


def robots_buttons(ticket: str) -> list[list[tuple[str, bool, bool]]] | None:
    """Each button's reveals (letter, x2, plus_one) in click order, None for an invalid ticket."""
    try:
        parsed = reference.parse_ticket(ROBOTS, ticket)
    except GameError:
        return None
    assert isinstance(parsed, reference.RobotsTicket)
    return [[(r.symbol, r.x2, r.plus_one) for r in button] for button in parsed.buttons]


REVEAL_ANSWER = "play.reveal.answer"


def reveal_tuple(doc: object, button: int) -> tuple[str, bool, bool]:
    """A reveal document as (letter, x2, plus_one); ProtocolViolation if it is not one in
    shape, ContractBreach (a fail of play.reveal.answer) if it names another button or no
    robots symbol."""
    what = f"reveal of button {button}"
    symbol = need(doc, "symbol", str, what)
    got_button = need(doc, "button", int, what)
    x2, plus_one = need(doc, "x2", bool, what), need(doc, "plus_one", bool, what)
    fault = None
    if got_button != button:
        fault = f"the answer names button {got_button!r}, not the button clicked"
    elif symbol not in LETTERS:
        fault = f"symbol {symbol!r} is no robots symbol (a name such as 'blue_diamond', or D)"
    if fault is not None:
        body = dict(doc) if isinstance(doc, Mapping) else doc
        answer = {"operation": what, "body": body, "expected": {"button": button}}
        raise ContractBreach(REVEAL_ANSWER, f"{what}: {fault}", answer)
    return LETTERS[symbol], x2, plus_one


def misreported(
    want: list[list[tuple[str, bool, bool]]], got: list[list[tuple[str, bool, bool]]]
) -> bool:
    """Whether reveals differ from the ticket's only by a fixed misreport in the answers:
    each ticket symbol always answered as one same letter, each X2 / +1 value always answered
    one same way (a wrong symbol table, a dropped flag). That is the reveal answer's fault
    (play.reveal.answer), not the reveal order's."""
    maps: list[dict[object, set[object]]] = [{}, {}, {}]
    differs = False
    for button, reveals in enumerate(got):
        for position, answered in enumerate(reveals):
            if position >= len(want[button]):
                return False
            held = want[button][position]
            for field_, value in enumerate(answered):
                maps[field_].setdefault(held[field_], set()).add(value)
            differs = differs or answered != held
    return differs and all(len(seen) == 1 for m in maps for seen in m.values())


def case_of(scenario: str, **params: Any) -> dict[str, Any]:
    return {"kind": KIND, "scenario": scenario, **params}


def evidence(
    case: Case, expected: Any, got: Any, note: str, request: Mapping[str, Any] | None = None
) -> Evidence:
    return Evidence(input=dict(case), expected=expected, got=got, request=request, note=note)


def _funded(session: Session, stake: int, plays: int) -> Account:
    """An account that can pay ``plays`` stakes three times over (a faulty double debit too)."""
    return session.open(stake * plays * 3)


# -- money: stake debited, prize credited, exact (robots 4.1/4.10, eldorado 4.2/4.6) -----------


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


def observe_plays(
    session: Session, case: Case, *, until_every_kind: bool = False
) -> list[Observed] | Evidence:
    """``case["plays"]`` plays of one account, each revealed with AUTO; with
    ``until_every_kind`` it goes on (up to ``EVERY_KIND_CAP`` plays) until it has seen a losing
    unit and a winning unit of every kind the game has (``reference.game_win_kinds``), so a
    fault in one way of winning is met whichever units the block happens to sell."""
    game, stake, plays = case["game"], case["stake_cents"], case["plays"]
    cap = max(plays, EVERY_KIND_CAP) if until_every_kind else plays
    wanted = set(reference.game_win_kinds(game)) | {"loss"} if until_every_kind else set()
    account = _funded(session, stake, cap)
    before = session.balance(account)
    seen: list[Observed] = []
    while len(seen) < cap and (len(seen) < plays or wanted):
        played = session.play(account, game, stake)
        ticket, _ = session.auto(account, played["play_id"])
        prize = ref_prize(game, stake, ticket)
        if prize is None:
            return evidence(
                case,
                "a valid ticket",
                ticket,
                f"AUTO of play {played['play_id']} shows a "
                "ticket that is not valid: its lot is unknown",
                {"operation": "auto"},
            )
        if wanted:
            wanted -= reference.win_kinds(game, stake, ticket) if prize else {"loss"}
        after = session.balance(account)
        seen.append(Observed(played, before, played["balance_cents"], after, ticket, prize))
        before = after
    return seen


def read_lag(case: Case, seen: list[Observed]) -> Evidence | None:
    """Evidence for play.money.balance_read when the plays' own ``balance_cents`` are exact
    one after another (from the first balance read) but a balance read after one differs:
    the reads are wrong, not the debits and credits, so the money requirements are not
    blamed. None otherwise."""
    if not seen:
        return None
    balance = seen[0].before
    for o in seen:
        if o.said != balance - case["stake_cents"] + o.prize:
            return None
        balance = o.said
    bad = next((o for o in seen if o.after != o.said), None)
    if bad is None:
        return None
    return _money_evidence(
        {**case, "requirement": "play.money.balance_read"},
        bad,
        {"balance_cents": bad.said},
        {"play_balance_cents": bad.said, "balance_read_after": bad.after},
        f"every play's balance_cents is exact, but the balance read right after play "
        f"{bad.play['play_id']} is {bad.after}, not the {bad.said} the play answered",
    )


def _money_evidence(case: Case, o: Observed, expected: Any, got: Any, note: str) -> Evidence:
    request = {"operation": "play", "game": o.play.get("game"), "play_id": o.play["play_id"]}
    got = {**got, "ticket": o.ticket, "prize_cents": o.prize}
    return evidence(case, expected, got, note, request)


def scenario_stake_debited(session: Session, case: Case) -> Evidence | None:
    """robots 4.1 / eldorado 4.2: a losing play changes the balance by exactly -stake."""
    stake = case["stake_cents"]
    seen = observe_plays(session, case)
    if isinstance(seen, Evidence):
        return seen
    lag = read_lag(case, seen)
    if lag is not None:
        return lag
    for o in seen:
        if o.prize == 0 and (o.delta != -stake or o.said != o.before - stake):
            return _money_evidence(
                case,
                o,
                {"balance_before": o.before, "balance_after": o.before - stake},
                {
                    "balance_before": o.before,
                    "play_balance_cents": o.said,
                    "balance_after": o.after,
                },
                f"a losing play at {stake} cents took {o.before - o.after} cents "
                f"(the play said {o.before - o.said}): the stake is debited once, exactly",
            )
    return None


def scenario_prize_credited(session: Session, case: Case) -> Evidence | None:
    """robots 4.10 / eldorado 4.6: a winning play's balance moves by its lot more than a losing
    play's does (so a wrong debit, judged by stake_debited, does not count twice)."""
    stake = case["stake_cents"]
    seen = observe_plays(session, case, until_every_kind=True)
    if isinstance(seen, Evidence):
        return seen
    lag = read_lag(case, seen)
    if lag is not None:
        return lag
    losses = Counter(o.delta for o in seen if o.prize == 0)
    loss_delta = losses.most_common(1)[0][0] if losses else -stake
    for o in seen:
        if o.prize > 0 and (o.delta - loss_delta != o.prize or o.said != o.after):
            return _money_evidence(
                case,
                o,
                {"credited_cents": o.prize},
                {
                    "credited_cents": o.delta - loss_delta,
                    "balance_before": o.before,
                    "play_balance_cents": o.said,
                    "balance_after": o.after,
                    "losing_play_delta_cents": loss_delta,
                },
                (
                    f"a unit whose lot is {o.prize} cents credited {o.delta - loss_delta} cents "
                    "(its balance change beyond a losing play's)"
                    if o.delta - loss_delta != o.prize
                    else f"a unit whose lot is {o.prize} cents: the play answered balance "
                    f"{o.said} cents, the account then held {o.after}"
                ),
            )
    return None


def scenario_money_exact(session: Session, case: Case) -> Evidence | None:
    """contract 4: every play's balance (as answered, and as read after) is before-stake+prize."""
    stake = case["stake_cents"]
    seen = observe_plays(session, case, until_every_kind=True)
    if isinstance(seen, Evidence):
        return seen
    lag = read_lag(case, seen)
    if lag is not None:
        return lag
    for o in seen:
        exact = o.before - stake + o.prize
        if o.said != exact or o.after != exact:
            return _money_evidence(
                case,
                o,
                {"balance_cents": exact},
                {
                    "balance_before": o.before,
                    "play_balance_cents": o.said,
                    "balance_after": o.after,
                },
                f"balance {o.before} - stake {stake} + prize {o.prize} is {exact}; the play said "
                f"{o.said}, the account then held {o.after}",
            )
    return None


# -- history (robots 4.1, eldorado 4.2) -------------------------------------------------------


def scenario_history_unrevealed(session: Session, case: Case) -> Evidence | None:
    """A play is in the history at once, unrevealed, with a valid ticket and its prize; AUTO
    later shows that same ticket and prize, and the history still does."""
    game, stake, plays = case["game"], case["stake_cents"], case["plays"]
    account = _funded(session, stake, plays)
    keys = ("game", "stake_cents", "block_id", "index")
    for _ in range(plays):
        played = session.play(account, game, stake)
        play_id = played["play_id"]
        request = {"operation": "history", "account_id": account.account_id, "after": play_id}
        entry = session.entry(account, play_id)
        if entry is None:
            return evidence(
                case,
                f"play {play_id} in the history",
                "absent",
                "a play bought and never revealed is missing from the history",
                request,
            )
        want = {k: played[k] for k in keys}
        got = {k: entry.get(k) for k in keys}
        ticket, prize = entry.get("ticket"), entry.get("prize_cents")
        lot = ref_prize(game, stake, ticket) if isinstance(ticket, str) else None
        if got != want or lot is None or prize != lot:
            return evidence(
                case,
                {**want, "ticket": "a valid ticket", "prize_cents": lot},
                entry,
                "the unrevealed play's history entry does not show the play bought, "
                "with a valid ticket and that ticket's prize",
                request,
            )
        shown = session.auto(account, play_id)
        again = session.entry(account, play_id)
        seen_later = None if again is None else (again.get("ticket"), again.get("prize_cents"))
        if shown != (ticket, prize) or seen_later != (ticket, prize):
            return evidence(
                case,
                {"ticket": ticket, "prize_cents": prize},
                {"auto": list(shown), "history_after_auto": seen_later},
                "the history showed one unit before the reveal, AUTO or the history another "
                "after it",
                {"operation": "auto", "play_id": play_id},
            )
    return None


# -- sales: block order, the served unit (contract 4) -----------------------------------------


def _follows(session: Session, game: str, stake: int, prev: Document, nxt: Document) -> bool:
    """Whether ``nxt`` is the unit sold right after ``prev`` (same block +1, or the next block's
    unit 0 once ``prev`` was the last unit of its block)."""
    if nxt["block_id"] == prev["block_id"]:
        return bool(nxt["index"] == prev["index"] + 1)
    size = session.block_size(game, stake, prev["block_id"])
    last = size is None or prev["index"] == size - 1
    return bool(nxt["index"] == 0 and last)


def scenario_block_order(session: Session, case: Case) -> Evidence | None:
    """One account buys ``plays`` units in a row: each play one unit, unit after unit."""
    game, stake, plays = case["game"], case["stake_cents"], case["plays"]
    account = _funded(session, stake, plays)
    sold: list[Document] = []
    for _ in range(plays):
        played = session.play(account, game, stake)
        echo = (played.get("game"), played.get("stake_cents"))
        if echo != (game, stake):
            return evidence(
                case,
                {"game": game, "stake_cents": stake},
                played,
                "the play does not say the game and stake bought",
                {"operation": "play"},
            )
        if sold and not _follows(session, game, stake, sold[-1], played):
            where = [(p["block_id"], p["index"]) for p in sold[-3:]]
            return evidence(
                case,
                f"the unit after {where[-1]}",
                (played["block_id"], played["index"]),
                f"plays in a row were sold units {where} then "
                f"{(played['block_id'], played['index'])}: not block order",
                {"operation": "play"},
            )
        sold.append(played)
    return None


def scenario_block_unit(session: Session, case: Case) -> Evidence | None:
    """Each play's ticket and prize (AUTO) are the unit at its (block_id, index) in the block."""
    game, stake, plays = case["game"], case["stake_cents"], case["plays"]
    account = _funded(session, stake, plays)
    shown: list[tuple[Document, str, int]] = []
    for _ in range(plays):
        played = session.play(account, game, stake)
        ticket, prize = session.auto(account, played["play_id"])
        shown.append((played, ticket, prize))
    by_block: dict[str, list[int]] = {}
    for played, _, _ in shown:
        by_block.setdefault(played["block_id"], []).append(played["index"])
    units: dict[tuple[str, int], Document] = {}
    for block_id, indices in by_block.items():
        low, high = min(indices), max(indices)
        spans = [(low, high - low + 1)] if high - low < 10 * plays else [(i, 1) for i in indices]
        for first, count in spans:
            for index, unit in session.block_units(block_id, first, count).items():
                units[(block_id, index)] = unit
    for played, ticket, prize in shown:
        where = (played["block_id"], played["index"])
        found = units.get(where)
        served = None if found is None else (found.get("ticket"), found.get("prize_cents"))
        if served != (ticket, prize):
            return evidence(
                case,
                {"block_id": where[0], "index": where[1], "unit": served},
                {"play_id": played["play_id"], "ticket": ticket, "prize_cents": prize},
                "the play's ticket and prize are not the unit at its (block_id, index) in the "
                "block the target serves",
                {"operation": "read_block", "block_id": where[0], "start": where[1], "count": 1},
            )
    return None


def in_threads(count: int, work: Callable[[int], None]) -> None:
    """``work(t)`` for every t in ``range(count)``, each in a thread of its own, all at once;
    the first exception a thread raised is raised again here, once they have all ended."""
    failures: list[BaseException] = []

    def run(t: int) -> None:
        try:
            work(t)
        except BaseException as exc:  # raised again in the caller's thread
            failures.append(exc)

    workers = [threading.Thread(target=run, args=(t,), daemon=True) for t in range(count)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if failures:
        raise failures[0]


def scenario_concurrent(session: Session, case: Case) -> Evidence | None:
    """``threads`` accounts play at once over the given (game, stake) pairs; every unit is sold
    once, the units sold between two probe plays are exactly those in between, and every
    balance ends at initial - stakes + lots."""
    found = concurrent_sales(session, case)
    return None if found is None else found[1]


def concurrent_sales(session: Session, case: Case) -> tuple[str, Evidence] | None:
    """``scenario_concurrent``, with the requirement the evidence breaks: a unit sold twice
    (play.sales.no_double_sale), units out of order (block_order), a balance (money.exact)."""
    pairs = [(g, s) for g, s in case["pairs"]]
    threads, per_thread = case["threads"], case["plays_per_thread"]
    probe = _funded(session, max(s for _, s in pairs), 2 * len(pairs))
    first = {pair: session.play(probe, *pair) for pair in pairs}
    funding = max(s for _, s in pairs) * per_thread * 3
    accounts = [session.open(funding) for _ in range(threads)]
    results: list[list[Document]] = [[] for _ in range(threads)]

    def run(t: int) -> None:
        for j in range(per_thread):
            results[t].append(session.play(accounts[t], *pairs[(t + j) % len(pairs)]))

    in_threads(threads, run)
    last = {pair: session.play(probe, *pair) for pair in pairs}
    request = {"operation": "play", "threads": threads, "plays_per_thread": per_thread}
    sold = [p for plays in results for p in plays] + list(first.values()) + list(last.values())
    counts = Counter((p["block_id"], p["index"]) for p in sold)
    twice = sorted(unit for unit, n in counts.items() if n > 1)
    if twice:
        owners = [p["play_id"] for p in sold if (p["block_id"], p["index"]) == twice[0]]
        return "play.sales.no_double_sale", evidence(
            case,
            "every (block_id, index) sold once",
            {"sold_twice": twice[:10], "plays": owners},
            f"{len(twice)} unit(s) sold more than once to accounts playing at the same time",
            request,
        )
    for t, plays in enumerate(results):
        for j, played in enumerate(plays):
            pair = pairs[(t + j) % len(pairs)]
            if (played.get("game"), played.get("stake_cents")) != pair:
                return "play.sales.block_order", evidence(
                    case,
                    dict(zip(("game", "stake_cents"), pair, strict=True)),
                    played,
                    "a play does not say the game and stake bought",
                    request,
                )
    for pair in pairs:
        start, end = first[pair], last[pair]
        ends = (start["play_id"], end["play_id"])
        got = sorted(
            (p["block_id"], p["index"])
            for p in sold
            if (p["game"], p["stake_cents"]) == pair and p["play_id"] not in ends
        )
        want = _between(session, pair, start, end)
        if want is not None and got != want:
            return "play.sales.block_order", evidence(
                case,
                {
                    "between": [
                        (start["block_id"], start["index"]),
                        (end["block_id"], end["index"]),
                    ],
                    "units": want[:50],
                },
                {"units": got[:50]},
                f"{pair[0]} at {pair[1]} cents: the units sold at the same "
                "time are not the consecutive units of the block between two probe plays",
                request,
            )
    for t, account in enumerate(accounts):
        spent = sum(p["stake_cents"] for p in results[t])
        won = 0
        for played in results[t]:
            ticket, _ = session.auto(account, played["play_id"])
            lot = ref_prize(played["game"], played["stake_cents"], ticket)
            if lot is None:
                return "play.money.exact", evidence(
                    case,
                    "a valid ticket",
                    ticket,
                    "AUTO shows an invalid ticket",
                    {"operation": "auto", "play_id": played["play_id"]},
                )
            won += lot
        balance = session.balance(account)
        if balance != funding - spent + won:
            said = results[t][-1]["balance_cents"] if results[t] else funding
            which = "play.money.balance_read" if said == funding - spent + won else None
            return which or "play.money.exact", evidence(
                case,
                {"balance_cents": funding - spent + won},
                {"balance_cents": balance, "account_id": account.account_id},
                f"after {len(results[t])} plays made alongside other accounts, the balance is "
                f"not initial {funding} - stakes {spent} + lots {won}",
                request,
            )
    return None


def _between(
    session: Session, pair: tuple[str, int], start: Document, end: Document
) -> list[tuple[str, int]] | None:
    """The units sold strictly between two plays of one (game, stake), in block order: the
    rest of ``start``'s block and the head of ``end``'s when a block ran out in between (None
    when that block's size is unknown, so the order cannot be judged)."""
    if start["block_id"] == end["block_id"]:
        return [(start["block_id"], i) for i in range(start["index"] + 1, end["index"])]
    size = session.block_size(pair[0], pair[1], start["block_id"])
    if size is None:
        return None
    tail = [(start["block_id"], i) for i in range(start["index"] + 1, size)]
    return sorted(tail + [(end["block_id"], i) for i in range(end["index"])])


# -- refusals (contract 4) ---------------------------------------------------------------------


def _state(session: Session, account: Account) -> tuple[int, list[str]]:
    return session.balance(account), [p["play_id"] for p in session.history(account, 50)]


def _cursor_kept(
    session: Session, case: Case, game: str, stake: int, refuse: Callable[[], Evidence | None]
) -> Evidence | None:
    """Run ``refuse`` between plays of a witness account: the play after it must be the unit
    after the one before it (a refused play takes no unit off sale). Judged only where the
    target sells in block order (two plays before it consecutive): block order itself is
    play.sales.block_order's to judge."""
    witness = _funded(session, stake, 3)
    earlier = session.play(witness, game, stake)
    before = session.play(witness, game, stake)
    found = refuse()
    if found is not None:
        return found
    after = session.play(witness, game, stake)
    in_order = _follows(session, game, stake, earlier, before)
    if in_order and not _follows(session, game, stake, before, after):
        return evidence(
            case,
            f"the unit after {(before['block_id'], before['index'])}",
            (after["block_id"], after["index"]),
            "a refused play took a unit off sale",
            {"operation": "play", "game": game, "stake_cents": stake},
        )
    return None


def scenario_insufficient_funds(session: Session, case: Case) -> Evidence | None:
    """A stake above the balance gets 402 and changes nothing; a balance of exactly the stake
    can still play."""
    game, stake = case["game"], case["stake_cents"]

    def refuse() -> Evidence | None:
        for balance in sorted({0, stake - 1}):
            account = session.open(balance)
            state = _state(session, account)
            reply = refused(partial(session.play, account, game, stake))
            request = {
                "operation": "play",
                "game": game,
                "stake_cents": stake,
                "balance_cents": balance,
            }
            if not isinstance(reply, ErrorReply) or reply.status != 402:
                return evidence(
                    case,
                    {"status": 402},
                    reply_doc(reply),
                    f"a {stake}-cent play on a balance of {balance} cents was not refused with 402",
                    request,
                )
            if _state(session, account) != state:
                return evidence(
                    case,
                    {"balance_and_history": state},
                    {"balance_and_history": _state(session, account)},
                    "a play refused for lack of funds changed the account",
                    request,
                )
        return None

    found = _cursor_kept(session, case, game, stake, refuse)
    if found is not None:
        return found
    exact = session.open(stake)
    reply = refused(partial(session.play, exact, game, stake))
    if isinstance(reply, ErrorReply):
        return evidence(
            case,
            "the play accepted",
            reply_doc(reply),
            f"a balance of exactly the stake ({stake} cents) was refused",
            {"operation": "play", "game": game, "stake_cents": stake, "balance_cents": stake},
        )
    return None


def invalid_requests(games: Mapping[str, list[int]]) -> list[tuple[str, int]]:
    """(game, stake) pairs that must be refused with 422: stakes a game does not sell (zero,
    negative, one cent off, another game's, huge) and games that do not exist."""
    every = {s for stakes in games.values() for s in stakes} | {50, 100, 200}
    bad: list[tuple[str, int]] = []
    for game, stakes in games.items():
        wrong = {0, -100, 1, min(stakes) - 1, max(stakes) + 1, 10**6} | (every - set(stakes))
        bad.extend((game, s) for s in sorted(wrong - set(stakes)))
    bad.extend([("poker", 100), ("Robots", 100), ("", 100), ("eldorado ", 100)])
    return bad


def scenario_invalid(session: Session, case: Case) -> Evidence | None:
    """Each invalid (game, stake) of ``case["requests"]`` gets 422 and changes nothing."""
    game, stake = case["witness"]
    requests = [(g, s) for g, s in case["requests"]]

    def refuse() -> Evidence | None:
        account = _funded(session, 10**6, 2)
        state = _state(session, account)
        for bad_game, bad_stake in requests:
            reply = refused(partial(session.play, account, bad_game, bad_stake))
            request = {"operation": "play", "game": bad_game, "stake_cents": bad_stake}
            if not isinstance(reply, ErrorReply) or reply.status != 422:
                return evidence(
                    case,
                    {"status": 422},
                    reply_doc(reply),
                    f"a play of game {bad_game!r} at {bad_stake!r} cents was not refused with 422",
                    request,
                )
            now = _state(session, account)
            if now != state:
                return evidence(
                    case,
                    {"balance_and_history": state},
                    {"balance_and_history": now},
                    "a play refused as invalid changed the account",
                    request,
                )
        return None

    return _cursor_kept(session, case, game, stake, refuse)


# -- reveal protocol (robots 4.3, 4.4, 4.7; R-I4, R-I5) ----------------------------------------


@dataclass
class Walk:
    """What clicking a play's buttons showed: the clicks, each button's reveals, the 409s."""

    clicks: list[int] = field(default_factory=list)
    reveals: list[list[tuple[str, bool, bool]]] = field(default_factory=list)
    refused_open: list[int] = field(default_factory=list)  # 409 on a button a +1 left open


def walk(
    session: Session, account: Account, play_id: str, choose: Chooser, stop: int = MAX_CLICKS
) -> Walk:
    """Click the play's open buttons, ``choose(k)`` picking one of the k open ones (sorted),
    until none is open or ``stop`` clicks were made. A 409 on an open button closes it."""
    buttons = reference.robots_rules().buttons
    done = Walk(reveals=[[] for _ in range(buttons)])
    open_ = list(range(buttons))
    while open_ and len(done.clicks) < min(stop, MAX_CLICKS):
        button = open_[choose(len(open_)) if len(open_) > 1 else 0]
        done.clicks.append(button)
        try:
            doc = session.adapter.reveal(play_id, account.token, button)
        except ErrorReply as reply:
            if reply.status != 409:
                raise
            done.refused_open.append(button)
            open_.remove(button)
            continue
        reveal = reveal_tuple(doc, button)
        done.reveals[button].append(reveal)
        if not reveal[2]:
            open_.remove(button)
    return done


def recording_chooser(choices: list[int]) -> tuple[Chooser, list[int]]:
    """A chooser that follows ``choices`` (click n picks open button ``choices[n] % k`` of the
    k open ones, then the first open one once they run out), recording the picks it made."""
    made: list[int] = []

    def pick(k: int) -> int:
        made.append(choices[len(made)] % k if len(made) < len(choices) else 0)
        return made[-1]

    return pick, made


def scenario_reveal_order(session: Session, case: Case) -> Evidence | None:
    """Click in the order ``case["choices"]`` picks: every button's reveals
    are the ticket's under that button, in order, and AUTO ends on the bought ticket and prize."""
    chooser, made = recording_chooser(list(case.get("choices", [])))
    stake = case["stake_cents"]
    account = _funded(session, stake, 1)
    played = session.play(account, ROBOTS, stake)
    truth, source = session.truth(account, played)
    done = walk(session, account, played["play_id"], chooser)
    case = {
        **case,
        "choices": made,
        "clicks": done.clicks,
    }
    ticket, prize = session.auto(account, played["play_id"])
    truth = truth if truth is not None else ticket
    want = robots_buttons(truth)
    if want is None:
        return evidence(
            case,
            "a valid robots ticket",
            truth,
            f"the {source} shows an invalid ticket for the play",
            {"operation": source},
        )
    request = {"operation": "reveal", "play_id": played["play_id"], "clicks": done.clicks}
    if misreported(want, done.reveals):
        case = {**case, "requirement": REVEAL_ANSWER}
    for button, got in enumerate(done.reveals):
        if got != want[button][: len(got)]:
            return evidence(
                case,
                {"button": button, "reveals": want[button], "ticket": truth},
                {"button": button, "reveals": got, "clicks": done.clicks},
                f"clicked in this order, button {button} revealed other symbols than the "
                f"ticket (from the {source}) holds under it",
                request,
            )
    lot = ref_prize(ROBOTS, stake, truth)
    if (ticket, prize) != (truth, lot):
        return evidence(
            case,
            {"ticket": truth, "prize_cents": lot},
            {"ticket": ticket, "prize_cents": prize},
            f"after these clicks AUTO shows another unit than the {source} showed "
            "when it was bought",
            {"operation": "auto", "play_id": played["play_id"]},
        )
    return None


def scenario_plus_one(session: Session, case: Case) -> Evidence | None:
    """Buttons in turn: a reveal with +1 allows one more click, one without it allows none
    (409), for ``case["plays"]`` plays."""
    stake = case["stake_cents"]
    account = _funded(session, stake, case["plays"])
    for _ in range(case["plays"]):
        played = session.play(account, ROBOTS, stake)
        play_id = played["play_id"]
        truth, _ = session.truth(account, played)
        held = robots_buttons(truth) if truth is not None else None
        for button in range(reference.robots_rules().buttons):
            reveals: list[tuple[str, bool, bool]] = []
            while len(reveals) < MAX_CLICKS:
                reply = refused(partial(session.adapter.reveal, play_id, account.token, button))
                request = {
                    "operation": "reveal",
                    "play_id": play_id,
                    "button": button,
                    "click": len(reveals) + 1,
                }
                is_409 = isinstance(reply, ErrorReply) and reply.status == 409
                exhausted = bool(reveals) and not reveals[-1][2]
                if isinstance(reply, ErrorReply) and not is_409:
                    if not exhausted or not 400 <= reply.status < 500:
                        raise reply
                    # refused, as it must be, but not with the status the contract fixes
                    raise ContractBreach(
                        "protocol.refusals.status",
                        f"a click on button {button}, which has nothing left to reveal, was "
                        f"refused with {reply.status} {reply.code}; the contract fixes 409",
                        {"operation": "reveal", **reply_doc(reply), "expected": {"status": 409}},
                    )
                if exhausted:  # the last reveal had no +1
                    if not is_409:
                        # the ticket holds a +1 there: the answer dropped it, the protocol
                        # is right (play.reveal.answer's fault)
                        dropped = held is not None and len(held[button]) > len(reveals)
                        return evidence(
                            {**case, "requirement": REVEAL_ANSWER} if dropped else case,
                            {"status": 409},
                            reply_doc(reply),
                            f"button {button} was clicked again after a reveal "
                            "without +1, and revealed",
                            request,
                        )
                    break
                if is_409:
                    return evidence(
                        case,
                        "the next reveal of the button",
                        reply_doc(reply),
                        f"click {len(reveals) + 1} on button {button} was refused "
                        + (
                            "although the +1 above it allowed it"
                            if reveals
                            else "although it was never clicked"
                        ),
                        request,
                    )
                reveals.append(reveal_tuple(reply, button))
    return None


def scenario_auto(session: Session, case: Case) -> Evidence | None:
    """After ``case["stop"]`` clicks in the order chosen, AUTO shows the ticket bought and its
    lot (whether the clicks showed that ticket's reveals is reveal_order's to judge)."""
    chooser, made = recording_chooser(list(case.get("choices", [])))
    stake = case["stake_cents"]
    account = _funded(session, stake, 1)
    played = session.play(account, ROBOTS, stake)
    truth, source = session.truth(account, played)
    done = walk(session, account, played["play_id"], chooser, case["stop"])
    case = {
        **case,
        "choices": made,
        "clicks": done.clicks,
    }
    ticket, prize = session.auto(account, played["play_id"])
    request = {"operation": "auto", "play_id": played["play_id"], "after_clicks": done.clicks}
    lot = ref_prize(ROBOTS, stake, ticket)
    if truth is not None and ticket != truth:
        return evidence(
            case,
            {"ticket": truth},
            {"ticket": ticket},
            f"AUTO after {len(done.clicks)} click(s) shows another ticket than the "
            f"{source} showed when the play was bought",
            request,
        )
    if lot is None or prize != lot:
        return evidence(
            case,
            {"ticket": ticket, "prize_cents": lot},
            {"prize_cents": prize},
            "AUTO's prize is not its ticket's lot",
            request,
        )
    return None


# -- tokens (contract 4) -----------------------------------------------------------------------


def _owned_play(session: Session, game: str, stake: int) -> tuple[Account, Document]:
    owner = _funded(session, stake, 2)
    return owner, session.play(owner, game, stake)


def _untouched(
    session: Session, case: Case, owner: Account, played: Document, balance: int, note: str
) -> Evidence | None:
    """After refused calls, the owner's balance, reveal state and history are as they were
    (the play is revealed before the history is read: the history is judged elsewhere)."""
    now = session.balance(owner)  # before any reveal: a credit deferred to it is not ours
    if played["game"] == ROBOTS and "reveal" in session.capabilities:
        reply = refused(partial(session.adapter.reveal, played["play_id"], owner.token, 0))
        if isinstance(reply, ErrorReply) and reply.status != 409:
            raise reply
        first = None if isinstance(reply, ErrorReply) else reveal_tuple(reply, 0)
        ticket, _ = session.auto(owner, played["play_id"])
        want = robots_buttons(ticket)
        # a refused call consumed button 0's first reveal: it now shows the second, or 409
        # (another answer is the reveal checks' to judge, not a fault of the refused calls)
        consumed = want is not None and (
            first is None or (first != want[0][0] and first in want[0][1:])
        )
        if consumed:
            assert want is not None
            return evidence(
                case,
                {"button": 0, "first_reveal": want[0][0]},
                {"button": 0, "first_reveal": first if first is not None else "409"},
                note + " (button 0 no longer shows its first reveal)",
                {"operation": "reveal", "button": 0},
            )
    else:
        session.auto(owner, played["play_id"])
    history = [p["play_id"] for p in session.history(owner, 10)]
    # unchanged: the balance read before the refused calls, or the one the play answered (a
    # read lagging behind is play.money.balance_read's); no play but the owner's listed (a
    # play listed twice or not yet is the history requirements')
    same = now in (balance, played["balance_cents"])
    if not same or not set(history) <= {played["play_id"]}:
        return evidence(
            case,
            {"balance_cents": balance, "history": [played["play_id"]]},
            {"balance_cents": now, "history": history},
            note,
            {"operation": "balance+history"},
        )
    return None


def _calls(
    session: Session, owner: Account, played: Document, token: str | None
) -> list[tuple[str, Callable[[], object]]]:
    adapter, acc, play_id = session.adapter, owner.account_id, played["play_id"]
    calls: list[tuple[str, Callable[[], object]]] = [
        ("balance", lambda: adapter.balance(acc, token)),
        ("play", lambda: adapter.play(acc, token, played["game"], played["stake_cents"])),
        ("history", lambda: adapter.history(acc, token, 10)),
        ("auto", lambda: adapter.auto(play_id, token)),
    ]
    if played["game"] == ROBOTS and "reveal" in session.capabilities:
        calls.insert(3, ("reveal", lambda: adapter.reveal(play_id, token, 0)))
    return calls


def scenario_no_token(session: Session, case: Case) -> Evidence | None:
    """Every play endpoint answers 401 to no token and to a token that opens no account."""
    owner, played = _owned_play(session, case["game"], case["stake_cents"])
    balance = session.balance(owner)
    for token in (None, "", "instantcert-not-a-token-" + owner.token[:4][::-1]):
        for operation, call in _calls(session, owner, played, token):
            reply = refused(call)
            if not isinstance(reply, ErrorReply) or reply.status != 401:
                shown = "no token" if not token else f"the token {token!r}"
                return evidence(
                    case,
                    {"status": 401},
                    reply_doc(reply),
                    f"{operation} with {shown} was not refused with 401",
                    {"operation": operation, "token": token},
                )
    return _untouched(
        session,
        case,
        owner,
        played,
        balance,
        "calls refused for want of a token changed the account",
    )


def scenario_cross_account(session: Session, case: Case) -> Evidence | None:
    """Another account's valid token is refused (403/404) on every endpoint of this account."""
    owner, played = _owned_play(session, case["game"], case["stake_cents"])
    other = session.open(case["stake_cents"] * 2)
    balance = session.balance(owner)
    for operation, call in _calls(session, owner, played, other.token):
        reply = refused(call)
        if not isinstance(reply, ErrorReply) or reply.status not in (403, 404):
            return evidence(
                case,
                {"status": [403, 404]},
                reply_doc(reply),
                f"{operation} on another account's "
                f"{'play' if operation in ('reveal', 'auto') else 'account'} with "
                "this account's token was not refused",
                {"operation": operation},
            )
    return _untouched(
        session,
        case,
        owner,
        played,
        balance,
        "calls refused with another account's token changed the account",
    )


Scenario = Callable[[Session, Case], Evidence | None]

SCENARIOS: dict[str, Scenario] = {
    "stake_debited": scenario_stake_debited,
    "prize_credited": scenario_prize_credited,
    "money_exact": scenario_money_exact,
    "history_unrevealed": scenario_history_unrevealed,
    "block_order": scenario_block_order,
    "block_unit": scenario_block_unit,
    "concurrent": scenario_concurrent,
    "insufficient_funds": scenario_insufficient_funds,
    "invalid": scenario_invalid,
    "reveal_order": scenario_reveal_order,
    "plus_one": scenario_plus_one,
    "auto": scenario_auto,
    "no_token": scenario_no_token,
    "cross_account": scenario_cross_account,
    "account_token": scenario_account_token,
}
