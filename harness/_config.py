"""The run's configuration: a YAML file for everything the flags set, validated, flags on top.

A typo must stop the run before it starts (exit 2) with a message that names the key and
suggests the right one: a silently ignored ``profle: full`` would make a certification run
quietly be a quick one.
"""

from __future__ import annotations

import difflib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import reference
from conformance._profiles import ProfileError, check_settings, profile_names, profile_settings
from conformance._settings import SEED_LIMIT, Settings, names
from conformance.games import kit_names
from reference._files import excerpt

from ._errors import ConfigError
from ._timeout import DEFAULT_TIMEOUT_S

DEFAULT_TARGET = "python:reference"
DEFAULT_PROFILE = "full"

KEYS: dict[str, str] = {
    "target": "the implementation to certify: python:reference, python:pkg.mod:factory or a URL",
    "profile": "quick or full (only full can certify)",
    "games": "list of games to run (narrows the run: never CERTIFIED)",
    "stakes": "{game: [stake cents]} to run (narrows the run: never CERTIFIED)",
    "requirements": "list of requirement ids to run (narrows the run: never CERTIFIED)",
    "seed": "integer fixing every random choice of the suite",
    "timeout_s": "seconds the target may take to answer one request",
    "user_agent": "the User-Agent every device sends to an HTTP target (default: each its own)",
    "check_budget_s": "seconds one check may run before it is cut (default: the profile's)",
    "run_budget_s": "seconds the whole run may take (default: the profile's)",
    "check_concurrency": "checks run at once, block checks always alone (default: the profile's)",
    "out": "directory the reports are written to",
    "waivers": "path of a waivers file, or a list of waivers inline",
    "settings": "profile settings overridden (thresholds such as alpha, example counts, ...)",
    "fail_on": "[reservation]: CERTIFIED WITH RESERVATIONS exits 1 instead of 0",
}

FAIL_ON: tuple[str, ...] = ("reservation",)
"""What ``fail_on`` may name: verdicts that exit 0 by default and a pipeline may fail on."""


