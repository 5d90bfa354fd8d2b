"""The compiled unit lines (``reference/_fastlines.c``) are the numpy layout's bytes, exactly.

A block's bytes are its contract (``test_blocks.test_the_algorithm_is_frozen``): the C path
must give every unit of every lot the very line the numpy path gives, whatever the slice.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest

import reference
from reference import _compiled, _scenarios
from reference._eldorado_make import EldoradoPools
from reference._robots_make import RobotsPools
from tests.seeds import TEST_SEED

SEEDS = [TEST_SEED, hashlib.sha256(b"instantcert tests: fastlines").digest()]
STAKES = [("robots", 100), ("eldorado", 50), ("eldorado", 100), ("eldorado", 200)]


def test_the_extension_is_built() -> None:
    """The project's install builds it (setup.py); a silent fallback would hide a broken build
    behind a five times slower generator. A machine without a C compiler fails here, only."""
    assert _compiled.fastlines is not None
    assert RobotsPools.compiled and EldoradoPools.compiled


def _block(game: str, stake: int, seed: bytes = TEST_SEED) -> reference.Block:
    return reference.Block(game, stake, reference.default_block_id(game, stake, 1), seed)


@pytest.mark.parametrize("seed", SEEDS, ids=["test-seed", "other-seed"])
@pytest.mark.parametrize(("game", "stake"), STAKES)
def test_every_lot_renders_the_numpy_bytes(game: str, stake: int, seed: bytes) -> None:
    """Around a unit of every lot (the top lots are a few units in a block), slices that
    cross batch edges and powers of ten, the block's start and end."""
    b = _block(game, stake, seed)
    lots = b._slice_lots(0, b.units)
    cuts = [(0, 0), (0, 1), (0, 5_000), (9_990, 25), (99_990, 25), (b.units - 4_100, 4_100)]
    for lot in range(len(b._prizes)):
        at = max(0, int(np.flatnonzero(lots == lot)[0]) - 2_000)
        cuts.append((at, min(4_096 + 7, b.units - at)))
    for start, count in cuts:
        assert b.render(start, count) == b.render(start, count, compiled=False), (start, count)


@pytest.mark.parametrize(("game", "stake"), STAKES[:2])
def test_lines_are_the_units_lines(game: str, stake: int) -> None:
    """What the compiled path gives is each unit's own ``to_json_line``, not only numpy's."""
    b = _block(game, stake, SEEDS[1])
    expected = b"".join(u.to_json_line() + b"\n" for u in b.iter_units(234_560, 300))
    assert b.render(234_560, 300) == expected


@pytest.mark.parametrize("key", [0, 1, 2**64 - 1, 2**64, 2**128 - 1, 0x0123456789ABCDEF << 37])
@pytest.mark.parametrize(("game", "stake"), STAKES[:2])
def test_the_kernels_words_are_numpys_philox(game: str, stake: int, key: int) -> None:
    """The kernels compute each unit's words themselves (Philox4x64-10): a unit's lines under
    any key, at indices far apart, are those numpy's Philox words lay out."""
    b = _block(game, stake)
    b._scenario_key = key
    for start in (0, b.units - 500):
        assert b.render(start, 500) == b.render(start, 500, compiled=False), (key, start)


def _kernel_args(game: str) -> tuple[Any, dict[str, Any]]:
    """A 64-unit slice's pools and the arguments every line kernel takes first, in order."""
    b = _block(game, 100)
    lots = b._slice_lots(0, 64)
    return b._pools, {
        "first": 0,
        "lot_of": lots,
        "key_low": b._scenario_key & (2**64 - 1),
        "key_high": b._scenario_key >> 64,
        "blocks": _scenarios.BLOCKS,
        "lots": b._pools.lot_table(lots, b._prizes),
    }


def _robots_call(**change: object) -> bytes:
    pools, args = _kernel_args("robots")
    assert isinstance(pools, RobotsPools)
    args |= {"orders": pools.orders, "robots": pools.orders.shape[1], "buttons": pools.buttons}
    result: bytes = _compiled.fastlines.robots_lines(*(args | change).values())
    return result


def _eldorado_call(**change: object) -> bytes:
    pools, args = _kernel_args("eldorado")
    assert isinstance(pools, EldoradoPools)
    args |= {"row_orders": pools.row_orders, "cell_orders": pools.cell_orders}
    args |= {"grids": pools.grids, "rows": pools.rows, "cells": pools.cells}
    result: bytes = _compiled.fastlines.eldorado_lines(*(args | change).values())
    return result


def test_the_kernels_match_render_when_called_directly() -> None:
    assert _robots_call() == _block("robots", 100).render(0, 64, compiled=False)
    assert _eldorado_call() == _block("eldorado", 100).render(0, 64, compiled=False)


