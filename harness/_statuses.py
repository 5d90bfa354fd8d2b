"""Success statuses the contract does not name (docs/contract-decisions.md, ``success-status``).

Contract 4 names 201 for an account opened and a play bought, and no status for the other
answers. For ``POST /v1/evaluate``, a reveal and AUTO, which create nothing, the project reads
HTTP's ``200 OK`` (the reference's); a target answering them ``201 Created`` (NestJS's default
for every POST) breaks no sentence of the contract, so the answer is taken and the run gets one
reservation, never a failure (``UnnamedStatuses``). A 2xx the contract does name stays exact:
200 for a created play is a failure (row ``success-2xx``).
"""

from __future__ import annotations

from typing import Any

from ._field_counts import AnswerCounts, reading_reservation

CREATED = 201

OTHER_SUCCESS: dict[str, int] = {
    "POST /v1/evaluate": CREATED,
    "POST /v1/plays/{play_id}/reveal": CREATED,
    "POST /v1/plays/{play_id}/auto": CREATED,
}
"""The operations whose success status the contract does not name, and the other success the
harness takes there beside the project's 200."""

BASIS = "success-status"


class UnnamedStatuses:
    """Counts the answers taken with another success status than the project's reading, per
    operation, and words the run's reservation about them (thread-safe)."""

    def __init__(self) -> None:
        self._answers = AnswerCounts()

    def takes(self, operation: str | None, want: int, got: int) -> bool:
        """Whether ``got`` (not ``want``) is a success the contract leaves open for
        ``operation``; counted when it is."""
        if operation is None or want != 200 or OTHER_SUCCESS.get(operation) != got:
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
                "made, as an account or a play is)",
                "answer 200 to POST /v1/evaluate, a reveal and AUTO",
            )
        ]
