"""Token scenarios (contract 4): a sendable account token, no token (401), another
account's token (403/404), none of them changing the account."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from contract import ErrorReply

from ..._registry import Evidence
from ...games import kit
from .client import (
    SENDABLE_TOKEN,
    Account,
    Case,
    Document,
    Session,
    _funded,
    evidence,
    mistyped,
    refused,
    reply_doc,
    reveal_tuple,
    ticket_buttons,
    token_fault,
)


def scenario_account_token(session: Session, case: Case) -> Evidence | None:
    """An account is opened: its token must be one an Authorization header can carry."""
    balance = case.get("balance_cents", 1000)
    doc = session.adapter.open_account(balance)
    token = doc["token"]
    return None if SENDABLE_TOKEN.fullmatch(token) else token_fault(balance, doc)


def _owned_play(session: Session, game: str, stake: int) -> tuple[Account, Document]:
    owner = _funded(session, stake, 2)
    return owner, session.play(owner, game, stake)


def _untouched(
    session: Session, case: Case, owner: Account, played: Document, balance: int, note: str
) -> Evidence | None:
    """After refused calls, the owner's balance, reveal state and history are as they were
    (the play is revealed before the history is read: the history is judged elsewhere)."""
    now = session.balance(owner)  # before any reveal: a credit deferred to it is not ours
    if kit(played["game"]).reveals and "reveal" in session.capabilities:
        reply = refused(partial(session.adapter.reveal, played["play_id"], owner.token, 0))
        if isinstance(reply, ErrorReply) and reply.status != 409:
            raise reply
        first = None if isinstance(reply, ErrorReply) else reveal_tuple(played["game"], reply, 0)
        ticket, _ = session.auto(owner, played["play_id"])
        want = ticket_buttons(played["game"], ticket)
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
    if kit(played["game"]).reveals and "reveal" in session.capabilities:
        calls.insert(3, ("reveal", lambda: adapter.reveal(play_id, token, 0)))
    return calls


def scenario_no_token(session: Session, case: Case) -> Evidence | None:
    """Every play endpoint answers 401 to no token and to a token that opens no account."""
    owner, played = _owned_play(session, case["game"], case["stake_cents"])
    balance = session.balance(owner)
    # no header, an empty one, the account's own token mistyped: a client's mistakes, no label
    for token in (None, "", mistyped(owner.token)):
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
