"""The compiled chunk judges (``conformance/_fastaudit.c``, both games) vouch only for what the
numpy path vouches for, with the same prize, index and line bounds; and the audit's verdicts
do not depend on them.

The judge reads raw memory and decides the verdict on whole chunks, so it is held to the
numpy fast path (itself held to the reference's evaluator in ``test_audit.py``) line by line:
valid lines of every shape and prize, and lines broken at every byte.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import reference
from conformance import _audit, _compiled, _kernels
from conformance._audit import audit, driver
from conformance._audit import judge as audit_judge
from conformance.games import kit
from conformance.games._eldorado_kernel import EXTRA_BITS, MAX_ELDORADO_GRIDS, eldorado_tables
from conformance.games._robots_kernel import robots_tables
from tests.conformance import blockkit
from tests.conformance.test_audit import (
    ALPHABETS,
    mutate,
    prizes_to_try,
    random_eldorado,
    sample_tickets,
    true_prize,
    ungranted_eldorado,
)

GAME_STAKES = [("eldorado", 50), ("eldorado", 100), ("eldorado", 200), ("robots", 100)]
GAMES = ["eldorado", "robots"]


def test_the_extension_is_built() -> None:
    """The project's install builds it (setup.py); a silent fallback would hide a broken build
    behind an audit several times slower. A machine without a C compiler fails here, only."""
    assert _compiled.fastaudit is not None
    for game in GAMES:
        assert kit(game).chunk_judge is not None
        assert game in _kernels.CHUNK_JUDGES


def _table(game: str, stake: int) -> frozenset[int]:
    """The stake's lots, and the sums of two that ``prizes_to_try`` declares too."""
    return frozenset(prizes_to_try(game, stake)) | frozenset(
        reference.load_rules(game).lot_table(stake).counts()
    )


def _params(game: str, stake: int, table: frozenset[int]) -> audit_judge._Params:
    return audit_judge._Params(game, stake, 0, table, 10**6, ())


def _numpy_path(game: str, chunk: bytes, stake: int, table: frozenset[int]) -> tuple[Any, ...]:
    padded = chunk + bytes(audit_judge.PADDING)
    return audit_judge._fast_path(padded, len(chunk), _params(game, stake, table))


def _judged(game: str, chunk: bytes, size: int, stake: int, table: frozenset[int]) -> Any:
    judge = kit(game).chunk_judge
    assert judge is not None
    return judge(chunk, size, stake, table)


def _line(index: int | bytes, prize: int | bytes, ticket: str | bytes) -> bytes:
    index = str(index).encode() if isinstance(index, int) else index
    prize = str(prize).encode() if isinstance(prize, int) else prize
    ticket = ticket.encode() if isinstance(ticket, str) else ticket
    return b'{"index":%s,"prize_cents":%s,"ticket":"%s"}' % (index, prize, ticket)


def _agrees(game: str, chunk: bytes, stake: int, table: frozenset[int]) -> bool:
    """Whether the compiled judge vouched for ``chunk``; fails the test if it vouched for a
    chunk the numpy path does not vouch for whole, or differs from it on any line."""
    verdict = _judged(game, chunk, len(chunk), stake, table)
    if verdict is None:
        return False
    _starts, ends, prizes, indices, ok = _numpy_path(game, chunk, stake, table)
    assert ok.all(), (chunk, np.flatnonzero(~ok))
    assert verdict.ends.tolist() == ends.tolist(), chunk
    assert verdict.prizes.tolist() == prizes.tolist(), chunk
    assert verdict.indices.tolist() == indices.tolist(), chunk
    return True


