"""The run's settings object: frozen, validated once, printed in the reports' form."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from conformance import CheckContext, ProfileError, Settings, load_profile
from conformance._profiles import DEFAULTS, profile_settings
from conformance._settings import names
from harness._reference_adapter import ReferenceAdapter


def test_the_defaults_are_the_profile_defaults_in_report_form() -> None:
    assert list(DEFAULTS) == list(names())
    assert Settings().to_dict() == DEFAULTS
    assert Settings.parse({}, "here") == Settings()


def test_a_profile_is_one_frozen_object_and_its_report_form_is_a_fresh_mapping() -> None:
    full = profile_settings("full")
    assert full is profile_settings("full")  # validated once, on load
    with pytest.raises(dataclasses.FrozenInstanceError):
        full.alpha = 0.5  # type: ignore[misc]
    shown = load_profile("full")
    assert shown == full.to_dict() and shown["block_sample_units"] is None
    shown["alpha"] = 0.5
    assert load_profile("full")["alpha"] == 0.01


def test_games_and_stakes_print_as_lists_and_narrow_the_stakes() -> None:
    settings = Settings.parse({"games": ["eldorado"], "stakes": {"eldorado": [50, 200]}}, "t")
    assert settings.games == ("eldorado",) and settings.stakes_for("eldorado") == (50, 200)
    assert settings.stakes_for("robots") is None
    shown = settings.to_dict()
    assert shown["games"] == ["eldorado"] and shown["stakes"] == {"eldorado": [50, 200]}
    assert Settings.parse(shown, "again") == settings


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"alpah": 0.1}, "here: unknown setting(s) ['alpah']; known: alpha,"),
        ({"alpha": 2}, "here: alpha must be a number in (0, 1), got 2 (int)"),
        ({"play_count": "5"}, "play_count must be an integer from 1 to 1_000_000, got '5' (str)"),
        ({"scenario_workers": 0}, "here: scenario_workers must be an integer from 1 to 256, got 0"),
        ({"concurrency_threads": 10**8}, "concurrency_threads must be an integer from 1 to 256"),
        ({"draw_workers": 10**6}, "draw_workers must be a whole number of processes from 0"),
        ({"stakes": {"robots": [10**30]}}, "positive integer cents up to 9007199254740991"),
        ({"exhaustive": 1}, "here: exhaustive must be true or false, got 1 (int)"),
        ({"block_mode": "all"}, "block_mode must be 'sample' or 'whole', got 'all' (str)"),
        ({"blocks_per_stake": 0}, "blocks_per_stake must be an integer from 1 to 10_000 or null"),
        ({"run_budget_s": True}, "run_budget_s must be a number of seconds in (0, 604800]"),
        ({"games": ["poker"]}, "games must be a non-empty list of ('robots', 'eldorado')"),
        ({"stakes": {"robots": []}}, "stakes['robots'] must be a non-empty list of at most 100"),
    ],
)
def test_a_bad_value_is_named_with_its_key_value_and_type(
    raw: dict[str, Any], message: str
) -> None:
    with pytest.raises(ProfileError) as caught:
        Settings.parse(raw, "here")
    assert message in str(caught.value)


def test_a_mapping_given_to_a_check_context_is_validated_as_it_enters() -> None:
    adapter = ReferenceAdapter()
    implementation = adapter.describe()
    ctx = CheckContext(adapter, implementation, {"play_count": 7}, 1)
    assert isinstance(ctx.settings, Settings) and ctx.settings.play_count == 7
    with pytest.raises(ProfileError, match="check context settings: play_count"):
        CheckContext(adapter, implementation, {"play_count": 0}, 1)
    adapter.close()


def test_every_count_has_a_bound_above_the_full_profile_and_says_it() -> None:
    """Issue 29 item 6: no setting unbounded; each bound is named in the message, and the
    shipped profiles sit well inside it."""
    from conformance._profiles import load_profile
    from conformance._settings import _POSITIVE_INT, _POSITIVE_INT_OR_NULL, MAXIMA

    assert set(MAXIMA) == {*_POSITIVE_INT, *_POSITIVE_INT_OR_NULL, "draw_workers"}
    for name in ("quick", "full"):
        shown = load_profile(name)
        assert all(shown[k] is None or shown[k] <= MAXIMA[k] for k in MAXIMA), name
    for key, most in MAXIMA.items():
        Settings.parse({key: most}, "here")  # the bound itself is accepted
        with pytest.raises(ProfileError, match=f"{key} must be .*{most:_}"):
            Settings.parse({key: most + 1}, "here")
