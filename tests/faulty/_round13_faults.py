"""Faults a thirteenth red team wrote (5 December 2026) after reading the suite's pace ("a
player's pace"): a robots ticket's clicks were made back to back (the reveal scenarios, the old
accounts) or 0.2 to 1 s apart (the paced players, whose answers were never judged, only
counted); every paced player's request came 0.5 to 3 s after its previous one (uniform), an
old account's overlapping rounds after 0.5 to 3 s or 5 s and more, so no listing ever came
after an account lay quiet 3 to 5 s; a block stream was read as fast as the harness reads,
never stalled. Each class is the reference with one behaviour changed, its docstring the bug as
a vendor would write it (``variants.py`` registers them with what must catch them); the
controls are correct.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

from reference._service import Document, GameService, ServiceError, require_int

# == a ticket tapped slowly: its reveal session reloaded ========================================

#: a ticket's reveal session leaves the cache after this long without a request on the ticket
TAP_IDLE_FROM_S = 1.2
#: ... and its old record is swept (the next click loads the new one) after this long
TAP_IDLE_TO_S = 4.0
ROWS, COLUMNS = 3, 6  # the app's dashboard of 18 buttons


def _transposed(button: int) -> int:
    """The button the dashboard service's loader numbers ``button`` (row by row, 6 a row)
    as: column by column (3 a column)."""
    row, column = divmod(button, COLUMNS)
    return column * ROWS + row


class _TicketIdle(GameService):
    """Tracks how long each ticket lay without a request (its purchase, a click, AUTO)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._touched: dict[str, float] = {}
        self._touch_lock = threading.Lock()

    def _idle(self, play_id: object) -> float | None:
        """Seconds since the ticket's previous request (None: none), and this one noted."""
        now = time.monotonic()
        with self._touch_lock:
            before = self._touched.get(str(play_id))
            self._touched[str(play_id)] = now
        return None if before is None else now - before

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        answer = super().play(account_id, token, game, stake_cents)
        self._idle(answer["play_id"])
        return answer

    def auto(self, play_id: object, token: object) -> Document:
        self._idle(play_id)
        return super().auto(play_id, token)

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        idle = self._idle(play_id)
        if idle is None or not TAP_IDLE_FROM_S <= idle < TAP_IDLE_TO_S:
            return super().reveal(play_id, token, button)
        return self._reloaded(play_id, token, button)

    def _reloaded(self, play_id: object, token: object, button: object) -> Document:
        """A click on a ticket whose reveal session was reloaded (right here)."""
        return super().reveal(play_id, token, button)


class SlowTapSessionReloaded(_TicketIdle):
    """Correct (a control): a ticket's reveal session leaves the cache after 1.2 s without a
    request on the ticket and is loaded again, buttons numbered as the ticket numbers them."""


class SlowTapButtonsTransposed(_TicketIdle):
    """Robots 4.3 / contract 4 (a click: "the next reveal under that button"): a ticket's
    reveal session stays in the app servers' cache 1.2 s after the ticket's last request (a
    click, its purchase, AUTO); a click on a ticket idle longer loads it from the dashboard
    service's record, which numbers the 18 buttons column by column (3 rows of 6) where the
    ticket numbers them row by row, until the old record is swept 4 s after the ticket's last
    request. A click in between reveals the next symbol under the transposed button (its X2 and
    +1 too; the clicked button's count goes on right, so AUTO and the next clicks are right):
    a player tapping a button a second or three after the last, as people tap, sees another
    button's symbol. Clicks one right after another (under 1.2 s), or after a longer pause, and
    buttons 0 and 17 (their own transposes) are right."""

    def _reloaded(self, play_id: object, token: object, button: object) -> Document:
        owner = self.authenticate(token)
        with self._transaction() as db:
            row = self._own_play(db, play_id, owner)
            engine = self._engine_of(row)
            if not engine.buttons:
                return super()._reloaded(play_id, token, button)
            number = require_int(button, "button", low=0, high=engine.buttons - 1)
            shown = json.loads(row["revealed"])
            buttons = engine.button_reveals(row["ticket"])
            if shown[number] >= len(buttons[number]):
                raise ServiceError(
                    409,
                    "nothing_to_reveal",
                    f"button {number} of play {play_id!r} has nothing left to reveal",
                )
            other = buttons[_transposed(number)]
            reveal = other[min(shown[number], len(other) - 1)]
            shown[number] += 1
            db.execute(
                "UPDATE plays SET revealed = ? WHERE play_id = ?", (json.dumps(shown), play_id)
            )
        return {"button": number, **reveal}


# == a listing asked after the account lay quiet a few seconds =================================

#: an account quiet this long has its pooled primary connection recycled ...
QUIET_FROM_S = 3.1
#: ... and until this long (the pool warmed again) its listings go to the read replica
QUIET_TO_S = 4.9
#: how far the read replica lags behind the primary
REPLICA_LAG_S = 5.0