@pytest.mark.parametrize(("game", "stake"), GAME_STAKES)
def test_it_vouches_for_every_valid_canonical_line_as_the_numpy_path_does(
    game: str, stake: int
) -> None:
    rng = random.Random(stake)
    table = _table(game, stake)
    prizes = [(t, true_prize(game, stake, t)) for t in sample_tickets(game, stake, rng)]
    lines = [_line(i * 7919, p, t) for i, (t, p) in enumerate(prizes) if p >= 0]
    lines = [line for line in lines if json.loads(line)["prize_cents"] in table]
    assert len(lines) > 2000
    assert len({len(json.loads(line)["ticket"]) for line in lines}) >= 3  # grid counts, chains
    assert len({json.loads(line)["prize_cents"] for line in lines}) >= 8
    assert _agrees(game, b"".join(line + b"\n" for line in lines), stake, table)


BYTES = b'0123456789YSVBPXZyDQTCSPHO2+/|"\\ ,:{}\r\t\x00\x80\xffe.-+'


def _broken(line: bytes, rng: random.Random) -> bytes:
    """``line`` with one to three bytes replaced, deleted or inserted anywhere, or in its
    index only (one time in four: a line still valid or not, by a byte or two)."""
    data = bytearray(line)
    digits = line.index(b",") - len(b'{"index":')
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data) + 1)
        if rng.random() < 0.25:
            at = len(b'{"index":') + rng.randrange(digits)
        action = rng.randrange(3)
        if action == 0 and at < len(data):
            data[at] = rng.choice(BYTES)
        elif action == 1 and at < len(data):
            del data[at]
        else:
            data.insert(at, rng.choice(BYTES))
    return bytes(data).replace(b"\n", b"")


def _shapes(index: int, prize: int, ticket: str, table: frozenset[int]) -> list[bytes]:
    """The same unit written otherwise, or declaring something else: valid JSON the numpy path
    may accept in another layout, and lines it must not accept as they stand."""
    other = sorted(table - {prize})[0]
    escaped = ticket.replace("/", "\\/")
    return [
        _line(b"0%d" % index, prize, ticket),  # a leading zero
        _line(b"1" * 13, prize, ticket),  # past 12 digits
        _line(b"-%d" % index, prize, ticket),
        _line(b"%d.0" % index, prize, ticket),
        _line(b"%de0" % index, prize, ticket),
        _line(index, b"%d.0" % prize, ticket),
        _line(index, other, ticket),  # another lot
        _line(index, prize + 1, ticket),  # a prize of no lot
        _line(index, prize, escaped),  # "\/": the same string, another layout
        _line(index, prize, f"\\u{ord(ticket[0]):04x}" + ticket[1:]),
        _line(index, prize, ticket) + b" ",
        _line(index, prize, ticket) + b"\r",
        b" " + _line(index, prize, ticket),
        json.dumps({"index": index, "prize_cents": prize, "ticket": ticket}).encode(),
        json.dumps({"ticket": ticket, "index": index, "prize_cents": prize}).encode(),
        _line(index, prize, ticket)[:-1] + b',"index":%d}' % index,  # a key twice
        _line(index, prize, ticket + "/"),
        _line(index, prize, ticket[:-1]),
        _line(index, prize, ticket + "|" + ticket),  # an Extra grid nothing granted, a 2nd bar
        _line(index, prize, ticket + " " + ticket[-1]),  # a button more
        _line(index, prize, ticket.replace(" ", "  ", 1)),
        _line(index, prize, ticket[1:] + ticket[0]),
        _line(index, prize, ""),
        b"{}",
        b"",
    ]


@pytest.mark.parametrize(("game", "stake"), GAME_STAKES)
def test_it_never_vouches_for_a_line_the_numpy_path_does_not(game: str, stake: int) -> None:
    """Each line, broken at random bytes or written in another shape, between two valid lines:
    where the compiled judge vouches for the three, the numpy path does too, alike."""
    rng = random.Random(100 + stake)
    table = _table(game, stake)
    before = _line(1, 0, reference.generate_ticket(game, stake, 0, rng))
    vouched = refused = 0
    for n in range(3000):
        prize = rng.choice(sorted(table & set(prizes_to_try(game, stake)))) if n % 3 else 0
        ticket = reference.generate_ticket(game, stake, prize, rng)
        line = _line(2 + n, prize, ticket)
        candidates = _shapes(2 + n, prize, ticket, table) if n % 50 == 0 else []
        candidates += [_broken(line, rng) for _ in range(3)]
        for broken in candidates:
            after = _line(3 + n, prize, ticket)
            if _agrees(game, before + b"\n" + broken + b"\n" + after + b"\n", stake, table):
                vouched += 1
            else:
                refused += 1
    assert vouched > 500 and refused > 5000  # both kinds were met


