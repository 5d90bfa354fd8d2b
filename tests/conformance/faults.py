"""The rules faults the rules checks' tests run (tests/conformance/test_rules_checks.py).

Each is a deliberately broken evaluator of the faulty kit (``tests/faulty/_faults.py``, where
each class's docstring names its fault) behind an evaluate-only adapter. ``FAULTS`` maps a
fault's name to (game, the requirement it breaks, the evaluator class). ``factory(name)``
builds an adapter; ``python:tests.conformance.faults:<name>`` works as a ``--target``.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.faulty import _faults as f
from tests.faulty._base import EvaluateOnlyAdapter
from tests.faulty._evaluator import EldoradoEvaluator, RobotsEvaluator

Evaluator = type[RobotsEvaluator] | type[EldoradoEvaluator]

FAULTS: dict[str, tuple[str, str, Evaluator]] = {
    "x2_once": ("robots", "robots.4.6.x2", f.X2CountedOnce),
    "plus_ignored": ("robots", "robots.4.7.plus_one_reveal", f.PlusOneRevealIgnored),
    "x2_whole_button": ("robots", "robots.4.6.x2", f.X2DoublesWholeButton),
    "notch_short": ("robots", "robots.4.8.gauge_full", f.GaugeOneShort),
    "robots_highest_only": ("robots", "robots.4.9.several_gauges", f.OnlyHighestGain),
    "table_positions": ("robots", "robots.4.2.robot_positions", f.RobotIndexCanonical),
    "circle_600": ("robots", "robots.4.8.amounts", f.CircleAmountTypo),
    "last_button_ignored": ("robots", "robots.4.3.every_button", f.LastButtonIgnored),
    "prize_is_max": ("robots", "robots.4.10.one_lot", f.PrizeIsHighestGain),
    "twice_past_double": ("robots", "robots.4.8.gauge_capped", f.GaugeWinsPerFill),
    "five_plus_four": ("eldorado", "eldorado.4.4.five_pays_once", f.FivePaidAsFivePlusFour),
    "adjacent_only": ("eldorado", "eldorado.4.4.not_adjacent", f.AdjacentOnly),
    "extra_pays": ("eldorado", "eldorado.4.5.extra_pays_nothing", f.ExtraPaysAsSymbol),
    "main_grid_only": ("eldorado", "eldorado.4.5.extra_stage", f.ExtraGridsIgnored),
    "main_granted_only": ("eldorado", "eldorado.4.5.extra_in_extra", f.ExtraInExtraIgnored),
    "extra_at_one_euro": ("eldorado", "eldorado.4.5.extra_same_stake", f.ExtraAtOneEuro),
    "round_750": ("eldorado", "eldorado.4.4.paytable", f.SevenFiftyRoundedUp),
    "eldorado_highest_only": (
        "eldorado",
        "eldorado.4.4.combinations_add",
        f.EldoradoOnlyHighestGain,
    ),
    "last_cell_ignored": ("eldorado", "eldorado.4.3.every_cell", f.LastCellIgnored),
    "robots_accepts_19_buttons": (
        "robots",
        "robots.4.3.invalid_buttons",
        f.NineteenButtonsAccepted,
    ),
    "eldorado_accepts_surplus_grid": (
        "eldorado",
        "eldorado.4.5.invalid_extra_grids",
        f.SurplusGridAccepted,
    ),
}


class FaultyAdapter(EvaluateOnlyAdapter):
    """An evaluate-only target: the reference, except for one game's faulty evaluator."""

    def __init__(self, fault: str) -> None:
        game, self.requirement, evaluator = FAULTS[fault]
        super().__init__(f"faulty:{fault}", evaluator())
        assert self.game == game, (fault, game)


def factory(fault: str) -> FaultyAdapter:
    return FaultyAdapter(fault)


def __getattr__(name: str) -> Callable[[], FaultyAdapter]:
    """``python:tests.conformance.faults:<fault>``: a zero-argument factory for each fault."""
    if name in FAULTS:
        return lambda: FaultyAdapter(name)
    raise AttributeError(name)
