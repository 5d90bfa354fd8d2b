"""Correct targets that speak HTTP differently (``wire_variants``), certified over HTTP with
the tests' profile: none may end with a *fail* or an *error* outcome.

The HTTP/1.0 server with an accept backlog of 5 is certified at the concurrency of a busy run
(24 threads buying at once): its queue overflows, and connections are reset or closed before
any answer (before the transport sent safe requests again, settled lost plays and lowered its
concurrency, eight requirements of this very run ended in *error*: docs/http-api.md). The
report's ``transport`` object says what the transport did; against the rate-limited variants
(429 with and without ``Retry-After``, 503 with it), the answers it waited on before sending
the request again (docs/http-api.md, "A target that asks for patience").
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from harness import open_target

from ._base import reference_adapter
from .certify import certify
from .wire_variants import WIRE_RESERVATIONS, WIRE_VARIANTS, WireServer, wire_variant

SCHEMA = json.loads(
    (Path(__file__).parents[2] / "harness" / "schemas" / "report.schema.json").read_text()
)
BUSY = {"concurrency_threads": 24}  # the concurrency at which the backlog of 5 overflows


@pytest.mark.slow  # each a whole run over HTTP; the fast tier reads each wire form in
# tests/harness/test_http_adapter_faults.py and test_http_deadlines.py
@pytest.mark.parametrize("name", sorted(WIRE_VARIANTS))
def test_wire_variant_certified_over_http(name: str, tmp_path: Path) -> None:
    settings = BUSY if name == "http10_backlog5" else None
    with wire_variant(name) as url:
        outcome = certify(open_target(url, timeout=20), target=url, settings=settings, out=tmp_path)
    bad = {r: outcome.messages[r][:300] for r in outcome.failed + outcome.errored}
    assert not bad, f"{name} is correct but was rejected: {bad}"
    report = json.loads((tmp_path / "report.json").read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    assert report["transport"]["lost"] == 0, report["transport"]
    if WIRE_VARIANTS[name].get("rate"):  # refused past its limits, waited on, sent again
        assert report["transport"]["rate_limited"] > 0, report["transport"]
    bases = {r["basis"] for r in outcome.reservations}
    assert bases == WIRE_RESERVATIONS.get(name, frozenset()), outcome.reservations


@pytest.mark.slow  # a run of the money requirement over HTTP
def test_integers_through_float_euros_stay_caught(tmp_path: Path) -> None:
    """Integers written ``100.0`` are read as integers (row ``integer-forms``), but a wallet
    whose answers go through float euros writes 115 cents as ``114.99999999999999``: no
    integer, so never certified (the answer is no document of the contract)."""
    with WireServer(reference_adapter(name="wire:euro_floats"), json_form="euro_floats") as url:
        outcome = certify(
            open_target(url, timeout=20),
            target=url,
            requirements=["play.money.exact"],
            out=tmp_path,
        )
    assert outcome.verdict == "INCOMPLETE", outcome.verdict
    assert outcome.outcomes["play.money.exact"] in ("fail", "error"), outcome.messages
    assert "must be of JSON type integer" in outcome.messages["play.money.exact"]
