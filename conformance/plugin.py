"""What the suite's pytest face shares with the suite: the profile, the seed, a failure as a
person reads it. The plugin itself (``--target``, ``--profile``, ``--seed``, ``--game`` and the
fixtures that open the target) is ``harness.pytest_plugin``, the pytest11 entry point: opening
a target is the harness's, and the suite never imports the harness.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from reference import _yaml_input

from ._execute import CheckOutcome
from ._profiles import ProfileError, profile_settings
from ._settings import SEED_LIMIT, Settings


def _seed(config: pytest.Config) -> int:
    if getattr(config, "_conformance_seed", None) is None:
        chosen = config.getoption("--seed")
        config._conformance_seed = (  # type: ignore[attr-defined]
            chosen if chosen is not None else random.SystemRandom().randrange(SEED_LIMIT)
        )
    return int(config._conformance_seed)  # type: ignore[attr-defined]


def settings_for(config: pytest.Config) -> Settings:
    """The profile's settings narrowed by ``--game``; a bad profile or ``--seed`` stops the run.

    ``--profile`` names a profile of ``profiles.yaml`` or a YAML file of settings of one's own
    (any key of ``conformance._profiles.DEFAULTS``; the others keep their defaults).
    """
    seed = config.getoption("--seed")
    if seed is not None and not 0 <= seed < SEED_LIMIT:  # as certify's --seed
        raise pytest.UsageError(f"--seed must be an integer in [0, 2**32), got {seed}")
    profile = config.getoption("--profile")
    try:
        if profile.endswith((".yaml", ".yml")) and Path(profile).exists():
            # a file of one's own: bounded, no aliases, UTF-8 (as a config file)
            raw = _yaml_input.read_input_file(profile, "profile file") or {}
            settings = Settings.parse(raw, profile)
        else:
            settings = profile_settings(profile)
        games = config.getoption("--game")
        if games:
            settings = settings.with_changes("--game", games=sorted(set(games)))
    except _yaml_input.InputFileError as exc:
        raise pytest.UsageError(f"--profile: {exc}") from None
    except ProfileError as exc:
        raise pytest.UsageError(f"--profile {profile}: {exc}") from None
    return settings


class ReservationWarning(UserWarning):
    """A reservation (a reading not met, or what the contract lets a target leave out): the
    pytest face passes the check and warns, as a passed test with a warning; it fails
    nothing, as in ``instantcert certify`` (docs/certify.md, "Verdicts")."""


def reservation_line(reservation: Mapping[str, Any]) -> str:
    """A reservation as one line: requirements, what, basis, how to lift."""
    r = reservation
    return (
        f"{', '.join(r['requirements'])}: {r['message']} (docs/contract-decisions.md row "
        f"{r['basis']}; to lift it: {r['lift']})"
    )


def reservation_lines(outcome: CheckOutcome) -> list[str]:
    """Each reservation of ``outcome`` as one line (``reservation_line``)."""
    return [reservation_line(r) for r in outcome.reservations]


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