LOTS_OUT_OF_RANGE = [np.zeros(64, np.int64) + 99, np.zeros(64, np.int64) - 1]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"blocks": 4}, "inconsistent sizes"),
        ({"first": 2**50}, "inconsistent sizes"),
        ({"buttons": 0}, "inconsistent sizes"),
        ({"lot_of": LOTS_OUT_OF_RANGE[0]}, "lot is out of range"),
        ({"lot_of": LOTS_OUT_OF_RANGE[1]}, "lot is out of range"),
        ({"lots": [(0, np.zeros(17, np.uint8), np.zeros(18, np.uint8), 1)] * 20}, "pool"),
        ({"orders": np.zeros(7, np.uint8)}, "inconsistent sizes"),
        ({"lot_of": np.zeros(128, np.int64)[::2]}, "C-contiguous"),
        ({"lots": "lengths past the cell"}, "past its cell"),
    ],
)
def test_the_robots_kernel_refuses_inconsistent_arguments(
    change: dict[str, object], message: str
) -> None:
    """It reads raw memory: every size it relies on is checked before the first unit, and a
    button's text length before its bytes are copied."""
    if change.get("lots") == "lengths past the cell":
        b = _block("robots", 100)
        assert isinstance(b._pools, RobotsPools)
        every_lot = np.arange(len(b._prizes))
        change = {
            "lots": [
                (prize, pool, np.full_like(lengths, cell), cell)
                for prize, pool, lengths, cell in b._pools.lot_table(every_lot, b._prizes)
            ]
        }
    with pytest.raises(ValueError, match=message):
        _robots_call(**change)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"blocks": 5}, "inconsistent sizes"),
        ({"first": -1}, "inconsistent sizes"),
        ({"grids": 0}, "inconsistent sizes"),
        ({"cells": 6}, "inconsistent sizes|pool"),
        ({"lot_of": LOTS_OUT_OF_RANGE[0]}, "lot is out of range"),
        ({"lot_of": LOTS_OUT_OF_RANGE[1]}, "lot is out of range"),
        ({"lots": [(0, np.zeros(89, np.uint8), b"", 90)] * 20}, "pool"),
        ({"row_orders": np.full((6, 3), 3, np.int64)}, "row order out of range"),
        ({"cell_orders": np.full((120, 5), -1, np.int64)}, "cell order out of range"),
        ({"cell_orders": np.zeros(7, np.int64)}, "inconsistent sizes"),
    ],
)
def test_the_eldorado_kernel_refuses_inconsistent_arguments(
    change: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        _eldorado_call(**change)


def _feistel_call(**change: object) -> None:
    perm = _block("robots", 100)._permutation
    x = np.arange(100, dtype=np.int64)
    high, low = perm._widths[0]
    args: dict[str, Any] = {
        "x": x,
        "out": np.empty_like(x),
        "tables": perm._tables64,
        "high": high,
        "low": low,
        "size": perm.size,
    }
    args.update(change)
    _compiled.fastlines.feistel_many(*args.values())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"out": np.empty(99, np.int64)}, "inconsistent sizes"),
        ({"high": 0}, "inconsistent sizes"),
        ({"size": 2**42}, "inconsistent sizes"),
        ({"tables": ()}, "inconsistent sizes"),
        ({"tables": [np.zeros(8, np.int64)] * 12}, "round table of the wrong size"),
        ({"x": np.array([2_000_000], np.int64), "out": np.empty(1, np.int64)}, "outside"),
        ({"x": np.array([-1], np.int64), "out": np.empty(1, np.int64)}, "outside"),
        ({"out": np.empty(100, np.int64).data.toreadonly()}, "read-write"),
    ],
)
def test_the_permutation_kernel_refuses_inconsistent_arguments(
    change: dict[str, object], message: str
) -> None:
    with pytest.raises((ValueError, TypeError, BufferError), match=message):
        _feistel_call(**change)


def test_the_permutation_kernel_is_the_network() -> None:
    perm = _block("robots", 100)._permutation
    x = np.arange(0, perm.size, 997, dtype=np.int64)
    assert perm.many(x).tolist() == [perm(int(i)) for i in x]


WITHOUT_EXTENSION = """
import hashlib
import reference
from reference import _compiled
from reference._render import SliceRenderer

assert _compiled.fastlines is None
seed = bytes.fromhex(sys.argv[1])
for game, stake in (("robots", 100), ("eldorado", 50)):
    block = reference.Block(game, stake, reference.default_block_id(game, stake, 1), seed)
    assert not block.compiled
    data = block.header_line(123_456, 20_000) + block.render(123_456, 20_000)  # numpy's
    print(hashlib.sha256(data).hexdigest())
    renderer = SliceRenderer(workers=2, parallel_from=1)
    try:  # big slices go to worker processes, not threads
        assert b"".join(renderer.document_lines(block, 123_456, 20_000)) == data
        assert renderer._executor is not None and renderer._threads is None
    finally:
        renderer.close()
"""


def test_without_the_extension_blocks_are_the_same_bytes() -> None:
    """A machine that could not build ``_fastlines`` renders through numpy (on worker
    processes, where the compiled lines render on threads): the same documents."""
    from tests.conformance.fresh import fresh_python, without_module

    script = without_module("reference._fastlines") + WITHOUT_EXTENSION
    done = fresh_python(script, TEST_SEED.hex(), timeout=300)
    expected = []
    for game, stake in (("robots", 100), ("eldorado", 50)):
        block = _block(game, stake)
        assert block.compiled
        document = block.header_line(123_456, 20_000) + block.render(123_456, 20_000)  # C's
        expected.append(hashlib.sha256(document).hexdigest())
    assert done.stdout.split() == expected
