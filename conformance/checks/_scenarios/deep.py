"""Plays deep in a block, and through its end into the next (issue 27: "old, deep and late").

``scenario_deep`` buys units deep in a block at one (game, stake): through to unit ``depth``
when the target sells fast enough to get there within ``budget_s``, ``judged`` plays more;
then, when the end of the block on sale lies within reach (its units left, at the pace
measured, fit in what is left of ``budget_s``; where the first play was already past the
depth, a block on sale long since, the pace of ``RATE_EVERY`` plays more, not of the first
ones and their warm-up), on through its last unit and ``CROSS_JUDGED``
plays into the next block (a target right for a block's middle and wrong for its last units,
or for the first units of the block it moves on to, shows only there). Every play's balance is
judged against the unit it was sold as, read afterwards behind the sales cursor (the lot,
``play.money.exact``, or the game's ``prize_credited``), the plays around the depth and the
switch AUTO'd (tied to their units) and their history entries judged (the play, its unit's
ticket and prize: ``<game>.history_unrevealed``).

An account refused a play by a limit of its own (row ``stake-own-limit``: a stake, loss or
play-count limit) is left there, and the plays go on from the unit they had reached on a
fresh account, opened the way every account of the suite is (``funded_with``): the units deep
in a block are the stream's, not one account's (``FRESH_ACCOUNTS`` at most; past them, the
rest is reserved). Every account's plays are judged as the first one's, from the balance it
was opened with; the details say how many accounts the limits took.

What it reached is said, never passed silently: the deepest unit judged, whether the block's
end was crossed, and if not, how many units were left and how long they would have taken
(``Deep.reach``: the report lists it as not covered).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from contract import ErrorReply

from ..._registry import Evidence
from ...games import kit
from .client import (
    Account,
    Case,
    LimitReached,
    Session,
    balance_requirement,
    evidence,
    funded_with,
    one_same_error,
    ref_prize,
)

RATE_EVERY = 500  # plays through to the depth between two estimates of the time it takes
CROSS_JUDGED = 100  # plays judged in the next block once a block's end is crossed
SLICE = 20_000  # units read at a time when the plays are judged
FRESH_ACCOUNTS = 40_000
"""Fresh accounts a deep play opens, at most, to go on past accounts' own limits: a safety
bound, ``deep_budget_s`` says how far the plays get first (a limit of 3 plays takes 4 000
accounts for the full profile's 12 000 units, 33 000 for the soak's 100 000)."""


@dataclass
class Deep:
    """What a deep play did at one (game, stake): a fault's evidence, or what was judged."""

    found: Evidence | None = None
    what: str = ""
    deepest: int | None = None  # the deepest unit judged, in the block first played
    crossed: str | None = None  # the switch judged: "<block>'s end into <next block>"
    not_reached: str | None = None  # why the block's end was not crossed


class Sold(NamedTuple):
    """One play as judged here (a few fields: a crossing may hold hundreds of thousands)."""

    play_id: str
    block_id: str
    unit: int  # its index in the block
    balance_cents: int


@dataclass
class _Run:
    """The plays of one account, in the order bought, from the balance it was opened with."""

    account: Account
    funding: int
    plays: list[Sold] = field(default_factory=list)
    planned: int = 0  # the plays it was opened for
    fresh: bool = False  # opened to go on past another account's own limit


Watched = tuple[_Run, Sold]  # a play AUTO'd and its history entry judged, with its account


class _Stop(Exception):
    """Playing on cannot be judged (an account refused, the pace too slow): why."""


def scenario_deep(session: Session, case: Case) -> Evidence | None:
    """Plays deep in a block and through its end when within reach (``deep_plays``)."""
    return deep_plays(session, case).found


