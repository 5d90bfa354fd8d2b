"""The vendor written from the contract and the rules alone (``tests/faulty/independent_http``),
served by its own HTTP server as a separate process and certified over HTTP.

It takes the contract's freedoms on purpose (docs/certify.md, "A vendor written from the
contract alone"): a harness check that reads more than the letter fails it. The one reservation
it earns is its own choice: it also reads the account's token from an ``access_token`` query
parameter (RFC 6750 2.3), row ``bearer-only``.

Fast tier: the server started and judged by the checks that need no block (its evaluate and
its refusals). Slow tier: a quick run with the CLI, as a lab would type it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance import CheckContext, execute, registered_checks
from harness import open_target

from ._vendor_process import passes_a_quick_run, vendor_process
from .certify import settings_for

EXPECTED_RESERVATIONS = {("security.tokens.bearer_only", "bearer-only")}


def _serve(db: Path, *options: str) -> Iterator[str]:
    """The independent vendor on ``db``, its URL; stopped (SIGTERM) at the end."""
    with vendor_process("tests.faulty.independent_http.server", db, *options, start_s=30) as url:
        yield url


@pytest.fixture(scope="module")
def served_lazy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Blocks made only when first needed: none, for checks that need no block."""
    yield from _serve(tmp_path_factory.mktemp("independent") / "vendor.sqlite3", "--no-warm-up")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The first two blocks of every stake made at start, as the vendor runs in production."""
    yield from _serve(tmp_path_factory.mktemp("independent") / "vendor.sqlite3")


@pytest.mark.parametrize(
    "check_id",
    ["robots_rules.gauge_fills", "evaluate.batch_errors", "evaluate.refusals", "stakes.robots"],
)
def test_the_independent_vendor_passes_a_check_needing_no_block(
    served_lazy: str, check_id: str
) -> None:
    adapter = open_target(served_lazy, timeout=30)
    try:
        settings = settings_for(None, None, "quick")
        outcome = execute(
            registered_checks()[check_id], CheckContext(adapter, adapter.describe(), settings, 7)
        )
    finally:
        adapter.close()
    assert outcome.outcome == "pass", outcome.message


@pytest.fixture(scope="module")
def served_most_10(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The vendor with a history ``limit`` of at most 10 (400 beyond), its page then 10."""
    db = tmp_path_factory.mktemp("independent") / "vendor.sqlite3"
    yield from _serve(db, "--history-most", "10")


@pytest.mark.slow  # a quick run over HTTP: its 8 blocks generated first (about a minute)
def test_the_independent_vendor_passes_a_quick_run(served: str, tmp_path: Path) -> None:
    passes_a_quick_run(served, tmp_path, EXPECTED_RESERVATIONS)


@pytest.mark.slow  # as above, the vendor's history limit at most 10 (rows history-own-limit)
def test_the_independent_vendor_with_a_history_limit_of_10_passes_a_quick_run(
    served_most_10: str, tmp_path: Path
) -> None:
    """Its old accounts' 60 plays are listed up to 10: the older ones a reservation."""
    own_limit = ("play.history.complete", "history-own-limit")
    passes_a_quick_run(served_most_10, tmp_path, EXPECTED_RESERVATIONS | {own_limit})
