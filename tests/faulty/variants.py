"""Faulty implementations: the reference with one realistic fault each, and what must catch it.

``VARIANTS`` maps a name to a ``Variant``: its area, the article it breaks, the requirement
ids (``fnmatch`` patterns) of which at least one must be among the failures of a certify run,
and a factory returning an Adapter. Each factory is also a module attribute, so any variant is
a vendor-style target: ``instantcert certify --target python:tests.faulty.variants:<name>``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from conformance._profiles import load_profile
from reference._service import GameService

from . import _block_faults as bf
from . import _crossblock_faults as xf
from . import _faults as f
from . import _late_faults as lf
from . import _own_limit_faults as olf
from . import _play_faults as pf
from . import _player_faults as plf
from . import _protocol_faults as prf
from . import _round2_faults as r2
from . import _round3_faults as r3
from . import _round4_faults as r4
from . import _round5_faults as r5
from . import _round6_faults as r6
from . import _round7_faults as r7
from . import _round8_faults as r8
from . import _round9_faults as r9
from . import _round10_faults as r10
from . import _round11_faults as r11
from . import _round12_faults as r12
from . import _round12_seen_faults as r12s
from . import _round13_faults as r13
from . import _round13_surface_faults as r13s
from . import _round14_faults as r14
from . import _round15_faults as r15
from . import _stake_faults as sf
from . import _ways_in_faults as wf
from ._base import evaluator_variant, service_variant
from ._evaluator import EldoradoEvaluator, RobotsEvaluator

AREAS: tuple[str, ...] = ("robots_rules", "eldorado_rules", "blocks", "play")


@dataclass(frozen=True)
class Variant:
    """One faulty implementation."""

    name: str
    area: str  # one of AREAS
    article: str  # where the rules say what it breaks
    fault: str  # the bug, as a vendor would describe it
    expected_requirements: frozenset[str]  # fnmatch patterns; one must fail
    factory: Callable[[], Any]
    games: tuple[str, ...]  # the games the fault shows in
    whole_blocks: bool = False  # only an audit of whole blocks can see it (lot counts...)
    settings: Mapping[str, Any] | None = None  # settings its runs need (deep units, old plays)
    soak: bool = False  # only a soak run sees it (a cache entry's time to live): test_soak.py

    def caught_by(self, failed: Iterable[str]) -> list[str]:
        """The failed requirement ids that are among the expected ones."""
        return sorted(
            rid
            for rid in failed
            if any(fnmatch.fnmatchcase(rid, pattern) for pattern in self.expected_requirements)
        )


VARIANTS: dict[str, Variant] = {}


def _add(
    name: str,
    area: str,
    article: str,
    expected: Iterable[str],
    factory: Callable[[str], Callable[[], Any]],
    doc: str | None,
    games: tuple[str, ...],
    whole_blocks: bool = False,
    settings: Mapping[str, Any] | None = None,
    soak: bool = False,
) -> None:
    if name in VARIANTS:
        raise ValueError(f"variant {name!r} registered twice")
    VARIANTS[name] = Variant(
        name=name,
        area=area,
        article=article,
        fault=" ".join((doc or "").split()),
        expected_requirements=frozenset(expected),
        factory=factory(name),
        games=games,
        whole_blocks=whole_blocks,
        settings=settings,
        soak=soak,
    )


def _robots(name: str, article: str, cls: type[RobotsEvaluator], *expected: str) -> None:
    _add(
        name,
        "robots_rules",
        article,
        expected,
        lambda n: evaluator_variant(f"faulty:{n}", robots=cls),
        cls.__doc__,
        ("robots",),
    )


def _eldorado(name: str, article: str, cls: type[EldoradoEvaluator], *expected: str) -> None:
    _add(
        name,
        "eldorado_rules",
        article,
        expected,
        lambda n: evaluator_variant(f"faulty:{n}", eldorado=cls),
        cls.__doc__,
        ("eldorado",),
    )


def _service(
    name: str,
    area: str,
    article: str,
    cls: type[GameService],
    expected: Iterable[str],
    games: tuple[str, ...] = ("robots", "eldorado"),
    whole_blocks: bool = False,
    settings: Mapping[str, Any] | None = None,
    soak: bool = False,
) -> None:
    _add(
        name,
        area,
        article,
        expected,
        lambda n: service_variant(f"faulty:{n}", cls),
        cls.__doc__,
        games,
        whole_blocks,
        settings,
        soak,
    )


# -- robots, article 4 ----------------------------------------------------------------------
_robots("robots_x2_counted_once", "robots 4.6", f.X2CountedOnce, "robots.4.6.x2")
_robots(
    "robots_plus_one_reveal_ignored",
    "robots 4.7",
    f.PlusOneRevealIgnored,
    "robots.4.7.plus_one_reveal",
)
_robots(
    "robots_plus_one_x2_ignored", "robots R-I4", f.PlusOneX2Ignored, "robots.4.7.plus_one_reveal"
)
_robots("robots_gauge_one_short", "robots 4.8", f.GaugeOneShort, "robots.4.8.gauge_full")
_robots(
    "robots_gauges_not_cumulated",
    "robots 4.5",
    f.GaugesNotCumulated,
    "robots.4.5.one_notch",
    "robots.4.6.x2",
)
_robots("robots_only_highest_gain", "robots 4.9", f.OnlyHighestGain, "robots.4.9.several_gauges")
_robots("robots_gauge_wins_per_fill", "robots R-I3", f.GaugeWinsPerFill, "robots.4.8.gauge_capped")
_robots("robots_hexagon_amount_typo", "robots 4.8", f.HexagonAmountTypo, "robots.4.8.amounts")
_robots(
    "robots_robot_index_canonical",
    "robots R-I1",
    f.RobotIndexCanonical,
    "robots.4.2.robot_positions",
)
_robots(
    "robots_robot_twice_accepted", "robots R-I1", f.RobotTwiceAccepted, "robots.4.2.invalid_board"
)

# -- eldorado, article 4 --------------------------------------------------------------------
_eldorado(
    "eldorado_five_paid_as_five_plus_four",
    "eldorado E-I2",
    f.FivePaidAsFivePlusFour,
    "eldorado.4.4.five_pays_once",
)
_eldorado("eldorado_adjacent_only", "eldorado E-I1", f.AdjacentOnly, "eldorado.4.4.not_adjacent")
_eldorado(
    "eldorado_extra_pays_as_symbol",
    "eldorado E-I3",
    f.ExtraPaysAsSymbol,
    "eldorado.4.5.extra_pays_nothing",
)
_eldorado(
    "eldorado_extra_spoils_combination",
    "eldorado E-I3",
    f.ExtraSpoilsCombination,
    "eldorado.4.5.extra_pays_nothing",
)
_eldorado(
    "eldorado_extra_grids_ignored", "eldorado 4.5", f.ExtraGridsIgnored, "eldorado.4.5.extra_stage"
)
_eldorado(
    "eldorado_extra_at_one_euro", "eldorado E-I6", f.ExtraAtOneEuro, "eldorado.4.5.extra_same_stake"
)
_eldorado(
    "eldorado_extra_in_extra_ignored",
    "eldorado E-I4",
    f.ExtraInExtraIgnored,
    "eldorado.4.5.extra_in_extra",
)
_eldorado("eldorado_7_5_rounded", "eldorado 4.4", f.SevenFiftyRounded, "eldorado.4.4.paytable")
_eldorado("eldorado_last_row_ignored", "eldorado 4.1", f.LastRowIgnored, "eldorado.4.1.rows")
_eldorado(
    "eldorado_ungranted_grid_accepted",
    "eldorado E-I4",
    f.UngrantedGridAccepted,
    "eldorado.4.5.invalid_extra_grids",
)

# -- blocks, articles 2 and 3 ---------------------------------------------------------------
_blk = f.block_service
R = ("robots", 100)
_service(
    "block_lot_swapped",
    "blocks",
    "robots 3",
    _blk(f.LotSwapped, R),
    ["robots.3.lot_table"],
    ("robots",),
    whole_blocks=True,
)
_service(
    "block_winner_on_losing_ticket",
    "blocks",
    "robots 2",
    _blk(f.WinnerOnLosingTicket, R),
    ["robots.3.unit_prize"],
    ("robots",),
)
_service(
    "block_payout_70_01",
    "blocks",
    "robots 3",
    _blk(f.PayoutAboveCap, R),
    ["robots.3.payout_cap"],
    ("robots",),
    whole_blocks=True,
)
_service(
    "block_unit_duplicated",
    "blocks",
    "robots 2",
    _blk(f.UnitDuplicated, R),
    ["robots.2.unit_sequence"],
    ("robots",),
)
_service(
    "block_slice_one_short",
    "blocks",
    "contract 3",
    _blk(f.SliceOneShort, R),
    ["blocks.contract3.slice", "robots.2.unit_sequence"],
    ("robots",),
)
_service(
    "block_winners_clustered",
    "blocks",
    "robots 3",
    _blk(f.WinnersClustered, R),
    ["robots.randomness.winner_positions"],
    ("robots",),
    whole_blocks=True,
)
_service(
    "block_predictable_order",
    "blocks",
    "robots 3",
    _blk(f.PredictableOrder, R),
    ["robots.randomness.winner_positions"],
    ("robots",),
)
_service(
    "block_identical_orders",
    "blocks",
    "robots 3",
    f.IdenticalOrders,
    ["robots.randomness.unrelated_blocks"],
    ("robots",),
)
_service(
    "block_shifted_copy",
    "blocks",
    "robots 3",
    bf.ShiftedCopy,
    ["robots.randomness.unrelated_blocks"],
    ("robots",),
)
_service(
    "block_rotated_half",
    "blocks",
    "robots 3",
    bf.RotatedHalf,
    ["robots.randomness.unrelated_blocks"],
    ("robots",),
    whole_blocks=True,  # a slice read at the same place of both blocks cannot see a rotation
)
_service(
    "block_top_prizes_early",
    "blocks",
    "robots 3",
    _blk(bf.TopPrizesEarly, R),
    ["robots.randomness.top_tiers"],
    ("robots",),
    whole_blocks=True,
)
_service(
    "block_too_regular",
    "blocks",
    "robots 3",
    _blk(bf.TooRegular, R),
    ["robots.randomness.winner_positions"],
    ("robots",),
)
_service(
    "eldorado_block_lot_swapped",
    "blocks",
    "eldorado 3",
    _blk(f.LotSwapped, ("eldorado", 100)),
    ["eldorado.3.2.lot_table"],
    ("eldorado",),
    whole_blocks=True,
)

# -- play, contract 4 and articles 4.1/4.2, 4.4, 4.7, 4.10/4.6 --------------------------------
_service(
    "play_stake_debited_twice",
    "play",
    "robots 4.1",
    f.StakeDebitedTwice,
    ["robots.4.1.stake_debited", "eldorado.4.2.stake_debited", "play.money.exact"],
)
_service(
    "play_prize_not_credited",
    "play",
    "robots 4.10",
    f.PrizeNotCredited,
    ["robots.4.10.prize_credited", "eldorado.4.6.prize_credited"],
)
_service(
    "play_eldorado_debits_one_euro",
    "play",
    "eldorado 4.2",
    f.EldoradoDebitsOneEuro,
    ["eldorado.4.2.stake_debited", "play.money.exact"],
    ("eldorado",),
)
_service(
    "play_eldorado_credits_main_grid",
    "play",
    "eldorado 4.6",
    f.EldoradoCreditsMainGrid,
    ["eldorado.4.6.prize_credited", "play.money.exact"],
    ("eldorado",),
)
_service(
    "play_history_hides_unrevealed",
    "play",
    "robots 4.1",
    f.HistoryHidesUnrevealed,
    ["robots.4.1.history_unrevealed", "eldorado.4.2.history_unrevealed"],
)
_service(
    "play_reveal_ignores_button",
    "play",
    "robots 4.4",
    f.RevealIgnoresButton,
    ["robots.4.4.reveal_order"],
    ("robots",),
)
_service(
    "play_plus_one_two_clicks",
    "play",
    "robots 4.7",
    f.PlusOneTwoClicks,
    ["robots.4.7.reveal_plus_one"],
    ("robots",),
)
_service(
    "play_reveal_drops_x2",
    "play",
    "robots 4.3",
    f.RevealDropsX2,
    ["robots.4.3.reveal_symbols", "play.reveal.answer"],
    ("robots",),
)
_service(
    "play_auto_redraws_unrevealed",
    "play",
    "robots 4.4",
    f.AutoRedrawsUnrevealed,
    ["robots.4.4.auto_any_moment"],
    ("robots",),
)
_service("play_unit_sold_twice", "play", "contract 4", f.RacySales, ["play.sales.no_double_sale"])
_service("play_units_skipped", "play", "contract 4", f.SkipsUnits, ["play.sales.block_order"])
_service(
    "play_ticket_redrawn_at_sale",
    "play",
    "contract 4",
    f.TicketRedrawnAtSale,
    ["play.sales.block_unit"],
)
_service(
    "play_reveal_with_any_token",
    "play",
    "contract 4",
    f.RevealWithAnyToken,
    ["security.tokens.isolation"],
    ("robots",),
)
_service(
    "play_overdraft_allowed",
    "play",
    "contract 4",
    f.OverdraftAllowed,
    ["play.refusal.insufficient_funds"],
)
_service(
    "play_refusal_consumes_unit",
    "play",
    "contract 4",
    f.RefusalConsumesUnit,
    ["play.refusal.insufficient_funds"],
)
_service(
    "play_refusal_charges_a_fee",
    "play",
    "contract 4",
    f.RefusalChargesAFee,
    ["play.refusal.insufficient_funds"],
)
_service(
    "play_invalid_play_charges_a_fee",
    "play",
    "contract 4",
    f.InvalidPlayChargesAFee,
    ["play.refusal.invalid"],
)
_service(
    "play_invalid_stake_rounded",
    "play",
    "contract 4",
    f.InvalidStakeRounded,
    ["play.refusal.invalid"],
)
_service(
    "play_eldorado_invalid_stake_takes_a_unit",
    "play",
    "contract 4",
    f.EldoradoInvalidStakeTakesAUnit,
    ["play.refusal.invalid"],
)
_service(
    "play_other_history_readable",
    "play",
    "contract 4",
    f.OtherHistoryReadable,
    ["security.tokens.isolation"],
)
_service(
    "play_balance_without_token",
    "play",
    "contract 4",
    f.BalanceWithoutToken,
    ["security.tokens.required"],
)


# -- issue 10: one account's money, the history listing, the reveal answer ----------------------
_service(
    "play_double_spend_one_account",
    "play",
    "contract 4",
    pf.BalanceReadThenWritten,
    ["play.money.concurrent_one_account"],
    ("robots",),
)
_service(
    "play_double_spend_one_account_at_two_euros",
    "play",
    "contract 4",
    pf.BalanceReadThenWrittenAtTwoEuros,
    ["play.money.concurrent_one_account"],
    ("eldorado",),
)
_service(
    "play_balance_read_lagging",
    "play",
    "contract 4",
    pf.BalanceReadLagging,
    ["play.money.balance_read"],
    ("robots",),
)
_service(
    "play_history_oldest_first",
    "play",
    "contract 4",
    pf.HistoryOldestFirst,
    ["play.history.order"],
    ("robots",),
)
_service(
    "play_history_limit_ignored",
    "play",
    "contract 4",
    pf.HistoryLimitIgnored,
    ["play.history.limit"],
    ("robots",),
)
_service(
    "play_history_revealed_twice",
    "play",
    "contract 4",
    pf.HistoryRevealedTwice,
    ["play.history.complete"],
    ("robots",),
)
_service(
    "play_history_newest_lags",
    "play",
    "robots 4.1",
    pf.HistoryNewestLags,
    ["robots.4.1.last_unit", "eldorado.4.2.last_unit"],
    ("robots",),
)
_service(
    "play_reveal_letter_of_another_symbol",
    "play",
    "contract 4",
    pf.RevealLetterOfAnotherSymbol,
    ["play.reveal.answer"],
    ("robots",),
)
_service(
    "play_reveal_drops_plus_one",
    "play",
    "contract 4",
    pf.RevealDropsPlusOne,
    ["play.reveal.answer"],
    ("robots",),
)
_service(
    "play_prize_credited_at_reveal",
    "play",
    "robots 4.10",
    pf.PrizeCreditedAtReveal,
    ["robots.4.10.prize_credited", "eldorado.4.6.prize_credited", "play.money.exact"],
    ("robots",),
)

# -- the stakes of article 2 (a gap the clause catalogue found, issue 10) ----------------------
_service(
    "eldorado_one_euro_only",
    "eldorado_rules",
    "eldorado 2",
    sf.EldoradoOneEuroOnly,
    ["eldorado.2.stakes"],
    ("eldorado",),
)

# -- issue 10: tokens, refusals (in-process and over HTTP), the evaluate batch ------------------
_service(
    "play_tokens_sequential",
    "play",
    "contract 4",
    pf.SequentialTokens,
    ["security.tokens.unguessable"],
    ("robots",),
)
_service(
    "play_token_is_account_hash",
    "play",
    "contract 4",
    pf.TokenIsAccountHash,
    ["security.tokens.unguessable"],
    ("robots",),
)
_service(
    "play_tokens_32_bits",
    "play",
    "contract 4",
    pf.ShortTokens,
    ["security.tokens.unguessable"],
    ("robots",),
)
_service(
    "play_funds_refused_400",
    "play",
    "contract 4",
    prf.FundsRefused400,
    ["protocol.refusals.status", "play.refusal.insufficient_funds"],
    ("robots",),
)
_service(
    "play_nothing_to_reveal_400",
    "play",
    "contract 4",
    prf.NothingToReveal400,
    ["protocol.refusals.status"],
    ("robots",),
)


# -- faults a red team found past the suite (session 6) ---------------------------------------
_eldorado(
    "eldorado_extra_stages_capped",
    "eldorado 4.5",
    f.ExtraStagesCapped,
    "eldorado.4.5.*",
    "eldorado.4.4.combinations_add",
    "eldorado.4.6.one_lot",
)
_service(
    "block_layout_shared_across_stakes",
    "blocks",
    "eldorado 3",
    xf.CrossStakeLayout,
    ["eldorado.randomness.unrelated_blocks"],
    ("eldorado",),
    whole_blocks=True,  # the quick profile reads each stake's slice at a place of its own
)
_service(
    "block_reshuffled_chunk_by_chunk",
    "blocks",
    "robots 3",
    xf.ChunkReshuffled,
    ["robots.randomness.unrelated_blocks"],
    ("robots",),
    whole_blocks=True,
)
_service(
    "play_sales_from_unlisted_blocks",
    "play",
    "contract 4",
    f.SalesFromUnlistedBlocks,
    ["play.sales.block_unit"],
)
_service(
    "play_balance_in_float_euros",
    "play",
    "contract 4",
    pf.BalanceInFloatEuros,
    ["play.money.exact"],
)
_service("play_wallet_ceiling", "play", "contract 4", pf.WalletCeiling, ["play.money.exact"])
_service(
    "play_auto_wins_of_the_main_grid",
    "play",
    "contract 4",
    pf.AutoWinsOfTheMainGrid,
    ["play.auto.answer"],
    ("eldorado",),
)
_service(
    "play_auto_leaves_buttons_open",
    "play",
    "robots 4.4",
    pf.AutoLeavesButtonsOpen,
    ["robots.4.4.auto_any_moment"],
    ("robots",),
)
_add(
    "play_error_codes_camel_case",
    "play",
    "contract 4",
    ["protocol.refusals.error_document"],
    prf.delegating_variant(prf.CamelCaseCodes),
    prf.CamelCaseCodes.__doc__,
    ("robots",),
)
for _name, _error in (
    ("http_refusals_with_200", prf.refusal_with_200),
    ("http_error_without_code", prf.refusal_without_code),
    ("http_error_as_detail", prf.refusal_as_detail),
):
    _add(
        _name,
        "play",
        "contract 4",
        ["protocol.refusals.status"]
        if _error is prf.refusal_with_200
        else ["protocol.refusals.error_document"],
        prf.http_variant(_error),
        _error.__doc__,
        ("robots",),
    )
for _name, _cls, _expected in (
    ("evaluate_results_reversed", prf.ResultsReversed, ["evaluate.batch.order"]),
    ("evaluate_results_sorted_by_prize", prf.ResultsSortedByPrize, ["evaluate.batch.order"]),
    (
        "evaluate_batch_refused_whole",
        prf.BatchRefusedWhole,
        ["evaluate.batch.errors", "*.contract.invalid_per_ticket"],
    ),
    ("evaluate_error_bare_string", prf.BareErrorString, ["evaluate.batch.errors"]),
):
    _add(
        _name,
        "robots_rules",
        "contract 4",
        _expected,
        prf.delegating_variant(_cls),
        _cls.__doc__,
        ("robots",),
    )
_add(
    "evaluate_batch_size_unchecked",
    "robots_rules",
    "contract 4",
    ["evaluate.refusals.status"],
    lambda n: service_variant(f"faulty:{n}", prf.BatchSizeUnchecked),
    prf.BatchSizeUnchecked.__doc__,
    ("robots",),
)


# -- the second red team's faults (tests/faulty/_round2_faults.py) ----------------------------
_service(
    "block_slice_page_wrap",
    "blocks",
    "contract 3",
    r2.SlicePageWrap,
    ["blocks.contract3.slice"],
)
_eldorado(
    "eldorado_deep_grant_unchecked",
    "eldorado E-I4",
    r2.DeepGrantUnchecked,
    "eldorado.4.5.invalid_extra_grids",
)
_service(
    "play_reveal_lost_update",
    "play",
    "robots 4.4",
    r2.RevealLostUpdate,
    ["robots.4.4.reveal_order", "robots.4.3.reveal_symbols", "robots.4.7.reveal_plus_one"],
    ("robots",),
)
_service(
    "play_auto_names_newest_play",
    "play",
    "contract 4",
    r2.AutoNamesNewestPlay,
    ["play.auto.answer"],
)
_service(
    "play_big_lots_held",
    "play",
    "robots 4.10",
    r2.BigLotsHeld,
    ["*.prize_credited"],
)
_service(
    "play_auto_retry_pays_again",
    "play",
    "contract 4",
    r2.AutoRetryPaysAgain,
    ["play.money.exact", "*.prize_credited"],
)


def __getattr__(name: str) -> Callable[[], Any]:
    """``python:tests.faulty.variants:<variant name>`` names the variant's factory."""
    if name in VARIANTS:
        return VARIANTS[name].factory
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- the third red team's faults (tests/faulty/_round3_faults.py) -----------------------------
_service(
    "play_history_page_skip",
    "play",
    "contract 4",
    r3.HistoryPageSkip,
    ["play.history.complete"],
)
_service(
    "block_seed_two_slots",
    "blocks",
    "robots 3",
    r3.SeedTwoSlots,
    ["robots.randomness.unrelated_blocks"],
    ("robots",),
    whole_blocks=True,  # the quick profile compares the first two listed blocks only
)
_service(
    "play_wallet_uint32",
    "play",
    "contract 4",
    r3.WalletUint32,
    ["play.money.exact"],
)
_service(
    "play_reveal_session_evicted",
    "play",
    "robots 4.3",
    r3.RevealSessionEvicted,
    ["robots.4.3.reveal_symbols"],
    ("robots",),
)
_service(
    "block_readme_seed",
    "blocks",
    "robots 3",
    r3.ReadmeSeed,
    ["*.randomness.winner_positions"],
)
_service(
    "block_later_blocks_across_stakes",
    "blocks",
    "eldorado 3",
    r3.LaterBlocksAcrossStakes,
    ["eldorado.randomness.unrelated_blocks"],
    ("eldorado",),
    whole_blocks=True,  # the quick profile reads each stake's slice at a place of its own
)


