"""One account's requests that overlap (contract 4: "the stake is debited and the prize
credited at once, atomically"): a person with two tabs or two devices, an app that polls the
balance while the player buys, or settles the last ticket's "reveal all" while the player taps
"buy again".

Each round, an account funded well beyond what the round costs buys one ticket, then sends at
the same moment (a barrier) plays at pairs the seed draws among those in scope (two pairs at
least when there are two), AUTO on that first ticket, balance reads and a history reader (each
polling until the plays are answered). Every play must be
sold (the balance pays them all, whatever their order), or refused with 409 while the account
is busy with another (row ``play-conflict``: a refusal that changed nothing; when no round sold
two plays at once, a reservation), and judged once every ticket is known:

- the plays form one serial order from the balance after the first ticket (each play's balance
  before, its ``balance_cents`` + stake - lot, the balance after the one before it): a wallet
  that serialises an account's plays per (game, stake) only, and loses one pair's debit and lot
  to the other's write, fits none;
- each balance read sent with them answers a balance the account had in that order (the one
  before the plays or the one after one of them): a read that sees a play's debit without its
  lot (a play written in two steps) answers none;
- once every request is answered, the balance read answers the order's end, and the history's
  page the round's plays newest (``_settled``): a cache that a read overlapping a play filled
  with what it loaded before the play was written answers the old ones;
- the first ticket's AUTO is sent twice (a double tap on "reveal all"): the second answers the
  same ticket and prize, its wins its ticket's (``play.auto.answer``), or is refused (row
  ``auto-again``);
- a round after a pause (``old_account_rounds``, ``paced_rounds``) also sends AUTO twice on
  the account's newest ticket finished with a prize (``_won_twice``: its ticket and prize, or
  a refusal, ``play.auto.answer``): a settlement answered empty shows on a win only;
- where the first ticket has buttons (half the rounds at least, where a game has them), they
  are tapped one after another from the moment the requests leave together until one is
  refused (a person tapping while "reveal all" runs on the same ticket: ``_taps``); once all
  is answered, a click on another button of it is refused with 409, AUTO having revealed the
  rest
  (``robots.4.4.auto_any_moment``: a click that saves back the reveal state it loaded
  before AUTO's opens the buttons again);
- a play bought after the round answers the balance the round ended at, less its stake, plus
  its lot: an AUTO that saves back the balance it loaded before the plays landed loses them;
- the balance read after that play is that play's ``balance_cents``.

``old_account_rounds`` sends such rounds on an account that has played for a while (the player
sessions' old accounts), the first at one instant, the others each request at a moment drawn
over ``STAGGER_S``, two after a pause, one ``IDLE_PAUSE_S`` (0.5 to 3 s), the other
``long_idle`` (5 s and more: ``old_kinds``); ``paced_rounds`` two on a paced player's account
(a person's: young), the first after a long pause between its first tickets and its requests
sent together (the account idle: ``long_idle``): a session cache that forgets an account after
a few seconds, a ticket settled otherwise once it is seconds old, on an old account or a
young one.

A fault is named ``play.money.concurrent_one_account`` (the last one ``play.money.balance_read``);
the check that runs this names a fault that plays one after another show too by that
requirement instead (``wallet.scenario_overlap``).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import reference
from contract import ErrorReply

from ..._evaluation import wins_multiset
from ..._pool import iter_in_order
from ..._registry import Evidence, Reservation
from ...games import kit
from .client import (
    Account,
    Case,
    Document,
    Session,
    auto_fault,
    credit_requirement,
    evidence,
    ref_prize,
    refused,
    reply_doc,
)
from .sales import in_threads

ONE_ACCOUNT = "play.money.concurrent_one_account"
CONFLICT = 409  # a play refused while the account is busy with another (row play-conflict)
BALANCE_READ = "play.money.balance_read"
AUTO_ANSWER = "play.auto.answer"
PLAYS_AT_ONCE = (3, 5)  # plays sent together, the seed's
WIN_TRIES = 20  # plays bought at most for a win before a quiet read (``serial_reads``)
TAPS = 12  # buttons a person taps, one after another, while "reveal all" runs on the ticket
READS_AT_ONCE = 3  # balance reads sent with them, each polling until the plays are answered
#: the history reads polled with them, a reader each: the app's "my tickets" page, and its
#: history screen (no ``limit``: the target's page)
HISTORY_READS: tuple[int | None, ...] = (10, None)
POLLS = 50  # reads one poller sends at most
POLL_S = 0.001  # between two of them
FUNDED_STAKES = 40  # the account's funding, in the dearest stake in scope
LEAST_STAKES = 10  # ... or this many, past a wallet limit of the target's own: a round's cost
#: an old account's rounds (``old_account_rounds``): how many (every other one at one instant,
#: the first too), and the span the others' requests leave in, each at a moment drawn in it (a
#: second device, a tap on "buy again" while an answer is on its way: a person's fraction of a
#: second, not a barrier's instant)
OLD_ROUNDS = 14
STAGGER_S = 0.3
STAGGER_POLL_S = 0.02  # between two reads of a poller in such a round
#: a person's pause between a round's first tickets and its requests sent together (the
#: account idle meanwhile: the phone put down, picked up again, "buy" tapped on two devices):
#: one of the old accounts' rounds numbered in ``IDLE_ROUNDS`` (the other pauses ``long_idle``:
#: ``old_kinds``)
IDLE_PAUSE_S = (0.5, 3.0)
IDLE_ROUNDS = (4, 9)
#: the pause before every paced player's first round: the phone put down for seconds, past a
#: session cache that forgets an account after a few seconds of silence (a pause of 0.5 to 3 s
#: never left one cold; the old accounts' ``IDLE_ROUNDS`` keep those); the upper bound grows
#: with the span (``long_idle``: a tenth of it, up to two minutes in a soak)
LONG_IDLE_S = (5.0, 8.0)
LONG_IDLE_MAX_S = 120.0
PACED_ROUNDS = 2  # the rounds a paced player ends its way back with (``paced_rounds``)


def plan(
    rng: random.Random, pairs: list[tuple[str, int]], click: bool, tap: bool = False
) -> list[tuple[str, int] | str]:
    """What one round sends at once: plays at pairs drawn (two pairs at least when there are
    two in scope), ``"auto"`` and ``"again"`` (AUTO twice on one ticket), a ``"click"`` when
    ``click``, ``READS_AT_ONCE`` ``"read"`` and
    a ``"history"`` reader for each of ``HISTORY_READS``, shuffled."""
    count = rng.randint(*PLAYS_AT_ONCE)
    chosen = rng.sample(pairs, min(2, len(pairs)))
    chosen += [rng.choice(pairs) for _ in range(count - len(chosen))]
    sent: list[tuple[str, int] | str] = [*chosen, "auto", "again", *["read"] * READS_AT_ONCE]
    sent += ["history"] * len(HISTORY_READS)
    sent += ["click"] if click else []
    sent += ["tap"] if tap else []
    rng.shuffle(sent)
    return sent


def serial_orders_exist(start: int, plays: list[tuple[int, int, int]]) -> bool:
    """Whether ``plays`` ((balance_cents, stake, lot) each) fit one order, one after another
    from ``start``: each play's balance before is the previous one's balance after."""
    left = list(range(len(plays)))

    def extend(balance: int) -> bool:
        if not left:
            return True
        for i in [i for i in left if plays[i][0] + plays[i][1] - plays[i][2] == balance]:
            left.remove(i)
            if extend(plays[i][0]):
                return True
            left.append(i)
        return False

    return extend(start)


def lot_missing_in_order(start: int, plays: list[tuple[int, int, int]]) -> int | None:
    """When ``plays`` fit no serial order but fit one in which some plays' lots were never
    credited (each play's balance before its ``balance_cents`` + stake, or + stake - lot): the
    index of such a play (a lot not credited, a fault plays one after another show too, is the
    game's ``prize_credited``, not a race's), else None."""
    left = list(range(len(plays)))
    missing: list[int] = []

    def extend(balance: int) -> bool:
        if not left:
            return True
        for i in list(left):
            after, stake, lot = plays[i]
            for short in (False, True) if lot > 0 else (False,):
                if after + stake - (0 if short else lot) != balance:
                    continue
                left.remove(i)
                missing.extend([i] if short else [])
                if extend(after):
                    return True
                left.append(i)
                if short:
                    missing.pop()
        return False

    return missing[0] if extend(start) and missing else None


def scenario_overlap(session: Session, case: Case) -> Evidence | None:
    """``case["rounds"]`` rounds of one account's requests at once (the module docstring)."""
    pairs = [(str(g), int(s)) for g, s in case["pairs"]]
    rng = random.Random(f"{case['seed']}:overlap")
    funding = FUNDED_STAKES * max(stake for _, stake in pairs)
    sold_at_once: list[tuple[int, int]] = []  # (plays sold, plays refused with 409) a round
    for round_ in range(int(case["rounds"])):
        found = _round(session, case, pairs, rng, funding, round_ + 1, sold_at_once)
        if found is not None:
            return found
    if sold_at_once and all(sold < 2 for sold, _ in sold_at_once):
        busy = sum(b for _, b in sold_at_once)
        session.reserve(_busy_reservation(busy, busy + sum(s for s, _ in sold_at_once)))
    return None


def old_account_rounds(
    session: Session,
    case: Case,
    account: Account,
    rng: random.Random,
    rank: int = 0,
    won: Won | None = None,
) -> Evidence | None:
    """``OLD_ROUNDS`` rounds on ``account``, an account that has played for a while (the player
    sessions' old accounts, hundreds of plays deep and as old as the span, at the end of their
    way back), every other round's requests sent at one instant (the first's too), the
    others' each leaving at a moment drawn over ``STAGGER_S``, the rounds numbered in
    ``IDLE_ROUNDS`` (one of each kind) after a pause, one a person's short one, the other a
    long one (``old_kinds``): a wallet that loses updates only between an old account's
    requests, or only between requests a fraction of a second apart (a lease that expires
    while a win is confirmed), or only after the account lay idle, a second or seconds,
    meets them here (``rank``: the account's among the run's old accounts, which take turns
    at the long pause's kind). A round the balance cannot pay is not sent (its plays would be
    refused for the money)."""
    span_s = float(case.get("span_s", 0.0))
    kinds = old_kinds(span_s, (int(case["seed"]) + rank) % len(IDLE_ROUNDS))
    return _rounds_on(session, case, account, rng, kinds, won)


def old_kinds(span_s: float, long_at: int) -> list[tuple[float, tuple[float, float] | None]]:
    """An old account's rounds (``old_account_rounds``): each its spread (every other one at
    one instant, the first too) and the bounds of the pause before it (None: none); of the two
    numbered in ``IDLE_ROUNDS`` (one of each spread), the one at ``long_at`` after a long pause
    (``long_idle``: the phone put down for seconds), the other after a person's short one
    (``IDLE_PAUSE_S``). The old accounts of a run (one a game) take turns, from the seed: one
    has its long pause before a round at one instant, the next before a spread one. An old
    account idle for seconds is met, as a young one is (``paced_rounds``): a session whose
    load is slow only for an account of many plays, or a ticket settled otherwise once it is
    seconds old only on such an account (a twelfth red team's), was CERTIFIED by old accounts
    that paused 3 s at most."""
    pauses = [IDLE_PAUSE_S] * len(IDLE_ROUNDS)
    pauses[long_at % len(IDLE_ROUNDS)] = long_idle(span_s)
    idle = dict(zip(IDLE_ROUNDS, pauses, strict=True))
    return [(STAGGER_S if number % 2 else 0.0, idle.get(number)) for number in range(OLD_ROUNDS)]


def paced_rounds(
    session: Session, case: Case, account: Account, rng: random.Random, won: Won | None = None
) -> Evidence | None:
    """``PACED_ROUNDS`` (two) rounds on ``account``, a paced player's (a person's account,
    young: tens of plays at most), at the end of its way back: the first after a person's
    long pause (``long_idle``: 5 to 8 s, more in a long span) between its first tickets and
    its requests sent together, at one instant or
    spread over ``STAGGER_S`` as the seed draws; the second of the other kind. A wallet that
    loses updates only between the requests of an account that lay idle (a session reloaded
    after a second of silence, or after five), or only between a young account's requests a
    fraction of a second apart (a new player's lease), or an AUTO that settles a ticket bought
    seconds before otherwise, meets them here: every other round comes the moment the
    account's last request was answered, and spread only on old accounts. The paced players'
    ways back run side by side with the old accounts', longer: a long pause is mostly spent
    while those run."""
    kinds = paced_kinds(rng, float(case.get("span_s", 0.0)))
    return _rounds_on(session, case, account, rng, kinds, won)


def paced_kinds(
    rng: random.Random, span_s: float
) -> list[tuple[float, tuple[float, float] | None]]:
    """A paced player's rounds (``paced_rounds``): each its spread and the bounds of the pause
    before it (None: none), the first after a long pause (``long_idle``: the phone put down
    for seconds), the second at once after it."""
    spreads = [STAGGER_S, 0.0] if rng.random() < 0.5 else [0.0, STAGGER_S]
    kinds: list[tuple[float, tuple[float, float] | None]] = [
        (spreads[0], long_idle(span_s)),
        (spreads[1], None),
    ]
    return kinds[:PACED_ROUNDS]


def long_idle(span_s: float) -> tuple[float, float]:
    """The bounds of a paced player's long pause in a span of ``span_s`` (``LONG_IDLE_S``,
    its upper bound a tenth of the span when that is longer, ``LONG_IDLE_MAX_S`` at most)."""
    low, high = LONG_IDLE_S
    return low, max(high, min(span_s / 10, LONG_IDLE_MAX_S))


def _rounds_on(
    session: Session,
    case: Case,
    account: Account,
    rng: random.Random,
    kinds: list[tuple[float, tuple[float, float] | None]],
    won: Won | None = None,
) -> Evidence | None:
    """Rounds on ``account``, each of ``kinds`` (its spread, and the bounds of the person's
    pause before its requests sent together, None: none), a round after a pause sending AUTO
    twice on ``won`` too (``_won_twice``); a round the balance cannot pay is not sent (its
    plays would be refused for the money)."""
    pairs = [(str(g), int(s)) for g, s in case["pairs"]]
    dearest = max(stake for _, stake in pairs)
    sold: list[tuple[int, int]] = []
    for number, (stagger_s, idle) in enumerate(kinds):
        if session.balance(account) < LEAST_STAKES * dearest:
            return None
        idle_s = rng.uniform(*idle) if idle else 0.0
        found = _round(
            session,
            case,
            pairs,
            rng,
            0,
            number + 1,
            sold,
            account,
            stagger_s,
            idle_s,
            won if idle else None,
        )
        if found is not None:
            return found
    return None


def _round(
    session: Session,
    case: Case,
    pairs: list[tuple[str, int]],
    rng: random.Random,
    funding: int,
    number: int,
    sold_at_once: list[tuple[int, int]],
    account: Account | None = None,
    stagger_s: float = 0.0,
    idle_s: float = 0.0,
    won: Won | None = None,
) -> Evidence | None:
    """One round (the module docstring), on an account opened with ``funding`` (or
    ``account``), its requests sent at one instant (or each at a moment drawn over
    ``stagger_s``), ``idle_s`` after its first tickets were answered; with ``won``, AUTO sent
    twice on that finished winning ticket with them (``_won_twice``)."""
    if account is None:
        account = _opened(session, funding, max(stake for _, stake in pairs))
    script = _script(session, rng, pairs)
    first = session.play(account, *script.first)
    start = int(first["balance_cents"])
    # a ticket with buttons too, clicked while the rest goes on (a click on one ticket as the
    # player buys the next)
    clicked: tuple[str, int] | None = None
    if script.second is not None:
        second = session.play(account, *script.second)
        start = int(second["balance_cents"])
        clicked = (str(second["play_id"]), script.button)
    sent = script.sent + ([WON, WON] if won is not None else [])
    offsets = [rng.uniform(0.0, stagger_s) if stagger_s else 0.0 for _ in sent]
    time.sleep(idle_s)  # the account idle: a person's pause, then the requests together
    poll_s = STAGGER_POLL_S if stagger_s else POLL_S
    answers: list[Any] = [None] * len(sent)
    barrier = threading.Barrier(len(sent))
    reads: list[Any] = []

    def run(t: int) -> None:
        what = sent[t]
        barrier.wait(timeout=30)
        time.sleep(offsets[t])
        if what in ("read", "history"):  # the app polls while the purchases are pending
            # each history reader its form (in the order they were drawn)
            form = HISTORY_READS[sum(1 for w in sent[:t] if w == "history") % len(HISTORY_READS)]
            for _ in range(POLLS):
                if what == "read":
                    reads.append(refused(lambda: session.balance(account)))
                else:  # its listings are judged once the round is over (``_settled``)
                    refused(partial(session.history, account, form))
                if all(
                    a is not None
                    for w, a in zip(sent, answers, strict=True)
                    if w not in ("read", "history")
                ):
                    break
                time.sleep(poll_s)
        elif what in ("auto", "again"):  # twice, a double tap: judged by ``_auto_twice``
            play_id = str(first["play_id"])
            answers[t] = refused(partial(session.adapter.auto, play_id, account.token))
        elif what == WON and won is not None:  # twice, a won ticket: ``_won_twice``
            answers[t] = refused(partial(session.adapter.auto, won.play_id, account.token))
        elif what == "tap" and script.tap is not None:  # buttons of the ticket AUTO reveals
            answers[t] = _taps(session, account, str(first["play_id"]), script)
        elif what == "click" and clicked is not None:  # its answer is reveal checks' to judge
            answers[t] = refused(
                partial(session.adapter.reveal, clicked[0], account.token, clicked[1])
            )
        elif isinstance(what, tuple):
            answers[t] = refused(partial(session.play, account, what[0], what[1]))

    in_threads(len(sent), run)
    when = f"within {stagger_s:g} s" if stagger_s else "at once"
    when += f", {idle_s:.1f} s after its last request:" if idle_s else ""
    where = f"round {number}: an account holding {start} cents sent {when} " + ", ".join(
        w if isinstance(w, str) else f"a play of {w[1]} cents at {w[0]}" for w in sent
    )
    request = {
        "operation": "at once",
        "sent": [list(w) if isinstance(w, tuple) else w for w in sent],
        **({"offsets_s": [round(o, 3) for o in offsets]} if stagger_s else {}),
        **({"idle_s": round(idle_s, 3)} if idle_s else {}),
    }

    def found(requirement: str, expected: Any, got: Any, note: str) -> Evidence:
        named = {**case, "requirement": requirement}
        return evidence(named, expected, got, f"{where}: {note}", request)

    twice = _auto_twice(session, account, str(first["play_id"]), script, sent, answers, found)
    twice = twice or _won_twice(won, sent, answers, found)
    if twice is not None:
        return twice
    played = [(w, a) for w, a in zip(sent, answers, strict=True) if isinstance(w, tuple)]
    refusals = [a for _, a in played if isinstance(a, ErrorReply)]
    wrong_refusals = [r for r in refusals if r.status != CONFLICT]
    if wrong_refusals:
        return found(
            ONE_ACCOUNT,
            "every play sold (the balance pays them all), or refused with 409 while the "
            "account was busy with another",
            [reply_doc(r) for r in wrong_refusals[:3]],
            f"a play was refused ({wrong_refusals[0].status} {wrong_refusals[0].code}) "
            "although the balance paid every play sent",
        )
    # a play refused with 409, the account busy with another (row play-conflict), is a
    # refusal that changed nothing: the order, the reads and the play after judge it so
    played = [(w, a) for w, a in played if not isinstance(a, ErrorReply)]
    sold_at_once.append((len(played), len(refusals)))
    sold: list[tuple[Document, int, int]] = []  # (answer, stake, lot)
    for (pair_game, pair_stake), answer in played:
        ticket, _ = session.auto(account, str(answer["play_id"]))
        lot = ref_prize(pair_game, pair_stake, ticket)
        if lot is None:
            return None  # an invalid ticket: the rules and block checks judge it
        sold.append((answer, pair_stake, lot))
    plays = [(int(a["balance_cents"]), s, lot) for a, s, lot in sold]
    short = None if serial_orders_exist(start, plays) else lot_missing_in_order(start, plays)
    if short is not None:
        (short_game, _), _ = played[short]
        after, stake, lot = plays[short]
        return found(
            credit_requirement(short_game, after + stake, stake, lot, after),
            {"lot_cents": lot},
            {"balance_cents": after},
            f"{len(plays)} plays sold: their balances fit one order of one play after another "
            f"only with the lot of the play at {short_game} ({lot} cents) never credited",
        )
    if not serial_orders_exist(start, plays):
        return found(
            ONE_ACCOUNT,
            "the plays' balances one serial order from the balance before them",
            {
                "start": start,
                "plays": [{"balance_cents": b, "stake": s, "lot": lot} for b, s, lot in plays],
            },
            f"{len(plays)} plays sold: their balances fit no order of one play after another "
            f"from {start} cents",
        )
    states = {start} | {b for b, _, _ in plays}
    wrong = [r for r in reads if isinstance(r, ErrorReply) or r["answer"] not in states]
    if wrong:
        return found(
            ONE_ACCOUNT,
            {"balance_cents": sorted(states)},
            {
                "balance_cents": [
                    reply_doc(r) if isinstance(r, ErrorReply) else r["answer"] for r in wrong[:5]
                ],
                "reads": len(reads),
            },
            "a balance read sent with the plays answered a balance the account never had "
            "between them (before them, or after one of them)",
        )
    end = start + sum(lot - s for _, s, lot in plays)
    before = [str(first["play_id"]), *([clicked[0]] if clicked else [])]
    at_once = [str(a["play_id"]) for a, _, _ in sold]
    settled = _settled(session, account, end, (before, at_once), found)
    closed = settled or _closed_after_auto(session, account, first, script, found)
    return closed or _after(session, account, script.after, end, found)


@dataclass(frozen=True)
class Script:
    """What a round buys, drawn before it: the first ticket's pair, the second's (a game with
    buttons; None: none in scope) and the button clicked on it, what is sent at once, and the
    pair of the play after."""

    first: tuple[str, int]
    second: tuple[str, int] | None
    button: int
    sent: list[tuple[str, int] | str]
    after: tuple[str, int]
    tap: int | None = None  # a button of the first ticket tapped as AUTO reveals it (None: none)

    @property
    def purchases(self) -> list[tuple[str, int]]:
        """Every ticket the round buys, in the order a replay one after another buys them."""
        at_once = [w for w in self.sent if isinstance(w, tuple)]
        return [self.first, *([self.second] if self.second else []), *at_once, self.after]


def _script(session: Session, rng: random.Random, pairs: list[tuple[str, int]]) -> Script:
    clickable = [p for p in pairs if _buttons(session, p[0])]
    # the ticket AUTO reveals has buttons in half the rounds at least, where one has (taps)
    first = rng.choice(clickable if clickable and rng.random() < 0.5 else pairs)
    second = rng.choice(clickable) if clickable else None
    button = rng.randrange(_buttons(session, second[0])) if second is not None else 0
    taps = _buttons(session, first[0])
    tap = rng.randrange(taps) if taps else None
    sent = plan(rng, pairs, second is not None, tap is not None)
    return Script(first, second, button, sent, rng.choice(pairs), tap)


def serial_replay(
    session: Session,
    case: Case,
    rounds: int | None = None,
    salt: str = "overlap",
    pause_s: float = 0.0,
) -> str | None:
    """The rounds' purchases (``rounds`` of them, default the case's; drawn from the case's
    seed and ``salt``) made again one after another, each finished by AUTO before the next, on
    accounts funded alike, each ``pause_s`` after the last request (the pause a round came
    after: ``_round``'s ``idle_s``): the requirement a play's balance
    there breaks (before - stake + lot: ``credit_requirement``), or None. A fault seen at once
    that this shows too is no race (a wallet that drops the lot after a change of game, one
    that treats an account of this funding otherwise, one that credits wins late whoever
    plays, or only on a play that comes after a pause). After a pause the rounds go side by
    side, each on its account, each starting a share of the pause after the one before (no two
    accounts' purchases at one moment): a long pause costs its length per purchase, not per
    purchase and round."""
    pairs = [(str(g), int(s)) for g, s in case["pairs"]]
    rng = random.Random(f"{case['seed']}:{salt}")
    dearest = max(stake for _, stake in pairs)
    scripts = [
        _script(session, rng, pairs)
        for _ in range(int(case["rounds"]) if rounds is None else rounds)
    ]

    def replayed(number: int) -> tuple[bool, str | None]:
        """Round ``number`` made again: (whether it could be judged to its end, what broke)."""
        script = scripts[number]
        time.sleep(number * pause_s / len(scripts))  # the rounds' purchases never at one moment
        account = _opened(session, FUNDED_STAKES * dearest, dearest)
        balance = session.balance(account)
        for at, (game, stake) in enumerate(script.purchases):
            time.sleep(pause_s)  # the pace the round's purchases came at, after a pause
            answer = session.play(account, game, stake)
            lot = _replayed_lot(session, account, script, at, answer)
            if lot is None:
                return False, None
            got = int(answer["balance_cents"])
            if got != balance - stake + lot:
                return True, credit_requirement(game, balance, stake, lot, got)
            balance = got
        return True, None

    workers = len(scripts) if pause_s > 0 else 1
    for judged, broken in iter_in_order(replayed, range(len(scripts)), workers):
        if not judged or broken is not None:
            return broken
    return None


def own_account_replay(
    session: Session,
    case: Case,
    account: Account,
    rounds: int,
    salt: str = "overlap:own",
    pause_s: float = 0.0,
) -> str | None:
    """The rounds' purchases (``rounds`` of them, drawn from the case's seed and ``salt``) made
    again one after another on ``account``, the round's own, each round ``pause_s`` after the
    last request (the pause the round came after), each ticket finished by AUTO before the
    next purchase, until one is refused (its balance spent, a ticket it left: nothing named).
    Each play is judged from the answers alone, never from a balance read (a read cache the
    race filled may still answer stale): a play that comes after a losing one must answer
    that one's balance - stake + its lot (``credit_requirement``); after a winning one it is
    not judged (on a wallet that queues a win until AUTO, the answer after it holds that lot).
    A wallet that credits an old account's wins late shows here, a race does not."""
    pairs = [(str(g), int(s)) for g, s in case["pairs"]]
    rng = random.Random(f"{case['seed']}:{salt}")
    balance: int | None = None  # the last play's balance, if it lost (None: the next unjudged)
    for _ in range(rounds):
        script = _script(session, rng, pairs)
        time.sleep(pause_s)  # the account quiet as long as before the round
        for at, (game, stake) in enumerate(script.purchases):
            try:
                answer = session.play(account, game, stake)
            except ErrorReply:
                return None
            lot = _replayed_lot(session, account, script, at, answer)
            if lot is None:
                return None
            got = int(answer["balance_cents"])
            if balance is not None and got != balance - stake + lot:
                return credit_requirement(game, balance, stake, lot, got)
            balance = None if lot > 0 else got
    return None


def _replayed_lot(
    session: Session, account: Account, script: Script, at: int, answer: Document
) -> int | None:
    """The lot of ``script``'s purchase number ``at`` (``answer``, the play's, at the pair
    ``script.purchases[at]``), the ticket left as the round leaves it: the second clicked once
    on ``script.button`` and left half revealed, every other finished by AUTO (None: its
    ticket or lot unknown)."""
    if at == 1 and script.second is not None:  # clicked, left half revealed
        play_id, token = str(answer["play_id"]), account.token
        refused(partial(session.adapter.reveal, play_id, token, script.button))
        ticket = session.truth(account, answer)[0]
    else:
        ticket, _ = session.auto(account, str(answer["play_id"]))
    if ticket is None:
        return None
    game, stake = script.purchases[at]
    return ref_prize(game, stake, ticket)


def serial_reads(session: Session, case: Case, plays: int = 2, pause_s: float = 0.0) -> str | None:
    """The round's reads made one after another: on an account funded alike, ``plays`` times,
    the balance and the history in each form of ``HISTORY_READS`` read, a play bought and
    finished by AUTO, then the same reads again, each after the last answer: the balance must
    be the play's answered one (``play.money.balance_read``), every history form must list the
    play newest (with a limit: ``play.history.limit``, "the newest ones"; without:
    ``play.history.complete``), or the requirement it breaks. A read that a cache answers
    stale whoever overlaps it (a page kept for seconds) shows here too: it is no race. With
    ``pause_s`` (the pause a round came after), plays are bought until one wins (at most
    ``WIN_TRIES``) and the reads come ``pause_s`` after it: a read that a replica answers
    without the last win once the account has been quiet a while shows too."""
    pairs = [(str(g), int(s)) for g, s in case["pairs"]]
    game, stake = pairs[0]
    account = _opened(session, FUNDED_STAKES * stake, stake)
    for _ in range(plays):
        session.balance(account)
        for limit in HISTORY_READS:
            session.history(account, limit)
        for _ in range(WIN_TRIES if pause_s else 1):
            answer = session.play(account, game, stake)
            play_id = str(answer["play_id"])
            ticket, _ = session.auto(account, play_id)
            lot = None if ticket is None else ref_prize(game, stake, ticket)
            if lot is None or lot > 0:
                break
        time.sleep(pause_s)  # the account quiet as long as before the round
        if session.balance(account) != int(answer["balance_cents"]):
            return BALANCE_READ
        for limit in HISTORY_READS:
            page = session.history(account, limit)
            if not page or str(page[0].get("play_id")) != play_id:
                return "play.history.complete" if limit is None else "play.history.limit"
    return None


def _busy_reservation(busy: int, sent: int) -> Reservation:
    """Every round's 409s (the account busy) left one play sold at most: no two plays of one
    account were made at once in any."""
    return Reservation(
        f"one account's requests at once: {busy} of {sent} plays sent together were refused "
        "with 409 (the account busy with another play, or with a ticket unfinished), "
        "leaving one play sold at most in every round: whether plays made at once at two "
        "pairs keep the account's balance was not seen",
        basis="play-conflict",
        lift="make the plays of one account sent together (each waiting for the account "
        "rather than refused), or certify again",
        kind="unverifiable",
        requirements=[ONE_ACCOUNT],
    )


def _opened(session: Session, funding: int, dearest: int) -> Account:
    """An account holding ``funding``, or, refused (a 4xx: a wallet limit of the target's own,
    row ``balance-own-limit``), ``LEAST_STAKES`` of the dearest stake: what a round can cost."""
    try:
        return session.open(funding)
    except ErrorReply as refusal:
        if not 400 <= refusal.status < 500 or funding <= LEAST_STAKES * dearest:
            raise
        return session.open(LEAST_STAKES * dearest)


def _buttons(session: Session, game: str) -> int:
    """The buttons of ``game``'s tickets a player clicks here (0: none, or no reveal)."""
    if "reveal" not in session.capabilities or not kit(game).reveals:
        return 0
    return int(reference.game_engine(game).buttons)


def _settled(
    session: Session,
    account: Account,
    end: int,
    ids: tuple[list[str], list[str]],
    found: Callable[[str, Any, Any, str], Evidence],
) -> Evidence | None:
    """Once every request of the round is answered, the reads the app polled with them, sent
    again: the balance the plays ended at, and the history in each form of ``HISTORY_READS``
    listing the round's plays newest (``ids``: the first tickets, bought one after the other,
    and the plays sold at once): the plays sold at once first, in an order of the target's,
    then the first tickets (without ``limit``, a page of the target's length: its newest as
    many of those). A cache that a read overlapping a play filled with what it loaded before
    the play was written (the play's drop of the entry came first) answers the old balance, or
    a page without the play, until the account's next play."""
    read = session.balance(account)
    if read != end:
        return found(
            ONE_ACCOUNT,
            {"balance_cents": end},
            {"balance_cents": read},
            f"once every request sent together was answered, the balance read answered {read} "
            f"cents; the plays ended at {end}",
        )
    before, at_once = ids
    every = before + at_once
    for limit in HISTORY_READS:
        page = session.history(account, limit)
        newest = {str(p.get("play_id")) for p in page[: len(every)]}
        # without a limit the page's length is the target's: as many of the newest as it holds
        held = len(newest) if limit is None else len(every)
        want_at_once = set(at_once) <= newest if held >= len(at_once) else newest <= set(at_once)
        if len(newest) < held or not newest <= set(every) or not want_at_once:
            asked = "without limit" if limit is None else f"with limit {limit}"
            return found(
                ONE_ACCOUNT,
                {"newest": sorted(at_once), "then": before},
                {"newest": [str(p.get("play_id")) for p in page[: len(every)]]},
                f"once every request sent together was answered, the history read {asked} "
                f"does not list the {len(at_once)} plays sold at once newest, then the round's "
                f"first tickets ({len(set(every) - newest)} of them missing)",
            )
    return None


def _auto_twice(
    session: Session,
    account: Account,
    play_id: str,
    script: Script,
    sent: list[tuple[str, int] | str],
    answers: list[Any],
    found: Callable[[str, Any, Any, str], Evidence],
) -> Evidence | None:
    """The first ticket's two AUTOs sent together (``"auto"`` and ``"again"``: a double tap on
    "reveal all"): each answers the ticket, its prize and its ticket's wins, both the same
    (``play.auto.answer``), or one is refused with a 4xx (AUTO asked again: row
    ``auto-again``). An AUTO that answers a settlement still being made (no wins, no prize)
    to an AUTO of the same ticket in flight shows. The answer is then kept as the session's
    ``auto`` keeps one (both refused: ``auto`` asked once more, as it handles a refusal)."""
    autos = [a for w, a in zip(sent, answers, strict=True) if w in ("auto", "again")]
    docs = [a for a in autos if not isinstance(a, ErrorReply)]
    wrong = [a for a in autos if isinstance(a, ErrorReply) and not 400 <= a.status < 500]
    game, stake = script.first
    faults = [f for f in (auto_fault(game, stake, d) for d in docs) if f is not None]
    lots = {(d.get("ticket"), d.get("prize_cents"), _wins_key(game, d)) for d in docs}
    lot = ref_prize(game, stake, str(docs[0].get("ticket"))) if docs else None
    faults += [] if len(lots) < 2 else [f"answered {len(lots)} different documents"]
    faults += [
        f"prize_cents {d.get('prize_cents')}, its ticket's lot {lot}"
        for d in docs
        if lot is not None and d.get("prize_cents") != lot
    ]
    faults += [f"refused {a.status}" for a in wrong]
    if faults:
        return found(
            AUTO_ANSWER,
            {"ticket": docs[0].get("ticket") if docs else None, "prize_cents": lot},
            [reply_doc(a) if isinstance(a, ErrorReply) else dict(a) for a in autos],
            f"two AUTOs of the {game} ticket bought first, sent together: {faults[0]}",
        )
    if docs:
        session.took_auto(play_id, docs[0])
    else:
        session.auto(account, play_id)
    return None


@dataclass(frozen=True)
class Won:
    """A finished ticket of the account that won, as AUTO answered it: the play, its game,
    its ticket and prize (``Won.of``)."""

    play_id: str
    game: str
    ticket: str
    prize_cents: int


WON = "won"  # a round's request: AUTO on the account's finished winning ticket (``Won``)


def _won_twice(
    won: Won | None,
    sent: list[tuple[str, int] | str],
    answers: list[Any],
    found: Callable[[str, Any, Any, str], Evidence],
) -> Evidence | None:
    """The two AUTOs a round after a pause sends together on ``won``, a winning ticket the
    account finished before it (a person back after the phone was put down, opening a ticket
    it won on two devices): each answers its ticket and prize (``play.auto.answer``), or is
    refused with a 4xx (AUTO asked again: row ``auto-again``). An AUTO that answers a
    settlement still being made (no wins, no prize) to an AUTO in flight shows on a winning
    ticket only, and only on a ticket seconds old or an account that many plays deep when it
    settles those otherwise: the round's own first ticket wins about one round in four (a
    twelfth red team's double AUTO on an old account's tickets seconds old was CERTIFIED)."""
    if won is None:
        return None
    autos = [a for w, a in zip(sent, answers, strict=True) if w == WON]
    wrong = [
        f"refused {a.status}"
        for a in autos
        if isinstance(a, ErrorReply) and not 400 <= a.status < 500
    ]
    wrong += [
        f"ticket {a.get('ticket')!r}, prize_cents {a.get('prize_cents')!r}"
        for a in autos
        if not isinstance(a, ErrorReply)
        and (a.get("ticket"), a.get("prize_cents")) != (won.ticket, won.prize_cents)
    ]
    if not wrong:
        return None
    return found(
        AUTO_ANSWER,
        {"ticket": won.ticket, "prize_cents": won.prize_cents},
        [reply_doc(a) if isinstance(a, ErrorReply) else dict(a) for a in autos],
        f"two AUTOs of the {won.game} ticket {won.play_id!r} the account won and finished "
        f"before the pause ({won.prize_cents} cents), sent together: answered {wrong[0]}",
    )


def _wins_key(game: str, doc: Document) -> str:
    """An AUTO answer's wins, as a multiset of their contract fields (their order carries no
    meaning: contract 2; a field of the vendor's own beside them, a win's id or the moment it
    was revealed, may differ from one answer to the next: row ``extra-fields``)."""
    wins = doc.get("wins")
    if not isinstance(wins, list) or not all(isinstance(w, dict) for w in wins):
        return repr(wins)
    return repr(sorted(wins_multiset(game, doc).items()))


def _taps(session: Session, account: Account, play_id: str, script: Script) -> object:
    """A person tapping buttons of the ticket while "reveal all" runs on it: one tap the
    moment the previous one is answered, on every other button from ``script.tap`` on (never
    the one ``_closed_after_auto`` clicks), until one is refused (AUTO has revealed the rest,
    or that button is spent) or ``TAPS`` were sent; the last answer. Taps one after another
    cover AUTO's whole run, so a click that saves back what it loaded before AUTO's write
    meets that write, whenever it lands."""
    buttons = _buttons(session, script.first[0])
    answer: object = None
    for n in range(TAPS):
        button = (int(script.tap or 0) + 2 * n) % buttons
        answer = refused(partial(session.adapter.reveal, play_id, account.token, button))
        if isinstance(answer, ErrorReply):
            break
    return answer


def _closed_after_auto(
    session: Session,
    account: Account,
    first: Document,
    script: Script,
    found: Callable[[str, Any, Any, str], Evidence],
) -> Evidence | None:
    """The first ticket, tapped (``script.tap``) as AUTO revealed it, clicked once more on
    the next button: refused with 409, AUTO having revealed the rest whichever came first (a
    click that saves back the reveal state it loaded before AUTO's opens the buttons again)."""
    if script.tap is None:
        return None
    game = script.first[0]
    button = (script.tap + 1) % _buttons(session, game)
    play_id = str(first["play_id"])
    reply = refused(partial(session.adapter.reveal, play_id, account.token, button))
    if isinstance(reply, ErrorReply) and reply.status == CONFLICT:
        return None
    reveals = kit(game).reveals
    if reveals is None:  # a game with buttons has its reveal rules
        return None
    return found(
        reveals.auto_any_moment,
        "409: nothing left to reveal once AUTO has revealed the rest",
        reply_doc(reply),
        f"a button of the {game} ticket bought first was tapped as AUTO revealed it; once both "
        f"were answered, a click on its button {button} was "
        + ("accepted" if not isinstance(reply, ErrorReply) else f"refused {reply.status}"),
    )


def _after(
    session: Session,
    account: Account,
    pair: tuple[str, int],
    end: int,
    found: Callable[[str, Any, Any, str], Evidence],
) -> Evidence | None:
    """A play after the round answers ``end`` - stake + lot; the read after it, that."""
    game, stake = pair
    answer = session.play(account, game, stake)
    ticket, _ = session.auto(account, str(answer["play_id"]))
    lot = ref_prize(game, stake, ticket)
    if lot is None:
        return None
    want = end - stake + lot
    if int(answer["balance_cents"]) != want:
        return found(
            ONE_ACCOUNT,
            {"balance_cents": want},
            {"balance_cents": answer["balance_cents"]},
            f"the plays at once ended at {end} cents; a play of {stake} cents at {game} after "
            f"them (its lot {lot}) answered {answer['balance_cents']}, not {want}",
        )
    read = session.balance(account)
    if read != want:
        return found(
            BALANCE_READ,
            {"balance_cents": want},
            {"balance_cents": read},
            f"the play after the round answered {want} cents; the balance read right after "
            f"it is {read}",
        )
    return None
