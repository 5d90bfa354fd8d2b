"""Block checks (blocks capability): articles 2 and 3 of both games, the 70 % cap, randomness.

Each block in scope is read once and audited by ``conformance._audit`` (every unit line, every
ticket re-evaluated); the checks below then each judge one group of requirements from that one
audit, so a faulty block fails exactly the requirements it breaks. The quick profile audits a
seeded slice of ``block_sample_units`` units of one block per (game, stake); the full profile
audits every listed block whole. A file target (``instantcert audit-block``) that holds a slice
is audited as that slice.

Evidence kinds: ``block_unit`` (one unit line: replay reads that unit again) and ``block`` (a
whole document, slice or pair of blocks: replay audits it again), both typed and replayed in
``_block_evidence``.
"""

from __future__ import annotations

import itertools
import random
import weakref
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

import reference
from reference import _strict_json as strict_json

from .. import _crossblock, _stats
from .._audit import BlockAudit, Expectation, Fault, audit, chunks_from_lines
from .._audit.driver import default_workers
from .._audit_engine import AuditEngine, BlockRequest
from .._file_target import block_file_of
from .._pool import map_in_order
from .._public_seeds import public_commitment, public_layout
from .._registry import CheckContext, CheckFailure, NotSupported, Reservation, check
from ..games import GameKit
from ._block_evidence import BlockEvidence, BlockLineEvidence

EVIDENCE_PER_BLOCK = 5
SLICE_SIZES = (1, 7, 50)
PAGE_SIZES = (1000, 1024, 4096, 8192, 10_000, 16_384, 65_536, 100_000, 131_072)
"""Sizes a server's slices may be paged, cached or batched by: a slice of ``SLICE_SIZES[1]``
units straddles one boundary of each (where the span has one), where an off-by-one or a page
picked from ``start`` alone shows; a random slice of 7 or 50 units crosses a 4096-unit boundary
about once in 80 blocks."""
LONG_SLICE = 3 * 4096 + 123  # units: crosses several boundaries of every page size up to 4096
SLICE_DIFFERENCES = 3  # the units quoted of one slice's differences (the rest are counted)

# what each aspect's faults break, per game: {game}.{article}.{slug}
_GAME_ASPECTS = {
    "block_size": "2.block_size",
    "sequence": "2.unit_sequence",
    "tickets": "2.valid_tickets",
    "unit_prize": "3.unit_prize",
    "cumulated_gains": "3.cumulated_gains",
    "payout_cap": "3.payout_cap",
}
_EXPECTED = {
    "header": "a block/1 header for the block and slice asked for (contract 3)",
    "block_size": "the rules' block size (article 2)",
    "sequence": "indices start .. start+count-1, one line each, in order (article 2)",
    "unit_lines": '{"index": int, "prize_cents": int, "ticket": str} and nothing else (contract 3)',
    "tickets": "a valid ticket (contract 1)",
    "unit_prize": "prize_cents = the prize the ticket wins (article 3, lot global de l'unité)",
    "cumulated_gains": "prize_cents = the sum of all the ticket's gains (article 3)",
    "lot_table": "exactly the lot table's units of each prize and its total (article 3)",
    "payout_cap": "a payout of at most 70 % of the face value (Arrêté du 9 mars 2006, art. 2)",
}


RANDOMNESS_CHECKS = ("blocks.randomness", "blocks.unrelated_blocks", "blocks.top_tiers")


def check_alpha(ctx: CheckContext) -> float:
    """The level each randomness check holds: the run's ``alpha`` split evenly over the
    ``RANDOMNESS_CHECKS`` (Bonferroni; Holm within each), so that a correct target fails
    *any* randomness requirement with probability at most ``alpha`` per run, not ``alpha``
    for each of them (six requirements at 0.01 each would reject about one correct target
    in seventeen)."""
    return float(ctx.settings.alpha) / len(RANDOMNESS_CHECKS)


def requirement_of(aspect: str, game: str, stake_cents: int) -> str:
    """The requirement id a fault of ``aspect`` breaks in a block of (game, stake)."""
    if aspect == "header":
        return "blocks.contract3.header"
    if aspect == "unit_lines":
        return "blocks.contract3.unit_lines"
    if aspect == "lot_table":
        article = reference.load_rules(game).lot_table(stake_cents).article
        return f"{game}.{article}.lot_table"
    return f"{game}.{_GAME_ASPECTS[aspect]}"


