"""Robots reveal protocol scenarios (robots 4.3, 4.4, 4.7; R-I4, R-I5): reveal order,
the +1 rule, AUTO after some clicks."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import reference
from contract import ContractBreach, ErrorReply, ProtocolViolation

from ..._pool import map_in_order, split
from ..._registry import Evidence
from .client import (
    MAX_CLICKS,
    REVEAL_ANSWER,
    Account,
    Case,
    Chooser,
    Document,
    Session,
    _funded,
    evidence,
    ref_prize,
    refused,
    reply_doc,
    reveal_tuple,
    ticket_buttons,
)

ROBOTS = "robots"  # the reveal scenarios below are robots' own (robots 4.3, 4.4, 4.7)
#: a +1 protocol fault met on the way (a button answering one click too many)
PLUS_ONE = "robots.4.7.reveal_plus_one"
REVEAL_SYMBOLS = "robots.4.3.reveal_symbols"
REVEAL_ORDER = "robots.4.4.reveal_order"
#: what a ticket revealed on after a while can break (``revealed_on``)
REVEAL_REQUIREMENTS = (REVEAL_SYMBOLS, REVEAL_ORDER, PLUS_ONE)


def _answer(reply: object, button: int) -> tuple[str, bool, bool] | None:
    """A reveal answer as (letter, x2, plus_one), None when it is not one."""
    try:
        return reveal_tuple(ROBOTS, reply, button)
    except (ContractBreach, ProtocolViolation):
        return None


def revealed_on(
    session: Session,
    account: Account,
    play_id: str,
    ticket: str,
    clicks: list[int],
    order: list[int],
) -> tuple[str, object, object, str, str] | None:
    """A ticket left half revealed (``clicks[b]`` symbols shown on button b, clicked in
    ``order``) and come back to: revealed on in turn, each button from where it stopped to its
    last symbol, then clicked once more (409); then AUTO ends on the ticket bought. A fault as
    (requirement, expected, got, what, operation), or None. A click too many or too few on a
    button with a +1 chain breaks 4.7; any other fault 4.3 when the clicks before were buttons
    in turn (each button to its end before the next), else 4.4 (a click order changed what was
    shown)."""
    buttons = ticket_buttons(ROBOTS, ticket)
    if buttons is None:
        return None
    natural = [b for b, reveals in enumerate(buttons) for _ in reveals]
    shown_wrong = REVEAL_SYMBOLS if order == natural[: len(order)] else REVEAL_ORDER
    for button, done in enumerate(clicks):
        reveals = buttons[button]
        chain = any(plus for _, _, plus in reveals)
        for shown in range(done, len(reveals) + 1):
            reply = refused(partial(session.adapter.reveal, play_id, account.token, button))
            said = f"button {button} of play {play_id!r}, left half revealed after {done} of "
            said += f"its {len(reveals)} symbols, clicked on the way back"
            if shown == len(reveals):
                if not isinstance(reply, ErrorReply) or reply.status != 409:
                    # its last symbol once more is one click too many: the +1 protocol's
                    again = chain and _answer(reply, button) == reveals[-1]
                    what = f"{said} once more than it has symbols, was not refused"
                    which = PLUS_ONE if again else shown_wrong
                    return which, {"status": 409}, reply_doc(reply), what, "reveal"
                break
            want = list(reveals[shown])
            if isinstance(reply, ErrorReply):
                if reply.status == 409:
                    # the click a +1 allows, refused: the +1 protocol's
                    which = PLUS_ONE if chain and shown == len(reveals) - 1 else shown_wrong
                    what = f"{said}, was refused with {shown} shown"
                    return which, {"reveal": want}, reply_doc(reply), what, "reveal"
                raise reply
            got = reveal_tuple(ROBOTS, reply, button)
            if list(got) != want:
                what = f"{said}, showed {got} as its symbol {shown + 1}, not {tuple(want)}"
                return shown_wrong, {"reveal": want}, {"reveal": list(got)}, what, "reveal"
    shown_ticket, _ = session.auto(account, play_id)
    if shown_ticket != ticket:
        what = f"AUTO on play {play_id!r}, left half revealed, ended on another ticket"
        return REVEAL_SYMBOLS, {"ticket": ticket}, {"ticket": shown_ticket}, what, "auto"
    return None


def misreported(
    want: list[list[tuple[str, bool, bool]]], got: list[list[tuple[str, bool, bool]]]
) -> bool:
    """Whether reveals differ from the ticket's only by a fixed misreport in the answers:
    each ticket symbol always answered as one same letter, each X2 / +1 value always answered
    one same way (a wrong symbol table, a dropped flag). That is the reveal answer's fault
    (play.reveal.answer), not the reveal order's."""
    maps: list[dict[object, set[object]]] = [{}, {}, {}]
    differs = False
    for button, reveals in enumerate(got):
        for position, answered in enumerate(reveals):
            if position >= len(want[button]):
                return False
            held = want[button][position]
            for field_, value in enumerate(answered):
                maps[field_].setdefault(held[field_], set()).add(value)
            differs = differs or answered != held
    return differs and all(len(seen) == 1 for m in maps for seen in m.values())


