"""Block checks (blocks capability): articles 2 and 3 of both games, the 70 % cap, randomness.

Each block in scope is read once and audited by ``conformance._audit`` (every unit line, every
ticket re-evaluated); the checks below then each judge one group of requirements from that one
audit, so a faulty block fails exactly the requirements it breaks. The quick profile audits a
seeded slice of ``block_sample_units`` units of one block per (game, stake); the full profile
audits every listed block whole. A file target (``instantcert audit-block``) that holds a slice
is audited as that slice.

The randomness checks (``blocks.randomness``, ``blocks.unrelated_blocks``, ``blocks.top_tiers``)
judge the same audits in ``block_randomness``.

Evidence kinds: ``block_unit`` (one unit line: replay reads that unit again) and ``block`` (a
whole document, slice or pair of blocks: replay audits it again), both typed and replayed in
``_block_evidence``.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import reference

from .. import _stats
from .._audit import BlockAudit, Expectation, Fault, audit
from .._audit_engine import (
    AuditEngine,
    BlockRequest,
    keep_ranges,
)
from .._file_target import FileTarget, block_file_of
from .._registry import CheckContext, CheckFailure, NotSupported, Reservation, check
from ..games import GameKit
from . import _pace as pace
from ._block_evidence import BlockEvidence, BlockLineEvidence
from ._block_reading import (
    EXPECTED,
    block_chunks,
    compare_read_twice,
    compare_slice,
    entry_faults,
    of_pair,
    read_slice,
)

EVIDENCE_PER_BLOCK = 5

# what each aspect's faults break, per game: {game}.{article}.{slug}
_GAME_ASPECTS = {
    "block_size": "2.block_size",
    "sequence": "2.unit_sequence",
    "tickets": "2.valid_tickets",
    "unit_prize": "3.unit_prize",
    "cumulated_gains": "3.cumulated_gains",
    "payout_cap": "3.payout_cap",
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
    if aspect in ("unit_lines", "unit_fields"):
        return "blocks.contract3.unit_lines"
    if aspect == "lot_table":
        article = reference.load_rules(game).lot_table(stake_cents).article
        return f"{game}.{article}.lot_table"
    return f"{game}.{_GAME_ASPECTS[aspect]}"


def per_game(slug: str) -> Callable[[GameKit], list[str]]:
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


def _listed(ctx: CheckContext, game: str, stake: int) -> list[dict[str, Any]]:
    session = _session(ctx)
    if (game, stake) not in session.listed:
        try:
            listed = ctx.adapter.list_blocks(game, stake)
            session.listed[(game, stake)] = of_pair(listed, game, stake)
        except Exception as exc:
            session.listed[(game, stake)] = exc
    value = session.listed[(game, stake)]
    if isinstance(value, Exception):
        raise value
    return value


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


def audited_block(ctx: CheckContext, game: str, stake: int, entry: dict[str, Any]) -> AuditedBlock:
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
    keep = keep_ranges(span_start, int(span_count), f"{ctx.seed}:{block_id}")
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
    engine = audit_engine(ctx)
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
    """The block read through the run's adapter and audited in this process; or, for the
    harness's own block file, the audit of that very request begun before the suite loaded
    (``conformance._started_audit``: the same audit of the same bytes)."""
    what = f"auditing block {asked.block_id}"
    files = block_file_of(ctx.adapter)
    started = files.started if isinstance(files, FileTarget) else None
    if started is not None:
        taken = started.take(asked, lambda done: ctx.progress(done, total, what))
        if taken is not None:
            return taken
    stream = read_slice(ctx.adapter, asked.block_id, start, count)
    try:
        return audit(
            stream.header,
            block_chunks(stream),
            asked.expect,
            header_bytes=getattr(stream, "header_bytes", None),
            keep=asked.keep,
            progress=lambda done: ctx.progress(done, total, what),
        )
    finally:
        stream.close()


def audit_engine(ctx: CheckContext) -> AuditEngine | None:
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
            for entry in [*_chosen(ctx, game, stake)[0], *two_or_more(ctx, game, stake)]:
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
        entry, problems = entry_faults(raw, game, stake)
        faults.extend(problems)
        if entry is not None:
            usable.append(entry)
    wanted = ctx.settings.blocks_per_stake
    return (usable if wanted is None else usable[: int(wanted)]), faults


def two_or_more(ctx: CheckContext, game: str, stake: int) -> list[dict[str, Any]]:
    """The blocks in scope, at least the first two listed when there are two: the blocks the
    cross-block and pooled tests read (the quick profile's one block is not enough)."""
    entries, _faults = _chosen(ctx, game, stake)
    if len(entries) < 2:
        listed = [entry_faults(r, game, stake)[0] for r in _listed(ctx, game, stake)]
        entries = [e for e in listed if e is not None][:2]
    return entries


def blocks_in_scope(ctx: CheckContext) -> Iterator[tuple[str, int, list[str], AuditedBlock | None]]:
    """Every (game, stake) in scope with its list faults, and each audited block."""
    for game in ctx.games():
        for stake in ctx.stakes(game):
            entries, faults = _chosen(ctx, game, stake)
            if not entries:
                yield game, stake, faults, None
            for n, entry in enumerate(entries):
                yield game, stake, faults if n == 0 else [], audited_block(ctx, game, stake, entry)


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
            expected=EXPECTED.get(fault.aspect, fault.aspect),
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
        expected=EXPECTED.get(fault.aspect, fault.aspect),
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
    for game, stake, list_faults, block in blocks_in_scope(ctx):
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
        if block is None:  # no usable block listed at (game, stake): a faulty target only,
            continue  # failed above by blocks.header (``list_faults``), not judged here
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
    per_game=per_game("2.block_size"),
    capability="blocks",
    cost="block",
)
def block_size(ctx: CheckContext) -> None:
    """Each block holds the rules' number of units (article 2)."""
    _judge(ctx, ["block_size"], "block size")


