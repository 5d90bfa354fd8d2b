"""Test doubles for the runner and report tests: a small catalogue and checks, and the
faulty targets they run by name (the broken adapters themselves are in tests/faulty/_wrapped.py).

The checks here are real (they talk to the target and compare with the reference), but few and
fast, so the runner's and the reports' behaviour is tested apart from the whole suite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import reference
import reference.robots
from conformance import Check, CheckContext, CheckFailure, Evidence, NotSupported, Requirement
from tests.faulty._wrapped import BrokenX2Adapter, UnreachableAdapter

X2_TICKET = "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C"  # contract 1: wins 100 (diamond)
ELDORADO_TICKET = "YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS"  # contract 1: 4 pyramids + 5 suns


def requirement(
    rid: str,
    capability: str = "evaluate",
    required: bool = True,
    interpretations: tuple[str, ...] = (),
) -> Requirement:
    game = rid.split(".")[0]
    article = f"{game} {rid.split('.')[1]}" if game in reference.GAMES else "contract 4"
    return Requirement(rid, article, f"title of {rid}", capability, required, interpretations)


CATALOGUE: dict[str, Requirement] = {
    r.id: r
    for r in (
        requirement("robots.4.6.x2", interpretations=("R-I3",)),
        requirement("robots.4.8.gauge"),
        requirement("eldorado.4.4.rows", interpretations=("E-I1",)),
        requirement("robots.3.lot_table", capability="blocks"),
        requirement("play.4.1.history", capability="play"),
        requirement("robots.9.optional", required=False),
    )
}


def _evaluate_ticket(ctx: CheckContext, game: str, stake: int, ticket: str) -> None:
    expected = reference.evaluate(game, stake, ticket)
    got = ctx.adapter.evaluate(game, stake, [ticket])[0]
    if got.get("prize_cents") != expected["prize_cents"]:
        raise CheckFailure(
            f"{game} ticket {ticket!r}: prize {got.get('prize_cents')!r}, expected "
            f"{expected['prize_cents']}",
            [
                Evidence(
                    {"kind": "evaluate", "game": game, "stake_cents": stake, "ticket": ticket},
                    expected,
                    got,
                    {
                        "operation": "evaluate",
                        "game": game,
                        "stake_cents": stake,
                        "tickets": [ticket],
                    },
                )
            ],
            requirements=("robots.4.6.x2",) if game == "robots" else None,
        )


def robots_x2(ctx: CheckContext) -> None:
    """The contract's X2 example wins 1 €."""
    for _ in ctx.games(("robots",)):
        ctx.progress(0, 1, "tickets")
        _evaluate_ticket(ctx, "robots", 100, X2_TICKET)
        ctx.progress(1, 1, "tickets")
        ctx.details["tickets"] = 1


def eldorado_rows(ctx: CheckContext) -> None:
    """The contract's eldorado example at every stake in scope."""
    for stake in ctx.stakes("eldorado"):
        _evaluate_ticket(ctx, "eldorado", stake, ELDORADO_TICKET)


def block_lots(ctx: CheckContext) -> None:
    """Reports one (made-up but consistent) audited block so the block reports have data."""
    table = reference.robots.robots_rules().lot_table(100)
    counts = {str(k): v for k, v in table.counts().items()}
    ctx.block_sink(
        {
            "block_id": "robots-100-test",
            "game": "robots",
            "stake_cents": 100,
            "units": table.block_units,
            "audited_units": table.block_units,
            "sha256": "0" * 64,
            "header": {"format": "block/1", "vendor_field": "kept"},
            "lots_expected": counts,
            "lots_observed": counts,
            "payout_cents": table.total_prize_cents,
            "face_value_cents": table.face_value_cents,
            "p_values": {"chi2 1000": 0.41, "runs": 0.73, "serial": 0.002},
            "cumulative_payout": [
                [i, table.total_prize_cents * i // table.block_units]
                for i in range(0, table.block_units + 1, 100_000)
            ],
        }
    )


def play_unsupported(ctx: CheckContext) -> None:
    """Stands for a play check on a target without play."""
    raise NotSupported("no play here")


def make_checks() -> dict[str, Check]:
    def check(
        cid: str, covers: Sequence[str], capability: str, games: tuple[str, ...], function: Any
    ) -> Check:
        return Check(cid, tuple(covers), capability, games, function, function.__doc__ or "")

    checks = [
        check(
            "robots_rules.x2",
            ["robots.4.6.x2", "robots.4.8.gauge"],
            "evaluate",
            ("robots",),
            robots_x2,
        ),
        check(
            "eldorado_rules.rows", ["eldorado.4.4.rows"], "evaluate", ("eldorado",), eldorado_rows
        ),
        check("blocks.lots", ["robots.3.lot_table"], "blocks", ("robots",), block_lots),
        check(
            "play.history", ["play.4.1.history"], "play", ("robots", "eldorado"), play_unsupported
        ),
    ]
    return {c.id: c for c in checks}


def broken_x2() -> BrokenX2Adapter:
    """``python:tests.harness._support:broken_x2``: a target for the CLI tests."""
    return BrokenX2Adapter(name="python:tests.harness._support:broken_x2")


def unreachable() -> UnreachableAdapter:
    return UnreachableAdapter(name="python:tests.harness._support:unreachable")
