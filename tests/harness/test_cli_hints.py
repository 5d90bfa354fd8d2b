"""Hints for the usual mistakes (issue 30): a misspelt flag of any subcommand, a wrong choice,
a target without its scheme, a target with the API's path. Each is exit 2, one line naming
the fault and the likely fix, after the subcommand's own usage."""

from __future__ import annotations

import pytest

from harness._cli import _module_names, build_parser, main
from harness._errors import ConfigError
from harness._targets import open_target


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, str]:
    """(the usage, the error line) of a command line argparse refuses with exit 2."""
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip()
    usage, _, line = err.rpartition("\n")
    return usage, line


def test_a_misspelt_flag_names_the_flag_meant_and_shows_the_subcommands_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    usage, line = refused(capsys, "certify", "--proflie", "quick")
    assert (
        line
        == "instantcert certify: error: unrecognized argument --proflie: did you mean --profile?"
    )
    assert usage.startswith("usage: instantcert certify ")  # not the top-level usage


def test_the_hint_holds_for_a_flag_written_with_its_value(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, line = refused(capsys, "certify", "--proflie=quick")
    assert line.endswith("unrecognized argument --proflie: did you mean --profile?")


@pytest.mark.parametrize("name", _module_names())
def test_every_subcommand_suggests_the_closest_of_its_own_flags(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """For each subcommand: its longest option, two letters swapped, is named back."""
    command = name.replace("_", "-")
    parser = build_parser([command])
    sub = parser._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    options = [s for a in sub._actions for s in a.option_strings if s.startswith("--")]
    flag = max((o for o in options if o != "--help"), key=len)
    typo = flag[:3] + flag[4] + flag[3] + flag[5:]
    assert typo != flag
    _, line = refused(capsys, command, typo)
    assert (
        line == f"instantcert {command}: error: unrecognized argument {typo}: did you mean {flag}?"
    )


def test_a_misspelt_required_flag_is_named_rather_than_reported_missing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, line = refused(capsys, "evaluate", "--gmae", "robots", "x")
    assert line.endswith("unrecognized argument --gmae: did you mean --game?")


def test_an_unknown_flag_with_nothing_close_lists_the_subcommands_flags(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, line = refused(capsys, "compare", "a", "b", "--zzzzzz")
    assert line.startswith("instantcert compare: error: unrecognized argument --zzzzzz; ")
    assert "--format" in line and "--out" in line and "did you mean" not in line


def test_a_prefix_of_a_flag_is_still_taken(capsys: pytest.CaptureFixture[str]) -> None:
    """argparse takes an unambiguous prefix (``--gam``): the hint must not refuse it."""
    assert (
        main(["evaluate", "--gam", "robots", "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C"])
        == 0
    )


def test_a_stray_word_is_still_refused_by_the_subcommand(
    capsys: pytest.CaptureFixture[str],
) -> None:
    usage, line = refused(capsys, "compare", "a", "b", "c")
    assert line == "instantcert compare: error: unrecognized arguments: c"
    assert usage.startswith("usage: instantcert compare ")


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["certfy"], "did you mean 'certify'?"),
        (["audit-blok", "x"], "did you mean 'audit-block'?"),
        (["evaluate", "--game", "robot", "x"], "did you mean 'robots'?"),
        (["--verison"], "unrecognized argument --verison: did you mean --version?"),
    ],
)
def test_a_wrong_choice_or_top_level_flag_names_the_closest(
    capsys: pytest.CaptureFixture[str], argv: list[str], hint: str
) -> None:
    _, line = refused(capsys, *argv)
    assert line.endswith(hint)


@pytest.mark.parametrize(
    ("target", "hint"),
    [
        ("127.0.0.1:8080", "did you mean http://127.0.0.1:8080?"),
        ("localhost:8080", "did you mean http://localhost:8080?"),
        ("[::1]:8080", "did you mean http://[::1]:8080?"),
        ("lottery.vendor.example", "did you mean http://lottery.vendor.example?"),
        ("htps://host:8443", "did you mean https://host:8443?"),
        ("reference", "did you mean python:reference?"),
        ("pyhton:reference", "did you mean python:reference?"),
    ],
)
def test_a_target_without_its_scheme_gets_the_url_meant(target: str, hint: str) -> None:
    with pytest.raises(ConfigError) as refused_target:
        open_target(target)
    assert str(refused_target.value).endswith(hint)