# -- issue 27: every way in (tests/faulty/_ways_in_faults.py) ---------------------------------
for _name, _cls, _expected in (
    ("play_token_truncated", wf.TokenTruncated, "security.tokens.required"),
    ("play_token_case_insensitive", wf.TokenCaseInsensitive, "security.tokens.required"),
    ("play_token_prefix_search", wf.TokenPrefixSearch, "security.tokens.required"),
    ("play_neighbour_check_digit", wf.NeighbourCheckDigit, "security.tokens.isolation"),
):
    _service(_name, "play", "contract 4", _cls, [_expected], ("robots",))
for _name, _shim, _expected in (
    # the account's own token by Basic, ?access_token= or a cookie is a freedom now, certified
    # with a reservation (freedom_variants.py); a wrong one let in by another carrier is not
    ("http_access_token_unchecked", wf.access_token_unchecked, "security.tokens.bearer_only"),
    ("http_cookie_over_bad_bearer", wf.cookie_over_bearer, "security.tokens.bearer_only"),
    ("http_trailing_slash_unguarded", wf.trailing_slash_ignored, "security.paths.guarded"),
    ("http_merged_slashes_unguarded", wf.slashes_merged, "security.paths.guarded"),
    ("http_encoded_path_unguarded", wf.guard_on_raw_path, "security.paths.guarded"),
):
    _add(
        _name,
        "play",
        "contract 4",
        [_expected],
        wf.vendor_http_variant(_shim),
        _shim.__doc__,
        ("robots",),
    )

