"""Robots' fault classifier (its kit's ``diagnosis``): for the symbol on which the target's
answer differs, probe tickets each exercising one rule in isolation (the gauge filled one
notch short, exactly full, past full, far past full (8, 16 and 32 notches, where a counter of
3, 4 or 5 bits wraps; 20 reveals through a +1 chain), through an X2, through a +1 reveal, on
the last buttons), and reads which probe the target gets wrong. When every probe passes, the
fault lies in how wins combine (several gauges, the sum), in positions, or in the robots'
order, which the remaining variants tell apart. Only when nothing narrows it does a
disagreement stay on ``ROBOTS_GENERAL``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import reference
import reference.robots

from .._evaluation import expected_result, is_error
from .._lazy import suite_strategies
from ._classify import agrees, ask
from ._differential import Disagreement

if TYPE_CHECKING:
    from ..games import _robots_strategies as RS
else:  # imported on first use (conformance._lazy): it imports hypothesis
    RS = suite_strategies("conformance.games._robots_strategies")

_ROBOTS = reference.robots.robots_rules()
LETTER_OF = {s.name: s.letter for s in _ROBOTS.symbols}
NAME_OF = {s.letter: s.name for s in _ROBOTS.symbols}

ROBOTS_GENERAL = "robots.4.evaluation"
ROBOTS_STAKE = _ROBOTS.stakes_cents[0]


def _symbol_wins(result: Mapping[str, Any], name: str) -> list[tuple[Any, Any]]:
    return [
        (w.get("robot"), w.get("amount_cents"))
        for w in result.get("wins", [])
        if w.get("symbol") == name
    ]


def robots_symbol_status(expected: Mapping[str, Any], got: Mapping[str, Any], letter: str) -> str:
    """How the target's answer for one symbol differs: ok, refused, presence, amount,
    multiple (wins more than once) or robot (names the wrong robot)."""
    if is_error(got):
        return "refused"
    name = NAME_OF[letter]
    want, have = _symbol_wins(expected, name), _symbol_wins(got, name)
    if Counter(want) == Counter(have):
        return "ok"
    if len(have) > 1 and want:
        return "multiple"
    if bool(want) != bool(have):
        return "presence"
    if want[0][1] != have[0][1]:
        return "amount"
    return "robot"


def robots_probes(letter: str) -> list[tuple[str, str]]:
    """(category, ticket) probes of one symbol's gauge, each in isolation, robots in table
    order: only ``letter`` can win."""
    n = RS.NOTCHES[letter]
    plain, double = RS.SymbolReveal(), RS.SymbolReveal(x2=True)
    after, after_double = (
        RS.SymbolReveal(after_plus=True),
        RS.SymbolReveal(x2=True, after_plus=True),
    )
    plans: list[tuple[str, list[RS.SymbolReveal]]] = [
        ("short", [plain] * (n - 1)),
        ("full", [plain] * n),
        ("past", [plain] * (n + 1)),
        ("past", [plain] * (n + 2)),
        ("x2", [plain] * (n - 1) + [double]),  # X2 pushing past full
        ("plus", [after] + [plain] * (n - 1)),  # the last notch comes after a +1
        ("plus", [after] * n),  # a +1 chain
    ]
    if n >= 2:
        plans += [
            ("x2", [double] + [plain] * (n - 2)),
            ("plus_x2", [after_double] + [plain] * (n - 2)),
        ]
    # far past full, where a counter kept in 3, 4 or 5 bits wraps (8, 16, 32 notches, by X2
    # reveals), and by 20 plain reveals, the last ones behind a +1 chain
    for count in (8, 16, 32):
        plans.append(("far_x2", [double] * (count // 2)))
    plans.append(("far_plus", [RS.SymbolReveal(after_plus=k >= RS.BUTTONS - 1) for k in range(20)]))
    if n >= 2:
        plans.append(("short2", [plain] * (n - 2)))
    if n >= 3:
        plans.append(("x2_short", [double] + [plain] * (n - 3)))
        plans.append(("x2_chain", [double, after] + [plain] * (n - 3)))  # X2, then a +1
    if n >= 4:  # one short, the X2's button going on: the X2 must double its own reveal only
        plans.append(("x2_chain", [double, after] + [plain] * (n - 4)))
    probes = []
    for category, plan in plans:
        try:
            ticket = RS.robots_isolated_ticket(letter, plan)
        except ValueError:
            continue  # not every fill fits beside gauges kept below full
        probes.append((category, ticket))
        robots, body = ticket.split("|")
        if category == "full":  # the same gauge on the last buttons (article 4.3)
            probes.append(("position", robots + "|" + " ".join(reversed(body.split(" ")))))
        if category == "short":  # another symbol's X2 on this symbol's button
            neighbour = _beside_x2(letter)
            if neighbour is not None:
                probes.append(("x2_chain", neighbour))
    return probes


def _beside_x2(letter: str) -> str | None:
    """A ticket where ``letter``'s gauge is one notch short and one of its reveals is followed,
    on the same button, by another symbol's X2 (every other gauge below full): an X2 must
    double its own reveal only. None when no other symbol has room for the X2."""
    n = RS.NOTCHES[letter]
    others = sorted((t for t in RS.ROBOT_LETTERS if t != letter), key=lambda t: -RS.NOTCHES[t])
    partner = others[0]
    room = {t: RS.NOTCHES[t] - 1 - (2 if t == partner else 0) for t in others}
    needed = RS.BUTTONS - (n - 1)
    counts = dict.fromkeys(others, 0)
    for margin in (1, 0):
        for t in others:
            while needed and counts[t] < room[t] - margin:
                counts[t] += 1
                needed -= 1
    if needed or n < 2:
        return None
    buttons = [f"{letter}+{partner}2"] + [letter] * (n - 2)
    buttons += [t for t in others for _ in range(counts[t])]
    return RS.ROBOT_LETTERS + "|" + " ".join(buttons)


class RobotsDiagnosis:
    """Classifies robots disagreements; probe answers are cached for the check's run."""

    def __init__(self) -> None:
        self._probes: dict[str, dict[str, set[str]]] = {}

    def _probe(self, adapter: Any, letter: str) -> dict[str, set[str]]:
        if letter not in self._probes:
            probes = robots_probes(letter)
            answers = ask(adapter, "robots", ROBOTS_STAKE, [t for _, t in probes])
            failing: dict[str, set[str]] = {}
            for (category, ticket), got in zip(probes, answers, strict=True):
                expected = expected_result("robots", ROBOTS_STAKE, ticket)
                status = robots_symbol_status(expected, got, letter)
                if status != "ok":
                    failing.setdefault(category, set()).add(status)
            self._probes[letter] = failing
        return self._probes[letter]

    @staticmethod
    def _from_probes(failing: Mapping[str, set[str]]) -> tuple[str, ...]:
        statuses = set().union(*failing.values()) if failing else set()
        ids: list[str] = []
        if "amount" in statuses:
            ids.append("robots.4.8.amounts")
        if "multiple" in statuses:
            ids.append("robots.4.8.gauge_capped")
        if "robot" in statuses:
            ids.append("robots.4.2.robot_positions")
        wrong = {c for c, s in failing.items() if s & {"presence", "refused"}}
        if "short2" in wrong:  # off by more than the threshold: reveals miscounted
            ids.append("robots.4.5.one_notch")
        elif wrong & {"short", "full"}:
            ids.append("robots.4.8.gauge_full")
        elif (
            "past" in wrong
            or ("far_x2" in wrong and not wrong & {"x2", "x2_short", "x2_chain", "plus_x2"})
            or ("far_plus" in wrong and not wrong & {"plus", "plus_x2", "x2_chain"})
        ):  # far past full counts only where the X2 and +1 probes near full are right
            ids.append("robots.4.8.gauge_capped")
        else:
            # probes mixing X2 and +1 count only when the pure probes of the other pass
            pure_x2, pure_plus = bool(wrong & {"x2", "x2_short"}), "plus" in wrong
            if pure_x2 or ("x2_chain" in wrong and not pure_plus):
                ids.append("robots.4.6.x2")
            if pure_plus or ("plus_x2" in wrong and not pure_x2):
                ids.append("robots.4.7.plus_one_reveal")
            if "position" in wrong:
                ids.append("robots.4.3.every_button")
        return tuple(ids)

    def __call__(self, adapter: Any, d: Disagreement) -> tuple[str, ...]:
        expected, got = d.expected, d.got
        if is_error(got):
            return self._refused(adapter, d)
        ids: list[str] = []
        amounts = [w.get("amount_cents") for w in got.get("wins", [])]
        if all(type(a) is int for a in amounts) and got.get("prize_cents") != sum(amounts):
            ids.append("robots.4.10.one_lot")
        names = {w.get("symbol") for w in expected["wins"]} | {w.get("symbol") for w in got["wins"]}
        if not names <= set(LETTER_OF):
            return (*ids, ROBOTS_GENERAL)
        differing = [
            LETTER_OF[n]
            for n in sorted(names)
            if robots_symbol_status(expected, got, LETTER_OF[n]) != "ok"
        ]
        if not differing:
            return tuple(ids) or ("robots.4.10.one_lot",)
        context: list[str] = []
        for letter in differing:
            found = self._from_probes(self._probe(adapter, letter))
            if found:
                ids += [i for i in found if i not in ids]
            else:
                context.append(letter)
        if context:
            ids += [i for i in self._context(adapter, d, context) if i not in ids]
        return tuple(ids)

    def _context(self, adapter: Any, d: Disagreement, letters: list[str]) -> list[str]:
        """Every probe of these symbols passes: the fault is in how they combine."""
        robots, body = d.ticket.split("|")
        table = RS.ROBOT_LETTERS + "|" + body
        stake = d.stake_cents
        if robots != RS.ROBOT_LETTERS and agrees(
            "robots", stake, table, ask(adapter, "robots", stake, [table])[0]
        ):
            return ["robots.4.2.robot_positions"]
        expected_names = [w["symbol"] for w in d.expected["wins"]]
        got_names = [w.get("symbol") for w in d.got["wins"]]
        missing = [n for n in expected_names if n not in got_names]
        spurious = [n for n in got_names if n not in expected_names]
        if missing and not spurious and len(expected_names) >= 2:
            return ["robots.4.9.several_gauges"]
        if spurious and not expected_names:
            return ["robots.4.11.losing"]
        return [ROBOTS_GENERAL]

    def _refused(self, adapter: Any, d: Disagreement) -> tuple[str, ...]:
        robots, body = d.ticket.split("|")
        variants = [
            ("robots.4.2.robot_positions", RS.ROBOT_LETTERS + "|" + body),
            ("robots.4.6.x2", robots + "|" + body.replace("2", "")),
        ]
        for requirement, variant in variants:
            if variant != d.ticket and not is_error(
                ask(adapter, "robots", d.stake_cents, [variant])[0]
            ):
                return (requirement,)
        if "+" in body:
            return ("robots.4.7.plus_one_reveal",)
        return (ROBOTS_GENERAL,)


# --------------------------------------------------------------------------------------------
# eldorado
# --------------------------------------------------------------------------------------------