def deep_plays(session: Session, case: Case) -> Deep:
    """The module docstring's plays at ``case``'s (game, stake), and what they reached."""
    game, stake = str(case["game"]), int(case["stake_cents"])
    depth, budget, judged = int(case["depth"]), float(case["budget_s"]), int(case["judged"])
    started = time.monotonic()
    result = Deep()
    try:
        runs = [_opened(session, stake, depth + judged + 100)]
    except _Stop as stop:
        return Deep(what=str(stop), not_reached=str(stop))
    bought: list[Watched] = []  # every play, in the order bought, with its account
    buy = _buyer(session, game, stake, runs, bought)
    try:
        home = buy().block_id
    except _Stop as stop:  # no play on a fresh account either
        return Deep(what=str(stop), not_reached=str(stop))
    watched: list[Watched] = []  # AUTO'd, their history entries judged
    try:
        last = _through(buy, home, depth, budget, started)
    except _Stop as stop:  # the plays made are judged all the same, as deep as they got
        result.not_reached = f"the depth not reached: {stop}"
        return _judged(session, case, runs, watched, home, result)
    try:
        _on(session, case, runs, bought, buy, last, home, watched, result, started)
    except _Stop as stop:  # no fresh account to go on with: the plays made are judged
        result.not_reached = str(stop)
    for run, one in watched:
        session.auto(run.account, one.play_id)
    return _judged(session, case, runs, watched, home, result)


def _on(
    session: Session,
    case: Case,
    runs: list[_Run],
    bought: list[Watched],
    buy: Callable[[], Sold],
    last: Sold,
    home: str,
    watched: list[Watched],
    result: Deep,
    started: float,
) -> None:
    """Past the depth: ``judged`` plays more, then through the block's end when within
    reach; the plays to watch added to ``watched`` as they are bought."""
    game, stake = str(case["game"]), int(case["stake_cents"])
    depth, budget, judged = int(case["depth"]), float(case["budget_s"]), int(case["judged"])
    if last.block_id != home:  # the block ran out before the depth: crossed
        watched += _into_next(buy, bought, judged)
    else:
        for _ in range(judged):
            buy()
            watched.append(bought[-1])
        size = session.block_size(game, stake, home) if case.get("cross", True) else None
        if size is not None:
            left = size - bought[-1][1].unit - 1
            spent = time.monotonic() - started
            plays = sum(len(r.plays) for r in runs)
            pace = spent / max(1, plays)
            if left * pace > budget - spent and bought[0][1].unit >= depth and left > RATE_EVERY:
                # the depth was passed at the first play (a block on sale long since, on a
                # server that has sold for weeks): their pace is a warm-up's (the accounts
                # opened, the stream's gate), so it is measured again over RATE_EVERY plays,
                # on the account that would go on to the block's end
                try:
                    runs.append(_opened(session, stake, left + CROSS_JUDGED + 100))
                except _Stop as stop:
                    result.not_reached = str(stop)
                    return
                pace, crossed = _paced(buy, home, started + budget)
                if crossed:
                    watched += _into_next(buy, bought, judged)
                    return
                left = size - bought[-1][1].unit - 1
                spent = time.monotonic() - started
            elif left * pace <= budget - spent:
                try:
                    runs.append(_opened(session, stake, left + CROSS_JUDGED + 100))
                except _Stop as stop:
                    result.not_reached = str(stop)
                    return
            if left * pace > budget - spent:
                result.not_reached = (
                    f"{left} units left in {home}: about {left * pace:.0f} s at the pace "
                    f"measured ({1 / max(pace, 1e-9):.0f} plays a second), past what is left "
                    f"of deep_budget_s {budget:g}"
                )
            else:
                watched += _through_end(buy, bought, home, judged, left)
        elif case.get("cross", True):
            result.not_reached = "the block's size is not listed (no blocks capability)"


def _opened(session: Session, stake: int, plays: int) -> _Run:
    """An account for ``plays`` plays (three times over, or once past a wallet limit)."""
    try:
        account, funding = funded_with(session, stake, plays)
    except ErrorReply as refusal:
        if 400 <= refusal.status < 500:
            raise _Stop(
                f"an account for {plays} plays refused (a wallet limit): not judged"
            ) from None
        raise
    return _Run(account, funding, planned=plays)


def _buyer(
    session: Session, game: str, stake: int, runs: list[_Run], bought: list[Watched]
) -> Callable[[], Sold]:
    """Buys one play on the newest run's account, kept as a ``Sold`` and added to ``bought``
    with its run. An account's own limit reached (``LimitReached``, row ``stake-own-limit``):
    the play bought on a fresh account instead, opened for the plays the limited one had left
    (``FRESH_ACCOUNTS`` at most; past them, or a fresh account refused, ``_Stop``: the rest
    is reserved, or said not reached)."""

    def buy() -> Sold:
        while True:
            run = runs[-1]
            try:
                played = session.play(run.account, game, stake)
                break
            except LimitReached as limit:  # the account's own limit (row stake-own-limit)
                if sum(r.fresh for r in runs) >= FRESH_ACCOUNTS:
                    session.reserve(limit.reservation)
                    raise _Stop(limit.reservation.message) from None
                fresh = _opened(session, stake, max(1, run.planned - len(run.plays)))
                fresh.fresh = True
                runs.append(fresh)
        sold = Sold(
            str(played["play_id"]),
            str(played["block_id"]),
            int(played["index"]),
            int(played["balance_cents"]),
        )
        run.plays.append(sold)
        bought.append((run, sold))
        return sold

    return buy