def _ill_formed(game: str, rng: random.Random) -> list[str]:
    if game == "eldorado":  # Extra grids granted too late (E-I4), or random grids
        return [ungranted_eldorado(rng) for _ in range(200)] + [
            random_eldorado(rng) for _ in range(200)
        ]
    tickets = [reference.generate_ticket(game, 100, 0, rng) for _ in range(400)]
    return [mutate(t, rng, ALPHABETS[game]) for t in tickets]  # a letter, '2', '+', ' ' ...


@pytest.mark.parametrize("game", GAMES)
def test_it_never_vouches_for_an_ill_formed_ticket_whatever_it_declares(game: str) -> None:
    """Broken tickets, each declaring every prize of the table in turn, the one the ticket's
    wins would add up to among them."""
    rng = random.Random(11)
    table = _table(game, 100)
    vouched = 0
    for n, ticket in enumerate(_ill_formed(game, rng)):
        valid = true_prize(game, 100, ticket) >= 0
        found = sum(_agrees(game, _line(n, p, ticket) + b"\n", 100, table) for p in sorted(table))
        assert found <= valid, ticket  # (a valid one whose prize is no lot: 0)
        vouched += found
    assert vouched  # some are valid after all: those are vouched for


def test_long_robots_tickets_are_left_to_the_numpy_path() -> None:
    """Valid tickets longer than the kernel's 72 characters (long X2/+1 chains) take the slow
    path, not the judge, whatever they declare."""
    lengths = []
    for chains in range(4, 15):
        ticket = "DQTCSPHO|" + " ".join(["D2+Q2"] * chains + ["C"] * (18 - chains))
        prize = true_prize("robots", 100, ticket)
        assert prize >= 0
        table = _table("robots", 100) | {prize}
        vouched = _agrees("robots", _line(0, prize, ticket) + b"\n", 100, table)
        assert vouched == (len(ticket) <= robots_tables().MAX_TICKET), ticket
        lengths.append(len(ticket))
    assert min(lengths) <= 72 < max(lengths)


@pytest.mark.parametrize("game", GAMES)
def test_it_refuses_chunks_that_are_not_whole_lines(game: str) -> None:
    table = _table(game, 100)
    line = _line(0, 0, reference.generate_ticket(game, 100, 0, random.Random(1)))
    assert _agrees(game, line + b"\n", 100, table)
    for chunk in (line, b"", b"\n", line + b"\n\n", line + b"\n" + line):
        assert _judged(game, chunk, len(chunk), 100, table) is None, chunk
    won = min(p for p in table if p)
    winner = _line(1, won, reference.generate_ticket(game, 100, won, random.Random(1)))
    assert _agrees(game, winner + b"\n", 100, table)
    assert _judged(game, winner + b"\n", len(winner) + 1, 100, table - {won}) is None
    assert _judged(game, line + b"\n", len(line) + 1, 101, table) is None  # no such stake
    # only the first ``size`` bytes count: the rest of the buffer is not read
    assert _judged(game, line + b"\nXYZ", len(line) + 1, 100, table) is not None
    assert _judged(game, line + b"\n", len(line), 100, table) is None


def _kernel_call(game: str, tables: dict[str, object], change: dict[str, object]) -> object:
    """``game``'s compiled judge called on one valid line with ``tables``, the arguments
    ``change`` names replaced."""
    line = _line(0, 0, reference.generate_ticket(game, 100, 0, random.Random(1))) + b"\n"
    args: dict[str, object] = {
        "chunk": line,
        "size": len(line),
        **tables,
        "lots": np.array(sorted(_table(game, 100)), np.int64),
    }
    args.update(change)
    assert _compiled.fastaudit is not None
    return getattr(_compiled.fastaudit, f"{game}_chunk")(*args.values())


