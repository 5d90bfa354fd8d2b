"""Big slices rendered on worker processes: the same bytes as the block itself, in order."""

from __future__ import annotations

import os

import pytest

from reference import _render
from reference._blocks import Block
from reference._render import PIECE_UNITS, SliceRenderer

from ._live import SEED


def test_parallel_rendering_gives_the_blocks_own_bytes() -> None:
    block = Block("robots", 100, "robots-100-0007", SEED)
    start, count = 1_234_567, 3 * PIECE_UNITS + 17
    renderer = SliceRenderer(workers=2, parallel_from=1)
    try:
        pieces = list(renderer.document_lines(block, start, count))
        assert len(pieces) == 1 + 4  # the header line, then four pieces rendered by workers
        assert b"".join(pieces) == b"".join(block.document_lines(start, count))
        # a reader that stops early leaves the pool usable
        partial = renderer.document_lines(block, 0, 10 * PIECE_UNITS)
        assert next(partial) == block.header_line(0, 10 * PIECE_UNITS)
        next(partial)
        partial.close()
        again = b"".join(renderer.document_lines(block, 5, PIECE_UNITS + 1))
        assert again == b"".join(block.document_lines(5, PIECE_UNITS + 1))
    finally:
        renderer.close()


def test_small_slices_and_one_worker_stay_in_the_calling_thread() -> None:
    block = Block("eldorado", 50, "eldorado-50-0001", SEED)
    for renderer in (SliceRenderer(workers=1, parallel_from=1), SliceRenderer(workers=2)):
        lines = list(renderer.document_lines(block, 10, 40))
        assert lines == list(block.document_lines(10, 40))
        assert renderer._executor is None  # no pool was started
        renderer.close()


def _die(*args: object) -> bytes:
    """A worker that crashes, as one does when ``spawn`` cannot re-import ``__main__``."""
    os._exit(3)


def test_a_broken_pool_falls_back_to_the_calling_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_render, "_render_piece", _die)
    block = Block("eldorado", 100, "eldorado-100-0003", SEED)
    renderer = SliceRenderer(workers=2, parallel_from=1)
    try:
        count = 2 * PIECE_UNITS + 5
        assert b"".join(renderer.document_lines(block, 7, count)) == b"".join(
            block.document_lines(7, count)
        )
        assert renderer.workers == 1  # and later slices no longer try
    finally:
        renderer.close()
