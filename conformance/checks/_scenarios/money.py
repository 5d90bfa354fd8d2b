"""Money scenarios: stake debited, prize credited, balance exact (robots 4.1/4.10,
eldorado 4.2/4.6, contract 4)."""

from __future__ import annotations

import random
import threading
from collections import Counter
from functools import partial

from contract import ErrorReply

from ..._pool import map_in_order
from ..._registry import Evidence, Reservation
from ...games import kit
from .client import (
    MONEY,
    TOP_UPS,
    Account,
    Case,
    Document,
    Session,
    evidence,
    funded_within,
    ref_prize,
)
from .observe import (
    Observed,
    money_evidence,
    observe_accounts,
    read_lag_of,
)


def observed_money(
    session: Session, case: Case, *, until_every_kind: bool = False
) -> list[Observed] | Evidence:
    """What the money scenarios judge: every account's plays (``observe_accounts``), in account
    order, or the evidence met on the way, a balance read that lags the plays' own balances
    (``read_lag_of``) included, so that no money requirement is blamed for a wrong read."""
    chains = observe_accounts(session, case, until_every_kind=until_every_kind)
    if isinstance(chains, Evidence):
        return chains
    lag = read_lag_of(case, chains)
    if lag is not None:
        return lag
    return [o for chain in chains for o in chain]


def scenario_stake_debited(session: Session, case: Case) -> Evidence | None:
    """robots 4.1 / eldorado 4.2: a losing play changes the balance by exactly -stake."""
    stake = case["stake_cents"]
    seen = observed_money(session, case)
    if isinstance(seen, Evidence):
        return seen
    for o in seen:
        if o.prize == 0 and (o.delta != -stake or o.said != o.before - stake):
            return money_evidence(
                case,
                o,
                {"balance_before": o.before, "balance_after": o.before - stake},
                {
                    "balance_before": o.before,
                    "play_balance_cents": o.said,
                    "balance_after": o.after,
                },
                f"a losing play at {stake} cents took {o.before - o.after} cents "
                f"(the play said {o.before - o.said}): the stake is debited once, exactly",
            )
    return None


def scenario_prize_credited(session: Session, case: Case) -> Evidence | None:
    """robots 4.10 / eldorado 4.6: a winning play's balance moves by its lot more than a losing
    play's does (so a wrong debit, judged by stake_debited, does not count twice)."""
    stake = case["stake_cents"]
    seen = observed_money(session, case, until_every_kind=True)
    if isinstance(seen, Evidence):
        return seen
    losses = Counter(o.delta for o in seen if o.prize == 0)
    loss_delta = losses.most_common(1)[0][0] if losses else -stake
    for o in seen:
        if o.prize > 0 and (o.delta - loss_delta != o.prize or o.said != o.after):
            return money_evidence(
                case,
                o,
                {"credited_cents": o.prize},
                {
                    "credited_cents": o.delta - loss_delta,
                    "balance_before": o.before,
                    "play_balance_cents": o.said,
                    "balance_after": o.after,
                    "losing_play_delta_cents": loss_delta,
                },
                (
                    f"a unit whose lot is {o.prize} cents credited {o.delta - loss_delta} cents "
                    "(its balance change beyond a losing play's)"
                    if o.delta - loss_delta != o.prize
                    else f"a unit whose lot is {o.prize} cents: the play answered balance "
                    f"{o.said} cents, the account then held {o.after}"
                ),
            )
    return emptied_accounts(session, case)


EMPTIED_ACCOUNTS = 60  # accounts of one stake and a residue at most, until enough are judged


def residue(case: Case, number: int) -> int:
    """What newcomer ``number`` holds beyond one stake: nothing for the even ones, a residue of
    1 to stake - 1 cents the case's seed draws for the odd ones (a player's last ticket leaves
    less than a stake but not nothing)."""
    stake = int(case["stake_cents"])
    if number % 2 == 0 or stake < 2:
        return 0
    return random.Random(f"{case.get('seed')}:residue:{number}").randint(1, stake - 1)


