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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from . import _stats
from ._audit import BlockAudit, Expectation, Source, audit, open_document, read_header

R = TypeVar("R")


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


__all__ = ["AuditEngine", "BlockRequest", "EngineAudit", "audit_source"]
