"""No check passes having judged nothing (issue 28: "a check reported green must have been able
to go red"): where a check's scenario meets a case it cannot judge, the check says so, a
reservation (kind *unverifiable*) when the target's freedom put it there, a note in its
details naming the check that judges the requirement there, or a failure when only a faulty
target gets there. Each test steers a check into such a case; each passed before, silently.

- ``play.block_order``, ``play.concurrent_sales``: plays going on to another block, on a
  target that serves no blocks (row ``capability-skipped``): the block's end is unknown, so a
  target skipping the end of every block was CERTIFIED; now reserved. A block listed only
  while it is on sale (row ``blocks-listed``) has its size read then, and its end judged.
- ``play.<game>_prize_credited``'s emptied accounts: an account of the stake refused (a
  minimum deposit), played down to it and judged, or reserved where it cannot be (row
  ``balance-own-minimum``); a play the balance pays refused with 402, a failure
  (``play.refusal.insufficient_funds``).
- ``play.insufficient_funds`` (and ``play.invalid_requests``): two plays in a row out of order
  before the refusal made it judge nothing of the unit taken off sale; now a failure of
  ``play.sales.block_order`` (the check is exclusive: no other play meanwhile).
- ``play.top_lots``: a play after the probe's sold a unit before it (the check holds the
  stream): a failure of ``play.sales.block_order``, not "the largest lot not reached".
- ``play.money_bounds``, ``play.limit_bounds``: every balance (limit) refused with a 4xx, the
  target's right; the details say so and name the checks that judge the requirement.
- ``play.concurrent_one_account`` (``play.history.order`` of plays at once) and
  ``play.robots_reveal_order`` with ``scenario_workers`` 1 (no clicks at once): the details
  say what was not judged there.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks._scenarios import client
from harness._errors import ErrorReply

from ._base import Delegating, Document, reference_adapter
from ._wrapped import PairsSwapped
from .freedom_variants import NoBlocks, WalletLimit
from .test_freedoms import check_outcome, one_check

SMALL = 7  # the units of a block of ``SmallBlocksServedToNoOne``


class SmallBlocksServedToNoOne(NoBlocks):
    """No blocks capability, and blocks of ``SMALL`` units: the reference's unit i of block b
    is sold as unit i % 7 of block "b/(i // 7)". In block order for all a player can tell,
    and a target that skipped the last units of every block would look the same."""

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        played = dict(self.inner.play(account_id, token, game, stake_cents))
        index = int(played["index"])
        played["block_id"] = f"{played['block_id']}/{index // SMALL}"
        played["index"] = index % SMALL
        return played


def _small_blocks() -> Any:
    return SmallBlocksServedToNoOne(reference_adapter(name="small-blocks"), "small-blocks")


def test_a_block_end_no_block_shows_is_reserved_in_block_order() -> None:
    outcome, reservations, message = one_check(_small_blocks(), "play.block_order", play_count=20)
    assert outcome == "reserved", message
    assert [(r["basis"], r["requirements"]) for r in reservations] == [
        ("capability-skipped", ["play.sales.block_order"])
    ], reservations
    assert "whether that block had ended there" in reservations[0]["message"]


def test_a_block_end_no_block_shows_is_reserved_in_concurrent_sales() -> None:
    outcome, reservations, message = one_check(_small_blocks(), "play.concurrent_sales")
    assert outcome == "reserved", message
    assert {r["basis"] for r in reservations} == {"capability-skipped"}, reservations
    assert reservations[0]["requirements"] == ["play.sales.block_order"]


class LastUnitSkippedOneBlockListed(Delegating):
    """Blocks of ``SMALL`` units, ``GET /v1/blocks`` listing only the one on sale (row
    blocks-listed), and the last unit of every block never sold: the reference's unit i is
    sold as unit i % 6 of block "b/(i // 6)". Once the next block is on sale, the one before
    is no longer listed: its end was read as unknown, and passed."""

    units = SMALL

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner, name)
        self._on_sale: dict[tuple[str, int], str] = {}

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        played = dict(self.inner.play(account_id, token, game, stake_cents))
        index = int(played["index"])
        played["block_id"] = f"{played['block_id']}/{index // (self.units - 1)}"
        played["index"] = index % (self.units - 1)
        self._on_sale[(game, stake_cents)] = played["block_id"]
        return played

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        first = dict(self.inner.list_blocks(game, stake_cents)[0])
        on_sale = self._on_sale.get((game, stake_cents), f"{first['block_id']}/0")
        return [{**first, "block_id": on_sale, "units": self.units}]


class LastOfThreeSkipped(LastUnitSkippedOneBlockListed):
    """Blocks of 3 units, the third never sold: a witness account's third play (after the
    refusals) starts the next block."""

    units = 3


def test_a_block_listed_only_while_on_sale_has_its_end_judged() -> None:
    """Ten plays in a row: one block end, met when the block before is no longer listed."""
    adapter = LastUnitSkippedOneBlockListed(reference_adapter(name="skip-last"), "skip-last")
    outcome, _, message = one_check(adapter, "play.block_order", play_count=10, games=["robots"])
    assert outcome == "fail", message
    assert "not block order" in message


def test_a_block_end_after_a_refusal_is_judged_when_listed_only_on_sale() -> None:
    """The witness plays around the refusals straddle a block end, its block no longer listed
    after it: the unit skipped there was passed (the end unknown)."""
    adapter = LastOfThreeSkipped(reference_adapter(name="skip-third"), "skip-third")
    outcome, _, message = one_check(adapter, "play.insufficient_funds", games=["robots"])
    assert outcome == "fail", message
    assert "took a unit off sale" in message


def test_no_blocks_alone_keeps_its_block_order_pass() -> None:
    """The freedom itself (blocks of the reference's size: no block ends in a run)."""
    adapter = NoBlocks(reference_adapter(name="no-blocks"), "no-blocks")
    assert one_check(adapter, "play.block_order")[:2] == ("pass", [])


class SmallAccountsRefused(Delegating):
    """A minimum deposit: no account opened with less than 10 EUR (any 4xx)."""

    def open_account(self, balance_cents: int) -> Document:
        if type(balance_cents) is int and 0 < balance_cents < 1000:
            raise ErrorReply(422, "deposit_too_small", "at least 1000 cents")
        return dict(self.inner.open_account(balance_cents))


def test_an_emptied_account_refused_is_played_down_and_judged() -> None:
    """A minimum deposit (row balance-own-minimum): the accounts of one stake it refuses are
    opened at the least balance taken and played down, so the emptied accounts are judged."""
    adapter = SmallAccountsRefused(reference_adapter(name="min-deposit"), "min-deposit")
    outcome, reservations, message = one_check(adapter, "play.robots_prize_credited")
    assert outcome == "pass", message
    assert reservations == [], reservations


def test_an_emptied_account_not_played_down_is_reserved_not_passed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """... and where no account can be played down to it, the case is reserved, never passed."""
    monkeypatch.setattr(client, "DOWN_PLAYS", 0)
    adapter = SmallAccountsRefused(reference_adapter(name="min-deposit"), "min-deposit")
    outcome, reservations, message = one_check(adapter, "play.robots_prize_credited")
    assert outcome == "reserved", message
    assert [(r["basis"], r["requirements"]) for r in reservations] == [
        ("balance-own-minimum", ["robots.4.10.prize_credited"])
    ], reservations
    assert "were not judged" in reservations[0]["message"]


class KeepsAStakeBack(Delegating):
    """Refuses (402) a play that would leave less than a stake but not nothing: the last
    ticket of a player whose balance is not a whole number of stakes is never sold."""

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        held = int(self.inner.balance(account_id, token)["balance_cents"])
        if stake_cents < held < 2 * stake_cents:
            raise ErrorReply(402, "insufficient_funds", "a stake is kept back")
        return dict(self.inner.play(account_id, token, game, stake_cents))


def test_a_payable_play_refused_fails_instead_of_passing() -> None:
    adapter = KeepsAStakeBack(reference_adapter(name="stake-back"), "stake-back")
    outcome, _, message = one_check(adapter, "play.robots_prize_credited")
    assert outcome == "fail", message
    assert "though the balance pays it" in message


class SkipsAUnitOnTheSecondPlay(Delegating):
    """Every account's second play is sold the unit after next: one unit skipped (bought by an
    account of the target's own)."""

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner, name)
        self._plays: dict[str, int] = {}
        self._house: Document | None = None

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        self._plays[account_id] = self._plays.get(account_id, 0) + 1
        if self._plays[account_id] == 2:
            if self._house is None:
                self._house = dict(self.inner.open_account(10**9))
            house = self._house
            self.inner.play(house["account_id"], house["token"], game, stake_cents)
        return dict(self.inner.play(account_id, token, game, stake_cents))


