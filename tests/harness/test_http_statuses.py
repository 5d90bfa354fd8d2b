"""Success statuses the contract does not name (docs/contract-decisions.md, ``success-status``):
201 for ``POST /v1/evaluate``, a reveal and AUTO is taken, with one reservation for the run;
a status the contract names stays exact (200 for a play bought fails, row ``success-2xx``)."""

from __future__ import annotations

import json
from collections.abc import Callable

from harness import ContractBreach, HttpAdapter
from harness._runner import status_reservations

from .test_http_adapter_faults import Behaviour, FakeTarget, adapter_for, answer, fault_of, serve

__all__ = ["serve"]  # the fixture

RESULT = {"prize_cents": 0, "wins": []}
REVEAL = {"button": 3, "symbol": "blue_diamond", "x2": False, "plus_one": False}
AUTO = {"play_id": "p", "ticket": "t", "prize_cents": 0, "wins": []}


def by_path(status: int) -> Behaviour:
    def behaviour(handler: object) -> None:
        path = handler.path  # type: ignore[attr-defined]
        body = (
            {"results": [RESULT]}
            if path.endswith("/evaluate")
            else REVEAL
            if path.endswith("/reveal")
            else AUTO
            if path.endswith("/auto")
            else {
                "play_id": "p",
                "game": "robots",
                "stake_cents": 100,
                "block_id": "b",
                "index": 0,
                "balance_cents": 0,
            }
        )
        answer(handler, status, json.dumps(body).encode())  # type: ignore[arg-type]

    return behaviour


def test_201_where_the_contract_names_no_status_is_taken_with_a_reservation(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    adapter = adapter_for(serve(by_path(201)))
    assert adapter.evaluate("robots", 100, ["t"]) == [RESULT]
    assert adapter.reveal("p", "t", 3) == REVEAL
    assert adapter.auto("p", "t") == AUTO
    assert adapter.auto("p", "t") == AUTO
    (made,) = status_reservations(adapter)
    assert made["basis"] == "success-status" and made["kind"] == "reading"
    assert "POST /v1/plays/{play_id}/auto answered 201 (2 times)" in made["message"]
    assert "POST /v1/evaluate answered 201 (1 times)" in made["message"]


def test_200_gives_no_reservation_and_a_named_status_stays_exact(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    adapter: HttpAdapter = adapter_for(serve(by_path(200)))
    assert adapter.reveal("p", "t", 3) == REVEAL
    assert status_reservations(adapter) == []
    fault = fault_of(lambda: adapter.play("a", "t", "robots", 100), ContractBreach)
    assert "expected status 201, got 200" in str(fault)


def test_another_2xx_is_still_a_wrong_status(serve: Callable[[Behaviour], FakeTarget]) -> None:
    adapter = adapter_for(serve(by_path(202)))
    fault = fault_of(lambda: adapter.reveal("p", "t", 3), ContractBreach)
    assert "expected status 200, got 202" in str(fault)
    assert status_reservations(adapter) == []
