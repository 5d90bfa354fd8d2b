"""The contract's numbers and names are the ones the reference uses: one place for each."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import reference
from contract import CAPABILITIES, ERROR_CODE, ERROR_CODES, EVALUATE_BATCH_LIMIT
from reference import _errors, _server, _service

ROOT = Path(__file__).resolve().parents[2]


def _sent(module: object) -> set[tuple[int, str]]:
    """(status, code) of every ``ServiceError(...)`` / ``error_response(...)`` written with
    literals in ``module``'s source."""
    tree = ast.parse(inspect.getsource(module))  # type: ignore[arg-type]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in (
            "ServiceError",
            "error_response",
        ):
            status, code = [*node.args, None, None][:2]
            if isinstance(status, ast.Constant) and isinstance(code, ast.Constant):
                found.add((status.value, code.value))
    return found


def test_every_code_the_reference_sends_is_listed_with_its_status() -> None:
    sent = _sent(_service) | _sent(_server)
    assert (402, "insufficient_funds") in sent and (413, "request_too_large") in sent
    listed = {(status, code) for code, status in ERROR_CODES.items()}
    assert sent <= listed, sent - listed
    game_errors = [c for c in vars(_errors).values() if isinstance(c, type)]
    for error in game_errors:
        if issubclass(error, reference.GameError):  # sent as 422 with its code
            assert ERROR_CODES[error.code] == 422, error
    assert all(ERROR_CODE.fullmatch(code) for code in ERROR_CODES)


def test_the_reference_uses_the_contract_s_limits() -> None:
    assert _service.EVALUATE_BATCH_LIMIT is EVALUATE_BATCH_LIMIT == 1000
    from conformance import _catalogue

    assert _catalogue.CAPABILITIES is CAPABILITIES