@dataclass
class Walk:
    """What clicking a play's buttons showed: the clicks, each button's reveals, the 409s."""

    clicks: list[int] = field(default_factory=list)
    reveals: list[list[tuple[str, bool, bool]]] = field(default_factory=list)
    refused_open: list[int] = field(default_factory=list)  # 409 on a button a +1 left open


def walk(
    session: Session,
    account: Account,
    play_id: str,
    choose: Chooser,
    stop: int = MAX_CLICKS,
    resume: Walk | None = None,
) -> Walk:
    """Click the play's open buttons, ``choose(k)`` picking one of the k open ones (sorted),
    until none is open or ``stop`` clicks were made in all. A 409 on an open button closes
    it. ``resume``: go on from that walk of the same play (its buttons still open)."""
    buttons = reference.robots_rules().buttons
    done = resume if resume is not None else Walk(reveals=[[] for _ in range(buttons)])
    closed = set(done.refused_open) | {
        b for b, got in enumerate(done.reveals) if got and not got[-1][2]
    }
    open_ = [b for b in range(buttons) if b not in closed]
    while open_ and len(done.clicks) < min(stop, MAX_CLICKS):
        button = open_[choose(len(open_)) if len(open_) > 1 else 0]
        done.clicks.append(button)
        try:
            doc = session.adapter.reveal(play_id, account.token, button)
        except ErrorReply as reply:
            if reply.status != 409:
                raise
            done.refused_open.append(button)
            open_.remove(button)
            continue
        reveal = reveal_tuple(ROBOTS, doc, button)
        done.reveals[button].append(reveal)
        if not reveal[2]:
            open_.remove(button)
    return done


def recording_chooser(choices: list[int]) -> tuple[Chooser, list[int]]:
    """A chooser that follows ``choices`` (click n picks open button ``choices[n] % k`` of the
    k open ones, then the first open one once they run out), recording the picks it made."""
    made: list[int] = []

    def pick(k: int) -> int:
        made.append(choices[len(made)] % k if len(made) < len(choices) else 0)
        return made[-1]

    return pick, made


def scenario_reveal_order(session: Session, case: Case) -> Evidence | None:
    """Click in the order ``case["choices"]`` picks: every button's reveals
    are the ticket's under that button, in order, and AUTO ends on the bought ticket and prize."""
    chooser, made = recording_chooser(list(case.get("choices", [])))
    stake = case["stake_cents"]
    account = _funded(session, stake, 1)
    played = session.play(account, ROBOTS, stake)
    truth, source = session.truth(account, played)
    done = walk(session, account, played["play_id"], chooser)
    case = {
        **case,
        "choices": made,
        "clicks": done.clicks,
    }
    ticket, prize = session.auto(account, played["play_id"])
    truth = truth if truth is not None else ticket
    want = ticket_buttons(ROBOTS, truth)
    if want is None:
        return evidence(
            case,
            "a valid robots ticket",
            truth,
            f"the {source} shows an invalid ticket for the play",
            {"operation": source},
        )
    request = {"operation": "reveal", "play_id": played["play_id"], "clicks": done.clicks}
    if misreported(want, done.reveals):
        case = {**case, "requirement": REVEAL_ANSWER}
    for button, got in enumerate(done.reveals):
        if got != want[button][: len(got)]:
            return evidence(
                case,
                {"button": button, "reveals": want[button], "ticket": truth},
                {"button": button, "reveals": got, "clicks": done.clicks},
                f"clicked in this order, button {button} revealed other symbols than the "
                f"ticket (from the {source}) holds under it",
                request,
            )
    lot = ref_prize(ROBOTS, stake, truth)
    if (ticket, prize) != (truth, lot):
        return evidence(
            case,
            {"ticket": truth, "prize_cents": lot},
            {"ticket": ticket, "prize_cents": prize},
            f"after these clicks AUTO shows another unit than the {source} showed "
            "when it was bought",
            {"operation": "auto", "play_id": played["play_id"]},
        )
    return None


