"""The hostile kit (tests/faulty/hostile.py) run through ``instantcert`` as a lab would (issue 11).

Each hostile target, file, case file, config and waiver file must end within its bound, with
the documented exit code, no traceback (nothing escapes ``main``), one line on stderr for an
input error, and reports that parse and show every outside string escaped.
"""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest
import yaml

from harness._cli import main
from harness._progress import ProgressHandler
from harness._reports import console
from reference import _strict_json as strict_json
from tests.faulty import hostile
from tests.faulty.certify import TEST_SETTINGS

SCHEMA = Path(__file__).parents[2] / "harness" / "schemas" / "report.schema.json"


def run_cli(
    argv: list[str], capsys: pytest.CaptureFixture[str], bound_s: float
) -> tuple[int, str, str]:
    """``instantcert ARGV`` in-process: (exit code, stdout, stderr). ``bound_s`` is what the
    command was expected to take; no test asserts a duration (a hang is the hang guard's)."""
    code = main(argv)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    return code, captured.out, captured.err


def one_line_error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err[:2000]
    assert not any(m in lines[0] for m in hostile.MARKUP), lines[0][:500]
    return lines[0]


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attrs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs.extend(name for name, _ in attrs)


# -- a target whose every string is hostile, through a whole certify run ----------------------


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Path, str]:
    folder = tmp_path_factory.mktemp("hostile")
    config = folder / "config.yaml"
    settings = {k: v for k, v in TEST_SETTINGS.items()}
    config.write_text(yaml.safe_dump({"settings": settings, "seed": 7}))
    out = folder / "out"
    stdout, stderr = io.StringIO(), io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(
            [
                "certify",
                "--target",
                "python:tests.faulty.hostile:hostile",
                "--config",
                str(config),
                "--profile",
                "quick",
                "--game",
                "robots",
                "--out",
                str(out),
            ]
        )
    text = stdout.getvalue() + stderr.getvalue()
    assert "Traceback" not in text
    return code, out, text


def test_the_hostile_target_fails_and_every_report_is_written(
    hostile_run: tuple[int, Path, str],
) -> None:
    code, out, terminal = hostile_run
    assert code == 1
    for name in ("report.json", "junit.xml", "report.md", "report.html", "manifest.json"):
        assert (out / name).is_file(), name
    doc = strict_json.loads((out / "report.json").read_bytes())  # no NaN, no Infinity
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    assert doc["implementation"]["name"] == hostile.HOSTILE  # kept whole in the data
    assert doc["verdict"]["overall"] == "NOT CERTIFIED"
    assert doc["failures"]
    for path in sorted(out.rglob("*.json")):  # report, ctrf, badge, manifest, cases
        strict_json.loads(path.read_bytes())
    assert "writing the" not in terminal, terminal[-2000:]  # no report failed to be written
    assert not any(m in terminal for m in ("\x1b[", "\x00", "\ud800", "\u202e")), terminal[-500:]


def test_html_shows_the_strings_as_text(hostile_run: tuple[int, Path, str]) -> None:
    _, out, _ = hostile_run
    page = (out / "report.html").read_text(encoding="utf-8")
    tags = Tags()
    tags.feed(page)
    assert "script" not in tags.tags and "img" not in tags.tags
    assert "onerror" not in tags.attrs
    assert "&lt;script&gt;" in page and "$x^2$" in page
    assert not any(m in page for m in hostile.MARKUP)


def test_markdown_renders_no_html_and_keeps_its_tables(hostile_run: tuple[int, Path, str]) -> None:
    """Rendered as GitHub would (raw HTML allowed, tables on), no tag of the target's appears,
    every table row has its header's number of cells, and no code fence is left open."""
    from markdown_it import MarkdownIt

    _, out, _ = hostile_run
    for name in ("report.md", "summary.md"):
        text = (out / name).read_text(encoding="utf-8")
        assert not any(m in text for m in ("\x1b[", "\x00", "\ud800", "\u202e")), name
        rendered = MarkdownIt("gfm-like", {"html": True, "linkify": False}).render(text)
        tags = Tags()
        tags.feed(rendered)
        assert "script" not in tags.tags and "img" not in tags.tags, name
        assert "onerror" not in tags.attrs
        for table in re.findall(r"<table>.*?</table>", rendered, flags=re.S):
            head = len(re.findall(r"<th[ >]", table.split("</thead>")[0]))
            for row in re.findall(r"<tr>(.*?)</tr>", table.split("</thead>")[-1], flags=re.S):
                assert len(re.findall(r"<td[ >]", row)) == head, (name, row[:300])
    # no fence left open by a target's string: the last section still renders as a heading
    assert "<h2>Requirements</h2>" in MarkdownIt("gfm-like", {"linkify": False}).render(
        (out / "report.md").read_text(encoding="utf-8")
    )


