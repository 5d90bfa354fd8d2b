"""Types of the compiled ``reference._fastlines`` (``_fastlines.c``)."""

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy.typing as npt

_Buffer: TypeAlias = bytes | memoryview | npt.NDArray[Any]  # C-contiguous

def robots_lines(
    first: int,
    lot_of: _Buffer,
    key_low: int,
    key_high: int,
    blocks: int,
    lots: Sequence[tuple[int, _Buffer, _Buffer, int]],
    orders: _Buffer,
    robots: int,
    buttons: int,
) -> bytes: ...
def eldorado_lines(
    first: int,
    lot_of: _Buffer,
    key_low: int,
    key_high: int,
    blocks: int,
    lots: Sequence[tuple[int, _Buffer, _Buffer, int]],
    row_orders: _Buffer,
    cell_orders: _Buffer,
    grids: int,
    rows: int,
    cells: int,
) -> bytes: ...
def feistel_many(
    x: _Buffer,
    out: _Buffer,
    tables: Sequence[_Buffer],
    high: int,
    low: int,
    size: int,
) -> None: ...