# -- issue 27: parameters at and past their bounds ---------------------------------------------
_service(
    "play_buttons_modulo_18",
    "play",
    "robots 4.2",
    wf.ButtonsModulo,
    ["play.reveal.bounds"],
    ("robots",),
)
_service(
    "play_eldorado_reveal_answered",
    "play",
    "contract 4",
    wf.EldoradoRevealAnswered,
    ["play.reveal.bounds"],
)
_service(
    "play_balance_in_float64",
    "play",
    "contract 4",
    wf.BalanceInFloat64,
    ["play.money.exact"],
)
_service(
    "play_balance_in_float64_at_two_euros",
    "play",
    "contract 4",
    wf.BalanceInFloat64AtTwoEuros,
    ["play.money.exact"],
)
_service(
    "block_slice_past_end_wraps",
    "blocks",
    "contract 3",
    wf.SlicePastEndWraps,
    ["blocks.contract3.slice"],
)
_service(
    "block_slice_past_end_wraps_at_two_euros",
    "blocks",
    "contract 3",
    wf.SlicePastEndWrapsAtTwoEuros,
    ["blocks.contract3.slice"],
)
_robots(
    "robots_gauge_counter_four_bits",
    "robots 4.8",
    wf.GaugeCounterFourBits,
    "robots.4.8.gauge_capped",
)
_service(
    "play_history_limit_uint32",
    "play",
    "contract 4",
    wf.HistoryLimitUint32,
    ["play.history.limit"],
    ("robots",),
)

