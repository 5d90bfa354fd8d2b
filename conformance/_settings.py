"""The run's settings as one frozen, typed object: built and validated once, read by every check.

A run's settings come from a profile (``profiles.yaml``), a config file's ``settings:`` and the
flags; ``Settings.parse`` merges nothing itself: it takes one mapping, fills what is absent with
the defaults below, and checks every value, so a check reads ``ctx.settings.alpha`` and always
finds a valid value (no check carries a default of its own). ``to_dict()`` is what the reports
and case files print (``effective_settings``): the keys in this order, the values as given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from ._errors import ConformanceError
from .games import kit_names

SEED_LIMIT = 2**32  # hypothesis, numpy and random all take a seed this size
WEEK_S = 7 * 24 * 3600


class ProfileError(ConformanceError):
    """A profile or a settings mapping is malformed; the message names where and what."""


@dataclass(frozen=True)
class Settings:
    """Every setting a check may read; the field defaults are those of a profile that omits it.

    ``games`` None: every game the target offers. ``stakes``: (game, stake cents) pairs that
    narrow a game's stakes; a game not listed keeps every stake. ``block_sample_units`` and
    ``blocks_per_stake`` None: no limit (the whole block, every listed block).
    """

    games: tuple[str, ...] | None = None
    stakes: tuple[tuple[str, tuple[int, ...]], ...] = ()
    hypothesis_max_examples: int = 200  # examples per hypothesis-driven check
    exhaustive: bool = True  # all 6^5 eldorado rows, every robots gauge fill
    block_mode: str = "sample"  # "sample" | "whole"
    block_sample_units: int | None = 20000
    blocks_per_stake: int | None = 1
    alpha: float = 0.01  # family-wise level of the randomness tests
    randomness_segments: int = 20
    play_count: int = 50
    concurrency_threads: int = 8
    concurrent_plays_per_thread: int = 10
    one_account_rounds: int = 3  # rounds of simultaneous plays on one account (a double spend)
    token_sample: int = 24  # new accounts whose tokens are judged for guessability
    top_lot_units: int = 1000  # units on sale searched for the largest lot, played up to it
    history_plays: int = 37  # plays of play.history_listing's account: listings past a page
    reveal_resume_plays: int = 300  # plays made while a robots ticket is left half revealed
    player_accounts: int = 8  # accounts played at a player's pace (play.player_sessions)
    player_span_s: float = 6  # seconds the player sessions last before they are judged again
    old_account_plays: int = 60  # plays of each old account (play.player_sessions)
    deep_units: int | None = None  # index in a block past which plays are judged (None: none)
    deep_budget_s: float = 30  # seconds play.deep_stream may play through to deep_units
    top_tier_units: int | None = None  # units the player sessions may play through to a lot of
    # 1 000 EUR or more (None: none; the soak's: a block's whole length)
    check_budget_s: float = 300  # seconds one check may run before it is cut (error)
    run_budget_s: float = 1800  # seconds the whole run may take; checks left are errors
    check_concurrency: int = 4  # checks run at once (block checks always alone): hides latency
    scenario_workers: int = 8  # scenarios one check plays at once, each on its own account
    draw_workers: int | None = (
        None  # processes drawing examples (None: one per core up to 4, 0: none)
    )

    @classmethod
    def parse(cls, raw: Mapping[str, Any], where: str) -> Settings:
        """``raw`` validated and completed with the defaults; ProfileError names the first
        fault: ``where``, the key, the value (``!r``), its type and what was expected."""
        if not isinstance(raw, Mapping):
            raise ProfileError(f"{where}: expected a mapping of settings, got {_shown(raw)}")
        known = names()
        unknown = sorted(set(raw) - set(known))
        if unknown:
            raise ProfileError(
                f"{where}: unknown setting(s) {unknown}; known: {', '.join(sorted(known))}"
            )
        values = {**DEFAULTS, **raw}
        for key in _POSITIVE_INT:
            if not _positive_int(values[key], MAXIMA[key]):
                raise ProfileError(
                    f"{where}: {key} must be an integer from 1 to {MAXIMA[key]:_}, "
                    f"got {_at(values, key)}"
                )
        for key in _POSITIVE_INT_OR_NULL:
            if values[key] is not None and not _positive_int(values[key], MAXIMA[key]):
                raise ProfileError(
                    f"{where}: {key} must be an integer from 1 to {MAXIMA[key]:_} or null "
                    f"(no limit), got {_at(values, key)}"
                )
        for key in _SECONDS:
            value = values[key]
            if type(value) not in (int, float) or not 0 < value <= WEEK_S:
                raise ProfileError(
                    f"{where}: {key} must be a number of seconds in (0, {WEEK_S}], "
                    f"got {_at(values, key)}"
                )
        if type(values["exhaustive"]) is not bool:
            raise ProfileError(
                f"{where}: exhaustive must be true or false, got {_at(values, 'exhaustive')}"
            )
        if values["block_mode"] not in ("sample", "whole"):
            raise ProfileError(
                f"{where}: block_mode must be 'sample' or 'whole', got {_at(values, 'block_mode')}"
            )
        alpha = values["alpha"]
        if type(alpha) not in (int, float) or not 0 < alpha < 1:
            raise ProfileError(f"{where}: alpha must be a number in (0, 1), got {_shown(alpha)}")
        draw_workers = values["draw_workers"]
        most = MAXIMA["draw_workers"]
        if draw_workers is not None and (
            type(draw_workers) is not int or not 0 <= draw_workers <= most
        ):
            raise ProfileError(
                f"{where}: draw_workers must be a whole number of processes from 0 (none) to "
                f"{most}, or null (one per core, up to 4), got {_at(values, 'draw_workers')}"
            )
        games = _games(values["games"], where)
        stakes = _stakes(values["stakes"], where)
        return cls(**{**values, "games": games, "stakes": stakes})

    def to_dict(self) -> dict[str, Any]:
        """The settings as the reports and case files print them (``effective_settings``):
        every key, in ``names()`` order; games a list or None, stakes ``{game: [cents]}``."""
        shown: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        shown["games"] = list(self.games) if self.games is not None else None
        shown["stakes"] = {game: list(cents) for game, cents in self.stakes}
        return shown

    def stakes_for(self, game: str) -> tuple[int, ...] | None:
        """The stakes ``stakes`` keeps for ``game``, or None when it does not narrow it."""
        return dict(self.stakes).get(game)

    def with_changes(self, where: str, **changes: Any) -> Settings:
        """These settings with ``changes`` (report-form values), validated again."""
        return Settings.parse({**self.to_dict(), **changes}, where)


def names() -> tuple[str, ...]:
    """The settings' keys, in the order the reports print them."""
    return tuple(f.name for f in fields(Settings))


