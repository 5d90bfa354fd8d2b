"""The evaluate batch (contract 4): one result per ticket in request order, an error object in
place of each invalid ticket, never a batch refused whole for one; the refusals of a request
the contract does not allow.

Order comes first (``_batch_order``): a target that reorders a batch fails one requirement
(``evaluate.batch.order``) with one piece of evidence, not the rules requirements with many.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import reference
from contract import ErrorReply

from .._evaluation import check_shape, expected_result, is_error, result_key
from .._evidence import BatchEvidence, Counterexample, Serialised, require
from .._registry import CheckContext, CheckFailure, check
from .._replay import register_kind
from ..games import kit
from ._batch_order import ORDER, order_failure, permuted
from ._scenarios.client import misspelt
from .refusals import error_document_fault

ERRORS = "evaluate.batch.errors"
REFUSALS = "evaluate.refusals.status"


def distinct_tickets(game: str, stake: int, seed: int) -> list[str]:
    """Tickets whose results all differ: one per amount of the game's lot table, drawn by the
    reference's ticket maker with a seeded generator, plus a losing one, shuffled."""
    rng = random.Random(seed)
    prizes = sorted(reference.load_rules(game).lot_table(stake).counts())
    tickets: dict[str, str] = {}
    for prize in prizes:
        ticket = reference.generate_ticket(game, stake, prize, rng)
        tickets.setdefault(result_key(game, expected_result(game, stake, ticket)), ticket)
    chosen = list(tickets.values())
    rng.shuffle(chosen)
    return chosen


@check("evaluate.batch_order", covers=[ORDER], capability="evaluate")
def batch_order(ctx: CheckContext) -> None:
    """A batch of tickets whose results all differ (one per lot of the game, and a losing
    one), at every stake in scope: result i is ticket i's, one result per ticket."""
    for game in ctx.games():
        for stake in ctx.stakes(game):
            tickets = distinct_tickets(game, stake, ctx.seed)
            got = check_shape(ctx.adapter.evaluate(game, stake, tickets), tickets)
            mapping = permuted(game, [expected_result(game, stake, t) for t in tickets], got)
            if mapping is not None:
                raise order_failure(game, stake, tickets, mapping)


def _mixed(game: str, valid: list[str]) -> list[str]:
    """Valid and invalid tickets interleaved, an invalid one first and last."""
    invalid = [t for _, t in kit(game).invalid_examples][:6]
    batch = []
    for n, bad in enumerate(invalid):
        batch.append(bad)
        batch.append(valid[n % len(valid)])
    return [*batch, invalid[0]]


@dataclass(frozen=True)
class MixedBatchEvidence(BatchEvidence):
    """Valid and invalid tickets in one batch answered against the contract: refused whole,
    or an invalid ticket's error object malformed (kind ``evaluate_mixed``)."""

    KIND: ClassVar[str] = "evaluate_mixed"

    @classmethod
    def replay(cls, adapter: Any, case: Mapping[str, Any]) -> Counterexample | None:
        """The mixed batch again."""
        require(case, "game", "stake_cents", "tickets")
        return mixed_batch_fault(adapter, case["game"], case["stake_cents"], list(case["tickets"]))


register_kind(MixedBatchEvidence)


def mixed_batch_fault(
    adapter: Any, game: str, stake: int, batch: list[str]
) -> MixedBatchEvidence | None:
    """``batch`` (valid and invalid tickets): Evidence if it is refused whole, or an invalid
    ticket's error object is not ``{"error": {"code": <snake_case>, "message": <str>}}``.
    A prize for an invalid ticket, or a refusal of a valid one, are the invalid-ticket and
    rules requirements' to judge."""
    expected = "an error object per invalid ticket, a result per valid one, the batch answered"

    def found(got: Any, note: str) -> MixedBatchEvidence:
        return MixedBatchEvidence(game, stake, tuple(batch), expected, got, note, (ERRORS,))

    try:
        got = check_shape(adapter.evaluate(game, stake, batch), batch)
    except ErrorReply as exc:
        return found(
            {"status": exc.status, "error": {"code": exc.code, "message": exc.message}},
            f"a batch with invalid tickets among valid ones was refused whole "
            f"({exc.status} {exc.code})",
        )
    for n, (ticket, answer) in enumerate(zip(batch, got, strict=True)):
        if not (is_error(expected_result(game, stake, ticket)) and is_error(answer)):
            continue
        error = answer["error"]
        fault = error_document_fault(ErrorReply(400, error.get("code"), error.get("message")))
        if fault is not None:
            return found(
                answer, f"the error object in place of invalid ticket {n} ({ticket!r}): {fault}"
            )
    return None


@check("evaluate.batch_errors", covers=[ERRORS], capability="evaluate")
def batch_errors(ctx: CheckContext) -> None:
    """A batch of valid and invalid tickets interleaved (an invalid one first and last) at
    every stake in scope: never refused whole; in place of each invalid ticket the error
    object ``{"error": {"code": <snake_case>, "message": <str>}}``."""
    for game in ctx.games():
        for stake in ctx.stakes(game):
            batch = _mixed(game, distinct_tickets(game, stake, ctx.seed)[:3])
            found = mixed_batch_fault(ctx.adapter, game, stake, batch)
            if found is not None:
                raise CheckFailure(
                    f"{game} at {stake} cents: {found.note}", [found], requirements=(ERRORS,)
                )


