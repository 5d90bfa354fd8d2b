"""What a block audit is asked (``Expectation``) and what it finds (``Fault``, ``BlockAudit``).

Shared by the reader, the judge and the driver of ``conformance._audit``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

import reference

ASPECTS: tuple[str, ...] = (
    "header",
    "block_size",
    "sequence",
    "unit_lines",
    "unit_fields",
    "tickets",
    "unit_prize",
    "cumulated_gains",
    "lot_table",
    "payout_cap",
)
FORMAT = "block/1"

IntArray = npt.NDArray[np.int64]


class AuditError(Exception):
    """The audit could not start: unreadable file, no header line (message names the fault)."""


@dataclass(frozen=True)
class Expectation:
    """What the block must be: from the rules of its game and from the request that read it.

    ``start``/``count`` are the slice asked for (``None``: the whole block). ``lots`` maps every
    prize of the lot table, 0 (losing) included, to its units in a whole block.
    """

    game: str
    stake_cents: int
    block_units: int
    lots: Mapping[int, int]
    payout_cap_percent: int
    block_id: str | None = None
    start: int | None = None
    count: int | None = None

    @staticmethod
    def from_rules(
        game: str,
        stake_cents: int,
        block_id: str | None = None,
        start: int | None = None,
        count: int | None = None,
    ) -> Expectation:
        rules = reference.load_rules(game)
        table = rules.lot_table(stake_cents)
        return Expectation(
            game=game,
            stake_cents=stake_cents,
            block_units=rules.block_units,
            lots=dict(sorted(table.counts().items())),
            payout_cap_percent=rules.payout_cap_percent,
            block_id=block_id,
            start=start,
            count=count,
        )


@dataclass(frozen=True)
class Fault:
    """One broken rule in one place: ``position`` is the unit line's 0-based place in the
    document (None for the header or the document as a whole); ``line`` is its bytes, shortened."""

    aspect: str
    message: str
    position: int | None = None
    index: int | None = None  # the block index the line should hold
    line: bytes | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "aspect": self.aspect,
            "message": self.message,
            "position": self.position,
            "index": self.index,
            "line": None if self.line is None else self.line.decode("utf-8", "replace"),
        }


@dataclass(frozen=True)
class BlockAudit:
    """Everything one audit found; ``prizes`` holds each unit's declared prize (-1: none)."""

    header: dict[str, Any]
    expectation: Expectation
    start: int  # the slice the document should hold
    count: int
    units: int  # the block size the header declares (the rules' when it declares none)
    audited_units: int  # unit lines read
    sha256: str
    prizes: npt.NDArray[np.int32]
    lots_observed: dict[int, int]
    payout_cents: int
    cumulative_payout: list[list[int]]
    faults: tuple[Fault, ...]  # the first ``max_faults`` of each aspect, in document order
    fault_counts: dict[str, int]  # every fault, by aspect
    kept: dict[int, bytes] = field(default_factory=dict)  # block index -> unit line, on request

    @property
    def whole(self) -> bool:
        return self.start == 0 and self.count == self.expectation.block_units

    @property
    def face_value_cents(self) -> int:
        return self.audited_units * self.expectation.stake_cents

    def failed(self, aspect: str) -> bool:
        return self.fault_counts.get(aspect, 0) > 0

    def faults_of(self, aspect: str) -> list[Fault]:
        return [f for f in self.faults if f.aspect == aspect]

    def lots_expected(self) -> dict[int, int]:
        return dict(self.expectation.lots)

    def block_audited(self, p_values: Mapping[str, float] | None = None) -> dict[str, Any]:
        """The fields of ``harness.BlockAudited`` for ``ctx.block_sink``."""
        return {
            "block_id": str(self.header.get("block_id", self.expectation.block_id or "")),
            "game": self.expectation.game,
            "stake_cents": self.expectation.stake_cents,
            "units": self.units,
            "audited_units": self.audited_units,
            "sha256": self.sha256,
            "header": dict(self.header),
            "lots_expected": {str(k): v for k, v in self.expectation.lots.items()},
            "lots_observed": {str(k): v for k, v in sorted(self.lots_observed.items())},
            "payout_cents": self.payout_cents,
            "face_value_cents": self.face_value_cents,
            "p_values": dict(p_values or {}),
            "cumulative_payout": self.cumulative_payout,
        }