def emptied_accounts(session: Session, case: Case) -> Evidence | None:
    """Accounts opened with exactly the stake at ``case``'s game and stake, and others with one
    stake and a residue under it (``residue``), one play each, until one play loses, one
    account of each kind wins a lot other than the stake (at most ``EMPTIED_ACCOUNTS``): the
    stake takes the balance to 0, or to less than a stake, before the lot comes, and each
    winning play's answer must be its lot beyond a losing one's (a wallet that drops the
    credit of a play that emptied the account, a fifth red team's, and one that drops it when
    the play leaves less than a stake, a sixth's, were CERTIFIED). A win short by exactly the
    stake is the debit's (a stake taken twice, clipped at 0 on the losing play),
    ``stake_debited``'s to judge; a lot equal to the stake would look alike, so it is not the
    win judged."""
    game, stake = case["game"], case["stake_cents"]
    ends: list[tuple[int, int, Document, int]] = []  # (lot, answered, the play, residue)
    for number in range(EMPTIED_ACCOUNTS):
        left = residue(case, number)
        try:
            account = session.open(stake + left)
        except ErrorReply as refusal:  # an account of the stake (and less) refused: none
            if 400 <= refusal.status < 500:  # to empty (play.insufficient_funds opens one
                return _not_emptied(session, case, refusal, stake + left)  # too: its error)
            raise
        try:
            played = session.play(account, game, stake)
        except ErrorReply as refusal:  # a play the balance pays, refused: a fault
            if 400 <= refusal.status < 500:
                return evidence(
                    {**case, "requirement": "play.refusal.insufficient_funds"},
                    "the play sold (the balance pays the stake)",
                    {"status": refusal.status, "code": refusal.code},
                    f"an account opened with {stake + left} cents, a play at {stake} cents: "
                    f"refused with {refusal.status} {refusal.code}, though the balance pays it",
                    {"operation": "play", "game": game, "balance_cents": stake + left},
                )
            raise
        ticket, _ = session.auto(account, played["play_id"])
        lot = ref_prize(game, stake, ticket)
        if lot is None:  # an invalid ticket: the other money scenarios' evidence (observe
            return None  # _plays fails on one: only a faulty target gets here)
        ends.append((lot, int(played["balance_cents"]), played, left))
        won = {e[3] > 0 for e in ends if e[0] not in (0, stake)}  # the kinds that won
        if any(e[0] == 0 and not e[3] for e in ends) and won == {False, residue(case, 1) > 0}:
            break
    # the baseline: a losing play of an account of exactly the stake (a residue's losing play
    # may be clipped at 0 by a wallet that takes the stake twice, and then hides the debit)
    losing = next((e for e in ends if e[0] == 0 and not e[3]), None)
    if losing is None:  # no losing play of exactly the stake in 30 (most units lose)
        return _not_emptied(session, case, None, stake)
    for lot, said, played, left in ends:
        error = said - left - losing[1] - lot
        if lot not in (0, stake) and error not in (0, -stake):
            held = (
                f"exactly the stake ({stake} cents)"
                if not left
                else (f"the stake and {left} cents ({stake + left} cents)")
            )
            return evidence(
                case,
                {"credited_cents": lot, "balance_cents": losing[1] + left + lot},
                {"play_balance_cents": said},
                f"an account opened with {held}, one play whose lot is {lot} cents: the play "
                f"answered {said} cents, where a losing play from exactly the stake answers "
                f"{losing[1]} beyond what it held past the stake",
                {
                    "operation": "play",
                    "game": game,
                    "play_id": played["play_id"],
                    "balance_cents": stake + left,
                },
            )
    return None


