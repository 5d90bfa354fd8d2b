"""One unfinished ticket per account (row ``one-open-ticket`` of docs/contract-decisions.md).

FDJ's own sites refuse a new game while a ticket of the account is still pending; a vendor may
do the same: a play refused with 409 ("wrong state", contract 4) while the account has a ticket
not fully shown, until AUTO (or every button clicked to its end) finishes it. The contract says
nothing of several unfinished tickets on one account, so that is no fault.

The session (``client.Session.play``) keeps here the plays each account bought through it and has
not AUTO'd (one clicked to its end too: a target may want AUTO to close it). A play refused with
409, sent while no other play of the account was in flight (a race between plays at once is row
``play-conflict``'s), on an account with unfinished tickets: each of them is finished by AUTO (its
answer judged as every AUTO's), kept in ``finished_early``, and the play is sent once more; a
second refusal is the target's, as any. The plays that bring an account down to a balance
asked (``Session.play_down``) are kept here too. A scenario that meant to come back to such a
ticket reads ``finished_early`` and judges what AUTO showed instead of the clicks it would have
made.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

CONFLICT = 409  # "409 wrong state": a play refused while a ticket of the account is open


@dataclass
class OpenTickets:
    """The plays each account bought through the session and has not finished yet."""

    finished_early: dict[str, tuple[str, int]] = field(default_factory=dict)
    """play_id -> (ticket, prize) of AUTO's answer, for the plays finished to free their
    account for a play the target refused meanwhile."""
    refusals: Counter[str] = field(default_factory=Counter)
    """``"<status> <code>"`` -> how many plays were refused so, and made again."""
    _open: dict[str, dict[str, None]] = field(default_factory=dict)  # account -> open plays
    _owner: dict[str, str] = field(default_factory=dict)  # open play -> its account
    _flying: Counter[str] = field(default_factory=Counter)  # account -> plays in flight
    _begun: Counter[str] = field(default_factory=Counter)  # account -> plays ever sent
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @contextmanager
    def sending(self, account_id: str) -> Iterator[Callable[[], bool]]:
        """A play of ``account_id`` in flight meanwhile; yields whether it was alone: no other
        play of the account in flight when it was sent, and none sent since."""
        with self._lock:
            self._flying[account_id] += 1
            self._begun[account_id] += 1
            mark, alone = self._begun[account_id], self._flying[account_id] == 1

        def still_alone() -> bool:
            with self._lock:
                return alone and self._begun[account_id] == mark

        try:
            yield still_alone
        finally:
            with self._lock:
                self._flying[account_id] -= 1

    def bought(self, account_id: str, play_id: str) -> None:
        with self._lock:
            self._open.setdefault(account_id, {})[play_id] = None
            self._owner[play_id] = account_id

    def finished(self, play_id: str) -> None:
        with self._lock:
            account_id = self._owner.pop(play_id, None)
            if account_id is not None:
                del self._open[account_id][play_id]

    def open_of(self, account_id: str) -> list[str]:
        """The account's plays not finished yet, oldest first."""
        with self._lock:
            return list(self._open.get(account_id, ()))

    def freed(self, play_id: str, ticket: str, prize: int) -> None:
        """``play_id`` finished by AUTO (``ticket``, ``prize``) to free its account."""
        with self._lock:
            self.finished_early[play_id] = (ticket, prize)

    def refused(self, status: int, code: str) -> bool:
        """Count a play refused while its account had a ticket open; True the first time."""
        with self._lock:
            self.refusals[f"{status} {code}"] += 1
            return sum(self.refusals.values()) == 1

    def early(self, play_id: str) -> tuple[str, int] | None:
        """AUTO's (ticket, prize) when ``play_id`` was finished to free its account."""
        with self._lock:
            return self.finished_early.get(play_id)


NOTE = (
    "a play refused ({refusal}) while a ticket of the account was unfinished: the ticket "
    "finished by AUTO (its answer judged as every AUTO's) and the play made again, as a player "
    "of a target that keeps one unfinished ticket per account does (row one-open-ticket); what "
    "a scenario meant to click on such a ticket after the account's later plays is not asked "
    "of it (a second ticket refused is the state no player reaches); a ticket left half "
    "revealed while other accounts play is judged all the same (row reveal-resume)"
)
