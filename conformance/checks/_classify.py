"""Which requirement does a disagreement break? Diagnosis by probes, not by guesswork.

A shrunk counterexample says *that* the target is wrong; the report must say *which rule* it
breaks. For the symbol (robots) or the row (eldorado) on which the target's answer differs,
the diagnosis sends a few probe tickets to the target, each exercising one rule in isolation
(the gauge filled one notch short, exactly full, past full, far past full (8, 16 and 32
notches, where a counter of 3, 4 or 5 bits wraps; 20 reveals through a +1 chain), through an
X2, through a +1 reveal, on the last buttons; the row alone in a main grid, without its EXTRA,
made adjacent, moved to an Extra grid, to an Extra grid of an Extra grid) and reads which
probe the target gets wrong.
When every probe passes, the fault lies in how wins combine (several gauges, several rows,
the sum), in positions, or in the robots' order, which the remaining variants tell apart.
Only when nothing narrows it does a disagreement stay on the game's general requirement.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import reference

from .._evaluation import check_shape, difference, expected_result, is_error
from .._lazy import suite_strategies
from ._differential import Disagreement

if TYPE_CHECKING:
    from ..games import _eldorado_strategies as ES
    from ..games import _robots_strategies as RS
else:  # imported on first use (conformance._lazy): it imports hypothesis
    RS = suite_strategies("conformance.games._robots_strategies")
    ES = suite_strategies("conformance.games._eldorado_strategies")

_ROBOTS = reference.robots_rules()
_ELDORADO = reference.eldorado_rules()
LETTER_OF = {s.name: s.letter for s in _ROBOTS.symbols}
NAME_OF = {s.letter: s.name for s in _ROBOTS.symbols}

ROBOTS_GENERAL = "robots.4.evaluation"
ROBOTS_STAKE = _ROBOTS.stakes_cents[0]
ELDORADO_GENERAL = "eldorado.4.evaluation"


def _ask(adapter: Any, game: str, stake: int, tickets: Sequence[str]) -> list[dict[str, Any]]:
    return check_shape(adapter.evaluate(game, stake, list(tickets)), tickets)


def _agrees(game: str, stake: int, ticket: str, got: Mapping[str, Any]) -> bool:
    return difference(game, expected_result(game, stake, ticket), got) is None


# --------------------------------------------------------------------------------------------
# robots
# --------------------------------------------------------------------------------------------


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
            answers = _ask(adapter, "robots", ROBOTS_STAKE, [t for _, t in probes])
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
        if robots != RS.ROBOT_LETTERS and _agrees(
            "robots", stake, table, _ask(adapter, "robots", stake, [table])[0]
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
                _ask(adapter, "robots", d.stake_cents, [variant])[0]
            ):
                return (requirement,)
        if "+" in body:
            return ("robots.4.7.plus_one_reveal",)
        return (ROBOTS_GENERAL,)


# --------------------------------------------------------------------------------------------
# eldorado
# --------------------------------------------------------------------------------------------

_AMOUNTS = {(c.symbol, c.count): dict(c.amount_cents) for c in _ELDORADO.combinations}
_NAMES = {s.name: s.letter for s in _ELDORADO.symbols}


def _row_wins(result: Mapping[str, Any], grid: int, row: int) -> list[tuple[Any, Any, Any]]:
    return [
        (w.get("symbol"), w.get("count"), w.get("amount_cents"))
        for w in result.get("wins", [])
        if w.get("grid") == grid and w.get("row") == row
    ]


def _grids(ticket: str) -> list[list[str]]:
    return [g.split("/") for g in ticket.split("|")]


def _without_extra(row: str) -> str:
    """The row with each EXTRA replaced by a distinct paying symbol absent from it: the same
    combination, if any, and no new one."""
    absent = iter(c for c in ES.PAYING if c not in row)
    return "".join(next(absent) if c == ES.EXTRA else c for c in row)


class EldoradoDiagnosis:
    """Classifies eldorado disagreements by re-asking the target about the differing rows."""

    def __init__(self) -> None:
        self._cache: dict[tuple[int, str], bool] = {}

    def _row_ok(self, adapter: Any, stake: int, ticket: str, grid: int, row: int) -> bool:
        key = (stake, f"{ticket}#{grid}#{row}")
        if key not in self._cache:
            got = _ask(adapter, "eldorado", stake, [ticket])[0]
            expected = expected_result("eldorado", stake, ticket)
            self._cache[key] = not is_error(got) and Counter(
                _row_wins(expected, grid, row)
            ) == Counter(_row_wins(got, grid, row))
        return self._cache[key]

    def __call__(self, adapter: Any, d: Disagreement) -> tuple[str, ...]:
        expected, got, stake = d.expected, d.got, d.stake_cents
        if is_error(got):
            return self._refused(adapter, d)
        ids: list[str] = []
        amounts = [w.get("amount_cents") for w in got.get("wins", [])]
        if all(type(a) is int for a in amounts) and got.get("prize_cents") != sum(amounts):
            ids.append("eldorado.4.6.one_lot")

        def projection(result: Mapping[str, Any]) -> Counter[tuple[Any, ...]]:
            return Counter(
                (w.get("symbol"), w.get("count"), w.get("amount_cents")) for w in result["wins"]
            )

        if projection(expected) == projection(got):
            if Counter(map(str, expected["wins"])) != Counter(map(str, got["wins"])):
                ids.append("eldorado.4.1.rows")
            return tuple(ids) or ("eldorado.4.6.one_lot",)
        grids = _grids(d.ticket)
        places = {(w.get("grid"), w.get("row")) for w in [*expected["wins"], *got["wins"]]}
        differing = sorted(
            (g, r)
            for g, r in places
            if Counter(_row_wins(expected, g, r)) != Counter(_row_wins(got, g, r))
        )
        context = False
        for g, r in differing:
            if not (
                isinstance(g, int)
                and isinstance(r, int)
                and 0 <= g < len(grids)
                and 0 <= r < ES.ROWS
            ):
                ids.append("eldorado.4.1.rows")  # a win where the ticket has no such row
                continue
            found = self._row(adapter, stake, grids[g][r], g, r, d)
            if found is None:
                context = True
            else:
                ids += [i for i in found if i not in ids]
        if context:
            exp_rows = {(w["grid"], w["row"]) for w in expected["wins"]}
            got_rows = {(w.get("grid"), w.get("row")) for w in got["wins"]}
            if len(exp_rows) >= 2 and got_rows < exp_rows:
                ids.append("eldorado.4.4.combinations_add")
            elif not exp_rows:
                ids.append("eldorado.4.7.losing")
            else:
                ids.append(ELDORADO_GENERAL)
        return tuple(ids) or (ELDORADO_GENERAL,)

    def _row(
        self, adapter: Any, stake: int, row: str, grid: int, position: int, d: Disagreement
    ) -> tuple[str, ...] | None:
        """The requirement a wrongly evaluated row breaks, or None if the row alone is fine."""
        alone = ES.eldorado_row_ticket(row, position)
        if not self._row_ok(adapter, stake, alone, 0, position):
            elsewhere = [p for p in range(ES.ROWS) if p != position]
            if any(
                self._row_ok(adapter, stake, ES.eldorado_row_ticket(row, p), 0, p)
                for p in elsewhere
            ):
                return ("eldorado.4.1.rows",)  # right on another row: the position matters
            return self._row_alone(adapter, stake, row, position)
        if grid == 0:
            return None
        want = _row_wins(d.expected, grid, position)
        have = _row_wins(d.got, grid, position)
        if want and have and len(have) == 1 and have[0][:2] == want[0][:2]:
            letter = _NAMES.get(str(want[0][0]))
            amounts = _AMOUNTS.get((letter or "", int(want[0][1])), {})
            if have[0][2] in amounts.values():
                return ("eldorado.4.5.extra_same_stake",)
        one = ES.eldorado_extra_ticket(row, position, 1)
        if not self._row_ok(adapter, stake, one, 1, position):
            return ("eldorado.4.5.extra_stage",)
        two = ES.eldorado_extra_ticket(row, position, 2)
        if not self._row_ok(adapter, stake, two, 2, position):
            return ("eldorado.4.5.extra_in_extra",)
        return None

    def _row_alone(self, adapter: Any, stake: int, row: str, position: int) -> tuple[str, ...]:
        """The row is wrong in the main grid on its own: which rule of 4.4 / E-I1..E-I3."""
        alone = ES.eldorado_row_ticket(row, position)
        expected = expected_result("eldorado", stake, alone)
        got = _ask(adapter, "eldorado", stake, [alone])[0]
        if is_error(got):
            return ("eldorado.4.5.extra_pays_nothing",) if ES.EXTRA in row else (ELDORADO_GENERAL,)
        want, have = _row_wins(expected, 0, position), _row_wins(got, 0, position)
        extras = row.count(ES.EXTRA)
        if extras >= 4 or (
            extras
            and self._row_ok(
                adapter, stake, ES.eldorado_row_ticket(_without_extra(row), position), 0, position
            )
        ):
            return ("eldorado.4.5.extra_pays_nothing",)
        if want and want[0][1] == 5 and len(have) >= 2:
            return ("eldorado.4.4.five_pays_once",)
        if want and len(have) == 1 and have[0][:2] == want[0][:2]:
            total_5_4 = None
            if want[0][1] == 5:
                letter = _NAMES.get(str(want[0][0]), "")
                total_5_4 = _AMOUNTS[letter, 5][stake] + _AMOUNTS[letter, 4][stake]
            if have[0][2] == total_5_4:
                return ("eldorado.4.4.five_pays_once",)
            return ("eldorado.4.4.paytable",)
        if want and (not have or have[0][1] != want[0][1]):
            # 4 of the symbol with one other cell, that cell at each of the 5 places
            symbol = _NAMES.get(str(want[0][0]), ES.PAYING[0])
            other = next(c for c in ES.PAYING if c != symbol)
            passing = {
                place
                for place in range(ES.CELLS)
                if self._row_ok(
                    adapter,
                    stake,
                    ES.eldorado_row_ticket(
                        symbol * place + other + symbol * (ES.CELLS - 1 - place), position
                    ),
                    0,
                    position,
                )
            }
            if passing == {0, ES.CELLS - 1}:
                return ("eldorado.4.4.not_adjacent",)  # only a run of 4 adjacent cells wins
            if passing and len(passing) < ES.CELLS:
                return ("eldorado.4.3.every_cell",)  # a cell at some place is not counted
        return ("eldorado.4.4.four_or_five",)

    def _refused(self, adapter: Any, d: Disagreement) -> tuple[str, ...]:
        grids = _grids(d.ticket)
        main_extras = "/".join(grids[0]).count(ES.EXTRA)
        if len(grids) - 1 > main_extras:
            return ("eldorado.4.5.extra_in_extra",)
        if len(grids) > 1:
            return ("eldorado.4.5.extra_stage",)
        return (ELDORADO_GENERAL,)