def scenario_reveal_resumed(session: Session, case: Case) -> Evidence | None:
    """A ticket left half revealed while ``case["plays_between"]`` other plays are made (on
    ``case["workers"]`` other accounts at once), then revealed on, the buttons already closed
    clicked once more: every button still shows the ticket's symbols under it, each once and
    in order (a closed button is refused), and AUTO the ticket bought. A
    player comes back to an unfinished ticket the next day; a target that keeps its reveal
    sessions in a bounded cache and rebuilds an evicted one from its store forgets the
    clicks made (a red team's such target showed a clicked button's first symbol again and
    was CERTIFIED)."""
    stake = case["stake_cents"]
    account = _funded(session, stake, 1)
    played = session.play(account, ROBOTS, stake)
    play_id = played["play_id"]
    truth, source = session.truth(account, played)
    first = walk(session, account, play_id, lambda k: 0, stop=int(case["first_clicks"]))
    before = len(first.clicks)  # ``first`` goes on below: the walk resumed is the same one
    between = int(case["plays_between"])
    shares = split(between, max(1, int(case.get("workers", 1)))) if between else []

    def play_share(plays: int) -> None:
        other = _funded(session, stake, plays)
        for _ in range(plays):
            session.play(other, ROBOTS, stake)

    map_in_order(play_share, shares, len(shares) or 1)
    # the buttons closed before the pause have nothing left: clicked again, each is refused
    # (409) by a target that still knows the clicks, and shows a symbol again by one that lost
    # them (an extra reveal, judged below as symbols the ticket does not hold there). A +1
    # chain's button that answers its last reveal once more (not its first, which showed the
    # +1) took one click too many, the +1 protocol's fault (robots 4.7), not a lost state
    one_too_many: set[int] = set()
    for button, got in enumerate(list(first.reveals)):
        if got and not got[-1][2]:
            first.clicks.append(button)
            try:
                doc = session.adapter.reveal(play_id, account.token, button)
            except ErrorReply as reply:
                if reply.status != 409:
                    raise
                continue
            again = reveal_tuple(ROBOTS, doc, button)
            if len(got) >= 2 and again == got[-1]:
                one_too_many.add(button)
            first.reveals[button].append(again)
    done = walk(session, account, play_id, lambda k: 0, resume=first)
    ticket, prize = session.auto(account, play_id)
    truth = truth if truth is not None else ticket
    want = ticket_buttons(ROBOTS, truth)
    if want is None:
        return evidence(
            case,
            "a valid robots ticket",
            truth,
            f"the {source} shows an invalid ticket",
            {"operation": source},
        )
    case = {**case, "clicks": done.clicks, "clicks_before": before}
    if misreported(want, done.reveals):
        case = {**case, "requirement": REVEAL_ANSWER}
    request = {"operation": "reveal", "play_id": play_id, "clicks": done.clicks}
    for button, got in enumerate(done.reveals):
        if got != want[button][: len(got)]:
            if button in one_too_many and "requirement" not in case:
                case = {**case, "requirement": PLUS_ONE}
            return evidence(
                case,
                {"button": button, "reveals": want[button], "ticket": truth},
                {"button": button, "reveals": got, "clicks": done.clicks},
                f"{before} clicks, then {between} other plays, then the rest: "
                f"button {button} revealed other symbols than the ticket (from the {source}) "
                "holds under it",
                request,
            )
    lot = ref_prize(ROBOTS, stake, truth)
    if (ticket, prize) != (truth, lot):
        return evidence(
            case,
            {"ticket": truth, "prize_cents": lot},
            {"ticket": ticket, "prize_cents": prize},
            f"a ticket revealed on after {between} other plays: AUTO shows another unit than "
            f"the {source} showed when it was bought",
            {"operation": "auto", "play_id": play_id},
        )
    return None


CONCURRENT_CLICKS = 2  # clicks sent at the same moment on each button (a double click)