def _each(slug: str) -> Callable[[GameKit], list[str]]:
    """``<game>.<slug>`` for a game's kit: what a block check covers for each game."""
    return lambda kit: [f"{kit.name}.{slug}"]


def lot_table_requirements(kit: GameKit) -> list[str]:
    """``<game>.<article>.lot_table`` for each of the game's stakes (one lot table each)."""
    rules = reference.load_rules(kit.name)
    articles = [rules.lot_table(stake).article for stake in rules.stakes_cents]
    return [f"{kit.name}.{article}.lot_table" for article in dict.fromkeys(articles)]


@dataclass
class AuditedBlock:
    """One block read and audited, with what the block list said of it."""

    entry: dict[str, Any]
    request: dict[str, Any]
    audit: BlockAudit
    randomness: _stats.FamilyVerdict
    keep: tuple[tuple[int, int], ...]
    extra_faults: list[Fault] = field(default_factory=list)

    @property
    def block_id(self) -> str:
        return str(self.entry["block_id"])

    def faults(self, aspect: str) -> list[Fault]:
        return [f for f in self.extra_faults if f.aspect == aspect] + self.audit.faults_of(aspect)

    def fault_count(self, aspect: str) -> int:
        extra = sum(1 for f in self.extra_faults if f.aspect == aspect)
        return extra + self.audit.fault_counts.get(aspect, 0)


# -- the per-target session: each block is listed and audited once per run ------------------


@dataclass
class _Session:
    listed: dict[tuple[str, int], list[dict[str, Any]] | Exception] = field(default_factory=dict)
    audits: dict[tuple[Any, ...], AuditedBlock | Exception] = field(default_factory=dict)


_SESSIONS: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], _Session]] = (
    weakref.WeakKeyDictionary()
)


def _session(ctx: CheckContext) -> _Session:
    key = (
        ctx.seed,
        ctx.settings.block_mode,
        ctx.settings.block_sample_units,
        check_alpha(ctx),
        ctx.settings.randomness_segments,
        _file_slice(ctx),
    )
    try:
        # a check sees the run's adapter through a guard of its own (harness._budget): share
        # across checks by the adapter behind it
        sessions = _SESSIONS.setdefault(getattr(ctx.adapter, "underlying", ctx.adapter), {})
    except TypeError:  # an adapter that cannot be weakly referenced: no sharing across checks
        return _Session()
    return sessions.setdefault(key, _Session())


def audited_prizes(adapter: Any, block_id: str) -> list[tuple[int, Any]]:
    """(start, declared prizes) of every slice of ``block_id`` this run's block audits of
    ``adapter`` have read: what the play checks know of a block without reading it again
    (``play.top_lots``: never a read of the units ahead right before buying them)."""
    try:
        sessions = _SESSIONS.get(getattr(adapter, "underlying", adapter), {})
    except TypeError:
        return []
    return [
        (value.audit.start, value.audit.prizes)
        for session in list(sessions.values())
        for key, value in list(session.audits.items())
        if key[2] == block_id and not isinstance(value, Exception)
    ]


def read_prizes(adapter: Any, game: str, stake: int, block_id: str) -> tuple[int, Any]:
    """(start, declared prizes) of the whole of ``block_id``, read now through ``adapter`` and
    judged on this thread (no process forked: a check beside others may call it): for a play
    check that must know a block long before it buys from it and finds no audit of this run
    that read it (``audited_prizes``). A unit without a declared prize holds -1."""
    stream = adapter.read_block(block_id, None, None)
    try:
        found = audit(
            stream.header,
            _chunks(stream),
            Expectation.from_rules(game, stake, block_id),
            header_bytes=getattr(stream, "header_bytes", None),
            workers=1,
            processes=False,
        )
    finally:
        stream.close()
    return found.start, found.prizes


def _listed(ctx: CheckContext, game: str, stake: int) -> list[dict[str, Any]]:
    session = _session(ctx)
    if (game, stake) not in session.listed:
        try:
            session.listed[(game, stake)] = list(ctx.adapter.list_blocks(game, stake))
        except Exception as exc:
            session.listed[(game, stake)] = exc
    value = session.listed[(game, stake)]
    if isinstance(value, Exception):
        raise value
    return value