def _not_emptied(
    session: Session, case: Case, refusal: ErrorReply | None, balance: int
) -> Evidence | None:
    """``emptied_accounts`` could not judge: the target refused an account of ``balance``
    cents (``refusal``), or no account of exactly the stake lost (the baseline). Said to the
    check (``Session.reserve``: row ``not-reached``), never passed."""
    game, stake = case["game"], case["stake_cents"]
    why = (
        f"an account of {balance} cents was refused ({refusal.status} {refusal.code})"
        if refusal is not None
        else f"no play of an account of exactly {stake} cents lost in {EMPTIED_ACCOUNTS // 2}"
    )
    session.reserve(
        Reservation(
            f"{game} at {stake} cents: a winning play that empties its account (or leaves less "
            f"than a stake) could not be judged: {why}",
            basis="not-reached",
            lift=f"open accounts of {stake} cents and of {stake} cents and a residue under "
            "it, sold a play each, then certify again",
            kind="unverifiable",
            requirements=[f"{kit(game).prize_article}.prize_credited"],
        )
    )
    return None


ODD_BALANCES = (115, 1129, 20_000_057, 2_147_483_705, 4_294_967_353, 4_503_599_627_370_553)
"""Balances the money scenario also opens: odd cents a double of euros misses (1,15 € is
114.99999999999999 cents as a double), past 2^24 cents (a float32 holds every cent only below
it), past 2^31 cents (an int32 overflows), past 2^32 cents (an unsigned 32-bit column, which
MySQL in non-strict mode clips without an error: a red team's such wallet was CERTIFIED), past
2^52 cents (any narrower integer, or a DECIMAL(15,2) of euros) and past 10 000 € (a silent
wallet ceiling); all of them below 2^53, which every JSON reader holds exactly. The
suite's own accounts hold multiples of the stake, which all of these hold exactly. A target
that refuses to open one, or to play from it, with a 4xx (a limit of its own) is not judged on
that one."""


def odd_balances(session: Session, case: Case) -> Evidence | None:
    """contract 4: an account opened with each of ``ODD_BALANCES`` holds exactly that, and one
    play from it leaves exactly balance - stake + prize (the accounts side by side; the first
    fault in their order is the one reported)."""
    found = map_in_order(partial(_odd_balance, session, case), ODD_BALANCES, len(ODD_BALANCES))
    return next((e for e in found if e is not None), None)


def _odd_balance(session: Session, case: Case, amount: int) -> Evidence | None:
    game, stake = case["game"], case["stake_cents"]
    try:
        account = session.open(amount)
        held = session.balance(account)
        if held != amount:
            return evidence(
                case,
                {"balance_cents": amount},
                {"balance_cents": held},
                f"an account opened with {amount} cents holds {held} cents",
                {"operation": "open_account", "balance_cents": amount},
            )
        if amount < stake:
            return None
        played = session.play(account, game, stake)
    except ErrorReply as refusal:
        if 400 <= refusal.status < 500:  # a limit of the target's own (row odd-balances)
            session.note(
                f"{game} at {stake} cents: an account of {amount} cents, or its play, refused "
                f"({refusal.status} {refusal.code}): a limit of the target's own, not judged; "
                "play.money.exact is judged on the other balances"
            )
            return None
        raise
    ticket, _ = session.auto(account, played["play_id"])
    prize = ref_prize(game, stake, ticket)
    if prize is None:  # an invalid ticket: the other money scenarios' evidence
        return None
    exact, after = amount - stake + prize, session.balance(account)
    if played["balance_cents"] != exact or after != exact:
        return evidence(
            case,
            {"balance_cents": exact},
            {
                "play_balance_cents": played["balance_cents"],
                "balance_after": after,
                "ticket": ticket,
                "prize_cents": prize,
            },
            f"an account opened with {amount} cents, after one play at {stake} cents that "
            f"wins {prize}, holds {exact} cents; the play said {played['balance_cents']}, "
            f"the account then held {after}",
            {"operation": "play", "game": game, "play_id": played["play_id"]},
        )
    return None