def _eldorado_call(**change: object) -> object:
    tables = eldorado_tables()
    eldorado = {
        "letter": tables.roles,
        "row_values": tables.row_values(100),
        "rows": tables.rows,
        "cells": tables.cells,
        "base": tables.base,
        "extra_bits": EXTRA_BITS,
        "max_grids": MAX_ELDORADO_GRIDS,
    }
    return _kernel_call("eldorado", eldorado, change)


def _robots_call(**change: object) -> object:
    tables = robots_tables()
    robots = {
        "symbol": tables.symbol,
        "notches": tables.notch_array,
        "amounts": tables.amount_array,
        "robots": tables.robots,
        "buttons": tables.spaces + 1,
        "max_ticket": tables.MAX_TICKET,
    }
    return _kernel_call("robots", robots, change)


@pytest.mark.parametrize("call", [_eldorado_call, _robots_call])
def test_the_kernels_called_directly_vouch_for_a_line(call: Callable[..., Any]) -> None:
    found: Any = call()
    assert found is not None
    assert [np.frombuffer(part, np.int64).tolist() for part in found][1:] == [[0], [0]]


REFUSALS: list[tuple[dict[str, object], str]] = [
    ({"size": -1}, "outside the chunk"),
    ({"size": 10_000}, "outside the chunk"),
    ({"letter": bytes(255)}, "letter table"),
    ({"row_values": np.zeros(10, np.int64)}, "row table"),
    ({"row_values": np.zeros(6**5, np.int32)}, "row table"),
    ({"row_values": np.frombuffer(bytes(8 * 6**5 + 1), np.uint8)[1:]}, "aligned"),
    ({"rows": 0}, "inconsistent grid"),
    ({"cells": 0}, "inconsistent grid"),
    ({"cells": 17}, "inconsistent grid"),
    ({"base": 0}, "inconsistent grid"),
    ({"base": 65}, "inconsistent grid"),
    ({"extra_bits": 0}, "inconsistent grid"),
    ({"extra_bits": 3}, "inconsistent grid"),  # 15 cells a grid do not fit 3 bits
    ({"max_grids": 0}, "inconsistent grid"),
    ({"base": 64, "cells": 16}, "no row table"),
    ({"lots": np.array([500, 200], np.int64)}, "ascending"),
    ({"lots": np.array([200, 200], np.int64)}, "ascending"),
    ({"lots": np.zeros(3, np.int8)}, "lot table"),
    ({"lots": np.frombuffer(bytes(8 * 3 + 1), np.uint8)[1:]}, "lot table"),
]
ROBOTS_REFUSALS: list[tuple[dict[str, object], str]] = [
    ({"size": -1}, "outside the chunk"),
    ({"symbol": bytes(257)}, "symbol table"),
    ({"notches": np.zeros(7, np.int64)}, "inconsistent robots"),  # 7 symbols, 8 robots
    ({"notches": np.zeros(8, np.int32)}, "inconsistent robots"),  # the amounts' size differs
    ({"notches": np.zeros(9, np.int64), "amounts": np.zeros(9, np.int64)}, "inconsistent"),
    ({"notches": np.zeros(0, np.int64), "amounts": np.zeros(0, np.int64)}, "inconsistent"),
    ({"notches": bytes(8 * 8 + 3)}, "inconsistent robots"),
    ({"amounts": np.zeros(9, np.int64)}, "inconsistent robots"),
    ({"robots": 9}, "inconsistent robots"),
    ({"buttons": 0}, "inconsistent robots"),
    ({"max_ticket": 9}, "inconsistent robots"),
    ({"max_ticket": 73}, "inconsistent robots"),
    ({"lots": np.array([500, 200], np.int64)}, "ascending"),
]