@check(
    "blocks.unit_sequence",
    per_game=per_game("2.unit_sequence"),
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
    """Every unit line is a JSON object with index, prize_cents and ticket; fields beside
    them are a reservation (docs/contract-decisions.md, ``unit-fields``), never a failure."""
    _judge(ctx, ["unit_lines"], "unit lines")
    _reserve_unit_fields(ctx)


def _reserve_unit_fields(ctx: CheckContext) -> None:
    """One reservation naming the blocks whose unit lines carry fields of their own."""
    counts: dict[str, int] = {}
    evidence: list[BlockLineEvidence | BlockEvidence] = []
    first = ""
    for _game, _stake, _list_faults, block in blocks_in_scope(ctx):
        faults = block.faults("unit_fields") if block is not None else []
        if block is None or not faults:
            continue
        counts[block.block_id] = block.fault_count("unit_fields")
        first = first or faults[0].message
        evidence.extend(_evidence(block, f) for f in faults[:EVIDENCE_PER_BLOCK])
    if not counts:
        return
    listed = ", ".join(f"{block_id} ({n:,} lines)" for block_id, n in sorted(counts.items()))
    ctx.reserve(
        Reservation(
            f"unit lines with {first} in {listed}: each line was judged on index, prize_cents "
            "and ticket; contract 3 keeps a header's unknown fields and says nothing of a "
            "unit's, whose example has the three alone",
            basis="unit-fields",
            lift="write each unit line as {index, prize_cents, ticket}, nothing else",
            evidence=evidence,
            requirements=["blocks.contract3.unit_lines"],
        )
    )


@check(
    "blocks.valid_tickets",
    per_game=per_game("2.valid_tickets"),
    capability="blocks",
    cost="block",
)
def valid_tickets(ctx: CheckContext) -> None:
    """Every unit's ticket is valid notation (contract 1)."""
    _judge(ctx, ["tickets"], "tickets")


@check(
    "blocks.unit_prize",
    per_game=per_game("3.unit_prize"),
    capability="blocks",
    cost="block",
)
def unit_prize(ctx: CheckContext) -> None:
    """Every declared prize equals the reference's evaluation of the unit's ticket."""
    _judge(ctx, ["unit_prize"], "declared prizes")


@check(
    "blocks.cumulated_gains",
    per_game=per_game("3.cumulated_gains"),
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
    per_game=per_game("3.payout_cap"),
    capability="blocks",
    cost="block",
)
def payout_cap(ctx: CheckContext) -> None:
    """A whole block pays at most 70 % of its face value."""
    _judge(ctx, ["payout_cap"], "payout cap")


SLOW_READS = 3  # slices a run reads as a slow reader, one stall each (``slow_reads``)


def slow_reads(
    seed: str, blocks: Sequence[tuple[str, Sequence[tuple[int, int]]]]
) -> dict[tuple[str, int, int], dict[int, float]]:
    """The slices read as a slow reader reads them: ``SLOW_READS`` of the audited blocks (the
    seed's, every one when fewer), each its longest kept slice, stopped once at a line the
    seed draws, the stalls stratified over ``pace.STALL_S`` across the run (``pace.stratified``:
    a stream that goes wrong once its client stops reading for a second or two, a cursor
    timed out, shows; the audits read at full speed). Keyed by (block id, lo, hi)."""
    rng = random.Random(f"{seed}:slow-reads")
    chosen = [(b, max(keep, key=lambda r: r[1] - r[0])) for b, keep in blocks if keep]
    chosen = [(b, (lo, hi)) for b, (lo, hi) in chosen if hi - lo >= 2]
    chosen = rng.sample(chosen, min(SLOW_READS, len(chosen)))
    pauses = pace.stratified(rng, len(chosen), pace.STALL_S)
    return {
        (block_id, lo, hi): {rng.randrange(1, hi - lo): pause}
        for (block_id, (lo, hi)), pause in zip(chosen, pauses, strict=True)
    }


LONG_SLOW_READS = 2
"""Long slices a run reads as a slow reader (``long_slow_reads``), besides ``SLOW_READS``."""
SLOW_TAIL_BYTES = 8 << 20
"""Bytes of a long slow read still to come when its reader stops: more than the buffers
between a server and its client hold (on this machine's loopback the server's send buffer
grows to 3-4 MB, whatever the client's receive buffer), so the server's writes block and the
stall reaches its stream, as a slow network's does. A slow read of a short slice is all in
those buffers before its reader stops: over HTTP the server never sees it stop."""
SLOW_HEAD_BYTES = 1 << 20
"""The stall comes within a long slow read's first bytes, at a line drawn from the seed."""


def long_slow_reads(
    seed: str, blocks: Sequence[tuple[str, int, Sequence[bytes]]]
) -> list[tuple[str, int, int, dict[int, float], bool]]:
    """``LONG_SLOW_READS`` slices of the blocks ``(block id, units, some of its lines)``, each
    long enough that ``SLOW_TAIL_BYTES`` are still to come when its reader stops (its lines'
    length from the lines given), at a place and a line the seed draws, for a time stratified
    over ``pace.STALL_S`` across them, read slowly before or after the read at full speed it
    is compared with, as the seed draws: (block id, lo, hi, {line: seconds}, slow first)."""
    rng = random.Random(f"{seed}:long-slow-reads")
    candidates = [(b, units, lines) for b, units, lines in blocks if lines and units > 1]
    if not candidates:
        return []
    pauses = pace.stratified(rng, LONG_SLOW_READS, pace.STALL_S)
    reads = []
    for pause in pauses:
        block_id, units, lines = rng.choice(candidates)
        width = max(1.0, sum(len(line) + 1 for line in lines) / len(lines))
        head = max(1, int(SLOW_HEAD_BYTES / width))
        count = min(units, head + int(SLOW_TAIL_BYTES / width) + 1)
        lo = rng.randrange(units - count + 1)
        stall = {rng.randrange(1, min(head, count - 1) + 1): pause}
        reads.append((block_id, lo, lo + count, stall, rng.random() < 0.5))
    return reads


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
    audited = [block for *_, block in blocks_in_scope(ctx) if block is not None]
    slow = slow_reads(str(ctx.seed), [(b.block_id, b.keep) for b in audited])
    by_id = {b.block_id: b for b in audited}
    long = long_slow_reads(
        str(ctx.seed),
        [(b.block_id, int(b.entry["units"]), list(b.audit.kept.values())) for b in audited],
    )
    slow.update({(b, lo, hi): stalls for b, lo, hi, stalls, _ in long})
    reads: list[tuple[AuditedBlock, int, int, Future[list[str]] | list[str]]] = []
    # the slow reads side by side, beside the others (their stalls cost the longest one)
    with ThreadPoolExecutor(max_workers=max(1, len(slow))) as pool:
        for block_id, lo, hi, pauses, slow_first in long:  # read twice: no kept lines
            checked += 1
            twice = (ctx.adapter, block_id, lo, hi, pauses, slow_first)
            reads.append((by_id[block_id], lo, hi, pool.submit(compare_read_twice, *twice)))
        for block in audited:
            units = int(block.entry["units"])
            for lo, hi in block.keep:
                if not all(i in block.audit.kept for i in range(lo, hi)):
                    continue  # the larger read did not reach it: unit_sequence reports that
                checked += 1
                kept, stalls = block.audit.kept, slow.get((block.block_id, lo, hi))
                args = (ctx.adapter, block.block_id, lo, hi, kept, units)
                found = (
                    pool.submit(compare_slice, *args, stalls) if stalls else compare_slice(*args)
                )
                reads.append((block, lo, hi, found))
        for block, lo, hi, found in reads:  # in order, as one after another would find them
            for problem in found if isinstance(found, list) else found.result():
                problems.append((block, lo, hi, problem))
    ctx.details["slices_checked"] = checked
    ctx.details["slices_read_slowly"] = len(slow)  # the long ones too (``long_slow_reads``)
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
                stalls={str(k): v for k, v in slow.get((b.block_id, lo, hi), {}).items()} or None,
            )
            for b, lo, hi, problem in problems[:10]
        ]
        raise CheckFailure(f"{len(problems)} slice inconsistencies: {problems[0][3]}", evidence)
