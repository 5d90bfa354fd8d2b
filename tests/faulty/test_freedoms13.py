"""Round 13's freedoms: block lines whose integers are written ``100.0`` or ``1E+2`` (row
``integer-forms``), a blank line after a block file's last line (row ``blank-end``), a block
server capping a slice's ``count`` (row ``slice-own-limit``), and the plays deep in a block
going on, on a fresh account, past an account's own limit (row ``stake-own-limit``). Each is
shown certified, and the faults nearest it still caught.

The whole runs of the freedoms are the strength table's (``scripts/strength_table.py --only
block_slice_10000 robots_fixed_order``); here, narrowed runs of seconds.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from conformance._audit import audit_file
from conformance.checks._block_reading import read_slice
from contract import ErrorReply, ProtocolViolation
from harness._integers import IntegerStrings
from tests.conformance import blockkit as kit

from . import _player_faults as plf
from ._base import Delegating, reference_adapter
from .freedom_variants import FREEDOMS, BlockSliceLimit, StakeLimit20Eur
from .test_freedoms import check_outcome

LIMIT = "stake-own-limit"


# -- block lines: integers written with a fraction or an exponent (row integer-forms) -------


def _written(line: bytes, form: str) -> bytes:
    """``line`` with every integer written ``100.0`` (``point_zero``) or, a multiple of 10,
    ``1E+2`` (``exponent``); the strings left alone."""

    def number(match: re.Match[bytes]) -> bytes:
        digits = match.group(2)
        if form == "point_zero":
            text = digits + b".0"
        else:
            value = int(digits)
            zeros = len(digits) - len(digits.rstrip(b"0")) if value else 0
            text = b"%dE+%d" % (value // 10**zeros, zeros) if zeros else digits
        return match.group(1) + text

    return re.sub(rb'(":)(\d+)(?=[,}])', number, line)


def _correct(game: str = "robots", stake: int = 100) -> list[bytes]:
    return kit.unit_lines(game, stake, kit.shuffled_prizes(game, 5))


@pytest.mark.parametrize("form", ["point_zero", "exponent"])
def test_block_integers_written_otherwise_are_the_integers(form: str, tmp_path: Path) -> None:
    """Header and unit lines alike: ``"prize_cents": 100.0`` is the integer 100, judged as any
    line (the compiled fast path does not vouch for such a line: the exact path judges it)."""
    lines = _correct()
    first = _written(json.dumps(kit.header(), separators=(",", ":")).encode(), form)
    assert b'"stake_cents":1' in first and b'"stake_cents":100,' not in first
    data = first + b"\n" + b"".join(_written(line, form) + b"\n" for line in lines)
    path = tmp_path / "x.jsonl"
    path.write_bytes(data)
    result = audit_file(path, kit.expectation(block_id=None), workers=1)
    assert result.faults == () and result.fault_counts == {}
    assert result.lots_observed == kit.small_lots("robots")
    assert result.prizes.tolist() == kit.prizes_of(lines).tolist()
    assert result.sha256 == hashlib.sha256(data).hexdigest()


def test_a_block_line_integer_with_a_fraction_still_fails(tmp_path: Path) -> None:
    """``100.5`` is no integer (``unit_lines``); ``1E+2`` declared on a losing ticket is a
    prize of 100 the ticket does not win (``unit_prize``); a header's ``units`` of ``2.5``
    is no block size (``header``)."""
    lines = [_written(line, "point_zero") for line in _correct()]
    win = next(i for i, line in enumerate(lines) if b'"prize_cents":0.0' not in line)
    lose = next(i for i, line in enumerate(lines) if b'"prize_cents":0.0' in line)
    lines[win] = re.sub(rb'"prize_cents":(\d+)\.0', rb'"prize_cents":\1.5', lines[win])
    lines[lose] = lines[lose].replace(b'"prize_cents":0.0', b'"prize_cents":1E+2')
    path = tmp_path / "x.jsonl"
    path.write_bytes(kit.document(kit.header(), lines))
    result = audit_file(path, kit.expectation(block_id=None), workers=1)
    counts = result.fault_counts
    assert counts.get("unit_lines") == 1 and counts.get("unit_prize") == 1, counts
    text = json.dumps(kit.header()).replace(f'"units": {kit.small_units("robots")}', '"units": 2.5')
    path.write_bytes(text.encode() + b"\n" + b"".join(line + b"\n" for line in _correct()))
    assert "header" in audit_file(path, kit.expectation(block_id=None), workers=1).fault_counts


# -- a blank line after a block file's last line (row blank-end) ----------------------------


@pytest.mark.parametrize("name", ["b.jsonl", "b.jsonl.gz"])
def test_a_blank_line_after_the_last_is_no_unit(name: str, tmp_path: Path) -> None:
    """Dropped as an HTTP block stream drops it; the digest is of the file's bytes as they
    are, the whitespace included."""
    lines = _correct()
    data = kit.document(kit.header(), lines) + b"\n \n"
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    result = audit_file(path, kit.expectation(block_id=None), workers=1)
    assert result.faults == () and result.audited_units == len(lines)
    assert result.sha256 == hashlib.sha256(data).hexdigest()


def test_a_blank_line_between_units_still_fails(tmp_path: Path) -> None:
    lines = _correct()
    data = kit.document(kit.header(), [*lines[:50], b"", *lines[50:]])
    path = tmp_path / "b.jsonl"
    path.write_bytes(data)
    result = audit_file(path, kit.expectation(block_id=None), workers=1)
    assert {"unit_lines", "sequence"} <= set(result.fault_counts), result.fault_counts


# -- a block server's own cap on a slice's count (row slice-own-limit) -----------------------


class Capped(BlockSliceLimit):
    most = 1_000


def test_a_slice_past_the_targets_cap_is_read_in_pieces() -> None:
    adapter = Capped(reference_adapter(name="t"), "t")
    try:
        (listed, *_) = adapter.list_blocks("robots", 100)
        block_id = str(listed["block_id"])
        with pytest.raises(ErrorReply):
            adapter.read_block(block_id, 7, 2_500)
        whole = adapter.read_block(block_id, 7, 1_000)
        first = list(whole.lines())
        whole.close()
        with read_slice(adapter, block_id, 7, 2_500) as stream:
            assert (stream.header["start"], stream.header["count"]) == (7, 2_500)
            got = [json.loads(line)["index"] for line in stream.lines()]
        assert got == list(range(7, 2_507))
        with read_slice(adapter, block_id, 7, 2_500) as stream:
            assert b"".join(stream.chunks()).startswith(b"\n".join(first) + b"\n")
        # a slice reaching past the block's end keeps its refusal (row slice-bounds)
        units = int(listed["units"])
        with pytest.raises(ErrorReply):
            read_slice(adapter, block_id, units - 100, 2_500)
    finally:
        adapter.close()


class PieceLies(Capped):
    """A cap whose second piece answers another block's header."""

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        stream = super().read_block(block_id, start, count)
        if start is not None and start >= 1_007:
            stream.header = {**stream.header, "start": 0}
        return stream