def _through(buy: Callable[[], Sold], home: str, depth: int, budget: float, started: float) -> Sold:
    """Plays until unit ``depth`` of ``home`` (or the block's end); the last play. ``_Stop``
    when the pace of the last ``RATE_EVERY`` plays would not get there within ``budget``."""
    mark, count = time.monotonic(), 0
    while True:
        played = buy()
        count += 1
        if played.block_id != home or played.unit >= depth:
            return played
        if count % RATE_EVERY == 0:  # the pace of the last plays (past any warm-up)
            now = time.monotonic()
            left = (depth - played.unit) * (now - mark) / RATE_EVERY
            mark = now
            if left > budget - (now - started):
                raise _Stop(
                    f"unit {played.unit} reached in {now - started:.1f} s: unit {depth} "
                    f"would take {left:.0f} s more, past deep_budget_s {budget:g}"
                )


def _paced(buy: Callable[[], Sold], home: str, deadline: float) -> tuple[float, bool]:
    """The seconds a play took of ``RATE_EVERY`` plays more (fewer once ``deadline`` has
    passed: the budget spent), and whether they ran out of ``home`` (the block's end crossed,
    other buyers having taken some of its units)."""
    mark, count = time.monotonic(), 0
    while count < RATE_EVERY:
        count += 1
        crossed = buy().block_id != home
        if crossed or time.monotonic() > deadline:
            return (time.monotonic() - mark) / count, crossed
    return (time.monotonic() - mark) / count, False


def _through_end(
    buy: Callable[[], Sold], bought: list[Watched], home: str, judged: int, left: int
) -> list[Watched]:
    """Plays on through the end of ``home`` (at most ``left`` plays and one: others may buy
    some of its units meanwhile), then into the next block (``_into_next``)."""
    for _ in range(left + 1):
        if buy().block_id != home:
            return _into_next(buy, bought, judged)
    return bought[-judged:] if judged else []  # the block never ended: its last plays


def _into_next(buy: Callable[[], Sold], bought: list[Watched], judged: int) -> list[Watched]:
    """The first play of the next block was just bought: ``CROSS_JUDGED`` of it in all, and
    the ``judged`` plays before the switch (all watched), each with the account it was
    bought on."""
    before = bought[-judged - 1 : -1] if judged else []
    after = [bought[-1]]
    for _ in range(CROSS_JUDGED - 1):
        buy()
        after.append(bought[-1])
    return [*before, *after]


def _judged(
    session: Session,
    case: Case,
    runs: list[_Run],
    watched: list[Watched],
    home: str,
    result: Deep,
) -> Deep:
    """Every play's balance against its unit's lot, then the watched plays' history entries."""
    game, stake = str(case["game"]), int(case["stake_cents"])
    every = [one for run in runs for one in run.plays]
    units = _units(session, game, stake, every, {one.play_id for _, one in watched})
    for run in runs:
        lots: list[int] = []
        for one in run.plays:
            unit = units.get((one.block_id, one.unit))
            if unit is None:
                return Deep(
                    what=f"unit {one.unit} of {one.block_id} not in the block or not valid: "
                    "not judged",
                    not_reached="the units sold could not be read",
                )
            lots.append(unit[0])
        found = _chain(case, run, lots)
        if found is not None:
            return Deep(found=found, what="a fault")
    found = _history(session, case, runs, watched, units)
    if found is not None:
        return Deep(found=found, what="a fault")
    mine = [one.unit for one in every if one.block_id == home]
    after = [one for one in every if one.block_id != home]
    result.deepest = max(mine)
    if after:
        result.crossed = f"{home}'s end into {after[0].block_id}"
    result.what = f"{len(every)} plays judged, units {min(mine)} to {max(mine)} of block {home}" + (
        f", then {len(after)} of {after[0].block_id} (its end crossed)" if after else ""
    )
    fresh = sum(r.fresh for r in runs)
    if fresh:
        result.what += (
            f"; {fresh} fresh account(s) opened to go on past accounts' own limits "
            "(row stake-own-limit)"
        )
    return result


