"""Sales scenarios (contract 4): block order, the served unit, concurrent sales, and the
helper that runs plays in threads at once (concurrent sales, one account)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

from ..._pool import map_in_order, split
from ..._registry import Evidence, Reservation
from .._block_reading import of_pair
from .client import (
    Account,
    Case,
    Document,
    Session,
    _funded,
    evidence,
    ref_prize,
)


def _follows(session: Session, game: str, stake: int, prev: Document, nxt: Document) -> bool:
    """Whether ``nxt`` is the unit sold right after ``prev`` (same block +1, or the next block's
    unit 0 once ``prev`` was the last unit of its block), past the units sold meanwhile to the
    session's own plays that brought an account down to a balance asked below a minimum
    deposit (``Session.sold_down``: none on a target without one)."""
    if _next(session, game, stake, prev, nxt):
        return True
    down = session.sold_down(game, stake)
    for _ in down:  # each step one unit further on
        prev = next((d for d in down if _next(session, game, stake, prev, d)), nxt)
        if prev is nxt:
            return False
        if _next(session, game, stake, prev, nxt):
            return True
    return False


def _next(session: Session, game: str, stake: int, prev: Document, nxt: Document) -> bool:
    """Whether ``nxt`` is the unit right after ``prev``."""
    if nxt["block_id"] == prev["block_id"]:
        return bool(nxt["index"] == prev["index"] + 1)
    size = session.block_size(game, stake, prev["block_id"])
    last = size is None or prev["index"] == size - 1
    return bool(nxt["index"] == 0 and last)


BLOCK_ORDER = "play.sales.block_order"


def block_end_unknown(session: Session, game: str, stake: int, block_id: str, what: str) -> None:
    """Plays that went on from ``block_id`` to another block, whose size the target does not
    serve (no blocks capability: row ``capability-skipped``): whether ``block_id`` had ended
    there, or units of it were skipped, cannot be judged. The check reserves it
    (``Session.reserve``) rather than pass it. A block the target serves but does not list
    is ``play.sales.block_unit``'s (row ``sold-block-listed``)."""
    if "blocks" in session.capabilities:
        return
    session.reserve(
        Reservation(
            f"{game} at {stake} cents: {what} went on from block {block_id!r} to another; the "
            "target serves no blocks, so whether that block had ended there (or units of it "
            "were skipped) could not be verified",
            basis="capability-skipped",
            lift="serve the blocks capability (GET /v1/blocks with each block's units) and "
            "declare it, then certify again",
            kind="unverifiable",
            requirements=[BLOCK_ORDER],
        )
    )


def scenario_block_order(session: Session, case: Case) -> Evidence | None:
    """One account buys ``plays`` units in a row: each play one unit, unit after unit. A play
    starting another block is in order after the last unit of the block before; where the
    target serves no blocks, that unit is unknown and the check reserves it
    (``block_end_unknown``)."""
    game, stake, plays = case["game"], case["stake_cents"], case["plays"]
    account = _funded(session, stake, plays)
    sold: list[Document] = []
    for _ in range(plays):
        played = session.play(account, game, stake)
        # each block's size read while it is on sale: a target may list only that block
        # (row blocks-listed), and its end is judged once the next one is sold
        session.block_size(game, stake, played["block_id"])
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
        ended = sold[-1]["block_id"] if sold else None
        if ended not in (None, played["block_id"]) and not session.block_size(game, stake, ended):
            block_end_unknown(session, game, stake, ended, "plays in a row")
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
    for played, _, _ in shown:  # a unit sold from a block the audit never reads is unchecked
        if session.block_size(game, stake, played["block_id"]) is None:
            blocks = of_pair(session.adapter.list_blocks(game, stake), game, stake)
            listed = sorted(b["block_id"] for b in blocks)
            return evidence(
                case,
                {"block_id": f"one of the blocks listed for {game} at {stake} cents: {listed}"},
                {"play_id": played["play_id"], "block_id": played["block_id"]},
                f"the play was sold from block {played['block_id']!r}, which GET /v1/blocks "
                f"does not list for {game} at {stake} cents: its units are in no block the "
                "audit reads",
                {"operation": "list_blocks", "game": game, "stake_cents": stake},
            )
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


def scenario_auto_answer(session: Session, case: Case) -> Evidence | None:
    """``plays`` plays of the game and stake, bought two at a time and each finished by AUTO,
    the older first (an answer must be the play asked for, not the account's newest): every
    answer's wins are its ticket's and add up to its prize (judged by ``Session.auto``, a failure of
    ``play.auto.answer``, as every AUTO answer of every check is), over ``case["accounts"]``
    accounts played side by side."""
    game, stake = case["game"], case["stake_cents"]

    def one(plays: int) -> None:  # one account's plays, one after another
        account = _funded(session, stake, plays)
        for done in range(0, plays, 2):  # two bought, then AUTO of the older one first
            bought = [session.play(account, game, stake) for _ in range(min(2, plays - done))]
            for played in bought:
                session.auto(account, played["play_id"])

    shares = split(case["plays"], max(1, int(case.get("accounts", 1))))
    map_in_order(one, shares, len(shares))  # the accounts side by side: latency hidden
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
    for pair, played in first.items():  # its size while it is on sale (``_between``)
        session.block_size(*pair, played["block_id"])
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
        if want is None:  # a block ended in between: its units unknown without blocks
            block_end_unknown(session, *pair, start["block_id"], "plays at the same time")
        elif got != want:
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
    # the sales are over: each account's AUTOs and balance are read side by side (they sell
    # nothing), then judged in account order, each as if read in its turn
    tallies = map_in_order(
        lambda t: _tally(session, accounts[t], results[t]), range(threads), threads
    )
    for t, account in enumerate(accounts):
        tally = tallies[t]
        if isinstance(tally, BaseException):
            raise tally
        tickets, balance = tally
        spent = sum(p["stake_cents"] for p in results[t])
        won = 0
        for played, ticket in zip(results[t], tickets, strict=False):
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


def _tally(
    session: Session, account: Account, plays: list[Document]
) -> tuple[list[str], int] | BaseException:
    """The tickets AUTO shows for ``plays`` of ``account`` and its balance read after, up to
    the first invalid ticket (its balance then 0: not read); or the exception the target's
    answers raised (handed on by the caller in this account's turn)."""
    tickets: list[str] = []
    try:
        for played in plays:
            ticket, _ = session.auto(account, played["play_id"])
            tickets.append(ticket)
            if ref_prize(played["game"], played["stake_cents"], ticket) is None:
                return tickets, 0
        return tickets, session.balance(account)
    except Exception as exc:  # raised again in this account's turn
        return exc


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
