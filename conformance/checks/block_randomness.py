"""Block checks of randomness (lab practice): where the winners sit in each block
(``blocks.randomness``), whether two blocks' layouts are related (``blocks.unrelated_blocks``),
and where the top prizes of every block read sit, pooled (``blocks.top_tiers``). They judge the
one audit of each block the other block checks share (``blocks``), each at its share of the
run's alpha (``check_alpha``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from .. import _crossblock, _stats
from .._audit import BlockAudit
from .._audit.driver import default_workers
from .._pool import map_in_order
from .._public_seeds import public_commitment, public_layout
from .._registry import CheckContext, CheckFailure, NotSupported, Reservation, check
from ._block_evidence import BlockEvidence
from .blocks import (
    AuditedBlock,
    audit_engine,
    audited_block,
    blocks_in_scope,
    check_alpha,
    per_game,
    two_or_more,
)


@check(
    "blocks.randomness",
    per_game=per_game("randomness.winner_positions"),
    capability="blocks",
    cost="block",
)
def randomness(ctx: CheckContext) -> None:
    """Winner positions pass the randomness family at α (Holm-Bonferroni), and no block is
    the reference's block of a public seed (``conformance/_public_seeds.py``)."""
    alpha = check_alpha(ctx)
    blocks = [block for _g, _s, _f, block in blocks_in_scope(ctx) if block is not None]
    # one family over every block in scope: a random target fails this check with chance <= α
    family = _stats.holm(
        [
            _stats.RandomnessTest(f"{b.block_id}:{r.name}", r.p_value, r.statistic, r.note)
            for b in blocks
            for r in b.randomness.results
        ],
        alpha,
    )
    rejected = set(family.rejected)
    broken: list[str] = []
    evidence: list[BlockEvidence] = []
    report: dict[str, Any] = {}
    for block in blocks:
        game = block.audit.expectation.game
        names = {r.name: r.p_value for r in block.randomness.results}
        mine = {n: p for n, p in names.items() if f"{block.block_id}:{n}" in rejected}
        report[block.block_id] = {
            "units": block.audit.audited_units,
            "p_values": names,
            "rejected": sorted(mine),
        }
        if mine:
            broken.append(f"{game}.randomness.winner_positions")
            expected = (
                f"every p-value above its Holm threshold (α = {alpha}, "
                f"{len(family.results)} tests over {len(blocks)} block(s))"
            )
            note = f"{block.block_id}: rejected " + ", ".join(
                f"{k} p={v:.3g}" for k, v in mine.items()
            )
            evidence.append(_randomness_evidence(block, expected, mine, note))
    for block in blocks:
        public = _public_seed(block)
        report[block.block_id]["public_seed"] = public
        if public is not None:
            game = block.audit.expectation.game
            broken.append(f"{game}.randomness.winner_positions")
            note = (
                f"{block.block_id}: the layout of the reference's block from {public}: "
                "every player with the public reference knows where its winners sit"
            )
            expected = "a layout no public seed gives (conformance/public_seeds.yaml)"
            evidence.append(_randomness_evidence(block, expected, public, note))
    ctx.details["randomness"] = report
    ctx.details["family"] = {"alpha": alpha, "tests": len(family.results)}
    if broken:
        raise CheckFailure(
            "winner positions are not random: " + "; ".join(e.note for e in evidence),
            evidence,
            requirements=tuple(sorted(set(broken))),
        )


def _randomness_evidence(block: AuditedBlock, expected: str, got: Any, note: str) -> BlockEvidence:
    """The evidence of a block failing ``<game>.randomness.winner_positions``."""
    game = block.audit.expectation.game
    return BlockEvidence(
        block_id=block.block_id,
        game=game,
        stake_cents=block.audit.expectation.stake_cents,
        aspect="randomness",
        start=block.request["start"],
        count=block.request["count"],
        requirements=(f"{game}.randomness.winner_positions",),
        expected=expected,
        got=got,
        request=block.request,
        note=note,
    )


