"""What the vendor does, without HTTP: describe, evaluate, blocks, wallets, sales, reveals."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import _evaluator
from .ledger import Ledger, Refused, Ticket
from .shelf import STAKES, UNITS, Shelf, StoredBlock, block_name, parse_block_name

SYMBOL_NAMES = {
    "D": "blue_diamond",
    "Q": "green_square",
    "T": "blue_triangle",
    "C": "orange_circle",
    "S": "purple_star",
    "P": "red_pentagon",
    "H": "blue_hexagon",
    "O": "yellow_octagon",
}
BUTTONS = 18
WIN_LETTERS = {
    **{name: letter for letter, name in SYMBOL_NAMES.items()},
    **{"pyramid": "Y", "sun": "S", "vase": "V", "bracelet": "B", "pendant": "P"},
}


def reveals_under_buttons(ticket: str) -> list[list[tuple[str, bool]]]:
    """Each button's reveals in click order, as (letter, X2 shown)."""
    _, dashboard = ticket.split("|")
    return [
        [(part[0], part.endswith("2")) for part in button.split("+")]
        for button in dashboard.split(" ")
    ]


@dataclass(frozen=True)
class Reveal:
    button: int
    letter: str
    x2: bool
    more: int


class Vendor:
    name = "indie-lotto-engine"
    version = "2.3.1"

    def __init__(self, db_path: Path) -> None:
        self.ledger = Ledger(db_path)
        self.shelf = Shelf(Path(f"{db_path}.blocks"), self.ledger.master_seed())
        self.evaluators: dict[str, Any] = {
            "robots": _evaluator.RobotsEvaluator(),
            "eldorado": _evaluator.EldoradoEvaluator(),
        }

    def warm_up(self) -> None:
        """Make the block on sale and the next one of every (game, stake), in the background."""
        for game, stakes in STAKES.items():
            for stake in stakes:
                number = self.ledger.on_sale(game, stake)
                self.shelf.prepare(game, stake, number)
                self.shelf.prepare(game, stake, number + 1)

    # -- catalogue --------------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "capabilities": ["play", "reveal", "blocks", "evaluate"],
            "name": self.name,
            "games": {game: {"stakes_cents": list(stakes)} for game, stakes in STAKES.items()},
            "vendor": {"contact": "certification@indie-lotto.example", "build": "sqlite-wal"},
        }

    def evaluate(self, game: str, stake: int, tickets: list[Any]) -> list[dict[str, Any]]:
        evaluator = self.evaluators[game]
        results: list[dict[str, Any]] = []
        for ticket in tickets:
            if not isinstance(ticket, str):
                results.append({"error": {"code": "bad_ticket", "message": "a ticket is a string"}})
                continue
            try:
                result = evaluator.evaluate(stake, ticket)
                for win in result["wins"]:  # an extra field of ours in each win
                    win["letter"] = WIN_LETTERS[win["symbol"]]
                results.append(result)
            except _evaluator.InvalidTicket as exc:
                results.append({"error": {"code": "bad_ticket", "message": f"unreadable: {exc}"}})
        return results

    def listing(self, game: str | None, stake: int | None) -> list[dict[str, Any]]:
        """Per (game, stake): every block up to the one on sale, and the one after it."""
        found = []
        for each_game, stakes in STAKES.items():
            if game is not None and game != each_game:
                continue
            for each_stake in stakes:
                if stake is not None and stake != each_stake:
                    continue
                last = self.ledger.on_sale(each_game, each_stake) + 1
                for number in range(1, last + 1):
                    found.append(
                        {
                            "units": UNITS[each_game],
                            "stake_cents": each_stake,
                            "game": each_game,
                            "block_id": block_name(each_game, each_stake, number),
                            "number": number,
                        }
                    )
        return found

    def listed_block(self, name: str) -> StoredBlock | None:
        parsed = parse_block_name(name)
        if parsed is None:
            return None
        game, stake, number = parsed
        if number > self.ledger.on_sale(game, stake) + 1:
            return None
        return self.shelf.block(game, stake, number)

    # -- wallets and plays ------------------------------------------------------------------

    def buy(self, wallet_id: int, game: str, stake: int) -> tuple[Ticket, int]:
        def read_unit(number: int, index: int) -> tuple[str, int, str]:
            prize, body = self.shelf.block(game, stake, number).unit(index)
            return block_name(game, stake, number), prize, body

        ticket, balance = self.ledger.buy(wallet_id, game, stake, UNITS[game], read_unit)
        if ticket.unit == 0:
            number = int(ticket.block_name.rsplit(".", 1)[1])
            self.shelf.prepare(game, stake, number + 1)
        return ticket, balance

    def reveal(self, ulid: str, button: int) -> Reveal:
        with self.ledger.transaction() as db:
            ticket = self.ledger.ticket(ulid, db)
            assert ticket is not None
            if ticket.game != "robots":
                raise Refused(409, "no_buttons_on_this_game", "an eldorado grid shows all at once")
            if ticket.finished:
                raise Refused(409, "ticket_finished", "AUTO already showed this whole ticket")
            column = reveals_under_buttons(ticket.body)[button]
            shown = ticket.opened[button]
            if shown >= len(column):
                raise Refused(409, "button_spent", f"button {button} has nothing more under it")
            opened = list(ticket.opened)
            opened[button] = shown + 1
            self.ledger.save_progress(db, ulid, opened, False)
        letter, x2 = column[shown]
        return Reveal(button, letter, x2, len(column) - shown - 1)

    def auto(self, ulid: str) -> Ticket:
        """Finish the ticket. A ticket with nothing left to reveal is refused (409): one AUTO
        already finished, or a robots ticket whose every button was clicked to its end (its
        ticket is in the history, where the rules send a player to check a unit)."""
        with self.ledger.transaction() as db:
            ticket = self.ledger.ticket(ulid, db)
            assert ticket is not None
            if ticket.finished:
                raise Refused(409, "ticket_finished", "this ticket was already finished by AUTO")
            everything = [0] * BUTTONS
            if ticket.game == "robots":
                everything = [len(column) for column in reveals_under_buttons(ticket.body)]
                if ticket.opened == everything:
                    raise Refused(409, "ticket_finished", "every button was clicked to its end")
            self.ledger.save_progress(db, ulid, everything, True)
        return ticket

    def wins(self, ticket: Ticket) -> dict[str, Any]:
        result: dict[str, Any] = self.evaluators[ticket.game].evaluate(ticket.stake, ticket.body)
        for win in result["wins"]:  # an extra field of ours in each win
            win["letter"] = WIN_LETTERS[win["symbol"]]
        return result
