"""Streaming, multi-core audit of one block document (contract section 3).

The audit reads a block (or a slice of it) once, in large chunks of whole lines, and checks
every line: the header; the index sequence; the exact line shape (contract 3); every ticket's
validity (contract 1); every declared prize against the reference's evaluation ("lot global de
l'unité", article 3); prizes outside the lot table; then, over the whole document, the lot counts
and the payout against the table (article 3) and the 70 % cap (Arrêté du 9 mars 2006, art. 2).

Speed comes from a vectorised fast path: a chunk's lines are split, matched against the
canonical line shape and (for robots) evaluated with numpy over the whole byte buffer. Any line
the fast path does not recognise, or finds faulty, is re-done by the exact slow path
(``json.loads`` and ``reference``), which alone writes faults: both paths agree on every line a
correct block holds, and only the slow path ever judges a line, so results never differ.
Chunks are spread over worker processes (one per core); memory stays bounded by the number of
chunks in flight, plus one int32 per unit for the randomness tests.

Faults are tagged with an *aspect*; ``conformance.checks.blocks`` maps aspects to requirement
ids (``robots.3.lot_table``...). Aspects: ``header``, ``block_size``, ``sequence``,
``unit_lines``, ``tickets``, ``unit_prize``, ``cumulated_gains``, ``lot_table``, ``payout_cap``.

The package's modules, one job each: ``model`` (what an audit is asked and what it finds),
``reader`` (block file bytes into chunks of whole lines, and the header line), ``judge`` (the
verdict on each unit line, fast and exact paths, the header and the index sequence), ``driver``
(worker processes, the whole-document findings, the entry points). The per-game vectorised
ticket kernels stay in ``conformance._kernels``.
"""

from __future__ import annotations

from .driver import (
    CURVE_POINTS,
    PARALLEL_MIN_UNITS,
    audit,
    audit_file,
    default_workers,
    expectation_for,
)
from .judge import (
    EVIDENCE_BYTES,
    MAX_INDEX,
    PADDING,
    _check_header,
    _ChunkResult,
    _LineVerdict,
    _Params,
    audit_chunk,
    header_count,
    judge_line,
    sequence_faults,
)
from .layout import UNIT_KEYS
from .model import ASPECTS, FORMAT, AuditError, BlockAudit, Expectation, Fault, IntArray
from .reader import (
    CHUNK_BYTES,
    MAX_FILE_LINE_BYTES,
    RAW_READ,
    Checkpoint,
    DocumentReader,
    Source,
    chunks_from_lines,
    chunks_from_reader,
    open_document,
    read_header,
    resume_document,
)

__all__ = [
    "ASPECTS",
    "CHUNK_BYTES",
    "CURVE_POINTS",
    "EVIDENCE_BYTES",
    "FORMAT",
    "MAX_FILE_LINE_BYTES",
    "MAX_INDEX",
    "PADDING",
    "PARALLEL_MIN_UNITS",
    "RAW_READ",
    "UNIT_KEYS",
    "AuditError",
    "BlockAudit",
    "Checkpoint",
    "DocumentReader",
    "Expectation",
    "Fault",
    "IntArray",
    "Source",
    "_ChunkResult",
    "_LineVerdict",
    "_Params",
    "_check_header",
    "audit",
    "audit_chunk",
    "audit_file",
    "chunks_from_lines",
    "chunks_from_reader",
    "default_workers",
    "expectation_for",
    "header_count",
    "judge_line",
    "open_document",
    "read_header",
    "resume_document",
    "sequence_faults",
]