def _clicked(
    session: Session, account: Account, play_id: str, buttons: int, together: int
) -> list[list[tuple[str, bool, bool]]]:
    """Each button's reveals when every button is clicked ``CONCURRENT_CLICKS`` times, button
    after button, ``together`` clicks at a time (1: one after another), then each in turn
    until it is refused (409)."""
    clicks = [b for b in range(buttons) for _ in range(CONCURRENT_CLICKS)]

    def click(button: int) -> ErrorReply | Document:
        return refused(partial(session.adapter.reveal, play_id, account.token, button))

    replies = map_in_order(click, clicks, together) if together > 1 else map(click, clicks)
    got: list[list[tuple[str, bool, bool]]] = [[] for _ in range(buttons)]
    for button, reply in zip(clicks, replies, strict=True):
        if isinstance(reply, ErrorReply):
            if reply.status != 409:
                raise reply
            continue
        got[button].append(reveal_tuple(ROBOTS, reply, button))
    for button in range(buttons):
        while len(got[button]) <= MAX_CLICKS:
            reply = click(button)
            if isinstance(reply, ErrorReply):
                if reply.status != 409:
                    raise reply
                break
            got[button].append(reveal_tuple(ROBOTS, reply, button))
    return got


def _differs(
    want: list[list[tuple[str, bool, bool]]], got: list[list[tuple[str, bool, bool]]]
) -> int | None:
    """The first button holding a single reveal (no +1) whose reveals are not exactly that
    one, or None. The buttons with a +1 are left out: how many clicks they take is the +1
    rule's (``robots.4.7``), whose faults look the same (a reveal shown again) without any
    race, and the second play cannot have the same +1s to tell them apart."""
    return next(
        (b for b in range(len(want)) if len(want[b]) == 1 and got[b] != want[b]),
        None,
    )


def scenario_reveal_concurrent(session: Session, case: Case) -> Evidence | None:
    """Clicks sent at the same moment, as a double click or two open tabs send them: every
    button of a play clicked ``CONCURRENT_CLICKS`` times in a row, ``case["workers"]`` clicks
    in flight at once (the run's ``scenario_workers``: no more requests at once than any
    other check sends), then each clicked in turn until it is refused (409). Each reveal is
    handed out once: a button's reveals are exactly the ticket's under it, none shown twice,
    none lost (R-I5, 4.7), whichever order the target gave the clicks it got together.

    Only a fault of clicks at once is judged here, on the buttons that hold a single reveal
    (``_differs``): when the same clicks sent one after another on a second play go wrong
    too, the protocol is wrong without any race, and the reveal-order and +1 checks name that
    (None). With ``scenario_workers`` 1 no clicks are sent at once (None)."""
    stake = case["stake_cents"]
    account = _funded(session, stake, 2)
    played = session.play(account, ROBOTS, stake)
    truth, source = session.truth(account, played)
    want = ticket_buttons(ROBOTS, truth) if truth is not None else None
    if want is None:
        return None  # an invalid ticket: the other reveal scenarios name that fault
    at_once = int(case.get("workers", 8))
    if at_once < CONCURRENT_CLICKS:
        return None  # scenario_workers 1: this run sends no two requests at once
    got = _clicked(session, account, played["play_id"], len(want), together=at_once)
    button = _differs(want, got)
    if button is None:
        return None
    control = session.play(account, ROBOTS, stake)
    control_truth, _ = session.truth(account, control)
    control_want = ticket_buttons(ROBOTS, control_truth) if control_truth is not None else None
    if control_want is None:
        return None
    alone = _clicked(session, account, control["play_id"], len(control_want), together=1)
    if _differs(control_want, alone) is not None:
        return None  # wrong one click after another too: not a race
    return evidence(
        case,
        {"button": button, "reveals": want[button], "ticket": truth},
        {"button": button, "reveals": got[button]},
        f"with every button clicked {CONCURRENT_CLICKS} times, {at_once} clicks at once, "
        f"button {button} revealed "
        f"{len(got[button])} symbols for the {len(want[button])} the ticket (from the "
        f"{source}) holds under it, or others: a reveal shown twice or lost (the same clicks "
        "one after another, on play " + repr(control["play_id"]) + ", revealed right)",
        {
            "operation": "reveal",
            "play_id": played["play_id"],
            "clicks": f"every button {CONCURRENT_CLICKS} times, {at_once} at once, then each "
            "in turn",
        },
    )


