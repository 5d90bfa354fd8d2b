"""Blocks kept as pages of units, each page made only when first needed by the outside
generator (``instantcert generate-block --start S --count C``, one process a page) and kept as
a file; a page's lines are held in memory while it is in use (a small LRU).

A block is a seed and a size until one of its units is needed: a block of 2 000 000 units is
never written whole, a slice asked over HTTP is assembled from its pages.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import sys
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PAGE_UNITS = 100_000
KEPT_PAGES = 24


def generator_command() -> str:
    beside = Path(sys.executable).parent / "instantcert"
    if beside.exists():
        return str(beside)
    found = shutil.which("instantcert")
    if found is None:
        raise SystemExit("the block generator (instantcert generate-block) is not installed")
    return found


@dataclass(frozen=True)
class Block:
    block_id: str
    game: str
    stake_cents: int
    units: int
    serial: int
    seed_hex: str


class Page:
    """One page: its generator header and its unit lines (bytes, newline kept)."""

    def __init__(self, header: dict[str, Any], lines: list[bytes]) -> None:
        self.header = header
        self.lines = lines

    def unit(self, offset: int) -> dict[str, Any]:
        unit: dict[str, Any] = json.loads(self.lines[offset])
        return unit


class PageStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._command = generator_command()
        self._kept: OrderedDict[tuple[str, int], Page] = OrderedDict()
        self._making: dict[tuple[str, int], asyncio.Task[Page]] = {}
        self._background: set[asyncio.Future[Page]] = set()

    @staticmethod
    def page_of(index: int) -> int:
        return index // PAGE_UNITS

    def loaded(self, block: Block, page: int) -> Page | None:
        key = (block.block_id, page)
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    async def page(self, block: Block, page: int) -> Page:
        found = self.loaded(block, page)
        if found is not None:
            return found
        key = (block.block_id, page)
        task = self._making.get(key)
        if task is None:
            task = asyncio.ensure_future(self._make(block, page))
            self._making[key] = task
        try:
            made = await asyncio.shield(task)
        finally:
            if task.done():
                self._making.pop(key, None)
        self._kept[key] = made
        self._kept.move_to_end(key)
        while len(self._kept) > KEPT_PAGES:
            self._kept.popitem(last=False)
        return made

    def prefetch(self, block: Block, page: int) -> None:
        if page * PAGE_UNITS < block.units and self.loaded(block, page) is None:
            task = asyncio.ensure_future(self.page(block, page))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _make(self, block: Block, page: int) -> Page:
        path = self.folder / f"{block.block_id}.p{page:04d}.jsonl"
        if not path.exists():
            start = page * PAGE_UNITS
            count = min(PAGE_UNITS, block.units - start)
            partial = path.with_suffix(".part.jsonl")
            process = await asyncio.create_subprocess_exec(
                self._command,
                *("generate-block", "--game", block.game, "--stake-cents", str(block.stake_cents)),
                *("--seed", block.seed_hex, "--block-id", block.block_id.replace(":", ".")),
                *("--start", str(start), "--count", str(count), "-o", str(partial)),
                *("--workers", "1"),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
            )
            _, err = await process.communicate()
            if process.returncode != 0:
                raise RuntimeError(f"the generator failed on {path.name}: {err.decode()[-500:]}")
            with open(partial, "rb") as written:
                os.fsync(written.fileno())
            os.replace(partial, path)
        raw = await asyncio.get_running_loop().run_in_executor(None, path.read_bytes)
        lines = raw.splitlines(keepends=True)
        header = json.loads(lines[0])
        header["block_id"] = block.block_id  # the generator spells ids without ':'
        return Page(header, lines[1:])


def seed_of(master_hex: str, block_id: str) -> str:
    """A block's 256-bit seed, derived from the ledger's secret master seed and the block id."""
    return hashlib.sha256(bytes.fromhex(master_hex) + block_id.encode()).hexdigest()
