"""Types of the compiled ``conformance._fastaudit`` (``_fastaudit.c``)."""

from typing import Any, TypeAlias

import numpy.typing as npt

_Buffer: TypeAlias = bytes | bytearray | memoryview | npt.NDArray[Any]  # C-contiguous

def eldorado_chunk(
    chunk: _Buffer,
    size: int,
    letter: _Buffer,
    row_values: _Buffer,
    rows: int,
    cells: int,
    base: int,
    extra_bits: int,
    max_grids: int,
    lots: _Buffer,
) -> tuple[bytearray, bytearray, bytearray] | None: ...
def robots_chunk(
    chunk: _Buffer,
    size: int,
    symbol: _Buffer,
    notches: _Buffer,
    amounts: _Buffer,
    robots: int,
    buttons: int,
    max_ticket: int,
    lots: _Buffer,
) -> tuple[bytearray, bytearray, bytearray] | None: ...
def tallies(prizes: _Buffer) -> tuple[bytearray, bytearray] | None: ...
def between_sums(prizes: _Buffer, starts: _Buffer) -> bytearray: ...
def tier_winners(prizes: _Buffer, tiers: _Buffer) -> tuple[bytearray, bytearray]: ...
