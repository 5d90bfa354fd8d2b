"""Reservations (issue 28): only the letter fails a run; a reading not met, something the
contract lets a target leave out, or a capability not declared is a reservation, and a full
run with one is CERTIFIED WITH RESERVATIONS, exit 0 unless ``--fail-on reservation``. Every
report format shows it in its own conventions."""

from __future__ import annotations

import datetime as dt
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance import Check, CheckContext, CheckFailure, Evidence, Reservation
from conformance._profiles import load_profile
from harness._compare import compare
from harness._events import Event, RunFinished
from harness._reference_adapter import ReferenceAdapter
from harness._reports import report_handlers
from harness._reports.badge import badge
from harness._reports.console import render as console
from harness._runner import Runner, RunPlan, RunResult
from harness._waivers import Waiver

from . import _support as support

ROOT = Path(__file__).resolve().parents[2]
REPORT_SCHEMA = ROOT / "harness" / "schemas" / "report.schema.json"
CTRF_SCHEMA = Path(__file__).parent / "schemas" / "ctrf.schema.json"
READ = "robots.4.6.x2"  # a requirement with clauses: a reading reserved on it
NO_CLAUSE = "robots.4.8.gauge"  # no clause of the catalogue maps to this test requirement
NO_PLAY = Waiver("play.4.1.history", "no play check here", dt.date(2999, 1, 1))


def reading(ctx: CheckContext) -> None:
    """Passes the letter, records a reading not met, and goes on."""
    ctx.reserve(
        Reservation(
            "created_at '2026-12-03 15:04:05' is ISO 8601 without an offset",
            basis="created-at",
            lift="answer RFC 3339",
            evidence=[Evidence({"kind": "play"}, "RFC 3339", "2026-12-03 15:04:05")],
            requirements=(READ,),
        )
    )


def fails_without_letter(ctx: CheckContext) -> None:
    """Fails a requirement no clause maps to: the runner must reserve it, not fail the run."""
    raise CheckFailure("a made-up rule", requirements=(NO_CLAUSE,))


def checks(*extra: Check) -> dict[str, Check]:
    found = support.make_checks()
    found.update({c.id: c for c in extra})
    return found


READING = Check("test.reading", (READ,), "evaluate", ("robots",), reading, "")
NO_LETTER = Check("test.no_letter", (NO_CLAUSE,), "evaluate", ("robots",), fails_without_letter, "")


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def handle(self, event: Event) -> None:
        self.events.append(event)

    def close(self) -> None:
        pass


def run(
    adapter: Any,
    extra: tuple[Check, ...] = (READING, NO_LETTER),
    out: Path | None = None,
    **plan: Any,
) -> tuple[RunResult, list[Event], str]:
    recorder = Recorder()
    stream = io.StringIO()
    handlers: list[Any] = [recorder]
    if out is not None:
        handlers += report_handlers(out, stream)
    runner = Runner(
        RunPlan(
            target="python:reference",
            profile="full",
            settings=load_profile("full"),
            seed=7,
            config={"profile": "full"},
            **plan,
        ),
        handlers,
        checks=checks(*extra),
        catalogue=support.CATALOGUE,
    )
    try:
        result = runner.run(adapter)
    finally:
        adapter.close()
    for handler in handlers[1:]:
        handler.close()
    return result, recorder.events, stream.getvalue()


@pytest.fixture(scope="module")
def reserved(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunResult, Path, str]:
    out = tmp_path_factory.mktemp("reserved")
    result, _, printed = run(ReferenceAdapter(), out=out, waivers=[NO_PLAY])
    return result, out, printed


def test_a_reading_not_met_certifies_with_reservations(
    reserved: tuple[RunResult, Path, str],
) -> None:
    result, _, _ = reserved
    outcomes = {v.id: v.outcome for v in result.requirements}
    assert outcomes[READ] == "reserved"
    assert outcomes[NO_CLAUSE] == "reserved"  # no clause: its failure is a reservation
    assert (result.verdict, result.exit_code) == ("CERTIFIED WITH RESERVATIONS", 0)
    bases = {(tuple(r["requirements"]), r["basis"]) for r in result.reservations}
    assert bases == {((READ,), "created-at"), ((NO_CLAUSE,), "no-clause")}
    assert "2 reservation(s)" in result.note
    verdict = next(v for v in result.requirements if v.id == READ)
    assert verdict.basis is not None and verdict.basis["letter"]  # its clauses