# -- issue 27: a harness's look, old accounts, deep units, time (tests/faulty/_player_faults.py) --
_service(
    "play_paced_wins_queued",
    "play",
    "robots 4.10",
    plf.PacedWinsQueued,
    ["*.prize_credited"],
)
_service(
    "play_history_keeps_newest",
    "play",
    "contract 4",
    plf.HistoryKeepsNewest,
    ["play.history.complete"],
)
_service(
    "play_lot_table_first_units",
    "play",
    "robots 4.10",
    plf.LotTableFirstUnits,
    ["*.prize_credited"],
    ("robots",),
    settings={"deep_units": 5000, "deep_budget_s": 300},  # past its 4 096 units
)
_service(
    "play_reveal_state_expires",
    "play",
    "robots 4.3",
    plf.RevealStateExpires,
    ["robots.4.3.reveal_symbols"],
    ("robots",),
    soak=True,  # its entries live a minute: tests/faulty/test_soak.py
)
_service(
    "play_top_tier_fee",
    "play",
    "robots 4.10",
    plf.TopTierFee,
    ["*.prize_credited"],
    # robots: its first top tier is nearest (unit 37 040 in the reference's first block), so
    # a run of its scope reaches it within the span (the fault shows in eldorado too)
    ("robots",),
    # the soak's play through to a top tier, over a span that reaches it beside the other
    # play checks of its scope (scripts/strength_table.py keeps a soak variant's own span)
    settings={"top_tier_units": 2_000_000, "player_span_s": 180},
    soak=True,  # a top-tier unit is bought on purpose in a soak only: tests/faulty/test_soak.py
)