def test_a_piece_answering_another_header_is_the_targets_fault() -> None:
    adapter = PieceLies(reference_adapter(name="t"), "t")
    try:
        (listed, *_) = adapter.list_blocks("robots", 100)
        stream = read_slice(adapter, str(listed["block_id"]), 7, 2_500)
        with stream, pytest.raises(ProtocolViolation, match="answered another header"):
            list(stream.lines())
    finally:
        adapter.close()


def test_a_slice_cap_leaves_the_deep_plays_judged() -> None:
    """``play.deep_stream`` reads the units it sold in slices of 20 000: the full profile's
    12 000 units deep, read in pieces of the target's 10 000 (it was in *error*)."""
    outcome = check_outcome(
        FREEDOMS["block_slice_10000"].factory(),
        "play.deep_stream",
        deep_units=12_000,
        deep_budget_s=10,
    )
    assert (outcome.outcome, outcome.reservations) == ("pass", []), outcome.message


# -- the plays deep in a block go on past an account's own limit (row stake-own-limit) -------


@pytest.mark.parametrize("name", ["stake_limit_20_eur", "play_count_limit_3"])
def test_deep_plays_go_on_on_a_fresh_account(name: str) -> None:
    """Reserved when the first account met its limit (20 plays, 3 plays): now every unit to
    the depth is judged, on as many accounts as the limits take."""
    outcome = check_outcome(
        FREEDOMS[name].factory(), "play.deep_stream", deep_units=300, deep_budget_s=20
    )
    assert (outcome.outcome, outcome.reservations) == ("pass", []), outcome.message
    (robots, *_) = outcome.details["pairs"]
    assert "fresh account(s) opened" in robots and "units 0 to 3" in robots, robots


class LotTableFirst200(plf.LotTableFirstUnits):
    LOADED = 200


def test_a_fault_deep_behind_a_limit_fails() -> None:
    """A win past unit 200 credited nothing, behind a stake limit of 20 EUR: the first
    account stops at 20 plays (the check was reserved there), a fresh one reaches the fault."""
    faulty = reference_adapter(LotTableFirst200, "t")
    outcome = check_outcome(
        StakeLimit20Eur(faulty, "t"), "play.deep_stream", deep_units=300, deep_budget_s=20
    )
    assert outcome.outcome == "fail", outcome.message
    assert "robots.4.10.prize_credited" in outcome.requirements, outcome.requirements