class _AccountQuiet(GameService):
    """Tracks how long each account lay without a request (anything its token asks)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._heard: dict[str, float] = {}
        self._bought: dict[str, float] = {}
        self._quiet_lock = threading.Lock()
        self._quiet = threading.local()

    def authenticate(self, token: object) -> str:
        owner = super().authenticate(token)
        now = time.monotonic()
        with self._quiet_lock:
            before = self._heard.get(owner)
            self._heard[owner] = now
        self._quiet.seconds = None if before is None else now - before
        return owner

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        answer = super().play(account_id, token, game, stake_cents)
        with self._quiet_lock:
            self._bought[str(answer["play_id"])] = time.monotonic()
        return answer

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        answer = super().history(account_id, token, limit)
        quiet = getattr(self._quiet, "seconds", None)
        if quiet is None or not QUIET_FROM_S <= quiet < QUIET_TO_S:
            return answer
        return self._replica(answer)

    def _replica(self, answer: Document) -> Document:
        """The listing as the read replica answers it (right here)."""
        return answer


class QuietAccountListingFromPrimary(_AccountQuiet):
    """Correct (a control): an account quiet 3.1 to 4.9 s has its listing read from the
    primary again (its pooled connection recycled, another taken)."""


class QuietAccountListingFromReplica(_AccountQuiet):
    """Contract 4 (the history: "a play shows here as soon as it is bought"): each account's
    requests go through a pooled connection to the primary, recycled after 3.1 s of the
    account's silence; until the pool has warmed again (4.9 s after the account's last
    request) a listing is read from the read replica, 5 s behind: the plays bought in the
    last 5 s are missing from it. An app that refreshes its history a few seconds after a
    purchase, as people look at it, misses the ticket just bought. A listing right after
    another request (under 3.1 s), or after a longer silence, is right; so is every play,
    click, AUTO and balance read."""

    def _replica(self, answer: Document) -> Document:
        now = time.monotonic()
        with self._quiet_lock:
            recent = {p for p, at in self._bought.items() if now - at < REPLICA_LAG_S}
        return {**answer, "plays": [p for p in answer["plays"] if p["play_id"] not in recent]}


# == a block stream read slowly: the replica's cursor reopened ==================================

#: a stream whose client takes no more for this long (its socket's send buffer full: the
#: client's back-pressure) has its cursor on the replica time out
STALL_S = 1.0
#: the units a cursor fetches at a time
FETCH_UNITS = 256


class _PagedStream(GameService):
    """A block document streamed a fetch page (``FETCH_UNITS`` unit lines) at a time."""

    def block_document(
        self, block_id: object, start: object = None, count: object = None
    ) -> Iterator[bytes]:
        inner = super().block_document(block_id, start, count)
        return self._paged(inner)

    def _paged(self, inner: Iterator[bytes]) -> Iterator[bytes]:
        yield next(inner)  # the header line
        page: list[bytes] = []
        for piece in inner:
            for line in piece.split(b"\n")[:-1]:
                page.append(line + b"\n")
                if len(page) == FETCH_UNITS:
                    yield from self._handed(b"".join(page))
                    page = []
        if page:
            yield from self._handed(b"".join(page))

    def _handed(self, page: bytes) -> Iterator[bytes]:
        """Hand one fetch page out."""
        yield page


class SlowReaderCursorKept(_PagedStream):
    """Correct (a control): a block stream fetched 256 units at a time from the replica, its
    cursor kept open however long the client takes."""


class SlowReaderPageRepeated(_PagedStream):
    """Contract 3 (a slice: the lines start .. start+count-1, one a unit, in order): a block
    stream is fetched from the read replica 256 units at a time through a cursor that times
    out after 1 s without a fetch; a client that takes nothing for that long (its socket's
    send buffer full: a phone on a slow network, a reader that stops to think) has the cursor
    reopened at the start of the page it was handed last, and that page is sent again: 256
    units twice. A stream read as fast as the client can, the harness's audits' way, is
    right."""

    def _handed(self, page: bytes) -> Iterator[bytes]:
        asked = time.monotonic()
        yield page
        if time.monotonic() - asked > STALL_S:  # the client took nothing for that long
            yield page  # the cursor reopened at the page's start: the page again


__all__ = [
    "FETCH_UNITS",
    "QUIET_FROM_S",
    "QUIET_TO_S",
    "STALL_S",
    "TAP_IDLE_FROM_S",
    "TAP_IDLE_TO_S",
    "QuietAccountListingFromPrimary",
    "QuietAccountListingFromReplica",
    "SlowReaderCursorKept",
    "SlowReaderPageRepeated",
    "SlowTapButtonsTransposed",
    "SlowTapSessionReloaded",
]
