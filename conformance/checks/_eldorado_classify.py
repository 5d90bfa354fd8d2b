"""Eldorado's fault classifier (its kit's ``diagnosis``): for the row on which the target's
answer differs, probe tickets each exercising one rule in isolation (the row alone in a main
grid, without its EXTRA, made adjacent, moved to an Extra grid, to an Extra grid of an Extra
grid); when every probe passes, the fault lies in how wins combine (several rows, the sum) or
in positions. Only when nothing narrows it does a disagreement stay on ``ELDORADO_GENERAL``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import reference
import reference.eldorado

from .._evaluation import expected_result, is_error
from .._lazy import suite_strategies
from ._classify import ask
from ._differential import Disagreement

if TYPE_CHECKING:
    from ..games import _eldorado_strategies as ES
else:  # imported on first use (conformance._lazy): it imports hypothesis
    ES = suite_strategies("conformance.games._eldorado_strategies")

_ELDORADO = reference.eldorado.eldorado_rules()


ELDORADO_GENERAL = "eldorado.4.evaluation"


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
            got = ask(adapter, "eldorado", stake, [ticket])[0]
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
        got = ask(adapter, "eldorado", stake, [alone])[0]
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
