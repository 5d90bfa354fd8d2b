"""The conformance kit of Coins, the test-only third game: what the suite needs to judge an
implementation of it, beside its reference engine (``engine.py``).

Everything a kit gives (``conformance.games.GameKit``): valid tickets aimed at the edges
(three alike, mixed, both purses winning), every kind of invalid ticket and the requirement
it belongs to, a fault classifier that probes one purse at a time, the articles its play
faults break, a board for the HTML report, its requirement and clause files, and its own
check (every one of the 3^6 tickets at every stake), and the requirements of its reveal by
button (``reveals``: its engine has a button per purse, so the reveal checks play it as they
play robots). No audit kernel: its blocks go through the reference evaluator line by line
(``conformance._kernels.generic_prizes``).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

import reference
from conformance import CheckContext, check, games
from conformance.checks._differential import Disagreement, compare_all, fail_with
from conformance.games import Escape, GameKit, RevealRequirements

from .engine import PURSE_SEPARATOR, CoinsRules

NAME = "coins"
HERE = Path(__file__).parent
GENERAL = "coins.4.evaluation"
PURSE_PAYS = "coins.4.purse_pays"
PURSES_ADD = "coins.4.purses_add"
LOSING = "coins.4.losing"
RULES = (GENERAL, PURSE_PAYS, PURSES_ADD, LOSING)

REVEALS = RevealRequirements(  # article 6: the reveal by button
    symbols="coins.6.reveal_coins",
    order="coins.6.reveal_order",
    plus_one="coins.6.reveal_plus_one",
    auto_any_moment="coins.6.auto_any_moment",
)

INVALID_KINDS: dict[str, str] = {
    "purse_count": "coins.4.invalid_purses",
    "coin_count": "coins.4.invalid_purses",
    "coin": "coins.4.invalid_coin",
    "separator": "coins.contract.invalid_notation",
    "characters": "coins.contract.invalid_notation",
}
NOT_COINS = "ACDEFHXYZgsb0 "


def _rules() -> CoinsRules:
    rules = reference.load_rules(NAME)
    assert isinstance(rules, CoinsRules)
    return rules


def letters() -> str:
    return "".join(c.letter for c in _rules().coins)


def losing_purse() -> str:
    """A purse of distinct coins: it pays nothing."""
    return letters()[: _rules().coins_per_purse]


def every_ticket() -> list[str]:
    """Every ticket of the game: each purse any of the 3^3 purses (3^6 = 729 tickets)."""
    rules = _rules()
    purses = ["".join(p) for p in itertools.product(letters(), repeat=rules.coins_per_purse)]
    return [PURSE_SEPARATOR.join(t) for t in itertools.product(purses, repeat=rules.purses)]


@st.composite
def _purse(draw: st.DrawFn) -> str:
    """A purse: three alike (a win) or any three coins; shrinks towards a losing purse."""
    size = _rules().coins_per_purse
    if draw(st.booleans()):
        return draw(st.sampled_from(letters())) * size
    mixed = draw(st.lists(st.sampled_from(letters()), min_size=size, max_size=size))
    return "".join(mixed)


def valid_tickets() -> st.SearchStrategy[str]:
    purses = _rules().purses
    return st.lists(_purse(), min_size=purses, max_size=purses).map(PURSE_SEPARATOR.join)


@st.composite
def _invalid(draw: st.DrawFn, kinds: Sequence[str]) -> tuple[str, str]:
    kind = draw(st.sampled_from(list(kinds)))
    purses = draw(valid_tickets()).split(PURSE_SEPARATOR)
    at = draw(st.integers(0, len(purses) - 1))
    if kind == "purse_count":
        purses = draw(st.sampled_from([purses[:1], [*purses, purses[0]]]))
    elif kind == "coin_count":
        purses[at] = draw(st.sampled_from([purses[at][:-1], purses[at] + purses[at][0], ""]))
    elif kind == "coin":
        c = draw(st.integers(0, len(purses[at]) - 1))
        purses[at] = purses[at][:c] + draw(st.sampled_from(NOT_COINS)) + purses[at][c + 1 :]
    else:
        text = PURSE_SEPARATOR.join(purses)
        broken = (
            [text.replace("|", "||"), text.replace("|", "/"), text + "|", "|" + text]
            if kind == "separator"
            else ["", text.lower(), text + "\n", "\u00c9" + text[1:]]
        )
        return kind, draw(st.sampled_from(broken))
    return kind, PURSE_SEPARATOR.join(purses)


def invalid_tickets(kinds: Sequence[str]) -> st.SearchStrategy[tuple[str, str]]:
    return _invalid(tuple(kinds))


INVALID_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("purse_count", "GGG"),
    ("purse_count", "GGG|SSS|BBB"),
    ("coin_count", "GG|SSS"),
    ("coin_count", "GGGG|SSS"),
    ("coin", "GXG|SSS"),
    ("coin", "GGG|SsS"),
    ("separator", "GGG||SSS"),
    ("separator", "GGG/SSS"),
    ("separator", "GGG|SSS|"),
    ("characters", ""),
    ("characters", "GGG|SSS\n"),
)


class CoinsDiagnosis:
    """Which rule of article 4 a disagreement breaks: each differing purse is asked alone
    (the other purse losing); a purse right alone but wrong beside the other is the sum's."""

    def __init__(self) -> None:
        self._alone: dict[tuple[int, str, int], bool] = {}

    def _right_alone(self, adapter: Any, stake: int, purse: str, at: int) -> bool:
        key = (stake, purse, at)
        if key not in self._alone:
            purses = [losing_purse()] * _rules().purses
            purses[at] = purse
            ticket = PURSE_SEPARATOR.join(purses)
            got = adapter.evaluate(NAME, stake, [ticket])[0]
            want = reference.evaluate(NAME, stake, ticket)
            self._alone[key] = _wins_at(got, at) == _wins_at(want, at)
        return self._alone[key]

    def __call__(self, adapter: Any, d: Disagreement) -> tuple[str, ...]:
        if "error" in d.got:
            return (GENERAL,)
        purses = d.ticket.split(PURSE_SEPARATOR)
        found: list[str] = []
        amounts = [w.get("amount_cents") for w in d.got.get("wins", [])]
        if all(type(a) is int for a in amounts) and d.got.get("prize_cents") != sum(amounts):
            found.append(PURSES_ADD)
        for at, purse in enumerate(purses):
            if _wins_at(d.expected, at) == _wins_at(d.got, at):
                continue
            if self._right_alone(adapter, d.stake_cents, purse, at):
                found.append(PURSES_ADD)
            else:
                found.append(PURSE_PAYS if _wins_at(d.expected, at) else LOSING)
        return tuple(dict.fromkeys(found)) or (PURSES_ADD,)


