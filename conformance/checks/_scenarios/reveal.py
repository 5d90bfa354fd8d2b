"""What a play's buttons show, whatever the order of the clicks: the reveal protocol's
scenarios of the reveal order (robots 4.3, 4.4; R-I5), for any game with buttons. Buttons in
a chosen order (``scenario_reveal_order``), a ticket left half revealed and revealed on after
other plays (``scenario_reveal_resumed``, ``revealed_on``); the clicks sent at once are
``reveal_at_once``'s, the +1 rule ``plus_one``'s, AUTO midway ``auto_midway``'s.

The game, its buttons and what each reveal holds are its engine's; the requirements a fault
breaks are its kit's (``GameKit.reveals``): see ``clicks``.
"""

from __future__ import annotations

from functools import partial

from contract import ErrorReply

from ..._evidence import PlayEvidence
from ..._pool import map_in_order, split
from ..._registry import Evidence, Reservation
from .clicks import (
    Walk,
    answer_of,
    click,
    clicked_then_auto,
    game_of,
    game_of_play,
    misreported,
    requirements_of,
    walk,
)
from .client import (
    MONEY,
    REVEAL_ANSWER,
    Account,
    Case,
    Session,
    _funded,
    evidence,
    ref_prize,
    refused,
    reply_doc,
    reveal_tuple,
    ticket_buttons,
)
from .open_tickets import CONFLICT


def revealed_on(
    session: Session,
    account: Account,
    play_id: str,
    ticket: str,
    clicks: list[int],
    order: list[int],
    *,
    played_after: bool = False,
) -> tuple[str, object, object, str, str] | Reservation | None:
    """A ticket left half revealed (``clicks[b]`` symbols shown on button b, clicked in
    ``order``) and come back to: revealed on in turn, each button from where it stopped to its
    last symbol, then clicked once more (409); then AUTO ends on the ticket bought. A fault as
    (requirement, expected, got, what, operation), or None. A click too many or too few on a
    button with a +1 chain breaks the +1 rule (robots 4.7); any other fault the reveal rule
    (4.3) when the clicks before were buttons in turn (each button to its end before the
    next), else the order rule (4.4: a click order changed what was shown).

    ``played_after``: the account bought a play after this one. A target may then have closed
    the ticket as that play was bought (row ``ticket-closed-by-play``: shown whole, as AUTO
    shows it, the way FDJ's sites finish a pending game when the next is bought): every
    button left with something to show refused (409) from the first click back, AUTO
    answering the ticket bought, and a new play of a fresh account closing its own ticket
    left half revealed the same way (``closed_by_a_play``). That is a reservation (returned),
    not a fault; a ticket closed otherwise (some buttons open, another ticket, a ticket a new
    play does not close: a reveal state lost) stays the fault it was."""
    game = game_of_play(session, play_id)
    rules = requirements_of(game)
    buttons = ticket_buttons(game, ticket)
    if buttons is None:
        return None
    natural = [b for b, reveals in enumerate(buttons) for _ in reveals]
    shown_wrong = rules.symbols if order == natural[: len(order)] else rules.order
    answered = False  # a reveal answered on the way back: the ticket was not closed whole
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
                    again = chain and answer_of(game, reply, button) == reveals[-1]
                    what = f"{said} once more than it has symbols, was not refused"
                    which = rules.plus_one if again else shown_wrong
                    return which, {"status": 409}, reply_doc(reply), what, "reveal"
                break
            want = list(reveals[shown])
            if isinstance(reply, ErrorReply):
                if reply.status == 409:
                    if played_after and not answered:
                        closed = _closed_whole(session, account, play_id, ticket, clicks, button)
                        if closed is not None:
                            return closed
                    # the click a +1 allows, refused: the +1 protocol's
                    last = chain and shown == len(reveals) - 1
                    which = rules.plus_one if last else shown_wrong
                    what = f"{said}, was refused with {shown} shown"
                    return which, {"reveal": want}, reply_doc(reply), what, "reveal"
                raise reply
            answered = True
            got = reveal_tuple(game, reply, button)
            if list(got) != want:
                what = f"{said}, showed {got} as its symbol {shown + 1}, not {tuple(want)}"
                return shown_wrong, {"reveal": want}, {"reveal": list(got)}, what, "reveal"
    shown_ticket, _ = session.auto(account, play_id)
    if shown_ticket != ticket:
        what = f"AUTO on play {play_id!r}, left half revealed, ended on another ticket"
        return rules.symbols, {"ticket": ticket}, {"ticket": shown_ticket}, what, "auto"
    return None


CLOSED_BY_PLAY = "ticket-closed-by-play"  # the row of docs/contract-decisions.md


