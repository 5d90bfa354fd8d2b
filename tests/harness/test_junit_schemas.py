"""``junit.xml`` valid against the JUnit schemas CI servers apply (issue 29 item 7): Jenkins
xUnit's (``schemas/junit-10.xsd``: the plugin drops a file it rejects, such as one with
``skipped`` on ``<testsuites>``) and Maven Surefire's (``schemas/surefire-test-report.xsd``,
which GitLab's and most readers' notion of JUnit follows: its root is the one ``<testsuite>``);
and the suite's time is the run's wall time, not its checks' times added per requirement.
"""

from __future__ import annotations

import copy
import datetime as dt
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from reference import _strict_json as strict_json

from . import _runs

SCHEMAS = Path(__file__).parent / "schemas"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {
        "broken": _runs.broken_run(tmp_path_factory.mktemp("broken")),  # failures
        "hostile": _runs.hostile_run(tmp_path_factory.mktemp("hostile")),  # errors, waived
    }


@pytest.fixture(scope="module")
def xunit() -> xmlschema.XMLSchema10:
    return xmlschema.XMLSchema10(SCHEMAS / "junit-10.xsd")


@pytest.fixture(scope="module")
def surefire() -> xmlschema.XMLSchema10:
    return xmlschema.XMLSchema10(SCHEMAS / "surefire-test-report.xsd")


@pytest.mark.parametrize("run", ["broken", "hostile"])
def test_junit_is_valid_for_jenkins_xunit(
    runs: dict[str, Path], run: str, xunit: xmlschema.XMLSchema10
) -> None:
    tree = ET.parse(runs[run] / "junit.xml")
    xunit.validate(tree)
    root = copy.deepcopy(tree.getroot())
    root.set("skipped", "1")  # what the plugin refused: the schema can fail
    assert not xunit.is_valid(root)


@pytest.mark.parametrize("run", ["broken", "hostile"])
def test_junit_suite_is_valid_for_surefire(
    runs: dict[str, Path], run: str, surefire: xmlschema.XMLSchema10
) -> None:
    root = ET.parse(runs[run] / "junit.xml").getroot()
    (suite,) = root.findall("testsuite")
    surefire.validate(suite)
    outcomes = {child.tag for case in suite.iter("testcase") for child in case}
    assert {"failure", "skipped"} <= outcomes or {"error", "skipped"} <= outcomes, outcomes
    broken = copy.deepcopy(suite)
    next(broken.iter("testcase")).attrib.pop("time")  # required there: the schema can fail
    assert not surefire.is_valid(broken)


@pytest.mark.parametrize("run", ["broken", "hostile"])
def test_the_suite_time_is_the_wall_time(runs: dict[str, Path], run: str) -> None:
    doc = strict_json.loads((runs[run] / "report.json").read_bytes())
    wall = (
        dt.datetime.fromisoformat(doc["finished_at"]) - dt.datetime.fromisoformat(doc["started_at"])
    ).total_seconds()
    root = ET.parse(runs[run] / "junit.xml").getroot()
    for element in (root, root.find("testsuite")):
        assert element is not None
        assert float(element.get("time", "-1")) == pytest.approx(wall, abs=0.002)