def test_plays_out_of_order_around_a_refusal_fail_block_order() -> None:
    adapter = SkipsAUnitOnTheSecondPlay(reference_adapter(name="skips"), "skips")
    outcome, _, message = one_check(adapter, "play.insufficient_funds")
    assert outcome == "fail", message
    assert "were not sold consecutive units" in message


def _details(adapter: Any, check_id: str, **overrides: Any) -> tuple[str, dict[str, Any]]:
    """``check_id`` alone on ``adapter`` (the tests' profile, with ``overrides``): its outcome
    and details."""
    outcome = check_outcome(adapter, check_id, **overrides)
    return outcome.outcome, outcome.details


def test_balances_past_2_53_refused_are_said_with_the_check_that_judges_money() -> None:
    """The reference refuses every balance past 2^53 - 1 (row balances-past-2-53)."""
    outcome, details = _details(reference_adapter(name="x"), "play.money_bounds")
    assert outcome == "pass"
    assert details["balances_judged"] == 0
    assert len(details["balances_refused"]) == 3 * len(details["stakes_judged"])  # 3 a stake
    assert len(details["stakes_judged"]) > 1  # every game and stake in scope
    assert "play.money_exact" in details["not_judged"]


def test_a_capped_wallet_judged_below_2_53_says_so() -> None:
    adapter = WalletLimit(reference_adapter(name="wallet"), "wallet")
    outcome, details = _details(adapter, "play.money_bounds")
    assert outcome == "pass" and details["balances_judged"] == 0, details