# -- the fourth red team's faults (tests/faulty/_round4_faults.py) ----------------------------
for _name, _cls in (
    ("play_created_at_account_opened", r4.CreatedAtAccountOpened),
    ("play_created_at_last_activity", r4.CreatedAtLastActivity),
    ("play_created_at_paris_as_utc", r4.CreatedAtParisAsUtc),
):
    _service(_name, "play", "contract 4", _cls, ["play.history.created_at"], ("robots",))
_service(
    "play_history_archive_prize_zero",
    "play",
    "robots 4.1",
    r4.HistoryArchivePrizeZero,
    ["play.history.complete", "*.history_unrevealed"],
    ("robots",),
    settings={"old_account_plays": 400},  # the full profile's: past its newest 100
)
_service(
    "play_auto_archived_wins_empty",
    "play",
    "contract 4",
    r4.AutoArchivedWinsEmpty,
    ["play.auto.answer"],
    ("robots",),
    soak=True,  # AUTO sent again minutes after: tests/faulty/test_round4.py
)
_service(
    "play_wear_out_after_300_plays",
    "play",
    "robots 4.10",
    r4.WearOutAfter300Plays,
    ["*.prize_credited"],
    ("robots",),
    settings={"old_account_plays": 400},  # the full profile's: an account of 300 plays
)
_service(
    "play_every_1000th_lot_lost",
    "play",
    "robots 4.10",
    r4.EveryThousandthLotLost,
    ["*.prize_credited", "play.money.exact"],
    ("robots",),
    # the full profile's play through to unit 12 000: a dozen 1 000th plays, each judged
    settings={"deep_units": 12000, "deep_budget_s": 300},
)
_service(
    "play_credit_lands_late",
    "play",
    "contract 4",
    r4.CreditLandsLate,
    # a play of the account within the seconds (the overlap rounds') finds the lot missing
    [
        "play.money.balance_read",
        "play.money.exact",
        "*.prize_credited",
        "play.money.concurrent_one_account",
    ],
    ("robots",),
)
_service(
    "play_old_account_wins_queued",
    "play",
    "robots 4.10",
    r4.OldAccountWinsQueued,
    ["*.prize_credited"],
    ("robots",),
    soak=True,  # an account over a minute old: tests/faulty/test_round4.py
)
_service(
    "play_lone_account_wins_queued",
    "play",
    "robots 4.10",
    r4.LoneAccountWinsQueued,
    ["*.prize_credited"],
    ("robots",),
    soak=True,  # an account opened alone, long after the burst of a run's start
)
_service(
    "play_half_euro_stake_cents_dropped",
    "play",
    "eldorado 4.6",
    r4.HalfEuroStakeCentsDropped,
    ["eldorado.4.6.prize_credited", "play.money.exact"],
    ("eldorado",),
)
_add(
    "http_app_traffic_wins_queued",
    "play",
    "robots 4.10",
    ["*.prize_credited"],
    r4.app_tagged_variant,
    r4.AppTrafficWinsQueued.__doc__,
    ("robots",),
)
_service(
    "play_history_index_int16",
    "play",
    "robots 4.1",
    r4.HistoryIndexInt16,
    ["*.history_unrevealed"],
    ("robots",),
    # a unit past 32 767: the soak's deep_units (100 000) reach it, and 40 000 do
    settings={"deep_units": 40000, "deep_budget_s": 600},
    soak=True,  # the soak's play through (full stops at 12 000); test_round4.py scales it
)
_service(
    "play_balance_read_cached",
    "play",
    "contract 4",
    r4.BalanceReadCached,
    ["play.money.balance_read"],
    ("robots",),
)
_service(
    "play_deposit_wins_queued",
    "play",
    "robots 4.10",
    r4.DepositWinsQueued,
    ["*.prize_credited"],
    ("robots",),
)
_service(
    "play_top_stake_lot_table_first_units",
    "play",
    "eldorado 4.6",
    r4.TopStakeLotTableFirstUnits,
    ["eldorado.4.6.prize_credited"],
    ("eldorado",),
    settings={"top_lot_units": 12000},  # the full profile's: plays past unit 4 096 at 2 EUR
)
_service(
    "play_history_archive_created_at",
    "play",
    "contract 4",
    r4.HistoryArchiveCreatedAt,
    ["play.history.created_at"],
    ("robots",),
    settings={"old_account_plays": 400},  # the full profile's: past its newest 100
)
_service(
    "play_eldorado_ticket_column_40",
    "play",
    "eldorado 4.2",
    r4.EldoradoTicketColumn40,
    ["eldorado.4.2.history_unrevealed"],
    ("eldorado",),
)