def _public_seed(block: AuditedBlock) -> str | None:
    """The public seed the block was drawn from, by its header's commitment or its layout."""
    audit = block.audit
    expect = audit.expectation
    return public_commitment(audit.header) or public_layout(
        expect.game, expect.stake_cents, block.block_id, audit.start, audit.prizes
    )


T = TypeVar("T")


#: pairs of one stake's blocks compared at most: every pair of up to 8 listed blocks
MAX_PAIRS_PER_STAKE = 28


def pairs_to_compare(blocks: Sequence[T]) -> list[tuple[T, T]]:
    """Every two of a stake's listed blocks, the nearest in the listing first, at most
    ``MAX_PAIRS_PER_STAKE``: a block may repeat the layout of any earlier one, not only of the
    one before (a red team's vendor drew block keys from two HSM slots in turn, so block
    n + 2 had block n's layout; comparing only consecutive blocks CERTIFIED it)."""
    order = sorted(itertools.combinations(range(len(blocks)), 2), key=lambda p: (p[1] - p[0], p[0]))
    return [(blocks[i], blocks[j]) for i, j in order[:MAX_PAIRS_PER_STAKE]]


#: blocks of each stake compared with the same-numbered block of every other stake, at most
MAX_ACROSS_STAKES_BLOCKS = 8


def across_stakes_to_compare(by_stake: Sequence[Sequence[T]]) -> list[tuple[T, T]]:
    """For every two stakes of a game, their n-th listed blocks, for each n both list (up to
    ``MAX_ACROSS_STAKES_BLOCKS``), the first blocks first: a refill job may derive later
    blocks' keys without the stake when the first were made apart (a red team's eldorado
    blocks 2, 3, ... shared one layout at the three stakes and were CERTIFIED when only the
    first blocks were compared)."""
    pairs: list[tuple[T, T]] = []
    for n in range(MAX_ACROSS_STAKES_BLOCKS):
        pairs += [
            (a[n], b[n]) for a, b in itertools.combinations(by_stake, 2) if n < min(len(a), len(b))
        ]
    return pairs


