"""Reservations as every report words them: one line each, with its basis and what lifts it.

A reservation (``conformance.Reservation``, ``RunFinished.reservations``) is a finding that does
not fail the run: a reading of docs/contract-decisions.md the target does not meet, something
the contract lets a target leave out and this one did (so the run could not verify it), or a
certificate narrower than the suite (a capability or game not declared). CERTIFIED WITH
RESERVATIONS lists every one; the formats differ only in how they escape the words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KIND_WORDS = {
    "reading": "a reading not met",
    "unverifiable": "could not be verified",
    "scope": "outside the certificate",
}
DECISIONS = "docs/contract-decisions.md"


def reservations(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The run's reservations (an older report.json has none)."""
    return list(doc["verdict"].get("reservations") or [])


def head(reservation: Mapping[str, Any]) -> str:
    """``robots.randomness.unrelated_blocks: could not be verified (blocks-listed)``."""
    about = ", ".join(reservation["requirements"]) or "the certificate"
    kind = KIND_WORDS.get(reservation["kind"], reservation["kind"])
    return f"{about}: {kind} ({DECISIONS} row {reservation['basis']})"


def line(reservation: Mapping[str, Any]) -> str:
    """The whole reservation on one line: what, why, and what would lift it."""
    return f"{head(reservation)}: {reservation['message']}; to lift it: {reservation['lift']}"


def covers(doc: Mapping[str, Any]) -> str:
    """``certified for evaluate, blocks, play (robots, eldorado)``, or "" (no scope)."""
    scope = doc["verdict"].get("scope")
    return str(scope["covers"]) if scope else ""


def reach(doc: Mapping[str, Any]) -> list[str]:
    """The ages the run reached, one line each, what it did not reach said "not covered"
    (the certificate's scope's ``reach``; [] for a document without it)."""
    scope = doc["verdict"].get("scope")
    return [str(line) for line in scope.get("reach", [])] if scope else []
