"""What an HTTP target's wire showed against one of the project's readings, counted over the
run (by field: ``harness._flags``, ``harness._integers``; by endpoint and status:
``harness._statuses``, ``harness._redirects``), and the one reservation each reading words
from it."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any


class FieldCounts:
    """How many times each field was seen in a form the reading takes (thread-safe)."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()

    def add(self, counts: Mapping[str, int]) -> None:
        with self._lock:
            for name, count in counts.items():
                self._seen[name] = self._seen.get(name, 0) + count

    def listed(self) -> str:
        """The fields seen, each with its count, by name (``x2 (3 times), ...``); "" if none."""
        with self._lock:
            seen = sorted(self._seen.items())
        return ", ".join(f"{name} ({count:,} times)" for name, count in seen)


class AnswerCounts:
    """How many times each endpoint (or operation) was answered with each status the reading
    takes (thread-safe)."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, int], int] = {}
        self._lock = threading.Lock()

    def add(self, endpoint: str, status: int) -> None:
        with self._lock:
            self._seen[(endpoint, status)] = self._seen.get((endpoint, status), 0) + 1

    def listed(self) -> str:
        """Each endpoint and status seen, with its count, sorted (``POST /v1/evaluate answered
        201 (3 times); ...``); "" if none."""
        with self._lock:
            seen = sorted(self._seen.items())
        return "; ".join(
            f"{endpoint} answered {status} ({count:,} times)" for (endpoint, status), count in seen
        )


def reading_reservation(basis: str, message: str, lift: str) -> dict[str, Any]:
    """The run's reservation of a reading the wire did not meet (no requirement: the scope's)."""
    return {
        "kind": "reading",
        "basis": basis,
        "message": message,
        "lift": lift,
        "requirements": [],
        "evidence": [],
    }
