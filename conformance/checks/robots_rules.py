"""Le Retour des Robots, article 4, by evaluation: every check is differential.

The target's ``evaluate`` is compared with the reference's, prize and wins (as a set). Two
exhaustive sweeps cover the small spaces whole (every gauge filled by every mix of plain and
X2 reveals up to two notches past full, laid out plainly, behind a +1 and along a +1 chain;
every one of the 8! robot orders); two hypothesis searches aim at the edges of whole tickets.
Each disagreement shown is diagnosed (``_classify.RobotsDiagnosis``) so that the failure names
the rule it breaks: ``robots.4.6.x2`` for an X2 counted once, not the whole article.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from .._drawing import Recipe
from .._lazy import strategies_module, suite_strategies
from .._registry import CheckContext, check
from ._differential import compare_all, fail_with, search
from ._robots_classify import ROBOTS_GENERAL, RobotsDiagnosis

if TYPE_CHECKING:
    from hypothesis import strategies as st

    from ..games import _robots_strategies as S
else:  # imported on first use (conformance._lazy): a run of block checks never needs them
    st = strategies_module()
    S = suite_strategies("conformance.games._robots_strategies")


def edge_tickets() -> st.SearchStrategy[str]:
    """Whole tickets at the edges of the rules (``strategies.robots_tickets``)."""
    return S.robots_tickets()


def tickets_with_several_full_gauges() -> st.SearchStrategy[str]:
    """Tickets with 2 to 8 full gauges at once."""
    return st.integers(2, len(S.ROBOT_LETTERS)).flatmap(S.robots_tickets_min_full)


ROBOTS_RULES: tuple[str, ...] = (
    ROBOTS_GENERAL,
    "robots.4.2.robot_positions",
    "robots.4.3.every_button",
    "robots.4.5.one_notch",
    "robots.4.6.x2",
    "robots.4.7.plus_one_reveal",
    "robots.4.8.gauge_full",
    "robots.4.8.amounts",
    "robots.4.8.gauge_capped",
    "robots.4.9.several_gauges",
    "robots.4.10.one_lot",
    "robots.4.11.losing",
)

ORDERS_SAMPLE = 2000  # robot orders tried when the profile is not exhaustive


def gauge_fill_tickets() -> list[str]:
    """Each symbol's gauge filled by every mix of plain and X2 reveals from empty to two
    notches past full, in three layouts (one reveal a button; the first behind a +1; all on
    one +1 chain), with the robots in table order and reversed; only that gauge can win."""
    tickets = []
    for letter in S.ROBOT_LETTERS:
        n = S.NOTCHES[letter]
        for doubles in range((n + 2) // 2 + 1):
            for plain in range(n + 3 - 2 * doubles):
                mix = [S.SymbolReveal(x2=True)] * doubles + [S.SymbolReveal()] * plain
                layouts = [mix]
                if mix:
                    chained = [S.SymbolReveal(x2=r.x2, after_plus=True) for r in mix]
                    layouts += [[chained[0], *mix[1:]], chained]
                for layout in layouts:
                    for robots in (S.ROBOT_LETTERS, S.ROBOT_LETTERS[::-1]):
                        try:
                            tickets.append(S.robots_isolated_ticket(letter, layout, robots))
                        except ValueError:
                            continue  # an empty 7-notch gauge leaves no room below full
    return tickets + far_fill_tickets()


def far_notches() -> int:
    """The most notches ``far_fill_tickets`` pushes a gauge to: every button revealing the
    symbol with an X2 (36), and a few more behind +1s (R-I4: a +1 chain has no end). A
    function, so importing this module loads no strategies (a block audit never does)."""
    return 2 * S.BUTTONS + 4


def far_fill_tickets() -> list[str]:
    """Each symbol's gauge pushed far past full, to every count from three past full up to
    ``far_notches()`` (a counter kept in a small field wraps, or an array of notches overflows,
    only there): by plain reveals (one a button, the rest behind +1s), and by X2 reveals
    (with one plain for an odd count); only that gauge can win."""
    tickets = []
    for letter in S.ROBOT_LETTERS:
        for count in range(S.NOTCHES[letter] + 3, far_notches() + 1):
            plain = [S.SymbolReveal()] * count
            doubled = [S.SymbolReveal(x2=True)] * (count // 2) + [S.SymbolReveal()] * (count % 2)
            for mix in (plain, doubled):
                layout = [
                    S.SymbolReveal(x2=r.x2, after_plus=k >= S.BUTTONS - 1)
                    for k, r in enumerate(mix)
                ]
                tickets.append(S.robots_isolated_ticket(letter, layout))
    return tickets


@check("robots_rules.gauge_fills", covers=ROBOTS_RULES, capability="evaluate", games=("robots",))
def gauge_fills(ctx: CheckContext) -> None:
    """Exhaustive: every gauge, every mix of plain and X2 reveals up to two past full, each
    gauge alone (articles 4.5, 4.6, 4.7, 4.8, R-I3, R-I4)."""
    tickets = gauge_fill_tickets()
    ctx.details["gauge_fill_tickets"] = len(tickets)
    for stake in ctx.stakes("robots"):
        found = compare_all(ctx, "robots", stake, tickets, "robots gauge fills")
        if found:
            found.sort(key=lambda d: (len(d.ticket), d.ticket))
            fail_with("gauge fills", found, RobotsDiagnosis(), ctx.adapter, general=ROBOTS_GENERAL)


@check(
    "robots_rules.robot_orders",
    covers=ROBOTS_RULES,
    capability="evaluate",
    games=("robots",),
    cost="long",  # 40 320 tickets in every profile: among a quick run's longest checks
)
def robot_orders(ctx: CheckContext) -> None:
    """Every one of the 8! robot orders (R-I1) with every gauge exactly full: each robot wins
    its symbol's amount, named by its position (articles 4.2, 4.8, 4.9)."""
    body = S.robots_all_full_body()
    orders: list[str] = list(S.ORDERS)
    if not ctx.settings.exhaustive:
        orders = random.Random(ctx.seed).sample(orders, ORDERS_SAMPLE)
    tickets = [S.robots_ticket(order, body) for order in orders]
    ctx.details["robot_orders"] = len(tickets)
    for stake in ctx.stakes("robots"):
        found = compare_all(ctx, "robots", stake, tickets, "robot orders")
        if found:
            fail_with("robot orders", found, RobotsDiagnosis(), ctx.adapter, general=ROBOTS_GENERAL)


