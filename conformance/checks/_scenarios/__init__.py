"""Play scenarios (contract section 4, robots 4.1-4.10, eldorado 4.2/4.6): each one buys a few
units on a target, watches what the target says, and judges it.

A scenario is a plain function ``scenario(session, case) -> Evidence | None``: ``case`` is the
evidence input itself (``{"kind": "play", "scenario": ..., ...}``), so the checks in ``play.py``
and ``security.py`` and the ``play`` replayer run exactly the same code, and a counterexample
found by a check is replayed by handing its input back. Every play buys a fresh unit of the
block on sale, so a replay meets other units than the first run: it re-runs the situation
(same game, stake, click choices, number of plays), not the same ticket.

Where a scenario needs the ticket a play bought, it takes the history's entry read right after
the purchase (robots 4.1: there at once, before any reveal), else the served block's unit, else
the ticket AUTO shows: so one fault (a history hiding unrevealed plays, say) does not make
other requirements fail too.

The package's modules: ``client`` (the ``Session`` on a target and the helpers that read its
answers), ``observe`` (plays observed for the money scenarios), ``clicks`` (clicking the
buttons of any game that has some, as its engine describes them), then one module per area:
``money``, ``sales``, ``refusals``, ``history``, ``tokens``, and the reveal protocol's
``reveal`` (the click order), ``reveal_at_once`` (clicks sent together), ``plus_one`` and
``auto_midway``. This module holds the ``SCENARIOS`` registry and re-exports every public
name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..._evidence import PlayEvidence, ReplayError
from ..._registry import Evidence
from ..._replay import replayer
from .auto_midway import scenario_auto
from .clicks import (
    Walk,
    game_of,
    misreported,
    recording_chooser,
    requirements_of,
    reveal_case,
    walk,
)
from .client import (
    KIND,
    MAX_CLICKS,
    OWN_LIMITS,
    REVEAL_ANSWER,
    SENDABLE_TOKEN,
    Account,
    Case,
    Chooser,
    Document,
    Session,
    case_of,
    credit_requirement,
    evidence,
    ref_prize,
    refused,
    reply_doc,
    reveal_symbols,
    reveal_tuple,
    ticket_buttons,
    token_fault,
)
from .deep import scenario_deep
from .history import (
    scenario_history_unrevealed,
)
from .money import (
    scenario_money_exact,
    scenario_prize_credited,
    scenario_stake_debited,
    scenario_top_lot,
)
from .observe import (
    EVERY_KIND_CAP,
    Observed,
    Quota,
    observe_accounts,
    observe_plays,
    read_lag_of,
)
from .players import scenario_players
from .plus_one import scenario_plus_one
from .refusals import (
    HUGE_STAKE_FUNDS,
    SMALLER_FUNDS,
    invalid_requests,
    near_misses,
    scenario_insufficient_funds,
    scenario_invalid,
)
from .reveal import scenario_reveal_order, scenario_reveal_resumed
from .reveal_at_once import CONCURRENT_CLICKS, scenario_reveal_concurrent
from .sales import (
    concurrent_sales,
    in_threads,
    scenario_auto_answer,
    scenario_block_order,
    scenario_block_unit,
    scenario_concurrent,
)
from .tokens import (
    scenario_account_token,
    scenario_cross_account,
    scenario_no_token,
)

Scenario = Callable[[Session, Case], Evidence | None]

SCENARIOS: dict[str, Scenario] = {
    "stake_debited": scenario_stake_debited,
    "prize_credited": scenario_prize_credited,
    "top_lot": scenario_top_lot,
    "money_exact": scenario_money_exact,
    "history_unrevealed": scenario_history_unrevealed,
    "block_order": scenario_block_order,
    "block_unit": scenario_block_unit,
    "concurrent": scenario_concurrent,
    "insufficient_funds": scenario_insufficient_funds,
    "invalid": scenario_invalid,
    "reveal_order": scenario_reveal_order,
    "reveal_concurrent": scenario_reveal_concurrent,
    "reveal_resumed": scenario_reveal_resumed,
    "plus_one": scenario_plus_one,
    "auto": scenario_auto,
    "auto_answer": scenario_auto_answer,
    "no_token": scenario_no_token,
    "cross_account": scenario_cross_account,
    "account_token": scenario_account_token,
    "players": scenario_players,
    "deep": scenario_deep,
}


@replayer(PlayEvidence.KIND)
def replay_play(adapter: Any, case: Mapping[str, Any]) -> Evidence | None:
    """The ``play`` replayer: run the case's scenario again (fresh units, same situation and
    click choices)."""
    scenario = SCENARIOS.get(case.get("scenario"))  # type: ignore[arg-type]
    if scenario is None:
        raise ReplayError(
            f"play evidence names scenario {case.get('scenario')!r}; known: "
            f"{', '.join(sorted(SCENARIOS))}"
        )
    try:
        return scenario(Session.of(adapter), case)
    except KeyError as exc:
        raise ReplayError(
            f"play evidence {case.get('scenario')!r} lacks {exc}: {dict(case)!r}"
        ) from None


__all__ = [
    "CONCURRENT_CLICKS",
    "EVERY_KIND_CAP",
    "HUGE_STAKE_FUNDS",
    "KIND",
    "MAX_CLICKS",
    "OWN_LIMITS",
    "REVEAL_ANSWER",
    "SCENARIOS",
    "SENDABLE_TOKEN",
    "SMALLER_FUNDS",
    "Account",
    "Case",
    "Chooser",
    "Document",
    "Observed",
    "Quota",
    "Scenario",
    "Session",
    "Walk",
    "case_of",
    "concurrent_sales",
    "credit_requirement",
    "evidence",
    "game_of",
    "in_threads",
    "invalid_requests",
    "misreported",
    "near_misses",
    "observe_accounts",
    "observe_plays",
    "read_lag_of",
    "recording_chooser",
    "ref_prize",
    "refused",
    "replay_play",
    "reply_doc",
    "requirements_of",
    "reveal_case",
    "reveal_symbols",
    "reveal_tuple",
    "scenario_account_token",
    "scenario_auto",
    "scenario_block_order",
    "scenario_block_unit",
    "scenario_concurrent",
    "scenario_cross_account",
    "scenario_deep",
    "scenario_history_unrevealed",
    "scenario_insufficient_funds",
    "scenario_invalid",
    "scenario_money_exact",
    "scenario_no_token",
    "scenario_players",
    "scenario_plus_one",
    "scenario_prize_credited",
    "scenario_reveal_concurrent",
    "scenario_reveal_order",
    "scenario_reveal_resumed",
    "scenario_stake_debited",
    "scenario_top_lot",
    "ticket_buttons",
    "token_fault",
    "walk",
]
