"""Block checks over the Adapter interface: the reference passes, each broken block fails the
requirement it breaks (and only block requirements it breaks)."""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conformance import CheckContext, audit_block_file, registered_checks
from conformance._audit import Expectation
from conformance._execute import CheckOutcome, execute
from conformance._suite import replay
from conformance.checks import block_randomness
from conformance.checks import blocks as block_checks
from harness._errors import ProtocolViolation
from tests.conformance import blockkit as kit
from tests.seeds import TEST_SEED

BLOCK_CHECKS = sorted(c for c in registered_checks() if c.startswith("blocks."))
WHOLE = {"block_mode": "whole", "block_sample_units": None, "blocks_per_stake": None}
SAMPLE = {"block_mode": "sample", "block_sample_units": 1500, "blocks_per_stake": 1}


@pytest.fixture
def small_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole-block expectations come from the small lot tables of ``blockkit``."""

    def small(
        game: str,
        stake: int,
        block_id: str | None = None,
        start: int | None = None,
        count: int | None = None,
    ) -> Expectation:
        return kit.expectation(game, stake, block_id, start, count)

    monkeypatch.setattr(Expectation, "from_rules", staticmethod(small))


def run_all(target: Any, settings: dict[str, Any], seed: int = 3) -> dict[str, CheckOutcome]:
    implementation = target.describe()
    sink: list[Any] = []
    outcomes = {}
    for check_id in BLOCK_CHECKS:
        ctx = CheckContext(target, implementation, settings, seed, block_sink=sink.append)
        outcomes[check_id] = execute(registered_checks()[check_id], ctx)
    return outcomes


def failed(outcomes: dict[str, CheckOutcome]) -> set[str]:
    """Requirement ids that failed (or errored)."""
    return {r for o in outcomes.values() if o.outcome in ("fail", "error") for r in o.requirements}


def test_the_in_process_reference_passes_every_block_check() -> None:
    from harness._reference_adapter import ReferenceAdapter

    adapter = ReferenceAdapter(seed=TEST_SEED)
    try:
        sink: list[Any] = []
        implementation = adapter.describe()
        settings = {**SAMPLE, "block_sample_units": 600}
        for check_id in BLOCK_CHECKS:
            # a fixed seed: the statistical checks may fail a correct target with chance <= α
            # (test_stats checks that rate); this seed is one of the 99 % or more that pass
            ctx = CheckContext(adapter, implementation, settings, 2, block_sink=sink.append)
            outcome = execute(registered_checks()[check_id], ctx)
            if check_id == "blocks.unrelated_blocks" and outcome.outcome == "reserved":
                continue  # a target that lists one block per stake cannot be compared
            if check_id == "blocks.top_tiers" and "no top-tier unit" in outcome.message:
                continue  # 600-unit slices may hold none (test_correct_small_blocks_pass_whole)
            assert outcome.outcome == "pass", (check_id, outcome.message)
        assert {(b["game"], b["stake_cents"]) for b in sink} >= {
            ("robots", 100),
            ("eldorado", 50),
            ("eldorado", 100),
            ("eldorado", 200),
        }
        assert all(b["audited_units"] == 600 and b["units"] in (2_000_000, 900_000) for b in sink)
    finally:
        adapter.close()


@pytest.mark.parametrize("master", [bytes(range(32)), bytes(32)], ids=["readme", "zero"])
def test_the_reference_served_from_a_public_master_seed_fails_winner_positions(
    master: bytes,
) -> None:
    from harness._reference_adapter import ReferenceAdapter

    adapter = ReferenceAdapter(seed=master)
    try:
        settings = {**SAMPLE, "block_sample_units": 600, "games": ["robots"]}
        ctx = CheckContext(adapter, adapter.describe(), settings, 2)
        outcome = execute(registered_checks()["blocks.randomness"], ctx)
    finally:
        adapter.close()
    assert outcome.outcome == "fail"
    assert outcome.requirements == ("robots.randomness.winner_positions",)
    assert f"public master seed {master.hex()}" in outcome.message
    assert outcome.details["randomness"]["robots-100-0001"]["public_seed"] is not None


def test_public_seeds_are_told_by_layout_or_commitment() -> None:
    from conformance._public_seeds import PROBE_UNITS, public_commitment, public_layout
    from reference import Block

    readme = bytes(range(32))
    block = Block("eldorado", 50, "eldorado-50-0007", readme)
    prizes = block._slice_prizes(1000, 5000)
    found = public_layout("eldorado", 50, "eldorado-50-0007", 1000, prizes)
    assert found is not None and readme.hex() in found and "README" in found
    damaged = prizes.copy()
    damaged[:: len(prizes) // 2] = -1  # two lines without a prize: still told
    assert public_layout("eldorado", 50, "eldorado-50-0007", 1000, damaged) == found
    at = np.linspace(0, len(prizes) - 1, PROBE_UNITS).astype(np.int64)
    for probe in (0, 60, PROBE_UNITS - 1):  # a third unequal probe, early or last: not told
        worse = prizes.copy()
        worse[at[[probe, (probe + 1) % PROBE_UNITS, (probe + 2) % PROBE_UNITS]]] = -1
        assert public_layout("eldorado", 50, "eldorado-50-0007", 1000, worse) is None
    for probe in (0, 17, PROBE_UNITS - 2):  # two, wherever they fall: still told
        two = prizes.copy()
        two[at[[probe, probe + 1]]] = -1
        assert public_layout("eldorado", 50, "eldorado-50-0007", 1000, two) == found
    assert public_layout("eldorado", 50, "eldorado-50-0007", 0, prizes) is None  # shifted
    short = prizes[: PROBE_UNITS - 1]
    assert public_layout("eldorado", 50, "eldorado-50-0007", 1000, short) is None
    own = Block("eldorado", 50, "eldorado-50-0007", TEST_SEED)._slice_prizes(1000, 5000)
    assert public_layout("eldorado", 50, "eldorado-50-0007", 1000, own) is None
    header = {"block_id": "eldorado-50-0007", "seed_sha256": block.seed_sha256}
    assert public_commitment(header) == found
    private = Block("eldorado", 50, "eldorado-50-0007", TEST_SEED).seed_sha256
    assert public_commitment({**header, "seed_sha256": private}) is None
    assert public_commitment({"block_id": 7, "seed_sha256": None}) is None


@pytest.mark.usefixtures("small_rules")
@pytest.mark.parametrize(("game", "stake"), [("robots", 100), ("eldorado", 100)])
def test_correct_small_blocks_pass_whole(game: str, stake: int) -> None:
    outcomes = run_all(kit.small_target(game, stake, blocks=2), WHOLE)
    assert {c: o.outcome for c, o in outcomes.items()} == dict.fromkeys(BLOCK_CHECKS, "pass")
    # per block: first and last unit, 7 and 50 units at random, 7 straddling a multiple of
    # 1000 and of 1024 (the small blocks hold no larger page size); and the run's two long
    # slow reads (``blocks.long_slow_reads``: a small block whole)
    assert outcomes["blocks.slices"].details["slices_checked"] == 12 + block_checks.LONG_SLOW_READS


def broken(change: Any, game: str = "robots", stake: int = 100, blocks: int = 1) -> Any:
    target = kit.small_target(game, stake, blocks=blocks)
    head, lines = target.blocks[f"{game}-{stake}-0001"]
    target.blocks[f"{game}-{stake}-0001"] = change(dict(head), list(lines))
    return target


def first(lines: list[bytes], prize: int) -> int:
    return next(i for i, line in enumerate(lines) if json.loads(line)["prize_cents"] == prize)


def swap_lot(head: dict[str, Any], lines: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
    at = first(lines, 500)
    lines[at] = kit.unit_line("robots", 100, at, 300)
    return head, lines


def over_cap(head: dict[str, Any], lines: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
    at = first(lines, 0)
    lines[at] = kit.unit_line("robots", 100, at, 100)
    return head, lines


def lie(head: dict[str, Any], lines: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
    at = first(lines, 0)
    lines[at] = lines[at].replace(b'"prize_cents":0', b'"prize_cents":100')
    return head, lines


def duplicate(head: dict[str, Any], lines: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
    return head, [*lines[:11], lines[10], *lines[11:]]


def missing(head: dict[str, Any], lines: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
    return head, lines[:-1]


def out_of_order(head: dict[str, Any], lines: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
    lines[20], lines[21] = lines[21], lines[20]
    return head, lines


def bad_ticket(head: dict[str, Any], lines: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
    at = first(lines, 0)
    value = json.loads(lines[at])
    value["ticket"] = value["ticket"].replace("|", "/")
    lines[at] = json.dumps(value, separators=(",", ":")).encode()
    return head, lines


def extra_field(head: dict[str, Any], lines: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
    lines[5] = lines[5][:-1] + b',"bonus":0}'
    return head, lines


def wrong_header(head: dict[str, Any], lines: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
    return {**head, "format": "block/0"}, lines


def wrong_size(head: dict[str, Any], lines: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
    return {**head, "units": len(lines) + 1, "count": len(lines) + 1}, lines


def clustered(head: dict[str, Any], lines: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
    prizes = [json.loads(line)["prize_cents"] for line in lines]
    half = len(prizes) // 2
    winners = sorted((p for p in prizes if p), reverse=True)
    late = [p for p in prizes[half:] if p]
    early = [p for p in prizes[:half] if p == 0]
    moved = min(len(late) // 5, len(early))
    order = prizes[:]
    # move a fifth of the second half's winners into losing places of the first half
    late_at = [i for i in range(half, len(prizes)) if prizes[i]][:moved]
    early_at = [i for i in range(half) if prizes[i] == 0][:moved]
    for a, b in zip(early_at, late_at, strict=True):
        order[a], order[b] = order[b], order[a]
    assert sorted((p for p in order if p), reverse=True) == winners
    return head, kit.unit_lines("robots", 100, order)


def every_kth(head: dict[str, Any], lines: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
    prizes = [json.loads(line)["prize_cents"] for line in lines]
    winners = [p for p in prizes if p]
    order = [0] * len(prizes)
    step = len(prizes) // len(winners)
    for n, p in enumerate(winners):
        order[n * step] = p
    return head, kit.unit_lines("robots", 100, order)


CASES = [
    (swap_lot, {"robots.3.lot_table"}),
    (over_cap, {"robots.3.lot_table", "robots.3.payout_cap"}),
    (lie, {"robots.3.unit_prize", "robots.3.lot_table", "robots.3.payout_cap"}),
    (duplicate, {"robots.2.unit_sequence", "robots.3.lot_table", "robots.3.payout_cap"}),
    (missing, {"robots.2.unit_sequence", "robots.3.lot_table"}),
    (out_of_order, {"robots.2.unit_sequence"}),
    (bad_ticket, {"robots.2.valid_tickets"}),
    (wrong_header, {"blocks.contract3.header"}),
    (wrong_size, {"robots.2.block_size", "robots.2.unit_sequence"}),
    # a fifth of the late winners moved early: top prizes among them, so both are broken
    (clustered, {"robots.randomness.winner_positions"}),  # top prizes move too, a little
    # winners every 2nd unit in their order: the top prizes end up in the first 72 %
    (every_kth, {"robots.randomness.winner_positions", "robots.randomness.top_tiers"}),
]


@pytest.mark.usefixtures("small_rules")
@pytest.mark.parametrize(("change", "expected"), CASES, ids=[c[0].__name__ for c in CASES])
def test_each_broken_block_fails_the_requirement_it_breaks(change: Any, expected: set[str]) -> None:
    outcomes = run_all(broken(change, blocks=2), WHOLE)
    got = failed(outcomes)
    assert got == expected, {c: o.message for c, o in outcomes.items() if o.outcome != "pass"}


@pytest.mark.usefixtures("small_rules")
def test_a_unit_line_with_a_field_of_its_own_is_reserved_not_failed() -> None:
    """Contract 3 keeps a header's unknown fields and says nothing of a unit's: a field
    beside the three is a reservation (row unit-fields), the line judged on the three."""
    outcomes = run_all(broken(extra_field, blocks=2), WHOLE)
    assert failed(outcomes) == set(), {c: o.message for c, o in outcomes.items()}
    lines = outcomes["blocks.unit_lines"]
    assert lines.outcome == "reserved", lines.message
    (reservation,) = lines.reservations
    assert reservation["basis"] == "unit-fields", reservation
    assert "['bonus']" in reservation["message"], reservation["message"]


class _ClaimsASlice:
    """A target whose ``describe()`` claims to hold a slice of its blocks (the key a block
    file's target sets): the implementation's word, which must not shrink the audit."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name

    def describe(self) -> dict[str, Any]:
        return {**self.inner.describe(), "document_slice": {"start": 0, "count": 40}}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.usefixtures("small_rules")
def test_a_target_claiming_a_document_slice_is_still_audited_whole() -> None:
    outcomes = run_all(_ClaimsASlice(broken(swap_lot, blocks=2)), WHOLE)
    assert failed(outcomes) == {"robots.3.lot_table"}
    assert outcomes["blocks.slices"].outcome == "pass"  # a server's slices are tested


@pytest.mark.usefixtures("small_rules")
def test_a_block_file_has_no_slice_reads_to_test(tmp_path: Path) -> None:
    head, lines = kit.small_target("robots", 100).blocks["robots-100-0001"]
    path = tmp_path / "whole.jsonl"
    path.write_bytes(kit.document(head, lines))
    result = audit_block_file(path)
    assert result.outcomes["blocks.slices"].outcome == "not_supported"
    assert "server" in result.outcomes["blocks.slices"].message
    assert result.requirements["blocks.contract3.slice"] == "not_supported"
    assert result.passed


@pytest.mark.usefixtures("small_rules")
def test_two_blocks_with_identical_orders_fail_unrelated_blocks() -> None:
    target = kit.small_target("robots", 100, blocks=2)
    head, lines = target.blocks["robots-100-0001"]
    target.blocks["robots-100-0002"] = ({**head, "block_id": "robots-100-0002"}, lines)
    outcomes = run_all(target, WHOLE)
    assert failed(outcomes) == {"robots.randomness.unrelated_blocks"}


@pytest.mark.usefixtures("small_rules")
def test_a_block_repeating_one_two_places_back_fails_unrelated_blocks() -> None:
    target = kit.small_target("robots", 100, blocks=3)
    head, lines = target.blocks["robots-100-0001"]
    target.blocks["robots-100-0003"] = ({**head, "block_id": "robots-100-0003"}, lines)
    outcomes = run_all(target, WHOLE)
    assert failed(outcomes) == {"robots.randomness.unrelated_blocks"}
    compared = outcomes["blocks.unrelated_blocks"].details["compared"]
    rejected = {k for k, v in compared.items() if v["rejected"]}
    assert rejected == {"robots-100-0001~robots-100-0003"}  # not the consecutive pairs


def test_pairs_to_compare_are_every_pair_nearest_first_up_to_the_cap() -> None:
    assert block_randomness.pairs_to_compare("ab") == [("a", "b")]
    assert block_randomness.pairs_to_compare("abc") == [("a", "b"), ("b", "c"), ("a", "c")]
    many = block_randomness.pairs_to_compare(range(20))
    assert len(many) == block_randomness.MAX_PAIRS_PER_STAKE
    assert many[:19] == [(i, i + 1) for i in range(19)]  # every consecutive pair is in


def _second_block(target: Any, prizes: list[int]) -> None:
    head, _lines = target.blocks["robots-100-0002"]
    target.blocks["robots-100-0002"] = (head, kit.unit_lines("robots", 100, prizes))


@pytest.mark.usefixtures("small_rules")
@pytest.mark.parametrize("shift", [1, 10, kit.ROBOTS_UNITS // 2])
def test_a_block_shifted_or_rotated_from_another_fails_unrelated_blocks(shift: int) -> None:
    target = kit.small_target("robots", 100, blocks=2)
    first = kit.prizes_of(target.blocks["robots-100-0001"][1]).tolist()
    _second_block(target, first[shift:] + first[:shift])
    outcomes = run_all(target, WHOLE)
    assert failed(outcomes) == {"robots.randomness.unrelated_blocks"}
    assert "lag_overlap" in outcomes["blocks.unrelated_blocks"].message


# -- unrelated blocks across stakes and chunk by chunk (red team) -----------------------------


@pytest.fixture
def scaled_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """``blockkit``'s small eldorado table at 1 €, its prizes scaled by the stake at 0,5 € and
    2 € (the counts alike, as in eldorado's real tables)."""

    def scaled(
        game: str,
        stake: int,
        block_id: str | None = None,
        start: int | None = None,
        count: int | None = None,
    ) -> Expectation:
        small = kit.expectation(game, stake, block_id, start, count)
        lots = {p * stake // 100: n for p, n in small.lots.items()}
        return Expectation(game, stake, small.block_units, lots, 70, block_id, start, count)

    monkeypatch.setattr(Expectation, "from_rules", staticmethod(scaled))


def three_stakes(seed: int, shared: bool, shared_from: int = 1) -> kit.MemoryTarget:
    """Two small eldorado blocks at each of 0,5, 1 and 2 €; ``shared``: blocks n of 0,5 € and
    2 € take the layout of the 1 € block n (the tier ranks at the same places), from block
    ``shared_from`` on."""
    served = {}
    for n in (1, 2):
        base = kit.shuffled_prizes("eldorado", seed + 10 * n)
        for stake in (50, 100, 200):
            own = (
                base
                if (shared and n >= shared_from) or stake == 100
                else kit.shuffled_prizes("eldorado", seed + stake + n)
            )
            prizes = [p * stake // 100 for p in own]
            block_id = f"eldorado-{stake}-{n:04d}"
            served[block_id] = (
                kit.header("eldorado", stake, block_id),
                kit.unit_lines("eldorado", stake, prizes),
            )
    return kit.MemoryTarget(served)


@pytest.mark.usefixtures("scaled_rules")
def test_small_blocks_of_three_stakes_are_compared_across_stakes() -> None:
    outcomes = run_all(three_stakes(40, shared=False), WHOLE)
    assert {c: o.outcome for c, o in outcomes.items()} == dict.fromkeys(BLOCK_CHECKS, "pass")
    compared = outcomes["blocks.unrelated_blocks"].details["compared"]
    across = {k: v["across_stakes"] for k, v in compared.items() if "across_stakes" in v}
    assert across == {
        "eldorado-50-0001~eldorado-100-0001": "rank",
        "eldorado-50-0001~eldorado-200-0001": "rank",
        "eldorado-100-0001~eldorado-200-0001": "rank",
        "eldorado-50-0002~eldorado-100-0002": "rank",
        "eldorado-50-0002~eldorado-200-0002": "rank",
        "eldorado-100-0002~eldorado-200-0002": "rank",
    }
    assert len(compared) == 9  # and the three consecutive pairs, one per stake


@pytest.mark.usefixtures("scaled_rules")
def test_a_layout_shared_across_stakes_fails_unrelated_blocks() -> None:
    outcomes = run_all(three_stakes(41, shared=True), WHOLE)
    assert failed(outcomes) == {"eldorado.randomness.unrelated_blocks"}
    outcome = outcomes["blocks.unrelated_blocks"]
    rejected = {k for k, v in outcome.details["compared"].items() if v["rejected"]}
    assert rejected == {
        "eldorado-50-0001~eldorado-100-0001",
        "eldorado-50-0001~eldorado-200-0001",
        "eldorado-100-0001~eldorado-200-0001",
        "eldorado-50-0002~eldorado-100-0002",
        "eldorado-50-0002~eldorado-200-0002",
        "eldorado-100-0002~eldorado-200-0002",
    }
    assert "overlap" in outcome.message


@pytest.mark.usefixtures("scaled_rules")
def test_later_blocks_sharing_a_layout_across_stakes_fail_unrelated_blocks() -> None:
    outcomes = run_all(three_stakes(42, shared=True, shared_from=2), WHOLE)
    assert failed(outcomes) == {"eldorado.randomness.unrelated_blocks"}
    compared = outcomes["blocks.unrelated_blocks"].details["compared"]
    rejected = {k for k, v in compared.items() if v["rejected"]}
    assert rejected == {
        "eldorado-50-0002~eldorado-100-0002",
        "eldorado-50-0002~eldorado-200-0002",
        "eldorado-100-0002~eldorado-200-0002",
    }


def test_across_stakes_pairs_are_the_same_numbered_blocks() -> None:
    pairs = block_randomness.across_stakes_to_compare([["a1", "a2"], ["b1", "b2", "b3"], ["c1"]])
    assert pairs == [("a1", "b1"), ("a1", "c1"), ("b1", "c1"), ("a2", "b2")]


@pytest.mark.usefixtures("small_rules")
def test_a_block_reshuffled_chunk_by_chunk_fails_unrelated_blocks() -> None:
    # block 2 is block 1 with each run of units / 100 places shuffled on its own: every
    # segment holds block 1's winners; only segment_counts sees it
    from tests.faulty._crossblock_faults import reshuffled

    target = kit.small_target("robots", 100, blocks=2)
    first = kit.prizes_of(target.blocks["robots-100-0001"][1])
    second = reshuffled(first, kit.ROBOTS_UNITS // 100, b"small chunks")
    _second_block(target, second.tolist())
    outcomes = run_all(target, WHOLE)
    assert failed(outcomes) == {"robots.randomness.unrelated_blocks"}
    assert "segment_counts.100 p=0" in outcomes["blocks.unrelated_blocks"].message


def _unrelated_on_whole_blocks(service: Any, game: str) -> CheckOutcome:
    """``blocks.unrelated_blocks`` alone on ``game``'s whole listed blocks of the reference
    over ``service`` (a ``BlockService`` fault, or None for the reference itself)."""
    from tests.faulty._base import reference_adapter

    adapter = reference_adapter(service, "unrelated") if service else reference_adapter()
    try:
        ctx = CheckContext(adapter, adapter.describe(), {**WHOLE, "games": [game]}, 4)
        return execute(registered_checks()["blocks.unrelated_blocks"], ctx)
    finally:
        adapter.close()


@pytest.mark.slow
@pytest.mark.parametrize("game", ["robots", "eldorado"])
def test_whole_reference_blocks_pass_unrelated_blocks(game: str) -> None:
    outcome = _unrelated_on_whole_blocks(None, game)
    assert outcome.outcome == "pass", outcome.message
    compared = outcome.details["compared"]
    # eldorado: blocks 1 and 2 of each two of the three stakes
    assert sum("across_stakes" in v for v in compared.values()) == (6 if game == "eldorado" else 0)


@pytest.mark.slow
def test_whole_eldorado_blocks_sharing_a_layout_across_stakes_fail_unrelated_blocks() -> None:
    from tests.faulty._crossblock_faults import CrossStakeLayout

    outcome = _unrelated_on_whole_blocks(CrossStakeLayout, "eldorado")
    assert outcome.outcome == "fail"
    assert set(outcome.requirements) == {"eldorado.randomness.unrelated_blocks"}
    rejected = {k for k, v in outcome.details["compared"].items() if v["rejected"]}
    assert rejected == {
        f"eldorado-{a}-000{n}~eldorado-{b}-000{n}"
        for n in (1, 2)
        for a, b in ((50, 100), (50, 200), (100, 200))
    }


@pytest.mark.slow
def test_a_whole_robots_block_reshuffled_chunk_by_chunk_fails_unrelated_blocks() -> None:
    from tests.faulty._crossblock_faults import ChunkReshuffled

    outcome = _unrelated_on_whole_blocks(ChunkReshuffled, "robots")
    assert outcome.outcome == "fail"
    assert set(outcome.requirements) == {"robots.randomness.unrelated_blocks"}
    (pair,) = outcome.details["compared"].values()
    assert pair["p_values"]["segment_counts.100"] < 1e-6


@pytest.mark.usefixtures("small_rules")
def test_top_prizes_early_fail_top_tiers() -> None:
    # block 1's top prizes swapped into its first tenth; block 2 is correct, so the two blocks
    # stay unrelated (that family holds its level while one block is random) and only the
    # pooled top tiers (and block 1's own tiers) show the fault
    target = kit.small_target("robots", 100, blocks=2)
    for block_id in ("robots-100-0001",):
        prizes = kit.prizes_of(target.blocks[block_id][1]).tolist()
        top = [i for i, p in enumerate(prizes) if p >= 1000]  # 40 + 2 units: the top tiers
        early = [i for i, p in enumerate(prizes[: len(prizes) // 10]) if p == 0]
        for i, j in zip(top, early, strict=False):
            prizes[i], prizes[j] = prizes[j], prizes[i]
        head, _lines = target.blocks[block_id]
        target.blocks[block_id] = (head, kit.unit_lines("robots", 100, prizes))
    outcomes = run_all(target, WHOLE)
    assert "robots.randomness.top_tiers" in failed(outcomes)
    assert failed(outcomes) <= {"robots.randomness.top_tiers", "robots.randomness.winner_positions"}
    assert "ks" in outcomes["blocks.top_tiers"].message


@pytest.mark.usefixtures("small_rules")
def test_a_layout_more_even_than_chance_fails_winner_positions() -> None:
    # every run of 100 units holds exactly its share of the winners (33 or 34), shuffled
    target = kit.small_target("robots", 100, blocks=2)
    prizes = kit.prizes_of(target.blocks["robots-100-0001"][1]).tolist()
    winners = [p for p in prizes if p]
    random.Random(5).shuffle(winners)
    strata = kit.ROBOTS_UNITS // 100
    order: list[int] = []
    for stratum in range(strata):
        lo, hi = stratum * len(winners) // strata, (stratum + 1) * len(winners) // strata
        run = winners[lo:hi] + [0] * (100 - (hi - lo))
        random.Random(stratum).shuffle(run)
        order += run
    assert sorted(order) == sorted(prizes)
    head, _lines = target.blocks["robots-100-0001"]
    target.blocks["robots-100-0001"] = (head, kit.unit_lines("robots", 100, order))
    outcomes = run_all(target, WHOLE)
    assert failed(outcomes) == {"robots.randomness.winner_positions"}
    assert "chi2.winners" in outcomes["blocks.randomness"].message


@pytest.mark.usefixtures("small_rules")
def test_slices_that_disagree_with_the_whole_fail_the_slice_requirement() -> None:
    target = kit.small_target("robots", 100)

    def other_ticket(first: int, size: int, part: list[bytes]) -> list[bytes]:
        last = json.loads(part[-1])
        other = kit.unit_line("robots", 100, first + size - 1, last["prize_cents"], 12345)
        assert other != part[-1]
        return [*part[:-1], other]

    target.slice_hook = other_ticket
    outcomes = run_all(target, WHOLE)
    assert failed(outcomes) == {"blocks.contract3.slice"}


class CutStream:
    """A stream whose lines end after 100 units: cleanly (well-formed, lacking units), or
    with the ``ProtocolViolation`` the HTTP adapter raises when the body is cut mid-line."""

    def __init__(self, head: dict[str, Any], lines: list[bytes], violation: bool) -> None:
        self.header = head
        self._lines = lines
        self._violation = violation

    def lines(self) -> Iterator[bytes]:
        yield from self._lines[:100]
        if self._violation:
            raise ProtocolViolation(
                "GET /v1/blocks/x: the stream ends in the middle of unit line 100: b'{\"ind'"
            )

    def close(self) -> None:
        pass


def cut_target(violation: bool) -> Any:
    target = kit.small_target("robots", 100)
    served = target.read_block

    def read_block(block_id: str, start: int | None = None, count: int | None = None) -> Any:
        stream = served(block_id, start, count)
        if start is None:
            return CutStream(stream.header, list(stream.lines()), violation)
        return stream

    target.read_block = read_block  # type: ignore[method-assign]
    return target


@pytest.mark.usefixtures("small_rules")
def test_a_block_lacking_units_fails_the_unit_sequence() -> None:
    outcomes = run_all(cut_target(violation=False), WHOLE)
    assert "robots.2.unit_sequence" in failed(outcomes)
    assert outcomes["blocks.unit_sequence"].outcome == "fail"
    message = outcomes["blocks.unit_sequence"].message
    assert "robots.2.unit_sequence" in message


@pytest.mark.usefixtures("small_rules")
def test_a_stream_the_target_breaks_is_an_error_not_a_fault() -> None:
    outcomes = run_all(cut_target(violation=True), WHOLE)
    for check_id, outcome in outcomes.items():
        if check_id == "blocks.unrelated_blocks":
            continue  # one block listed: not supported
        if check_id == "blocks.slice_bounds" and outcome.outcome == "pass":
            continue  # its short slices at the block's edges need not meet the cut
        assert outcome.outcome == "error", (check_id, outcome.outcome, outcome.message)
        assert "in the middle of unit line 100" in outcome.message


@pytest.mark.usefixtures("small_rules")
def test_sample_mode_reads_a_seeded_slice_and_catches_unit_faults() -> None:
    target = broken(lie)
    outcomes = run_all(target, SAMPLE, seed=9)
    details = outcomes["blocks.header"].details["blocks"][0]
    assert details["count"] == 1500 and details["audited_units"] == 1500
    lie_at = first(target.blocks["robots-100-0001"][1], 0)
    start = details["start"]
    if start <= lie_at < start + 1500:
        assert failed(outcomes) == {"robots.3.unit_prize"}
    else:
        assert failed(outcomes) == set()
    # no whole-block verdicts on a slice: lot counts and payout stay unjudged
    assert outcomes["blocks.lot_table"].outcome == "pass"


@pytest.mark.usefixtures("small_rules")
def test_evidence_replays_against_the_target() -> None:
    target = broken(lie)
    outcomes = run_all(target, WHOLE)
    (unit,) = [
        e for e in outcomes["blocks.unit_prize"].evidence if e["input"]["kind"] == "block_unit"
    ]
    assert unit["input"]["aspect"] == "unit_prize"
    assert replay(target, unit["input"]) is not None
    block = outcomes["blocks.lot_table"].evidence[0]["input"]
    assert block["kind"] == "block"
    assert replay(target, block) is not None
    fixed = kit.small_target("robots", 100)
    assert replay(fixed, unit["input"]) is None
    assert replay(fixed, block) is None


@pytest.mark.usefixtures("small_rules")
def test_audit_block_file_runs_the_same_checks(tmp_path: Path) -> None:
    target = kit.small_target("eldorado", 100)
    head, lines = target.blocks["eldorado-100-0001"]
    good = tmp_path / "good.jsonl.gz"
    good.write_bytes(gzip.compress(kit.document(head, lines)))
    result = audit_block_file(good)
    assert result.passed, {c: o.message for c, o in result.outcomes.items() if o.outcome != "pass"}
    assert result.requirements["eldorado.3.2.lot_table"] == "pass"
    # one file, one block: the cross-block requirement a reservation saying how to lift it
    assert result.requirements["eldorado.randomness.unrelated_blocks"] == "reserved"
    (reservation,) = result.outcomes["blocks.unrelated_blocks"].reservations
    assert reservation["kind"] == "unverifiable" and "audit-block" in reservation["lift"]
    assert "robots.3.lot_table" not in result.requirements
    (block,) = result.blocks
    assert block["lots_observed"] == {
        str(k): v for k, v in sorted(kit.small_lots("eldorado").items())
    }
    assert block["payout_cents"] * 100 == 70 * block["face_value_cents"]
    assert len(block["cumulative_payout"]) <= 500 and block["p_values"]

    bad = tmp_path / "bad.jsonl"
    _, wrong = swap_lot_eldorado(head, list(lines))
    bad.write_bytes(kit.document(head, wrong))
    result = audit_block_file(bad)
    assert not result.passed
    assert {r for r, o in result.requirements.items() if o == "fail"} == {"eldorado.3.2.lot_table"}


def swap_lot_eldorado(
    head: dict[str, Any], lines: list[bytes]
) -> tuple[dict[str, Any], list[bytes]]:
    at = first(lines, 500)
    lines[at] = kit.unit_line("eldorado", 100, at, 300)
    return head, lines


@pytest.mark.usefixtures("small_rules")
def test_a_file_holding_a_slice_is_audited_as_a_slice(tmp_path: Path) -> None:
    target = kit.small_target("robots", 100)
    head, lines = target.blocks["robots-100-0001"]
    path = tmp_path / "part.jsonl"
    path.write_bytes(kit.document({**head, "start": 1000, "count": 800}, lines[1000:1800]))
    result = audit_block_file(path)
    assert result.passed, {c: o.message for c, o in result.outcomes.items() if o.outcome != "pass"}
    (block,) = result.blocks
    assert block["audited_units"] == 800
    assert np.isclose(block["face_value_cents"], 800 * 100)


@pytest.mark.parametrize("field", ["start", "count", "units"])
def test_header_integers_past_any_block_are_header_faults(tmp_path: Path, field: str) -> None:
    """A header's start, count or units of 10**30 (JSON integers have no bound) is a header
    fault of the file, never an OverflowError ending the checks in error."""
    target = kit.small_target("robots", 100)
    head, lines = target.blocks["robots-100-0001"]
    path = tmp_path / "huge.jsonl"
    path.write_bytes(
        kit.document({**head, "start": 1000, "count": 800, field: 10**30}, lines[1000:1800])
    )
    result = audit_block_file(path)
    assert not [c for c, o in result.outcomes.items() if o.outcome == "error"], {
        c: o.message[-300:] for c, o in result.outcomes.items() if o.outcome == "error"
    }
    assert result.requirements["blocks.contract3.header"] == "fail"
    assert "out of range" in result.outcomes["blocks.header"].message + "".join(
        str(e) for e in result.outcomes["blocks.header"].evidence
    )


@pytest.mark.slow
def test_a_whole_reference_robots_block_file_passes(tmp_path: Path) -> None:
    from reference._blockfile import write_block_file
    from reference._blocks import Block, default_block_id

    # not the README's old example seed (000102...1f): its block fails the public-seed check
    block = Block("robots", 100, default_block_id("robots", 100, 1), TEST_SEED)
    path = tmp_path / "robots.jsonl.gz"
    write_block_file(path, block)
    result = audit_block_file(path)
    assert result.passed, {c: o.message for c, o in result.outcomes.items() if o.outcome != "pass"}
    (audited,) = result.blocks
    document = hashlib.sha256()  # the SHA-256 is of the document bytes, uncompressed
    with gzip.open(path, "rb") as f:
        for piece in iter(lambda: f.read(1 << 20), b""):
            document.update(piece)
    assert audited["sha256"] == document.hexdigest()
    assert audited["lots_observed"] == {
        str(k): v for k, v in sorted(Expectation.from_rules("robots", 100).lots.items())
    }


def test_requirement_of_maps_aspects_to_catalogue_ids() -> None:
    from conformance import load_catalogue

    catalogue = load_catalogue()
    for game, stakes in (("robots", [100]), ("eldorado", [50, 100, 200])):
        for stake in stakes:
            for aspect in (
                "header",
                "block_size",
                "sequence",
                "unit_lines",
                "tickets",
                "unit_prize",
                "cumulated_gains",
                "lot_table",
                "payout_cap",
            ):
                assert block_checks.requirement_of(aspect, game, stake) in catalogue
    assert block_checks.requirement_of("lot_table", "eldorado", 50) == "eldorado.3.1.lot_table"
    covered = {
        r
        for c in registered_checks().values()
        if c.id.startswith("blocks.")
        for r in c.requirements
    }
    from importlib import resources

    import yaml

    ids = {
        r["id"]
        for r in yaml.safe_load(
            resources.files("conformance").joinpath("requirements", "blocks.yaml").read_text()
        )["requirements"]
    }
    assert covered == ids


@pytest.mark.parametrize("inflater", ["zlib", "isal"])
@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_a_file_target_serves_slices_before_and_after_a_whole_read(
    suffix: str, inflater: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance._audit import reader
    from conformance._file_target import FileTarget

    if inflater == "zlib":  # without isal, or a build without it: zlib and its checkpoints
        monkeypatch.setattr(reader, "_isal", None)
    elif reader._isal is None:  # pragma: no cover - isal is a dependency
        pytest.skip("python-isal is not installed")
    monkeypatch.setattr(reader, "CHUNK_BYTES", 5000)  # many chunks ...
    monkeypatch.setattr(reader, "RAW_READ", 700)  # ... and many checkpoints
    monkeypatch.setattr(reader, "CHECKPOINT_BYTES", 700)
    target = kit.small_target("robots", 100)
    head, lines = target.blocks["robots-100-0001"]
    data = kit.document(head, lines)
    path = tmp_path / f"b{suffix}"
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    served = FileTarget(path)

    def read(start: int | None, count: int | None) -> list[bytes]:
        stream = served.read_block("robots-100-0001", start, count)
        try:
            return list(stream.lines())
        finally:
            stream.close()

    probes = [(0, 1), (3999, 1), (1234, 50), (40, 7), (0, 4000)]
    before = {p: read(*p) for p in probes}
    assert read(None, None) == lines
    if suffix == ".jsonl" or inflater == "zlib":
        assert len(served._checkpoints) > 10 and len(served._chunk_starts) > 10
    else:  # an isal inflater cannot be copied: the slices come from a forward cursor
        assert served._checkpoints == []
    for start, count in probes:
        assert before[(start, count)] == read(start, count) == lines[start : start + count]
    # in order, as the slice check reads them, each read goes on from where the last stopped
    for start, count in sorted(probes):
        assert read(start, count) == lines[start : start + count]
        assert served._cursor is not None and served._cursor[0] == start + count


def test_block_file_of_sees_through_the_seams_wrappers_and_nothing_else(tmp_path: Path) -> None:
    from conformance._file_target import block_file_of, open_file_target
    from contract import Validated

    head, lines = kit.small_target("robots", 100).blocks["robots-100-0001"]
    path = tmp_path / "whole.jsonl"
    path.write_bytes(kit.document(head, lines))
    target = open_file_target(path)

    class Guard:  # as harness._budget.GuardedAdapter keeps the run's adapter
        def __init__(self, underlying: object) -> None:
            self.underlying = underlying

    class Raising:  # a vendor adapter whose attribute raises: simply not a block file
        @property
        def underlying(self) -> object:
            raise ValueError("no such thing")

    assert block_file_of(Validated(Guard(Validated(target)))) is target  # type: ignore[arg-type]
    assert block_file_of(Raising()) is None
    assert block_file_of(kit.small_target("robots", 100)) is None
