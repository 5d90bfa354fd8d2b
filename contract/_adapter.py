"""The one interface every target implements: contract section 5, mirroring section 4.

Both the in-process reference adapter and the HTTP adapter implement ``Adapter``, so every
conformance check runs unchanged over either (Bowtie's lesson). Documents are the contract's
JSON documents as plain Python values (dicts, lists, ints, strings); ``contract._documents``
names their fields, ``contract/schemas/`` holds the schema each answer is checked against.

Faults are raised, never returned: ``ErrorReply`` for a well-formed contract error,
``TargetUnreachable`` / ``TargetTimeout`` / ``ProtocolViolation`` for a misbehaving target.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import NamedTuple, Protocol, runtime_checkable

from ._documents import Document


class BlockStream(Protocol):
    """A block document (contract section 3) being read: its header, then its unit lines.

    ``lines()`` yields each unit line as raw JSON bytes (no trailing newline), in block order,
    so an auditor can parse them where it likes (in worker processes, for speed). A stream that
    ends early or holds a line that is not JSON raises ``ProtocolViolation`` when it is reached.

    A stream may also offer ``chunks()``: large byte blocks of whole unit lines, newline-ended,
    unparsed. The block audit prefers it when present (it is how the HTTP adapter keeps an audit
    over the wire as fast as one from a file); a stream the target cuts mid-line or floods raises
    ``ProtocolViolation`` from it, so the audit reports an *error*, not a rules failure.
    """

    header: Document

    def lines(self) -> Iterator[bytes]: ...

    def close(self) -> None: ...


@runtime_checkable
class Adapter(Protocol):
    """A connection to one implementation under test."""

    name: str  # how the target was named: "python:reference", "http://127.0.0.1:8080", ...

    def describe(self) -> Document:
        """``GET /v1/implementation``: name, version, games and their stakes, capabilities."""
        ...

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        """``POST /v1/evaluate``: one result or ``{"error": {...}}`` per ticket, same order.

        Any number of tickets; the HTTP adapter chunks them to the contract's batch limit.
        """
        ...

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        """``GET /v1/blocks``: ``[{"block_id","game","stake_cents","units"}]``."""
        ...

    def read_block(
        self, block_id: str, start: int | None = None, count: int | None = None
    ) -> BlockStream:
        """``GET /v1/blocks/{block_id}``: the whole block, or the slice [start, start+count)."""
        ...

    def open_account(self, balance_cents: int) -> Document:
        """``POST /v1/accounts``: ``{"account_id","token","balance_cents"}``."""
        ...

    def balance(self, account_id: str, token: str | None) -> Document:
        """``GET /v1/accounts/{id}``: ``{"account_id","balance_cents"}``."""
        ...

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        """``POST /v1/accounts/{id}/plays``: the bought play, ticket not shown yet."""
        ...

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        """``POST /v1/plays/{id}/reveal``: ``{"button","symbol","x2","plus_one"}``."""
        ...

    def auto(self, play_id: str, token: str | None) -> Document:
        """``POST /v1/plays/{id}/auto``: ``{"play_id","ticket","prize_cents","wins"}``."""
        ...

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        """``GET /v1/accounts/{id}/history``: ``{"plays":[...]}``, newest first."""
        ...

    def close(self) -> None:
        """Release connections and files."""
        ...


class RawAnswer(NamedTuple):
    """What a target answered to a request sent as it was written (``RawRequests``): its
    status and its body's first bytes (at most ``RAW_BODY_BYTES``)."""

    status: int
    body: bytes


RAW_BODY_BYTES = 64 * 1024
"""How much of a raw answer's body is kept: enough to see whether it shows an account."""


@runtime_checkable
class RawRequests(Protocol):
    """An optional capability of an adapter that speaks HTTP: one request exactly as written.

    The contract's operations take the token as a value; how a request carries it (the
    ``Authorization: Bearer`` header), and the spelling of its path, exist only over HTTP. The
    suite's "ways in" checks (docs/play-checks.md) ask a target about them through this method
    when the adapter has it; an in-process adapter has no header or path to vary and is asked
    only what the contract's operations can carry (other token values). ``path`` is sent as
    written, query string included (no normalisation: a trailing slash, a doubled slash, a
    percent-encoded character stay); ``headers`` are sent as given, with no ``Authorization``
    unless they hold one; ``body`` is sent as JSON when not None. Never repeated."""

    def send_raw(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str] | None = None,
        body: object = None,
    ) -> RawAnswer: ...


@runtime_checkable
class HeldBack(Protocol):
    """An optional capability of an adapter that may send fewer requests at once than a check
    asks for: the HTTP adapter lets fewer purchases (plays, reveals) out together after the
    target asked it to slow down (429, 503 with ``Retry-After``, a 502/503/504 overload; a
    dropped connection too, which is not counted here: docs/http-api.md). A check that races
    purchases against each other asks it, around its
    race, how many could have reached the target together: ``pace_mark()`` before,
    ``fewest_at_once(mark)`` after, the fewest it would have let out at once at any moment
    since the mark because the target had it slow down, None when the target asked nothing
    of the kind meanwhile. An adapter without it sends every request when asked."""

    def pace_mark(self) -> int: ...

    def fewest_at_once(self, mark: int) -> int | None: ...
