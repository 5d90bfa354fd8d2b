"""Success statuses the contract does not name (docs/contract-decisions.md, ``success-status``).

Contract 4 names 201 for an account opened and a play bought, and no status for the other
answers. For ``POST /v1/evaluate``, a reveal and AUTO, which create nothing, the project reads
HTTP's ``200 OK`` (the reference's); a target answering them ``201 Created`` (NestJS's default
for every POST) breaks no sentence of the contract, so the answer is taken and the run gets one
reservation, never a failure (``UnnamedStatuses``); so does ``207 Multi-Status`` for
``POST /v1/evaluate``, a batch whose results each say how their ticket went (Zalando's RESTful
API guidelines, rule 152: "use code 207 for batch or bulk requests"). A 2xx the contract does
name stays exact: 200 for a created play is a failure (row ``success-2xx``), and so does any
other 2xx (202, 204) here.
"""

from __future__ import annotations

from typing import Any

from ._field_counts import AnswerCounts, reading_reservation

CREATED = 201
MULTI_STATUS = 207

OTHER_SUCCESS: dict[str, frozenset[int]] = {
    "POST /v1/evaluate": frozenset({CREATED, MULTI_STATUS}),
    "POST /v1/plays/{play_id}/reveal": frozenset({CREATED}),
    "POST /v1/plays/{play_id}/auto": frozenset({CREATED}),
}
"""The operations whose success status the contract does not name, and the other successes
the harness takes there beside the project's 200."""

BASIS = "success-status"


class UnnamedStatuses:
    """Counts the answers taken with another success status than the project's reading, per
    operation, and words the run's reservation about them (thread-safe)."""

    def __init__(self) -> None:
        self._answers = AnswerCounts()

    def takes(self, operation: str | None, want: int, got: int) -> bool:
        """Whether ``got`` (not ``want``) is a success the contract leaves open for
        ``operation``; counted when it is."""
        if operation is None or want != 200 or got not in OTHER_SUCCESS.get(operation, ()):
            return False
        self._answers.add(operation, got)
        return True

    def reservations(self) -> list[dict[str, Any]]:
        """One reservation naming every operation answered so, or none."""
        answered = self._answers.listed()
        if not answered:
            return []
        return [
            reading_reservation(
                BASIS,
                f"{answered}: the contract names no status for these answers, which create "
                "nothing; the project reads HTTP's 200 OK (201 Created says a new resource was "
                "made, as an account or a play is; 207 Multi-Status is WebDAV's, RFC 4918, for "
                "an XML multistatus body)",
                "answer 200 to POST /v1/evaluate, a reveal and AUTO",
            )
        ]
