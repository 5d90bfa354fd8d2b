"""Big slices rendered side by side (threads for a compiled game, worker processes otherwise):
the same bytes as the block itself, in order."""

from __future__ import annotations

import os

import pytest

from reference import _render
from reference._blocks import Block
from reference._render import PIECE_UNITS, SliceRenderer

from ._live import SEED


def _numpy_only(block: Block) -> Block:
    """The block as a game without compiled lines renders it: on worker processes."""
    block._pools.compiled = False  # type: ignore[misc]
    return block


@pytest.mark.parametrize(
    ("game", "stake", "compiled"),
    [("robots", 100, True), ("eldorado", 200, True), ("eldorado", 50, False)],
)
def test_parallel_rendering_gives_the_blocks_own_bytes(
    game: str, stake: int, compiled: bool
) -> None:
    block = Block(game, stake, f"{game}-{stake}-0007", SEED)
    if not compiled:
        _numpy_only(block)
    assert block.compiled is compiled
    start, count = 234_567, 3 * PIECE_UNITS + 17
    renderer = SliceRenderer(workers=2, parallel_from=1)
    try:
        pieces = list(renderer.document_lines(block, start, count))
        assert len(pieces) == 1 + 4  # the header line, then four pieces rendered by workers
        # a compiled game renders on threads, no process started; the others on processes
        assert (renderer._threads is not None, renderer._executor is not None) == (
            compiled,
            not compiled,
        )
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


@pytest.mark.parametrize(("game", "stake"), [("robots", 100), ("eldorado", 50)])
def test_small_slices_and_one_worker_stay_in_the_calling_thread(game: str, stake: int) -> None:
    block = Block(game, stake, f"{game}-{stake}-0001", SEED)
    for renderer in (SliceRenderer(workers=1, parallel_from=1), SliceRenderer(workers=2)):
        lines = list(renderer.document_lines(block, 10, 40))
        assert lines == list(block.document_lines(10, 40))
        assert renderer._executor is None and renderer._threads is None  # no pool started
        renderer.close()


def _die(*args: object) -> bytes:
    """A worker that crashes, as one does when ``spawn`` cannot re-import ``__main__``."""
    os._exit(3)


def test_a_broken_pool_falls_back_to_the_calling_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_render, "_render_piece", _die)
    block = _numpy_only(Block("eldorado", 100, "eldorado-100-0003", SEED))
    renderer = SliceRenderer(workers=2, parallel_from=1)
    try:
        count = 2 * PIECE_UNITS + 5
        assert b"".join(renderer.document_lines(block, 7, count)) == b"".join(
            block.document_lines(7, count)
        )
        assert renderer.workers == 1  # and later slices no longer try
    finally:
        renderer.close()


def test_a_failing_render_thread_fails_the_stream_not_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A piece that raises on a render thread reaches the reader as that exception (the
    server then cuts the stream); the next slice renders again."""
    block = Block("robots", 100, "robots-100-0003", SEED)
    renderer = SliceRenderer(workers=2, parallel_from=1)
    original = Block.render

    def fail(self: Block, start: int, count: int, *, compiled: bool = True) -> bytes:
        if start >= PIECE_UNITS:
            raise MemoryError("a render thread ran out of memory")
        return original(self, start, count, compiled=compiled)

    try:
        monkeypatch.setattr(Block, "render", fail)
        stream = renderer.document_lines(block, 0, 3 * PIECE_UNITS)
        with pytest.raises(MemoryError, match="render thread"):
            list(stream)
        monkeypatch.setattr(Block, "render", original)
        assert b"".join(renderer.document_lines(block, 9, PIECE_UNITS + 2)) == b"".join(
            block.document_lines(9, PIECE_UNITS + 2)
        )
    finally:
        renderer.close()
