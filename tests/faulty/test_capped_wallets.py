"""A wallet capped by the target (row ``balance-own-limit`` of docs/contract-decisions.md), and
``play.top_lots``: the largest lot on sale is still bought and judged, its accounts topped up
as a capped player's would be; a lot the plays could not reach is said, never passed.

``play.top_lots`` plays up to the largest lot among the next ``top_lot_units`` units (12 000 in
the full profile: 600 000 cents of stakes at 1 EUR or more). Its accounts were funded for them
all; a target refusing such balances (a wallet limit of 1 000 EUR, a correct vendor's freedom)
had the scenario return "nothing to judge", and the check **passed**: a target holding back its
big lots behind such a limit was CERTIFIED. Now the accounts are opened with the largest
balance the target takes (``funded_within``), another one opened each time one runs dry; a
window whose largest lot was still not bought is *reserved* (basis ``not-reached``).
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks._scenarios import money

from ._base import reference_adapter
from ._round2_faults import BigLotsHeld
from .freedom_variants import WalletLimit
from .test_freedoms import one_check

#: handed to an xdist worker first (tests/conftest.py): three tests, a certify run of a capped
#: wallet (12 s)
pytestmark = pytest.mark.early

FULL_WINDOW = {"top_lot_units": 12_000}  # the full profile's


class WalletOfTwoStakes(WalletLimit):
    """No account opened with more than 2 EUR."""

    most = 200


def _capped(service: Any = None, cls: type[WalletLimit] = WalletLimit) -> Any:
    name = f"freedom:{cls.__name__}"
    inner = reference_adapter(name=name) if service is None else reference_adapter(service, name)
    return cls(inner, name)


@pytest.mark.slow  # the fast tier has the catch below, which needs the top-ups to judge
def test_a_capped_wallet_has_its_top_lots_judged() -> None:
    outcome, reservations, message = one_check(
        _capped(), "play.top_lots", games=["robots"], **FULL_WINDOW
    )
    assert (outcome, reservations) == ("pass", []), message


def test_big_lots_held_behind_a_capped_wallet_fail() -> None:
    """``play_big_lots_held`` behind a wallet limit: the check passed, judging nothing."""
    outcome, _, message = one_check(
        _capped(BigLotsHeld), "play.top_lots", games=["robots"], **FULL_WINDOW
    )
    assert outcome == "fail", message
    assert "prize_credited" in message or "largest lot" in message, message


def test_a_top_lot_out_of_reach_is_reserved_not_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Accounts of two stakes, never topped up (``TOP_UPS`` 0), stop long before the end of
    the 12 000 units played through blind (no audit read them before, in this test): the
    plays bought are judged, and the window's largest lot, perhaps not bought, is said
    (reserved, ``not-reached``); it passed, judging the largest lot of what was bought."""
    monkeypatch.setattr(money, "TOP_UPS", 0)
    outcome, reservations, message = one_check(
        _capped(cls=WalletOfTwoStakes), "play.top_lots", games=["robots"], **FULL_WINDOW
    )
    assert outcome == "reserved", message
    assert [r["basis"] for r in reservations] == ["not-reached"], reservations
    assert reservations[0]["requirements"] == ["robots.4.10.prize_credited"]
    assert "was not bought" in reservations[0]["message"] or "not bought" in message
