"""Deliberately broken evaluators, one fault each, behind an evaluate-only adapter.

Each fault is a small independent evaluator of the rules with one rule bent, the way a vendor
might get it wrong. ``FAULTS`` maps a fault's name to (game, the requirement it breaks, the
evaluate function). ``factory(name)`` builds an adapter; ``python:faults:<name>`` works as a
``--target`` when this folder is on ``sys.path``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import reference
from harness._errors import ErrorReply

Result = dict[str, Any]
Evaluate = Callable[[int, str], Result]

_R = reference.robots_rules()
_E = reference.eldorado_rules()
NOTCHES = {s.letter: s.gauge_notches for s in _R.symbols}
AMOUNT = {s.letter: s.amount_cents for s in _R.symbols}
RNAME = {s.letter: s.name for s in _R.symbols}
ENAME = {s.letter: s.name for s in _E.symbols}
PAY = {(c.symbol, c.count): dict(c.amount_cents) for c in _E.combinations}


# -- robots ----------------------------------------------------------------------------------


def robots(
    *,
    x2_once: bool = False,
    plus_ignored: bool = False,
    notch_short: bool = False,
    highest_only: bool = False,
    table_positions: bool = False,
    amounts: dict[str, int] | None = None,
    last_button_ignored: bool = False,
    prize_is_max: bool = False,
    twice_past_double: bool = False,
    accept_19_buttons: bool = False,
    x2_whole_button: bool = False,
) -> Evaluate:
    def evaluate(stake: int, ticket: str) -> Result:
        head, _, body = ticket.partition("|")
        buttons = body.split(" ")
        if accept_19_buttons and len(buttons) == 19:  # checks 18 of them, ignores the 19th's count
            reference.parse_ticket("robots", head + "|" + " ".join(buttons[:18]))
            reference.parse_ticket("robots", head + "|" + " ".join(buttons[1:]))
        else:
            reference.parse_ticket("robots", ticket)  # TicketError for an invalid ticket
        if last_button_ignored:
            buttons = buttons[:-1]
        gauges = dict.fromkeys(NOTCHES, 0)
        for button in buttons:
            doubled = x2_whole_button and "2" in button
            for k, reveal in enumerate(button.split("+")):
                if plus_ignored and k > 0:
                    continue
                gauges[reveal[0]] += 1 if (len(reveal) == 1 or x2_once) and not doubled else 2
        wins: list[dict[str, Any]] = []
        for letter, notches in NOTCHES.items():
            need = notches - 1 if notch_short else notches
            if gauges[letter] >= need:
                robot = "DQTCSPHO".index(letter) if table_positions else head.index(letter)
                amount = (amounts or {}).get(letter, AMOUNT[letter])
                times = 2 if twice_past_double and gauges[letter] >= 2 * notches else 1
                wins += [{"robot": robot, "symbol": RNAME[letter], "amount_cents": amount}] * times
        if highest_only and wins:
            wins = [max(wins, key=lambda w: w["amount_cents"])]
        total = sum(w["amount_cents"] for w in wins)
        if prize_is_max and wins:
            total = max(w["amount_cents"] for w in wins)
        return {"prize_cents": total, "wins": wins}

    return evaluate


# -- eldorado --------------------------------------------------------------------------------


def eldorado(
    *,
    five_plus_four: bool = False,
    adjacent_only: bool = False,
    extra_pays: bool = False,
    main_grid_only: bool = False,
    main_granted_only: bool = False,
    extra_at_one_euro: bool = False,
    round_750: bool = False,
    highest_only: bool = False,
    accept_surplus_grid: bool = False,
    last_cell_ignored: bool = False,
) -> Evaluate:
    def row_wins(row: str, stake: int) -> list[tuple[str, int, int]]:
        letters = "YSVBPX" if extra_pays else "YSVBP"
        if last_cell_ignored:
            row = row[:-1]
        for letter in letters:
            count = row.count(letter)
            if adjacent_only:
                count = max((k for k in range(1, 6) if letter * k in row), default=0)
            if count >= 4:
                key = (letter if letter != "X" else "Y", count)
                amount = PAY[key][stake]
                if round_750 and amount == 750:
                    amount = 800
                found = [(ENAME[letter], count, amount)]
                if five_plus_four and count == 5:
                    found.append((ENAME[letter], 4, PAY[key[0], 4][stake]))
                return found
        return []

    def evaluate(stake: int, ticket: str) -> Result:
        grids = ticket.split("|")
        if accept_surplus_grid and ticket.count("X") + 2 == len(grids):  # one grid too many
            reference.parse_ticket("eldorado", "|".join(grids[:-1]))
            reference.parse_ticket("eldorado", grids[-1].replace("X", "Y"))
        else:
            reference.parse_ticket("eldorado", ticket)
        if stake not in (50, 100, 200):
            raise reference.StakeError(f"stake {stake}")
        if main_grid_only:
            grids = grids[:1]
        if main_granted_only:
            grids = grids[: 1 + grids[0].count("X")]
        wins: list[dict[str, Any]] = []
        for g, grid in enumerate(grids):
            table_stake = 100 if (extra_at_one_euro and g > 0) else stake
            for r, row in enumerate(grid.split("/")):
                for name, count, amount in row_wins(row, table_stake):
                    wins.append(
                        {
                            "grid": g,
                            "row": r,
                            "symbol": name,
                            "count": count,
                            "amount_cents": amount,
                        }
                    )
        if highest_only and wins:
            wins = [max(wins, key=lambda w: w["amount_cents"])]
        return {"prize_cents": sum(w["amount_cents"] for w in wins), "wins": wins}

    return evaluate


# -- the faults ------------------------------------------------------------------------------

FAULTS: dict[str, tuple[str, str, Evaluate]] = {
    "x2_once": ("robots", "robots.4.6.x2", robots(x2_once=True)),
    "plus_ignored": ("robots", "robots.4.7.plus_one_reveal", robots(plus_ignored=True)),
    "x2_whole_button": ("robots", "robots.4.6.x2", robots(x2_whole_button=True)),
    "notch_short": ("robots", "robots.4.8.gauge_full", robots(notch_short=True)),
    "robots_highest_only": ("robots", "robots.4.9.several_gauges", robots(highest_only=True)),
    "table_positions": ("robots", "robots.4.2.robot_positions", robots(table_positions=True)),
    "circle_600": ("robots", "robots.4.8.amounts", robots(amounts={"C": 600})),
    "last_button_ignored": ("robots", "robots.4.3.every_button", robots(last_button_ignored=True)),
    "prize_is_max": ("robots", "robots.4.10.one_lot", robots(prize_is_max=True)),
    "twice_past_double": ("robots", "robots.4.8.gauge_capped", robots(twice_past_double=True)),
    "five_plus_four": ("eldorado", "eldorado.4.4.five_pays_once", eldorado(five_plus_four=True)),
    "adjacent_only": ("eldorado", "eldorado.4.4.not_adjacent", eldorado(adjacent_only=True)),
    "extra_pays": ("eldorado", "eldorado.4.5.extra_pays_nothing", eldorado(extra_pays=True)),
    "main_grid_only": ("eldorado", "eldorado.4.5.extra_stage", eldorado(main_grid_only=True)),
    "main_granted_only": (
        "eldorado",
        "eldorado.4.5.extra_in_extra",
        eldorado(main_granted_only=True),
    ),
    "extra_at_one_euro": (
        "eldorado",
        "eldorado.4.5.extra_same_stake",
        eldorado(extra_at_one_euro=True),
    ),
    "round_750": ("eldorado", "eldorado.4.4.paytable", eldorado(round_750=True)),
    "eldorado_highest_only": (
        "eldorado",
        "eldorado.4.4.combinations_add",
        eldorado(highest_only=True),
    ),
    "last_cell_ignored": ("eldorado", "eldorado.4.3.every_cell", eldorado(last_cell_ignored=True)),
    "robots_accepts_19_buttons": (
        "robots",
        "robots.4.3.invalid_buttons",
        robots(accept_19_buttons=True),
    ),
    "eldorado_accepts_surplus_grid": (
        "eldorado",
        "eldorado.4.5.invalid_extra_grids",
        eldorado(accept_surplus_grid=True),
    ),
}


class FaultyAdapter:
    """An evaluate-only target: the reference, except for one game's faulty evaluator."""

    def __init__(self, fault: str) -> None:
        self.name = f"faulty:{fault}"
        self.game, self.requirement, self._evaluate = FAULTS[fault]

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": "0",
            "games": {
                "robots": {"stakes_cents": [100]},
                "eldorado": {"stakes_cents": [50, 100, 200]},
            },
            "capabilities": ["evaluate"],
        }

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[dict[str, Any]]:
        try:
            reference.check_stake(game, stake_cents)
        except reference.GameError as exc:
            raise ErrorReply(422, exc.code, str(exc)) from None
        results: list[dict[str, Any]] = []
        for ticket in tickets:
            try:
                if game == self.game:
                    results.append(self._evaluate(stake_cents, ticket))
                else:
                    results.append(reference.evaluate(game, stake_cents, ticket))
            except reference.TicketError as exc:
                results.append({"error": {"code": exc.code, "message": str(exc)}})
        return results

    def _lacks(self, *_: Any, **__: Any) -> Any:
        raise ErrorReply(404, "not_found", "this target has only the evaluate capability")

    list_blocks = read_block = open_account = balance = _lacks
    play = reveal = auto = history = _lacks

    def close(self) -> None:
        pass


def factory(fault: str) -> FaultyAdapter:
    return FaultyAdapter(fault)


def __getattr__(name: str) -> Callable[[], FaultyAdapter]:
    """``python:faults:<fault>``: a zero-argument factory for each fault."""
    if name in FAULTS:
        return lambda: FaultyAdapter(name)
    raise AttributeError(name)
