"""One pytest test per registered check: ``pytest --pyargs conformance --target T``.

Needs the ``harness.pytest_plugin`` pytest plugin (installed as an entry point, or
``-p harness.pytest_plugin``) for ``--target``, ``--profile``, ``--seed`` and ``--game``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import pytest

from conformance import CheckOutcome, registered_checks
from conformance.plugin import ReservationWarning, _seed, describe_outcome, reservation_lines

CHECKS = sorted(registered_checks())


@pytest.mark.parametrize("check_id", CHECKS)
def test_check(
    check_id: str, conformance_run: Callable[[str], CheckOutcome], request: pytest.FixtureRequest
) -> None:
    outcome = conformance_run(check_id)
    if outcome.outcome in ("not_supported", "not_run"):
        pytest.skip(f"{outcome.outcome}: {outcome.message}")
    if outcome.outcome == "reserved":  # passed, with a warning: a reservation fails nothing
        for line in reservation_lines(outcome):
            warnings.warn(ReservationWarning(f"{check_id}: {line}"), stacklevel=1)
        return
    if outcome.outcome != "pass":
        pytest.fail(describe_outcome(check_id, outcome, _seed(request.config)), pytrace=False)