class RefusedWhenFresh(Delegating):
    """Not a limit: a play refused (409) to every account past its first play, and the second
    account's first play refused too (the pair stops selling after 5 plays in all)."""

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner, name)
        self.sold = 0

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Any:
        self.sold += 1
        if self.sold > 5:
            raise ErrorReply(409, "sold_out", "nothing left on sale")
        return self.inner.play(account_id, token, game, stake_cents)


def test_a_pair_that_stops_selling_is_no_limit_to_go_past() -> None:
    outcome = check_outcome(
        RefusedWhenFresh(reference_adapter(name="t"), "t"),
        "play.deep_stream",
        deep_units=300,
        deep_budget_s=20,
    )
    assert outcome.outcome in ("error", "fail"), outcome.message
    assert LIMIT not in {r["basis"] for r in outcome.reservations}


# -- the play through to a top tier goes on past an account's own limit (soak) ---------------

TOP_TIER = {"top_tier_units": 2_000, "player_span_s": 20, "deep_units": None}
"""The seed ``t``'s eldorado block at 100 cents holds a lot of 1 000 EUR at unit 762: a play
through of 20 seconds reaches it, past 30-odd accounts' stake limits of 20 EUR."""


@pytest.mark.slow  # the player sessions' span: 20 seconds of wall time
def test_the_play_through_to_a_top_tier_goes_on_on_fresh_accounts() -> None:
    """The check was in *error* (the 409 of the limit) when the account playing through met
    its limit; the top-tier unit is bought and judged on the account that reached it."""
    outcome = check_outcome(
        StakeLimit20Eur(reference_adapter(name="t"), "t"), "play.player_sessions", **TOP_TIER
    )
    assert outcome.outcome == "reserved", outcome.message
    assert {r["basis"] for r in outcome.reservations} == {LIMIT}  # the paced players' limits
    (judged,) = [n for n in outcome.details["top_tiers"] if n.endswith("judged")]
    assert "unit 762 of 'eldorado-100-0001'" in judged and "accounts' own limits" in judged


@pytest.mark.slow  # the player sessions' span: 20 seconds of wall time
def test_a_top_tier_fee_behind_a_limit_fails() -> None:
    """A lot of 1 000 EUR credited one euro short (``play_top_tier_fee``), behind a stake
    limit of 20 EUR: *error* before, a failure of eldorado 4.6 now."""
    faulty = reference_adapter(plf.TopTierFee, "t")
    outcome = check_outcome(StakeLimit20Eur(faulty, "t"), "play.player_sessions", **TOP_TIER)
    assert outcome.outcome == "fail", outcome.message
    assert outcome.requirements == ("eldorado.4.6.prize_credited",), outcome.requirements
    assert "the top-tier unit played through to" in outcome.message


# -- a generator's and a clock's own choices ---------------------------------------------------


@pytest.mark.parametrize(
    ("name", "check_id"),
    [
        # RFC 3339 5.6: time-secfrac = "." 1*DIGIT (12 digits were read as other ISO 8601:
        # reserved, created-at)
        ("created_at_picoseconds", "play.history_created_at"),
        # rules R-I1: the robots' order "may differ from unit to unit", need not
        ("robots_fixed_order", "play.auto_answer"),
        ("robots_fixed_order", "play.robots_history_unrevealed"),
    ],
)
def test_a_choice_the_letter_leaves_passes(name: str, check_id: str) -> None:
    outcome = check_outcome(FREEDOMS[name].factory(), check_id)
    assert (outcome.outcome, outcome.reservations) == ("pass", []), outcome.message


# -- integers written as strings of their digits (row integer-strings) -------------------------


def test_integer_strings_are_read_only_where_they_make_the_answer_fit() -> None:
    """protobuf's ``int64`` as a JSON string is the integer it writes, with the run's one
    reservation; a string that is no canonical integer (a wallet of float euros' ``"114.99"``,
    ``"007"``, ``"1e2"``), or one in a field that holds no integer, stays as it is."""
    forms = IntegerStrings()

    def fits(value: Any) -> bool:
        return all(type(value[k]) is int for k in ("balance_cents",))

    read = forms.placed({"account_id": "42", "balance_cents": "10000"}, None, fits)
    assert read == {"account_id": "42", "balance_cents": 10000}
    for text in ("114.99", "007", "1e2", "", "10000 "):
        assert forms.placed({"balance_cents": text}, None, fits) is None, text
    assert forms.placed({"stakes_cents": ["50", "100"]}, None, lambda v: True) == {
        "stakes_cents": [50, 100]
    }
    (made,) = forms.reservations()
    assert made["basis"] == "integer-strings" and "balance_cents (1 times)" in made["message"]