def scenario_plus_one(session: Session, case: Case) -> Evidence | None:
    """Buttons in turn: a reveal with +1 allows one more click, one without it allows none
    (409), for ``case["plays"]`` plays."""
    stake = case["stake_cents"]
    account = _funded(session, stake, case["plays"])
    for _ in range(case["plays"]):
        played = session.play(account, ROBOTS, stake)
        play_id = played["play_id"]
        truth, _ = session.truth(account, played)
        held = ticket_buttons(ROBOTS, truth) if truth is not None else None
        for button in range(reference.robots_rules().buttons):
            reveals: list[tuple[str, bool, bool]] = []
            while len(reveals) < MAX_CLICKS:
                reply = refused(partial(session.adapter.reveal, play_id, account.token, button))
                request = {
                    "operation": "reveal",
                    "play_id": play_id,
                    "button": button,
                    "click": len(reveals) + 1,
                }
                is_409 = isinstance(reply, ErrorReply) and reply.status == 409
                exhausted = bool(reveals) and not reveals[-1][2]
                if isinstance(reply, ErrorReply) and not is_409:
                    if not exhausted or not 400 <= reply.status < 500:
                        raise reply
                    # refused, as it must be, but not with the status the contract fixes
                    raise ContractBreach(
                        "protocol.refusals.status",
                        f"a click on button {button}, which has nothing left to reveal, was "
                        f"refused with {reply.status} {reply.code}; the contract fixes 409",
                        {"operation": "reveal", **reply_doc(reply), "expected": {"status": 409}},
                    )
                if exhausted:  # the last reveal had no +1
                    if not is_409:
                        # the ticket holds a +1 there: the answer dropped it, the protocol
                        # is right (play.reveal.answer's fault)
                        dropped = held is not None and len(held[button]) > len(reveals)
                        return evidence(
                            {**case, "requirement": REVEAL_ANSWER} if dropped else case,
                            {"status": 409},
                            reply_doc(reply),
                            f"button {button} was clicked again after a reveal "
                            "without +1, and revealed",
                            request,
                        )
                    break
                if is_409:
                    return evidence(
                        case,
                        "the next reveal of the button",
                        reply_doc(reply),
                        f"click {len(reveals) + 1} on button {button} was refused "
                        + (
                            "although the +1 above it allowed it"
                            if reveals
                            else "although it was never clicked"
                        ),
                        request,
                    )
                reveals.append(reveal_tuple(ROBOTS, reply, button))
    return None


def scenario_auto(session: Session, case: Case) -> Evidence | None:
    """After ``case["stop"]`` clicks in the order chosen, AUTO shows the ticket bought and its
    lot (whether the clicks showed that ticket's reveals is reveal_order's to judge)."""
    chooser, made = recording_chooser(list(case.get("choices", [])))
    stake = case["stake_cents"]
    account = _funded(session, stake, 1)
    played = session.play(account, ROBOTS, stake)
    truth, source = session.truth(account, played)
    done = walk(session, account, played["play_id"], chooser, case["stop"])
    case = {
        **case,
        "choices": made,
        "clicks": done.clicks,
    }
    ticket, prize = session.auto(account, played["play_id"])
    request = {"operation": "auto", "play_id": played["play_id"], "after_clicks": done.clicks}
    lot = ref_prize(ROBOTS, stake, ticket)
    if truth is not None and ticket != truth:
        return evidence(
            case,
            {"ticket": truth},
            {"ticket": ticket},
            f"AUTO after {len(done.clicks)} click(s) shows another ticket than the "
            f"{source} showed when the play was bought",
            request,
        )
    if lot is None or prize != lot:
        return evidence(
            case,
            {"ticket": ticket, "prize_cents": lot},
            {"prize_cents": prize},
            "AUTO's prize is not its ticket's lot",
            request,
        )
    # AUTO finished the play (robots 4.4: "the rest revealed"): a button that had something
    # left before AUTO has nothing left after it
    buttons = ticket_buttons(ROBOTS, ticket) or []
    left = [b for b, shows in enumerate(buttons) if done.clicks.count(b) < len(shows)]
    if not left:
        return None
    # a button of one reveal if any: a +1 button's extra click is robots 4.7's to judge
    button = min(left, key=lambda b: (len(buttons[b]) > 1, b))
    after = refused(lambda: session.adapter.reveal(played["play_id"], account.token, button))
    if not isinstance(after, ErrorReply) or after.status != 409:
        return evidence(
            case,
            "409: nothing left to reveal once AUTO has revealed the rest",
            reply_doc(after),
            f"after AUTO, a click on button {button} was "
            + ("accepted" if not isinstance(after, ErrorReply) else f"refused {after.status}"),
            {**request, "then": {"operation": "reveal", "button": button}},
        )
    return None