def scenario_money_exact(session: Session, case: Case) -> Evidence | None:
    """contract 4: every play's balance (as answered, and as read after) is before-stake+prize,
    from the suite's own balances and from ``ODD_BALANCES``."""
    stake = case["stake_cents"]
    seen = observed_money(session, case, until_every_kind=True)
    if isinstance(seen, Evidence):
        return seen
    for o in seen:
        exact = o.before - stake + o.prize
        if o.said != exact or o.after != exact:
            return money_evidence(
                case,
                o,
                {"balance_cents": exact},
                {
                    "balance_before": o.before,
                    "play_balance_cents": o.said,
                    "balance_after": o.after,
                },
                f"balance {o.before} - stake {stake} + prize {o.prize} is {exact}; the play said "
                f"{o.said}, the account then held {o.after}",
            )
    return odd_balances(session, case)


def _moved_between_plays(
    case: Case, block_id: str, played: Document, read: int, held: int
) -> Evidence:
    """The evidence of a balance read right before ``played`` that was not what the account's
    own plays left (its last play's balance_cents, or the balance as opened): the balance moved
    between two plays, by none of them (an earlier lot taken back, a fee). That is the read's
    requirement (``play.money.balance_read``: the balance read right after a play is that
    play's balance_cents), never the next play's debit or credit."""
    return evidence(
        {**case, "requirement": "play.money.balance_read", "index": played["index"]},
        {"balance_cents": held},
        {"balance_cents": read},
        f"the account's balance read right before the play of unit {played['index']} of "
        f"{block_id!r} is {read} cents, not the {held} cents its own plays left: the balance "
        "moved between two plays, by neither",
        {"operation": "balance", "before_unit": played["index"]},
    )


