"""Block files on disk: made once by the vendor's generator, then read by unit and by slice.

A block is stored as the generator wrote it (JSON Lines) next to a line index (``.idx``, the
byte offset of every line), so a sale reads one unit and a slice streams a byte range. The
generator is ``instantcert generate-block`` run as a separate program, each block with a seed
derived from the ledger's secret master seed and the block id.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np

UNITS = {"robots": 2_000_000, "eldorado": 900_000}
"""Units per block, from the rules (robots: 2 000 000; eldorado: 900 000)."""

STAKES = {"robots": (100,), "eldorado": (50, 100, 200)}

_BLOCK_ID = re.compile(r"(robots|eldorado)\.([0-9]{1,4})\.([1-9][0-9]{0,8})")

STREAM_PIECE = 1 << 20


def block_name(game: str, stake: int, number: int) -> str:
    return f"{game}.{stake}.{number}"


def parse_block_name(text: str) -> tuple[str, int, int] | None:
    """(game, stake, number) of a block id of ours, or None for anything else."""
    match = _BLOCK_ID.fullmatch(text)
    if match is None or int(match[2]) not in STAKES[match[1]]:
        return None
    return match[1], int(match[2]), int(match[3])


class StoredBlock:
    """One generated block file, mapped, with the offset of each of its lines."""

    def __init__(self, path: Path, name: str) -> None:
        self.name = name
        self._file = path.open("rb")
        self._map = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ)
        index_path = path.with_suffix(".idx.npy")
        if index_path.exists():
            self._starts = np.load(index_path)
        else:
            self._starts = self._line_starts()
            np.save(index_path, self._starts)
        first = json.loads(self._map[: int(self._starts[1])])
        self.header: dict[str, object] = first
        self.units = len(self._starts) - 2

    def _line_starts(self) -> np.ndarray:
        """Offsets of every line, plus the end of the file, read 32 MiB at a time."""
        found = [np.array([0], dtype=np.int64)]
        size = len(self._map)
        for at in range(0, size, 32 << 20):
            piece = np.frombuffer(
                self._map, dtype=np.uint8, count=min(32 << 20, size - at), offset=at
            )
            found.append(np.flatnonzero(piece == 10).astype(np.int64) + at + 1)
        return np.concatenate(found)

    def unit(self, index: int) -> tuple[int, str]:
        """(prize in cents, ticket) of unit ``index``."""
        line = self._map[int(self._starts[index + 1]) : int(self._starts[index + 2])]
        unit = json.loads(line)
        if unit["index"] != index:
            raise RuntimeError(f"block {self.name}: line {index + 1} holds unit {unit['index']}")
        return int(unit["prize_cents"]), str(unit["ticket"])

    def slice_bytes(self, start: int, count: int) -> Iterator[bytes]:
        """The unit lines [start, start + count) as they are in the file."""
        begin = int(self._starts[start + 1])
        end = int(self._starts[start + count + 1])
        for at in range(begin, end, STREAM_PIECE):
            yield self._map[at : min(end, at + STREAM_PIECE)]


class Shelf:
    """Every block of every (game, stake), generated on first need, each exactly once."""

    def __init__(self, folder: Path, master_seed: bytes) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._seed = master_seed
        self._lock = threading.Lock()
        self._ready: dict[str, StoredBlock] = {}
        self._making: dict[str, threading.Lock] = {}
        self._generator = threading.Lock()

    def _seed_of(self, name: str) -> str:
        return hashlib.blake2b(name.encode(), key=self._seed, digest_size=32).hexdigest()

    def block(self, game: str, stake: int, number: int) -> StoredBlock:
        """The block, made now if it was never made (other callers wait for it)."""
        name = block_name(game, stake, number)
        with self._lock:
            if name in self._ready:
                return self._ready[name]
            making = self._making.setdefault(name, threading.Lock())
        with making:
            with self._lock:
                if name in self._ready:
                    return self._ready[name]
            path = self.folder / f"{name}.jsonl"
            if not path.exists():
                self._generate(game, stake, name, path)
            block = StoredBlock(path, name)
            with self._lock:
                self._ready[name] = block
            return block

    def _generate(self, game: str, stake: int, name: str, path: Path) -> None:
        partial = path.with_name(f"{name}.partial.jsonl")
        command = [
            str(Path(sys.executable).parent / "instantcert"),
            "generate-block",
            "--game",
            game,
            "--stake-cents",
            str(stake),
            "--seed",
            self._seed_of(name),
            "--block-id",
            name,
            "-o",
            str(partial),
        ]
        with self._generator:  # one generator at a time: it uses every core it finds
            subprocess.run(command, check=True, capture_output=True)
        with partial.open("rb") as written:
            os.fsync(written.fileno())
        partial.replace(path)

    def prepare(self, game: str, stake: int, number: int) -> None:
        """Make the block in the background (the next block, ahead of its sale)."""
        threading.Thread(target=self.block, args=(game, stake, number), daemon=True).start()
