"""Replayable case files: every failure saved as ``cases/<check>-<n>.json``.

A case holds what is needed to run the counterexample again against any target
(``instantcert replay CASE --target T``): the evidence's input (with its ``kind``), what the
rules expect, what the target said, and the run's target, seed and settings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import __version__
from ._errors import ConfigError

CASE_FORMAT = "instantcert-case/1"
CASES_DIR = "cases"


@dataclass(frozen=True)
class Case:
    check_id: str
    requirements: list[str]
    message: str
    evidence: dict[str, Any]
    target: str
    seed: int
    profile: str
    settings: dict[str, Any]
    harness_version: str = __version__

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": CASE_FORMAT,
            "harness_version": self.harness_version,
            "check_id": self.check_id,
            "requirements": self.requirements,
            "message": self.message,
            "target": self.target,
            "seed": self.seed,
            "profile": self.profile,
            "settings": self.settings,
            "evidence": self.evidence,
        }


def write_cases(
    out_dir: Path,
    *,
    check_id: str,
    requirements: Sequence[str],
    message: str,
    evidence: Sequence[Mapping[str, Any]],
    target: str,
    seed: int,
    profile: str,
    settings: Mapping[str, Any],
) -> list[str]:
    """One case file per evidence item; the paths returned are relative to ``out_dir``."""
    folder = out_dir / CASES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for n, item in enumerate(evidence, start=1):
        case = Case(
            check_id=check_id,
            requirements=list(requirements),
            message=message,
            evidence=dict(item),
            target=target,
            seed=seed,
            profile=profile,
            settings=dict(settings),
        )
        relative = f"{CASES_DIR}/{check_id}-{n}.json"
        (out_dir / relative).write_text(
            json.dumps(case.to_dict(), indent=2, sort_keys=True, default=str) + "\n",
            encoding="utf-8",
        )
        written.append(relative)
    return written


def load_case(path: str | Path) -> Case:
    """A case file, validated; ConfigError names the fault."""
    where = f"case file {str(path)!r}"
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{where}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{where}: not JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict) or data.get("format") != CASE_FORMAT:
        got = data.get("format") if isinstance(data, dict) else data
        raise ConfigError(f"{where}: expected format {CASE_FORMAT!r}, got {got!r}")
    evidence = data.get("evidence")
    if not isinstance(evidence, dict) or not isinstance(evidence.get("input"), dict):
        raise ConfigError(f"{where}: 'evidence.input' must be an object")
    if not isinstance(evidence["input"].get("kind"), str):
        raise ConfigError(f"{where}: 'evidence.input.kind' must name the kind of case")
    return Case(
        check_id=str(data.get("check_id", "")),
        requirements=list(data.get("requirements", [])),
        message=str(data.get("message", "")),
        evidence=evidence,
        target=str(data.get("target", "python:reference")),
        seed=int(data.get("seed", 0)),
        profile=str(data.get("profile", "")),
        settings=dict(data.get("settings", {})),
        harness_version=str(data.get("harness_version", "")),
    )
