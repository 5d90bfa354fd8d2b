"""Signed report folders: keygen, certify --sign-key, verify; tampering of every kind is caught.

The DSSE signature is also checked here by hand (PAE built in the test, Ed25519 from the
``cryptography`` package), so the envelope is what any DSSE verifier expects, not only ours.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from harness._cli import main
from harness._reports.manifest import verify as verify_manifest
from harness._signing import ATTESTATION, load_private_key, statement

from . import _runs

TINY = """\
profile: quick
seed: 5
settings:
  hypothesis_max_examples: 10
  block_sample_units: 2000
  play_count: 3
"""


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    prefix = tmp_path_factory.mktemp("keys") / "lab"
    assert main(["keygen", "--out", str(prefix)]) == 0
    return prefix


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory, keys: Path) -> Path:
    key = load_private_key(keys.with_suffix(".key"))
    return _runs.broken_run(tmp_path_factory.mktemp("signed") / "report", sign_key=key)


@pytest.fixture
def copy(signed: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(signed, tmp_path / "report"))


def _verify(folder: Path, key: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["verify", str(folder), "--key", str(key)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _envelope(folder: Path) -> dict[str, Any]:
    text = (folder / ATTESTATION).read_text(encoding="utf-8")
    assert text.endswith("\n") and text.count("\n") == 1  # one envelope, one line (JSON Lines)
    envelope: dict[str, Any] = json.loads(text)
    return envelope


def test_keygen_writes_a_private_and_a_public_key(
    keys: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    private, public = keys.with_suffix(".key"), keys.with_suffix(".pub")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert private.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert public.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    key = serialization.load_pem_private_key(private.read_bytes(), password=None)
    assert isinstance(key, ed25519.Ed25519PrivateKey)
    before = private.read_bytes()
    capsys.readouterr()
    assert main(["keygen", "--out", str(keys)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "refusing to overwrite" in err[0]
    assert private.read_bytes() == before
    assert main(["keygen", "--out", str(keys.parent / "no" / "such" / "dir")]) == 2


def test_a_signed_folder_verifies(
    signed: Path, keys: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _verify(signed, keys.with_suffix(".pub"), capsys)
    assert code == 0, out
    assert out.startswith("OK: signature by key") and "verdict NOT CERTIFIED" in out
    assert verify_manifest(signed) == []  # the manifest still holds beside the attestation


def test_the_envelope_is_standard_dsse_over_an_in_toto_statement(signed: Path, keys: Path) -> None:
    envelope = _envelope(signed)
    assert envelope["payloadType"] == "application/vnd.in-toto+json"
    body = base64.b64decode(envelope["payload"])
    kind = b"application/vnd.in-toto+json"
    pae = b"DSSEv1 " + str(len(kind)).encode() + b" " + kind + b" "
    pae += str(len(body)).encode() + b" " + body
    public = serialization.load_pem_public_key(keys.with_suffix(".pub").read_bytes())
    assert isinstance(public, ed25519.Ed25519PublicKey)
    [signature] = envelope["signatures"]
    public.verify(base64.b64decode(signature["sig"]), pae)  # raises if it does not hold
    der = public.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert signature["keyid"] == hashlib.sha256(der).hexdigest()

    stmt = json.loads(body)
    assert stmt["_type"] == "https://in-toto.io/Statement/v1"
    assert stmt["predicateType"] == "https://in-toto.io/attestation/test-result/v0.1"
    every_file = sorted(
        p.relative_to(signed).as_posix()
        for p in signed.rglob("*")
        if p.is_file() and p.name != ATTESTATION
    )
    assert [s["name"] for s in stmt["subject"]] == every_file
    assert {"manifest.json", "report.json", "cases/robots_rules.x2-1.json"} <= set(every_file)
    for subject in stmt["subject"]:
        digest = hashlib.sha256((signed / subject["name"]).read_bytes()).hexdigest()
        assert subject["digest"] == {"sha256": digest}
    report = json.loads((signed / "report.json").read_text())
    predicate = stmt["predicate"]
    assert predicate["result"] == "FAILED"
    assert predicate["failedTests"] == ["robots.4.6.x2"]
    assert "robots.3.lot_table" in predicate["passedTests"]
    assert "play.4.1.history" in predicate["warnedTests"]  # not supported
    named = {c["name"]: c for c in predicate["configuration"]}
    assert named["instantcert conformance suite"]["digest"]["sha256"] == report["suite_sha256"]
    assert named["rules/robots.yaml"]["digest"]["sha256"] == report["rules_sha256"]["robots"]
    assert named["target"]["uri"] == report["target"]
    profile = json.loads(base64.b64decode(named["profile"]["content"]))
    assert profile["profile"] == "full" and profile["seed"] == 11
    assert profile["settings"] == report["config"]["effective_settings"]


def _append(path: str) -> Callable[[Path], None]:
    return lambda folder: (folder / path).write_bytes((folder / path).read_bytes() + b" ")


def _add(path: str) -> Callable[[Path], None]:
    return lambda folder: (folder / path).write_text("new\n")


def _remove(path: str) -> Callable[[Path], None]:
    return lambda folder: (folder / path).unlink()


@pytest.mark.parametrize(
    ("tamper", "line"),
    [
        (_append("report.json"), "changed: report.json"),
        (_append("cases/robots_rules.x2-1.json"), "changed: cases/robots_rules.x2-1.json"),
        (_append("manifest.json"), "changed: manifest.json"),
        (_add("notes.txt"), "added:   notes.txt"),
        (_add("cases/extra.json"), "added:   cases/extra.json"),
        (_remove("badge.json"), "removed: badge.json"),
        (_remove("cases/robots_rules.x2-1.json"), "removed: cases/robots_rules.x2-1.json"),
    ],
)
def test_any_change_to_the_folder_exits_1(
    copy: Path,
    keys: Path,
    capsys: pytest.CaptureFixture[str],
    tamper: Callable[[Path], None],
    line: str,
) -> None:
    assert _verify(copy, keys.with_suffix(".pub"), capsys)[0] == 0
    tamper(copy)
    code, out = _verify(copy, keys.with_suffix(".pub"), capsys)
    assert code == 1
    assert out.splitlines() == ["FAILED: the report folder is not what was signed", f"  {line}"]


def test_a_symlink_in_place_of_a_file_is_caught(
    copy: Path, keys: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = copy.parent / "elsewhere.json"
    real.write_bytes((copy / "report.json").read_bytes())
    (copy / "report.json").unlink()
    (copy / "report.json").symlink_to(real)
    code, out = _verify(copy, keys.with_suffix(".pub"), capsys)
    assert code == 1 and "changed: report.json" in out


def _rewrite(folder: Path, change: Callable[[dict[str, Any]], None]) -> None:
    envelope = _envelope(folder)
    change(envelope)
    (folder / ATTESTATION).write_text(json.dumps(envelope) + "\n")


def _claim_pass(envelope: dict[str, Any]) -> None:
    stmt = json.loads(base64.b64decode(envelope["payload"]))
    stmt["predicate"]["result"] = "PASSED"
    envelope["payload"] = base64.b64encode(json.dumps(stmt).encode()).decode()


def _flip_sig(envelope: dict[str, Any]) -> None:
    sig = bytearray(base64.b64decode(envelope["signatures"][0]["sig"]))
    sig[0] ^= 1
    envelope["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()


def _garble_payload(envelope: dict[str, Any]) -> None:
    envelope["payload"] = "!" + envelope["payload"][1:]


@pytest.mark.parametrize("change", [_claim_pass, _flip_sig, _garble_payload])
def test_a_tampered_envelope_exits_1(
    copy: Path, keys: Path, capsys: pytest.CaptureFixture[str], change: Any
) -> None:
    _rewrite(copy, change)
    code, out = _verify(copy, keys.with_suffix(".pub"), capsys)
    assert code == 1
    assert "bad signature" in out


def test_another_key_exits_1(
    signed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["keygen", "--out", str(tmp_path / "other")]) == 0
    code, out = _verify(signed, tmp_path / "other.pub", capsys)
    assert code == 1 and "bad signature: no signature holds with key" in out


def _rsa_public(path: Path) -> Path:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return path


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda d, t: (d, t / "nokey.pub"), "nokey.pub"),
        (lambda d, t: (d, _write(t / "g.pub", b"garbage")), "is not a PEM public key"),
        (lambda d, t: (d, _rsa_public(t / "rsa.pub")), "not Ed25519"),
        (lambda d, t: (t / "missing", t / "x.pub"), "no such directory"),
        (lambda d, t: (_drop_attestation(d), None), "no attestation"),
        (lambda d, t: (_attestation(d, b"{not json"), None), "not a DSSE envelope"),
        (lambda d, t: (_attestation(d, b'{"payload": "e30="}'), None), "not a DSSE envelope"),
        (
            lambda d, t: (
                _attestation(
                    d, b'{"payloadType": "text/plain", "payload": "", "signatures": [{"sig": ""}]}'
                ),
                None,
            ),
            "payloadType 'text/plain'",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(
    copy: Path,
    keys: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    setup: Any,
    message: str,
) -> None:
    folder, key = setup(copy, tmp_path)
    code, out = _verify(folder, key or keys.with_suffix(".pub"), capsys)
    assert code == 2
    lines = out.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], out


def test_the_private_key_is_not_taken_for_the_public_one(
    signed: Path, keys: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _verify(signed, keys.with_suffix(".key"), capsys)
    assert code == 2 and "holds a private key" in out


def test_a_signed_payload_that_is_not_a_statement_exits_2(
    copy: Path, keys: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness._signing import envelope

    key = load_private_key(keys.with_suffix(".key"))
    fake = envelope({"_type": "https://in-toto.io/Statement/v1", "subject": []}, key)
    (copy / ATTESTATION).write_text(json.dumps(fake) + "\n")
    code, out = _verify(copy, keys.with_suffix(".pub"), capsys)
    assert code == 2 and "predicateType None" in out


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _drop_attestation(folder: Path) -> Path:
    (folder / ATTESTATION).unlink()
    return folder


def _attestation(folder: Path, data: bytes) -> Path:
    (folder / ATTESTATION).write_bytes(data)
    return folder


def test_the_ci_job_url_is_recorded(signed: Path) -> None:
    doc = json.loads((signed / "report.json").read_text())
    env = {
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "lab/certs",
        "GITHUB_RUN_ID": "42",
    }
    assert statement(doc, signed, env)["predicate"]["url"] == (
        "https://github.com/lab/certs/actions/runs/42"
    )
    gitlab = {"CI_JOB_URL": "https://gitlab.example/lab/-/jobs/7"}
    assert statement(doc, signed, gitlab)["predicate"]["url"] == gitlab["CI_JOB_URL"]
    assert "url" not in statement(doc, signed, {})["predicate"]


def test_certify_sign_key_end_to_end(
    tmp_path: Path, keys: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY)
    out = tmp_path / "out"
    argv = ["certify", "--config", str(config), "--requirement", "robots.4.6.x2"]
    argv += ["--out", str(out)]
    assert main([*argv, "--sign-key", str(keys.with_suffix(".key"))]) == 0
    assert _verify(out, keys.with_suffix(".pub"), capsys)[0] == 0
    assert main(argv) == 0  # an unsigned run in the same folder drops the stale attestation
    assert not (out / ATTESTATION).exists()
    (out / "mine.txt").write_text("a file of the user's\n")
    capsys.readouterr()
    assert main([*argv, "--sign-key", str(keys.with_suffix(".key"))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds other files ('mine.txt')" in err[0]
    assert main([*argv, "--sign-key", str(keys.with_suffix(".pub"))]) == 2
    assert "is not a PEM private key" in capsys.readouterr().err


def test_audit_block_checks_the_key_before_reading_the_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    block = tmp_path / "block.jsonl"
    block.write_text("not read: the key is refused first\n")
    garbage = tmp_path / "garbage.key"
    garbage.write_bytes(b"-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n")
    argv = ["audit-block", str(block), "--out", str(tmp_path / "out"), "--sign-key"]
    capsys.readouterr()
    assert main([*argv, str(garbage)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--sign-key: signing key" in err[0] and "garbage.key" in err[0]
    assert not (tmp_path / "out").exists()
