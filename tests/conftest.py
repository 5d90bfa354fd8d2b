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
    long_files_first(items)
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow tier: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def long_files_first(items: list[pytest.Item]) -> None:
    """The files in the order xdist hands them to its workers (``--dist loadfile``, and
    ``--no-loadscope-reorder`` in pyproject.toml: the order collected): those marked ``early``
    first, then the others by their number of tests, most first (xdist's own reordering, which
    alone put a file of few tests with a long one among the last, to end the tier alone). Each
    file's tests stay together, in their order. Speed only: no test needs another before it."""
    by_file: dict[str, list[pytest.Item]] = {}
    for item in items:
        by_file.setdefault(item.nodeid.split("::", 1)[0], []).append(item)

    def order(tests: list[pytest.Item]) -> tuple[bool, int]:
        return tests[0].get_closest_marker("early") is None, -len(tests)

    items[:] = [item for tests in sorted(by_file.values(), key=order) for item in tests]


def pytest_collection_finish(session: pytest.Session) -> None:
    """The collected tests, modules and plugins stay for the whole session: moved out of the
    garbage collector's reach (``gc.freeze``), so its full collections during the tests no
    longer walk them again and again: about 7 % of the tests' CPU time (README, "Tests"). Speed
    only: what a test allocates is collected as before."""
    gc.freeze()
