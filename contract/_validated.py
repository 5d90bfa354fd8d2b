"""The seam: one wrapper that holds every answer of any adapter to the contract's schemas.

``Validated(adapter)`` answers what ``adapter`` answers, once each answer has passed its schema
(``contract._schemas``: the shape of each document; ``describe`` whole). An answer that is
not a document of the contract raises ``ProtocolViolation`` (the target's *error*) naming the
operation, where in the answer the fault is (a JSON path) and the offending value, ``!r``.
Two faults are a requirement's, not the protocol's, and raise ``ContractBreach`` (a *fail*),
as the HTTP adapter classifies them over the wire: an error document answered as a success
(``protocol.refusals.status``), and in an evaluate batch a result count that is not the ticket
count (``evaluate.batch.order``) or an error object that is not the error document
(``evaluate.batch.errors``).

Block unit lines pass through unparsed: they stream by the million, and the block audit reads
each one anyway (``conformance._audit``), judging a malformed line against block-unit's
schema as its own requirement. Only the header line is checked here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from ._adapter import Adapter, BlockStream
from ._documents import Document
from ._errors import ContractBreach, ProtocolViolation
from ._schemas import fast_shape, first_fault

QUOTE_CHARS = 200  # how much of an offending value a message shows
REFUSAL_STATUS = "protocol.refusals.status"
BATCH_ORDER = "evaluate.batch.order"
BATCH_ERRORS = "evaluate.batch.errors"


def quote(value: object) -> str:
    """``value!r``, shortened to ``QUOTE_CHARS`` and marked when it is."""
    shown = repr(value)
    return shown if len(shown) <= QUOTE_CHARS else shown[:QUOTE_CHARS] + f"... ({len(shown)} chars)"


def is_error_document(value: object) -> bool:
    """``{"error": {"code": str, "message": str}}``: a refusal, whatever status came with it."""
    return isinstance(value, dict) and fast_shape("error")(value)


def check(operation: str, schema: str, value: object, *, shape: bool = True) -> None:
    """Raise ``ProtocolViolation`` unless ``value`` follows schema ``schema``."""
    fault = first_fault(schema, value, shape=shape)
    if fault is not None:
        path, offending, reason = fault
        raise ProtocolViolation(
            f"{operation}: the answer breaks {schema}.schema.json at {path}: {reason}, "
            f"got {quote(offending)}"
        )


def _success(operation: str, schema: str, value: object) -> Document:
    """A success answer of ``operation``; a refusal answered as a success is a breach."""
    if is_error_document(value) and first_fault(schema, value) is not None:
        assert isinstance(value, dict)
        raise ContractBreach(
            REFUSAL_STATUS,
            f"{operation}: a refusal was answered as a success: {quote(value)}",
            {"operation": operation, "body": dict(value), "expected": "a refusal (ErrorReply)"},
        )
    check(operation, schema, value)
    assert isinstance(value, dict)
    return value


class ValidatedStream:
    """A block stream whose header passed block-header's schema; lines pass through."""

    def __init__(self, stream: BlockStream, operation: str) -> None:
        self._stream = stream
        try:
            check(operation, "block-header", stream.header)
        except BaseException:
            stream.close()
            raise
        self.header: Document = stream.header

    def lines(self) -> Iterator[bytes]:
        return self._stream.lines()

    def close(self) -> None:
        self._stream.close()

    def __enter__(self) -> ValidatedStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:  # chunks(), and a stream's extras
        return getattr(self._stream, name)


_DATE_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})", re.ASCII
)
"""RFC 3339 5.6's ``date-time``: ``time-secfrac = "." 1*DIGIT``, a fraction of any length (12
digits, a picosecond clock's, are RFC 3339 as 9 are)."""


def is_date_time(value: object) -> bool:
    """Whether ``value`` is an RFC 3339 date-time (section 5.6: a date, a time, its offset),
    the ``format: date-time`` of the schemas, and a real instant (no month 13, no 25 h)."""
    if not isinstance(value, str) or _DATE_TIME.fullmatch(value) is None:
        return False
    text = value.upper().replace("Z", "+00:00")
    if text[17:19] == "60":  # a leap second: RFC 3339 has it, Python's datetime does not
        text = text[:17] + "59" + text[19:]
    whole, dot, rest = text.partition(".")
    if dot:  # Python reads at most 6 digits of a fraction: keep those, and the offset
        digits = rest[: len(rest) - 6]
        text = f"{whole}.{digits[:6].ljust(6, '0')}{rest[-6:]}"
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


