"""Refusal scenarios (contract 4): insufficient funds (402), invalid game or stake (422),
each changing nothing and taking no unit off sale."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from functools import partial

from contract import ErrorReply

from ..._registry import Evidence
from .client import (
    MONEY,
    Account,
    Case,
    Session,
    _funded,
    evidence,
    misspelt,
    ref_prize,
    refused,
    reply_doc,
)
from .sales import _follows


def _state(session: Session, account: Account) -> tuple[int, list[str]]:
    """The balance and the history's newest plays (up to 50, or the target's own maximum on
    ``limit``: ``Session.history_up_to``)."""
    listing, _ = session.history_up_to(account, 50)
    return session.balance(account), [p["play_id"] for p in listing]


def _left_as_it_was(
    session: Session,
    case: Case,
    account: Account,
    before: tuple[int, list[str]],
    refused_as: str,
    request: Mapping[str, object],
) -> Evidence | None:
    """A refusal changes nothing: the account's balance and history read again (once) are
    ``before``; else the evidence shows both, the refused request and ``refused_as``."""
    after = _state(session, account)
    if after == before:
        return None
    return evidence(
        case,
        {"balance_and_history": before},
        {"balance_and_history": after},
        f"a play refused {refused_as} changed the account",
        request,
    )


def _cursors_kept(
    session: Session,
    case: Case,
    watched: list[tuple[str, int]],
    refuse: Callable[[], Evidence | None],
) -> Evidence | None:
    """Run ``refuse`` between plays of a witness account at each of the ``watched`` (game,
    stake) streams: the play after it must be the unit after the one before it (a refused
    play takes no unit off sale, of any stream: an invalid stake's play has no stream of its
    own). That is judged from two plays in a row before it: their units must follow one
    another, or the target does not sell in block order (``play.sales.block_order``, failed
    here: the checks that run this are exclusive, no other play buys a unit of the stream
    meanwhile), and a refusal could not be told from it. It passed before, judging nothing: a
    target selling out of order around a refusal was never asked what the refusal took."""
    witnesses = []
    for game, stake in watched:
        witness = _funded(session, stake, 3)
        earlier = session.play(witness, game, stake)
        before = session.play(witness, game, stake)
        for played in (earlier, before):  # sizes read while on sale (row blocks-listed)
            session.block_size(game, stake, played["block_id"])
        if not _follows(session, game, stake, earlier, before):
            return evidence(
                {**case, "requirement": "play.sales.block_order"},
                f"the unit after {(earlier['block_id'], earlier['index'])}",
                (before["block_id"], before["index"]),
                "two plays in a row of one account, no other play meanwhile, were not sold "
                "consecutive units: a refusal's unit taken off sale cannot be judged either",
                {"operation": "play", "game": game, "stake_cents": stake},
            )
        witnesses.append((game, stake, witness, before))
    found = refuse()
    if found is not None:
        return found
    for game, stake, witness, before in witnesses:
        after = session.play(witness, game, stake)
        if not _follows(session, game, stake, before, after):
            return evidence(
                case,
                f"the unit after {(before['block_id'], before['index'])}",
                (after["block_id"], after["index"]),
                f"a refused play took a unit off sale ({game} at {stake} cents)",
                {"operation": "play", "game": game, "stake_cents": stake},
            )
    return None


def scenario_insufficient_funds(session: Session, case: Case) -> Evidence | None:
    """A stake above the balance gets 402 and changes nothing; a balance of exactly the stake
    can still play. The balances tried are 0 and the stake less a cent; a target that opens no
    empty account (a 4xx: a least balance of its own) is judged on the second."""
    game, stake = case["game"], case["stake_cents"]

    def refuse() -> Evidence | None:
        for balance in sorted({0, stake - 1}):
            try:
                account = session.open(balance)
            except ErrorReply as refusal:  # no empty account (a least balance of the target's
                if balance or not 400 <= refusal.status < 500:  # own): stake - 1 is judged
                    raise
                continue
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
            changed = _left_as_it_was(session, case, account, state, "for lack of funds", request)
            if changed is not None:
                return changed
        return None

    found = _cursors_kept(session, case, [(game, stake)], refuse)
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
    names = list(games)  # a misspelt name and none (no label); the near misses: ``near_misses``
    bad.extend([(misspelt(names[0]), 100), ("", 100)])
    return bad


def near_misses(games: Mapping[str, list[int]]) -> list[tuple[str, int]]:
    """A game's name in another case and one with a trailing space, each at a stake it sells
    (row ``game-name-forms``): refused with 422, or sold as that game (a name read whatever
    its case, spaces trimmed: .NET's enum reading), never another."""
    names = list(games)
    first, last = names[0], names[-1]
    return [(first.capitalize(), min(games[first])), (last + " ", min(games[last]))]


def named(name: str, games: Collection[str]) -> str | None:
    """The game ``name`` names when read whatever its case, spaces trimmed, or None."""
    wanted = name.strip().casefold()
    return next((g for g in games if g.casefold() == wanted), None)


HUGE_STAKE_FUNDS = 10**6 * 2 * 3
"""What the invalid plays' account is opened with: a stake of 10^6 cents (10 000 EUR) payable
twice, three times over, so that a target that validates funds before the stake still owes
422 for it."""

SMALLER_FUNDS = 60_000
"""The account opened instead when the target refuses ``HUGE_STAKE_FUNDS`` (a 4xx: a wallet
limit of its own, docs/contract-decisions.md row ``balance-own-limit``): every stake a game
sells, many times over. A stake above it answered 402 is then not judged (``unjudged``)."""


def _invalid_plays_account(session: Session) -> tuple[Account, int]:
    """The account the invalid plays are tried on, and its balance."""
    try:
        return session.open(HUGE_STAKE_FUNDS), HUGE_STAKE_FUNDS
    except ErrorReply as refusal:
        if not 400 <= refusal.status < 500:
            raise
    return session.open(SMALLER_FUNDS), SMALLER_FUNDS


def scenario_invalid(
    session: Session,
    case: Case,
    unjudged: list[int] | None = None,
    read_as: list[str] | None = None,
) -> Evidence | None:
    """Each invalid (game, stake) of ``case["requests"]`` gets 422 and changes nothing. When
    the target refuses to open an account able to pay the largest of them (a limit of its
    own), a stake above the balance may be refused with 402 instead: it is then not judged,
    and put in ``unjudged``."""
    game, stake = case["witness"]
    requests = [(g, s) for g, s in case["requests"]]

    def refuse() -> Evidence | None:
        account, funds = _invalid_plays_account(session)
        state = _state(session, account)
        for bad_game, bad_stake in requests:
            reply = refused(partial(session.play, account, bad_game, bad_stake))
            request = {"operation": "play", "game": bad_game, "stake_cents": bad_stake}
            unpaid = type(bad_stake) is int and bad_stake > funds
            if unpaid and isinstance(reply, ErrorReply) and reply.status == 402:
                if unjudged is not None:
                    unjudged.append(bad_stake)
            elif not isinstance(reply, ErrorReply) or reply.status != 422:
                return evidence(
                    case,
                    {"status": 422},
                    reply_doc(reply),
                    f"a play of game {bad_game!r} at {bad_stake!r} cents was not refused with 422",
                    request,
                )
            changed = _left_as_it_was(session, case, account, state, "as invalid", request)
            if changed is not None:
                return changed
        return None

    # every stream the case names: a stake a game does not sell has no stream of its own,
    # and the unit it takes off sale may be any of the game's (a case written before names
    # its witness alone)
    watched = [(str(g), int(s)) for g, s in case.get("witnesses") or [(game, stake)]]
    found = _cursors_kept(session, case, watched, refuse)
    if found is not None:
        return found
    return _near_misses(session, case, read_as)


def _near_misses(session: Session, case: Case, read_as: list[str] | None) -> Evidence | None:
    """Each name of ``case["near_misses"]``: refused with 422 changing nothing, or sold as the
    game it names (``named``: the play's game, stake, balance and AUTO's ticket judged), noted
    in ``read_as`` (a reservation, row ``game-name-forms``)."""
    games = {g for _, g in session.declared}
    account, _ = _invalid_plays_account(session)
    for name, stake in case.get("near_misses", []):
        state = _state(session, account)
        send = partial(session.adapter.play, account.account_id, account.token, name, stake)
        reply = refused(send)
        request = {"operation": "play", "game": name, "stake_cents": stake}
        if isinstance(reply, ErrorReply):
            if reply.status != 422:
                return evidence(
                    case,
                    {"status": 422},
                    reply_doc(reply),
                    f"a play of game {name!r} at {stake} cents was refused, not with 422",
                    request,
                )
            changed = _left_as_it_was(session, case, account, state, "as invalid", request)
            if changed is not None:
                return changed
            continue
        meant = named(name, games)
        if meant is None or (reply.get("game"), reply.get("stake_cents")) != (meant, stake):
            return evidence(
                case,
                {"status": 422, "or_sold_as": [meant, stake]},
                reply_doc(reply),
                f"a play of game {name!r} at {stake} cents was neither refused with 422 nor "
                f"sold as a play of {meant!r} at that stake",
                request,
            )
        session.remember(reply, meant, stake)
        ticket, _ = session.auto(account, str(reply["play_id"]))
        lot = ref_prize(meant, stake, ticket)
        want = None if lot is None else state[0] - stake + lot
        if want is not None and reply.get("balance_cents") != want:
            return evidence(
                {**case, "requirement": MONEY},
                {"balance_cents": want},
                reply_doc(reply),
                f"a play of game {name!r}, sold as {meant!r}, answered another balance than "
                f"{state[0]} - {stake} + its lot {lot}",
                request,
            )
        if read_as is not None:
            read_as.append(name)
    return None