def test_fail_on_reservation_exits_1() -> None:
    result, _, _ = run(ReferenceAdapter(), waivers=[NO_PLAY], fail_on_reservation=True)
    assert (result.verdict, result.exit_code) == ("CERTIFIED WITH RESERVATIONS", 1)


def test_without_a_reservation_the_run_is_certified() -> None:
    result, _, _ = run(ReferenceAdapter(), extra=(), waivers=[NO_PLAY])
    assert (result.verdict, result.exit_code, result.reservations) == ("CERTIFIED", 0, [])


def test_a_failure_of_the_letter_still_fails() -> None:
    result, _, _ = run(support.broken_x2(), extra=(NO_LETTER,), waivers=[NO_PLAY])
    assert result.verdict == "NOT CERTIFIED" and result.exit_code == 1


class NoPlay(ReferenceAdapter):
    """The reference declaring no play (nor reveal): "an implementation may skip a whole
    capability"."""

    def describe(self) -> dict[str, Any]:
        described = dict(super().describe())
        described["capabilities"] = ["evaluate", "blocks"]
        return described


def test_a_capability_not_declared_is_outside_the_certificate() -> None:
    result, events, _ = run(NoPlay(), extra=())
    assert (result.verdict, result.exit_code) == ("CERTIFIED WITH RESERVATIONS", 0)
    assert result.scope is not None
    assert result.scope["covers"] == "certified for evaluate, blocks (robots, eldorado)"
    assert result.scope["left_out"] == [{"what": "capability play", "requirements": 1}]
    (scope,) = result.reservations
    assert (scope["kind"], scope["basis"], scope["requirements"]) == (
        "scope",
        "capability-skipped",
        [],
    )
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.scope == result.scope


def test_a_check_that_stops_at_a_reservation_is_reserved() -> None:
    def stops(ctx: CheckContext) -> None:
        raise Reservation(
            "one block listed", kind="unverifiable", basis="blocks-listed", lift="list two"
        )

    stopping = Check("test.stops", (READ,), "evaluate", ("robots",), stops, "")
    result, _, _ = run(ReferenceAdapter(), extra=(stopping,), waivers=[NO_PLAY])
    assert {v.id: v.outcome for v in result.requirements}[READ] == "reserved"
    (reservation,) = result.reservations
    assert reservation["kind"] == "unverifiable" and reservation["requirements"] == [READ]


# -- the reports ------------------------------------------------------------------------------


def test_report_json_carries_the_reservations(reserved: tuple[RunResult, Path, str]) -> None:
    _, out, _ = reserved
    doc = json.loads((out / "report.json").read_text())
    jsonschema.Draft202012Validator(json.loads(REPORT_SCHEMA.read_text())).validate(doc)
    assert doc["verdict"]["overall"] == "CERTIFIED WITH RESERVATIONS"
    assert len(doc["verdict"]["reservations"]) == 2
    assert doc["verdict"]["counts"]["reserved"] == 2
    req = next(r for r in doc["requirements"] if r["id"] == READ)
    assert req["reservations"][0]["lift"] == "answer RFC 3339"


def test_junit_reports_a_reservation_as_a_passed_testcase(
    reserved: tuple[RunResult, Path, str],
) -> None:
    _, out, _ = reserved
    root = ET.parse(out / "junit.xml").getroot()
    suite = root.find("testsuite")
    assert suite is not None and suite.get("failures") == "0" and suite.get("errors") == "0"
    case = next(c for c in suite.iter("testcase") if c.get("name", "").startswith(READ))
    assert [child.tag for child in case] == ["system-out"]  # passed: no failure, no properties
    assert "reservation: robots.4.6.x2: a reading not met" in (case.findtext("system-out") or "")
    names = [p.get("name") for p in suite.iter("property")]
    assert names.count("reservation") == 2
    assert all(c.find("properties") is None for c in suite.iter("testcase"))


