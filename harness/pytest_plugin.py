"""The suite's pytest face: ``pytest --pyargs conformance --target T`` runs every check.

Loaded as the ``instantcert-conformance`` pytest11 entry point (or
``pytest -p harness.pytest_plugin``), it adds ``--target`` (default ``python:reference``),
``--profile`` (``quick``/``full``), ``--seed`` and ``--game``; ``conformance/test_conformance.py``
turns each registered check into one pytest test run through ``conformance.execute``, exactly
as ``instantcert certify`` runs it: a failure shows the requirements broken and the evidence, a
capability the target lacks is a skip ("not supported"), never a pass.

It lives in the harness because it opens targets (``harness.open_target``); what it shares
with the suite (the profile, the seed, a failure as a person reads it) is
``conformance.plugin``'s, so the suite never imports the harness.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import conformance
from conformance._execute import CheckOutcome, execute
from conformance._registry import CheckContext
from conformance._settings import Settings
from conformance._suite import registered_checks
from conformance.plugin import _seed, reservation_line, settings_for
from contract import Adapter, ContractError, Validated

from ._runner import reseed_clients, wire_reservations
from ._targets import open_target

WIRE = "_conformance_wire_reservations"  # on the config: what the wire showed, at the end


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "instantcert conformance suite")
    group.addoption(
        "--target",
        default="python:reference",
        help="target to certify: python:reference, python:pkg.module:factory or http://host:port",
    )
    group.addoption(
        "--profile",
        default="quick",
        help="suite profile: quick, full, or a YAML file of settings",
    )
    group.addoption(
        "--seed", type=int, default=None, help="seed of every random choice (default: random)"
    )
    group.addoption(
        "--game",
        action="append",
        default=None,
        help="only this game (repeatable; a game without a kit is a usage error)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Validate ``--profile`` before anything runs: a bad profile stops the run (exit 4). The
    suite runs in one process: pytest-xdist's ``-n`` (the project's own test tier sets it in
    ``addopts``, which a run from the clone's root reads) is turned off for it, since workers
    would each open the target and buy from the same streams side by side, which the checks
    that watch a stream (``play.sales.block_order``, ...) must have to themselves. Nor does
    the project's hang guard for its own tests (pytest-timeout's ``timeout`` in the same
    ``addopts`` file) cut a check: a full profile's check may rightly run longer; the suite's
    own budgets bound it (a ``--timeout`` given on the command line is kept)."""
    if _runs_the_suite(config):
        if getattr(config.option, "numprocesses", None):
            config.option.numprocesses = 0
            config.option.dist = "no"
        if hasattr(config.option, "timeout") and config.option.timeout is None:
            config.option.timeout = 0  # pytest-timeout: no timeout
    config._conformance_settings = settings_for(config)  # type: ignore[attr-defined]


def _runs_the_suite(config: pytest.Config) -> bool:
    """Whether the command line names the conformance package (``--pyargs conformance``, its
    folder or a file in it)."""
    package = Path(conformance.__file__).resolve().parent
    for arg in config.args:
        name = arg.split("::")[0]
        if config.option.pyargs and (name == "conformance" or name.startswith("conformance.")):
            return True
        path = Path(config.invocation_params.dir, name).resolve()
        if path == package or package in path.parents:
            return True
    return False


def pytest_report_header(config: pytest.Config) -> str:
    return (
        f"conformance: target={config.getoption('--target')} "
        f"profile={config.getoption('--profile')} seed={_seed(config)}"
    )


@pytest.fixture(scope="session")
def conformance_target(
    request: pytest.FixtureRequest,
) -> Iterator[tuple[Adapter, dict[str, Any]]]:
    """The adapter of ``--target`` and its ``/v1/implementation`` document, for the session."""
    spec = request.config.getoption("--target")
    try:
        adapter: Adapter = Validated(open_target(spec))  # answers checked at the seam
        reseed_clients(adapter, _seed(request.config))  # an HTTP target's devices: the run's
        implementation = adapter.describe()
    except ContractError as exc:
        pytest.exit(f"conformance: cannot use target {spec!r}: {exc}", returncode=2)
    try:
        yield adapter, implementation
    finally:
        setattr(request.config, WIRE, wire_reservations(adapter))
        adapter.close()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The reservations of what an HTTP target's wire showed against the project's readings
    (a success status the contract does not name, ids as JSON numbers, flags as 0 and 1),
    as ``instantcert certify`` lists them: no one test has them, the whole run does."""
    found = getattr(config, WIRE, None)
    if not found:
        return
    terminalreporter.section("conformance: reservations of the wire", sep="-")
    for reservation in found:
        terminalreporter.write_line(reservation_line(reservation))


@pytest.fixture(scope="session")
def conformance_run(
    request: pytest.FixtureRequest, conformance_target: tuple[Adapter, dict[str, Any]]
) -> Callable[[str], CheckOutcome]:
    """Runs one check by id against the session's target and returns its outcome."""
    adapter, implementation = conformance_target
    settings: Settings = request.config._conformance_settings  # type: ignore[attr-defined]
    seed = _seed(request.config)
    checks = registered_checks()

    def run(check_id: str) -> CheckOutcome:
        ctx = CheckContext(
            adapter=adapter, implementation=implementation, settings=settings, seed=seed
        )
        return execute(checks[check_id], ctx)

    return run
