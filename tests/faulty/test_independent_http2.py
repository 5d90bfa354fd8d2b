"""The second vendor written from the contract and the rules alone
(``tests/faulty/independent_http2``), served by its own asyncio HTTP server as a separate
process and certified over HTTP.

It takes the contract's freedoms the other way from the first independent vendor wherever
the letter leaves a choice (docs/certify.md, "A second vendor written from the contract
alone"): one request a connection, a block stream ended by closing the connection, opaque
tokens, UUID accounts, block ids with ':', 404 for someone else's resource, a history page
of 10 by default, AUTO answered again, slices past a block's end refused.

Fast tier: the server started and judged by the checks that need no block, and its journal
read back after a restart. Slow tier: a quick run with the CLI, as a lab would type it (no
reservation), and one with ``--one-open-ticket`` (row ``play-conflict`` reserved).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
import requests

from conformance import CheckContext, execute, registered_checks
from harness import open_target

from ._vendor_process import passes_a_quick_run, vendor_process
from .certify import settings_for


def _vendor(journal: Path, *options: str) -> AbstractContextManager[str]:
    """The second independent vendor on ``journal``, its URL; stopped (SIGTERM) at the end."""
    return vendor_process("tests.faulty.independent_http2.server", journal, *options)


@pytest.fixture(scope="module")
def served_lazy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """No page of units made at start: none is, for checks that need no block."""
    journal = tmp_path_factory.mktemp("independent2") / "vendor.journal"
    with _vendor(journal, "--no-warm-up") as url:
        yield url


@pytest.mark.parametrize(
    "check_id",
    [
        "robots_rules.gauge_fills",
        "evaluate.batch_errors",
        "evaluate.refusals",
        "stakes.robots",
        "stakes.eldorado",
    ],
)
def test_the_second_independent_vendor_passes_a_check_needing_no_block(
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


def test_the_second_independent_vendor_keeps_its_accounts_across_a_restart(
    tmp_path: Path,
) -> None:
    """Its journal is replayed at start: the account, its token and its balance are back."""
    journal = tmp_path / "vendor.journal"
    with _vendor(journal, "--no-warm-up") as url:
        opened = requests.post(f"{url}/v1/accounts", json={"balance_cents": 730}, timeout=10)
        listed = requests.get(f"{url}/v1/blocks", timeout=10).json()["blocks"]
    assert opened.status_code == 201, opened.text
    account = opened.json()
    with _vendor(journal, "--no-warm-up") as url:
        read = requests.get(
            f"{url}/v1/accounts/{account['account_id']}",
            headers={"Authorization": f"Bearer {account['token']}"},
            timeout=10,
        )
        assert requests.get(f"{url}/v1/blocks", timeout=10).json()["blocks"] == listed
    assert read.status_code == 200, read.text
    assert read.json()["balance_cents"] == 730


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The page of units on sale made at start for every stake, as the vendor runs."""
    with _vendor(tmp_path_factory.mktemp("independent2") / "vendor.journal") as url:
        yield url


@pytest.fixture(scope="module")
def served_one_open_ticket(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The vendor refusing a play (409) while a robots ticket of the account is unfinished."""
    journal = tmp_path_factory.mktemp("independent2") / "vendor.journal"
    with _vendor(journal, "--one-open-ticket") as url:
        yield url


@pytest.mark.slow  # a quick run over HTTP (about 70 s on 2 shared cores)
def test_the_second_independent_vendor_passes_a_quick_run(served: str, tmp_path: Path) -> None:
    passes_a_quick_run(served, tmp_path, set())


@pytest.mark.slow  # as above, one unfinished ticket an account at most (row one-open-ticket)
def test_the_second_independent_vendor_with_one_open_ticket_passes_a_quick_run(
    served_one_open_ticket: str, tmp_path: Path
) -> None:
    """Its 409 to plays sent at once on one account leaves their race unseen: a reservation."""
    expected = {("play.money.concurrent_one_account", "play-conflict")}
    passes_a_quick_run(served_one_open_ticket, tmp_path, expected)
