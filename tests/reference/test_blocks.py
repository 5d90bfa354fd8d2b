"""Blocks: unit i computable alone from (seed, i), exact lot counts, every unit its prize."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections import Counter
from typing import Any

import numpy as np
import pytest
import scipy.stats  # type: ignore[import-untyped]

import reference
import reference.robots
from reference import (
    Block,
    BlockError,
    FeistelPermutation,
    Unit,
    _blocks,
    _robots_make,
    _scenarios,
    default_block_id,
    new_seed,
    probe_prizes,
)

SEED = bytes(range(32))
STAKES = [(g, s) for g in reference.GAMES for s in reference.load_rules(g).stakes_cents]


def block(game: str = "robots", stake: int = 100, seed: bytes = SEED, number: int = 1) -> Block:
    return Block(game, stake, default_block_id(game, stake, number), seed)


# -- the permutation --------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 17, 1000, 4097, 65536, 100_003])
def test_feistel_is_a_permutation_with_an_inverse(size: int) -> None:
    perm = FeistelPermutation(b"k" * 32, size)
    image = [perm(x) for x in range(size)]
    assert sorted(image) == list(range(size))
    assert all(perm.inverse(y) == x for x, y in enumerate(image))
    if size > 1000:
        assert image != list(range(size))
        assert image != [perm(x) for x in range(size)][::-1]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 17, 1000, 4097, 100_003, 900_000])
def test_feistel_many_is_the_same_permutation(size: int) -> None:
    """The vectorised path is the one-index path, cycle walking included."""
    perm = FeistelPermutation(bytes(range(7, 39)), size)
    xs = list(range(size)) if size <= 5000 else random.Random(size).sample(range(size), 5000)
    one_by_one = [perm(x) for x in xs]
    for compiled in (True, False):  # the C network (_fastlines.c) and numpy's
        assert perm.many(np.array(xs, dtype=np.int64), compiled=compiled).tolist() == one_by_one
        if size <= 100_003:
            whole = perm.many(np.arange(size), compiled=compiled)
            assert sorted(whole.tolist()) == list(range(size))


@pytest.mark.parametrize("size", [1, 3, 4097, 2_000_000])
def test_feistel_untabulated_is_the_same_permutation(size: int) -> None:
    """Round functions evaluated where asked give the tabulated permutation, both ways."""
    key = bytes(range(3, 35))
    whole, lazy = FeistelPermutation(key, size), FeistelPermutation(key, size, tabulate=False)
    xs = random.Random(size).sample(range(size), min(size, 300))
    assert [lazy(x) for x in xs] == [whole(x) for x in xs]
    assert [lazy.inverse(whole(x)) for x in xs] == xs
    with pytest.raises(ValueError, match="tabulate=False"):
        lazy.many(np.array(xs, dtype=np.int64))


@pytest.mark.parametrize(("game", "stake"), [("robots", 100), ("eldorado", 200)])
def test_probe_prizes_are_the_blocks_prizes(game: str, stake: int) -> None:
    block = Block(game, stake, default_block_id(game, stake, 3), SEED)
    at = random.Random(7).sample(range(block.units), 200)
    assert probe_prizes(game, stake, block.block_id, SEED, at) == [block.prize_cents(i) for i in at]
    with pytest.raises(BlockError, match="seed"):
        probe_prizes(game, stake, block.block_id, b"short", at)


def test_feistel_depends_on_its_key_and_checks_its_domain() -> None:
    pa, pb = FeistelPermutation(b"a" * 32, 5000), FeistelPermutation(b"b" * 32, 5000)
    a, b = [pa(x) for x in range(5000)], [pb(x) for x in range(5000)]
    assert sum(x == y for x, y in zip(a, b, strict=True)) < 20  # about 1 expected
    perm = FeistelPermutation(b"a" * 32, 10)
    for bad in (-1, 10, 2.0, "3"):
        with pytest.raises(ValueError, match=repr(bad)):
            perm(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="16 to 64 bytes"):
        FeistelPermutation(b"short", 10)


# -- units ------------------------------------------------------------------------------------


def test_unit_json_line_is_compact_json_in_a_fixed_order() -> None:
    unit = Unit(12, 300, "YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS")
    line = unit.to_json_line()
    assert line == (
        b'{"index":12,"prize_cents":300,"ticket":"YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS"}'
    )
    assert line == json.dumps(json.loads(line), separators=(",", ":")).encode()


def test_ids_and_seeds() -> None:
    assert default_block_id("robots", 100, 1) == "robots-100-0001"
    assert default_block_id("eldorado", 50, 12345) == "eldorado-50-12345"
    with pytest.raises(BlockError, match="0"):
        default_block_id("robots", 100, 0)
    with pytest.raises(reference.StakeError):
        default_block_id("robots", 50, 1)
    seeds = {new_seed() for _ in range(10)}
    assert len(seeds) == 10 and all(len(s) == 32 for s in seeds)


@pytest.mark.parametrize(
    ("args", "error", "shown"),
    [
        (("poker", 100, "b", SEED), reference.UnknownGameError, "'poker'"),
        (("eldorado", 75, "b", SEED), reference.StakeError, "75"),
        (("robots", 100, "", SEED), BlockError, "''"),
        (("robots", 100, "a/b", SEED), BlockError, "'a/b'"),
        (("robots", 100, 7, SEED), BlockError, "int"),
        (("robots", 100, "b", SEED[:31]), BlockError, "bytes of length 31"),
        (("robots", 100, "b", SEED.hex()), BlockError, "str of length 64"),
        (("robots", 100, "b", None), BlockError, "NoneType, expected 32 bytes"),
    ],
)
def test_bad_block_arguments_are_named(args: tuple[object, ...], error: type, shown: str) -> None:
    with pytest.raises(error, match=shown) as caught:
        Block(*args)  # type: ignore[arg-type]
    assert SEED.hex() not in str(caught.value)  # a seed is never shown


def test_lot_layout_is_the_lot_table() -> None:
    for game, stake in STAKES:
        b = block(game, stake)
        table = reference.load_rules(game).lot_table(stake)
        counts: Counter[int] = Counter()
        previous = 0
        for end, prize in zip(b._ends, b._prizes, strict=True):
            counts[prize] += end - previous
            previous = end
        assert previous == b.units == table.block_units
        assert dict(counts) == table.counts()


def test_unit_alone_equals_the_slice_of_the_whole() -> None:
    b = block()
    whole = list(b.iter_units(1000, 300))
    assert [u.index for u in whole] == list(range(1000, 1300))
    alone = [b.unit(i) for i in reversed(range(1000, 1300))][::-1]
    assert alone == whole
    fresh = block()  # another object, same definition
    assert [fresh.unit(i) for i in (1299, 1000, 1150)] == [whole[299], whole[0], whole[150]]
    assert b.render(1000, 300) == b"".join(u.to_json_line() + b"\n" for u in whole)
    assert [b.prize_cents(u.index) for u in whole] == [u.prize_cents for u in whole]
    last = b.unit(b.units - 1)
    assert last.index == b.units - 1


def test_document_lines_header_then_units() -> None:
    b = block("eldorado", 200)
    lines = list(b.document_lines(899_000, 1000))
    assert all(line.endswith(b"\n") and line.count(b"\n") == 1 for line in lines)
    header = json.loads(lines[0])
    assert header == b.header(899_000, 1000)
    assert header["format"] == "block/1"
    assert (header["game"], header["stake_cents"], header["block_id"]) == (
        "eldorado",
        200,
        "eldorado-200-0001",
    )
    assert (header["units"], header["start"], header["count"]) == (900_000, 899_000, 1000)
    assert header["generator"]["name"] == "instantcert-reference"
    assert header["seed_sha256"] == hashlib.sha256(SEED).hexdigest()
    assert SEED.hex() not in lines[0].decode() and SEED.hex() not in repr(b)
    units = [json.loads(line) for line in lines[1:]]
    assert [u["index"] for u in units] == list(range(899_000, 900_000))
    assert lines[1:] == [b.unit(u["index"]).to_json_line() + b"\n" for u in units]
    assert len(list(b.document_lines(900_000))) == 1  # an empty slice is a header alone


@pytest.mark.parametrize(
    ("start", "count", "shown"),
    [(-1, None, "-1"), (2_000_001, None, "2000001"), (10, 1_999_991, "1999991"), (0, -5, "-5")],
)
def test_bad_slices_are_named(start: int, count: int | None, shown: str) -> None:
    with pytest.raises(BlockError, match=shown):
        list(block().iter_units(start, count))
    with pytest.raises(BlockError, match=shown):
        block().header(start, count)
    for bad in (-1, 2_000_000, True):
        with pytest.raises(BlockError):
            block().unit(bad)


def test_different_seeds_ids_stakes_make_different_blocks() -> None:
    a = block()
    others = [block(seed=bytes(31) + b"\x01"), block(number=2)]
    first = [a.prize_cents(i) for i in range(3000)]
    for other in others:
        assert [other.prize_cents(i) for i in range(3000)] != first
        assert other.render(0, 50) != a.render(0, 50)
    e = [block("eldorado", s).render(0, 20).split(b'"ticket":')[1:] for s in (50, 100, 200)]
    assert e[0] != e[1] != e[2]


def test_winners_are_spread_without_pattern() -> None:
    """Winners per stretch of 5 000 units and per index parity: no clustering, no stride."""
    b = block(seed=bytes(range(100, 132)))
    wins = [b.prize_cents(i) > 0 for i in range(200_000)]
    share = sum(wins) / len(wins)
    table = reference.load_rules("robots").lot_table(100)
    assert abs(share - table.winning_units / table.block_units) < 0.005
    bins = [sum(wins[k : k + 5000]) for k in range(0, len(wins), 5000)]
    expected = 5000 * share
    statistic = sum((c - expected) ** 2 / expected for c in bins)
    assert scipy.stats.chi2.sf(statistic, len(bins) - 1) > 1e-4
    # runs test: a winner is followed by a winner about as often as anything is a winner
    pairs = sum(a and b for a, b in itertools.pairwise(wins)) / sum(wins[:-1])
    assert abs(pairs - share) < 0.01


def test_a_sample_of_every_block_evaluates_to_its_prizes() -> None:
    rng = random.Random(4)
    for game, stake in STAKES:
        b = block(game, stake, seed=rng.randbytes(32))
        seen: Counter[int] = Counter()
        for index in rng.sample(range(b.units), 3000):
            unit = b.unit(index)
            assert reference.prize_cents(game, stake, unit.ticket) == unit.prize_cents
            seen[unit.prize_cents] += 1
        table = reference.load_rules(game).lot_table(stake)
        # the losing share is about 70 % (robots) or 83 % (eldorado) of 3 000 units
        losing = 3000 * table.losing_units / table.block_units
        assert abs(seen[0] - losing) < 5 * losing**0.5, seen
        # the biggest lots (a few units per block) almost never show in 3 000 draws
        assert set(seen) <= set(table.counts())


def test_philox_words_are_the_published_function() -> None:
    """The scenario words are Philox4x64-10 of (key, counter): Random123's known answers pin
    the primitive numpy computes, and unit i's words start at counter BLOCKS * i."""
    zero = [0x16554D9ECA36314C, 0xDB20FE9D672D0FDC, 0xD7E772CEE186176B, 0x7E68B68AEC7BA23B]
    assert _scenarios.unit_words(0, 0, 1)[0, :4].tolist() == zero
    ones = np.random.Philox(key=(1 << 128) - 1, counter=(1 << 256) - 2).random_raw(4)
    expected = [0x87B092C3013FE90B, 0x438C3C67BE8D0224, 0x9CC7D7C69CD777B6, 0xA09CAEBF594F0BA0]
    assert ones.tolist() == expected
    key = 0x0123456789ABCDEF0123456789ABCDEF
    whole = _scenarios.unit_words(key, 0, 300)
    assert whole.shape == (300, _scenarios.WORDS)
    assert (_scenarios.unit_words(key, 123, 7) == whole[123:130]).all()
    assert (_scenarios.unit_words(key, 299, 1) == whole[299:]).all()
    assert len(set(whole.ravel().tolist())) == whole.size  # no repeated word


