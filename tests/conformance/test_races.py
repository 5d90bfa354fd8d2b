"""``conformance.checks._races.race``: a race the adapter let out fewer at a time than asked
is a reservation of the requirements it tests, never a pass said of a race not run."""

from __future__ import annotations

import pytest

from conformance import CheckContext
from conformance.checks._races import BASIS, race
from harness._reference_adapter import ReferenceAdapter
from tests.faulty.certify import settings_for


class Paced:
    """The reference adapter, holding purchases back to ``fewest`` at once."""

    def __init__(self, fewest: int | None) -> None:
        self._adapter = ReferenceAdapter()
        self.fewest = fewest
        self.marks: list[int] = []
        self.read: list[int] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self._adapter, name)

    def pace_mark(self) -> int:
        self.marks.append(len(self.marks))
        return self.marks[-1]

    def fewest_at_once(self, mark: int) -> int | None:
        self.read.append(mark)
        return self.fewest


def _context(adapter: object) -> CheckContext:
    describe = ReferenceAdapter().describe()
    return CheckContext(adapter, describe, settings_for(), 7)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fewest", "reserved"), [(1, True), (7, True), (8, False), (16, False), (None, False)]
)
def test_a_race_let_out_fewer_at_once_than_asked_is_reserved(
    fewest: int | None, reserved: bool
) -> None:
    adapter = Paced(fewest)
    ctx = _context(adapter)
    with race(ctx, 8, ["play.sales.no_double_sale"], "8 accounts playing at once"):
        pass
    assert adapter.read == adapter.marks == [0]
    assert bool(ctx.reservations) is reserved
    if reserved:
        (found,) = ctx.reservations
        assert found.basis == BASIS and found.kind == "unverifiable"
        assert found.requirements == ("play.sales.no_double_sale",)
        assert f"at most {fewest} out together" in found.message
        assert ctx.details["race_let_out_at_once"] == fewest


def test_a_race_that_fails_is_not_reserved_and_its_window_is_closed() -> None:
    adapter = Paced(1)
    ctx = _context(adapter)
    with pytest.raises(RuntimeError), race(ctx, 8, ["play.money.exact"], "a race"):
        raise RuntimeError("a failure found")
    assert adapter.read == [0] and ctx.reservations == []


def test_an_adapter_that_holds_nothing_back_is_not_asked() -> None:
    ctx = _context(ReferenceAdapter())
    with race(ctx, 8, ["play.money.exact"], "a race"):
        pass
    assert ctx.reservations == []
