"""Comparing a target's evaluation results with the reference's (contract section 2).

Two results agree when their ``prize_cents`` are equal and their ``wins`` are the same multiset:
``wins`` is a set whose order carries no meaning, so each win is reduced to its contract keys
and the two lists are compared as multisets. An invalid ticket must come back as a per-ticket
error object (contract section 4), never as a prize.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import reference
from contract import ContractBreach, ProtocolViolation


def win_keys(game: str) -> tuple[str, ...]:
    """The keys that make two wins of ``game`` the same (its kit's ``win_keys``)."""
    from .games import kit

    return kit(game).win_keys


def expected_result(game: str, stake_cents: int, ticket: str) -> dict[str, Any]:
    """What the rules say: the reference's result, or an error object for an invalid ticket."""
    try:
        return reference.evaluate(game, stake_cents, ticket)
    except reference.TicketError as exc:
        return {"error": {"code": exc.code, "message": str(exc)}}


def is_error(document: Mapping[str, Any]) -> bool:
    return "error" in document


def check_shape(results: object, tickets: Sequence[str]) -> list[dict[str, Any]]:
    """The target's results, if each is a result or an error object; ProtocolViolation if not."""
    if not isinstance(results, list):
        raise ProtocolViolation(
            f"evaluate: expected a list of {len(tickets)} results, one per ticket, got "
            f"{type(results).__name__}"
        )
    if len(results) != len(tickets):
        raise ContractBreach(
            "evaluate.batch.order",
            f"evaluate: {len(tickets)} tickets sent, {len(results)} results received (one "
            "result per ticket)",
            {"operation": "evaluate", "body": results[:20], "expected": {"results": len(tickets)}},
        )
    for n, result in enumerate(results):
        if isinstance(result, dict) and "error" in result and not _error_object(result):
            raise ContractBreach(
                "evaluate.batch.errors",
                f"evaluate: result {n} (ticket {tickets[n]!r}) is an error object but not "
                f'{{"error": {{"code", "message"}}}}: {str(result)[:300]}',
                {"operation": "evaluate", "body": result, "expected": {"error": "code, message"}},
            )
        ok = isinstance(result, dict) and (
            isinstance(result.get("error"), dict)
            or (type(result.get("prize_cents")) is int and isinstance(result.get("wins"), list))
        )
        if not ok or any(not isinstance(w, dict) for w in result.get("wins", [])):
            raise ProtocolViolation(
                f"evaluate: result {n} (ticket {tickets[n]!r}) is neither an evaluation result "
                f"nor an error object: {str(result)[:300]}"
            )
    return results


def _error_object(result: Mapping[str, Any]) -> bool:
    error = result.get("error")
    return (
        isinstance(error, dict)
        and type(error.get("code")) is str
        and type(error.get("message")) is str
    )


def result_key(game: str, result: Mapping[str, Any]) -> str:
    """A result reduced to what makes it equal to another (``difference`` is None): the prize
    and the wins as a multiset; every error object is one same key."""
    if is_error(result):
        return "error"
    wins = sorted(_win_key(game, w) for w in result.get("wins", []))
    return json.dumps([result.get("prize_cents"), wins])


def _win_key(game: str, win: Mapping[str, Any]) -> str:
    return json.dumps([win.get(k) for k in win_keys(game)])


def wins_multiset(game: str, result: Mapping[str, Any]) -> Counter[str]:
    return Counter(_win_key(game, w) for w in result.get("wins", []))


def difference(game: str, expected: Mapping[str, Any], got: Mapping[str, Any]) -> str | None:
    """None when ``got`` agrees with ``expected``; else a one-line account of how it differs."""
    if is_error(expected):
        if is_error(got):
            return None
        return f"an invalid ticket was given a result (prize_cents {got.get('prize_cents')!r})"
    if is_error(got):
        error = got.get("error", {})
        return f"a valid ticket was refused: {error.get('code')!r} {error.get('message')!r}"
    faults = []
    if got.get("prize_cents") != expected["prize_cents"]:
        faults.append(f"prize_cents {got.get('prize_cents')!r}, expected {expected['prize_cents']}")
    want, have = wins_multiset(game, expected), wins_multiset(game, got)
    if want != have:
        missing = sorted((want - have).elements())
        extra = sorted((have - want).elements())
        keys = ",".join(win_keys(game))
        faults.append(f"wins [{keys}] missing {missing or 'none'}, unexpected {extra or 'none'}")
    return "; ".join(faults) or None
