"""Which requirement a wrong balance along an account's plays names (``_scenarios.client``):
one same error on every play is the debit's, though its first play alone, winning exactly the
stake, looks like a lot not credited."""

from __future__ import annotations

from conformance.checks._scenarios.client import balance_requirement, one_same_error

STAKE = 100


def balances(opening: int, lots: list[int], debit: int, credited: bool = True) -> list[int]:
    """The balances a target answers for plays of ``lots`` from ``opening``, each debiting
    ``debit`` and crediting its lot when ``credited``."""
    out, balance = [], opening
    for lot in lots:
        balance = balance - debit + (lot if credited else 0)
        out.append(balance)
    return out


def test_a_stake_debited_twice_is_the_debits_even_when_the_first_play_wins_the_stake() -> None:
    lots = [STAKE, 0, 500, 0]
    answered = balances(10_000, lots, 2 * STAKE)
    debit = one_same_error(10_000, STAKE, answered, lots)
    assert debit
    # the first play alone: its balance is the stake debited and its lot of one stake missing
    got = answered[0]
    assert balance_requirement("robots", debit, 10_000, STAKE, STAKE, got) == (
        "robots.4.1.stake_debited"
    )
    assert balance_requirement("robots", False, 10_000, STAKE, STAKE, got) == (
        "robots.4.10.prize_credited"
    )


def test_lots_not_credited_are_the_prizes_not_the_debits() -> None:
    lots = [STAKE, 0, 500, 0]
    answered = balances(10_000, lots, STAKE, credited=False)
    debit = one_same_error(10_000, STAKE, answered, lots)
    assert not debit
    assert balance_requirement("robots", debit, 10_000, STAKE, STAKE, answered[0]) == (
        "robots.4.10.prize_credited"
    )


def test_exact_balances_and_a_single_play_are_no_debit() -> None:
    lots = [0, 200, 0]
    assert not one_same_error(10_000, STAKE, balances(10_000, lots, STAKE), lots)
    assert not one_same_error(10_000, STAKE, balances(10_000, [0], 2 * STAKE), [0])


def test_a_stake_debited_twice_at_plays_of_several_stakes_is_the_debits() -> None:
    """An account that tries other stakes (the players' old accounts, ``_excursions``): each
    play off by its own stake is one same share of its stake, the debit's; a fee of one same
    amount is the debit's too; a lot lost at one play is not."""
    stakes, lots = [100, 100, 50, 200, 100], [100, 0, 0, 500, 0]
    answered, balance = [], 10_000
    for stake, lot in zip(stakes, lots, strict=True):
        balance = balance - 2 * stake + lot
        answered.append(balance)
    assert one_same_error(10_000, stakes, answered, lots)
    fee, balance = [], 10_000
    for stake, lot in zip(stakes, lots, strict=True):
        balance = balance - stake - 7 + lot
        fee.append(balance)
    assert one_same_error(10_000, stakes, fee, lots)
    lost, balance = [], 10_000
    for number, (stake, lot) in enumerate(zip(stakes, lots, strict=True)):
        balance = balance - stake + (0 if number == 3 else lot)
        lost.append(balance)
    assert not one_same_error(10_000, stakes, lost, lots)