def _suggest(word: str, choices: list[str] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
    if close:
        return f"; did you mean {close[0]!r}?"
    return f"; valid: {', '.join(choices)}"


@dataclass(frozen=True)
class RunConfig:
    """The effective configuration of one run (file merged with flags)."""

    target: str = DEFAULT_TARGET
    profile: str = DEFAULT_PROFILE
    games: tuple[str, ...] | None = None
    stakes: dict[str, list[int]] | None = None
    requirements: tuple[str, ...] | None = None
    seed: int | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    user_agent: str | None = None  # None: each device its own (harness._clients)
    check_budget_s: float | None = None  # None: the profile's
    run_budget_s: float | None = None
    check_concurrency: int | None = None  # None: the profile's
    out: str = "instantcert-report"
    waivers: str | list[Any] | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    fail_on: tuple[str, ...] = ()  # FAIL_ON: reservations exit 1
    source: str | None = None  # the config file, if any

    @property
    def filtered(self) -> bool:
        """Games, stakes or requirements narrowed: such a run never certifies."""
        return any(x is not None for x in (self.games, self.stakes, self.requirements))

    def with_seed(self) -> RunConfig:
        """This config with a seed: the one given, or a fresh random one (recorded in reports)."""
        if self.seed is not None:
            return self
        return replace(self, seed=secrets.randbelow(SEED_LIMIT))

    def run_settings(self) -> Settings:
        """The run's settings object: the profile's, overridden by ``settings`` and the
        budget flags, narrowed by games/stakes; validated once, here (ConfigError)."""
        try:
            base = profile_settings(self.profile).to_dict()
        except ProfileError as exc:
            raise ConfigError(str(exc)) from None
        merged = {**base, **self.settings}
        for key in ("check_budget_s", "run_budget_s", "check_concurrency"):
            if getattr(self, key) is not None:
                merged[key] = getattr(self, key)
        if self.games is not None:
            merged["games"] = list(self.games)
        if self.stakes is not None:
            merged["stakes"] = {g: list(s) for g, s in self.stakes.items()}
        try:
            return Settings.parse(merged, f"profile {self.profile!r} with overrides")
        except ProfileError as exc:
            raise ConfigError(str(exc)) from None

    def effective_settings(self) -> dict[str, Any]:
        """``run_settings()`` as the reports print it (``config.effective_settings``)."""
        return self.run_settings().to_dict()

    def to_dict(self) -> dict[str, Any]:
        """JSON-able, as recorded in the reports."""
        return {
            "target": self.target,
            "profile": self.profile,
            "games": list(self.games) if self.games is not None else None,
            "stakes": self.stakes,
            "requirements": list(self.requirements) if self.requirements is not None else None,
            "seed": self.seed,
            "timeout_s": self.timeout_s,
            "user_agent": self.user_agent,
            "check_budget_s": self.check_budget_s,
            "run_budget_s": self.run_budget_s,
            "check_concurrency": self.check_concurrency,
            "out": self.out,
            "waivers": self.waivers,
            "settings": dict(self.settings),
            "fail_on": list(self.fail_on),
            "source": self.source,
        }


FLAG_OF = {"games": "--game", "stakes": "--stake-cents", "requirements": "--requirement"}
"""The command-line flag of a setting whose name is not the flag's (a list a flag repeats)."""


def _where(source: str, key: str) -> str:
    if source == "flags":
        return FLAG_OF.get(key) or "--" + key.replace("_", "-").removesuffix("-s")
    return f"{source}: {key}"


def _string(value: object, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where} must be a non-empty string, got {excerpt(value, 60)}")
    return value


def _games(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ConfigError(f"{where} must be a non-empty list of games, got {excerpt(value, 60)}")
    for game in value:
        if game not in kit_names():
            raise ConfigError(
                f"{where}: unknown game {excerpt(game, 60)}{_suggest(str(game), kit_names())}"
            )
    return tuple(dict.fromkeys(value))


def _stakes(value: object, where: str) -> dict[str, list[int]]:
    if not isinstance(value, Mapping) or not value:
        raise ConfigError(
            f"{where} must map games to lists of stake cents, got {excerpt(value, 60)}"
        )
    stakes: dict[str, list[int]] = {}
    for game, listed in value.items():
        if game not in kit_names():
            raise ConfigError(
                f"{where}: unknown game {excerpt(game, 60)}{_suggest(str(game), kit_names())}"
            )
        if isinstance(listed, int) and not isinstance(listed, bool):
            listed = [listed]
        if not isinstance(listed, list) or not listed:
            raise ConfigError(
                f"{where}.{game} must be a list of stake cents, got {excerpt(listed, 60)}"
            )
        sold = reference.load_rules(game).stakes_cents
        for stake in listed:
            if type(stake) is not int or stake not in sold:
                raise ConfigError(
                    f"{where}.{game}: {excerpt(stake, 60)} is not a stake of {game} "
                    f"(expected one of {', '.join(map(str, sold))})"
                )
        stakes[game] = list(dict.fromkeys(listed))
    return stakes


def _requirements(value: object, where: str) -> tuple[str, ...]:
    from conformance import load_catalogue

    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ConfigError(
            f"{where} must be a non-empty list of requirement ids, got {excerpt(value, 60)}"
        )
    known = list(load_catalogue())
    for rid in value:
        if rid not in known:
            raise ConfigError(
                f"{where}: unknown requirement id {excerpt(rid, 60)}{_suggest(str(rid), known)}"
            )
    return tuple(dict.fromkeys(value))


def _seed(value: object, where: str) -> int:
    if type(value) is not int or not 0 <= value < SEED_LIMIT:
        raise ConfigError(f"{where} must be an integer in [0, 2**32), got {excerpt(value, 60)}")
    return value


def _timeout(value: object, where: str) -> float:
    if type(value) not in (int, float) or not 0 < value <= 86400:  # type: ignore[operator]
        raise ConfigError(
            f"{where} must be a number of seconds in (0, 86400], got {excerpt(value, 60)}"
        )
    return float(value)  # type: ignore[arg-type]


def _budget(value: object, where: str) -> float:
    if type(value) not in (int, float) or not 0 < value <= 7 * 86400:  # type: ignore[operator]
        raise ConfigError(
            f"{where} must be a number of seconds in (0, 604800], got {excerpt(value, 60)}"
        )
    return float(value)  # type: ignore[arg-type]


def _profile(value: object, where: str) -> str:
    names = profile_names()
    if value not in names:
        raise ConfigError(
            f"{where}: unknown profile {excerpt(value, 60)}{_suggest(str(value), names)}"
        )
    return str(value)


def _settings(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"{where} must be a mapping of profile settings, got {excerpt(value, 60)}"
        )
    known = [k for k in names() if k not in ("games", "stakes")]
    for key in value:
        if key in ("games", "stakes"):
            raise ConfigError(
                f"{where}.{key}: set {excerpt(key, 60)} at the top level of the config, not here"
            )
        if key not in known:
            raise ConfigError(
                f"{where}: unknown setting {excerpt(key, 60)}{_suggest(str(key), known)}"
            )
    settings = dict(value)
    try:
        check_settings(settings, where)
    except ProfileError as exc:
        raise ConfigError(str(exc)) from None
    return settings


def _fail_on(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise ConfigError(f"{where} must be a list of {', '.join(FAIL_ON)}, got {value!r}")
    for item in value:
        if item not in FAIL_ON:
            raise ConfigError(f"{where}: unknown value {item!r}{_suggest(str(item), FAIL_ON)}")
    return tuple(dict.fromkeys(value))


MAX_USER_AGENT_CHARS = 256


def _user_agent(value: object, where: str) -> str:
    """A header value: printable ASCII (no CR, LF or other control), 1 to 256 characters."""
    if (
        not isinstance(value, str)
        or not 1 <= len(value) <= MAX_USER_AGENT_CHARS
        or not all(" " <= c <= "~" for c in value)
        or value != value.strip()
    ):
        raise ConfigError(
            f"{where} must be 1 to {MAX_USER_AGENT_CHARS} printable ASCII characters with no "
            f"leading or trailing space, got {str(value)[:80]!r}"
        )
    return value


MAX_CONCURRENCY = 64


def _concurrency(value: object, where: str) -> int:
    if type(value) is not int or not 1 <= value <= MAX_CONCURRENCY:
        raise ConfigError(
            f"{where} must be an integer from 1 to {MAX_CONCURRENCY}, got {excerpt(value, 60)}"
            f" ({type(value).__name__})"
        )
    return value


def validate(raw: Mapping[str, Any], source: str) -> dict[str, Any]:
    """Check every key of a config mapping; the values as ``RunConfig`` fields take them."""
    parsers = {
        "target": _string,
        "profile": _profile,
        "games": _games,
        "stakes": _stakes,
        "requirements": _requirements,
        "seed": _seed,
        "timeout_s": _timeout,
        "user_agent": _user_agent,
        "check_budget_s": _budget,
        "run_budget_s": _budget,
        "check_concurrency": _concurrency,
        "out": _string,
        "settings": _settings,
        "fail_on": _fail_on,
    }
    fields: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str) or key not in KEYS:
            raise ConfigError(
                f"{source}: unknown key {excerpt(key, 60)}{_suggest(str(key), list(KEYS))}"
            )
        if key == "waivers":
            if not isinstance(value, str | list):
                raise ConfigError(
                    f"{_where(source, key)} must be a file path or a list of waivers, got "
                    f"{excerpt(value, 60)}"
                )
            if isinstance(value, str):
                value = str(Path(source).parent / value) if source != "flags" else value
            fields[key] = value
            continue
        fields[key] = parsers[key](value, _where(source, key))
    return fields


def read_yaml_file(path: str | Path, what: str) -> Any:
    """A YAML file's data (``reference._yaml_input.read_input_file``: bounded, no aliases); a
    ConfigError naming ``what`` (e.g. "config file"), the file and the fault. PyYAML loads
    with the first such file, not with every command (a block audit reads none)."""
    from reference._yaml_input import InputFileError, read_input_file

    try:
        return read_input_file(path, what)
    except InputFileError as exc:
        raise ConfigError(str(exc)) from None


def load_config_file(path: str | Path) -> dict[str, Any]:
    """The validated fields of a YAML config file."""
    data = read_yaml_file(path, "config file")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"config file {str(path)!r}: expected a mapping of keys, got "
            f"{type(data).__name__} {excerpt(str(data))}"
        )
    return validate(data, str(path))


def build_config(file: str | Path | None, flags: Mapping[str, Any]) -> RunConfig:
    """The file's settings, then every flag that was given (not None) on top."""
    fields: dict[str, Any] = {}
    if file is not None:
        fields.update(load_config_file(file))
        fields["source"] = str(file)
    given = {k: v for k, v in flags.items() if v is not None}
    fields.update(validate(given, "flags") if given else {})
    return RunConfig(**fields)
