"""The suite's pytest face: ``pytest --pyargs conformance --target T`` runs every check.

Loaded as the ``conformance`` pytest11 entry point (or ``pytest -p conformance.plugin``), it
adds ``--target`` (default ``python:reference``), ``--profile`` (``quick``/``full``),
``--seed`` and ``--game``; ``conformance/test_conformance.py`` turns each registered check into
one pytest test run through ``conformance.execute``, exactly as ``instantcert certify`` runs it:
a failure shows the requirements broken and the evidence, a capability the target lacks is a
skip ("not supported"), never a pass.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from reference import _yaml

from ._execute import CheckOutcome, execute
from ._profiles import GAMES, ProfileError, check_settings, load_profile
from ._registry import CheckContext, registered_checks


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
        "--game", action="append", choices=GAMES, default=None, help="only this game (repeatable)"
    )


def _seed(config: pytest.Config) -> int:
    if getattr(config, "_conformance_seed", None) is None:
        chosen = config.getoption("--seed")
        config._conformance_seed = (  # type: ignore[attr-defined]
            chosen if chosen is not None else random.SystemRandom().randrange(2**32)
        )
    return int(config._conformance_seed)  # type: ignore[attr-defined]


def pytest_configure(config: pytest.Config) -> None:
    """Validate ``--profile`` before anything runs: a bad profile stops the run (exit 4)."""
    config._conformance_settings = settings_for(config)  # type: ignore[attr-defined]


def pytest_report_header(config: pytest.Config) -> str:
    return (
        f"conformance: target={config.getoption('--target')} "
        f"profile={config.getoption('--profile')} seed={_seed(config)}"
    )


def settings_for(config: pytest.Config) -> dict[str, Any]:
    """The profile's settings narrowed by ``--game``; a bad profile stops the run.

    ``--profile`` names a profile of ``profiles.yaml`` or a YAML file of settings of one's own
    (any key of ``conformance._profiles.DEFAULTS``; the others keep their defaults).
    """
    profile = config.getoption("--profile")
    try:
        if profile.endswith((".yaml", ".yml")) and Path(profile).is_file():
            raw = _yaml.load(Path(profile).read_text(encoding="utf-8")) or {}
            settings = check_settings(raw, profile)
        else:
            settings = load_profile(profile)
    except (ProfileError, yaml.YAMLError) as exc:
        raise pytest.UsageError(f"--profile {profile}: {exc}") from None
    games = config.getoption("--game")
    if games:
        settings["games"] = sorted(set(games))
    return settings


@pytest.fixture(scope="session")
def conformance_target(request: pytest.FixtureRequest) -> Iterator[tuple[Any, dict[str, Any]]]:
    """The adapter of ``--target`` and its ``/v1/implementation`` document, for the session."""
    from harness._errors import HarnessError
    from harness._targets import open_target

    spec = request.config.getoption("--target")
    try:
        adapter = open_target(spec)
        implementation = adapter.describe()
    except HarnessError as exc:
        pytest.exit(f"conformance: cannot use target {spec!r}: {exc}", returncode=2)
    try:
        yield adapter, implementation
    finally:
        adapter.close()


@pytest.fixture(scope="session")
def conformance_run(
    request: pytest.FixtureRequest, conformance_target: tuple[Any, dict[str, Any]]
) -> Callable[[str], CheckOutcome]:
    """Runs one check by id against the session's target and returns its outcome."""
    adapter, implementation = conformance_target
    settings = dict(request.config._conformance_settings)  # type: ignore[attr-defined]
    seed = _seed(request.config)
    checks = registered_checks()

    def run(check_id: str) -> CheckOutcome:
        ctx = CheckContext(
            adapter=adapter, implementation=implementation, settings=settings, seed=seed
        )
        return execute(checks[check_id], ctx)

    return run


def describe_outcome(check_id: str, outcome: CheckOutcome, seed: int) -> str:
    """A failure as a person reads it: requirements, message, evidence, how to replay."""
    lines = [
        f"{outcome.outcome.upper()}: {check_id}",
        f"requirements: {', '.join(outcome.requirements)}",
        outcome.message,
    ]
    for n, evidence in enumerate(outcome.evidence):
        lines.append(f"evidence {n}: {json.dumps(evidence, ensure_ascii=False)[:2000]}")
    if outcome.traceback:
        lines.append(outcome.traceback)
    lines.append(f"(seed {seed}: rerun with --seed {seed})")
    return "\n".join(lines)