# -- the fifth red team's faults (tests/faulty/_round5_faults.py) -----------------------------
_service(
    "play_audit_quiet_wins_queued",
    "play",
    "robots 4.10",
    r5.AuditQuietWinsQueued,
    ["*.prize_credited", "play.money.exact"],  # the lot not credited at once
    ("robots",),
    soak=True,  # a full run's plays all come while its audits run: tests/faulty/test_round5.py
)
_service(
    "play_wins_queued_past_1000_accounts",
    "play",
    "robots 4.10",
    r5.WinsQueuedPastThousandAccounts,
    ["*.prize_credited", "play.money.exact"],  # the lot not credited at once
    ("robots",),
    # a run of more than 1 000 accounts (the full profile's: 2 000 and more) before its end
    settings={"token_sample": 1100, "player_span_s": 10},
)
_service(
    "play_every_100th_play_free",
    "play",
    "robots 4.1",
    r5.EveryHundredthPlayFree,
    ["*.stake_debited", "play.money.exact"],
    ("robots",),
)
_service(
    "play_emptied_account_lot_lost",
    "play",
    "robots 4.10",
    r5.EmptiedAccountLotLost,
    ["*.prize_credited"],
    ("robots",),
)
_service(
    "play_reveal_session_per_account",
    "play",
    "robots 4.3",
    r5.RevealSessionPerAccount,
    ["robots.4.3.reveal_symbols", "play.reveal.answer"],
    ("robots",),
)
_service(
    "play_half_revealed_sibling_lot_held",
    "play",
    "robots 4.10",
    r5.HalfRevealedSiblingLotHeld,
    ["*.prize_credited"],
    ("robots",),
)
_service(
    "play_isolation_only_when_cached",
    "play",
    "contract 4",
    r5.IsolationOnlyWhenCached,
    ["security.tokens.isolation"],
    ("robots",),
    settings={"token_sample": 300},  # 256 accounts and more opened in the span (the full's)
)
_service(
    "play_resumed_ticket_plus_one_lost",
    "play",
    "robots 4.7",
    r5.ResumedTicketPlusOneLost,
    ["robots.4.7.reveal_plus_one"],
    ("robots",),
)
_service(
    "play_exhausted_click_answered_200",
    "play",
    "robots 4.7",
    r5.ExhaustedClickAnswered200,
    ["robots.4.7.reveal_plus_one", "protocol.refusals.status"],
    ("robots",),
)
_service(
    "play_history_same_ms_ties",
    "play",
    "contract 4",
    r5.HistorySameMillisecondTies,
    ["play.history.order"],
    ("robots",),
)
_service(
    "play_history_same_second_ties",
    "play",
    "contract 4",
    r5.HistorySameSecondTies,
    ["play.history.order"],
    ("robots",),
)
_service(
    "play_history_limit_per_game",
    "play",
    "contract 4",
    r5.HistoryLimitPerGame,
    ["play.history.limit"],
)
_service(
    "play_eldorado_rare_tier_typo",
    "play",
    "eldorado 4.6",
    r5.EldoradoRareTierTypo,
    ["eldorado.4.6.prize_credited"],
    ("eldorado",),
    settings={"top_lot_units": 12000},  # the full profile's: 12 000 units played through
)
_add(
    "eldorado_evaluation_cache_without_stake",
    "eldorado_rules",
    "eldorado 4.4",
    ["eldorado.4.4.paytable", "eldorado.4.evaluation", "eldorado.4.5.extra_same_stake"],
    lambda n: service_variant(f"faulty:{n}", r5.EvaluationCacheWithoutStake),
    r5.EvaluationCacheWithoutStake.__doc__,
    ("eldorado",),
)
_add(
    "http_acceptless_traffic_wins_queued",
    "play",
    "robots 4.10",
    ["*.prize_credited", "play.money.exact"],  # the lot not credited at once
    r5.acceptless_variant,
    r5.AcceptlessTrafficWinsQueued.__doc__,
    ("robots",),
)
_add(
    "http_header_order_wins_queued",
    "play",
    "robots 4.10",
    ["*.prize_credited", "play.money.exact"],  # the lot not credited at once
    r5.header_order_variant,
    r5.HeaderOrderWinsQueued.__doc__,
    ("robots",),
)

# -- the sixth red team's faults (tests/faulty/_round6_faults.py) -----------------------------
_service(
    "play_lot_at_favourite_stake",
    "play",
    "eldorado 4.6",
    r6.LotAtFavouriteStake,
    ["eldorado.4.6.prize_credited", "play.money.exact"],
    ("eldorado",),
)
_service(
    "play_settled_game_switch_lot_lost",
    "play",
    "robots 4.10",
    r6.SettledGameSwitchLotLost,
    ["*.prize_credited", "play.money.exact"],
)
_service(
    "play_residue_under_stake_lot_lost",
    "play",
    "robots 4.10",
    r6.ResidueUnderStakeLotLost,
    ["*.prize_credited", "play.money.exact"],  # money: an odd balance's play, when it wins
    ("robots",),
)
_service(
    "play_typed_deposit_wins_queued",
    "play",
    "robots 4.10",
    r6.TypedDepositWinsQueued,
    ["*.prize_credited", "play.money.exact"],
    ("robots",),
)
_service(
    "play_app_history_unfinished_prize_zero",
    "play",
    "robots 4.1",
    r6.AppHistoryUnfinishedPrizeZero,
    ["*.history_unrevealed"],
)
_service(
    "play_top_stake_extra_grids_at_one_euro",
    "play",
    "eldorado 4.5",
    r6.TopStakeExtraGridsAtOneEuro,
    ["eldorado.4.6.prize_credited", "play.money.exact"],
    ("eldorado",),
)

# -- the seventh red team's faults (tests/faulty/_round7_faults.py) ---------------------------
_service(
    "play_new_pair_after_pause_lot_lost",
    "play",
    "robots 4.10",
    r7.NewPairAfterPauseLotLost,
    ["*.prize_credited", "play.money.exact"],
    settings={"player_span_s": 15},  # pairs changed at a person's pace (the full profile's 30 s)
)
_service(
    "play_balance_read_late_misses_lot",
    "play",
    "contract 4",
    r7.BalanceReadLateMissesLot,
    ["play.money.balance_read"],
    ("robots",),
)
_service(
    "play_unseen_eldorado_lot_swept",
    "play",
    "eldorado 4.6",
    r7.UnseenEldoradoLotSwept,
    ["eldorado.4.6.prize_credited", "play.money.exact", "play.money.balance_read"],
    ("eldorado",),
    settings={"player_span_s": 15},  # past the sweeper's 10 s (the full profile's 30 s is)
)
_service(
    "play_resumed_auto_credits_again",
    "play",
    "robots 4.10",
    r7.ResumedAutoCreditsAgain,
    ["robots.4.10.prize_credited", "play.money.exact"],
    ("robots",),
    settings={"player_span_s": 15},  # tickets put down at a person's pace (the full's 30 s)
)