def test_limits_far_out_refused_are_said_with_the_check_that_judges_them() -> None:
    """The reference refuses a ``limit`` past 2^62 (row limit-far-out)."""
    outcome, details = _details(reference_adapter(name="x"), "play.limit_bounds")
    assert outcome == "pass"
    assert details["limits_refused"] == [2**63 - 1]
    assert "play.history_listing" in details["not_judged"]


def test_a_unit_sold_behind_the_probe_fails_top_lots_block_order() -> None:
    """Units sold 1, 0, 3, 2, ...: a play after the probe's sold a unit before it. ``play
    .top_lots`` holds the stream, so that is block order's letter broken (it was reserved
    as "not reached", and before that passed)."""
    adapter = PairsSwapped(reference_adapter(name="pairs-swapped"))
    outcome, _, message = one_check(adapter, "play.top_lots")
    assert outcome == "fail", message
    assert "not the next units" in message


def test_plays_at_once_say_where_the_history_order_is_judged() -> None:
    outcome, details = _details(reference_adapter(name="x"), "play.concurrent_one_account")
    assert outcome == "pass"
    assert "play.history_listing" in details["history_order"]


def test_no_clicks_at_once_is_said() -> None:
    """``scenario_workers`` 1 (the run's choice): the reveal order's clicks at once are not
    sent, and its details say so."""
    outcome, details = _details(
        reference_adapter(name="x"), "play.robots_reveal_order", scenario_workers=1, play_count=3
    )
    assert outcome == "pass"
    assert details["clicks_at_once"].startswith("not sent")


def test_a_game_without_top_tier_units_read_is_said() -> None:
    """The tests' profile reads 6 000-unit slices: no robots top tier among them."""
    outcome, details = _details(reference_adapter(name="python:reference"), "blocks.top_tiers")
    assert outcome == "pass"
    assert (
        "robots.randomness.top_tiers is not judged" in details["top_tiers"]["robots"]["not_judged"]
    )
    assert "not_judged" not in details["top_tiers"]["eldorado"]


def test_odd_balances_refused_under_a_wallet_limit_are_said() -> None:
    """``play.money_exact``'s odd balances past 1 000 EUR, refused by a capped wallet (row
    odd-balances): not judged there, and now said (the other balances judge the
    requirement: no reservation)."""
    adapter = WalletLimit(reference_adapter(name="wallet"), "wallet")
    outcome, details = _details(adapter, "play.money_exact", games=["robots"])
    assert outcome == "pass"
    refused = [n for n in details["not_judged"] if "a limit of the target's own" in n]
    assert len(refused) == 4, details["not_judged"]
    assert any("an account of 20000057 cents" in n for n in refused), refused


def test_a_refused_stake_is_watched_on_every_stream() -> None:
    """An invalid eldorado stake takes a unit off eldorado's 1 € stream: ``play.invalid_requests``
    watched one stream (the first pair: robots at 1 €) and certified it; it watches every
    (game, stake) in scope now, each unit after the refusals the one after before them."""
    from . import _faults as f

    found = check_outcome(
        reference_adapter(f.EldoradoInvalidStakeTakesAUnit, name="x"), "play.invalid_requests"
    )
    assert found.outcome == "fail", found.message
    assert "eldorado at 100 cents" in found.message
    assert check_outcome(reference_adapter(name="x"), "play.invalid_requests").outcome == "pass"
