"""Refusals of the play endpoints (contract 4): the status the contract fixes and the error
document, for every refusal the suite provokes.

Each refusal is provoked once on fresh accounts: no token (401), a token that opens no account
(401), another account's token on an account and on a play (403/404), a stake above the
balance (402), a reveal on a button with nothing left (409, robots), a stake the game does not
sell and an unknown game (422), a wrong JSON type (400; 422 accepted, see
docs/contract-decisions.md), an account and a play that do not exist (404; 403 accepted; ids of
the target's own format, one character changed). The
status must be in the family fixed (``protocol.refusals.status``) and the answer the error
document ``{"error": {"code": <snake_case>, "message": <str>}}``
(``protocol.refusals.error_document``). A refusal provoked here that the target accepts is the
requirement of that refusal's own (``security.*``, ``play.refusal.*``, ``robots.4.7.*``) to
judge, except a malformed request, whose acceptance no other requirement sees.

Over HTTP, a refusal sent with a 2xx status, a success with another 2xx than the contract's
(201 for a created account or play) and a 4xx whose JSON body is not the error document are
``ContractBreach``es wherever they are met, *fails* of these two requirements: their evidence
(``BreachEvidence``, kind ``contract_breach``) replays by provoking every refusal again.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from typing import Any

from contract import ContractBreach, ErrorReply

from .._evidence import BreachEvidence, Counterexample, require
from .._registry import CheckContext, CheckFailure, Evidence, NotSupported, check
from .._replay import replayer
from ..games import kit
from . import _scenarios as sc
from ._scenarios.client import misspelt, mistyped, open_least
from ._session import session

STATUS = "protocol.refusals.status"
DOCUMENT = "protocol.refusals.error_document"
SNAKE_CASE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")


def unknown_like(real: str) -> str:
    """An id of the same format as ``real`` that names nothing: its last letter or digit
    changed within its class (a target may refuse an id of another format as malformed)."""
    for at in range(len(real) - 1, -1, -1):
        c = real[at]
        for chars in (string.digits, string.ascii_lowercase, string.ascii_uppercase):
            if c in chars:
                return real[:at] + chars[(chars.index(c) + 1) % len(chars)] + real[at + 1 :]
    return real + "0"


def error_document_fault(reply: ErrorReply) -> str | None:
    """What is wrong with a refusal's error document, or None."""
    if type(reply.code) is not str or not SNAKE_CASE.fullmatch(reply.code):
        return f"its code {reply.code!r} is not snake_case"
    if type(reply.message) is not str:
        return f"its message {reply.message!r} is not a string"
    return None


Provoked = tuple[str, Callable[[], object], tuple[int, ...], bool]


def _provocations(session: sc.Session, case: Mapping[str, Any]) -> list[Provoked]:
    """(what, call, statuses allowed, accepting it is this check's fault)."""
    adapter = session.adapter
    game, stake = case["game"], case["stake_cents"]
    owner = session.open(stake * 4)
    other = session.open(stake * 4)
    played = session.play(owner, game, stake)
    # finished: the plays refused below come from an account with no ticket unfinished, whose
    # 409 would fit too (row one-open-ticket)
    session.auto(owner, played["play_id"])
    poor, poorest = open_least(session, stake - 1)
    acc, play_id = owner.account_id, played["play_id"]
    calls: list[Provoked] = [
        ("balance without a token", lambda: adapter.balance(acc, None), (401,), False),
        (
            "history with a token that opens no account",
            lambda: adapter.history(acc, mistyped(owner.token), 5),
            (401,),
            False,
        ),
        (
            "balance of another account",
            lambda: adapter.balance(acc, other.token),
            (403, 404),
            False,
        ),
        (
            "auto of another account's play",
            lambda: adapter.auto(play_id, other.token),
            (403, 404),
            False,
        ),
        (
            f"a {stake}-cent play on a balance of {poorest}",
            lambda: adapter.play(poor.account_id, poor.token, game, stake),
            (402,),
            False,
        ),
        ("a play at 1 cent", lambda: adapter.play(acc, owner.token, game, 1), (422,), False),
        (
            f"a play of game {misspelt(game)!r}",
            lambda: adapter.play(acc, owner.token, misspelt(game), stake),
            (422,),
            False,
        ),
        (
            "a play with stake_cents the string '100'",
            lambda: adapter.play(acc, owner.token, game, str(stake)),
            (400, 422),
            True,
        ),
        (
            "an account opened with balance_cents the string '100'",
            lambda: adapter.open_account("100"),
            (400, 422),
            True,
        ),
        (
            "balance of an account never opened",
            lambda: adapter.balance(unknown_like(other.account_id), owner.token),
            (403, 404),
            False,
        ),
        (
            "auto of a play never sold",
            lambda: adapter.auto(unknown_like(play_id), owner.token),
            (403, 404),
            False,
        ),
    ]
    if kit(game).reveals and "reveal" in session.capabilities:
        done = session.play(owner, game, stake)
        session.auto(owner, done["play_id"])
        calls.append(
            (
                "a reveal after AUTO revealed everything",
                lambda: adapter.reveal(done["play_id"], owner.token, 0),
                (409,),
                False,
            )
        )
    return calls