@pytest.mark.parametrize("target", ["foo", "ftp://x", "file:///tmp/x"])
def test_a_target_nothing_is_close_to_gets_the_forms_only(target: str) -> None:
    with pytest.raises(ConfigError, match=r"is not one of: .*https://host:port$"):
        open_target(target)


@pytest.mark.parametrize(
    ("target", "base"),
    [
        ("http://host:8080/v1", "http://host:8080"),
        ("http://host:8080/v1/", "http://host:8080"),
        ("https://host:8443/v1/implementation", "https://host:8443"),
        ("http://host:8080/lottery/v1", "http://host:8080/lottery"),
    ],
)
def test_a_target_with_the_api_path_says_to_give_the_base_url(target: str, base: str) -> None:
    with pytest.raises(ConfigError) as refused_target:
        open_target(target)
    message = str(refused_target.value)
    assert "give the base URL without /v1" in message
    assert message.endswith(f": {base}")


def test_a_prefix_before_the_api_path_is_a_base_url() -> None:
    """A vendor behind a reverse proxy's prefix: the harness adds /v1 after it."""
    adapter = open_target("http://host:8080/lottery")
    try:
        assert adapter.name == "http://host:8080/lottery"
    finally:
        adapter.close()


def test_certify_with_a_schemeless_target_exits_2_with_the_hint(
    capsys: pytest.CaptureFixture[str], tmp_path: pytest.TempPathFactory
) -> None:
    code = main(
        ["certify", "--target", "127.0.0.1:8080", "--profile", "quick", "--out", str(tmp_path)]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert err.endswith("did you mean http://127.0.0.1:8080?")


def test_certify_with_the_api_path_exits_2_before_any_request(
    capsys: pytest.CaptureFixture[str], tmp_path: pytest.TempPathFactory
) -> None:
    """Port 9 (discard) on a machine's own address: nothing is asked of it."""
    code = main(
        [
            "certify",
            "--target",
            "http://127.0.0.1:9/v1",
            "--profile",
            "quick",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "give the base URL without /v1" in err and "http://127.0.0.1:9" in err
    assert "/v1/v1" not in err


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("http://[::1", "is not a URL: Invalid IPv6 URL"),  # was a traceback, exit 1
        ("http://ho st:80", "Host 'ho st' contains invalid character"),
        ("http://%zz:80", "is not a valid host or port"),
        ("http://host:abc", "no host, or a port outside 1..65535"),
        ("http://host:8080/lottery?x=1", "without a query or fragment"),
        ("http://host:8080#top", "without a query or fragment"),
    ],
)
def test_a_base_url_no_request_could_use_is_refused_before_any(target: str, said: str) -> None:
    """Each was sent on, and the run ended in the smoke step (the adapter "broken"), or, for
    an unclosed IPv6 bracket, in a traceback; a query was sent before every request's path
    (``/lottery?x=1/v1/implementation``). Now: exit 2 before any request, naming what is wrong."""
    with pytest.raises(ConfigError, match=said.replace("?", r"\?")) as refused_target:
        open_target(target)
    assert repr(target) in str(refused_target.value)


@pytest.mark.parametrize("target", ["http://[::1]:8080", "https://[fe80::1%eth0]:8443/prefix"])
def test_an_ipv6_base_url_is_taken(target: str) -> None:
    open_target(target).close()


def test_no_command_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    """``instantcert`` alone, a first try: every command and what it does, exit 2 (it said
    only "the following arguments are required: COMMAND")."""
    assert main([]) == 2
    err = capsys.readouterr().err
    for command in ("certify", "audit-block", "serve", "replay", "verify"):
        assert f"    {command}" in err, err
