"""A command pays at start-up for its own imports only (issue 12: speed as users feel it)."""

from __future__ import annotations

import gc
import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness._cli import build_parser, main

PROBE = """
import contextlib, io, json, sys
from harness._cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
heavy = ("requests", "scipy", "jsonschema", "hypothesis", "starlette", "cryptography")
loaded = sorted(m for m in sys.modules if m.startswith("harness._cli.") or m in heavy)
print(json.dumps({"code": code, "loaded": loaded}))
"""


def python(code: str, *argv: str) -> str:
    """What ``code`` prints, run in a fresh interpreter (a module loaded before cannot hide)."""
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def loaded_by(*argv: str, probe: str = PROBE) -> dict[str, object]:
    result: dict[str, object] = json.loads(python(probe, *argv).strip().splitlines()[-1])
    return result


def test_evaluate_loads_neither_the_other_commands_nor_the_harness_stack() -> None:
    seen = loaded_by("evaluate", "--game", "robots", "DQTCSPHO|D D D T T C C C C C S S S S S S P P")
    assert seen["code"] == 0
    assert seen["loaded"] == ["harness._cli.evaluate"]


@pytest.mark.parametrize("argv", [["--help"], ["nosuchcommand"]])
def test_help_and_unknown_commands_still_list_every_command(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        build_parser(argv).parse_args(argv)
    shown = capsys.readouterr()
    for name in ("audit-block", "certify", "compare", "evaluate", "verify"):
        assert name in shown.out + shown.err


def test_the_check_registry_loads_no_statistics_library() -> None:
    """scipy loads only when an exact Kolmogorov-Smirnov path first needs its ``smirnov``
    (conformance._scipy), never with the registry or the statistics."""
    probe = (
        "import sys; from conformance import registered_checks; registered_checks(); "
        "from conformance import _stats; _stats.holm; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))"
    )
    assert python(probe).strip() == "[]"


def test_strategies_load_on_first_use_with_hypothesis_pinned() -> None:
    """The check registry and the game kits load without hypothesis; the first strategy a
    check reads imports it, ``conformance._hypothesis`` (the seed-only draws) first."""
    probe = (
        "import sys; from conformance import registered_checks; registered_checks(); "
        "from conformance.games import kits; ks = kits(); "
        "before = 'hypothesis' in sys.modules; "
        "ks[0].valid_tickets(); "
        "print(before, 'conformance._hypothesis' in sys.modules, "
        "'conformance.strategies' in sys.modules)"
    )
    assert python(probe).split() == ["False", "True", "True"]


def test_audit_block_loads_no_http_stack_and_inflates_with_isal(tmp_path: Path) -> None:
    """``audit-block`` of a ``.jsonl.gz`` pays for its own command and the report writers,
    not for the HTTP client or server; its block file is inflated by python-isal (issue 12),
    the ``.gz`` read with zlib only where isal meets damage."""
    path = tmp_path / "b.jsonl.gz"
    args = ["generate-block", "--game", "eldorado", "--stake-cents", "100", "--seed", "ab" * 32]
    args += ["--start", "0", "--count", "3000", "-o", str(path)]
    assert main(args) == 0
    probe = PROBE.replace(
        "print(json.dumps(",
        "from conformance._audit import reader\n"
        f"assert reader.open_document({str(path)!r}).fast\n"
        "print(json.dumps(",
    ).replace(
        '"cryptography")',
        '"cryptography", "uvicorn", "httpx", "isal", "tabulate", "tqdm", "importlib.metadata", '
        '"conformance.checks.play", "conformance.checks.sessions", '
        '"conformance.checks._robots_classify", "conformance.checks._eldorado_classify")',
    )
    seen = loaded_by("audit-block", str(path), "--out", str(tmp_path / "r"), probe=probe)
    assert seen["code"] == 0
    loaded = set(seen["loaded"])
    assert not loaded & {"requests", "starlette", "uvicorn", "httpx"}
    # no property-based check runs: hypothesis and the strategies load on first use only
    # (conformance._lazy), and an unsigned run never loads cryptography
    assert not loaded & {"hypothesis", "cryptography"}
    # the harness's own file target answers describe() itself: no schema to hold it to
    assert "jsonschema" not in loaded
    # the randomness laws need no scipy (conformance._special); the summary table no tabulate
    # (nor the importlib.metadata it loads); a run whose stderr is no terminal no tqdm bar
    assert not loaded & {"scipy", "tabulate", "importlib.metadata", "tqdm"}
    assert "isal" in loaded
    # the block checks alone load (conformance.checks.MODULES_OF_CAPABILITY), and the kits
    # without their probe classifiers
    assert not {m for m in loaded if m.startswith("conformance.")}
    assert {m for m in loaded if m.startswith("harness._cli.")} == {
        "harness._cli.audit_block",
        "harness._cli.certify",  # execute_run, the shared run-and-report path
    }


@pytest.mark.parametrize("preset", [None, "4"])
def test_the_command_runs_openblas_on_one_thread_unless_told(
    monkeypatch: pytest.MonkeyPatch, preset: str | None
) -> None:
    """OpenBLAS's worker threads spin after each (small) product, on the cores the audit needs:
    one thread, unless the user set ``OPENBLAS_NUM_THREADS`` (read as numpy loads)."""
    import harness._budget
    import harness._cli as cli

    if preset is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", preset)
    exits: list[int] = []
    monkeypatch.setattr(cli, "main", lambda **_: 0)
    monkeypatch.setattr(harness._budget, "exit_process", exits.append)
    monkeypatch.setattr(cli._codecache, "install", lambda: None)  # this process's dataclasses
    try:
        cli.entry_point()
    finally:
        gc.enable()  # the entry point holds collections back while modules load
    assert exits == [0]
    assert os.environ["OPENBLAS_NUM_THREADS"] == (preset or "1")


NOT_FOR_A_BLOCK_AUDIT = (
    "conformance.checks._scenarios",  # the play scenarios (and the checks that play)
    "conformance.checks.bounds",
    "conformance.checks.play",
    "reference._server",  # the reference's HTTP server and its service
    "reference._service",
    "reference._render",  # its block renderer's worker pool
    "harness._http_adapter",  # the HTTP client of a target
    "harness._reference_adapter",
    "multiprocessing",  # process pools: a block with a faulty chunk, or drawn examples only
    "concurrent.futures.process",
    "email",  # the HTTP date parser the play scenarios load
    "fractions",
)
"""Modules (and their submodules) an ``audit-block`` run of a clean block never needs
(issue 32, item 5: start-up paid only for what the run needs)."""


def test_audit_block_loads_no_play_scenario_server_or_process_pool(tmp_path: Path) -> None:
    """A block audit loads the block checks, the audit and the reports: not the play
    scenarios (``blocks.slice_bounds`` is in a module of its own), the reference's server, an
    HTTP target, nor multiprocessing (loaded with the first process pool)."""
    path = tmp_path / "b.jsonl.gz"
    args = ["generate-block", "--game", "robots", "--stake-cents", "100", "--seed", "cd" * 32]
    args += ["--start", "0", "--count", "2000", "-o", str(path)]
    assert main(args) == 0
    probe = PROBE.replace(
        'loaded = sorted(m for m in sys.modules if m.startswith("harness._cli.") or m in heavy)',
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('conformance', 'reference', "
        "'harness', 'multiprocessing', 'concurrent', 'email', 'fractions', 'yaml'))",
    )
    seen = loaded_by("audit-block", str(path), "--out", str(tmp_path / "r"), probe=probe)
    assert seen["code"] == 0
    loaded = set(seen["loaded"])
    assert "conformance.checks.blocks" in loaded  # the probe sees what it must
    unwanted = {
        m for m in loaded for name in NOT_FOR_A_BLOCK_AUDIT if m == name or m.startswith(name + ".")
    }
    assert not unwanted, f"loaded by audit-block, which does not need them: {sorted(unwanted)}"
    # the shipped YAML files are read parsed ahead at build (reference._yaml): no PyYAML,
    # unless one was edited since this install was built (then it is parsed, as it must be)
    if _yaml_parsed_ahead():
        assert not {m for m in loaded if m.split(".")[0] == "yaml"}


def _yaml_parsed_ahead() -> bool:
    """Every YAML file the packages ship is in the install's table of parsed files."""
    from reference import _yaml

    try:
        with open(_yaml.PARSED, "rb") as handle:
            table = marshal.load(handle)
    except OSError:
        return False
    root = Path(__file__).resolve().parents[2]
    shipped = [p for d in ("reference", "conformance") for p in (root / d).rglob("*.yaml")]
    return all(_yaml.digest(p.read_bytes()) in table for p in shipped)


HELP_PROBE = """
import contextlib, io, json, sys
from harness._cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
heavy = ("numpy", "reference")
loaded = sorted(m for m in sys.modules if m.startswith("harness._cli.") or m in heavy)
print(json.dumps({"code": code, "loaded": loaded}))
"""


@pytest.mark.parametrize(
    ("argv", "code"), [(["--help"], 0), (["--version"], 0), ([], 2), (["certfy"], 2)]
)
def test_help_loads_no_command_module(argv: list[str], code: int) -> None:
    """``instantcert --help`` (and a command line naming no command) lists the commands from
    their modules' sources: no command's imports (numpy, the reference: 0.2 s)."""
    seen = loaded_by(*argv, probe=HELP_PROBE)
    assert seen == {"code": code, "loaded": []}


def test_the_commands_listed_without_loading_them_are_the_modules_own() -> None:
    import harness._cli as cli

    assert cli._summaries() == [(m.NAME, m.HELP) for m in cli._modules()]


LOADED_PROBE = """
import contextlib, io, json, sys
from harness._cli import main
calls = []
def loaded():
    calls.append("harness._cli.certify" in sys.modules)
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:], loaded=loaded)
print(json.dumps({"code": code, "calls": calls}))
"""


def test_audit_block_says_loaded_once_its_run_is_loaded(tmp_path: Path) -> None:
    """``main``'s ``loaded`` (the entry point's garbage collector turned back on) runs once:
    for ``audit-block`` (``LOADS_IN_RUN``) after ``run`` has imported its run's modules, not
    when the command's module is imported; once as well when the run stops before (a usage
    error); for any other command as soon as its module is imported."""
    path = tmp_path / "b.jsonl.gz"
    args = ["generate-block", "--game", "eldorado", "--stake-cents", "100", "--seed", "ab" * 32]
    args += ["--start", "0", "--count", "3000", "-o", str(path)]
    assert main(args) == 0
    out = str(tmp_path / "r")
    seen = loaded_by("audit-block", str(path), "--out", out, probe=LOADED_PROBE)
    assert seen == {"code": 0, "calls": [True]}
    missing = loaded_by("audit-block", str(tmp_path / "no.jsonl"), probe=LOADED_PROBE)
    assert missing == {"code": 2, "calls": [False]}
    other = loaded_by("evaluate", "--game", "robots", "DQTCSPHO|D", probe=LOADED_PROBE)
    assert other["calls"] == [False]
