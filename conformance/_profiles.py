"""Run profiles (``profiles.yaml``): the settings a run hands to every check as ``ctx.settings``.

A profile is validated on load (``Settings.parse``), so a typo in a key or a wrong type stops
the run before any check starts (exit 2), naming the profile, the key and the value. Every
profile is completed with the defaults of ``Settings``: a check reads any field of
``ctx.settings`` and always finds a valid value.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from reference import _yaml

from ._settings import DEFAULTS, WEEK_S, ProfileError, Settings


def check_settings(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``raw`` validated and completed with ``DEFAULTS``, in report form; ProfileError names
    the first fault (``Settings.parse``: the run's object is ``profile_settings``)."""
    return Settings.parse(raw, where).to_dict()


@cache
def _profiles() -> dict[str, Settings]:
    text = resources.files("conformance").joinpath("profiles.yaml").read_bytes()
    data = _yaml.load(text)
    if not isinstance(data, dict) or not isinstance(data.get("profiles"), dict):
        raise ProfileError("profiles.yaml: expected a top-level 'profiles' mapping")
    return {
        str(name): Settings.parse(raw or {}, f"profiles.yaml: profile {name!r}")
        for name, raw in data["profiles"].items()
    }


def profile_names() -> list[str]:
    """The profiles ``profiles.yaml`` defines, in file order."""
    return list(_profiles())


def profile_settings(name: str) -> Settings:
    """The settings of profile ``name``, validated and completed."""
    profiles = _profiles()
    if name not in profiles:
        raise ProfileError(f"unknown profile {name!r}: expected one of {', '.join(profiles)}")
    return profiles[name]


def load_profile(name: str) -> dict[str, Any]:
    """The settings of profile ``name`` in report form (a fresh mapping each call)."""
    return profile_settings(name).to_dict()


__all__ = [
    "DEFAULTS",
    "WEEK_S",
    "ProfileError",
    "Settings",
    "check_settings",
    "load_profile",
    "profile_names",
    "profile_settings",
]