class Validated:
    """``adapter`` with every answer held to its schema; ``unchecked`` is the adapter itself.

    Wrapping twice checks once: ``Validated(Validated(a))`` is ``Validated(a)``.
    """

    unchecked: Adapter
    name: str

    def __new__(cls, adapter: Adapter) -> Validated:
        if isinstance(adapter, Validated):
            return adapter
        self = super().__new__(cls)
        self.unchecked = adapter
        self.name = str(getattr(adapter, "name", "target"))
        return self

    @property
    def underlying(self) -> object:
        """The run's adapter, what a cache shared by checks keys on: the wrapped adapter's own
        ``underlying`` if it has one (the harness's guard), else the wrapped adapter."""
        return getattr(self.unchecked, "underlying", self.unchecked)

    def describe(self) -> Document:
        value = self.unchecked.describe()
        check("describe", "implementation", value, shape=False)
        assert isinstance(value, dict)
        return value

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        operation = f"evaluate({game!r}, {stake_cents!r}, {len(tickets)} tickets)"
        results = self.unchecked.evaluate(game, stake_cents, tickets)
        if not isinstance(results, list):
            raise ProtocolViolation(
                f"{operation}: the answer must be a list of results, got {quote(results)}"
            )
        if len(results) != len(tickets):
            raise ContractBreach(
                BATCH_ORDER,
                f"{operation}: {len(tickets)} tickets sent, {len(results)} results received",
                {"operation": operation, "body": results, "expected": {"results": len(tickets)}},
            )
        conforms = fast_shape("evaluation-result")
        for number, result in enumerate(results):
            if type(result) is dict and "error" not in result and conforms(result):
                continue  # a result of the contract's shape, as nearly all are: nothing to say
            if is_error_document(result):
                continue
            if isinstance(result, dict) and "error" in result:
                raise ContractBreach(
                    BATCH_ERRORS,
                    f"{operation}: results[{number}] is an error object but not "
                    f'{{"error": {{"code", "message"}}}}: {quote(result)}',
                    {"operation": operation, "body": result, "expected": "the error document"},
                )
            fault = first_fault("evaluation-result", result)
            if fault is not None:
                path, offending, reason = fault
                raise ProtocolViolation(
                    f"{operation}: results[{number}] breaks evaluation-result.schema.json at "
                    f"{path}: {reason}, got {quote(offending)}"
                )
        return results

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        operation = f"list_blocks({game!r}, {stake_cents!r})"
        blocks = self.unchecked.list_blocks(game, stake_cents)
        check(operation, "block-list", {"blocks": blocks})
        return blocks

    def read_block(
        self, block_id: str, start: int | None = None, count: int | None = None
    ) -> ValidatedStream:
        operation = f"read_block({block_id!r}, start={start!r}, count={count!r})"
        return ValidatedStream(self.unchecked.read_block(block_id, start, count), operation)

    def open_account(self, balance_cents: int) -> Document:
        value = self.unchecked.open_account(balance_cents)
        return _success(f"open_account({balance_cents!r})", "account", value)

    def balance(self, account_id: str, token: str | None) -> Document:
        value = self.unchecked.balance(account_id, token)
        return _success(f"balance({account_id!r})", "balance", value)

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        value = self.unchecked.play(account_id, token, game, stake_cents)
        return _success(f"play({account_id!r}, {game!r}, {stake_cents!r})", "play", value)

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        value = self.unchecked.reveal(play_id, token, button)
        return _success(f"reveal({play_id!r}, button={button!r})", "reveal", value)

    def auto(self, play_id: str, token: str | None) -> Document:
        value = self.unchecked.auto(play_id, token)
        return _success(f"auto({play_id!r})", "auto", value)

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        """The history in shape; ``created_at`` is not held to a format here: the contract
        names the field only, so its format is a reading (a reservation) and its value a
        requirement's (``play.history.created_at``), never the seam's error."""
        value = self.unchecked.history(account_id, token, limit)
        return _success(f"history({account_id!r}, limit={limit!r})", "history", value)

    def close(self) -> None:
        self.unchecked.close()

    def __getattr__(self, name: str) -> Any:  # a vendor adapter's extras, unchecked
        if name == "unchecked":  # not set yet (copy, pickle): no recursion
            raise AttributeError(name)
        return getattr(self.unchecked, name)