def _closed_whole(
    session: Session,
    account: Account,
    play_id: str,
    ticket: str,
    clicks: list[int],
    first: int,
) -> Reservation | None:
    """The reservation of a ticket the target closed whole when the account bought a later
    play (``revealed_on``'s ``played_after``), ``first`` its first button refused: every
    button from it on with something left refused too (409), AUTO answering ``ticket``, and a
    fresh account's ticket closed by its next play (``closed_by_a_play``); else None (the
    refusal stays a fault)."""
    game = game_of_play(session, play_id)
    buttons = ticket_buttons(game, ticket)
    assert buttons is not None  # revealed_on judged it valid
    for button in range(first + 1, len(clicks)):
        if clicks[button] < len(buttons[button]):
            reply = refused(partial(session.adapter.reveal, play_id, account.token, button))
            if not isinstance(reply, ErrorReply) or reply.status != CONFLICT:
                return None  # a button still open: not closed whole
    if _finished_ticket(session, account, play_id) != ticket:
        return None  # another ticket: the refusal stays the fault
    stake = session.bought[play_id][1]
    if not closed_by_a_play(session, game, stake):
        return None
    rules = requirements_of(game)
    return Reservation(
        f"play {play_id!r} ({game} at {stake} cents), left half revealed, was closed whole "
        "when its account bought a later play: every button with something left refused "
        "(409), AUTO answering its ticket, as a fresh account's ticket is closed by its "
        "next play; its reveals after that play could not be judged",
        basis="ticket-closed-by-play",  # CLOSED_BY_PLAY (a literal: tests/conformance/test_basis)
        lift="keep a ticket left half revealed open until AUTO or its last click, whatever "
        "else the account plays",
        requirements=[rules.symbols],
    )


def closed_by_a_play(session: Session, game: str, stake: int) -> bool:
    """Whether a new play of an account closes the account's ticket left half revealed: a
    fresh account buys a ticket, clicks its first button (answered), buys another, and the
    first ticket's second button is then refused (409) and AUTO answers its ticket. A reveal
    state lost otherwise (a cache evicting plays, a session expiring) leaves a ticket just
    bought open: then not."""
    account = _funded(session, stake, 2)
    first = session.play(account, game, stake)
    play_id = str(first["play_id"])
    if click(session, account, play_id, 0) is None:
        return False
    second = session.play(account, game, stake)
    again = refused(partial(session.adapter.reveal, play_id, account.token, 1))
    truth, _ = session.truth(account, first)
    ticket = _finished_ticket(session, account, play_id)
    _finished_ticket(session, account, str(second["play_id"]))
    closed = isinstance(again, ErrorReply) and again.status == CONFLICT
    return closed and (truth is None or ticket == truth)


def _finished_ticket(session: Session, account: Account, play_id: str) -> str | None:
    """AUTO's ticket for a play; where AUTO is refused (a 4xx: a closed ticket has nothing
    left to reveal, row ``auto-again``), its history entry's; None without either."""
    try:
        return session.auto(account, play_id)[0]
    except ErrorReply as refusal:
        if not 400 <= refusal.status < 500:
            raise
    entry = session.entry(account, play_id)
    ticket = None if entry is None else entry.get("ticket")
    return ticket if isinstance(ticket, str) else None


def invalid_ticket(case: Case, game: str, truth: object, source: str, what: str) -> PlayEvidence:
    """The evidence of a play whose ticket (from ``source``) is no valid ticket of ``game``."""
    return evidence(
        case, f"a valid {game} ticket", truth, f"the {source} shows {what}", {"operation": source}
    )


def scenario_reveal_order(session: Session, case: Case) -> Evidence | None:
    """Click in the order ``case["choices"]`` picks: every button's reveals
    are the ticket's under that button, in order, and AUTO ends on the bought ticket and prize."""
    c = clicked_then_auto(session, case)
    game, stake, played, done, case = c.game, c.stake, c.played, c.done, c.case
    truth, source, ticket, prize = c.truth, c.source, c.ticket, c.prize
    truth = truth if truth is not None else ticket
    want = ticket_buttons(game, truth)
    if want is None:
        return invalid_ticket(case, game, truth, source, "an invalid ticket for the play")
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
    lot = ref_prize(game, stake, truth)
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


def _click_closed_again(session: Session, account: Account, play_id: str, first: Walk) -> set[int]:
    """Click once more every button ``first`` closed (its last reveal without +1): a target
    that still knows the clicks refuses each (409), one that lost them shows a symbol again
    (added to ``first``: judged as symbols the ticket does not hold there). Returns the
    buttons of a +1 chain that answered their last reveal once more (not their first, which
    showed the +1): one click too many, the +1 protocol's fault, not a lost state."""
    game = game_of_play(session, play_id)
    one_too_many: set[int] = set()
    for button, got in enumerate(list(first.reveals)):
        if got and not got[-1][2]:
            first.clicks.append(button)
            doc = click(session, account, play_id, button)
            if doc is None:
                continue
            again = reveal_tuple(game, doc, button)
            if len(got) >= 2 and again == got[-1]:
                one_too_many.add(button)
            first.reveals[button].append(again)
    return one_too_many