@check(
    "blocks.unrelated_blocks",
    per_game=per_game("randomness.unrelated_blocks"),
    capability="blocks",
    cost="block",
)
def unrelated_blocks(ctx: CheckContext) -> None:
    """Listed blocks have unrelated winner positions: every two blocks of a stake (up to
    ``MAX_PAIRS_PER_STAKE``, the nearest first), and the n-th block of each stake of a game
    against the n-th of each other stake (the other stakes' blocks are as visible to a player
    as the blocks before)."""
    compared: dict[str, Any] = {}
    alpha = check_alpha(ctx)
    # (game, first, second, across stakes?): every pair to compare, in the reports' order
    todo: list[tuple[str, AuditedBlock, AuditedBlock, bool]] = []
    consecutive = 0
    single: dict[str, list[int]] = {}  # game -> stakes listing one block: not verifiable there
    for game in ctx.games():
        by_stake: list[list[AuditedBlock]] = []
        for stake in ctx.stakes(game):
            entries = two_or_more(ctx, game, stake)
            blocks = [audited_block(ctx, game, stake, e) for e in entries]
            by_stake.append(blocks)
            if len(entries) < 2:
                compared[f"{game}/{stake}"] = "fewer than two blocks listed: not compared"
                single.setdefault(game, []).append(stake)
                continue
            same_stake = pairs_to_compare(blocks)
            todo += [(game, first, second, False) for first, second in same_stake]
            consecutive += len(same_stake)
        todo += [(game, a, b, True) for a, b in across_stakes_to_compare(by_stake)]

    def compare(
        pair: tuple[str, AuditedBlock, AuditedBlock, bool],
    ) -> tuple[_stats.FamilyVerdict | None, str]:
        _game, first, second, across = pair
        return compare_audits(first.audit, second.audit, across, alpha)

    engine = audit_engine(ctx)
    if engine is not None:  # on the cluster, where the audits are: no prizes moved through here
        keys = [(_key_of(a), _key_of(b), (across, alpha)) for _g, a, b, across in todo]
        verdicts = engine.compare(compare_audits, keys)
    else:  # the pairs' FFTs release the GIL: side by side they use the cores the block phase owns
        verdicts = list(map_in_order(compare, todo, default_workers()))
    # (scale: "" for two blocks of a stake, else common_tiers')
    pairs: list[tuple[str, AuditedBlock, AuditedBlock, _stats.FamilyVerdict, str]] = []
    for (game, first, second, _), (verdict, scale) in zip(todo, verdicts, strict=True):
        if verdict is None:
            compared[f"{first.block_id}~{second.block_id}"] = scale
        else:
            pairs.append((game, first, second, verdict, scale))
    # one family over every pair compared: unrelated blocks fail with chance <= α
    family = _stats.holm(
        [
            _stats.RandomnessTest(f"{a.block_id}~{b.block_id}:{r.name}", r.p_value, r.statistic)
            for _game, a, b, verdict, _scale in pairs
            for r in verdict.results
        ],
        alpha,
    )
    broken: list[str] = []
    evidence: list[BlockEvidence] = []
    for game, first, second, verdict, scale in pairs:
        name = f"{first.block_id}~{second.block_id}"
        rejected = [r.name for r in verdict.results if f"{name}:{r.name}" in family.rejected]
        compared[name] = {"p_values": verdict.p_values(), "rejected": rejected}
        if scale:
            compared[name]["across_stakes"] = scale
        if rejected:
            broken.append(f"{game}.randomness.unrelated_blocks")
            evidence.append(
                BlockEvidence(
                    block_id=first.block_id,
                    other_block_id=second.block_id,
                    game=game,
                    stake_cents=first.audit.expectation.stake_cents,
                    aspect="unrelated",
                    start=first.request["start"],
                    count=first.request["count"],
                    requirements=(f"{game}.randomness.unrelated_blocks",),
                    expected=f"unrelated layouts (α = {alpha}, Holm over all pairs)",
                    got=verdict.p_values(),
                    request=first.request,
                    note=f"{name}: rejected "
                    + "; ".join(
                        f"{r.name} p={r.p_value:.3g}" + (f" ({r.note})" if r.note else "")
                        for r in verdict.results
                        if r.name in rejected
                    ),
                )
            )
    ctx.details["compared"] = compared
    if broken:
        raise CheckFailure(
            "blocks' winner positions are related: " + evidence[0].note,
            evidence,
            requirements=tuple(sorted(set(broken))),
        )
    for game, stakes in single.items():  # the contract lets a target list one block
        ctx.reserve(
            Reservation(
                f"{game}: one block listed at {', '.join(f'{s} cents' for s in stakes)}: the "
                "winner positions of two blocks of a stake could not be compared there",
                kind="unverifiable",
                basis="blocks-listed",
                lift="list at least two blocks per stake in GET /v1/blocks, or audit the "
                "emission's block files of each stake together: instantcert audit-block "
                "BLOCK_1.jsonl BLOCK_2.jsonl ...",
                requirements=(f"{game}.randomness.unrelated_blocks",),
            )
        )
    if not consecutive and not single and not pairs:
        raise NotSupported("no (game, stake) in scope lists two blocks to compare")


def _key_of(block: AuditedBlock) -> tuple[str, int | None, int | None]:
    """The block's ``BlockRequest.key``: how an engine names its audit."""
    return (block.block_id, block.request["start"], block.request["count"])


def compare_audits(
    a: BlockAudit, b: BlockAudit, across: bool, alpha: float
) -> tuple[_stats.FamilyVerdict | None, str]:
    """The ``unrelated`` family on two audited blocks: of one stake, or (``across``) of two
    stakes of a game (``_across_stakes``); with the scale of the tiers ("" for one stake)."""
    if across:
        return _across_stakes(a, b, alpha)
    return _crossblock.unrelated(a.prizes, b.prizes, a.expectation.lots, alpha), ""


