"""Misbehaving targets: certify ends within its timeouts, never crashes or hangs, marks what the
misbehaviour touched as *error* with a message that says what happened, and writes every
report.

Each target breaks one endpoint (``misbehaving.MISBEHAVIOURS``); the run covers the
requirements of the capability that endpoint serves, on one game, with a 1-second timeout.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._reports import REPORT_FILES

from .misbehaving import MISBEHAVIOURS, certify_misbehaving

#: A stream cut mid-line and a stream longer than asked are the target's misbehaviour: protocol
#: violations (error), never judged as block faults (fail).
BROKEN_STREAMS = ("cut_block_stream", "flood_block_stream")


@pytest.mark.parametrize("name", sorted(MISBEHAVIOURS))
def test_harness_survives(name: str, tmp_path: Path) -> None:
    bad = MISBEHAVIOURS[name]
    outcome, _ = certify_misbehaving(name, tmp_path)  # a run that hung: the hang guard fails it
    for report in REPORT_FILES:
        assert (tmp_path / report).is_file(), f"{name}: {report} not written"
    written = json.loads((tmp_path / "report.json").read_text())
    assert written["verdict"]["overall"] == outcome.verdict
    # a broken describe: the smoke step failed, the run could not start (exit 2)
    assert outcome.exit_code == (2 if bad.affected == "all" else 1), outcome.note
    assert outcome.verdict != "CERTIFIED"
    touched = outcome.errored + outcome.failed
    assert touched, f"{name}: nothing was marked: {outcome.note}"
    assert not outcome.failed, f"{name}: a misbehaving target was judged on the rules"
    for rid in outcome.errored:
        message = outcome.messages[rid].lower()
        assert any(word in message for word in bad.message_words), (rid, message[:300])


@pytest.mark.parametrize("name", BROKEN_STREAMS)
def test_broken_stream_is_an_error(name: str, tmp_path: Path) -> None:
    outcome, _ = certify_misbehaving(name, tmp_path)
    assert outcome.errored and not outcome.failed, outcome.failed


def test_every_misbehaviour_of_the_issue() -> None:
    kinds = {name.split("_")[0] for name in MISBEHAVIOURS}
    assert {"hang", "slow", "status", "malformed", "truncated", "wrong", "cut", "flood"} <= kinds
