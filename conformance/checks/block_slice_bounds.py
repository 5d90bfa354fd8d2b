"""``blocks.slice_bounds`` (``blocks.contract3.slice``): slices at and past the block's end
(ending on its last unit, running past it, starting at it or past it) and of count 0: refused
with a 4xx, or exactly the block's units in [start, min(start + count, units)), each once, in
order; never units from elsewhere (a slice that wraps round to unit 0). A negative start or
count is no slice of the contract: refused, or answered with units of the block only (no index
outside it).

A block check, in a module of its own: a block audit (``audit-block``, capability ``blocks``)
loads it without the play scenarios (``conformance.checks._scenarios``), which its check
needs only against a server. Its scenario is a play scenario all the same (its evidence is
``PlayEvidence``, replayed by the ``play`` replayer): ``bounds`` registers it beside the other
bounds' scenarios. Which slices, and in which order, is drawn from the run's seed
(``case["seed"]``); a replay sends the same.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from contract import ErrorReply, ProtocolViolation
from reference import _strict_json as strict_json

from .._evidence import PlayEvidence
from .._file_target import block_file_of
from .._registry import CheckContext, CheckFailure, Evidence, NotSupported, check
from ._block_reading import of_pair

if TYPE_CHECKING:
    from ._scenarios import Session

SLICE = "blocks.contract3.slice"


def _rng(case: Mapping[str, Any], what: str) -> random.Random:
    return random.Random(f"{case['seed']}:{case.get('game')}:{case.get('stake_cents')}:{what}")


def _evidence(
    case: Mapping[str, Any], expected: Any, got: Any, note: str, request: Mapping[str, Any]
) -> PlayEvidence:
    """The evidence of the scenario's ``case`` (the play scenarios' ``evidence``)."""
    return PlayEvidence.of(case, expected, got, note, request)


# -- block slices at their bounds -----------------------------------------------------------


def slice_bounds(units: int, rng: random.Random) -> list[tuple[int, int]]:
    """(start, count) at and past the block's end, empty, and negative, in a drawn order."""
    near = rng.randint(2, 40)
    found = [
        (units - near, near),  # up to the last unit
        (units - near, near + rng.randint(1, 60)),  # past the end
        (units - 1, rng.randint(2, 9)),
        (units, 1),
        (units + rng.randint(1, 999), 3),
        (rng.randrange(units), 0),
        (-1, rng.randint(1, 9)),
        (rng.randrange(units), -rng.randint(1, 9)),
    ]
    rng.shuffle(found)
    return found


def _lines(session: Session, block_id: str, start: int, count: int) -> list[Any]:
    stream = session.adapter.read_block(block_id, start, count)
    try:
        return [strict_json.loads_block_line(line) for line in stream.lines()]
    finally:
        stream.close()


def scenario_slice_bounds(session: Session, case: Mapping[str, Any]) -> Evidence | None:
    """Every slice of ``slice_bounds``: refused (4xx, or no stream at all), or exactly the
    block's units in [start, min(start + count, units))."""
    block_id, units = case["block_id"], int(case["units"])
    judged = {**case, "requirement": SLICE}
    tail = max(0, units - 100)
    read = _lines(session, block_id, tail, units - tail)
    indices = [u.get("index") if isinstance(u, dict) else None for u in read]
    if indices != list(range(tail, units)):
        return None  # the block's own tail is out of sequence: the unit sequence's to judge
    truth = {u["index"]: u for u in read}
    for start, count in slice_bounds(units, _rng(case, "slices")):
        try:
            got = _lines(session, block_id, start, count)
        except ErrorReply as refusal:
            if 400 <= refusal.status < 500:
                continue
            raise
        except ProtocolViolation:
            continue  # a stream of another length than asked: the slice checks' to judge
        if start < 0 or count < 0:
            # no slice of the contract: refused, or answered with units of the block at most
            # (a target may clip it to nothing); never an index outside the block
            outside = [
                u.get("index")
                for u in got
                if not isinstance(u, dict)
                or type(u.get("index")) is not int
                or not 0 <= u["index"] < units
            ]
            if not outside:
                continue
            return _evidence(
                judged,
                f"a 4xx, or units of the block (indices 0..{units - 1})",
                {"units": len(got), "outside": outside[:6]},
                f"the slice start={start} count={count} of a block of {units} units held "
                f"unit lines outside the block (index {outside[0]!r})",
                {"operation": "read_block", "block_id": block_id, "start": start, "count": count},
            )
        first, end = start, min(start + count, units)
        want = [truth.get(i) for i in range(first, end)]
        if got != want:
            shown = [(u.get("index"), u.get("prize_cents")) for u in got[:6] if isinstance(u, dict)]
            return _evidence(
                judged,
                f"a 4xx, or units {first}..{end - 1} of the block (none past its end)",
                {"units": len(got), "first": shown},
                f"the slice start={start} count={count} of a block of {units} units held "
                f"{len(got)} unit lines, not the block's {max(0, end - first)}",
                {"operation": "read_block", "block_id": block_id, "start": start, "count": count},
            )
    return None


@check("blocks.slice_bounds", covers=[SLICE], capability="blocks")
def slice_bounds_check(ctx: CheckContext) -> None:
    """Slices at and past the end of a listed block, empty and negative: refused, or exactly
    the block's units there (none from elsewhere). Not for a block file: a file has no slice
    reads of its own (contract 3's ``?start=&count=`` is a server's), as ``blocks.slices``."""
    if block_file_of(ctx.adapter) is not None:
        raise NotSupported(
            "a block file has no slice reads of its own to test: contract 3's ?start=&count= "
            "is a server's"
        )
    from ._session import session  # against a server only: a block file has no slices

    target = session(ctx)
    pairs = [(g, s) for g in ctx.games() for s in ctx.stakes(g)]
    if not pairs:
        raise NotSupported("no game and stake in this run's scope")
    rng = random.Random(f"{ctx.seed}:slice_bounds")
    rng.shuffle(pairs)  # every game and stake (a stake's blocks may be served apart), in the
    # seed's order, a listed block of each drawn from the seed
    listed = 0
    for game, stake in pairs:
        blocks = of_pair(ctx.adapter.list_blocks(game, stake), game, stake)
        if not blocks:
            continue
        listed += 1
        block = rng.choice(blocks)
        case = {
            "kind": PlayEvidence.KIND,
            "scenario": "slice_bounds",
            "block_id": block["block_id"],
            "units": block["units"],
            "seed": ctx.seed,
        }
        found = scenario_slice_bounds(target, case)
        if found is not None:
            raise CheckFailure(found.note, [found], requirements=(SLICE,))
    if not listed:
        raise NotSupported("no block listed for any game and stake in this run's scope")
    ctx.details["stakes_judged"] = listed