@pytest.mark.parametrize(
    ("call", "change", "message"),
    [(_eldorado_call, *r) for r in REFUSALS] + [(_robots_call, *r) for r in ROBOTS_REFUSALS],
)
def test_the_kernels_refuse_inconsistent_arguments(
    call: Callable[..., Any], change: dict[str, object], message: str
) -> None:
    """They read raw memory by these sizes: every inconsistency is refused before they read."""
    with pytest.raises(ValueError, match=message):
        call(**change)


# -- the audit's verdicts do not depend on it ----------------------------------------------


def _faulty_block(game: str, seed: int) -> list[bytes]:
    """A small block with faults of every aspect a line can have, and lines in other layouts:
    the chunks holding them are not vouched for, the others are."""
    rng = random.Random(seed)
    lines = blockkit.unit_lines(game, 100, blockkit.shuffled_prizes(game, seed))
    lots = sorted(p for p in blockkit.small_lots(game) if p)
    for at in rng.sample(range(len(lines)), 12):
        value = json.loads(lines[at])
        choice = rng.randrange(6)
        if choice == 0:
            value["prize_cents"] = lots[0] if value["prize_cents"] != lots[0] else lots[1]
        elif choice == 1:
            value["index"] += 1
        elif choice == 2:
            value["ticket"] = value["ticket"][:-1] + "Z"
        elif choice == 3:
            lines[at] = json.dumps(value).encode()  # another layout, valid
            continue
        elif choice == 4:  # an escape, valid: the same string
            first = value["ticket"][0]
            lines[at] = lines[at].replace(b'"%s' % first.encode(), b'"\\u%04x' % ord(first), 1)
            continue
        else:
            lines[at] = _broken(lines[at], rng)
            continue
        lines[at] = json.dumps(value, separators=(",", ":")).encode()
    del lines[rng.randrange(len(lines))]
    lines.insert(rng.randrange(len(lines)), lines[rng.randrange(len(lines))])
    return lines


def _audited(game: str, lines: list[bytes], workers: int) -> _audit.BlockAudit:
    head = blockkit.header(game, 100, "test-1")
    expect = blockkit.expectation(game, 100)
    return audit(head, blockkit.chunked(lines, 97), expect, workers=workers, keep=[(5, 40)])