def scenario_refusals(session: sc.Session, case: Mapping[str, Any]) -> Evidence | None:
    """Every refusal of the list above: its status in the family fixed, its error document
    (``requirement`` in the evidence input names which of the two is broken)."""
    for what, call, allowed, ours in _provocations(session, case):
        reply = sc.refused(call)
        request = {"operation": what}
        if not isinstance(reply, ErrorReply):
            if ours or "error" in reply:
                return sc.evidence(
                    {**case, "requirement": STATUS},
                    {"status": list(allowed)},
                    reply,
                    f"{what} was answered as a success; the contract fixes {allowed}",
                    request,
                )
            continue  # a refusal accepted: its own requirement judges that
        if reply.status not in allowed:
            return sc.evidence(
                {**case, "requirement": STATUS},
                {"status": list(allowed)},
                sc.reply_doc(reply),
                f"{what} was refused with {reply.status} {reply.code}; the contract fixes "
                f"{' or '.join(map(str, allowed))}",
                request,
            )
        fault = error_document_fault(reply)
        if fault is not None:
            return sc.evidence(
                {**case, "requirement": DOCUMENT},
                {"error": {"code": "<snake_case>", "message": "<str>"}},
                sc.reply_doc(reply),
                f"{what} was refused with {reply.status}, but {fault}",
                request,
            )
    return None


sc.SCENARIOS["refusals"] = scenario_refusals


@check("protocol.refusals", covers=[STATUS, DOCUMENT], capability="play")
def refusals(ctx: CheckContext) -> None:
    """Every refusal the suite provokes on the play endpoints, at the first stake of each game
    in scope: the status the contract fixes, and the error document with a snake_case code."""
    target = session(ctx)
    tried = 0
    for game in ctx.games():
        stakes = ctx.stakes(game)
        if not stakes:
            continue
        case = sc.case_of("refusals", game=game, stake_cents=stakes[0])
        found = scenario_refusals(target, case)
        tried += 1
        if found is not None:
            raise CheckFailure(
                f"{game}: {found.note}", [found], requirements=(str(found.input["requirement"]),)
            )
    if not tried:
        raise NotSupported("no game and stake in this run's scope")


@replayer(BreachEvidence.KIND)
def replay_breach(adapter: Any, case: Mapping[str, Any]) -> Counterexample | None:
    """The ``contract_breach`` replayer: every refusal provoked again (at the first stake of
    each game the target offers); the first breach, or refusal fault, is the evidence."""
    require(case, "check", "requirement")
    described = adapter.describe()
    session = sc.Session.of(adapter, described)
    for game, offer in described.get("games", {}).items():
        stakes = offer.get("stakes_cents", [])
        if not stakes:
            continue
        try:
            found = scenario_refusals(
                session, sc.case_of("refusals", game=game, stake_cents=stakes[0])
            )
        except ContractBreach as breach:
            answer = dict(breach.answer)
            expected = answer.pop("expected", None)
            return BreachEvidence(
                str(case["check"]),
                str(case["requirement"]),
                expected,
                answer,
                answer.get("operation"),
                str(breach),
            )
        if found is not None:
            return found
    return None
