"""The package is releasable: one version, a licence, a changelog, every data file shipped.

The slow tier builds the sdist and the wheel (``python -m build``), checks them with
``twine check``, installs the wheel alone in a fresh virtual environment and certifies the
reference with it (``instantcert certify --profile quick``), as a vendor would.
"""

from __future__ import annotations

import fnmatch
import json
import os
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

import harness
from harness._cli import main

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("contract", "reference", "conformance", "harness")
#: the compiled extensions (setup.py): their C source goes in the sdist, their build in the wheel
EXTENSION_SUFFIXES = (".c", ".so", ".pyd")
EXTENSIONS = ("reference/_fastlines", "conformance/_fastaudit")


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_one_version_number(capsys: pytest.CaptureFixture[str]) -> None:
    project = _pyproject()
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "harness.__version__"}
    assert metadata.version("instantcert") == harness.__version__
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"instantcert {harness.__version__}"


def test_licence_and_changelog() -> None:
    project = _pyproject()["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    assert "END OF TERMS AND CONDITIONS" in licence  # the full text, not a pointer to it
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## Unreleased" in changelog
    assert "## 0.1.0 - " in changelog  # the first version
    assert f"## {harness.__version__} - " in changelog  # a version raised without its entry fails


def _data_files() -> list[str]:
    return sorted(
        path.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for path in (ROOT / package).rglob("*")
        if path.is_file()
        and path.suffix not in (".py", ".pyc", *EXTENSION_SUFFIXES)
        and "__pycache__" not in path.parts
    )


def _glob(path: str, pattern: str) -> bool:
    """As setuptools globs package data: ``*`` stays within one directory."""
    parts, wanted = path.split("/"), pattern.split("/")
    return len(parts) == len(wanted) and all(map(fnmatch.fnmatchcase, parts, wanted))


def _shipped(name: str, globs: dict[str, list[str]]) -> bool:
    package, _, inside = name.partition("/")
    return any(_glob(inside, pattern) for pattern in globs.get(package, []))


def test_every_data_file_of_the_packages_is_package_data() -> None:
    """A new rules YAML, schema or clause file must reach the wheel, or the wheel breaks."""
    globs = _pyproject()["tool"]["setuptools"]["package-data"]
    files = _data_files()
    assert "reference/rules/robots.yaml" in files and "conformance/profiles.yaml" in files
    missing = [name for name in files if not _shipped(name, globs)]
    assert not missing, f"add to [tool.setuptools.package-data]: {missing}"
    assert not _shipped("conformance/new_data/x.yaml", globs)  # the check can fail


def test_the_sdist_manifest_carries_what_the_tests_need() -> None:
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    grafted = {line.split()[1] for line in manifest.splitlines() if line.startswith("graft ")}
    needed = {"tests", "docs", "examples", "scripts", "ci", ".ci", "benchmarks"}
    assert needed <= grafted, needed - grafted
    for name in ("README.md", "CHANGELOG.md", "LICENSE", "action.yml"):
        assert name in manifest


def _run(command: list[str], cwd: Path, timeout: float = 900) -> str:
    """``command`` as a user would run it: without this checkout on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done.stdout


@pytest.mark.slow
def test_build_twine_check_and_the_wheel_alone_certifies(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], ROOT)
    wheel, sdist = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert len(wheel) == len(sdist) == 1
    _run([sys.executable, "-m", "twine", "check", "--strict", *map(str, wheel + sdist)], ROOT)
    with zipfile.ZipFile(wheel[0]) as archive:
        names = set(archive.namelist())
    assert set(_data_files()) <= names
    # the unit lines' and the audit's C paths are built into the wheel (setup.py), each stub
    # beside its module
    for module in EXTENSIONS:
        assert any(n.startswith(f"{module}.") and n.endswith(".so") for n in names), module
        assert f"{module}.pyi" in names
    with tarfile.open(sdist[0]) as archive:
        top = {Path(n).parts[1] for n in archive.getnames() if len(Path(n).parts) > 1}
    assert {"tests", "docs", "examples", "LICENSE", "CHANGELOG.md", "setup.py"} <= top
    with tarfile.open(sdist[0]) as archive:
        for module in EXTENSIONS:
            assert any(n.endswith(f"/{module}.c") for n in archive.getnames()), module

    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    _run([str(env / "bin" / "pip"), "install", "--quiet", str(wheel[0])], tmp_path)
    out = tmp_path / "report"
    _run([str(env / "bin" / "instantcert"), "certify", "--profile", "quick", "--out", str(out)],
         tmp_path)  # fmt: skip
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert doc["harness_version"] == harness.__version__
    assert doc["verdict"]["counts"]["fail"] == doc["verdict"]["counts"]["error"] == 0
