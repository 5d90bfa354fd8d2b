"""What the wire shows against a reading of the project, taken with a reservation for the run
(docs/contract-decisions.md): a success status the contract does not name (``success-status``:
201 for ``POST /v1/evaluate``, a reveal and AUTO; a status the contract names stays exact, 200
for a play bought fails, row ``success-2xx``), ids as JSON integers (``id-numbers``), integers
written ``100.0`` or ``1E+2`` (``integer-forms``)."""

from __future__ import annotations

import json
from collections.abc import Callable

from harness import ContractBreach, HttpAdapter, ProtocolViolation
from harness._integers import MOST_DIGITS, integral
from harness._runner import wire_reservations

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
    (made,) = wire_reservations(adapter)
    assert made["basis"] == "success-status" and made["kind"] == "reading"
    assert "POST /v1/plays/{play_id}/auto answered 201 (2 times)" in made["message"]
    assert "POST /v1/evaluate answered 201 (1 times)" in made["message"]


def test_200_gives_no_reservation_and_a_named_status_stays_exact(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    adapter: HttpAdapter = adapter_for(serve(by_path(200)))
    assert adapter.reveal("p", "t", 3) == REVEAL
    assert wire_reservations(adapter) == []
    fault = fault_of(lambda: adapter.play("a", "t", "robots", 100), ContractBreach)
    assert "expected status 201, got 200" in str(fault)


def test_207_for_a_batch_is_taken_with_a_reservation_and_only_for_the_batch(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    """Zalando's rule 152 answers a batch 207: taken for ``POST /v1/evaluate`` alone."""
    adapter = adapter_for(serve(by_path(207)))
    assert adapter.evaluate("robots", 100, ["t"]) == [RESULT]
    (made,) = wire_reservations(adapter)
    assert made["basis"] == "success-status"
    assert "POST /v1/evaluate answered 207 (1 times)" in made["message"]
    fault = fault_of(lambda: adapter.reveal("p", "t", 3), ContractBreach)
    assert "expected status 200, got 207" in str(fault)
    fault = fault_of(lambda: adapter.play("a", "t", "robots", 100), ContractBreach)
    assert "expected status 201, got 207" in str(fault)


def test_another_2xx_is_still_a_wrong_status(serve: Callable[[Behaviour], FakeTarget]) -> None:
    adapter = adapter_for(serve(by_path(202)))
    fault = fault_of(lambda: adapter.reveal("p", "t", 3), ContractBreach)
    assert "expected status 200, got 202" in str(fault)
    assert wire_reservations(adapter) == []


# -- ids as JSON integers (row id-numbers) ---------------------------------------------------

ACCOUNT = {"account_id": 42, "token": "t" * 32, "balance_cents": 500}
HISTORY = {
    "plays": [
        {
            "play_id": 2**60,
            "game": "robots",
            "stake_cents": 100,
            "block_id": 7,
            "index": 0,
            "ticket": "t",
            "prize_cents": 0,
            "created_at": "2026-12-04T23:00:00Z",
        }
    ]
}


def numbered(handler: object) -> None:
    path = handler.path  # type: ignore[attr-defined]
    status, body = (201, ACCOUNT) if path == "/v1/accounts" else (200, HISTORY)
    answer(handler, status, json.dumps(body).encode())  # type: ignore[arg-type]


def test_integer_ids_are_taken_as_text_with_a_reservation(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    adapter = adapter_for(serve(numbered))
    assert adapter.open_account(500)["account_id"] == "42"
    (entry,) = adapter.history("42", "t")["plays"]
    assert (entry["play_id"], entry["block_id"]) == (str(2**60), "7")
    (made,) = wire_reservations(adapter)
    assert made["basis"] == "id-numbers"
    assert "account_id (1 times), block_id (1 times), play_id (1 times)" in made["message"]
    assert f"the largest, {2**60}, is past 2^53" in made["message"]


def test_an_id_of_another_type_is_still_a_protocol_violation(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    body = json.dumps({**ACCOUNT, "account_id": 4.5}).encode()
    adapter = adapter_for(serve(lambda handler: answer(handler, 201, body)))
    fault = fault_of(lambda: adapter.open_account(500), ProtocolViolation)
    assert "account_id" in str(fault)
    assert wire_reservations(adapter) == []


# -- integers written 100.0 or 1E+2 (row integer-forms) -------------------------------------


def test_integers_written_with_a_fraction_or_an_exponent_are_read_exactly() -> None:
    assert integral("100.0") == 100 and integral("1E+2") == 100 and integral("1.1E+3") == 1100
    assert integral("-0.0") == 0 and integral("100E-2") == 1
    assert integral("9007199254740993.0") == 2**53 + 1  # from the text, never a double
    assert integral("100.5") is None and integral("1E-2") is None
    assert integral(f"1E+{MOST_DIGITS}") is None  # no contract value is that large


def test_integer_forms_are_the_integers_they_equal_without_a_reservation(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    """JSON has one number type and the project's schemas' ``integer`` (JSON Schema 2020-12)
    takes ``100.0``: the integer it equals, no reservation (row ``integer-forms``)."""
    body = (
        b'{"account_id": "a", "token": "t", "balance_cents": 9007199254740993.0, '
        b'"x_vendor": {"ratio": 2.0}}'
    )
    adapter = adapter_for(serve(lambda handler: answer(handler, 201, body)))
    opened = adapter.open_account(500)
    assert opened["balance_cents"] == 2**53 + 1 and type(opened["balance_cents"]) is int
    assert type(opened["x_vendor"]["ratio"]) is float  # a field of the vendor's: as it was
    assert wire_reservations(adapter) == []
    assert adapter.integers.listed() == "balance_cents (1 times)"


def test_a_fraction_that_is_not_zero_is_still_a_protocol_violation(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    body = json.dumps({**ACCOUNT, "account_id": "a", "balance_cents": 114.99999999999999}).encode()
    adapter = adapter_for(serve(lambda handler: answer(handler, 201, body)))
    fault = fault_of(lambda: adapter.open_account(500), ProtocolViolation)
    assert "balance_cents" in str(fault)
    assert wire_reservations(adapter) == []
