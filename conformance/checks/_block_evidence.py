"""The block checks' evidence: one unit line (``block_unit``) and a block finding (``block``).

Each is a frozen value that writes the input a case file holds (``input``), names the
requirement it breaks and replays itself: ``BlockLineEvidence.replay`` reads the one unit
again and judges it exactly; ``BlockEvidence.replay`` audits the block, the slice or the pair
again (the listing, a slice, a block's statistics: randomness, unrelated blocks, top tiers, or
an aspect of the whole document such as the lot table). The replayers use the block checks'
readers (``checks/blocks.py``), imported when a replay runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from .._evidence import Serialised, require
from .._replay import register_kind
from ._block_reading import (
    EXPECTED,
    block_chunks,
    chunk_lines,
    compare_slice,
    entry_faults,
    of_pair,
    read_slice,
    reaudit,
)


@dataclass(frozen=True)
class BlockLineEvidence(Serialised):
    """One unit line of a block that breaks a rule (an ``aspect`` of the audit)."""

    KIND: ClassVar[str] = "block_unit"

    block_id: str
    game: str
    stake_cents: int
    aspect: str
    index: int
    expected: Any
    got: Any  # the unit line, as text
    request: Mapping[str, Any]
    note: str = ""
    requirements: tuple[str, ...] = ()

    @property
    def input(self) -> dict[str, Any]:
        return {
            "kind": self.KIND,
            "block_id": self.block_id,
            "game": self.game,
            "stake_cents": self.stake_cents,
            "aspect": self.aspect,
            "index": self.index,
        }

    @classmethod
    def replay(cls, adapter: Any, case: Mapping[str, Any]) -> BlockLineEvidence | None:
        """Read the one unit again and judge it exactly; evidence if it is still faulty."""
        import reference

        from .._audit import judge_line

        require(case, "block_id", "game", "stake_cents", "index")
        game, stake, block_id, index = (
            case["game"],
            case["stake_cents"],
            case["block_id"],
            case["index"],
        )
        stream = adapter.read_block(block_id, index, 1)
        try:
            lines = list(chunk_lines(block_chunks(stream), 2))
        finally:
            stream.close()
        request = {"operation": "read_block", "block_id": block_id, "start": index, "count": 1}
        again = cls(block_id, game, stake, str(case.get("aspect")), index, None, None, request)
        if len(lines) != 1:
            return replace(again, expected="one unit line", got=f"{len(lines)} unit lines")
        table = frozenset(reference.load_rules(game).lot_table(stake).counts())
        verdict = judge_line(lines[0], game, stake, index, table)
        if not verdict.faults:
            return None
        return replace(
            again,
            expected=EXPECTED.get(str(case.get("aspect")), "a correct unit line"),
            got=lines[0].decode("utf-8", "replace"),
            note="; ".join(f"{aspect}: {message}" for aspect, message in verdict.faults),
        )


@dataclass(frozen=True)
class BlockEvidence(Serialised):
    """A finding on a block as a whole: its listing, a slice, its statistics (randomness,
    unrelated blocks, top tiers) or an aspect of the document (lot table, payout, ...).

    ``block_id`` None: the listing names no usable block. ``other_block_id``: the second block
    of an unrelated-blocks pair; ``blocks``: every block pooled by a top-tier finding."""

    KIND: ClassVar[str] = "block"

    block_id: str | None
    game: str
    stake_cents: int
    aspect: str
    start: int | None
    count: int | None
    expected: Any
    got: Any
    request: Mapping[str, Any]
    note: str = ""
    requirements: tuple[str, ...] = ()
    other_block_id: str | None = None
    blocks: tuple[Mapping[str, Any], ...] | None = None
    #: a slice read slowly: the seconds its reader stopped before each line (``stalled_lines``)
    stalls: Mapping[str, float] | None = None

    @property
    def input(self) -> dict[str, Any]:
        if self.aspect == "listing":  # the listing's evidence has always named its game first
            head = {"game": self.game, "stake_cents": self.stake_cents, "block_id": None}
        else:
            head = {"block_id": self.block_id}
            if self.other_block_id is not None:
                head["other_block_id"] = self.other_block_id
            head.update(game=self.game, stake_cents=self.stake_cents)
        shown: dict[str, Any] = {
            "kind": self.KIND,
            **head,
            "aspect": self.aspect,
            "start": self.start,
            "count": self.count,
        }
        if self.blocks is not None:
            shown["blocks"] = [dict(b) for b in self.blocks]
        if self.stalls:
            shown["stalls"] = dict(self.stalls)
        return shown

    @classmethod
    def replay(cls, adapter: Any, case: Mapping[str, Any]) -> BlockEvidence | None:
        """Audit the block (or slice, or pair) again; evidence if the aspect still fails."""
        import numpy as np

        from .. import _crossblock, _stats

        require(case, "block_id", "game", "stake_cents")
        game, stake, block_id = case["game"], case["stake_cents"], case["block_id"]
        aspect = str(case.get("aspect"))
        start, count = case.get("start"), case.get("count")
        request = {"operation": "read_block", "block_id": block_id, "start": start, "count": count}
        blocks = case.get("blocks")
        again = cls(
            block_id,
            game,
            stake,
            aspect,
            start,
            count,
            None,
            None,
            request,
            other_block_id=case.get("other_block_id"),
            blocks=tuple(blocks) if isinstance(blocks, list) else None,
            stalls=case.get("stalls") if isinstance(case.get("stalls"), Mapping) else None,
        )

        def still(expected: Any, got: Any, note: str = "") -> BlockEvidence:
            return replace(again, expected=expected, got=got, note=note)

        if aspect == "listing":
            listed = of_pair(adapter.list_blocks(game, stake), game, stake)
            problems = [m for e in listed for m in entry_faults(e, game, stake)[1]]
            if not listed:
                problems.append(f"no block of {game} at {stake} listed")
            return still("a well-formed block list", problems) if problems else None
        if aspect == "slice":
            assert isinstance(start, int) and isinstance(count, int)
            lo = max(0, start - 1)
            stream = read_slice(adapter, block_id, lo, count + 2 if start else count + 1)
            try:
                units = int(stream.header.get("units", 0))
                lines = list(chunk_lines(block_chunks(stream), count + 2))
            finally:
                stream.close()
            kept = {lo + n: line for n, line in enumerate(lines)}
            stalls = case.get("stalls")  # read slowly again, as the run read it
            slow = {int(k): float(v) for k, v in stalls.items()} if stalls else None
            problems = compare_slice(adapter, block_id, start, start + count, kept, units, slow)
            return still("the same unit lines", problems) if problems else None
        if aspect == "top_tiers":
            require(case, "blocks")
            places = [
                _stats.top_tier_positions(r.prizes, r.expectation.lots)
                for r in (
                    reaudit(adapter, game, b["stake_cents"], b["block_id"], b["start"], b["count"])
                    for b in case["blocks"]
                )
            ]
            pooled = _stats.top_tiers(np.concatenate(places), 0.01)
            if pooled is None or pooled.passed:
                return None
            return still("top prizes at random places", pooled.p_values())
        result = reaudit(adapter, game, stake, block_id, start, count)
        if aspect == "randomness":
            verdict = _stats.winner_positions(result.prizes, result.expectation.lots, 20, 0.01)
            return None if verdict.passed else still("random positions", verdict.p_values())
        if aspect == "unrelated":
            require(case, "other_block_id")
            other = reaudit(adapter, game, stake, case["other_block_id"], start, count)
            lots = result.expectation.lots
            verdict = _crossblock.unrelated(result.prizes, other.prizes, lots, 0.01)
            return None if verdict.passed else still("unrelated blocks", verdict.p_values())
        faults = result.faults_of(aspect)
        if not faults:
            return None
        return still(EXPECTED.get(aspect, aspect), faults[0].message, faults[0].message)


register_kind(BlockLineEvidence)
register_kind(BlockEvidence)
