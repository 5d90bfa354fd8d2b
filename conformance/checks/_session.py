"""A check's ``Session`` on its target, and the one place where what its scenarios handed over
(``Session.reserve``: "I could not judge X, here is why", or "the project's reading, not the
letter, says Y") becomes the check's reservations (``hand_over``), once the check has ended,
whichever way. A replay of a scenario has no check: what it hands over is dropped there."""

from __future__ import annotations

from .._registry import CheckContext, Reservation
from ._scenarios import Session

NOT_JUDGED_SHOWN = 20  # the cases ``details.not_judged`` lists, at most


def session(ctx: CheckContext) -> Session:
    """A session on the check's target, handed over when the check ends (``hand_over``)."""
    target = Session.of(ctx.adapter, ctx.implementation)
    ctx.at_end(lambda: hand_over(ctx, target))
    ctx.watch_holds(target.watching)  # what the check holds, the session knows
    return target


def hand_over(ctx: CheckContext, target: Session) -> None:
    """What ``target``'s scenarios handed over, as the check's reservations: one reservation a
    basis, naming the first case and how many there were, for every requirement they name.
    ``details.not_judged`` lists what could not be verified (kind ``unverifiable``) and the
    notes of cases the check judges otherwise (``Session.note``). A check reported green must
    have been able to go red: what it could not judge is said, never passed."""
    found = target.taken()
    said = [r.message for r in found if r.kind == "unverifiable"] + list(target.notes)
    if said:
        ctx.details["not_judged"] = said[:NOT_JUDGED_SHOWN]
    by_basis: dict[str, list[Reservation]] = {}
    for reservation in found:
        by_basis.setdefault(reservation.basis, []).append(reservation)
    for same in by_basis.values():
        first = same[0]
        more = f" (and {len(same) - 1} more such case(s))" if len(same) > 1 else ""
        ctx.reserve(
            Reservation(
                first.message + more,
                basis=first.basis,
                lift=first.lift,
                kind=first.kind,
                requirements=sorted({r for s in same for r in s.requirements or ()}) or None,
            )
        )