@check(
    "robots_rules.differential_edges", covers=ROBOTS_RULES, capability="evaluate", games=("robots",)
)
def differential_edges(ctx: CheckContext) -> None:
    """Hypothesis: whole tickets with gauges one notch short, exactly full and past full, X2
    and +1 chains, in any robot order; every disagreement shrunk to a minimal ticket."""
    examples = ctx.settings.hypothesis_max_examples
    found = search(ctx, "robots", Recipe(edge_tickets), examples=examples)
    ctx.details["examples"] = examples
    if found:
        fail_with(
            "edge tickets",
            found,
            RobotsDiagnosis(),
            ctx.adapter,
            general=ROBOTS_GENERAL,
        )


@check("robots_rules.several_gauges", covers=ROBOTS_RULES, capability="evaluate", games=("robots",))
def several_gauges(ctx: CheckContext) -> None:
    """Hypothesis: tickets with 2 to 8 full gauges at once, their gains adding up to one lot
    (articles 4.9, 4.10)."""
    examples = ctx.settings.hypothesis_max_examples
    found = search(ctx, "robots", Recipe(tickets_with_several_full_gauges), examples=examples)
    ctx.details["examples"] = examples
    if found:
        fail_with(
            "several full gauges",
            found,
            RobotsDiagnosis(),
            ctx.adapter,
            general=ROBOTS_GENERAL,
        )