def test_junit_is_valid_xml_with_the_strings_readable(hostile_run: tuple[int, Path, str]) -> None:
    _, out, _ = hostile_run
    root = ET.parse(out / "junit.xml").getroot()
    text = ET.tostring(root, encoding="unicode")
    assert "\x1b" not in text and "\x00" not in text
    assert int(root.get("failures", "0")) >= 1


def test_console_and_progress_show_controls_as_escapes(hostile_run: tuple[int, Path, str]) -> None:
    _, out, _ = hostile_run
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    doc["requirements"][0]["message"] = "\x1b[31m" + hostile.HOSTILE
    shown = console.render(doc, verbose=True)
    assert "\x1b" not in shown and "\\x1b[31m" in shown
    stream = io.StringIO()
    progress = ProgressHandler(stream=stream, tty=False)
    progress._write(hostile.HOSTILE)
    assert "\x1b" not in stream.getvalue() and "\\x1b[31m" in stream.getvalue()


# -- a token no header can carry ----------------------------------------------------------------


def test_an_unsendable_token_fails_the_play_checks_blaming_the_target(tmp_path: Path) -> None:
    from tests.faulty.certify import certify
    from tests.faulty.http_bridge import bridge

    with bridge(hostile.UnsendableToken()) as url:
        from harness import open_target

        outcome = certify(open_target(url, timeout=10), target=url, games=["robots"])
    assert outcome.outcomes["security.tokens.required"] == "fail"
    play = [rid for rid in outcome.outcomes if rid.startswith("play.")]
    assert play and not [rid for rid in play if outcome.outcomes[rid] == "error"], {
        rid: outcome.messages[rid] for rid in play if outcome.outcomes[rid] == "error"
    }
    assert "Authorization header" in outcome.messages["security.tokens.required"]


# -- block files ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def block_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("blocks")
    good = folder / "good.jsonl.gz"
    assert (
        main(
            [
                "generate-block",
                "--game",
                "robots",
                "--count",
                "3000",
                "--seed",
                "00" * 32,
                "-o",
                str(good),
                "--workers",
                "1",
            ]
        )
        == 0
    )
    return hostile.block_files(good, folder)


