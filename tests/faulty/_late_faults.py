"""Faults that hide in old accounts, deep in a block and late (issue 27, "old, deep and late"):
each keyed to an age the suite did not reach in the profile that claimed to cover it (written
5 December 2026 from the ages table of docs/certify.md, "Ages a run reaches"):

- an account's plays past its 512th (the full profile's old accounts made 402; a control: the
  full profile's deep and top-lot plays, whose balances are judged, reach thousands on one
  account, and caught it; the test profile did not);
- a history deeper than 500 entries (the same accounts' listings were 402 deep), and AUTO on a
  play older than its account's newest 500;
- the first units of a block after the sales moved on from the previous one (no run crossed a
  block's end: ``play.deep_stream`` stopped judging when its block ran out);
- the last units of a block (the same).

The last two are a server that has sold for weeks: the block on sale at every (game, stake)
has ``LEFT`` units left when the run starts (``_NearBlockEnd``), as a live target's has; a
fresh one's end is 900 000 or 2 000 000 units away, past any run's reach, which the report
says; 50 000 units are past what a full run's checks sell at a stake, within the soak's
reach. Each class is the reference with one behaviour changed, its docstring the bug as a
vendor would write it (``variants.py`` registers them with what must catch them).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from reference import GAMES, load_rules
from reference._blocks import Block, Unit
from reference._service import Document, GameService

from ._round4_faults import (
    HistoryArchivePrizeZero,
    WearOutAfter300Plays,
    _CreditOnAuto,
    _LotDroppedInSale,
)

# == an account's age in plays, a history's depth ===============================================


class WinsQueuedPast512Plays(WearOutAfter300Plays):
    """Robots 4.10 / eldorado 4.6: the wallet keeps an account's last plays in a ring of 512
    rows for the synchronous credit; from an account's 512th play on, the ring is full and
    its credits go to the asynchronous queue, written only when the ticket is finished (AUTO):
    the play's answer and the balance lack the lot meanwhile. An account of fewer than 512
    plays is always right."""

    LIGHT = 511


class HistoryPrizeZeroPast500Entries(HistoryArchivePrizeZero):
    """Contract 4 / robots 4.1: an account's plays older than its newest 500 are moved to the
    archive table, which keeps the ticket but not the prize (the column was forgotten in the
    migration, read back as 0): deep in a long history every entry shows ``prize_cents`` 0.
    The newest 500 entries are right."""

    HOT = 500


class AutoPrizeZeroPast500Plays(GameService):
    """Contract 4 (AUTO's answer, "asked again, the same answer"): a play older than its
    account's newest 500 lives in the archive table, which kept the ticket but not the prize
    (the same forgotten column): AUTO asked on it answers ``prize_cents`` 0 and no wins. The
    play's credit, the history and AUTO on the newest 500 plays are right."""

    HOT = 500

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        with self._connection() as db:
            row = db.execute(
                "SELECT COUNT(*) AS n FROM plays WHERE account_id = "
                "(SELECT account_id FROM plays WHERE play_id = ?) AND seq > "
                "(SELECT seq FROM plays WHERE play_id = ?)",
                (str(play_id), str(play_id)),
            ).fetchone()
        if int(row["n"]) < self.HOT:
            return answer
        return {**answer, "prize_cents": 0, "wins": []}


# == the end of a block, the switch to the next =================================================


class _NearBlockEnd(GameService):
    """A server that has sold for weeks: the block on sale at every (game, stake) has ``LEFT``
    units left when it starts (a fresh reference's cursor is at unit 0 of block 1)."""

    LEFT = 50_000

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        with self._transaction() as db:
            for game in GAMES:
                rules = load_rules(game)
                for stake in rules.stakes_cents:
                    db.execute(
                        "INSERT OR IGNORE INTO sales VALUES (?, ?, 1, ?)",
                        (game, stake, rules.block_units - self.LEFT),
                    )


def _block_number(block_id: str) -> int:
    """The number of a block id of the reference's form (``robots-100-0001``)."""
    return int(str(block_id).rsplit("-", 1)[-1])


class NextBlockFirstUnitsLotLost(_NearBlockEnd, _LotDroppedInSale):
    """Robots 4.10 / eldorado 4.6: when a block is sold out, the sales move to the next one at
    once, but the wallet's lot table of the new block is loaded by a job that runs every few
    minutes; until then (its first 1 000 units, at a player's rate) a winning unit of the new
    block is credited nothing. The block a server starts with, the ticket, AUTO and the
    history are right."""

    UNLOADED = 1_000

    def drops_lot(
        self, db: sqlite3.Connection, owner: str, block: Block, unit: Unit, balance: int
    ) -> bool:
        return _block_number(block.block_id) >= 2 and unit.index < self.UNLOADED


class BlockTailWinsQueued(_NearBlockEnd, _CreditOnAuto):
    """Robots 4.10 / eldorado 4.6: the last 1 000 units of a block are sold while the next
    block is being loaded; the wallet, to keep the switch atomic, queues their credits and
    writes each only when its ticket is finished (AUTO): the play's answer and the balance
    lack the lot meanwhile. Every other unit is right."""

    TAIL = 1_000

    def holds_back(self, owner: str, block: Block, unit: Unit) -> bool:
        return unit.index >= block.units - self.TAIL  # the unit sold decides, not the account


__all__ = [
    "AutoPrizeZeroPast500Plays",
    "BlockTailWinsQueued",
    "HistoryPrizeZeroPast500Entries",
    "NextBlockFirstUnitsLotLost",
    "WinsQueuedPast512Plays",
]
