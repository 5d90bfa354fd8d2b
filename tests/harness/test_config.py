"""The config file and flags: every key validated, typos named with the right key suggested."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._config import RunConfig, build_config, load_config_file
from harness._errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "instantcert.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_full_file_is_read(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
target: http://127.0.0.1:8080
profile: quick
games: [eldorado]
stakes: {eldorado: [50, 200]}
seed: 12345
timeout_s: 5
out: reports
waivers: waivers.yaml
settings:
  alpha: 0.05
  hypothesis_max_examples: 20
""",
    )
    config = build_config(path, {})
    assert config.target == "http://127.0.0.1:8080"
    assert config.profile == "quick"
    assert config.games == ("eldorado",)
    assert config.stakes == {"eldorado": [50, 200]}
    assert config.seed == 12345 and config.timeout_s == 5.0
    assert config.waivers == str(tmp_path / "waivers.yaml")  # relative to the config file
    settings = config.effective_settings()
    assert settings["alpha"] == 0.05 and settings["hypothesis_max_examples"] == 20
    assert settings["games"] == ["eldorado"] and settings["stakes"] == {"eldorado": [50, 200]}
    assert settings["block_mode"] == "sample"  # from the quick profile
    assert config.filtered


def test_flags_override_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "profile: quick\nseed: 1\ntarget: http://x:1\n")
    config = build_config(path, {"profile": "full", "seed": 2, "target": None})
    assert (config.profile, config.seed, config.target) == ("full", 2, "http://x:1")


def test_defaults_and_a_fresh_seed() -> None:
    config = build_config(None, {})
    assert config == RunConfig()
    assert not config.filtered
    seeded = config.with_seed()
    assert isinstance(seeded.seed, int) and seeded.with_seed() == seeded


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("profle: full\n", "unknown key 'profle'; did you mean 'profile'?"),
        ("tagret: x\n", "unknown key 'tagret'; did you mean 'target'?"),
        ("profile: ful\n", "unknown profile 'ful'; did you mean 'full'?"),
        ("games: [robot]\n", "unknown game 'robot'; did you mean 'robots'?"),
        ("settings: {alpah: 0.1}\n", "unknown setting 'alpah'; did you mean 'alpha'?"),
        ("settings: {alpha: 2}\n", "alpha must be a number in (0, 1), got 2"),
        ("settings: {games: [robots]}\n", "set 'games' at the top level"),
        ("seed: -1\n", "seed must be an integer in [0, 2**32), got -1"),
        ("seed: '7'\n", "seed must be an integer in [0, 2**32), got '7'"),
        ("timeout_s: 0\n", "timeout_s must be a number of seconds"),
        ("stakes: {robots: [50]}\n", "50 is not a stake of robots"),
        ("requirements: [robots.4.6.nope]\n", "unknown requirement id 'robots.4.6.nope'"),
        ("waivers: 3\n", "waivers must be a file path or a list of waivers, got 3"),
        ("- a\n- b\n", "expected a mapping of keys"),
        ("target: [\n", "not valid YAML"),
    ],
)
def test_bad_config_names_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config_file(path).get("profile")
        build_config(path, {}).effective_settings()
    assert message in str(caught.value)
    assert str(path) in str(caught.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.yaml"):
        load_config_file(tmp_path / "nope.yaml")


def test_bad_flags_name_the_flag() -> None:
    with pytest.raises(ConfigError, match=r"^--seed must be an integer"):
        build_config(None, {"seed": 2**40})
    with pytest.raises(ConfigError, match=r"^--timeout must be"):
        build_config(None, {"timeout_s": -3})


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--requirement", "robots.4.6.x3"], "--requirement: unknown requirement id"),
        (["--game", "robots", "--stake-cents", "150"], "--stake-cents"),
    ],
)
def test_a_bad_value_of_a_repeated_flag_names_that_flag(
    argv: list[str], flag: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The message named ``--requirements`` and ``--stakes``, flags that do not exist."""
    from harness._cli import main

    assert main(["certify", *argv, "--profile", "quick", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert flag in err, err