def _refusal_requests(game: str, stake: int) -> list[tuple[str, Any, Any, int | None, bool]]:
    """(what, game, stake_cents, tickets count or None for a string, needs one request)."""
    return [
        ("an unknown game (misspelt)", misspelt(game), stake, 1, False),
        ("a stake the game does not sell (1 cent)", game, 1, 1, False),
        ("stake_cents the string '100'", game, str(stake), 1, False),
        ("no ticket at all", game, stake, 0, True),
        ("1001 tickets", game, stake, 1001, True),
        ("tickets a string, not a list", game, stake, None, True),
    ]


@dataclass(frozen=True)
class RefusalEvidence(Serialised):
    """An evaluate request the contract does not allow, not refused as it fixes (kind
    ``evaluate_refusal``): ``sent_game`` and ``sent_stake_cents`` as sent, not as valid."""

    KIND: ClassVar[str] = "evaluate_refusal"

    what: str
    sent_game: Any
    sent_stake_cents: Any
    ticket: str
    count: int | None  # tickets sent; None: the ticket as a string, not a list
    once: bool  # sent as one request, as it is (``evaluate_once``)
    got: Any
    note: str = ""

    @classmethod
    def of(cls, case: Mapping[str, Any], got: Any, note: str) -> RefusalEvidence:
        require(case, "what", "sent_game", "sent_stake_cents", "ticket", "count", "once")
        return cls(
            case["what"],
            case["sent_game"],
            case["sent_stake_cents"],
            case["ticket"],
            case["count"],
            case["once"],
            got,
            note,
        )

    @property
    def input(self) -> dict[str, Any]:
        return {
            "kind": self.KIND,
            "what": self.what,
            "sent_game": self.sent_game,
            "sent_stake_cents": self.sent_stake_cents,
            "ticket": self.ticket,
            "count": self.count,
            "once": self.once,
        }

    @property
    def expected(self) -> Any:
        return {"status": [400, 422], "error": {"code": "<snake_case>", "message": "<str>"}}

    @property
    def request(self) -> dict[str, Any]:
        return {"operation": "evaluate", "what": self.what}

    @property
    def requirements(self) -> tuple[str, ...]:
        return (REFUSALS,)

    @classmethod
    def replay(cls, adapter: Any, case: Mapping[str, Any]) -> RefusalEvidence | None:
        """The refused request again."""
        return refusal_fault(adapter, case)


register_kind(RefusalEvidence)


def refusal_fault(adapter: Any, case: Mapping[str, Any]) -> RefusalEvidence | None:
    """The request of ``case`` must be refused whole with 400 or 422 and the error document."""
    ticket, count = case["ticket"], case["count"]
    tickets: Any = ticket if count is None else [ticket] * count
    call = adapter.evaluate_once if case["once"] else adapter.evaluate
    allowed = (400, 413, 422) if count is not None and count > 1000 else (400, 422)
    try:
        answer: Any = call(case["sent_game"], case["sent_stake_cents"], tickets)
    except ErrorReply as reply:
        fault = None if reply.status in allowed else f"refused with {reply.status}"
        fault = fault or error_document_fault(reply)
        if fault is None:
            return None
        got: Any = {"status": reply.status, "error": {"code": reply.code, "message": reply.message}}
    else:
        fault, got = "evaluated instead of refused", {"results": answer[:3]}
    return RefusalEvidence.of(case, got, f"{case['what']}: {fault}")


@check("evaluate.refusals", covers=[REFUSALS], capability="evaluate")
def evaluate_refusals(ctx: CheckContext) -> None:
    """Requests the contract does not allow (an unknown game, a stake not sold, a wrong type,
    0 or 1001 tickets, tickets not a list) are refused whole with 400 or 422 and the error
    document, at every stake of every game in scope, in an order drawn from the run's seed (a
    batch size checked at each game's first stake alone was CERTIFIED when these were asked
    there alone: ``tests/faulty/_round13_surface_faults.py``, docs/coverage.md). The last
    three need one request sent as it is: adapters with ``evaluate_once`` (HTTP, the
    reference); on others only the first three are tried."""
    once = hasattr(ctx.adapter, "evaluate_once")
    tried = 0
    pairs = [(game, stake) for game in ctx.games() for stake in ctx.stakes(game)]
    random.Random(f"{ctx.seed}:evaluate.refusals:stakes").shuffle(pairs)
    for game, sold in pairs:
        ticket = distinct_tickets(game, sold, ctx.seed)[0]
        for what, g, stake, count, raw in _refusal_requests(game, sold):
            if raw and not once:
                continue
            tried += 1
            case = {
                "kind": "evaluate_refusal",
                "what": what,
                "sent_game": g,  # not "game"/"stake_cents": the case schema wants valid ones
                "sent_stake_cents": stake,
                "ticket": ticket,
                "count": count,
                "once": raw,
            }
            found = refusal_fault(ctx.adapter, case)
            if found is not None:
                raise CheckFailure(
                    f"{game} at {sold} cents: an evaluate request with {found.note}",
                    [found],
                    requirements=(REFUSALS,),
                )
    ctx.details["requests_tried"] = tried