def _sibling_clicked(session: Session, case: Case, account: Account) -> Evidence | None:
    """A second ticket of ``account`` bought while its first is half revealed, clicked through:
    each button shows this ticket's symbols (a target that keeps "the open ticket" per account,
    not per play, answers its clicks from the first one's; a fifth red team's was CERTIFIED)."""
    game, stake = game_of(case), case["stake_cents"]
    before = session.balance(account)
    try:  # the first ticket kept half revealed: never finished to free the account
        played = session.play(account, game, stake, free=False)
    except ErrorReply as refusal:
        if refusal.status != CONFLICT:
            raise
        return _second_refused(session, case, account, before, refusal)
    truth, source = session.truth(account, played)
    done = walk(session, account, played["play_id"], lambda k: 0)
    if truth is None:
        truth, _ = session.auto(account, played["play_id"])
        source = "AUTO"
    want = ticket_buttons(game, truth)
    if want is None:
        return invalid_ticket(case, game, truth, source, "an invalid ticket")
    if misreported(want, done.reveals):
        case = {**case, "requirement": REVEAL_ANSWER}
    for button, got in enumerate(done.reveals):
        if got != want[button][: len(got)]:
            return evidence(
                {**case, "clicks": done.clicks},
                {"button": button, "reveals": want[button], "ticket": truth},
                {"button": button, "reveals": got, "clicks": done.clicks},
                "a second ticket of the account, bought and clicked while the first was left "
                f"half revealed: button {button} revealed other symbols than the ticket (from "
                f"the {source}) holds under it",
                {"operation": "reveal", "play_id": played["play_id"], "clicks": done.clicks},
            )
    return None


def _second_refused(
    session: Session, case: Case, account: Account, before: int, refusal: ErrorReply
) -> Evidence | None:
    """The second ticket refused with 409 while the first is half revealed: one unfinished
    ticket per account (row ``one-open-ticket``), a state no player of the target reaches, said
    in the check's details; the refusal must change nothing (``play.money.exact``)."""
    after = session.balance(account)
    if after != before:
        return evidence(
            {**case, "requirement": MONEY},
            {"balance_cents": before},
            {"balance_cents": after, "refusal": reply_doc(refusal)},
            f"a second ticket of the account, refused ({refusal.status} {refusal.code}) while "
            f"the first was half revealed, moved the balance from {before} to {after} cents",
            {"operation": "play", "game": game_of(case), "stake_cents": case["stake_cents"]},
        )
    session.note(
        f"a second ticket of an account whose first was half revealed was refused "
        f"({refusal.status} {refusal.code}): one unfinished ticket per account (row "
        "one-open-ticket), its clicks not judged; the first revealed on after other accounts' "
        "plays all the same"
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
    game = game_of(case)
    stake = case["stake_cents"]
    account = _funded(session, stake, 2)
    played = session.play(account, game, stake)
    play_id = played["play_id"]
    truth, source = session.truth(account, played)
    first = walk(session, account, play_id, lambda k: 0, stop=int(case["first_clicks"]))
    before = len(first.clicks)  # ``first`` goes on below: the walk resumed is the same one
    found = _sibling_clicked(session, case, account)
    if found is not None:
        return found
    between = int(case["plays_between"])
    shares = split(between, max(1, int(case.get("workers", 1)))) if between else []

    def play_share(plays: int) -> None:
        other = _funded(session, stake, plays)
        for _ in range(plays):
            session.play(other, game, stake)

    map_in_order(play_share, shares, len(shares) or 1)
    one_too_many = _click_closed_again(session, account, play_id, first)
    done = walk(session, account, play_id, lambda k: 0, resume=first)
    ticket, prize = session.auto(account, play_id)
    truth = truth if truth is not None else ticket
    want = ticket_buttons(game, truth)
    if want is None:
        return invalid_ticket(case, game, truth, source, "an invalid ticket")
    case = {**case, "clicks": done.clicks, "clicks_before": before}
    if misreported(want, done.reveals):
        case = {**case, "requirement": REVEAL_ANSWER}
    request = {"operation": "reveal", "play_id": play_id, "clicks": done.clicks}
    for button, got in enumerate(done.reveals):
        if got != want[button][: len(got)]:
            if button in one_too_many and "requirement" not in case:
                case = {**case, "requirement": requirements_of(game).plus_one}
            return evidence(
                case,
                {"button": button, "reveals": want[button], "ticket": truth},
                {"button": button, "reveals": got, "clicks": done.clicks},
                f"{before} clicks, then {between} other plays, then the rest: "
                f"button {button} revealed other symbols than the ticket (from the {source}) "
                "holds under it",
                request,
            )
    lot = ref_prize(game, stake, truth)
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