def _entry_faults(
    entry: dict[str, Any], game: str, stake: int
) -> tuple[dict[str, Any] | None, list[str]]:
    """The list entry if usable, and what is wrong with its values (contract 4: GET
    /v1/blocks). Its shape (an object, ``units`` an integer, ``block_id`` a string) passed
    block-list.schema.json at the seam (``contract.Validated``) before it came here."""
    faults = []
    block_id, units = entry["block_id"], entry["units"]
    if entry["game"] != game or entry["stake_cents"] != stake:
        faults.append(
            f"the block list for {game} at {stake} holds {entry['game']!r} at "
            f"{entry['stake_cents']!r}: {entry!r}"
        )
    if units < 0:
        faults.append(f"block list entry 'units' must be an integer >= 0, got {units!r}")
    if not block_id:
        faults.append(f"block list entry 'block_id' must be a non-empty string, got {block_id!r}")
        return None, faults
    return entry, faults


def _span(ctx: CheckContext, game: str, stake: int, units: int) -> tuple[int | None, int | None]:
    """The slice to audit: the file's own slice, the whole block, or a seeded sample."""
    document = _file_slice(ctx)
    if document is not None:
        return document
    sample = ctx.settings.block_sample_units
    if ctx.settings.block_mode == "whole" or sample is None or sample >= units:
        return None, None
    start = random.Random(f"{ctx.seed}:{game}:{stake}").randrange(units - sample + 1)
    return start, int(sample)


def _file_slice(ctx: CheckContext) -> tuple[int, int] | None:
    """(start, count) of the slice a block *file* holds; None for a whole block or any other
    target (a target's own ``describe()`` cannot ask for a slice audit: ``block_file_of``)."""
    target = block_file_of(ctx.adapter)
    return None if target is None else target.document_slice