def _wins_at(result: Mapping[str, Any], purse: int) -> list[tuple[Any, Any]]:
    return sorted(
        (w.get("symbol"), w.get("amount_cents"))
        for w in result.get("wins", [])
        if isinstance(w, Mapping) and w.get("purse") == purse
    )


def board(ticket: str, expected: object, got: object, stake: object, escape: Escape) -> str:
    """The purses side by side, each coin a disc; a purse the rules pay is ``win``, one the
    target pays wrongly or misses is marked."""
    purses = reference.parse_ticket(NAME, ticket).purses
    names = {c.letter: c.name for c in _rules().coins}
    drawn = []
    for at, purse in enumerate(purses):
        marks = ["purse"]
        want = _wins_at(expected, at) if isinstance(expected, Mapping) else []
        have = _wins_at(got, at) if isinstance(got, Mapping) else want
        marks += ["win"] if want else []
        marks += ["wrong"] if have != want else []
        coins = "".join(
            f'<span class="coin {escape(names[c])}" title="{escape(names[c])}">{escape(c)}</span>'
            for c in purse
        )
        drawn.append(f'<div class="{" ".join(marks)}">{coins}</div>')
    return f'<div class="coins-unit">{"".join(drawn)}</div>'


CSS = """.coins-unit{display:flex;gap:14px;margin:8px 0}
.purse{display:flex;gap:4px;padding:6px;border:2px solid #ccd;border-radius:8px}
.purse.win{border-color:var(--pass)}.purse.wrong{outline:3px dashed var(--fail)}
.coin{display:inline-block;width:26px;height:26px;border-radius:50%;text-align:center;
line-height:26px;font-weight:700}
.coin.gold{background:#e9b800}.coin.silver{background:#c0c0c0}.coin.bronze{background:#cd7f32}
"""


def every_ticket_check(ctx: CheckContext) -> None:
    """Exhaustive: every one of the 3^6 tickets at every stake (article 4)."""
    tickets = every_ticket()
    ctx.details["tickets"] = len(tickets)
    for stake in ctx.stakes(NAME):
        found = compare_all(ctx, NAME, stake, tickets, f"every Coins ticket at {stake} cents")
        if found:
            found.sort(key=lambda d: d.ticket)
            fail_with(
                f"tickets at {stake} cents", found, CoinsDiagnosis(), ctx.adapter, general=GENERAL
            )


def register_checks() -> None:
    """The game's own check: ``coins_rules.every_ticket``."""
    check("coins_rules.every_ticket", covers=RULES, capability="evaluate", games=(NAME,))(
        every_ticket_check
    )


def make_kit() -> GameKit:
    """The kit; Coins' reference engine must be registered first (its rules feed it)."""
    return GameKit(
        name=NAME,
        win_keys=("purse", "symbol", "amount_cents"),
        examples=("GGG|SBS", "SBG|BBB"),
        valid_tickets=valid_tickets,
        invalid_kinds=INVALID_KINDS,
        invalid_tickets=invalid_tickets,
        invalid_examples=INVALID_EXAMPLES,
        sweeps={"every_ticket": every_ticket},
        diagnosis=CoinsDiagnosis,
        general_requirement=GENERAL,
        stakes_article="coins 2 (1 € or 2 €)",
        history_article="coins.5",
        prize_article="coins.4",
        reveals=REVEALS,
        board=board,
        board_css=CSS,
        requirement_files=(HERE / "requirements" / "coins.yaml",),
        clause_files=(HERE / "clauses" / "coins.yaml",),
        register_checks=register_checks,
    )


@contextlib.contextmanager
def registered() -> Iterator[GameKit]:
    """Coins certifiable inside the block: its reference engine, then its kit, both removed
    after (the suite's catalogue and checks are then as they were)."""
    from . import registered as engine_registered

    with engine_registered(), games.registered(make_kit()) as kit:
        yield kit
