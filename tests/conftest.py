"""Test tiers: the fast tier runs by default; ``--run-slow`` adds full-size blocks and long runs."""

from __future__ import annotations

import gc

import pytest
from hypothesis import settings

# No example database for the tests: the tier runs on several xdist workers at once, and a run
# from a fresh clone should leave nothing in the working directory (.hypothesis/). A failure
# shows its falsifying example in the report, as without a database.
settings.register_profile("instantcert-tests", database=None)
settings.load_profile("instantcert-tests")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow",
        action="store_true",
        default=False,
        help="also run tests marked slow (full 2,000,000-unit blocks, long runs)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow tier: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_collection_finish(session: pytest.Session) -> None:
    """The collected tests, modules and plugins stay for the whole session: moved out of the
    garbage collector's reach (``gc.freeze``), so its full collections during the tests no
    longer walk them again and again: about 7 % of the tests' CPU time (README, "Tests"). Speed
    only: what a test allocates is collected as before."""
    gc.freeze()