def _keep_ranges(start: int, count: int, seed: str) -> tuple[tuple[int, int], ...]:
    """Small slices inside [start, start+count) to re-read for the slice check."""
    if count <= 0:
        return ()
    rng = random.Random(seed)
    end = start + count
    ranges = {(start, start + 1), (end - 1, end)}
    for size in SLICE_SIZES[1:]:
        if size <= count:
            lo = start + rng.randrange(count - size + 1)
            ranges.add((lo, lo + size))
    size = SLICE_SIZES[1]
    for page in PAGE_SIZES:
        # the multiples of ``page`` a straddling slice fits around, inside the span
        first, last = -(-(start + size) // page), (end - size) // page
        if first <= last:
            at = rng.randint(first, last) * page
            lo = at - rng.randrange(1, size)  # at least one unit on each side of ``at``
            ranges.add((lo, lo + size))
    if count > LONG_SLICE:
        lo = start + rng.randrange(count - LONG_SLICE + 1)
        ranges.add((lo, lo + LONG_SLICE))
    return tuple(sorted(ranges))


def _chunks(stream: Any) -> Iterator[bytes]:
    chunks: Callable[[], Iterator[bytes]] | None = getattr(stream, "chunks", None)
    if chunks is not None:
        return chunks()
    lines: Iterator[bytes] = stream.lines()
    return chunks_from_lines(lines)


def _span_of(
    ctx: CheckContext, game: str, stake: int, entry: dict[str, Any]
) -> tuple[int | None, int | None]:
    """The slice of a listed block the checks audit (``_span``; None, None: whole)."""
    units = (
        entry["units"]
        if type(entry.get("units")) is int
        else reference.load_rules(game).block_units
    )
    return _span(ctx, game, stake, units)


def _audited(ctx: CheckContext, game: str, stake: int, entry: dict[str, Any]) -> AuditedBlock:
    start, count = _span_of(ctx, game, stake, entry)
    key = (game, stake, entry["block_id"], start, count)
    session = _session(ctx)
    if key not in session.audits:
        try:
            session.audits[key] = _audit_block(ctx, game, stake, entry, start, count)
        except Exception as exc:
            session.audits[key] = exc
    value = session.audits[key]
    if isinstance(value, Exception):
        raise value
    return value


def _block_request(
    ctx: CheckContext,
    game: str,
    stake: int,
    entry: dict[str, Any],
    start: int | None,
    count: int | None,
) -> BlockRequest:
    """What auditing a listed block asks: its expectation, the units to keep for the slice
    check, the randomness family's segments and level."""
    block_id = str(entry["block_id"])
    expect = Expectation.from_rules(game, stake, block_id, start, count)
    span_start = 0 if start is None else start
    span_count = (entry.get("units") if count is None else count) or 0
    keep = _keep_ranges(span_start, int(span_count), f"{ctx.seed}:{block_id}")
    return BlockRequest(block_id, expect, keep, ctx.settings.randomness_segments, check_alpha(ctx))


def _audit_block(
    ctx: CheckContext,
    game: str,
    stake: int,
    entry: dict[str, Any],
    start: int | None,
    count: int | None,
) -> AuditedBlock:
    asked = _block_request(ctx, game, stake, entry, start, count)
    block_id, expect, keep = asked.block_id, asked.expect, asked.keep
    request = {"operation": "read_block", "block_id": block_id, "start": start, "count": count}
    engine = _engine(ctx)
    if engine is not None:  # audited where the file is read, its randomness family there too
        engine.submit(_requests(ctx))
        done = engine.audited(asked)
        result, randomness = done.audit, done.randomness
        audited_by: dict[str, Any] | None = done.audited_by
    else:
        span_count = (entry.get("units") if count is None else count) or 0
        total = span_count if isinstance(span_count, int) else None
        result = _audit_here(ctx, asked, start, count, total)
        randomness = _stats.winner_positions(
            result.prizes,
            expect.lots,
            ctx.settings.randomness_segments,
            check_alpha(ctx),
        )
        audited_by = None
    extra: list[Fault] = []
    header = result.header
    for key in ("block_id", "game", "stake_cents", "units"):
        if key in header and header.get(key) != entry.get(key):
            extra.append(
                Fault(
                    "header",
                    f"the header says {key} {header.get(key)!r}, the block list {entry.get(key)!r}",
                )
            )
    record = result.block_audited(randomness.p_values())
    if audited_by is not None:
        record["audited_by"] = audited_by
    ctx.block_sink(record)
    return AuditedBlock(dict(entry), request, result, randomness, keep, extra)


def _audit_here(
    ctx: CheckContext, asked: BlockRequest, start: int | None, count: int | None, total: int | None
) -> BlockAudit:
    """The block read through the run's adapter and audited in this process."""
    what = f"auditing block {asked.block_id}"
    stream = ctx.adapter.read_block(asked.block_id, start, count)
    try:
        return audit(
            stream.header,
            _chunks(stream),
            asked.expect,
            header_bytes=getattr(stream, "header_bytes", None),
            keep=asked.keep,
            progress=lambda done: ctx.progress(done, total, what),
        )
    finally:
        stream.close()


def _engine(ctx: CheckContext) -> AuditEngine | None:
    """The engine the harness's own block-file target audits its blocks on, if any (a
    target's adapter of its own cannot offer one: ``block_file_of``)."""
    files = block_file_of(ctx.adapter)
    return None if files is None else files.engine


def _requests(ctx: CheckContext) -> list[BlockRequest]:
    """Every block the checks will audit, asked as ``_audit_block`` asks: handed to an engine
    at once, so that a cluster audits them side by side."""
    requests: dict[tuple[Any, ...], BlockRequest] = {}
    for game in ctx.games():
        for stake in ctx.stakes(game):
            for entry in [*_chosen(ctx, game, stake)[0], *_two_or_more(ctx, game, stake)]:
                start, count = _span_of(ctx, game, stake, entry)
                request = _block_request(ctx, game, stake, entry, start, count)
                requests.setdefault(request.key, request)
    return list(requests.values())


def _chosen(ctx: CheckContext, game: str, stake: int) -> tuple[list[dict[str, Any]], list[str]]:
    """The listed blocks in scope (``blocks_per_stake``) and the faults of the list itself."""
    faults: list[str] = []
    usable: list[dict[str, Any]] = []
    listed = _listed(ctx, game, stake)
    if not isinstance(listed, list) or not listed:
        faults.append(f"GET /v1/blocks lists no block of {game} at {stake} cents")
    for raw in listed:
        entry, problems = _entry_faults(raw, game, stake)
        faults.extend(problems)
        if entry is not None:
            usable.append(entry)
    wanted = ctx.settings.blocks_per_stake
    return (usable if wanted is None else usable[: int(wanted)]), faults


def _two_or_more(ctx: CheckContext, game: str, stake: int) -> list[dict[str, Any]]:
    """The blocks in scope, at least the first two listed when there are two: the blocks the
    cross-block and pooled tests read (the quick profile's one block is not enough)."""
    entries, _faults = _chosen(ctx, game, stake)
    if len(entries) < 2:
        listed = [_entry_faults(r, game, stake)[0] for r in _listed(ctx, game, stake)]
        entries = [e for e in listed if e is not None][:2]
    return entries


def _scope(ctx: CheckContext) -> Iterator[tuple[str, int, list[str], AuditedBlock | None]]:
    """Every (game, stake) in scope with its list faults, and each audited block."""
    for game in ctx.games():
        for stake in ctx.stakes(game):
            entries, faults = _chosen(ctx, game, stake)
            if not entries:
                yield game, stake, faults, None
            for n, entry in enumerate(entries):
                yield game, stake, faults if n == 0 else [], _audited(ctx, game, stake, entry)


# -- evidence --------------------------------------------------------------------------------


def _evidence(block: AuditedBlock, fault: Fault) -> BlockLineEvidence | BlockEvidence:
    expect = block.audit.expectation
    game, stake = expect.game, expect.stake_cents
    requirements = (requirement_of(fault.aspect, game, stake),)
    if fault.index is not None and fault.line is not None:
        return BlockLineEvidence(
            block_id=block.block_id,
            game=game,
            stake_cents=stake,
            aspect=fault.aspect,
            index=fault.index,
            expected=_EXPECTED.get(fault.aspect, fault.aspect),
            got=fault.line.decode("utf-8", "replace"),
            request=block.request,
            note=f"unit line {fault.position} (index {fault.index}): {fault.message}",
            requirements=requirements,
        )
    return BlockEvidence(
        block_id=block.block_id,
        game=game,
        stake_cents=stake,
        aspect=fault.aspect,
        start=block.request["start"],
        count=block.request["count"],
        expected=_EXPECTED.get(fault.aspect, fault.aspect),
        got=fault.message,
        request=block.request,
        note=fault.message,
        requirements=requirements,
    )


def _judge(ctx: CheckContext, aspects: Sequence[str], title: str) -> None:
    """Fail with evidence if any audited block in scope has faults of ``aspects``."""
    broken: dict[str, int] = {}
    evidence: list[BlockLineEvidence | BlockEvidence] = []
    audited: list[dict[str, Any]] = []
    for game, stake, list_faults, block in _scope(ctx):
        if "header" in aspects:
            for message in list_faults:
                broken["blocks.contract3.header"] = broken.get("blocks.contract3.header", 0) + 1
                evidence.append(
                    BlockEvidence(
                        block_id=None,
                        game=game,
                        stake_cents=stake,
                        aspect="listing",
                        start=None,
                        count=None,
                        expected="one entry {block_id, game, stake_cents, units} per block",
                        got=message,
                        request={"operation": "list_blocks", "game": game, "stake_cents": stake},
                        requirements=("blocks.contract3.header",),
                    )
                )
        if block is None:
            continue
        audited.append(
            {
                "block_id": block.block_id,
                "start": block.audit.start,
                "count": block.audit.count,
                "audited_units": block.audit.audited_units,
                "sha256": block.audit.sha256,
            }
        )
        for aspect in aspects:
            n = block.fault_count(aspect)
            if n:
                requirement = requirement_of(aspect, game, stake)
                broken[requirement] = broken.get(requirement, 0) + n
                evidence.extend(
                    _evidence(block, f) for f in block.faults(aspect)[:EVIDENCE_PER_BLOCK]
                )
    ctx.details["blocks"] = audited
    if broken:
        ctx.details["faults"] = broken
        summary = "; ".join(f"{req}: {n} fault(s)" for req, n in sorted(broken.items()))
        raise CheckFailure(f"{title}: {summary}", evidence, requirements=tuple(sorted(broken)))


@check("blocks.header", covers=["blocks.contract3.header"], capability="blocks", cost="block")
def header(ctx: CheckContext) -> None:
    """Every block listed answers with a block/1 header for the block and slice asked for."""
    _judge(ctx, ["header"], "block header")


@check(
    "blocks.block_size",
    per_game=_each("2.block_size"),
    capability="blocks",
    cost="block",
)
def block_size(ctx: CheckContext) -> None:
    """Each block holds the rules' number of units (article 2)."""
    _judge(ctx, ["block_size"], "block size")


@check(
    "blocks.unit_sequence",
    per_game=_each("2.unit_sequence"),
    capability="blocks",
    cost="block",
)
def unit_sequence(ctx: CheckContext) -> None:
    """Indices run start..start+count-1, one line each, in order; the stream is complete."""
    _judge(ctx, ["sequence"], "unit sequence")


@check(
    "blocks.unit_lines", covers=["blocks.contract3.unit_lines"], capability="blocks", cost="block"
)
def unit_lines(ctx: CheckContext) -> None:
    """Every unit line is a JSON object with exactly index, prize_cents and ticket."""
    _judge(ctx, ["unit_lines"], "unit lines")


@check(
    "blocks.valid_tickets",
    per_game=_each("2.valid_tickets"),
    capability="blocks",
    cost="block",
)
def valid_tickets(ctx: CheckContext) -> None:
    """Every unit's ticket is valid notation (contract 1)."""
    _judge(ctx, ["tickets"], "tickets")


@check(
    "blocks.unit_prize",
    per_game=_each("3.unit_prize"),
    capability="blocks",
    cost="block",
)
def unit_prize(ctx: CheckContext) -> None:
    """Every declared prize equals the reference's evaluation of the unit's ticket."""
    _judge(ctx, ["unit_prize"], "declared prizes")


@check(
    "blocks.cumulated_gains",
    per_game=_each("3.cumulated_gains"),
    capability="blocks",
    cost="block",
)
def cumulated_gains(ctx: CheckContext) -> None:
    """A unit with several gains declares their sum (article 3: the lot may be a cumul)."""
    _judge(ctx, ["cumulated_gains"], "cumulated gains")


@check(
    "blocks.lot_table",
    per_game=lot_table_requirements,
    capability="blocks",
    cost="block",
)
def lot_table(ctx: CheckContext) -> None:
    """Lot counts and payout exactly the table's (whole blocks); no prize outside the table,
    no tier above its count (slices)."""
    _judge(ctx, ["lot_table"], "lot table")


@check(
    "blocks.payout_cap",
    per_game=_each("3.payout_cap"),
    capability="blocks",
    cost="block",
)
def payout_cap(ctx: CheckContext) -> None:
    """A whole block pays at most 70 % of its face value."""
    _judge(ctx, ["payout_cap"], "payout cap")


@check(
    "blocks.randomness",
    per_game=_each("randomness.winner_positions"),
    capability="blocks",
    cost="block",
)
def randomness(ctx: CheckContext) -> None:
    """Winner positions pass the randomness family at α (Holm-Bonferroni), and no block is
    the reference's block of a public seed (``conformance/_public_seeds.py``)."""
    alpha = check_alpha(ctx)
    blocks = [block for _g, _s, _f, block in _scope(ctx) if block is not None]
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


def _line_value(line: bytes) -> Any:
    try:
        return strict_json.loads(line)
    except strict_json.JsonError:
        return line.decode("utf-8", "replace")


def compare_slice(
    adapter: Any, block_id: str, lo: int, hi: int, kept: Mapping[int, bytes], units: int
) -> list[str]:
    """What differs between the slice [lo, hi) read alone and the same lines read before."""
    problems: list[str] = []
    stream = adapter.read_block(block_id, lo, hi - lo)
    try:
        header = stream.header
        want = {"block_id": block_id, "units": units, "start": lo, "count": hi - lo}
        for key, value in want.items():
            if header.get(key) != value:
                problems.append(
                    f"slice [{lo}, {hi}): header {key} is {header.get(key)!r}, expected {value!r}"
                )
        lines: list[bytes] = []
        try:
            lines.extend(_chunk_lines(_chunks(stream), hi - lo + 1))
        except (EOFError, OSError, zlib.error) as exc:  # a damaged file; TargetError passes
            problems.append(f"slice [{lo}, {hi}): the document ended: {exc}")
    finally:
        stream.close()
    if len(lines) != hi - lo:
        problems.append(f"slice [{lo}, {hi}): {len(lines)} unit lines, expected {hi - lo}")
    differ = 0
    for n, line in enumerate(lines[: hi - lo]):
        before = kept.get(lo + n)
        if before is not None and _line_value(line) != _line_value(before):
            differ += 1
            if differ <= SLICE_DIFFERENCES:
                problems.append(
                    f"slice [{lo}, {hi}): unit {lo + n} is {line[:300]!r} read alone, "
                    f"{before[:300]!r} in the larger read"
                )
    if differ > SLICE_DIFFERENCES:
        problems.append(
            f"slice [{lo}, {hi}): {differ} of its {hi - lo} units differ from the larger read"
        )
    return problems


def _chunk_lines(chunks: Iterator[bytes], limit: int) -> Iterator[bytes]:
    n = 0
    for chunk in chunks:
        for line in chunk.split(b"\n")[:-1]:
            yield line
            n += 1
            if n >= limit:
                return


@check("blocks.slices", covers=["blocks.contract3.slice"], capability="blocks", cost="block")
def slices(ctx: CheckContext) -> None:
    """Small slices read alone (first, last, inner) equal the same units of the larger read.

    Not for a block file: its slices would be read by the harness's own file reader from the
    same bytes as the whole, so the check could not fail for anything the file's maker did
    (contract 3's ``?start=&count=`` is a server's); it would also read the file twice.
    """
    if block_file_of(ctx.adapter) is not None:
        raise NotSupported(
            "a block file has no slice reads of its own to test: contract 3's ?start=&count= "
            "is a server's (the harness would read the same file's bytes twice)"
        )
    problems: list[tuple[AuditedBlock, int, int, str]] = []
    checked = 0
    for _game, _stake, _faults, block in _scope(ctx):
        if block is None:
            continue
        units = int(block.entry["units"])
        for lo, hi in block.keep:
            if not all(i in block.audit.kept for i in range(lo, hi)):
                continue  # the larger read did not reach it: unit_sequence reports that
            checked += 1
            for problem in compare_slice(
                ctx.adapter, block.block_id, lo, hi, block.audit.kept, units
            ):
                problems.append((block, lo, hi, problem))
    ctx.details["slices_checked"] = checked
    if problems:
        evidence = [
            BlockEvidence(
                block_id=b.block_id,
                game=b.audit.expectation.game,
                stake_cents=b.audit.expectation.stake_cents,
                aspect="slice",
                start=lo,
                count=hi - lo,
                requirements=("blocks.contract3.slice",),
                expected="the same unit lines as the larger read",
                got=problem,
                request={
                    "operation": "read_block",
                    "block_id": b.block_id,
                    "start": lo,
                    "count": hi - lo,
                },
                note=problem,
            )
            for b, lo, hi, problem in problems[:10]
        ]
        raise CheckFailure(f"{len(problems)} slice inconsistencies: {problems[0][3]}", evidence)


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
    per_game=_each("randomness.unrelated_blocks"),
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
            entries = _two_or_more(ctx, game, stake)
            blocks = [_audited(ctx, game, stake, e) for e in entries]
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

    engine = _engine(ctx)
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
    return _stats.unrelated(a.prizes, b.prizes, a.expectation.lots, alpha), ""


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
    return _stats.unrelated(codes_a, codes_b, lots, alpha), scale


@check(
    "blocks.top_tiers",
    per_game=_each("randomness.top_tiers"),
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
            for entry in _two_or_more(ctx, game, stake):
                block = _audited(ctx, game, stake, entry)
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


# -- re-reading a block, for the replayers (_block_evidence) ---------------------------------


def _reaudit(
    adapter: Any, game: str, stake: int, block_id: str, start: int | None, count: int | None
) -> BlockAudit:
    stream = adapter.read_block(block_id, start, count)
    try:
        return audit(
            stream.header,
            _chunks(stream),
            Expectation.from_rules(game, stake, block_id, start, count),
            header_bytes=getattr(stream, "header_bytes", None),
        )
    finally:
        stream.close()
