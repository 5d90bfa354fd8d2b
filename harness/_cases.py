"""Replayable case files: every failure saved as ``cases/<check>-<n>.json``.

A case holds what is needed to run the counterexample again against any target
(``instantcert replay CASE --target T``): the evidence's input (with its ``kind``), what the
rules expect, what the target said, and the run's target, seed and settings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from reference import _strict_json as strict_json
from reference._files import excerpt, quoting_excerpts, read_regular

from . import __version__
from ._errors import ConfigError
from ._escape import safe_filename, shorten, visible

DEFAULT_TARGET = "python:reference"

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
        relative = f"{CASES_DIR}/{safe_filename(check_id)}-{n}.json"
        (out_dir / relative).write_text(
            strict_json.dumps(case.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        written.append(relative)
    return written


MAX_CASE_BYTES = 16 * 1024 * 1024


def case_schema() -> dict[str, Any]:
    """``harness/schemas/case.schema.json``, its enums filled in from the suite's registries:
    the games with a kit, the evidence kinds that have a replayer, the play scenarios, the
    metamorphic relations."""
    from conformance.games import kit_names

    return _case_schema(kit_names())


@cache
def _case_schema(games: tuple[str, ...]) -> dict[str, Any]:
    from conformance._suite import replayers
    from conformance.checks._scenarios import SCENARIOS
    from conformance.games import kits

    text = resources.files("harness").joinpath("schemas", "case.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    fields = schema["$defs"]["input"]["properties"]
    fields["game"] = {"enum": list(games)}
    fields["kind"] = {"enum": sorted(replayers())}
    fields["scenario"] = {"enum": sorted(SCENARIOS)}
    fields["relation"] = {"enum": sorted(r.name for k in kits() for r in k.relations)}
    return schema


def _schema_fault(data: object) -> str | None:
    """The first fault of ``data`` against the case schema, as one line, or None."""
    import jsonschema  # here: about 30 ms to import, and most runs load no case file

    validator = jsonschema.Draft202012Validator(case_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is None:
        return None
    path = [str(p) for p in error.absolute_path]
    message = quoting_excerpts(error.message, error.instance)
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [k for k in error.validator_value if k not in error.instance]
        path.append(str(missing[0]) if missing else "?")
        message = "missing (a required field)"
    where = ".".join(path) or "the document"
    return visible(shorten(f"{where}: {message}", 300), one_line=True)


def _check_settings(settings: Mapping[str, Any], where: str) -> None:
    """The settings a case records, held to the run's bounds (``conformance._settings``), so a
    case file carries no setting a config file could not (issue 29 item 6); keys this version
    does not know (a case from another version) are left as they are: replay reads none."""
    from conformance._settings import ProfileError, Settings, names

    known = {k: v for k, v in settings.items() if k in names()}
    try:
        Settings.parse(known, "settings")
    except ProfileError as exc:
        raise ConfigError(f"{where}: {visible(shorten(str(exc), 300), one_line=True)}") from None


def load_case(path: str | Path) -> Case:
    """A case file, parsed strictly and validated against the case schema; ConfigError names
    the fault (one line). A case file may come from anyone: nothing in it is trusted."""
    where = f"case file {str(path)!r}"
    try:
        raw = read_regular(path, MAX_CASE_BYTES)  # a FIFO or device refused, not read
    except OSError as exc:
        raise ConfigError(f"{where}: {exc.strerror or exc}") from None
    try:
        # evidence holds a target's answer (at most MAX_DEPTH deep) a few levels down
        data = strict_json.loads(raw, max_bytes=MAX_CASE_BYTES, max_depth=strict_json.MAX_DEPTH + 8)
    except strict_json.JsonError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != CASE_FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ConfigError(f"{where}: expected format {CASE_FORMAT!r}, got {excerpt(str(got))}")
    fault = _schema_fault(data)
    if fault is not None:
        raise ConfigError(f"{where}: {fault}")
    _check_settings(data.get("settings", {}), where)
    evidence = data["evidence"]
    return Case(
        check_id=data.get("check_id", ""),
        requirements=list(data.get("requirements", [])),
        message=data.get("message", ""),
        evidence=evidence,
        target=data.get("target", DEFAULT_TARGET),
        seed=data.get("seed", 0),
        profile=data.get("profile", ""),
        settings=dict(data.get("settings", {})),
        harness_version=data.get("harness_version", ""),
    )
