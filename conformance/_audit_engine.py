"""Where the blocks of block files are audited: in this process, or by an engine elsewhere.

``instantcert audit-block FILE …`` audits each file's block in this process (``conformance._audit``
on the local cores). With ``--scheduler`` the harness's own block-file target carries an
``AuditEngine`` (``conformance._dask_audit``: a Dask cluster) and the block checks hand it every
block they will read, at once; the engine audits each block where its bytes are read and sends
back only what the checks need of it (``EngineAudit``: the ``BlockAudit``, with one prize a unit
for the pooled and cross-block tests, and the block's randomness family). The checks judge
those exactly as they judge a local audit, so the verdicts are the same.

Only the harness's own file target can carry an engine (``conformance._file_target.block_file_of``):
an implementation's adapter cannot hand the checks an audit of its own making.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from . import _stats
from ._audit import BlockAudit, Expectation, Source, audit, open_document, read_header

R = TypeVar("R")

SLICE_SIZES = (1, 7, 50)
PAGE_SIZES = (1000, 1024, 4096, 8192, 10_000, 16_384, 65_536, 100_000, 131_072)
"""Sizes a server's slices may be paged, cached or batched by: a slice of ``SLICE_SIZES[1]``
units straddles one boundary of each (where the span has one), where an off-by-one or a page
picked from ``start`` alone shows; a random slice of 7 or 50 units crosses a 4096-unit boundary
about once in 80 blocks."""
LONG_SLICE = 3 * 4096 + 123  # units: crosses several boundaries of every page size up to 4096


def keep_ranges(start: int, count: int, seed: str) -> tuple[tuple[int, int], ...]:
    """Small slices inside [start, start+count) to keep for the slice check (``keep`` of a
    ``BlockRequest``), drawn from ``seed``."""
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


@dataclass(frozen=True)
class BlockRequest:
    """One block to audit, as the checks would audit it locally: ``expect`` (its game, stake,
    id and slice), ``keep`` (the unit ranges to keep), and the randomness family's
    ``segments`` and ``alpha``."""

    block_id: str
    expect: Expectation
    keep: tuple[tuple[int, int], ...]
    segments: int
    alpha: float

    @property
    def key(self) -> tuple[str, int | None, int | None]:
        return (self.block_id, self.expect.start, self.expect.count)


@dataclass(frozen=True)
class EngineAudit:
    """What an engine returns for a block: its audit, its randomness family, and where it was
    audited (``engine``, ``scheduler``, ``worker``: shown in the reports beside the block)."""

    audit: BlockAudit
    randomness: _stats.FamilyVerdict
    audited_by: dict[str, Any]


class AuditEngine(Protocol):
    """Audits blocks of block files elsewhere than in this process."""

    name: str

    def describe(self) -> dict[str, Any]:
        """The engine as the run's configuration records it (``name``, its address ...)."""
        ...

    def submit(self, requests: Sequence[BlockRequest]) -> None:
        """Start every request not started yet (a request already started is not redone)."""
        ...

    def audited(self, request: BlockRequest) -> EngineAudit:
        """The request's audit (submitted first if it was not); an exception naming the block
        and where it failed if it could not be audited."""
        ...

    def compare(
        self,
        function: Callable[..., R],
        pairs: Sequence[tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]],
    ) -> list[R]:
        """``function(audit_a, audit_b, *args)`` for each ``(key_a, key_b, args)`` (keys of
        requests already audited), in order, computed where the audits are."""
        ...

    def close(self) -> None:
        """Let go of the engine's resources (its connection, the results it holds)."""
        ...


def audit_source(
    source: Source | str | Path, request: BlockRequest, *, processes: bool = True
) -> tuple[BlockAudit, _stats.FamilyVerdict]:
    """Audit the block document at ``source`` as the checks audit a block file's whole read
    (``FileTarget.read_block`` then ``checks.blocks``): the header line as stored, every unit
    line, and the randomness family on its prizes."""
    reader = open_document(source, fast=True)
    try:
        header, line, chunks = read_header(reader)
        result = audit(
            header,
            chunks,
            request.expect,
            header_bytes=line,
            keep=request.keep,
            processes=processes,
        )
    finally:
        reader.close()
    randomness = _stats.winner_positions(
        result.prizes, request.expect.lots, request.segments, request.alpha
    )
    return result, randomness


__all__ = [
    "LONG_SLICE",
    "PAGE_SIZES",
    "SLICE_SIZES",
    "AuditEngine",
    "BlockRequest",
    "EngineAudit",
    "audit_source",
    "keep_ranges",
]
