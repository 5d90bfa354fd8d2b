"""The pytest face: ``pytest --pyargs conformance --target T`` passes the reference and fails a
broken target, in a subprocess exactly as a vendor's CI would run it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.plugin import settings_for
from tests._plugin import PLUGIN, plugin_args

ROOT = Path(__file__).resolve().parents[2]
SMALL_PROFILE = """\
hypothesis_max_examples: 20
exhaustive: false
block_sample_units: 2000
play_count: 5
concurrency_threads: 2
concurrent_plays_per_thread: 2
"""


def _plugin_args() -> list[str]:
    return plugin_args()


#: the suite's plugin alone, named, the other plugins of the environment not loaded: pytest
#: rewrites the asserts of every module of each distribution whose plugin it autoloads (this
#: project's ~500, hypothesis's, schemathesis's), 1.4 s of CPU a run where no bytecode is
#: written (README, "Tests"); a vendor's way, every plugin autoloaded, is the two tests' that
#: pass ``autoload=True`` (the reference's run, and xdist and pytest-timeout loaded beside it)
NAMED = ["--disable-plugin-autoload", "-p", PLUGIN]


def run_suite(
    tmp_path: Path, target: str, *extra: str, autoload: bool = False
) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / "small.yaml"
    profile.write_text(SMALL_PROFILE, encoding="utf-8")
    plugins = _plugin_args() if autoload else NAMED
    command = [
        sys.executable, "-m", "pytest", *plugins, "--pyargs", "conformance",
        "--target", target, "--profile", str(profile), "--seed", "7",
        "-k", "robots_rules or invalid_tickets or metamorphic",
        "-q", "-p", "no:cacheprovider", *extra,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )


def test_the_reference_passes(tmp_path: Path) -> None:
    done = run_suite(tmp_path, "python:reference", "--game", "robots", autoload=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "passed" in done.stdout
    assert "failed" not in done.stdout


def test_a_broken_target_fails_on_the_requirement_it_breaks(tmp_path: Path) -> None:
    done = run_suite(tmp_path, "python:tests.conformance.faults:x2_once", "--game", "robots")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert "FAILED" in done.stdout and "robots_rules" in done.stdout
    assert "requirements: robots.4.6.x2" in done.stdout
    assert "--seed 7" in done.stdout


def test_an_unsupported_capability_is_skipped_not_passed(tmp_path: Path) -> None:
    done = run_suite(tmp_path, "python:tests.conformance.faults:x2_once", "-k", "blocks or play")
    # the faulty target has only the evaluate capability: block and play checks are skipped
    assert "skipped" in done.stdout, done.stdout[-3000:]


def test_a_bad_profile_stops_the_run(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("hypothesis_max_examples: many\n", encoding="utf-8")
    command = [
        sys.executable, "-m", "pytest", *NAMED, "--pyargs", "conformance",
        "--profile", str(bad), "-q", "-p", "no:cacheprovider",
    ]  # fmt: skip
    done = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode != 0
    assert "hypothesis_max_examples" in done.stdout + done.stderr


class _Options:
    """The options ``settings_for`` reads, as a pytest config holds them."""

    def __init__(self, profile: str, seed: int | None = None) -> None:
        self.values = {"--profile": profile, "--game": None, "--seed": seed}

    def getoption(self, name: str) -> object:
        return self.values[name]


def _nested_aliases(levels: int) -> bytes:
    """A profile whose ``games`` holds 9**levels strings through aliases ("billion laughs"):
    the aliases live inside the one known setting, so no unknown key stops it first."""
    lines = ["games:", "  - &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"  - &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, levels + 1)]
    return ("\n".join(lines) + "\n").encode()


HOSTILE_PROFILES = {
    "aliases": (_nested_aliases(6), "YAML aliases (*a0) are not accepted here"),
    "not_utf8": (b"games: [rob\xffots]\n", "line 1: not UTF-8"),
    "deep": (b"games: " + b"[" * 100_000 + b"\n", "nested deeper than 32 levels"),
    "huge": (b"# " + b"x" * (2 << 20) + b"\n", "larger than 1048576 bytes"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_PROFILES))
def test_a_hostile_profile_file_is_refused_in_one_line(tmp_path: Path, name: str) -> None:
    """A profile of one's own is a file from outside: read as a config file is (bounded, no
    aliases, UTF-8), never walked into gigabytes (a 1 KB file of nested aliases took 44 s and
    4.3 GB before)."""
    content, expected = HOSTILE_PROFILES[name]
    path = tmp_path / f"{name}.yaml"
    path.write_bytes(content)
    with pytest.raises(pytest.UsageError) as caught:
        settings_for(_Options(str(path)))  # type: ignore[arg-type]
    message = str(caught.value)
    assert expected in message and str(path) in message and "\n" not in message


@pytest.mark.parametrize("seed", [-5, 2**32, 10**20])
def test_a_seed_out_of_bounds_stops_the_run(seed: int) -> None:
    """As ``certify --seed``: random takes -5 as 5, numpy refuses it; two seeds one run."""
    with pytest.raises(pytest.UsageError, match=r"--seed must be an integer in \[0, 2\*\*32\)"):
        settings_for(_Options("quick", seed))  # type: ignore[arg-type]
    assert settings_for(_Options("quick", 2**32 - 1)) == settings_for(_Options("quick"))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["quick", "full"])
def test_profiles_load(name: str) -> None:
    from conformance import load_profile

    settings = load_profile(name)
    assert settings["hypothesis_max_examples"] > 0
    assert settings["block_mode"] in ("sample", "whole")


def test_a_reservation_passes_with_a_warning(tmp_path: Path) -> None:
    """96-bit tokens: a reading not met (token-bits), so a passed test with a warning."""
    target = "python:tests.faulty.freedom_variants:tokens_96_bits"
    done = run_suite(tmp_path, target, "--game", "robots", "-k", "tokens_unguessable")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "1 passed" in done.stdout and "ReservationWarning" in done.stdout
    assert "token-bits" in done.stdout


def test_the_suite_runs_in_one_process_and_uncut_whatever_the_tests_options(
    tmp_path: Path,
) -> None:
    """``-n 2`` (the project's own addopts give ``-n auto`` to a run from the clone's root):
    the suite's checks share one target and its streams, so the plugin turns xdist off; and
    pytest-timeout's ``timeout`` (the tests' hang guard, in the same file) is not a budget of
    the suite's checks, which have their own: a 10 ms one cuts nothing."""
    (tmp_path / "pytest.ini").write_text("[pytest]\ntimeout = 0.01\n", encoding="utf-8")
    done = run_suite(
        tmp_path,
        "python:reference",
        *("--game", "robots", "-n", "2", "-k", "several_gauges"),
        autoload=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "passed" in done.stdout
    assert "bringing up nodes" not in done.stdout and "[gw" not in done.stdout
    assert "Timeout" not in done.stdout + done.stderr


def test_a_reservation_of_the_wire_is_listed_at_the_end(tmp_path: Path) -> None:
    """``201 Created`` for evaluate (the ``post_201`` wire variant): the project's reading
    (row ``success-status``) is not met by no one check but by the wire, which the HTTP adapter
    watches over the whole run; ``instantcert certify`` lists it, and so does the pytest face,
    in a section of its own at the end (it had said nothing: a plain pass)."""
    from tests.faulty.wire_variants import wire_variant

    with wire_variant("post_201") as url:
        done = run_suite(tmp_path, url, "--game", "robots", "-k", "robots_rules and gauge")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "conformance: reservations of the wire" in done.stdout, done.stdout[-3000:]
    assert "success-status" in done.stdout