def _units(
    session: Session, game: str, stake: int, plays: list[Sold], tickets_of: set[str]
) -> dict[tuple[str, int], tuple[int, str | None]]:
    """Each play's unit, read in slices behind the sales cursor: its ticket's lot, and its
    ticket when the play is one of ``tickets_of`` (else None). A unit missing or not valid:
    absent."""
    wanted: dict[str, dict[int, bool]] = {}
    for one in plays:
        keep = wanted.setdefault(one.block_id, {})
        keep[one.unit] = keep.get(one.unit, False) or one.play_id in tickets_of
    found: dict[tuple[str, int], tuple[int, str | None]] = {}
    for block_id, indices in wanted.items():
        ordered = sorted(indices)
        at = 0
        while at < len(ordered):
            first = ordered[at]
            last = max(i for i in ordered[at : at + SLICE] if i < first + SLICE)
            read = session.block_units(block_id, first, last - first + 1)
            while at < len(ordered) and ordered[at] <= last:
                index = ordered[at]
                unit = read.get(index)
                ticket = None if unit is None else str(unit["ticket"])
                lot = None if ticket is None else ref_prize(game, stake, ticket)
                if lot is not None and ticket is not None:
                    found[(block_id, index)] = (lot, ticket if indices[index] else None)
                at += 1
    return found


def _chain(case: Case, run: _Run, lots: list[int]) -> Evidence | None:
    """Each play of ``run``: before - stake + its unit's lot (``play.money.exact``, or the
    game's ``prize_credited`` / ``stake_debited`` where only that part is wrong)."""
    game, stake = str(case["game"]), int(case["stake_cents"])
    answered = [one.balance_cents for one in run.plays]
    debit = one_same_error(run.funding, stake, answered, lots)
    balance = run.funding
    for number, (one, lot) in enumerate(zip(run.plays, lots, strict=True)):
        want = balance - stake + lot
        if one.balance_cents != want:
            got = one.balance_cents
            return evidence(
                {**case, "requirement": balance_requirement(game, debit, balance, stake, lot, got)},
                {"balance_cents": want, "lot_cents": lot},
                {"balance_cents": got},
                f"{game} at {stake} cents: play {number + 1} (unit {one.unit} of block "
                f"{one.block_id}) answered a balance of {got} cents, {want} expected "
                f"(before {balance}, stake {stake}, its unit's lot {lot})",
                {"operation": "play"},
            )
        balance = want
    return None


def _history(
    session: Session,
    case: Case,
    runs: list[_Run],
    watched: list[Watched],
    units: dict[tuple[str, int], tuple[int, str | None]],
) -> Evidence | None:
    """The watched plays' history entries (the newest of their account's): each shows its
    play (game, stake, block, unit index), its unit's ticket and prize (an index kept in a
    column too narrow for a deep unit, or a new block's entries, show here only)."""
    game, stake = str(case["game"]), int(case["stake_cents"])
    for run in runs:
        mine = [one for owner, one in watched if owner is run]
        if not mine:
            continue
        position = {one.play_id: n for n, one in enumerate(run.plays)}
        newest = len(run.plays) - min(position[one.play_id] for one in mine)
        entries, _ = session.history_up_to(run.account, newest)  # the target's own maximum
        listed = {str(p["play_id"]): p for p in entries}
        for one in mine:
            entry = listed.get(one.play_id)
            unit = units.get((one.block_id, one.unit))
            if entry is None or unit is None or unit[1] is None:
                continue  # a missing entry is the history checks' to judge
            want: dict[str, object] = {
                "game": game,
                "stake_cents": stake,
                "block_id": one.block_id,
                "index": one.unit,
                "ticket": unit[1],
                "prize_cents": unit[0],
            }
            got = {k: entry.get(k) for k in want}
            if got != want:
                return evidence(
                    {**case, "requirement": f"{kit(game).history_article}.history_unrevealed"},
                    want,
                    got,
                    f"{game} at {stake} cents: the history entry of play {one.play_id!r}, "
                    f"unit {one.unit} of block {one.block_id}, does not show that play, its "
                    "unit's ticket and prize: "
                    + ", ".join(
                        f"{k} {got[k]!r}, not {want[k]!r}" for k in want if got[k] != want[k]
                    ),
                    {"operation": "history"},
                )
    return None