def test_ctrf_reports_a_reservation_as_a_passed_test(
    reserved: tuple[RunResult, Path, str],
) -> None:
    _, out, _ = reserved
    doc = json.loads((out / "ctrf.json").read_text())
    jsonschema.Draft7Validator(json.loads(CTRF_SCHEMA.read_text())).validate(doc)
    test = next(t for t in doc["results"]["tests"] if t["name"].startswith(READ))
    assert (test["status"], test["rawStatus"]) == ("passed", "reserved")
    assert "reserved" in test["tags"] and test["stdout"][0].startswith("reservation: ")
    assert test["extra"]["reservations"][0]["basis"] == "created-at"
    assert doc["results"]["summary"]["failed"] == 0
    assert doc["results"]["summary"]["extra"]["verdict"] == "CERTIFIED WITH RESERVATIONS"


def test_every_human_report_lists_the_reservations(
    reserved: tuple[RunResult, Path, str],
) -> None:
    _, out, printed = reserved
    for name in ("report.md", "summary.md", "report.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert "Reservations (2)" in text, name
        assert "CERTIFIED WITH RESERVATIONS" in text, name
        assert "answer RFC 3339" in text, name
    assert "reservations (2):" in printed and "to lift it: answer RFC 3339" in printed
    assert printed.rstrip().splitlines()[-2].startswith("CERTIFIED WITH RESERVATIONS: ")
    doc = json.loads((out / "report.json").read_text())
    assert badge(doc)["color"] == "yellowgreen"
    assert "scope: certified for evaluate, blocks, play, reveal" in console(doc)


def test_compare_a_new_reservation_is_no_regression(
    reserved: tuple[RunResult, Path, str], tmp_path: Path
) -> None:
    _, out, _ = reserved
    new = json.loads((out / "report.json").read_text())
    old = json.loads(json.dumps(new))
    for req in old["requirements"]:
        if req["outcome"] == "reserved":
            req["outcome"], req["reservations"] = "pass", []
    old["verdict"]["overall"], old["verdict"]["reservations"] = "CERTIFIED", []
    result = compare(old, new)
    assert result["regressions"] == [] and result["exit_code"] == 0
    assert {e["id"] for e in result["changed_outcome"]} == {READ, NO_CLAUSE}
    assert (result["old"]["reservations"], result["new"]["reservations"]) == (0, 2)


# -- --fail-on reservation and its config key -----------------------------------------------------


def test_fail_on_is_a_config_key_and_a_flag(tmp_path: Path) -> None:
    from harness._config import build_config
    from harness._errors import ConfigError

    path = tmp_path / "c.yaml"
    path.write_text("fail_on: [reservation]\n")
    assert build_config(path, {}).fail_on == ("reservation",)
    assert build_config(None, {"fail_on": ["reservation"]}).fail_on == ("reservation",)
    assert build_config(None, {}).fail_on == ()
    path.write_text("fail_on: [reservations]\n")
    with pytest.raises(ConfigError, match="did you mean 'reservation'"):
        build_config(path, {})


def test_the_cli_flag_reaches_the_exit_code(tmp_path: Path) -> None:
    from harness._cli import main

    argv = ["certify", "--target", "python:reference", "--profile", "quick", "--seed", "3"]
    argv += ["--requirement", "robots.4.6.x2", "--out", str(tmp_path / "out")]
    assert main([*argv, "--fail-on", "reservation"]) == 0  # quick: INCOMPLETE, no reservation
    with pytest.raises(SystemExit) as bad:
        main([*argv, "--fail-on", "reservations"])
    assert bad.value.code == 2


class LongName(ReferenceAdapter):
    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "name": "n" * 300_000}


def test_a_long_name_is_cut_and_reserved_not_refused() -> None:
    from harness._events import RunStarted

    result, events, _ = run(LongName(), extra=(), waivers=[NO_PLAY])
    assert (result.verdict, result.exit_code) == ("CERTIFIED WITH RESERVATIONS", 0)
    (reservation,) = result.reservations
    assert reservation["basis"] == "name-length" and "300,000 characters" in reservation["message"]
    started = events[0]
    assert isinstance(started, RunStarted) and started.implementation is not None
    assert len(started.implementation["name"]) < 400


def test_every_verdict_is_in_both_schemas() -> None:
    from harness._runner import VERDICTS

    report = json.loads(REPORT_SCHEMA.read_text())
    compared = json.loads((ROOT / "harness" / "schemas" / "compare.schema.json").read_text())
    assert report["properties"]["verdict"]["properties"]["overall"]["enum"] == list(VERDICTS)
    assert compared["$defs"]["run"]["properties"]["verdict"]["enum"] == list(VERDICTS)