def _across_stakes(
    a: BlockAudit, b: BlockAudit, alpha: float
) -> tuple[_stats.FamilyVerdict | None, str]:
    """``unrelated`` on the first blocks of two stakes, tiers on the scale ``common_tiers``
    finds (returned with the verdict); None and why not when the two were read at different
    places (the quick profile's slices are seeded per stake): they hold different units, and
    a comparison of them could see nothing."""
    if (a.start, a.count) != (b.start, b.count):
        return None, "across stakes: slices read at different places, not compared"
    codes_a, codes_b, lots, scale = _crossblock.common_tiers(
        a.prizes, a.expectation.lots, b.prizes, b.expectation.lots
    )
    return _crossblock.unrelated(codes_a, codes_b, lots, alpha), scale


@check(
    "blocks.top_tiers",
    per_game=per_game("randomness.top_tiers"),
    capability="blocks",
    cost="block",
)
def top_tiers(ctx: CheckContext) -> None:
    """The top prizes of every block read (at least two per stake), pooled per game, sit at
    uniformly random relative places (KS and Cramer-von Mises, Holm over both games)."""
    alpha = check_alpha(ctx)
    pooled: dict[str, tuple[list[AuditedBlock], _stats.FamilyVerdict]] = {}
    seen: dict[str, Any] = {}
    for game in ctx.games():
        blocks: list[AuditedBlock] = []
        places = []
        for stake in ctx.stakes(game):
            for entry in two_or_more(ctx, game, stake):
                block = audited_block(ctx, game, stake, entry)
                blocks.append(block)
                places.append(
                    _stats.top_tier_positions(block.audit.prizes, block.audit.expectation.lots)
                )
        verdict = _stats.top_tiers(np.concatenate(places) if places else np.zeros(0), alpha)
        seen[game] = {
            "blocks": [b.block_id for b in blocks],
            "top_tier_units": int(sum(len(p) for p in places)),
        }
        if verdict is not None:
            pooled[game] = (blocks, verdict)
            seen[game]["p_values"] = verdict.p_values()
        else:  # a quick run's slices (20 000 units) hold a robots top tier 1 time in 3
            seen[game]["not_judged"] = (
                f"no top-tier unit in the units read: {game}.randomness.top_tiers is not "
                "judged in this run (whole blocks, the full profile's, hold 157 to 182 each)"
            )
    ctx.details["top_tiers"] = seen
    if not pooled:
        raise NotSupported("no top-tier unit (a lot of at most 200 units) in the blocks read")
    family = _stats.holm(
        [
            _stats.RandomnessTest(f"{game}:{r.name}", r.p_value, r.statistic, r.note)
            for game, (_b, verdict) in pooled.items()
            for r in verdict.results
        ],
        alpha,
    )
    evidence: list[BlockEvidence] = []
    broken: list[str] = []
    for game, (blocks, verdict) in pooled.items():
        rejected = {
            r.name: r.p_value for r in verdict.results if f"{game}:{r.name}" in family.rejected
        }
        if not rejected:
            continue
        broken.append(f"{game}.randomness.top_tiers")
        first = blocks[0]
        evidence.append(
            BlockEvidence(
                block_id=first.block_id,
                game=game,
                stake_cents=first.audit.expectation.stake_cents,
                aspect="top_tiers",
                start=first.request["start"],
                count=first.request["count"],
                blocks=tuple(
                    {
                        "block_id": b.block_id,
                        "stake_cents": b.audit.expectation.stake_cents,
                        "start": b.request["start"],
                        "count": b.request["count"],
                    }
                    for b in blocks
                ),
                requirements=(f"{game}.randomness.top_tiers",),
                expected=f"top prizes at uniform relative places (α = {alpha}, Holm)",
                got=verdict.p_values(),
                request=first.request,
                note=f"{game}: {seen[game]['top_tier_units']} top-tier units over "
                f"{len(blocks)} block(s): rejected "
                + ", ".join(f"{k} p={v:.3g}" for k, v in rejected.items()),
            )
        )
    if broken:
        raise CheckFailure(
            "top prizes are not placed at random: " + "; ".join(e.note for e in evidence),
            evidence,
            requirements=tuple(sorted(broken)),
        )
