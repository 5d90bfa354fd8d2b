"""The conformance kit of Le Retour des Robots: strategies and invalid kinds from
``conformance.strategies``, the probe classifier of ``checks/_classify.py``, the articles its
play faults break, the board drawing of the HTML report and the block audit's kernel.

Its own checks (``checks/robots_rules.py``, the robots relations of ``checks/metamorphic.py``)
are registered with the check modules; the reveal checks (``checks/play_reveal.py``,
``checks/reveal_answer.py``) play its 18 buttons as its engine describes them, under the
reveal requirements named here (``reveals``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import reference
import reference.robots

from .._compiled import fastaudit
from .._lazy import LazyModule, strategies_module, suite_strategies
from ..checks._robots_relations import RELATIONS
from . import Escape, GameKit, RevealRequirements, register_kit, shipped_data, sweep
from ._boards import euros, shape_svg
from ._robots_invalid import ROBOTS_INVALID_EXAMPLES, ROBOTS_INVALID_KINDS
from ._robots_kernel import robots_chunk, robots_prizes, robots_tables

if TYPE_CHECKING:
    from hypothesis import strategies as st

    from . import _robots_strategies as S
else:  # imported on first use (conformance._lazy): a run of block checks never needs them
    st = strategies_module()
    S = suite_strategies("conformance.games._robots_strategies")

_DATA = shipped_data()
CLASSIFY = LazyModule("conformance.checks._robots_classify")
"""The probe classifier (``checks/_robots_classify.py``), imported when a check first diagnoses
a disagreement: a block audit loads the kits, never it (start-up, issue 32)."""
GENERAL_REQUIREMENT = "robots.4.evaluation"
"""``_robots_classify.ROBOTS_GENERAL`` (held equal in tests/conformance/test_game_kits)."""


def _invalid(kinds: Sequence[str]) -> st.SearchStrategy[tuple[str, str]]:
    return S.robots_invalid_tickets(kinds=tuple(kinds))


def _robot_wins(result: object) -> set[int] | None:
    """The robots a result says win; None if it is not an evaluation result."""
    if not isinstance(result, Mapping) or not isinstance(result.get("wins"), list):
        return None
    return {
        w["robot"] for w in result["wins"] if isinstance(w, Mapping) and type(w.get("robot")) is int
    }


def board(ticket: str, expected: object, got: object, stake_cents: object, escape: Escape) -> str:
    """The row of 8 robots (symbol, gauge notches filled, amount) over the 18 buttons with
    their reveals, X2 and +1 marks; a robot ``got`` wrongly says wins (or misses) is marked."""
    rules = reference.robots.robots_rules()
    claimed = _robot_wins(got)
    parsed = reference.parse_ticket("robots", ticket)
    assert isinstance(parsed, reference.robots.RobotsTicket)
    notches: dict[str, int] = {s.letter: 0 for s in rules.symbols}
    for button in parsed.buttons:
        for reveal in button:
            notches[reveal.symbol] += 2 if reveal.x2 else 1
    robots = []
    for position, letter in enumerate(parsed.robots):
        symbol = rules.symbol(letter)
        filled = min(notches[letter], symbol.gauge_notches)
        full = notches[letter] >= symbol.gauge_notches
        gauge = "".join(
            f'<span class="notch{" on" if k < filled else ""}"></span>'
            for k in range(symbol.gauge_notches)
        )
        over = notches[letter] - symbol.gauge_notches
        extra = f'<span class="over">+{over}</span>' if over > 0 else ""
        marks = " full" if full else ""
        if claimed is not None and full != (position in claimed):
            marks += " missed" if full else " claimed"
        robots.append(
            f'<div class="robot{marks}" title="{escape(symbol.english)}: '
            f'{notches[letter]} of {symbol.gauge_notches} notches">'
            f"{shape_svg(symbol.name, escape)}"
            f'<div class="gauge">{gauge}{extra}</div>'
            f'<div class="amount">{euros(symbol.amount_cents)}</div></div>'
        )
    buttons = []
    for n, button in enumerate(parsed.buttons):
        reveals = []
        for reveal in button:
            marks = '<span class="x2">X2</span>' if reveal.x2 else ""
            marks += '<span class="plus">+1</span>' if reveal.plus_one else ""
            reveals.append(
                f'<span class="reveal">{shape_svg(rules.symbol(reveal.symbol).name, escape, 18)}'
                f"{marks}</span>"
            )
        buttons.append(f'<div class="button"><span class="bn">{n}</span>{"".join(reveals)}</div>')
    return (
        f'<div class="robots-unit"><div class="robots">{"".join(robots)}</div>'
        f'<div class="buttons">{"".join(buttons)}</div></div>'
    )


CSS = """.robots{display:flex;gap:6px;flex-wrap:wrap;margin:8px 0}
.robot{background:#f2f4f8;border:2px solid #ccd;border-radius:8px;padding:6px;width:82px;
text-align:center}
.robot.full{border-color:var(--pass);background:#e6f4e7}
.robot.claimed{border-color:var(--fail);background:#fde7e7}
.robot.missed{outline:3px dashed var(--fail)}
.gauge{display:flex;gap:2px;justify-content:center;margin:4px 0;align-items:center}
.notch{width:8px;height:12px;border:1px solid #778;border-radius:2px;background:#fff}
.notch.on{background:#f0b400;border-color:#a07800}
.over{font-size:11px;color:#c62828;margin-left:2px}
.amount{font-weight:700;font-size:13px}
.buttons{display:grid;grid-template-columns:repeat(9,minmax(0,1fr));gap:4px;max-width:860px}
.button{background:#263238;color:#fff;border-radius:6px;padding:4px;min-height:44px;
display:flex;flex-wrap:wrap;align-items:center;gap:2px;position:relative}
.bn{position:absolute;top:1px;right:4px;font-size:10px;color:#9ab}
.reveal{display:inline-flex;align-items:center;background:#fff;border-radius:4px;padding:1px}
.x2{background:#c62828;color:#fff;font-size:10px;font-weight:700;border-radius:3px;padding:0 2px}
.plus{background:#2e7d32;color:#fff;font-size:10px;font-weight:700;border-radius:3px;padding:0 2px}
"""

KIT = register_kit(
    GameKit(
        name="robots",
        win_keys=("robot", "symbol", "amount_cents"),
        examples=(
            "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C",  # contract 1's example
            "DQTCSPHO|Q O O2 H H T2 S S S S S S S D D D C C",
        ),
        valid_tickets=lambda: S.robots_tickets(),
        invalid_kinds=ROBOTS_INVALID_KINDS,
        invalid_tickets=_invalid,
        invalid_examples=ROBOTS_INVALID_EXAMPLES,
        sweeps={"gauge_fills": sweep("conformance.checks.robots_rules", "gauge_fill_tickets")},
        relations=RELATIONS,
        diagnosis=lambda: CLASSIFY.RobotsDiagnosis(),
        general_requirement=GENERAL_REQUIREMENT,
        stakes_article="robots 2 (1 €)",
        history_article="robots.4.1",
        prize_article="robots.4.10",
        reveals=RevealRequirements(
            symbols="robots.4.3.reveal_symbols",
            order="robots.4.4.reveal_order",
            plus_one="robots.4.7.reveal_plus_one",
            auto_any_moment="robots.4.4.auto_any_moment",
        ),
        board=board,
        board_css=CSS,
        kernel=robots_prizes,
        chunk_judge=robots_chunk if fastaudit is not None else None,
        prepare=lambda stake: robots_tables(),
        requirement_files=(_DATA / "requirements" / "robots.yaml",),
        clause_files=(_DATA / "clauses" / "robots.yaml",),
    )
)
