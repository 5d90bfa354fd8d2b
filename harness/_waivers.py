"""Waivers: requirement ids a lab accepts as not met for now, each with a reason and an expiry.

A waiver is a decision with an end date, not a mute button: an expired waiver counts as absent,
and a waived requirement that passes is flagged so the waiver can be dropped.

File format (YAML)::

    waivers:
      - requirement: robots.4.7.plus_one
        reason: "vendor ticket #123, fix due in release 2.4"
        expires: 2027-03-31
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reference._files import excerpt

from ._config import read_yaml_file
from ._errors import ConfigError

_KEYS = ("requirement", "reason", "expires")


@dataclass(frozen=True)
class Waiver:
    requirement: str
    reason: str
    expires: dt.date

    def expired(self, today: dt.date) -> bool:
        """A waiver holds through its expiry date and counts as absent the day after."""
        return today > self.expires

    def to_dict(self, today: dt.date) -> dict[str, Any]:
        return {
            "requirement": self.requirement,
            "reason": self.reason,
            "expires": self.expires.isoformat(),
            "expired": self.expired(today),
        }


def _date(value: object, where: str) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise ConfigError(f"{where}: expires must be a date YYYY-MM-DD, got {value!r}")


def parse_waivers(raw: object, source: str, known: Iterable[str]) -> list[Waiver]:
    """Validated waivers; ``known`` are the catalogue's requirement ids."""
    if isinstance(raw, Mapping):
        unknown = [k for k in raw if k != "waivers"]
        if unknown:
            raise ConfigError(
                f"{source}: unknown key {excerpt(str(unknown[0]))}; expected 'waivers'"
            )
        raw = raw.get("waivers")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ConfigError(
            f"{source}: 'waivers' must be a list, got {type(raw).__name__} {excerpt(str(raw))}"
        )
    ids = list(known)
    waivers: list[Waiver] = []
    seen: set[str] = set()
    for n, entry in enumerate(raw):
        where = f"{source}: waivers[{n}]"
        if not isinstance(entry, Mapping):
            raise ConfigError(
                f"{where}: expected a mapping with {', '.join(_KEYS)}, got {excerpt(str(entry))}"
            )
        for key in entry:
            if key not in _KEYS:
                close = difflib.get_close_matches(str(key), _KEYS, n=1, cutoff=0.5)
                hint = f"; did you mean {close[0]!r}?" if close else f"; valid: {', '.join(_KEYS)}"
                raise ConfigError(f"{where}: unknown key {excerpt(str(key))}{hint}")
        for key in _KEYS:
            if key not in entry:
                raise ConfigError(f"{where}: missing {key!r}")
        rid, reason = entry["requirement"], entry["reason"]
        if not isinstance(rid, str):
            raise ConfigError(
                f"{where}: requirement must be a requirement id, got {excerpt(str(rid))}"
            )
        if rid not in ids:
            close = difflib.get_close_matches(str(rid), ids, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"{where}: unknown requirement id {excerpt(rid, 80)}{hint}")
        if rid in seen:
            raise ConfigError(f"{where}: requirement {rid!r} is waived twice")
        if not isinstance(reason, str) or not reason.strip():
            raise ConfigError(
                f"{where}: reason must be a non-empty string, got {excerpt(str(reason))}"
            )
        seen.add(rid)
        waivers.append(Waiver(rid, reason.strip(), _date(entry["expires"], where)))
    return waivers


def load_waivers(spec: str | list[Any] | None, known: Iterable[str]) -> list[Waiver]:
    """Waivers from a file path, an inline list (from the config file), or none."""
    if spec is None:
        return []
    if isinstance(spec, list):
        return parse_waivers(spec, "config: waivers", known)
    data = read_yaml_file(spec, "waivers file")
    return parse_waivers(data, f"waivers file {spec!r}", known)


def active(waivers: Iterable[Waiver], today: dt.date) -> dict[str, Waiver]:
    """The unexpired waivers by requirement id: the only ones a verdict honours."""
    return {w.requirement: w for w in waivers if not w.expired(today)}