# -- the eighth red team's faults (tests/faulty/_round8_faults.py) ----------------------------
_service(
    "play_two_pairs_at_once_lost_update",
    "play",
    "contract 4",
    r8.TwoPairsAtOnceLostUpdate,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_auto_writes_back_stale_balance",
    "play",
    "contract 4",
    r8.AutoWritesBackStaleBalance,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_click_writes_back_stale_balance",
    "play",
    "contract 4",
    r8.ClickWritesBackStaleBalance,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_balance_read_mid_play_misses_lot",
    "play",
    "contract 4",
    r8.BalanceReadMidPlayMissesLot,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_clicked_to_end_credited_again",
    "play",
    "robots 4.10",
    r8.ClickedToEndCreditedAgain,
    ["robots.4.10.prize_credited", "play.money.exact"],
    ("robots",),
)
_service(
    "play_hand_revealed_history_prize_zero",
    "play",
    "robots 4.1",
    r8.HandRevealedHistoryPrizeZero,
    ["robots.4.1.history_unrevealed"],
    ("robots",),
)
_service(
    "play_history_small_page_cached",
    "play",
    "contract 4",
    r8.HistorySmallPageCached,
    ["play.history.limit", "play.history.complete", "*.last_unit"],
)
_service(
    "play_half_revealed_lot_hidden_from_reads",
    "play",
    "contract 4",
    r8.HalfRevealedLotHiddenFromReads,
    ["play.money.balance_read", "play.money.concurrent_one_account"],
    ("robots",),
)

# -- the ninth red team's faults (tests/faulty/_round9_faults.py) -----------------------------
_service(
    "play_regular_two_tabs_lost_update",
    "play",
    "contract 4",
    r9.RegularTwoTabsLostUpdate,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_regular_read_mid_play_misses_lot",
    "play",
    "contract 4",
    r9.RegularReadMidPlayMissesLot,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_regular_auto_writes_back_stale_balance",
    "play",
    "contract 4",
    r9.RegularAutoWritesBackStaleBalance,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_lease_expires_mid_win_lost_update",
    "play",
    "contract 4",
    r9.LeaseExpiresMidWinLostUpdate,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_balance_cache_filled_mid_play",
    "play",
    "contract 4",
    r9.BalanceCacheFilledMidPlay,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_history_cache_filled_mid_play",
    "play",
    "contract 4",
    r9.HistoryCacheFilledMidPlay,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_history_screen_cache_filled_mid_play",
    "play",
    "contract 4",
    r9.HistoryScreenCacheFilledMidPlay,
    ["play.money.concurrent_one_account"],
)

# -- the tenth red team's faults (tests/faulty/_round10_faults.py) -----------------------------
_service(
    "play_cold_account_burst_lost_update",
    "play",
    "contract 4",
    r10.ColdAccountBurstLostUpdate,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_click_beside_auto_reopens_buttons",
    "play",
    "robots 4.4",
    r10.ClickBesideAutoReopensButtons,
    ["robots.4.4.auto_any_moment"],
    ("robots",),
)
_service(
    "play_double_auto_answers_empty_settlement",
    "play",
    "contract 4",
    r10.DoubleAutoAnswersEmptySettlement,
    ["play.auto.answer"],
)
_service(
    "play_young_account_lease_lost_update",
    "play",
    "contract 4",
    r10.YoungAccountLeaseLostUpdate,
    ["play.money.concurrent_one_account"],
)

# -- the eleventh red team's faults (tests/faulty/_round11_faults.py) --------------------------
_service(
    "play_long_idle_burst_lost_update",
    "play",
    "contract 4",
    r11.LongIdleBurstLostUpdate,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_old_ticket_double_auto_empty_settlement",
    "play",
    "contract 4",
    r11.OldTicketDoubleAutoEmptySettlement,
    ["play.auto.answer"],
)
_service(
    "play_long_quiet_read_misses_lot",
    "play",
    "contract 4",
    r11.LongQuietReadMissesLot,
    ["play.money.balance_read"],
)
_service(
    "play_history_second_page_one_late",
    "play",
    "contract 4",
    r11.HistorySecondPageOneLate,
    ["play.history.limit"],
)
_add(
    "http_query_string_unguarded",
    "play",
    "contract 4",
    ["security.paths.guarded"],
    wf.vendor_http_variant(r11.guard_on_request_target),
    r11.guard_on_request_target.__doc__,
    ("robots",),
)

# -- the twelfth red team's faults (tests/faulty/_round12_faults.py) ---------------------------
_service(
    "play_heavy_cold_session_burst_lost_update",
    "play",
    "contract 4",
    r12.HeavyColdSessionBurstLostUpdate,
    ["play.money.concurrent_one_account"],
)
_service(
    "play_heavy_old_ticket_double_auto_empty_settlement",
    "play",
    "contract 4",
    r12.HeavyOldTicketDoubleAutoEmptySettlement,
    ["play.auto.answer"],
)
_service(
    "play_history_recent_set_ties_by_play_id",
    "play",
    "contract 4",
    r12.RecentSetTiesByPlayId,
    ["play.history.order", "play.history.limit"],
)
# -- the twelfth red team's vendors that know the harness (tests/faulty/_round12_seen_faults.py) --
_add(
    "http_other_clients_wins_queued",
    "play",
    "robots 4.10",
    ["*.prize_credited", "play.money.exact"],  # the lot not credited at once
    r12s.other_clients_variant,
    r12s.OtherClientsWinsQueued.__doc__,
    ("robots",),
)
_add(
    "http_play_keys_in_another_order_at_default_stake",
    "play",
    "contract 4",
    ["eldorado.2.stakes", "eldorado.4.6.prize_credited", "play.money.exact", "*.stake_debited"],
    r12s.key_order_variant,
    r12s.KeyOrderScanner.__doc__,
    ("eldorado",),
)
_add(
    "http_app_bodies_cookie_over_bad_bearer",
    "play",
    "contract 4",
    ["security.tokens.bearer_only"],
    r12s.app_body_cookie_variant,
    r12s.cookie_first_for_app_bodies.__doc__,
    ("robots",),
)
_add(
    "http_token_checked_once_per_connection",
    "play",
    "contract 4",
    ["security.tokens.required", "security.tokens.isolation"],
    r12s.connection_identity_variant,
    r12s.ConnectionBoundIdentity.__doc__,
    ("robots",),
)