def scenario_top_lot(
    session: Session, case: Case, unjudged: list[str] | None = None
) -> Evidence | None:
    """robots 4.10 / eldorado 4.6 for the largest lot among the next ``case["window"]`` units
    on sale. The money plays meet the small lots by chance and a lot of 100 € or more almost
    never (1 unit in 11 000 to 16 000), so a target that pays those apart (a queue for manual
    payment, a ceiling, another code path) would pass them. The window's lots are known from
    the run's block audit (``Session.known_prizes``: read long before, among every unit of
    the block), so accounts play on, unit after unit, up to the largest lot of the window;
    where the audit did not read them, they play through the whole window blind and its units
    are read afterwards, behind the sales cursor: a read of the units ahead right before the
    purchase would tell a target which plays are watched (issue 27). Each play
    (the first included) must move the balance, read right before it, by exactly its unit's
    lot - stake (a read that is not what the account's own plays left is
    ``play.money.balance_read``'s, ``_moved_between_plays``, never the play's): one same
    error on every play is the debit's (``stake_debited``), else the first play in error names
    its kind of unit (``stake_debited`` for a losing one, ``prize_credited`` for a winning
    one); the balance read at the end must be the last play's (else
    ``play.money.balance_read``). A play judged wrong is AUTO'd first: when its ticket is not
    the block's unit, the unit sold is not the one listed (``play.sales.block_unit``'s), and
    nothing is judged here. A play sold a unit at or before the probe's, of its block, is
    evidence of ``play.sales.block_order`` (the check holds the stream: no correct target
    sells that). None too when there is nothing to judge: no lot in the window, or a play
    that sold a unit of another block (the block ended); and when the
    largest lot was not bought (the accounts ran dry, topped up ``TOP_UPS`` times under a
    wallet limit of the target's own), once the plays bought are judged. Each such None says
    why in ``unjudged``: the check reserves what it could not judge, it does not pass it."""
    game, stake, window = case["game"], case["stake_cents"], int(case["window"])

    def skip(why: str) -> Evidence | None:
        """Nothing judged here, and why (``unjudged``: the check says it)."""
        if unjudged is not None:
            unjudged.append(why)
        return None

    workers = max(1, int(case.get("workers", 1)))
    share = window // workers + 50  # each account's plays, about (a spent one stops at 402)
    try:  # under a wallet limit of the target's own, accounts of what it takes, topped up
        account, funding = funded_within(session, stake, share)
    except ErrorReply as refusal:
        if 400 <= refusal.status < 500:
            return skip(f"an account of one stake refused ({refusal.status}: a wallet limit)")
        raise
    opened = session.balance(account)
    probe = session.play(account, game, stake)
    block_id, at = probe["block_id"], int(probe["index"])
    size = session.block_size(game, stake, block_id)
    if size is None:
        return skip(f"block {block_id!r} is not listed: its units cannot be read")
    count = min(window, size - at - 1)
    if count <= 0:
        return skip(f"unit {at} is the last of block {block_id!r}: no unit after it on sale")
    # the window's lots as already known (this run's audit read them long before); else none:
    # the accounts play through the whole window blind and its units are read afterwards,
    # behind the sales cursor (never a read of the units ahead right before buying them)
    prizes = session.known_prizes(block_id, at, count + 1)
    blind = prizes is None
    if prizes is not None and (at not in prizes or max(prizes.values()) <= 0):
        return skip(f"no lot among the {count} units after unit {at} of {block_id!r}")
    end = at + count
    top = None if prizes is None else max(p for i, p in prizes.items() if i > at)
    last = end if prizes is None else min(i for i, p in prizes.items() if p == top and i > at)
    # every play: (the play, the balance read right before it, the account that bought it, and
    # what the account held by its own plays then: its last play's balance_cents, or as opened)
    bought: list[tuple[Document, int, Account, int]] = [(probe, opened, account, opened)]
    sold = threading.Event()  # the largest lot is sold: every account stops
    strays: list[Document] = []

    def one(number: int) -> list[tuple[Document, int, Account, int]]:
        """One account's plays, one after another, until the largest lot is sold (by any). The
        balance is read right before each play (every play: none is singled out), so a play is
        judged against what the account held then, and a balance that moved between two plays
        (not by a play of its own) is said as such, never blamed on the next play."""
        mine = account if number == 0 else session.open(funding)
        held = int(probe["balance_cents"]) if number == 0 else session.balance(mine)
        chain: list[tuple[Document, int, Account, int]] = []
        top_ups = 0 if funding < stake * share else TOP_UPS  # a capped wallet tops up
        while not sold.is_set():
            try:
                balance = session.balance(mine)
                played = session.play(mine, game, stake)
            except ErrorReply as refusal:
                if refusal.status != 402:
                    raise
                if top_ups == TOP_UPS:
                    return chain  # this account is spent; the others go on
                top_ups += 1  # another account of what the target's wallet takes
                mine = session.open(funding)
                held = session.balance(mine)
                continue
            index = played["index"]
            if played["block_id"] != block_id or index <= at:
                strays.append(played)  # not one of the next units: block_order's to judge
                sold.set()
                return chain
            if index > end and not blind:  # past the window: sold while the lot was being sold
                return chain
            chain.append((played, balance, mine, held))
            held = int(played["balance_cents"])
            if index >= last:
                sold.set()
        return chain

    try:
        for chain in map_in_order(one, range(workers), workers):
            bought.extend(chain)
    except ErrorReply as refusal:
        if 400 <= refusal.status < 500:
            return skip(f"an account refused ({refusal.status}: a wallet limit)")
        raise
    behind = [p for p in strays if p["block_id"] == block_id]
    if behind:  # at or before the probe's unit, after it: no correct target sells that (the
        # check holds the stream: no other check's play meanwhile), block order's letter
        return evidence(
            {**case, "requirement": "play.sales.block_order"},
            f"a unit after unit {at} of {block_id!r} (the probe play's)",
            (block_id, behind[0]["index"]),
            f"a play made after the one sold unit {at} of {block_id!r} was sold unit "
            f"{behind[0]['index']!r} of that block: not the next units",
            {"operation": "play", "game": game, "stake_cents": stake},
        )
    if strays:  # another block: the block ended (a correct target's), said, not judged
        return skip(f"a play sold a unit of another block ({strays[0]['block_id']!r})")
    reach = max(int(p["index"]) for p, _, _, _ in bought)
    if prizes is None:  # played blind: the units bought read now, all of them sold
        units = session.block_units(block_id, at, reach - at + 1)
        prizes = {i: u["prize_cents"] for i, u in units.items() if type(u["prize_cents"]) is int}
        if at not in prizes or max(prizes.values()) <= 0:
            return skip(f"no lot among the units {at} to {reach} of {block_id!r}")
        top = max(p for i, p in prizes.items() if i > at)
        last = min(i for i, p in prizes.items() if p == top and i > at)
    if not all(int(p["index"]) in prizes for p, _, _, _ in bought):
        return skip("a unit sold that the block does not declare")
    plays = [(p, prizes[int(p["index"])], read, buyer, held) for p, read, buyer, held in bought]
    if not blind:  # blind, every play is judged: an account's balance is all of its plays
        plays = [p for p in plays if int(p[0]["index"]) <= last]
    missed = None  # the plays bought are judged all the same; then what was not bought said
    if blind and reach < end:
        missed = (
            f"the plays stopped at unit {reach} of {block_id!r}, before the window's end "
            f"({end}): its largest lot perhaps not bought"
        )
    elif not any(p["index"] == last for p, _, _, _, _ in plays):
        missed = f"unit {last} (lot {top} cents) was not bought: the plays stopped before"
    plays.sort(key=lambda p: int(p[0]["index"]))
    # each play's error: its balance change less (lot - stake); one same error on every play
    # is the debit's (stake_debited), else the first play in error names its kind of unit
    # (each judged against the balance read right before it: one that moved since the
    # account's last play is said as such, in its place in the block's order)
    errors = [p["balance_cents"] - before - (lot - stake) for p, lot, before, _, _ in plays]
    debit = len(set(errors)) == 1 and errors[0] != 0
    for (played, lot, before, buyer, held), error in zip(plays, errors, strict=True):
        if before != held:
            return _moved_between_plays(case, block_id, played, before, held)
        if error:
            winning = lot > 0 and not debit
            ticket, _ = session.auto(buyer, played["play_id"])
            if ref_prize(game, stake, ticket) != lot:
                return skip(f"unit {played['index']}'s ticket is not the block's")
            article = kit(game).prize_article if winning else kit(game).history_article
            requirement = f"{article}.{'prize_credited' if winning else 'stake_debited'}"
            if winning and error == stake:  # the stake not taken (a free play), or a lot of
                # exactly the stake credited twice: the money's, when the two look alike
                debit = f"{kit(game).history_article}.stake_debited"
                requirement = MONEY if lot == stake else debit
            return evidence(
                {**case, "requirement": requirement, "index": played["index"]},
                {"balance_cents": before - stake + lot, "lot_cents": lot},
                {"balance_cents": played["balance_cents"], "balance_before": before},
                f"the play of unit {played['index']} of {block_id!r}, whose lot is {lot} "
                f"cents (the largest of the {count} units after {at} is {top}"
                f"{', played through blind' if blind else ''}), answered "
                f"balance {played['balance_cents']} cents, not {before} - {stake} + {lot}",
                {"operation": "play", "game": game, "stake_cents": stake},
            )
    if missed is not None:
        return skip(missed)
    buyer = next(b for p, _, _, b, _ in plays if p["index"] == last)
    said = [p for p, _, _, b, _ in plays if b is buyer][-1]["balance_cents"]  # its last play's
    read = session.balance(buyer)
    if read != said:
        return evidence(
            {**case, "requirement": "play.money.balance_read"},
            {"balance_cents": said},
            {"balance_cents": read},
            f"every play's balance_cents was exact up to unit {last} of {block_id!r} (lot "
            f"{top} cents, the largest of the {count} units after {at}), but the balance "
            f"read after its account's last play is {read} cents, not {said}",
            {"operation": "balance", "after_unit": last},
        )
    return None