@pytest.mark.parametrize("name", sorted(hostile.FAILING_FILES))
def test_a_damaged_block_file_fails_its_block_checks(
    name: str, block_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, _, _ = run_cli(["audit-block", str(block_files[name]), "--out", str(out)], capsys, 120)
    assert code == 1
    doc = strict_json.loads((out / "report.json").read_bytes())
    outcomes = {r["id"]: r["outcome"] for r in doc["requirements"]}
    assert outcomes[hostile.FAILING_FILES[name]] == "fail", outcomes
    assert "error" not in outcomes.values(), {k: v for k, v in outcomes.items() if v == "error"}
    ET.parse(out / "junit.xml")
    if name.endswith(".gz"):
        messages = json.dumps(doc["failures"])
        assert "truncated" in messages or "corrupt near byte" in messages


@pytest.mark.parametrize("name", hostile.UNUSABLE_FILES)
def test_a_block_file_without_a_usable_header_exits_2_in_one_line(
    name: str, block_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(
        ["audit-block", str(block_files[name]), "--out", str(tmp_path)], capsys, 60
    )
    assert code == 2
    one_line_error(err)


# -- case files ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(hostile.tampered_cases()))
def test_a_tampered_case_file_exits_2_in_one_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile.MARKER.unlink(missing_ok=True)
    case = tmp_path / "case.json"
    case.write_bytes(hostile.tampered_cases()[name])
    code, _, err = run_cli(["replay", str(case)], capsys, 60)
    assert code == 2, err
    line = one_line_error(err)
    assert str(case) in line
    assert not hostile.MARKER.exists(), "replay imported a module the case file named"
    if name.endswith("_target"):
        assert "--target" in line


def test_a_case_module_runs_only_when_given_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile.MARKER.unlink(missing_ok=True)
    case = tmp_path / "case.json"
    case.write_bytes(hostile.tampered_cases()["marker_target"])
    target = "python:tests.faulty.hostile_payload:factory"
    code, out, _ = run_cli(["replay", str(case), "--target", target], capsys, 60)
    assert code == 0 and "passes" in out
    assert hostile.MARKER.exists()  # the same module, named explicitly: imported
    hostile.MARKER.unlink()


def test_the_valid_case_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "case.json"
    case.write_text(json.dumps(hostile.valid_case()))
    code, out, _ = run_cli(["replay", str(case)], capsys, 60)
    assert code == 0 and "passes" in out


def test_a_case_path_that_is_a_directory_or_missing_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in (tmp_path, tmp_path / "missing.json"):
        code, _, err = run_cli(["replay", str(path)], capsys, 10)
        assert code == 2
        one_line_error(err)


# -- config and waiver files -----------------------------------------------------------------


def _certify_argv(tmp_path: Path, *extra: str) -> list[str]:
    return ["certify", "--requirement", "robots.4.6.x2", "--out", str(tmp_path / "out"), *extra]


@pytest.mark.parametrize("name", sorted(hostile.HOSTILE_CONFIGS))
def test_a_hostile_config_exits_2_in_one_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes(hostile.HOSTILE_CONFIGS[name])
    code, _, err = run_cli(_certify_argv(tmp_path, "--config", str(path)), capsys, 30)
    assert code == 2, err
    assert "config.yaml" in one_line_error(err)


@pytest.mark.parametrize("name", sorted(hostile.HOSTILE_WAIVERS))
def test_a_hostile_waivers_file_exits_2_in_one_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "waivers.yaml"
    path.write_bytes(hostile.HOSTILE_WAIVERS[name])
    code, _, err = run_cli(_certify_argv(tmp_path, "--waivers", str(path)), capsys, 30)
    assert code == 2, err
    assert "waivers.yaml" in one_line_error(err)


@pytest.mark.parametrize("flag", ["--config", "--waivers"])
def test_a_directory_or_a_missing_file_exits_2(
    flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in (tmp_path, tmp_path / "missing.yaml"):
        code, _, err = run_cli(_certify_argv(tmp_path, flag, str(path)), capsys, 30)
        assert code == 2
        one_line_error(err)


def test_a_bom_is_not_an_error_in_yaml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness._config import load_config_file

    path = tmp_path / "config.yaml"
    path.write_bytes(b"\xef\xbb\xbfprofile: quick\n")
    assert load_config_file(path)["profile"] == "quick"


# -- JSON that is not strict JSON ------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(hostile.NON_STRICT_ANSWERS))
def test_a_non_strict_json_answer_is_an_error_and_report_json_stays_json(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"settings": dict(TEST_SETTINGS), "profile": "quick"}))
    with hostile.serve_non_strict(name) as url:
        code, _, _ = run_cli(
            [
                "certify",
                "--target",
                url,
                "--config",
                str(config),
                "--requirement",
                "robots.4.6.x2",
                "--timeout",
                "10",
                "--out",
                str(out),
            ],
            capsys,
            120,
        )
    assert code == 1
    raw = (out / "report.json").read_bytes()
    doc = strict_json.loads(raw)  # no NaN, no Infinity, however the target wrote its numbers
    outcome = {r["id"]: r for r in doc["requirements"]}["robots.4.6.x2"]
    assert outcome["outcome"] == "error", outcome
    assert "strict JSON" in outcome["message"] or "not JSON" in outcome["message"], outcome


def test_the_case_files_a_run_writes_pass_the_case_schema(
    hostile_run: tuple[int, Path, str],
) -> None:
    """The schema refuses tampered cases, not the harness's own (every fast faulty variant's
    cases were checked the same way when the schema was written: 190 cases, 23 kinds/scenarios)."""
    from harness._cases import load_case

    _, out, _ = hostile_run
    cases = sorted((out / "cases").glob("*.json"))
    assert cases
    for case in cases:
        load_case(case)


def test_a_case_holding_an_answer_as_deep_as_a_target_may_send_still_loads(tmp_path: Path) -> None:
    from harness._cases import load_case

    case = hostile.valid_case()
    deepest: object = 1
    for _ in range(strict_json.MAX_DEPTH):  # the deepest answer the adapters accept
        deepest = [deepest]
    case["evidence"]["got"] = deepest
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case))
    assert load_case(path).evidence["got"] == deepest
