"""The block audit engine: exact on correct blocks, each fault caught under the right aspect."""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import reference
from conformance import _audit, _kernels
from conformance._audit import Expectation, audit, audit_chunk, audit_file, judge_line
from conformance._audit import judge as audit_judge
from conformance._audit import layout as audit_layout
from tests.conformance import blockkit as kit

GAMES = [("robots", 100), ("eldorado", 100)]
LOSING = b"DQTCSPHO|D D D T T C C C C C S S S S S S P P"


def run(game: str, stake: int, lines: list[bytes], **kw: object) -> _audit.BlockAudit:
    expect = kit.expectation(game, stake, **kw)  # type: ignore[arg-type]
    head = kit.header(game, stake, "test-1")
    if expect.start is not None:
        head = {**head, "start": expect.start, "count": expect.count}
    return audit(head, kit.chunked(lines), expect, workers=1)


def correct(game: str, stake: int, seed: int = 5) -> list[bytes]:
    return kit.unit_lines(game, stake, kit.shuffled_prizes(game, seed))


def aspects(result: _audit.BlockAudit) -> set[str]:
    return {a for a, n in result.fault_counts.items() if n}


@pytest.mark.parametrize(("game", "stake"), GAMES)
def test_a_correct_block_passes_and_is_tallied_exactly(game: str, stake: int) -> None:
    lines = correct(game, stake)
    result = run(game, stake, lines)
    assert result.faults == () and result.fault_counts == {}
    assert result.lots_observed == kit.small_lots(game)
    assert result.payout_cents * 100 == 70 * kit.small_units(game) * stake
    assert result.audited_units == kit.small_units(game)
    assert result.prizes.tolist() == kit.prizes_of(lines).tolist()
    assert result.cumulative_payout[-1] == [kit.small_units(game), result.payout_cents]


def test_the_two_workers_path_gives_the_same_audit() -> None:
    lines = correct("robots", 100)
    head = kit.header()
    one = audit(head, kit.chunked(lines), kit.expectation(), workers=1)
    two = audit(head, kit.chunked(lines, 300), kit.expectation(), workers=2)
    assert one.prizes.tolist() == two.prizes.tolist()
    assert (one.lots_observed, one.sha256, one.faults) == (
        two.lots_observed,
        two.sha256,
        two.faults,
    )


def faulty(lines: list[bytes]) -> list[bytes]:
    """A wrong prize, a bad ticket and a missing line, spread over the block."""
    bad = list(lines)
    unit = json.loads(bad[10])
    bad[10] = json.dumps({**unit, "prize_cents": unit["prize_cents"] + 1}).encode()
    bad[2500] = bad[2500][:-3] + b'x"}'
    del bad[3000]
    return bad


def uneven(lines: list[bytes]) -> Iterator[bytes]:
    """Whole-line chunks of 40 and 97 lines in turn (about 3 700 and 9 000 bytes)."""
    at = 0
    for size in itertools.cycle([40, 97]):
        if at >= len(lines):
            return
        yield b"".join(line + b"\n" for line in lines[at : at + size])
        at += size