def _summary(result: _audit.BlockAudit) -> tuple[object, ...]:
    return (
        result.faults,
        result.fault_counts,
        result.prizes.tolist(),
        result.lots_observed,
        result.payout_cents,
        result.sha256,
        result.kept,
        result.audited_units,
    )


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_audits_are_the_same_with_and_without_the_compiled_judge(
    game: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In this process, on threads or worker processes, and through the numpy path alone."""
    lines = _faulty_block(game, seed)
    calls: list[bool] = []
    judged: Callable[..., Any] = _kernels.judged_chunk

    def counted(*args: Any) -> Any:
        found = judged(*args)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(_kernels, "judged_chunk", counted)
    with_judge = [_summary(_audited(game, lines, workers)) for workers in (1, 2)]
    assert any(calls) and not all(calls)  # some chunks vouched for, some not
    monkeypatch.setattr(_kernels, "judged_chunk", lambda *args: None)
    without = _summary(_audited(game, lines, 1))
    assert with_judge == [without, without]
    assert without[1]  # the block has faults: the comparison says something


def _losing_ticket_declared_a_winner(game: str) -> list[bytes]:
    lines = blockkit.unit_lines(game, 100, blockkit.shuffled_prizes(game, 4))
    at = next(i for i, line in enumerate(lines) if b'"prize_cents":0,' in line)
    won = min(p for p in blockkit.small_lots(game) if p)
    lines[at] = lines[at].replace(b'"prize_cents":0,', b'"prize_cents":%d,' % won)
    return lines


WITHOUT_EXTENSION = """
from conformance import _compiled, _kernels
from conformance._audit import audit
from conformance.games import kit
from tests.conformance import blockkit
from tests.conformance.test_fastaudit import _losing_ticket_declared_a_winner

assert _compiled.fastaudit is None
for game in ("eldorado", "robots"):
    assert kit(game).chunk_judge is None and game not in _kernels.CHUNK_JUDGES
    head, expect = blockkit.header(game, 100, "test-1"), blockkit.expectation(game, 100)
    lines = _losing_ticket_declared_a_winner(game)
    result = audit(head, blockkit.chunked(lines), expect, workers=2)
    print(result.sha256, sorted(result.fault_counts.items()))
"""


def test_without_the_extension_the_audit_is_the_same() -> None:
    """A machine that could not build ``_fastaudit`` audits both games through numpy (on worker
    processes): the same verdicts."""
    from tests.conformance.fresh import fresh_python, without_module

    expected = []
    for game in GAMES:
        result = audit(
            blockkit.header(game, 100, "test-1"),
            blockkit.chunked(_losing_ticket_declared_a_winner(game)),
            blockkit.expectation(game, 100),
            workers=2,
        )
        assert result.fault_counts
        expected.append(f"{result.sha256} {sorted(result.fault_counts.items())}")
    script = without_module("conformance._fastaudit") + WITHOUT_EXTENSION
    done = fresh_python(script, timeout=300)
    assert done.stdout.strip().splitlines() == expected


def _fields(result: audit_judge._ChunkResult) -> tuple[object, ...]:
    return (
        result.prizes.tolist(),
        result.faults,
        result.fault_counts,
        result.kept,
        result.indices.tolist(),
        result.edges,
        result.consecutive_from,
    )


@pytest.mark.parametrize("game", GAMES)
def test_threads_and_worker_processes_give_the_same_chunk_results(game: str) -> None:
    lines = _faulty_block(game, 1)
    pieces, first = [], 0
    for chunk in blockkit.chunked(lines, 97):
        pieces.append((chunk, first))
        first += chunk.count(b"\n")
    table = frozenset(blockkit.small_lots(game))
    params = audit_judge._Params(game, 100, 0, table, 20, ((5, 40),))
    on_threads = driver._judged_on_threads(pieces, params, 2)
    on_processes = driver._judged_on_processes(pieces, params, 2)
    assert [_fields(r) for r in on_threads] == [_fields(r) for r in on_processes]
    assert any(r.faults for r in on_threads)


@pytest.mark.parametrize("game", GAMES)
def test_the_first_chunk_decides_threads_or_worker_processes(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines the judge vouches for go to threads; a document in another layout, which the
    numpy path judges, to worker processes. The audit is the same either way."""
    taken: list[str] = []

    def recorded(name: str) -> Callable[..., Any]:
        real = getattr(driver, name)

        def record(*args: Any) -> Any:
            taken.append(name)
            return real(*args)

        return record

    for name in ("_judged_on_threads", "_judged_on_processes"):
        monkeypatch.setattr(driver, name, recorded(name))
    canonical = blockkit.unit_lines(game, 100, blockkit.shuffled_prizes(game, 8))
    spaced = [json.dumps(json.loads(line)).encode() for line in canonical]
    results = [_summary(_audited(game, lines, 2))[:5] for lines in (canonical, spaced, [])]
    assert taken == ["_judged_on_threads", "_judged_on_processes"]  # none for no lines
    assert results[0] == results[1]


# == the sums after the read: the same as numpy's =============================================

PRIZE_ARRAYS = [
    [],
    [0],
    [-1, -1],
    [0, 100, 100, -1, 1_000_000, 0, 4095, 4096, 2**31 - 1, -(2**31)],
    list(range(-5, 5000, 7)),  # past the values counted in place
]


def _random_prizes(seed: int, units: int = 20_000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    table = np.array([-1, 0, 0, 0, 100, 200, 500, 1_000, 10_000, 1_000_000, 123_456_789])
    return table[rng.integers(0, len(table), units)].astype(np.int32)


@pytest.mark.parametrize("prizes", [*PRIZE_ARRAYS, *(_random_prizes(s) for s in range(3))])
def test_the_compiled_tallies_are_numpys(prizes: list[int] | np.ndarray) -> None:
    array = np.asarray(prizes, np.int32)
    values, counts = np.unique(array[array >= 0], return_counts=True)
    found = _compiled.fastaudit.tallies(array)
    assert found is not None
    assert np.frombuffer(found[0], np.int64).tolist() == values.tolist()
    assert np.frombuffer(found[1], np.int64).tolist() == counts.tolist()


def test_the_compiled_tallies_leave_too_many_distinct_prizes_to_numpy() -> None:
    many = np.arange(4096, 4096 + 5000, dtype=np.int32)
    assert _compiled.fastaudit.tallies(many) is None
    assert driver._tallies(many) == {int(v): 1 for v in many}


@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_sums_between_points_are_numpys(seed: int) -> None:
    prizes = _random_prizes(seed, 5_000 + seed)
    rng = np.random.default_rng(seed)
    starts = np.unique(np.concatenate(([0], rng.integers(0, len(prizes), 40)))).astype(np.int64)
    want = np.add.reduceat(np.maximum(prizes, 0), starts, dtype=np.int64)
    found = np.frombuffer(_compiled.fastaudit.between_sums(prizes, starts), np.int64)
    assert found.tolist() == want.tolist()


@pytest.mark.parametrize("starts", [[1, 1], [3, 2], [-1], [5]])
def test_the_compiled_sums_refuse_starts_out_of_order_or_bounds(starts: list[int]) -> None:
    with pytest.raises(ValueError, match="starts"):
        _compiled.fastaudit.between_sums(np.zeros(5, np.int32), np.array(starts, np.int64))


@pytest.mark.parametrize("tiers", [[], [100], [100, 500, 1_000_000], [-5, 0, 200, 2**40]])
@pytest.mark.parametrize("prizes", [*PRIZE_ARRAYS, _random_prizes(7)])
def test_the_compiled_tier_winners_are_numpys(
    prizes: list[int] | np.ndarray, tiers: list[int]
) -> None:
    array = np.asarray(prizes, np.int32)
    table = np.asarray(tiers, np.int64)
    positive = np.flatnonzero(array > 0)
    at = np.searchsorted(table, array[positive])
    hit = (
        table[np.minimum(at, len(table) - 1)] == array[positive]
        if len(table)
        else np.zeros(len(positive), bool)
    )
    found = _compiled.fastaudit.tier_winners(array, table)
    positions, codes = (np.frombuffer(b, np.int64) for b in found)
    assert positions.tolist() == positive[hit].tolist()
    assert codes.tolist() == (at[hit] + 1).tolist()


def test_the_compiled_sums_refuse_arrays_of_another_width() -> None:
    with pytest.raises(ValueError, match="int32"):
        _compiled.fastaudit.tallies(np.zeros(3, np.int16))
    with pytest.raises(ValueError, match="ascending"):
        _compiled.fastaudit.tier_winners(np.zeros(3, np.int32), np.array([5, 5], np.int64))


def test_a_module_built_before_the_sums_leaves_them_to_numpy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An editable install not built again after a pull has a ``_fastaudit`` without
    ``tallies``, ``between_sums`` or ``tier_winners``: the same results through numpy."""
    from conformance import _stats

    prizes = _random_prizes(11)
    want = (
        driver._tallies(prizes),
        driver._payout_and_curve(prizes, 3),
        [a.tolist() for a in _stats.tier_winners(prizes, [100, 500, 10_000])],
    )

    class Old:
        robots_chunk = _compiled.fastaudit.robots_chunk

    monkeypatch.setattr(_compiled, "fastaudit", Old())
    assert _compiled.compiled("tallies") is None
    got = (
        driver._tallies(prizes),
        driver._payout_and_curve(prizes, 3),
        [a.tolist() for a in _stats.tier_winners(prizes, [100, 500, 10_000])],
    )
    assert got == want
