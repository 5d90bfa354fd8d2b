"""Block files: the block/1 document, plain or one gzip member, the same bytes for any workers."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import reference
from reference import Block, BlockError, _blockfile, default_block_id, write_block_file

SEED = bytes(range(32, 64))


def block(game: str = "robots", stake: int = 100, seed: bytes = SEED) -> Block:
    return Block(game, stake, default_block_id(game, stake, 1), seed)


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> int:
    """Chunks of 1 000 units, so a few thousand units span several chunks and workers."""
    monkeypatch.setattr(_blockfile, "CHUNK_UNITS", 1000)
    return 1000


def document(b: Block, start: int, count: int) -> bytes:
    return b"".join(b.document_lines(start, count))


def test_crc32_combine_matches_zlib() -> None:
    rng = random.Random(2)
    for _ in range(200):
        a = rng.randbytes(rng.randrange(0, 3000))
        b = rng.randbytes(rng.choice([0, 1, 7, rng.randrange(0, 100_000)]))
        combined = _blockfile.crc32_combine(zlib.crc32(a), zlib.crc32(b), len(b))
        assert combined == zlib.crc32(a + b)


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_file_holds_the_block_document(tmp_path: Path, small_chunks: int, suffix: str) -> None:
    b = block("eldorado", 50)
    path = tmp_path / f"slice{suffix}"
    digest = write_block_file(path, b, 123_456, 3_500, workers=2)
    data = path.read_bytes()
    assert digest == hashlib.sha256(data).hexdigest()
    text = gzip.decompress(data) if suffix.endswith(".gz") else data
    assert text == document(b, 123_456, 3_500)
    header = json.loads(text.split(b"\n", 1)[0])
    assert (header["start"], header["count"], header["units"]) == (123_456, 3_500, 900_000)
    assert sorted(os.listdir(tmp_path)) == [path.name]  # nothing left aside


def test_gzip_is_one_reproducible_member(tmp_path: Path, small_chunks: int) -> None:
    path = tmp_path / "b.jsonl.gz"
    write_block_file(path, block(), 0, 2_500, workers=2)
    data = path.read_bytes()
    assert data[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # no name, mtime 0
    reader = zlib.decompressobj(wbits=31)
    text = reader.decompress(data)
    assert reader.eof and reader.unused_data == b""  # a single member, nothing after it
    assert text == document(block(), 0, 2_500)
    assert int.from_bytes(data[-4:], "little") == len(text)


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_same_bytes_whatever_the_workers(tmp_path: Path, small_chunks: int, suffix: str) -> None:
    b = block()
    digests = {
        workers: write_block_file(tmp_path / f"w{workers}{suffix}", b, 10, 4_321, workers=workers)
        for workers in (1, 2)
    }
    assert len(set(digests.values())) == 1
    again = write_block_file(tmp_path / f"again{suffix}", block(), 10, 4_321, workers=2)
    assert again == digests[1]


def test_slices_equal_the_whole(tmp_path: Path, small_chunks: int) -> None:
    b = block("eldorado", 200)
    write_block_file(tmp_path / "whole.jsonl.gz", b, 0, 6_000, workers=2)
    whole = gzip.decompress((tmp_path / "whole.jsonl.gz").read_bytes()).split(b"\n")[1:-1]
    for start, count in ((0, 1), (999, 2), (2_500, 3_500), (5_999, 1)):
        path = tmp_path / f"s{start}.jsonl"
        write_block_file(path, b, start, count, workers=2)
        assert path.read_bytes().split(b"\n")[1:-1] == whole[start : start + count]


def test_empty_slice_is_a_header_alone(tmp_path: Path) -> None:
    for suffix in (".jsonl", ".jsonl.gz"):
        path = tmp_path / f"empty{suffix}"
        write_block_file(path, block(), 2_000_000, 0)
        data = path.read_bytes()
        text = gzip.decompress(data) if suffix.endswith(".gz") else data
        assert text == block().header_line(2_000_000, 0)


def test_progress_reaches_the_total(tmp_path: Path, small_chunks: int) -> None:
    calls: list[tuple[int, int]] = []
    write_block_file(
        tmp_path / "p.jsonl",
        block(),
        5,
        2_200,
        workers=2,
        progress=lambda d, t: calls.append((d, t)),
    )
    assert calls == [(1000, 2200), (2000, 2200), (2200, 2200)]


def test_a_failure_leaves_no_file(tmp_path: Path, small_chunks: int) -> None:
    def stop(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_block_file(tmp_path / "x.jsonl.gz", block(), 0, 3_000, workers=2, progress=stop)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    ("name", "kwargs", "shown"),
    [
        ("b.json", {}, "'.*b.json'"),
        ("b.jsonl.bz2", {}, "jsonl.bz2"),
        ("b.jsonl", {"workers": 0}, "workers 0"),
        ("b.jsonl", {"start": 2_000_001}, "start 2000001"),
        ("b.jsonl", {"start": 10, "count": 1_999_991}, "count 1999991"),
    ],
)
def test_bad_arguments_are_named(
    tmp_path: Path, name: str, kwargs: dict[str, Any], shown: str
) -> None:
    with pytest.raises(BlockError, match=shown):
        write_block_file(tmp_path / name, block(), **kwargs)
    assert os.listdir(tmp_path) == []


def test_not_a_block(tmp_path: Path) -> None:
    with pytest.raises(BlockError, match="Block"):
        write_block_file(tmp_path / "b.jsonl", "robots")  # type: ignore[arg-type]


def read_block_file(path: Path) -> tuple[dict[str, object], list[dict[str, object]]]:
    with gzip.open(path, "rb") as stream:
        header = json.loads(stream.readline())
        return header, [json.loads(line) for line in stream]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "stake"),
    [(g, s) for g in reference.GAMES for s in reference.load_rules(g).stakes_cents],
)
def test_full_block_file_is_exact_and_every_unit_valid(
    tmp_path: Path, game: str, stake: int
) -> None:
    """What the independent audit does: exact lot counts, every ticket valid and its prize."""
    b = block(game, stake, seed=reference.new_seed())
    path = tmp_path / "full.jsonl.gz"
    write_block_file(path, b, workers=2)
    counts: Counter[int] = Counter()
    with gzip.open(path, "rb") as stream:
        header = json.loads(stream.readline())
        assert header == b.header()
        for expected, line in enumerate(stream):
            unit = json.loads(line)
            assert unit["index"] == expected
            assert reference.prize_cents(game, stake, unit["ticket"]) == unit["prize_cents"]
            counts[unit["prize_cents"]] += 1
    assert expected == b.units - 1
    assert dict(counts) == reference.load_rules(game).lot_table(stake).counts()
    # a slice cut from anywhere equals the same lines of the whole
    start = random.randrange(b.units - 20_000)
    write_block_file(tmp_path / "slice.jsonl", b, start, 20_000, workers=2)
    lines = (tmp_path / "slice.jsonl").read_bytes().split(b"\n")[1:-1]
    with gzip.open(path, "rb") as stream:
        whole = stream.read().split(b"\n")[1 + start : 1 + start + 20_000]
    assert lines == whole