@pytest.mark.parametrize("slot_bytes", [1 << 21, 6000])
def test_chunks_reach_the_workers_through_shared_slots_or_the_pipe_alike(
    slot_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks go to the workers through the ring's slots, reused as results come back, and a
    chunk too large for a slot through the pool's pipe: the audit is the same either way."""
    from conformance._audit import driver

    monkeypatch.setattr(driver, "RING_SLOT_BYTES", slot_bytes)  # 6 000: some fit, some not
    lines = faulty(correct("robots", 100))
    head = kit.header()
    sizes = [len(chunk) for chunk in uneven(lines)]
    assert len(sizes) > 4 * 2  # more chunks than slots: slots are reused
    if slot_bytes < (1 << 21):
        assert min(sizes) < slot_bytes - 32 < max(sizes)
    one = audit(head, kit.chunked(lines, 50), kit.expectation(), workers=1)
    two = audit(head, uneven(lines), kit.expectation(), workers=2)
    assert two.prizes.tolist() == one.prizes.tolist()
    assert (two.faults, two.fault_counts, two.sha256) == (one.faults, one.fault_counts, one.sha256)
    assert {f.aspect for f in two.faults} >= {"unit_prize", "tickets", "sequence"}


def test_audits_side_by_side_keep_their_own_chunks() -> None:
    """Two multi-worker audits at once (threads of one process) each judge their own block."""
    from concurrent.futures import ThreadPoolExecutor

    clean, bad = correct("robots", 100), faulty(correct("robots", 100, seed=9))
    alone = [
        audit(kit.header(), kit.chunked(lines), kit.expectation(), workers=1)
        for lines in (clean, bad)
    ]

    def both(lines: list[bytes]) -> _audit.BlockAudit:
        return audit(kit.header(), kit.chunked(lines, 40), kit.expectation(), workers=2)

    with ThreadPoolExecutor(2) as pool:
        together = list(pool.map(both, [clean, bad, clean, bad]))
    for got, want in zip(together, alone * 2, strict=True):
        assert got.prizes.tolist() == want.prizes.tolist()
        assert (got.faults, got.sha256) == (want.faults, want.sha256)


@pytest.mark.parametrize("workers", [1, 2])
def test_chunks_each_in_order_but_not_following_each_other_are_sequence_faults(
    workers: int,
) -> None:
    """A chunk whose lines are consecutive sends back only its first index; the breaks
    between such chunks (a chunk repeated, a chunk missing at a chunk's edge) are still found,
    each once, as when every index came back."""
    lines = correct("robots", 100)
    size = 700
    head = kit.header()

    def chunks(order: list[int]) -> Iterator[bytes]:
        for k in order:
            yield b"".join(line + b"\n" for line in lines[k * size : (k + 1) * size])

    every = len(lines) // size + (len(lines) % size > 0)
    clean = audit(head, chunks(list(range(every))), kit.expectation(), workers=workers)
    assert clean.faults == ()
    repeated = audit(head, chunks([0, 1, 1, *range(2, every)]), kit.expectation(), workers=workers)
    missing = audit(head, chunks([0, 1, *range(3, every)]), kit.expectation(), workers=workers)
    swapped = audit(head, chunks([0, 2, 1, *range(3, every)]), kit.expectation(), workers=workers)
    short = audit(head, chunks(list(range(every - 1))), kit.expectation(), workers=workers)
    last = (every - 1) * size
    assert f"unit(s) missing at the end: index {last}..{len(lines) - 1}" in " ".join(
        f.message for f in short.faults
    )
    said = [" ".join(f.message for f in r.faults) for r in (repeated, missing)]
    assert f"index {size} out of place (it comes back after index {2 * size - 1})" in said[0]
    assert f"{size} unit(s) missing: index {2 * size}..{3 * size - 1}" in said[1]
    assert repeated.fault_counts["sequence"] == 2  # the break, and the document's line count
    assert missing.fault_counts["sequence"] == 2
    assert swapped.fault_counts["sequence"] == 3  # 2 -> 1 and 1 -> 3: two breaks, in place
    assert swapped.audited_units == clean.audited_units


def test_sha256_is_that_of_the_document_bytes(tmp_path: Path) -> None:
    lines = correct("robots", 100)
    data = kit.document(kit.header(), lines)
    path = tmp_path / "b.jsonl.gz"
    path.write_bytes(gzip.compress(data))
    expect = kit.expectation(block_id=None)
    result = audit_file(path, expect, workers=1)
    assert result.sha256 == hashlib.sha256(data).hexdigest()
    assert result.faults == ()


def swap_unit(lines: list[bytes], game: str, stake: int, old: int, new: int) -> list[bytes]:
    """Replace the first unit of prize ``old`` by a correct unit of prize ``new``."""
    at = next(i for i, line in enumerate(lines) if json.loads(line)["prize_cents"] == old)
    return [*lines[:at], kit.unit_line(game, stake, at, new), *lines[at + 1 :]]


def test_one_lot_swapped_for_another_breaks_the_lot_table_only() -> None:
    result = run("robots", 100, swap_unit(correct("robots", 100), "robots", 100, 500, 300))
    assert aspects(result) == {"lot_table"}
    messages = " ".join(f.message for f in result.faults)
    assert "prize 500 cents: the lot table has 100 units, the block 99" in messages
    assert "prize 300 cents: the lot table has 100 units, the block 101" in messages


def test_payout_above_70_percent_breaks_the_cap() -> None:
    result = run("robots", 100, swap_unit(correct("robots", 100), "robots", 100, 0, 100))
    assert aspects(result) == {"lot_table", "payout_cap"}
    (cap,) = result.faults_of("payout_cap")
    assert "70.0250 %" in cap.message


def test_a_winner_declared_on_a_losing_ticket() -> None:
    lines = correct("robots", 100)
    at = next(i for i, line in enumerate(lines) if json.loads(line)["prize_cents"] == 0)
    lines[at] = lines[at].replace(b'"prize_cents":0', b'"prize_cents":100')
    result = run("robots", 100, lines)
    assert "unit_prize" in aspects(result)
    (fault,) = result.faults_of("unit_prize")
    assert (fault.index, fault.line) == (at, lines[at])
    assert "declared 100 cents, the ticket wins 0" in fault.message


def test_a_lot_declared_as_one_of_its_gains_breaks_cumulated_gains() -> None:
    ticket = "DQTCSPHO|D D D D Q T T C C C C C S S S S S S"  # D full (1 €) + Q full (2 €)
    assert reference.prize_cents("robots", 100, ticket) == 300
    lines = correct("robots", 100)
    at = next(i for i, line in enumerate(lines) if json.loads(line)["prize_cents"] == 200)
    lines[at] = b'{"index":%d,"prize_cents":200,"ticket":"%s"}' % (at, ticket.encode())
    result = run("robots", 100, lines)
    assert aspects(result) == {"cumulated_gains"}


def test_a_duplicated_unit_breaks_the_sequence() -> None:
    lines = correct("robots", 100)
    lines.insert(10, lines[10])
    result = run("robots", 100, lines[:-1])
    assert aspects(result) == {"sequence"}
    repeated, end = result.faults_of("sequence")
    assert repeated.message == "index 10 repeated: unit line 11 holds index 10, after index 10"
    assert repeated.line == lines[10] and end.message.startswith("1 unit(s) missing at the end")


@pytest.mark.parametrize("change", ["missing", "extra", "swapped"])
def test_missing_extra_and_out_of_order_lines_break_the_sequence(change: str) -> None:
    lines = correct("robots", 100)
    if change == "missing":
        del lines[1234]
    elif change == "extra":
        lines.append(kit.unit_line("robots", 100, len(lines), 0))
    else:
        lines[7], lines[8] = lines[8], lines[7]
    result = run("robots", 100, lines)
    assert "sequence" in aspects(result)
    assert not aspects(result) & {"tickets", "unit_prize", "unit_lines"}


def test_a_truncated_gzip_stream_ends_the_document(tmp_path: Path) -> None:
    data = gzip.compress(kit.document(kit.header(), correct("robots", 100)))
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    result = audit_file(path, kit.expectation(block_id=None), workers=1)
    assert "sequence" in aspects(result)
    assert any("truncated" in f.message for f in result.faults_of("sequence"))


def _damaged_gzip_files() -> dict[str, bytes]:
    """Sound and damaged ``.gz`` block files, several members, the damage in each place."""
    document = kit.document(kit.header(), correct("robots", 100))
    whole = gzip.compress(document)
    half = len(document) // 2
    members = gzip.compress(document[:half]) + gzip.compress(document[half:])

    def flipped(data: bytes, at: int) -> bytes:
        return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]

    return {
        "sound": whole,
        "two members": members,
        "truncated": whole[: len(whole) // 2],
        "cut in its trailer": whole[:-3],
        "body byte flipped": flipped(whole, len(whole) // 3),
        "early body byte flipped": flipped(whole, 40),
        "crc flipped": flipped(whole, len(whole) - 8),
        "length flipped": flipped(whole, len(whole) - 2),
        "second member damaged": flipped(members, len(members) - 200),
        "garbage after the member": whole + b"not gzip at all",
    }


@pytest.mark.parametrize("name", list(_damaged_gzip_files()))
def test_isal_and_zlib_read_any_gzip_file_alike(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """isal stops silently on some corrupt data where zlib raises: the reader falls back to
    zlib for the member, so the bytes handed on, the damage found and its message are zlib's."""
    from conformance._audit import reader

    if reader._isal is None:  # pragma: no cover - isal is a dependency
        pytest.skip("python-isal is not installed")
    path = tmp_path / "b.jsonl.gz"
    path.write_bytes(_damaged_gzip_files()[name])

    def read_all(fast: bool) -> tuple[bytes, str | None]:
        with monkeypatch.context() as m:
            m.setattr(reader, "RAW_READ", 4096)  # many reads: damage found mid-stream
            document = reader.open_document(path, fast=fast)
            assert document.fast is fast
            parts: list[bytes] = []
            try:
                while data := document(1 << 16):
                    parts.append(data)
            except EOFError as exc:
                return b"".join(parts), str(exc)
            return b"".join(parts), None

    assert read_all(True) == read_all(False)
    audits = []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(reader, "_isal", None)
            try:
                found = audit_file(path, kit.expectation(block_id=None), workers=1)
            except _audit.AuditError as exc:  # damaged before its header line ends
                audits.append(str(exc))
                continue
            audits.append((found.audited_units, found.sha256, found.faults, found.fault_counts))
    assert audits[0] == audits[1]
    if name in ("sound", "two members"):
        assert not audits[0][3]
    elif name == "early body byte flipped":
        assert "line 1" in audits[0] or "before its header" in audits[0]
    else:
        assert audits[0][3]["sequence"] >= 1


def _more_gzip_files() -> dict[str, bytes]:
    """Files the inflate ahead (``conformance._gzip_ahead``) reads otherwise than the exact
    reader: zero bytes where a member could begin, which isal's ``_GzipReader`` passes over."""
    document = kit.document(kit.header(), correct("robots", 100))
    whole = gzip.compress(document)
    cut = document.index(b"\n", len(document) // 3) + 1
    first, second = gzip.compress(document[:cut]), gzip.compress(document[cut:])
    return {
        "zeros after the member": whole + bytes(8),
        "zeros between two members": first + bytes(3) + second,
        "an empty member, zeros, the member": gzip.compress(b"") + bytes(2) + whole,
        "an empty member after": whole + gzip.compress(b""),
        "no newline at the end": gzip.compress(document.rstrip(b"\n")),
    }


@pytest.mark.parametrize("name", [*_damaged_gzip_files(), *_more_gzip_files()])
def test_the_inflate_ahead_reads_a_file_alike_or_asks_to_read_it_again(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read ahead (``ahead=True``: isal's ``_GzipReader`` on a thread), a file gives the exact
    reader's bytes and end, or, once bytes are handed on, ``ReadAgain`` (then read exactly);
    a sound file of one member always reads through, its SHA-256 the document's."""
    from conformance import _gzip_ahead
    from conformance._audit import reader

    if _gzip_ahead._GzipReader is None:  # pragma: no cover - isal is a dependency
        pytest.skip("python-isal is not installed")
    path = tmp_path / "b.jsonl.gz"
    path.write_bytes({**_damaged_gzip_files(), **_more_gzip_files()}[name])
    monkeypatch.setattr(_gzip_ahead, "PIECE_BYTES", 1 << 12)  # many pieces, a few ahead
    monkeypatch.setattr(_gzip_ahead, "AHEAD_BYTES", 1 << 14)

    def read_all(ahead: bool) -> tuple[bytes, str | None, str | None]:
        document = reader.open_document(path, fast=True, ahead=ahead)
        parts: list[bytes] = []
        try:
            for chunk in reader.chunks_from_reader(document, 1 << 13):
                parts.append(chunk)
        except EOFError as exc:
            return b"".join(parts), str(exc), None
        finally:
            document.close()
        return b"".join(parts), None, document.document_sha256()

    exact = read_all(False)
    try:
        ahead = read_all(True)
    except reader.ReadAgain:
        assert name not in ("sound", "no newline at the end")
        return
    assert ahead[:2] == exact[:2]
    if name in ("sound", "no newline at the end"):
        assert ahead[2] == hashlib.sha256(exact[0]).hexdigest()


def test_the_inflate_ahead_hashes_what_waits_and_stops_untaken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read-ahead full before the reader takes a piece, the SHA-256 thread hashes what
    waits; the reader then reads it all, and the digest is the document's. Closed before any
    piece is taken, both threads end."""
    import time

    from conformance import _gzip_ahead

    if _gzip_ahead._GzipReader is None:  # pragma: no cover - isal is a dependency
        pytest.skip("python-isal is not installed")
    document = b"".join(b'{"index": %d}\n' % i for i in range(20_000))
    path = tmp_path / "b.jsonl.gz"
    path.write_bytes(gzip.compress(document))
    monkeypatch.setattr(_gzip_ahead, "PIECE_BYTES", 1 << 12)
    monkeypatch.setattr(_gzip_ahead, "AHEAD_BYTES", 1 << 14)
    ahead = _gzip_ahead.GzipAhead.open(path)
    assert ahead is not None
    deadline = time.monotonic() + 10
    while ahead._to_hash and time.monotonic() < deadline:  # hashed while the inflate waits
        time.sleep(0.01)
    assert not ahead._to_hash and not ahead._taken
    read = bytearray()
    while (taken := ahead.take()) is not None:
        buffer, size = taken
        read += buffer[:size]
        ahead.give_back(buffer)
    assert bytes(read) == document
    assert ahead.document_sha256() == hashlib.sha256(document).hexdigest()
    ahead.close()
    untaken = _gzip_ahead.GzipAhead.open(path)
    assert untaken is not None
    untaken.close()
    assert not untaken._thread.is_alive() and not untaken._hasher.is_alive()


@pytest.mark.parametrize(
    ("line", "aspect"),
    [
        (b'{"index":3,"prize_cents":0}', "unit_lines"),
        (b'{"index":3,"prize_cents":0,"ticket":"x","extra":1}', "unit_fields"),
        (b'{"index":3,"prize_cents":0,"prize_cents":0,"ticket":"x"}', "unit_lines"),
        (b'{"index":3,"prize_cents":true,"ticket":"x"}', "unit_lines"),
        (b'{"index":3.5,"prize_cents":0,"ticket":"x"}', "unit_lines"),
        # 3.0 is the integer 3 (row integer-forms): judged as any line, its ticket here
        (b'{"index":3.0,"prize_cents":0,"ticket":"x"}', "tickets"),
        (b"[3, 0]", "unit_lines"),
        (b"not json", "unit_lines"),
        (b'{"index":3,"prize_cents":0,"ticket":"DQTCSPHO|D"}', "tickets"),
        (
            b'{"index":3,"prize_cents":0,"ticket":"DDTCSPHO|D D D T T C C C C C S S S S S S P P"}',
            "tickets",
        ),
        (
            b'{"index":3,"prize_cents":700,"ticket":"%s"}' % LOSING,
            "lot_table",
        ),
        (
            b'{"index":4,"prize_cents":0,"ticket":"DQTCSPHO|D D D T T C C C C C S S S S S S P P"}',
            "sequence",
        ),
    ],
)
def test_each_malformed_line_is_named_by_its_aspect(line: bytes, aspect: str) -> None:
    lines = correct("robots", 100)
    lines[3] = line
    result = run("robots", 100, lines)
    found = {f.aspect for f in result.faults if f.position == 3}
    assert aspect in found
    assert all(f.line == line for f in result.faults if f.position == 3)


@pytest.mark.parametrize(
    "field",
    [
        b'"index":99999999999999999999',
        b'"prize_cents":99999999999999999999',
        b'"prize_cents":4294967396',
    ],
)
def test_integers_past_any_block_are_faults_not_overflows(field: bytes) -> None:
    """JSON integers have no bound: one past what the audit's arrays hold is a unit_lines
    fault of its line (it crashed the audit with OverflowError, or wrapped round to a lot)."""
    lines = correct("robots", 100)
    key = field.split(b":")[0]
    lines[3] = re.sub(key + rb":\d+", field, lines[3])
    result = run("robots", 100, lines)
    assert {f.aspect for f in result.faults if f.position == 3} >= {"unit_lines"}
    if key == b'"prize_cents"':
        assert result.prizes[3] == -1  # not tallied as some other lot


def test_header_faults() -> None:
    lines = correct("robots", 100)
    head = {**kit.header(), "format": "block/2", "stake_cents": 200, "units": 5000}
    result = audit(head, kit.chunked(lines), kit.expectation(), workers=1)
    assert {"header", "block_size"} <= aspects(result)
    unknown = {**kit.header(), "vendor_note": "kept"}
    kept = audit(unknown, kit.chunked(lines), kit.expectation(), workers=1)
    assert kept.faults == () and kept.header["vendor_note"] == "kept"


def test_a_slice_is_audited_as_a_slice() -> None:
    lines = correct("robots", 100)
    part = lines[1000:1500]
    result = run("robots", 100, part, start=1000, count=500)
    assert result.faults == ()
    assert result.audited_units == 500 and result.cumulative_payout[0][0] == 1001
    short = run("robots", 100, part[:-1], start=1000, count=500)
    assert aspects(short) == {"sequence"}


def test_kept_lines_are_returned_by_index() -> None:
    lines = correct("robots", 100)
    result = audit(
        kit.header(), kit.chunked(lines), kit.expectation(), workers=1, keep=[(5, 8), (3999, 4000)]
    )
    assert result.kept == {5: lines[5], 6: lines[6], 7: lines[7], 3999: lines[3999]}


# -- the fast path never differs from the exact slow path ------------------------------------


def variants(line: bytes) -> list[bytes]:
    value = json.loads(line)
    ticket = value["ticket"]
    escaped = json.dumps(ticket).replace(ticket[0], f"\\u{ord(ticket[0]):04x}", 1)
    return [
        json.dumps(value).encode(),  # ", " and ": " separators
        json.dumps(dict(reversed(list(value.items())))).encode(),  # another key order
        b'{"index":%d,"prize_cents":%d,"ticket":%s}'
        % (value["index"], value["prize_cents"], escaped.encode()),
        b"  " + line + b" \r",
    ]


@pytest.mark.parametrize(("game", "stake"), GAMES)
def test_equivalent_json_shapes_are_accepted(game: str, stake: int) -> None:
    lines = correct(game, stake)
    odd = [variants(line)[i % 4] if i % 3 == 0 else line for i, line in enumerate(lines)]
    result = run(game, stake, odd)
    assert result.faults == ()
    assert result.prizes.tolist() == kit.prizes_of(lines).tolist()


ALPHABETS = {"robots": 'DQTCSPHO2+ |xA"\\', "eldorado": 'YSVBPX/|Zy"\\'}


def prizes_to_try(game: str, stake: int) -> list[int]:
    """Every lot of the stake's table, and sums of two (cumulated gains, several wins)."""
    lots = sorted(p for p in reference.load_rules(game).lot_table(stake).counts() if p)
    return [*lots, lots[0] + lots[1], lots[2] + lots[4], lots[-1] + lots[0]]


def mutate(ticket: str, rng: random.Random, alphabet: str = ALPHABETS["robots"]) -> str:
    chars = list(ticket)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(chars))
        action = rng.randrange(3)
        if action == 0:
            chars[at] = rng.choice(alphabet)
        elif action == 1:
            del chars[at]
        else:
            chars.insert(at, rng.choice(alphabet))
    return "".join(chars)


def random_eldorado(rng: random.Random) -> str:
    """Grids of random letters, with a random number of grids: valid or not (E-I4)."""
    grids = rng.choice([1, 1, 2, 3, 4, 7])
    letters = rng.choice(["YSVBPX", "YYYYSX", "PPPPPX", "XXXXXY", "YSVBP"])
    rows = ["".join(rng.choice(letters) for _ in range(5)) for _ in range(3 * grids)]
    return "|".join("/".join(rows[3 * g : 3 * g + 3]) for g in range(grids))


def ungranted_eldorado(rng: random.Random) -> str:
    """As many EXTRA as Extra grids, but one found too late to grant its grid (E-I4)."""
    grids = rng.choice([2, 3, 4])
    extras = [1] * (grids - 1) + [0]
    late = rng.randrange(grids - 1)
    extras[late], extras[late + 1] = 0, extras[late] + extras[late + 1]  # one EXTRA moves on
    rows = []
    for k in range(grids):
        cells = [rng.choice("YSVBP") for _ in range(15)]
        for at in rng.sample(range(15), extras[k]):
            cells[at] = "X"
        rows.append("/".join("".join(cells[5 * r : 5 * r + 5]) for r in range(3)))
    return "|".join(rows)


def sample_tickets(game: str, stake: int, rng: random.Random) -> list[str]:
    tickets = []
    for n in range(6000):
        if game == "eldorado" and n % 7 == 3:
            ticket = random_eldorado(rng)
        elif game == "eldorado" and n % 7 == 5:
            ticket = ungranted_eldorado(rng)
        else:
            prize = rng.choice(prizes_to_try(game, stake)) if n % 5 else 0
            ticket = reference.generate_ticket(game, stake, prize, rng)
        tickets.append(ticket if n % 2 else mutate(ticket, rng, ALPHABETS[game]))
    return tickets


def true_prize(game: str, stake: int, ticket: str) -> int:
    try:
        return reference.prize_cents(game, stake, ticket)
    except reference.TicketError:
        return -1


@pytest.mark.parametrize(("game", "stake"), [*GAMES, ("eldorado", 50), ("eldorado", 200)])
def test_the_vectorised_evaluators_agree_with_the_reference(game: str, stake: int) -> None:
    """Each game's kernel (conformance._kernels) vouches only for what the reference says."""
    rng = random.Random(7)
    tickets = sample_tickets(game, stake, rng)
    truths = [true_prize(game, stake, t) for t in tickets]
    assert 0.2 < sum(p >= 0 for p in truths) / len(truths) < 0.9  # both kinds are tried
    lines = [
        b'{"index":%d,"prize_cents":0,"ticket":%s}' % (i, json.dumps(t).encode())
        for i, t in enumerate(tickets)
    ]
    buf = b"".join(line + b"\n" for line in lines)
    table = frozenset(range(0, 5_000_000))  # every prize "in the table": judge prizes only
    params = _audit._Params(game, stake, 0, table, 10**6, ())
    result = audit_chunk(buf, 0, params)
    for i, (ticket, truth) in enumerate(zip(tickets, truths, strict=True)):
        if truth < 0:
            assert result.prizes[i] == 0 and any(
                f.position == i and f.aspect in ("tickets", "unit_lines") for f in result.faults
            ), ticket
            continue
        assert any(f.position == i for f in result.faults) is not (truth == 0), ticket
    # and with the true prizes declared, every valid ticket passes the fast path
    valid = [(t, p) for t, p in zip(tickets, truths, strict=True) if p >= 0]
    buf = b"".join(
        b'{"index":%d,"prize_cents":%d,"ticket":%s}\n' % (i, p, json.dumps(t).encode())
        for i, (t, p) in enumerate(valid)
    )
    result = audit_chunk(buf, 0, params)
    assert result.faults == []
    assert result.prizes.tolist() == [p for _, p in valid]


@pytest.mark.parametrize(("game", "stake"), GAMES)
def test_valid_tickets_never_need_the_slow_path(
    game: str, stake: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both games have a kernel: a correct block is judged without one slow-path line."""
    rng = random.Random(3)
    tickets = [t for t in sample_tickets(game, stake, rng) if true_prize(game, stake, t) >= 0]
    buf = b"".join(
        b'{"index":%d,"prize_cents":%d,"ticket":"%s"}\n'
        % (i, true_prize(game, stake, t), t.encode())
        for i, t in enumerate(tickets)
    )
    calls: list[bytes] = []
    monkeypatch.setattr(audit_judge, "judge_line", lambda line, *a: calls.append(line))
    monkeypatch.setattr(_kernels, "generic_prizes", lambda *a: pytest.fail("generic path"))
    params = _audit._Params(game, stake, 0, frozenset(range(5_000_000)), 10**6, ())
    result = audit_chunk(buf, 0, params)
    assert calls == [] and result.faults == []


def test_judge_line_names_each_fault() -> None:
    table = frozenset(kit.small_lots("robots"))
    line = b'{"index":0,"prize_cents":100,"ticket":"DQTCSPHO|D D D T T C C C C C S S S S S S P P"}'
    assert judge_line(line, "robots", 100, 0, table).faults == [
        ("unit_prize", "declared 100 cents, the ticket wins 0")
    ]
    assert judge_line(b"\xff", "robots", 100, 0, table).faults[0][0] == "unit_lines"


def test_an_unreadable_file_is_an_audit_error(tmp_path: Path) -> None:
    with pytest.raises(_audit.AuditError, match="cannot open"):
        audit_file(tmp_path / "absent.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"hello\n")
    with pytest.raises(_audit.AuditError, match="line 1 is not a JSON header"):
        audit_file(bad)
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_bytes(b'{"game":"poker","stake_cents":1}\n')
    with pytest.raises(_audit.AuditError, match="no game and stake"):
        audit_file(unknown)


def test_expectation_from_rules() -> None:
    expect = Expectation.from_rules("eldorado", 200)
    assert expect.block_units == 900_000 and expect.lots[2_000_000] == 1
    assert sum(expect.lots.values()) == 900_000
    assert np.sum([p * n for p, n in expect.lots.items()]) == 126_000_000


@pytest.mark.parametrize(("game", "stake"), GAMES)
def test_canonical_lines_never_need_the_slow_path(
    game: str, stake: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[bytes] = []
    monkeypatch.setattr(audit_judge, "judge_line", lambda line, *a: calls.append(line))
    result = run(game, stake, correct(game, stake))
    assert calls == [] and result.faults == ()


def written_as(
    line: bytes, order: tuple[str, ...], colon: str, comma: str, pad: str, end: str = ""
) -> bytes:
    """``line`` rewritten by another generator: its keys in ``order``, those separators,
    ``end`` before the newline (a CR: JSON Lines written on Windows)."""
    value = json.loads(line)
    body = comma.join(f'"{k}"{colon}{json.dumps(value[k])}' for k in order)
    return ("{" + pad + body + pad + "}" + end).encode()


LAYOUTS = [
    (order, colon, comma, pad)
    for order in itertools.permutations(_audit.UNIT_KEYS)
    for colon, comma, pad in (
        (":", ",", ""),
        (": ", ", ", ""),
        (":", ", ", " "),
        (" : ", " , ", ""),
    )
] + [
    (("ticket", "index", "prize_cents"), ": ", ", ", "", "\r"),
    (_audit.UNIT_KEYS, ":", ",", "", "\r"),
]


@pytest.mark.parametrize(("game", "stake"), GAMES)
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda v: "-".join(map(repr, v)))
def test_any_fixed_layout_of_unit_lines_takes_the_fast_path(
    game: str, stake: int, layout: tuple[Any, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generator that writes its keys in another order, or other separators, the same on
    every line, is judged at full speed: its layout is read off the chunk's first line."""
    lines = [written_as(line, *layout) for line in correct(game, stake)]
    calls: list[bytes] = []
    monkeypatch.setattr(audit_judge, "judge_line", lambda line, *a: calls.append(line))
    result = run(game, stake, lines)
    assert calls == [] and result.faults == ()
    assert result.prizes.tolist() == kit.prizes_of(correct(game, stake)).tolist()


@pytest.mark.parametrize(("game", "stake"), GAMES)
@pytest.mark.parametrize(("colon", "comma"), [(":", ","), (": ", ", ")])
def test_keys_in_an_order_of_their_own_on_each_line_take_the_fast_path(
    game: str, stake: int, colon: str, comma: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A serializer whose key order changes from line to line (each of the six orders in
    turn) is judged at full speed too, with the same prizes."""
    orders = list(itertools.permutations(_audit.UNIT_KEYS))
    lines = [
        written_as(line, orders[n % len(orders)], colon, comma, "")
        for n, line in enumerate(correct(game, stake))
    ]
    calls: list[bytes] = []
    monkeypatch.setattr(audit_judge, "judge_line", lambda line, *a: calls.append(line))
    result = run(game, stake, lines)
    assert calls == [] and result.faults == ()
    assert result.prizes.tolist() == kit.prizes_of(correct(game, stake)).tolist()


def test_faults_in_lines_of_mixed_key_orders_are_judged_as_in_the_canonical_one() -> None:
    """Mixed orders only choose the fast path: a wrong prize, an index out of place, a key
    spelled otherwise or given twice, a leading zero are found exactly as in canonical lines."""
    orders = list(itertools.permutations(_audit.UNIT_KEYS))
    lines = correct("robots", 100)
    changed = list(lines)
    winners = [i for i, x in enumerate(lines) if json.loads(x)["prize_cents"] > 0][:3]
    for i in winners:
        changed[i] = changed[i].replace(b'"prize_cents":', b'"prize_cents":1', 1)
    changed[40] = changed[40].replace(b'"index":40', b'"index":41', 1)
    changed[50] = changed[50].replace(b'"ticket"', b'"tickets"')
    changed[60] = changed[60].replace(b'"index":60', b'"index":60,"index":60')
    changed[70] = changed[70].replace(b'"index":70', b'"index":070')
    keep = {50, 60, 70}  # no longer JSON that ``written_as`` can rewrite
    mixed = [
        x if n in keep else written_as(x, orders[n % len(orders)], ":", ",", "")
        for n, x in enumerate(changed)
    ]
    canonical = run("robots", 100, changed)
    other = run("robots", 100, mixed)
    assert other.fault_counts == canonical.fault_counts
    assert {"unit_prize", "unit_lines", "sequence"} <= aspects(other)
    assert [(f.aspect, f.position) for f in other.faults] == [
        (f.aspect, f.position) for f in canonical.faults
    ]


def test_eldorado_tickets_with_escaped_slashes_take_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``"\\/"`` is ``"/"`` in JSON (PHP and json-simple write every slash so): the same
    prizes, and every line on the fast path."""
    lines = [line.replace(b"/", b"\\/") for line in correct("eldorado", 100)]
    assert all(b"\\/" in line for line in lines)
    calls: list[bytes] = []
    monkeypatch.setattr(audit_judge, "judge_line", lambda line, *a: calls.append(line))
    result = run("eldorado", 100, lines)
    assert calls == [] and result.faults == ()
    assert result.prizes.tolist() == kit.prizes_of(correct("eldorado", 100)).tolist()


def test_faults_among_escaped_slashes_are_judged_and_quoted_as_stored() -> None:
    """A wrong prize, a bad symbol, an index out of place among escaped slashes are found as in
    plain lines, and the evidence quotes each line as it stands in the file. A chunk holding
    an escaped backslash (``\\\\/``: a backslash, then a slash) is read as it stands, so that
    ticket's backslash is a fault."""
    lines = correct("eldorado", 100)
    changed = list(lines)
    winner = next(i for i, x in enumerate(lines) if json.loads(x)["prize_cents"] > 0)
    changed[winner] = changed[winner].replace(b'"prize_cents":', b'"prize_cents":1', 1)
    changed[30] = changed[30].replace(b'"ticket":"', b'"ticket":"Q', 1)
    changed[40] = changed[40].replace(b'"index":40', b'"index":41', 1)
    escaped = [line.replace(b"/", b"\\/") for line in changed]
    plain, other = run("eldorado", 100, changed), run("eldorado", 100, escaped)
    assert other.fault_counts == plain.fault_counts
    assert {"unit_prize", "tickets", "sequence"} <= aspects(other)
    assert [(f.aspect, f.position) for f in other.faults] == [
        (f.aspect, f.position) for f in plain.faults
    ]
    assert all(f.line == escaped[f.position] for f in other.faults if f.position is not None)
    backslash = list(escaped)
    backslash[50] = backslash[50].replace(b"\\/", b"\\\\/", 1)  # the ticket holds a \
    result = run("eldorado", 100, backslash)
    bad = [f for f in result.faults if f.aspect == "tickets" and f.position == 50]
    assert bad and bad[0].line == backslash[50]


def test_a_first_line_in_no_layout_leaves_the_rest_of_its_chunk_fast(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    layout = (("ticket", "prize_cents", "index"), ": ", ", ", "")
    lines = [written_as(line, *layout) for line in correct("robots", 100)]
    lines[0] = b"not json"
    calls: list[bytes] = []
    real = audit_judge.judge_line

    def judged(line: bytes, *args: Any) -> Any:
        calls.append(line)
        return real(line, *args)

    monkeypatch.setattr(audit_judge, "judge_line", judged)
    result = run("robots", 100, lines)
    assert calls == [b"not json"]  # the chunk's layout came from its second line
    assert aspects(result) >= {"unit_lines"}


@pytest.mark.parametrize("layout", LAYOUTS[::3], ids=lambda v: "-".join(map(repr, v)))
def test_faults_in_another_layout_are_judged_as_in_the_canonical_one(
    layout: tuple[Any, ...],
) -> None:
    """The layout only chooses the fast path: every line it does not vouch for (a wrong prize,
    a key spelled otherwise, a key twice, a line in yet another layout) is judged exactly; a
    first line in no layout at all does not take the fast path from the lines after it."""
    lines = correct("robots", 100)
    changed = list(lines)
    winner = next(i for i, x in enumerate(lines) if i > 11 and json.loads(x)["prize_cents"] > 0)
    changed[winner] = changed[winner].replace(b'"prize_cents":', b'"prize_cents":1', 1)
    changed[7] = changed[7].replace(b'"ticket"', b'"tickets"')
    changed[9] = changed[9].replace(b'"index":9', b'"index":9,"index":9')
    rewritten = [written_as(x, *layout) if n not in (7, 9) else x for n, x in enumerate(changed)]
    rewritten[11] = lines[11]  # the canonical layout in the middle of another one: still fine
    rewritten[0] = b'{"index":0}'  # a first line in no layout: the next one gives the layout
    changed[0] = rewritten[0]
    canonical = run("robots", 100, changed)
    other = run("robots", 100, rewritten)
    assert other.fault_counts == canonical.fault_counts
    assert {"unit_prize", "unit_lines"} <= aspects(other)
    assert [(f.aspect, f.position) for f in other.faults] == [
        (f.aspect, f.position) for f in canonical.faults
    ]


@pytest.mark.parametrize(("game", "stake"), GAMES)
def test_one_deleted_line_is_one_finding_and_the_audit_resynchronises(
    game: str, stake: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = correct(game, stake)
    del lines[1234]
    calls: list[bytes] = []
    judge = _audit.judge_line
    monkeypatch.setattr(
        audit_judge, "judge_line", lambda line, *a: calls.append(line) or judge(line, *a)
    )
    result = run(game, stake, lines)
    assert calls == []  # every later line is still judged by the fast path
    count, gap = result.faults_of("sequence")  # the document's own fault sorts first
    assert gap.message == (
        "1 unit(s) missing: index 1234: unit line 1234 holds index 1235, after index 1233"
    )
    assert (gap.position, gap.line) == (1234, lines[1234])
    units = kit.small_units(game)
    assert count.message == (
        f"the document holds {units - 1} unit lines; its slice [0, {units}) needs exactly {units}"
    )
    assert result.fault_counts["sequence"] == 2  # (the lot table may miss that unit too)


def test_sequence_breaks_are_named_by_their_extent() -> None:
    indices = np.array([0, 1, 2, 5, 6, 6, 7, 3, 9, -1, 11], np.int64)
    faults, broken = _audit.sequence_faults(indices, 0, 13)
    messages = [f.message for f in faults]
    assert messages == [
        "2 unit(s) missing: index 3..4: unit line 3 holds index 5, after index 2",
        "index 6 repeated: unit line 5 holds index 6, after index 6",
        "index 3 out of place (it comes back after index 7): unit line 7 holds index 3, "
        "after index 7",
        "5 unit(s) missing: index 4..8: unit line 8 holds index 9, after index 3",
        "1 unit(s) missing at the end: index 12 (the last line holds index 11)",
    ]
    assert broken == 5


def test_a_worker_keeps_its_freed_memory_on_glibc() -> None:
    """Audit workers tell glibc to keep freed memory for the next chunk (no mmap and page
    faults per chunk, a quarter of a robots worker's CPU); elsewhere the call is a no-op."""
    import platform
    import subprocess
    import sys

    probe = "from conformance._audit import driver; print(driver._keep_heap())"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    expected = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert done.stdout.strip() == str(expected)


def test_the_fast_path_reads_integers_as_json_does() -> None:
    """``_digits`` (a word at a time up to 8 digits, a digit at a time up to 12) against
    ``json.loads`` on every length, digits and non-digits at every place, leading zeros."""
    rng = random.Random(5)
    cases = [b"0", b"7", b"10", b"007", b"00", b"12345678", b"99999999", b"00000000", b"123456789"]
    cases += [b"123456789012", b"1234567890123", b"", b"1a", b"a1", b"-1", b"1/", b":1", b"12 "]
    cases += [b"\x80", b"1\xff1", b"9" * 8 + b"\xb9", b"1" * 7 + b"\x00"]
    for _ in range(4000):
        alphabet = b"0123456789" if rng.random() < 0.95 else b"0123456789/:a \x80\xba+-.e"
        cases.append(bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 14))))
    buf = bytearray()
    begins, ends = [], []
    for case in cases:
        buf += b'"'
        begins.append(len(buf))
        buf += case
        ends.append(len(buf))
        buf += b'",'
    padded = bytes(buf) + bytes(32)
    a = np.frombuffer(padded, np.uint8)
    ok = np.ones(len(cases), bool)
    words = audit_layout.words(padded)
    values = audit_layout.digits(a, words, np.array(begins), np.array(ends), ok)
    wrong = []
    for case, value, good in zip(cases, values.tolist(), ok.tolist(), strict=True):
        try:
            parsed = json.loads(case)
        except (ValueError, UnicodeDecodeError):
            parsed = None
        canonical = case.isdigit() and len(case) <= 12 and type(parsed) is int
        if good != canonical or (good and value != parsed):
            wrong.append((case, value, good))
    assert not wrong, wrong[:5]
    assert ok.sum() > 2000 and (~ok).sum() > 500  # both kinds were met


@pytest.mark.parametrize(
    "prizes",
    [[0, 100, 100, -1, 1000000, 0], [-1, -1], [], [2**31 - 1, 5, 5, -3]],
)
def test_the_tallies_by_counting_equal_those_by_sorting(prizes: list[int]) -> None:
    """A prize's units counted into bins, or by sorting where a prize is too large for bins:
    the same table, in ascending order of prize, negative prizes left out."""
    array = np.array(prizes, np.int32)
    values, counts = np.unique(array[array >= 0], return_counts=True)
    for each in (array, array.astype(np.int64)):  # compiled, numpy
        tallies = _audit.driver._tallies(each)  # type: ignore[arg-type]
        want = [(int(v), int(c)) for v, c in zip(values, counts, strict=True)]
        assert list(tallies.items()) == want


@pytest.mark.parametrize("units", [1, 2, 499, 500, 501, 12_345])
def test_the_payout_curve_summed_between_its_points_is_the_cumulative_sum(units: int) -> None:
    rng = np.random.default_rng(units)
    prizes = rng.integers(-1, 1_000_000, units).astype(np.int32)
    cumulative = np.cumsum(np.maximum(prizes, 0), dtype=np.int64)
    for array in (prizes, prizes.astype(np.int64)):  # compiled, numpy
        payout, curve = _audit.driver._payout_and_curve(array, 7)  # type: ignore[arg-type]
        assert curve == [[unit, int(cumulative[unit - 8])] for unit, _ in curve]  # start 7
        assert curve[-1] == [7 + units, int(cumulative[-1])] and len(curve) == min(500, units)
        assert payout == int(cumulative[-1])
    assert _audit.driver._payout_and_curve(prizes[:0], 7) == (0, [])