def coerce(settings: Settings | Mapping[str, Any], where: str) -> Settings:
    """``settings`` as a ``Settings``: a mapping (a test's, a plugin's) is parsed, at the
    boundary where it enters; a ``Settings`` is already valid and is returned as it is."""
    if isinstance(settings, Settings):
        return settings
    return Settings.parse(settings, where)


MAX_STAKES = 100  # stakes of one game a run may narrow to
MAX_STAKE_CENTS = 2**53 - 1  # the largest integer every JSON reader holds exactly

# keys whose value is a positive integer, or null for "no limit"
_POSITIVE_INT = (
    "hypothesis_max_examples",
    "randomness_segments",
    "play_count",
    "concurrency_threads",
    "concurrent_plays_per_thread",
    "one_account_rounds",
    "token_sample",
    "top_lot_units",
    "history_plays",
    "reveal_resume_plays",
    "player_accounts",
    "old_account_plays",
    "check_concurrency",
    "scenario_workers",
)
_POSITIVE_INT_OR_NULL = ("block_sample_units", "blocks_per_stake", "deep_units", "top_tier_units")
# every count's largest value (issue 29 item 6): far above the full profile's (docs/certify.md,
# "Settings"), below what would exhaust the machine running the harness (threads, processes,
# memory) or keep a run going for days; a value over it is refused, naming the bound
MAXIMA: dict[str, int] = {
    "hypothesis_max_examples": 1_000_000,  # full: 5 000
    "randomness_segments": 10_000,  # 20
    "play_count": 1_000_000,  # full: 500
    "concurrency_threads": 256,  # threads at once against the target (8)
    "concurrent_plays_per_thread": 100_000,  # full: 100
    "one_account_rounds": 10_000,  # full: 10
    "token_sample": 100_000,  # full: 64
    "top_lot_units": 100_000_000,  # full: 12 000; a block is at most a few million units
    "history_plays": 1_000_000,  # full: 117
    "reveal_resume_plays": 1_000_000,  # full: 2 500
    "check_concurrency": 64,  # as harness/_config.py's MAX_CONCURRENCY
    "scenario_workers": 256,  # threads of one check (8)
    "block_sample_units": 1_000_000_000,  # null: the whole block
    "blocks_per_stake": 10_000,  # null: every block listed
    "draw_workers": 64,  # processes (null: one per core, up to 4)
    "player_accounts": 10_000,  # accounts at a player's pace (full: 16)
    "old_account_plays": 1_000_000,  # plays of each old account (full: hundreds)
    "deep_units": 100_000_000,  # null: no deep plays; a block is at most a few million units
    "top_tier_units": 100_000_000,  # null: none; soak: 2 000 000 (a robots block)
}
# keys whose value is a number of seconds in (0, one week]
_SECONDS = ("check_budget_s", "run_budget_s", "player_span_s", "deep_budget_s")