def test_uniform_below_is_exact_and_unbiased() -> None:
    """floor(w * n / 2^64), computed in 64-bit halves, equals the exact integer result."""
    rng = random.Random(5)
    words = [rng.getrandbits(64) for _ in range(2000)] + [0, 1, (1 << 64) - 1, 1 << 63]
    for n in (1, 2, 3, 6, 18, 120, 4096, 40320, (1 << 32) - 1):
        got = _scenarios.uniform_below(np.array(words, dtype=np.uint64), n).tolist()
        assert got == [w * n >> 64 for w in words]
    # every value is reached: the smallest word giving j is ceil(j * 2^64 / n)
    n = 40320
    firsts = np.array([-(-j * (1 << 64) // n) for j in range(n)], dtype=np.uint64)
    assert _scenarios.uniform_below(firsts, n).tolist() == list(range(n))


@pytest.mark.parametrize(("game", "stake"), STAKES)
def test_every_unit_of_a_large_sample_evaluates_to_its_prize(game: str, stake: int) -> None:
    """Slices from all over the block, every line re-evaluated by the reference evaluator."""
    b = block(game, stake, seed=bytes(range(stake % 7, stake % 7 + 32)))
    rng = random.Random(game + str(stake))
    seen: Counter[int] = Counter()
    for start in [0, b.units - 5000, *rng.sample(range(b.units - 5000), 10)]:
        for line in b.render(start, 5000).splitlines():
            unit = json.loads(line)
            assert reference.prize_cents(game, stake, unit["ticket"]) == unit["prize_cents"], unit
            seen[unit["prize_cents"]] += 1
    assert set(seen) <= set(reference.load_rules(game).lot_table(stake).counts())
    assert len(seen) >= 5  # the common lots and the losing units all show


def test_unit_i_is_the_same_in_every_slice_and_batch() -> None:
    """Batches of tickets are computed together: their edges must not show in the bytes."""
    for game, stake in (("robots", 100), ("eldorado", 50)):
        b = block(game, stake)
        edge = _blocks.BATCH
        whole = b.render(0, 3 * edge + 5).splitlines(keepends=True)
        for start, count in ((0, 1), (edge - 1, 2), (edge - 3, edge + 7), (1, 3 * edge + 4)):
            assert b.render(start, count).splitlines(keepends=True) == whole[start : start + count]
        for index in (0, edge - 1, edge, 2 * edge + 1, 3 * edge + 4):
            assert b.unit(index).to_json_line() + b"\n" == whole[index]
        units = list(b.iter_units(edge - 2, 4))
        assert [u.to_json_line() + b"\n" for u in units] == whole[edge - 2 : edge + 2]


def test_every_robot_order_is_reachable_and_placed_uniformly() -> None:
    """R-I1 over a whole block: each of the 8! orders occurs, each symbol at each place about
    1/8 of the time, the orders themselves uniform (chi-squared over the 40 320)."""
    b = block()
    pools = b._pools
    assert isinstance(pools, _robots_make.RobotsPools)
    orders = np.concatenate(
        [
            _scenarios.uniform_below(
                _scenarios.unit_words(b._scenario_key, at, 200_000)[:, 1], len(pools.orders)
            )
            for at in range(0, b.units, 200_000)
        ]
    )
    counts = np.bincount(orders, minlength=40320)
    assert len(counts) == 40320 and counts.min() > 0
    expected = b.units / 40320
    assert scipy.stats.chi2.sf(((counts - expected) ** 2 / expected).sum(), 40319) > 1e-4
    places = np.zeros((8, 256), dtype=np.int64)
    for position in range(8):
        places[position] = np.bincount(pools.orders[orders, position], minlength=256)
    letters = [ord(s.letter) for s in reference.robots.robots_rules().symbols]
    share = places[:, letters] / b.units
    assert abs(share - 1 / 8).max() < 0.002
    # and the rendered tickets show exactly these orders
    for line in b.render(777, 50).splitlines():
        index, ticket = json.loads(line)["index"], json.loads(line)["ticket"]
        assert ticket[:8].encode() == pools.orders[orders[index]].tobytes()


def test_pools_are_seeded_and_capped_by_the_lot_counts() -> None:
    a, again, other = block(), block(), block(seed=bytes(31) + b"\x07")
    assert a._pools.scenarios(300)[:50] == again._pools.scenarios(300)[:50]
    assert a._pools.scenarios(300)[:50] != other._pools.scenarios(300)[:50]
    assert a._pools.scenarios(300)[:50] != a._pools.scenarios(200)[:50]
    table = reference.load_rules("robots").lot_table(100)
    for lot in table.lots:
        size = min(_scenarios.POOL_SCENARIOS, lot.units)
        assert a._pools.pool_size(lot.prize_cents) == size
    assert a._pools.pool_size(0) == _scenarios.POOL_SCENARIOS
    assert len(a._pools.pool(1_000_000)) == 2  # a lot of 2 units draws 2 scenarios


def test_a_block_built_again_takes_the_pools_and_tables_drawn_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The process keeps the pools and the permutation tables it drew (speed only: a service
    built again over the same seed, a test's target made again): a block built again over the
    same seed draws nothing and shows the same bytes; another seed, stake or size draws its own."""
    drawn: list[tuple[bytes, int]] = []
    scenarios = _scenarios.ScenarioPools.scenarios

    def counted(pools: _scenarios.ScenarioPools, prize: int) -> list[str]:
        drawn.append((pools._pool_key, prize))
        return scenarios(pools, prize)

    monkeypatch.setattr(_scenarios.ScenarioPools, "scenarios", counted)
    monkeypatch.setattr(_scenarios, "_DRAWN", _scenarios._DrawnPools(_scenarios.MAX_DRAWN_BYTES))
    seed = bytes(31) + b"\x2a"
    first = block(seed=seed).render(0, 300)
    assert drawn
    before = len(drawn)
    again = block(seed=seed)
    assert again.render(0, 300) == first and len(drawn) == before
    assert again._permutation._tables is block(seed=seed)._permutation._tables
    block(seed=bytes(31) + b"\x2b").render(0, 300)  # another seed: its own pools
    assert len(drawn) > before
    other = block("eldorado", 50, seed=seed)
    assert other._permutation._tables is not again._permutation._tables
    # the cache keeps the newest pools within its bytes
    small = _scenarios._DrawnPools(max_bytes=1000)
    pools = [np.frombuffer(bytes(600), np.uint8) for _ in range(3)]
    for key, pool in enumerate(pools):
        assert small.put(key, pool) is pool
    assert small.get(0) is None and small.get(1) is None and small.get(2) is pools[2]


def test_the_algorithm_is_frozen() -> None:
    """Same seed, same bytes, on any machine and any version: reproducibility is the contract.

    A change here changes every block ever generated; it needs a new generator version.
    """
    digests = {
        (g, s): hashlib.sha256(block(g, s).render(0, 2000)).hexdigest()[:16] for g, s in STAKES
    }
    assert digests == GOLDEN


GOLDEN: dict[tuple[str, int], str] = {  # generator of issue 12: pools + keyed transformations
    ("robots", 100): "a101f2f0283282c0",
    ("eldorado", 50): "61e5d247913ef3c8",
    ("eldorado", 100): "bd55c6d9f011fd91",
    ("eldorado", 200): "181f3c80afb738a6",
}


@pytest.mark.slow
@pytest.mark.parametrize(("game", "stake"), STAKES)
def test_full_block_lot_counts_are_exact(game: str, stake: int) -> None:
    b = block(game, stake, seed=new_seed())
    counts = Counter(b.prize_cents(i) for i in range(b.units))
    assert dict(counts) == reference.load_rules(game).lot_table(stake).counts()


@pytest.mark.parametrize(("game", "stake"), STAKES)
def test_render_assembles_the_very_lines_of_the_units(game: str, stake: int) -> None:
    """``render`` lays whole batches out in numpy (``unit_lines``); every slice is the bytes of
    its units' ``to_json_line``: across powers of ten of the index, batch edges, the block's
    end, a single unit, an empty slice, and batches holding only losing units (prize "0")."""
    b = block(game, stake)
    cuts = [(0, 0), (0, 1), (7, 1), (9_990, 25), (99_990, 25), (4_090, 10), (0, 5_000)]
    cuts += [(b.units - 3_000, 3_000), (b.units - 1, 1), (123_457, 2 * 4_096 + 3)]
    for start, count in cuts:
        expected = b"".join(u.to_json_line() + b"\n" for u in b.iter_units(start, count))
        assert b.render(start, count) == expected, (start, count)
    losing = [i for i in range(2_000) if b.prize_cents(i) == 0][:40]
    assert all(b.render(i, 1) == b.unit(i).to_json_line() + b"\n" for i in losing[:5])


def test_a_game_gives_its_tickets_as_bytes_or_as_rows_or_both() -> None:
    """``ScenarioPools``: a subclass defines ``_show`` (ticket bytes), ``_rows`` (zero-padded
    rows) or both, and ``tickets`` and ``padded_tickets`` agree whichever; one defining
    neither is refused by name."""
    plain = block("robots")._pools
    words = reference._scenarios.unit_words(7, 0, 50)
    prizes = np.array([0, 100, 0, 200, 300] * 10, dtype=np.int64)

    class ShowOnly(reference.ScenarioPools):
        def _encode(self, scenarios: list[str]) -> np.ndarray:
            return plain._encode(scenarios)

        def _show(self, pool: Any, choice: Any, words: Any, selected: Any) -> list[bytes]:
            return plain._show(pool, choice, words, selected)

    class Neither(reference.ScenarioPools):
        def _encode(self, scenarios: list[str]) -> np.ndarray:
            return plain._encode(scenarios)

    args = ("robots", 100, plain._maker, plain._pool_key, plain._sizes)
    shown = ShowOnly(*args)
    assert shown.tickets(words, prizes) == plain.tickets(words, prizes)
    rows = shown.padded_tickets(words, prizes)
    assert [bytes(r[r != 0]) for r in rows] == plain.tickets(words, prizes)
    with pytest.raises(NotImplementedError, match="Neither defines neither _show nor _rows"):
        Neither(*args).tickets(words, prizes)
