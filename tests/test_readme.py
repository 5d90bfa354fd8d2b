"""The README works as pasted: its shell blocks, checked against the real CLI, so they cannot drift.

Every command after the two set-up commands must call the virtual environment's programs as
``.venv/bin/...`` (or be a shell builtin or a coreutil), every ``instantcert`` subcommand and
flag must parse with the real argparse parser, every ``pytest`` flag must exist, and every
target, port, file and case it names must exist or be made by an earlier command.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from harness._cli import build_parser
from tests._plugin import plugin_args

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAIN_JOB = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/instantcert certify"
TEST_JOB = "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' && .venv/bin/pytest"
VENV_PROGRAMS = {"instantcert", "pytest", "python", "pip", "ruff", "mypy"}
SHELL_WORDS = {
    "cd", "echo", "kill", "sleep", "test", "true", "false", "wait", "export", "set", "cat", "ls",
    "rm", "mkdir", "head", "tail", "sha256sum", "cp", "mv", "gzip", "wc", "seq", "env",
}  # fmt: skip
OPERATORS = {"&&", "||", ";", "|", "&"}
REDIRECTIONS = {">", ">>", "<", ">&", "<&", "&>"}


def shell_blocks(text: str) -> list[str]:
    """The bodies of the ```sh blocks, in order."""
    return re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M)


@dataclass(frozen=True)
class Command:
    words: tuple[str, ...]
    line: str
    background: bool


def commands(block: str) -> Iterator[Command]:
    """Each simple command of a block: words without redirections, comments or operators."""
    for line in block.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        tokens = list(lexer)
        words: list[str] = []
        skip = False
        for n, token in enumerate(tokens):
            if skip:
                skip = False
                continue
            if token in OPERATORS:
                if words:
                    yield Command(tuple(words), line, token == "&")
                words = []
            elif token in REDIRECTIONS:
                skip = True  # the file or descriptor it redirects to
            elif token.isdigit() and n + 1 < len(tokens) and tokens[n + 1] in REDIRECTIONS:
                continue  # the descriptor of "2>&1"
            else:
                words.append(token)
        if words:
            yield Command(tuple(words), line, False)


def later_commands() -> list[Command]:
    blocks = shell_blocks(README.read_text(encoding="utf-8"))
    return [c for block in blocks[2:] for c in commands(block)]


@cache
def pytest_help() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *plugin_args(), "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


def test_the_two_set_up_commands_come_first_as_written() -> None:
    blocks = shell_blocks(README.read_text(encoding="utf-8"))
    assert [b.strip() for b in blocks[:2]] == [MAIN_JOB, TEST_JOB]


def test_ci_runs_the_readme_install_and_tests() -> None:
    """.ci/run installs exactly as the README's test command says and runs its pytest."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install, _, tests = TEST_JOB.rpartition(" && ")
    assert install in ci
    assert re.search(rf"^\s*(echo .*; )?{re.escape(tests)}\s*$", ci, flags=re.M), ci


def test_every_later_command_calls_the_venv_or_the_shell() -> None:
    found = later_commands()
    assert len(found) >= 8, found
    for command in found:
        program = command.words[0]
        if re.fullmatch(r"[A-Za-z_]\w*=\S*", program) and len(command.words) == 1:
            continue  # SERVER=$!
        if program.startswith(".venv/bin/"):
            assert program.removeprefix(".venv/bin/") in VENV_PROGRAMS, command.line
        else:
            assert program in SHELL_WORDS, f"{program!r} is neither .venv/bin/...: {command.line}"
        assert not any("<" in w or ">" in w for w in command.words), f"placeholder: {command.line}"


def _instantcert_args() -> list[tuple[list[str], str]]:
    return [
        (list(c.words[1:]), c.line)
        for c in later_commands()
        if c.words[0] == ".venv/bin/instantcert"
    ]


def test_every_instantcert_command_parses_with_the_real_parser(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = build_parser()
    found = _instantcert_args()
    assert {args[0] for args, _ in found} >= {"serve", "certify", "replay"}
    for args, line in found:
        try:
            parser.parse_args(args)
        except SystemExit as exc:
            assert exc.code == 0, f"{line}: {capsys.readouterr().err}"


def test_a_wrong_flag_would_be_caught(capsys: pytest.CaptureFixture[str]) -> None:
    """The parser check can fail: a flag the CLI lacks exits 2."""
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(["certify", "--targett", "http://127.0.0.1:8080"])
    assert exc.value.code == 2
    assert "--targett" in capsys.readouterr().err


def test_every_pytest_flag_exists() -> None:
    runs = [c for c in later_commands() if c.words[0] == ".venv/bin/pytest"]
    assert runs, "the README shows the suite under pytest"
    for run in runs:
        for word in run.words[1:]:
            if word.startswith("-"):
                flag = word.split("=", 1)[0]
                assert re.search(rf"(^|[\s,]){re.escape(flag)}\b", pytest_help(), flags=re.M), (
                    f"pytest has no {flag}: {run.line}"
                )


def test_targets_ports_and_files_exist_or_are_made_first() -> None:
    parser = build_parser()
    ports: set[int] = set()
    made: set[str] = set()
    for command in later_commands():
        words = list(command.words)
        if words[0] == ".venv/bin/python" and len(words) > 1:
            assert (ROOT / words[1]).is_file(), command.line
            if "--port" in words:
                ports.add(int(words[words.index("--port") + 1]))
        if words[0] != ".venv/bin/instantcert":
            for url_port in re.findall(r"http://127\.0\.0\.1:(\d+)", " ".join(words)):
                assert int(url_port) in ports, f"nothing listens on {url_port}: {command.line}"
            continue
        if words[1:] == ["--version"]:
            continue
        args = parser.parse_args(words[1:])
        if args.command == "serve":
            assert command.background, f"serve must run in the background: {command.line}"
            ports.add(args.port)
        target = getattr(args, "target", None) or ""
        if target.startswith("http://"):
            port = int(target.rsplit(":", 1)[1])
            assert port in ports, f"nothing listens on {port}: {command.line}"
        if target.startswith("python:"):
            module = target.split(":")[1]
            sys.path.insert(0, str(ROOT))
            try:
                assert importlib.util.find_spec(module) is not None, command.line
            finally:
                sys.path.remove(str(ROOT))
        if getattr(args, "sign_key", None):
            assert args.sign_key in made, f"no earlier keygen writes {args.sign_key}"
        if args.command == "compare":
            assert {args.old, args.new} <= made, f"no earlier runs write both: {command.line}"
        if args.command == "verify":
            assert {args.dir, args.key} <= made, f"no earlier command writes both: {command.line}"
        if args.command == "keygen":
            made |= {f"{args.out}.key", f"{args.out}.pub"}
        elif getattr(args, "out", None):
            made.add(args.out)
        if getattr(args, "output", None):
            made.add(args.output)
        if args.command == "replay":
            assert Path(args.case).parts[0] in made, f"no earlier run writes {args.case}"
        if args.command == "audit-block":
            for name in args.file:  # audit-block takes one file or several
                assert name in made or (ROOT / name).is_file(), command.line


def test_the_replayed_case_is_one_the_broken_run_writes(tmp_path: Path) -> None:
    """The case the README replays is written by the README's own failing run (its seed)."""
    from harness._cli import main

    found = _instantcert_args()
    broken = next(
        args
        for args, _ in found
        if args[0] == "certify" and "make_broken_adapter" in " ".join(args)
    )
    replay = next(args for args, _ in found if args[0] == "replay")
    out = broken[broken.index("--out") + 1]
    argv = [*broken, "--config", str(tmp_path / "fast.yaml")]
    argv[argv.index("--out") + 1] = str(tmp_path / out)
    (tmp_path / "fast.yaml").write_text("settings: {hypothesis_max_examples: 20}\n")
    assert main(argv) == 1
    case = tmp_path / replay[1]
    assert case.is_file(), sorted(p.name for p in (tmp_path / out).rglob("*.json"))
    assert main(["replay", str(case), *replay[2:]]) == 1  # the broken target still fails it


def test_links_of_readme_and_docs_exist() -> None:
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" in link:
                continue
            assert (page.parent / link).exists(), f"{page.name}: broken link {link!r}"


# what the README says these commands exit with (its text: "exit 1"); every other one exits 0
EXPECTED_EXIT = {"make_broken_adapter": 1, "replay": 1, "compare": 1}


def _expected_exit(line: str) -> int:
    command = line.split("#")[0]
    return max([code for key, code in EXPECTED_EXIT.items() if key in command] or [0])


@pytest.mark.slow
def test_the_readme_runs_as_written(tmp_path: Path) -> None:
    """Every command after the HTTP block, pasted line by line into one bash, in a directory
    laid out as a clone (``.venv/bin`` the running environment's, ``examples/`` the repo's)."""
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "bin").symlink_to(Path(sys.executable).parent)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    blocks = shell_blocks(README.read_text(encoding="utf-8"))[3:]
    lines = [line for block in blocks for line in block.splitlines() if line.strip()]
    assert len(lines) >= 10
    for line in lines:
        done = subprocess.run(
            ["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == _expected_exit(line), (
            f"{line}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