def _positive_int(value: object, most: int | None = None) -> bool:
    return type(value) is int and value > 0 and (most is None or value <= most)


def _shown(value: object) -> str:
    """A value as an error message shows it: its repr (60 characters at most) and its type."""
    text = repr(value)
    return f"{text if len(text) <= 60 else text[:60] + '…'} ({type(value).__name__})"


def _at(values: Mapping[str, Any], key: str) -> str:
    return _shown(values[key])


def _known_games() -> tuple[str, ...]:
    """The games a setting may name: those with a kit (``conformance.games``)."""
    return kit_names()


def _unknown(names: object) -> str:
    """``: unknown game 'poker'`` for the first name in ``names`` without a kit, else ""."""
    known = _known_games()
    strangers = [g for g in names if g not in known] if isinstance(names, Iterable) else []
    return f": unknown game {strangers[0]!r}" if strangers else ""


def _games(games: object, where: str) -> tuple[str, ...] | None:
    known = _known_games()
    if games is None:
        return None
    if not isinstance(games, list | tuple) or not games or any(g not in known for g in games):
        raise ProfileError(
            f"{where}: games must be a non-empty list of {known}, got {_shown(games)}"
            f"{_unknown(games)}"
        )
    return tuple(games)


def _stakes(stakes: object, where: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    known = _known_games()
    if stakes is None:
        return ()
    if isinstance(stakes, tuple):  # already in the field's form (pairs)
        stakes = dict(stakes)
    if not isinstance(stakes, Mapping) or any(g not in known for g in stakes):
        raise ProfileError(
            f"{where}: stakes must map games {known} to lists of stake cents, got "
            f"{_shown(stakes)}{_unknown(stakes)}"
        )
    pairs: list[tuple[str, tuple[int, ...]]] = []
    for game, listed in stakes.items():
        if (
            not isinstance(listed, list | tuple)
            or not listed
            or len(listed) > MAX_STAKES
            or not all(_positive_int(cents, MAX_STAKE_CENTS) for cents in listed)
        ):
            raise ProfileError(
                f"{where}: stakes[{game!r}] must be a non-empty list of at most {MAX_STAKES} "
                f"positive integer cents up to {MAX_STAKE_CENTS}, got {_shown(listed)}"
            )
        pairs.append((game, tuple(listed)))
    return tuple(pairs)


DEFAULTS: dict[str, Any] = Settings().to_dict()
"""Every setting's default, in report form (a profile that omits a key gets this)."""
