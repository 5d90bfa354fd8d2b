"""The vendor's ledger: one append-only file of JSON lines, each written and fsynced before the
answer that depends on it leaves, and replayed in order at start.

A line cut short by a crash (no newline at its end) never acknowledged anything: replay drops
it and the file is truncated back to its last whole line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

Record = dict[str, Any]


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._whole = self._trim_torn_tail()
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def _trim_torn_tail(self) -> list[Record]:
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        end = raw.rfind(b"\n") + 1
        if end != len(raw):
            with open(self.path, "r+b") as torn:
                torn.truncate(end)
                os.fsync(torn.fileno())
        return [json.loads(line) for line in raw[:end].splitlines() if line.strip()]

    def replay(self) -> Iterator[Record]:
        """Every record written before this start, oldest first (once)."""
        records, self._whole = self._whole, []
        yield from records

    def append(self, record: Record) -> None:
        line = json.dumps(record, separators=(",", ":"), ensure_ascii=True).encode() + b"\n"
        os.write(self._fd, line)
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)