# -- the thirteenth red team's faults, where a run's traffic did not go
#    (tests/faulty/_round13_surface_faults.py, tests/faulty/surface.py) ------------------------
_service(
    "play_later_stakes_token_of_any_account",
    "play",
    "contract 4",
    r13s.LaterStakesTokenOfAnyAccount,
    ["security.tokens.isolation"],
    games=("eldorado",),
)
_service(
    "play_history_page_trimmed_at_its_limit",
    "play",
    "contract 4",
    r13s.HistoryPageTrimmedAtItsLimit,
    # one play listed with limit 1 shows none: the last unit not in the history (robots 4.1)
    ["play.history.complete", "play.history.limit", "*.last_unit"],
)

_add(
    "evaluate_later_stakes_batch_size_unchecked",
    "eldorado_rules",
    "contract 4",
    ["evaluate.refusals.status"],
    lambda n: service_variant(f"faulty:{n}", r13s.LaterStakesBatchSizeUnchecked),
    r13s.LaterStakesBatchSizeUnchecked.__doc__,
    ("eldorado",),
)

# -- a history limit of the target's own hiding a fault (tests/faulty/_own_limit_faults.py) ----
_service(
    "play_history_cap_under_own_limit",
    "play",
    "contract 4",
    olf.HistoryCapUnderOwnLimit,
    ["play.history.complete"],
)
_service(
    "play_history_limit_floor",
    "play",
    "contract 4",
    olf.HistoryLimitFloor,
    ["play.history.limit"],
)
_service(
    "play_history_limit_max_5",
    "play",
    "contract 4",
    olf.HistoryLimitMaxFive,
    ["play.history.limit"],
)

# -- old, deep and late: ages a profile claimed and did not reach (tests/faulty/_late_faults.py) --
#: the full profile's old accounts (each play judged): what the two faults of an account's age
#: need to show, and the profile that claims to cover them
FULL_OLD = {"old_account_plays": load_profile("full")["old_account_plays"]}
#: a play through to the block's end when it lies within the soak's deep_budget_s (the full
#: profile's depth: the block end is what these faults need)
SOAK_DEEP = {
    "deep_units": load_profile("full")["deep_units"],
    "deep_budget_s": load_profile("soak")["deep_budget_s"],
}
_service(
    "play_wins_queued_past_512_plays",
    "play",
    "robots 4.10",
    lf.WinsQueuedPast512Plays,
    ["*.prize_credited", "play.money.exact"],
    ("robots",),
    settings=FULL_OLD,
)
_service(
    "play_history_prize_zero_past_500_entries",
    "play",
    "robots 4.1",
    lf.HistoryPrizeZeroPast500Entries,
    ["*.history_unrevealed"],
    ("robots",),
    settings=FULL_OLD,
)
_service(
    "play_auto_prize_zero_past_500_plays",
    "play",
    "contract 4",
    lf.AutoPrizeZeroPast500Plays,
    ["play.auto.answer"],
    ("robots",),
    settings=FULL_OLD,
)
_service(
    "play_next_block_first_units_lot_lost",
    "play",
    "robots 4.10",
    lf.NextBlockFirstUnitsLotLost,
    ["*.prize_credited", "play.money.exact"],
    ("robots",),
    settings=SOAK_DEEP,
)
_service(
    "play_block_tail_wins_queued",
    "play",
    "robots 4.10",
    lf.BlockTailWinsQueued,
    ["*.prize_credited", "play.money.exact"],
    ("robots",),
    settings=SOAK_DEEP,
)
# -- the thirteenth red team's faults (tests/faulty/_round13_faults.py): a player's pace -------
_service(
    "play_slow_tap_buttons_transposed",
    "play",
    "robots 4.3",
    r13.SlowTapButtonsTransposed,
    # a click's answer not the ticket's: the reveal rule, or the order rule when the ticket's
    # clicks were not buttons in turn (a paced player's), as reveal.revealed_on names them
    ["robots.4.3.reveal_symbols", "robots.4.4.reveal_order", "robots.4.7.reveal_plus_one"],
    ("robots",),
)
_service(
    "play_quiet_account_listing_from_replica",
    "play",
    "contract 4",
    r13.QuietAccountListingFromReplica,
    ["play.history.complete", "play.history.limit", "*.last_unit"],
)
_service(
    "block_slow_reader_page_repeated",
    "blocks",
    "contract 3",
    r13.SlowReaderPageRepeated,
    ["blocks.contract3.slice"],
)

# -- the fourteenth red team's faults (tests/faulty/_round14_faults.py): what the suite never
#    did (a block read before its units were sold, tied to the sale; the Bearer scheme spelled
#    otherwise; the tokens of accounts opened with money) ------------------------------------
_service(
    "play_sold_units_from_another_draw",
    "play",
    "contract 4",
    r14.SalesFromAnotherDraw,
    ["play.sales.block_unit"],
)
_add(
    "http_bearer_spelled_otherwise_legacy_key",
    "play",
    "contract 4",
    ["security.tokens.isolation"],
    r14.scheme_variant(legacy=True),
    r14.BearerSpelledOtherwiseLegacyKey.__doc__,
    ("robots",),
)
_service(
    "play_funded_accounts_clock_tokens",
    "play",
    "contract 4",
    r14.FundedAccountsClockTokens,
    ["security.tokens.unguessable"],
)

# -- the fifteenth red team's faults (tests/faulty/_round15_faults.py): shapes of the suite's
#    traffic a vendor could key on (an account used from one device only; a history read at
#    a player's pace a page of 10 or none) ----------------------------------------------------
_add(
    "http_second_device_wins_queued",
    "play",
    "robots 4.10",
    # the lot not credited at once: a play's answer, or a balance read beside it
    ["*.prize_credited", "play.money.exact", "play.money.concurrent_one_account"],
    r15.device_variant(r15.SecondDeviceWinsQueued),
    r15.SecondDeviceWinsQueued.__doc__,
    ("robots",),
)
_service(
    "play_history_load_more_pages_cached",
    "play",
    "contract 4",
    r15.LoadMorePagesCached,
    ["play.history.limit", "play.history.complete", "*.last_unit"],
)
_service(
    "play_idle_token_opens_any_account",
    "play",
    "contract 4",
    r15.IdleTokenOpensAnyAccount,
    ["security.tokens.isolation"],
)
_service(
    "play_idle_account_wins_queued",
    "play",
    "robots 4.10",
    r15.IdleAccountWinsQueued,
    ["*.prize_credited", "play.money.exact"],
)
