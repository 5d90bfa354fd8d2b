"""The compiled robots lines (``reference/_fastlines.c``) are the numpy layout's bytes, exactly.

A block's bytes are its contract (``test_blocks.test_the_algorithm_is_frozen``): the C path
must give every unit of every lot the very line the numpy path gives, whatever the slice.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import reference
from reference import _robots_make, _scenarios
from tests.seeds import TEST_SEED

SEEDS = [TEST_SEED, hashlib.sha256(b"instantcert tests: fastlines").digest()]


def test_the_extension_is_built() -> None:
    """The project's install builds it (setup.py); a silent fallback would hide a broken build
    behind a four times slower generator. A machine without a C compiler fails here, only."""
    assert _robots_make._fastlines is not None


def _block(seed: bytes) -> reference.Block:
    return reference.Block("robots", 100, "robots-100-0001", seed)


@pytest.mark.parametrize("seed", SEEDS, ids=["test-seed", "other-seed"])
def test_every_lot_renders_the_numpy_bytes(seed: bytes) -> None:
    """Around a unit of every lot (the top lots are a few units in 2 000 000), slices that
    cross batch edges and powers of ten, the block's start and end."""
    b = _block(seed)
    lots = b._slice_lots(0, b.units)
    cuts = [(0, 0), (0, 1), (0, 5_000), (9_990, 25), (999_990, 25), (b.units - 4_100, 4_100)]
    for lot in range(len(b._prizes)):
        at = int(np.flatnonzero(lots == lot)[0])
        cuts.append((max(0, at - 2_000), min(4_096 + 7, b.units - max(0, at - 2_000))))
    for start, count in cuts:
        assert b.render(start, count) == b.render(start, count, compiled=False), (start, count)


def test_lines_are_the_units_lines() -> None:
    """What the compiled path gives is each unit's own ``to_json_line``, not only numpy's."""
    b = _block(SEEDS[1])
    expected = b"".join(u.to_json_line() + b"\n" for u in b.iter_units(1_234_560, 300))
    assert b.render(1_234_560, 300) == expected


def _call(**change: object) -> bytes:
    b = _block(TEST_SEED)
    pools = b._pools
    assert isinstance(pools, _robots_make.RobotsPools)
    lots = b._slice_lots(0, 64)
    args: dict[str, object] = {
        "first": 0,
        "lot_of": lots,
        "key_low": b._scenario_key & (2**64 - 1),
        "key_high": b._scenario_key >> 64,
        "blocks": _scenarios.BLOCKS,
        "lots": [pools._lot_entry(p) for p in b._prizes],
        "orders": pools.orders,
        "robots": pools.orders.shape[1],
        "buttons": pools.buttons,
    }
    args.update(change)
    assert _robots_make._fastlines is not None
    result: bytes = _robots_make._fastlines.robots_lines(*args.values())
    return result


def test_the_kernel_matches_render_when_called_directly() -> None:
    assert _call() == _block(TEST_SEED).render(0, 64, compiled=False)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"blocks": 4}, "inconsistent sizes"),
        ({"first": 2**50}, "inconsistent sizes"),
        ({"buttons": 0}, "inconsistent sizes"),
        ({"lot_of": np.zeros(64, np.int64) + 99}, "lot is out of range"),
        ({"lot_of": np.zeros(64, np.int64) - 1}, "lot is out of range"),
        ({"lots": [(0, np.zeros(17, np.uint8), np.zeros(18, np.uint8), 1)] * 20}, "pool"),
        ({"orders": np.zeros(7, np.uint8)}, "inconsistent sizes"),
    ],
)
def test_the_kernel_refuses_inconsistent_arguments(change: dict[str, object], message: str) -> None:
    """It reads raw memory: every size it relies on is checked before the first unit."""
    with pytest.raises(ValueError, match=message):
        _call(**change)


def test_a_non_contiguous_array_is_refused() -> None:
    lots = np.zeros(128, np.int64)[::2]
    with pytest.raises(ValueError, match="C-contiguous"):
        _call(lot_of=lots)


@pytest.mark.parametrize("key", [0, 1, 2**64 - 1, 2**64, 2**128 - 1, 0x0123456789ABCDEF << 37])
def test_the_kernels_words_are_numpys_philox(key: int) -> None:
    """The kernel computes each unit's words itself (Philox4x64-10): a unit's lines under any
    key, at indices far apart, are those numpy's Philox words lay out."""
    b = _block(TEST_SEED)
    b._scenario_key = key
    for start in (0, 1_999_000):
        assert b.render(start, 500) == b.render(start, 500, compiled=False), (key, start)
