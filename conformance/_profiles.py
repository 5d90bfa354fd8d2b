"""Run profiles (``profiles.yaml``): the settings a run hands to every check as ``ctx.settings``.

A profile is validated on load, so a typo in a key or a wrong type stops the run before any
check starts (exit 2), naming the profile, the key and the value. Every profile is completed
with ``DEFAULTS``: a check may read any key of ``DEFAULTS`` and always finds a valid value.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from reference import _yaml

from ._registry import ConformanceError

GAMES: tuple[str, ...] = ("robots", "eldorado")

DEFAULTS: dict[str, Any] = {
    "games": None,  # None: every game the target offers
    "stakes": {},  # {game: [stake_cents, ...]}; a game not listed keeps every stake
    "hypothesis_max_examples": 200,
    "exhaustive": True,
    "block_mode": "sample",
    "block_sample_units": 20000,
    "blocks_per_stake": 1,
    "alpha": 0.01,
    "randomness_segments": 20,
    "play_count": 50,
    "concurrency_threads": 8,
    "concurrent_plays_per_thread": 10,
    "one_account_rounds": 3,  # rounds of simultaneous plays on one account (a double spend)
    "token_sample": 24,  # new accounts whose tokens are judged for guessability
    "check_budget_s": 300,  # seconds one check may run before it is cut (error)
    "run_budget_s": 1800,  # seconds the whole run may take; checks left are errors
    "check_concurrency": 4,  # checks run at once (block checks always alone): hides latency
}

# keys whose value is a positive integer, or null for "no limit"
_POSITIVE_INT = (
    "hypothesis_max_examples",
    "randomness_segments",
    "play_count",
    "concurrency_threads",
    "concurrent_plays_per_thread",
    "one_account_rounds",
    "token_sample",
    "check_concurrency",
)
_POSITIVE_INT_OR_NULL = ("block_sample_units", "blocks_per_stake")
# keys whose value is a number of seconds in (0, one week]
_SECONDS = ("check_budget_s", "run_budget_s")
WEEK_S = 7 * 24 * 3600


class ProfileError(ConformanceError):
    """A profile or a settings mapping is malformed; the message names where and what."""


def _positive_int(value: object) -> bool:
    return type(value) is int and value > 0


def check_settings(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``raw`` validated and completed with ``DEFAULTS``; ProfileError names the first fault."""
    if not isinstance(raw, Mapping):
        raise ProfileError(f"{where}: expected a mapping of settings, got {raw!r}")
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        raise ProfileError(
            f"{where}: unknown setting(s) {unknown}; known: {', '.join(sorted(DEFAULTS))}"
        )
    settings = {**DEFAULTS, **raw}
    for key in _POSITIVE_INT:
        if not _positive_int(settings[key]):
            raise ProfileError(f"{where}: {key} must be a positive integer, got {settings[key]!r}")
    for key in _POSITIVE_INT_OR_NULL:
        if settings[key] is not None and not _positive_int(settings[key]):
            raise ProfileError(
                f"{where}: {key} must be a positive integer or null, got {settings[key]!r}"
            )
    for key in _SECONDS:
        value = settings[key]
        if type(value) not in (int, float) or not 0 < value <= WEEK_S:
            raise ProfileError(
                f"{where}: {key} must be a number of seconds in (0, {WEEK_S}], got {value!r}"
            )
    if type(settings["exhaustive"]) is not bool:
        raise ProfileError(
            f"{where}: exhaustive must be true or false, got {settings['exhaustive']!r}"
        )
    if settings["block_mode"] not in ("sample", "whole"):
        raise ProfileError(
            f"{where}: block_mode must be 'sample' or 'whole', got {settings['block_mode']!r}"
        )
    alpha = settings["alpha"]
    if type(alpha) not in (int, float) or not 0 < alpha < 1:
        raise ProfileError(f"{where}: alpha must be a number in (0, 1), got {alpha!r}")
    games = settings["games"]
    if games is not None and (
        not isinstance(games, list) or not games or any(g not in GAMES for g in games)
    ):
        raise ProfileError(f"{where}: games must be a non-empty list of {GAMES}, got {games!r}")
    stakes = settings["stakes"]
    if stakes is None:
        settings["stakes"] = {}
    else:
        if not isinstance(stakes, Mapping) or any(g not in GAMES for g in stakes):
            raise ProfileError(
                f"{where}: stakes must map games {GAMES} to lists of stake cents, got {stakes!r}"
            )
        for game, listed in stakes.items():
            if not isinstance(listed, list) or not listed or not all(map(_positive_int, listed)):
                raise ProfileError(
                    f"{where}: stakes[{game!r}] must be a non-empty list of positive integer "
                    f"cents, got {listed!r}"
                )
        settings["stakes"] = {game: list(listed) for game, listed in stakes.items()}
    return settings


@cache
def _profiles() -> dict[str, dict[str, Any]]:
    text = resources.files("conformance").joinpath("profiles.yaml").read_bytes()
    data = _yaml.load(text)
    if not isinstance(data, dict) or not isinstance(data.get("profiles"), dict):
        raise ProfileError("profiles.yaml: expected a top-level 'profiles' mapping")
    return {
        str(name): check_settings(raw or {}, f"profiles.yaml: profile {name!r}")
        for name, raw in data["profiles"].items()
    }


def profile_names() -> list[str]:
    """The profiles ``profiles.yaml`` defines, in file order."""
    return list(_profiles())


def load_profile(name: str) -> dict[str, Any]:
    """The settings of profile ``name``, validated and completed (a fresh copy each call)."""
    profiles = _profiles()
    if name not in profiles:
        raise ProfileError(f"unknown profile {name!r}: expected one of {', '.join(profiles)}")
    settings = dict(profiles[name])
    settings["stakes"] = {g: list(s) for g, s in settings["stakes"].items()}
    return settings
