"""Clicking a play's buttons, for any game whose engine has buttons: the game a reveal case
plays and the requirements its kit names for its reveal rules, a walk through the open
buttons in a chosen order, and telling a fixed misreport in the answers from wrong reveals.

Everything here is read from the game's engine (``buttons``, ``button_reveals``,
``reveal_symbols``, through ``client.ticket_buttons`` and ``client.reveal_tuple``) and its kit
(``GameKit.reveals``): a second game with buttons plays through the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import reference
from contract import ContractBreach, ErrorReply, ProtocolViolation

from ..._evidence import ReplayError
from ...games import RevealRequirements, kit
from .client import (
    MAX_CLICKS,
    Account,
    Case,
    Chooser,
    Document,
    Session,
    _funded,
    case_of,
    reveal_tuple,
)

Shown = tuple[str, bool, bool]
"""One reveal as a scenario compares it: (the symbol's letter, X2, +1)."""


def games_with_buttons() -> list[str]:
    """The registered games whose engine has buttons, in registration order."""
    return [g for g in reference.games() if reference.game_engine(g).buttons]


def game_of(case: Case) -> str:
    """The game a reveal case plays: its ``game``. A case that names none plays the first
    registered game with buttons: the reveal cases were written before a second game had
    buttons, and their evidence and case files (which name no game) replay as they did."""
    game = case.get("game")
    if game is not None:
        return str(game)
    found = games_with_buttons()
    if not found:
        raise ReplayError("a reveal case names no game, and no registered game has buttons")
    return found[0]


def reveal_case(scenario: str, game: str, **params: Any) -> dict[str, Any]:
    """The case of a reveal scenario on ``game`` (``case_of``): it names its game unless that
    is the first game with buttons, whose cases name none (``game_of``)."""
    if game == game_of({}):
        return case_of(scenario, **params)
    return case_of(scenario, game=game, **params)


def requirements_of(game: str) -> RevealRequirements:
    """The requirements ``game``'s kit names for its reveal rules."""
    found = kit(game).reveals
    if found is None:
        raise ReplayError(f"a reveal case names game {game!r}, which has no buttons to reveal")
    return found


def game_of_play(session: Session, play_id: str) -> str:
    """The game of a play this session bought (``Session.play`` remembers it)."""
    return session.bought[play_id][0]


def answer_of(game: str, reply: object, button: int) -> Shown | None:
    """A reveal answer as (letter, x2, plus_one), None when it is not one."""
    try:
        return reveal_tuple(game, reply, button)
    except (ContractBreach, ProtocolViolation):
        return None


def misreported(want: list[list[Shown]], got: list[list[Shown]]) -> bool:
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
    reveals: list[list[Shown]] = field(default_factory=list)
    refused_open: list[int] = field(default_factory=list)  # 409 on a button a +1 left open


def click(session: Session, account: Account, play_id: str, button: int) -> Document | None:
    """One click on ``button``: its reveal, or None when the target refuses it with 409
    (nothing left there, its answer to a click too many); any other refusal is raised."""
    try:
        doc: Document = session.adapter.reveal(play_id, account.token, button)
    except ErrorReply as reply:
        if reply.status != 409:
            raise
        return None
    return doc


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
    game = game_of_play(session, play_id)
    buttons = reference.game_engine(game).buttons
    done = resume if resume is not None else Walk(reveals=[[] for _ in range(buttons)])
    closed = set(done.refused_open) | {
        b for b, got in enumerate(done.reveals) if got and not got[-1][2]
    }
    open_ = [b for b in range(buttons) if b not in closed]
    while open_ and len(done.clicks) < min(stop, MAX_CLICKS):
        button = open_[choose(len(open_)) if len(open_) > 1 else 0]
        done.clicks.append(button)
        doc = click(session, account, play_id, button)
        if doc is None:
            done.refused_open.append(button)
            open_.remove(button)
            continue
        reveal = reveal_tuple(game, doc, button)
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


@dataclass
class Clicked:
    """A play bought on a new account, clicked in the order its case chooses, then finished by
    AUTO (``clicked_then_auto``)."""

    game: str
    stake: int
    account: Account
    played: Document
    truth: str | None  # the ticket read when it was bought (``Session.truth``)
    source: str  # where ``truth`` was read
    done: Walk
    case: Case  # the case with the picks made and the clicks sent
    ticket: str  # AUTO's
    prize: int  # AUTO's


def clicked_then_auto(session: Session, case: Case, stop: int = MAX_CLICKS) -> Clicked:
    """Buy a play of the case's game and stake, read its ticket, click up to ``stop`` times in
    the order ``case["choices"]`` picks, then AUTO it: what the reveal order and AUTO
    scenarios judge."""
    game, stake = game_of(case), case["stake_cents"]
    chooser, made = recording_chooser(list(case.get("choices", [])))
    account = _funded(session, stake, 1)
    played = session.play(account, game, stake)
    truth, source = session.truth(account, played)
    done = walk(session, account, played["play_id"], chooser, stop)
    case = {**case, "choices": made, "clicks": done.clicks}
    ticket, prize = session.auto(account, played["play_id"])
    return Clicked(game, stake, account, played, truth, source, done, case, ticket, prize)
