"""``python:reference``: the reference game service driven in-process, the default target.

It calls ``reference._service.GameService`` directly, the very object the HTTP server wraps, and
turns each refusal into the ``ErrorReply(status, code, message)`` the server would have sent,
so a check sees the same thing over either connection.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from contract import EVALUATE_BATCH_LIMIT
from reference._service import Document, GameService, ServiceError

from ._errors import ErrorReply

T = TypeVar("T")


def _call(function: Callable[..., T], *args: Any) -> T:
    try:
        return function(*args)
    except ServiceError as exc:
        raise ErrorReply(exc.status, exc.code, exc.message) from None


class ReferenceBlockStream:
    """A slice of a reference block, computed unit by unit as it is read (nothing stored)."""

    def __init__(self, lines: Iterator[bytes]) -> None:
        self._lines = lines
        self.header: Document = json.loads(next(lines))

    def lines(self) -> Iterator[bytes]:
        for piece in self._lines:  # one line, or a piece of many, each ending in a newline
            yield from piece.split(b"\n")[:-1]

    def close(self) -> None:
        close = getattr(self._lines, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> ReferenceBlockStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ReferenceAdapter:
    """The reference, in-process. ``db_path`` None: a fresh scratch database in a temporary
    directory, removed on ``close()`` (not synced to disk: nothing in it outlives the run), or
    when the adapter is garbage-collected or the interpreter exits unclosed (a test, a script
    that forgot ``close()``: no directory left in the temporary folder per run); ``seed`` fixes
    the master seed of a new database."""

    def __init__(
        self,
        db_path: str | Path | None = None,
        *,
        seed: bytes | None = None,
        name: str = "python:reference",
    ) -> None:
        self.name = name
        self._removal: Callable[[], object] | None = None  # a weakref.finalize
        if db_path is None:
            scratch = tempfile.mkdtemp(prefix="instantcert-reference-")
            self._removal = weakref.finalize(self, _remove_tree, scratch)
            db_path = Path(scratch) / "reference.sqlite3"
        # a scratch database, deleted on close(), need not survive a crash: no fsync per play
        self.service = GameService(db_path, seed=seed, durable=self._removal is None)

    def describe(self) -> Document:
        return _call(self.service.implementation)

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        results: list[Document] = []
        for first in range(0, len(tickets), EVALUATE_BATCH_LIMIT):
            batch = list(tickets[first : first + EVALUATE_BATCH_LIMIT])
            results.extend(_call(self.service.evaluate, game, stake_cents, batch)["results"])
        return results

    def evaluate_once(self, game: object, stake_cents: object, tickets: object) -> list[Document]:
        """One evaluate call with these arguments as they are (no chunking): how the suite
        sends the requests the contract refuses (0 or 1001 tickets, wrong types)."""
        results: list[Document] = _call(self.service.evaluate, game, stake_cents, tickets)[
            "results"
        ]
        return results

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        blocks: list[Document] = _call(self.service.list_blocks, game, stake_cents)["blocks"]
        return blocks

    def read_block(
        self, block_id: str, start: int | None = None, count: int | None = None
    ) -> ReferenceBlockStream:
        return ReferenceBlockStream(_call(self.service.block_document, block_id, start, count))

    def open_account(self, balance_cents: int) -> Document:
        return _call(self.service.open_account, balance_cents)

    def balance(self, account_id: str, token: str | None) -> Document:
        return _call(self.service.balance, account_id, token)

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        return _call(self.service.play, account_id, token, game, stake_cents)

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        return _call(self.service.reveal, play_id, token, button)

    def auto(self, play_id: str, token: str | None) -> Document:
        return _call(self.service.auto, play_id, token)

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        return _call(self.service.history, account_id, token, limit)

    def close(self) -> None:
        try:
            self.service.close()
        finally:
            if self._removal is not None:
                self._removal()  # once: a later close, the collector and exit do nothing


def _remove_tree(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
