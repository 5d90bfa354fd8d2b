"""Signed evidence: an in-toto Statement over every report file, in a DSSE envelope (Ed25519).

A regulator holding the lab's public key checks, offline, that a report folder is exactly what
the lab's ``certify`` wrote: the signature holds over the statement, every file the statement
lists has its SHA-256, and no file was added or removed. The formats are the public ones
(in-toto Statement v1, predicate ``test-result/v0.1``, DSSE v1), so any in-toto or DSSE tool
can check them too; the cryptography is the ``cryptography`` package's Ed25519.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from reference import _strict_json as strict_json
from reference._files import open_regular, read_regular
from reference._strict_json import sanitise

from ._errors import HarnessError

ATTESTATION = "attestation.intoto.jsonl"
PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://in-toto.io/attestation/test-result/v0.1"


class SigningError(HarnessError):
    """A key or an attestation that cannot be used (bad input: exit 2)."""


# --- keys -------------------------------------------------------------------------------------


def generate_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def private_pem(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def public_pem(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def keyid(key: Ed25519PublicKey) -> str:
    """SHA-256 (hex) of the public key's DER SubjectPublicKeyInfo: names the key in envelopes."""
    der = key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return hashlib.sha256(der).hexdigest()


MAX_SIGNING_FILE_BYTES = 64 * 1024 * 1024  # a key or an attestation is far smaller


def _read(path: Path, what: str) -> bytes:
    try:
        data = read_regular(path, MAX_SIGNING_FILE_BYTES)  # a FIFO or device refused
    except OSError as exc:
        raise SigningError(f"{what} {str(path)!r}: {exc.strerror or exc}") from None
    if len(data) > MAX_SIGNING_FILE_BYTES:
        raise SigningError(f"{what} {str(path)!r}: larger than {MAX_SIGNING_FILE_BYTES} bytes")
    return data


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """The Ed25519 private key of a PEM PKCS8 file (``instantcert keygen`` writes one)."""
    data = _read(path, "signing key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise SigningError(
            f"signing key {str(path)!r} is encrypted; instantcert needs an unencrypted PKCS8 key"
        ) from None
    except (ValueError, UnsupportedAlgorithm):
        raise SigningError(
            f"signing key {str(path)!r} is not a PEM private key (instantcert keygen writes one)"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningError(
            f"signing key {str(path)!r} is a {type(key).__name__.lstrip('_')}, not Ed25519"
        )
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    """The Ed25519 public key of a PEM SubjectPublicKeyInfo file (``PREFIX.pub``)."""
    data = _read(path, "public key")
    if b"PRIVATE KEY" in data:
        raise SigningError(
            f"public key {str(path)!r} holds a private key; give the .pub file (and keep the "
            f".key file secret)"
        )
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm):
        raise SigningError(
            f"public key {str(path)!r} is not a PEM public key (instantcert keygen writes one)"
        ) from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningError(
            f"public key {str(path)!r} is a {type(key).__name__.lstrip('_')}, not Ed25519"
        )
    return key


# --- DSSE -------------------------------------------------------------------------------------


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding: what the signature is over."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(kind), kind, len(body), body)


def envelope(statement: Mapping[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    body = json.dumps(
        sanitise(statement), sort_keys=True, separators=(",", ":"), allow_nan=False, default=str
    ).encode("ascii")  # ensure_ascii: any string of the target, even a lone surrogate
    signature = key.sign(pae(PAYLOAD_TYPE, body))
    return {
        "payloadType": PAYLOAD_TYPE,
        "payload": base64.b64encode(body).decode("ascii"),
        "signatures": [
            {"keyid": keyid(key.public_key()), "sig": base64.b64encode(signature).decode("ascii")}
        ],
    }


# --- the folder -------------------------------------------------------------------------------


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open_regular(path) as handle:  # a FIFO in a report folder refused, not waited on
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def folder_entries(folder: Path) -> dict[str, Path]:
    """Every entry of ``folder`` but directories, recursively (links not followed), by
    relative POSIX path; the attestation at the top is left out."""
    entries: dict[str, Path] = {}
    for root, dirs, files in os.walk(folder, followlinks=False):
        here = Path(root)
        names = files + [d for d in dirs if (here / d).is_symlink()]
        for name in names:
            path = here / name
            entries[path.relative_to(folder).as_posix()] = path
    entries.pop(ATTESTATION, None)
    return dict(sorted(entries.items()))


def subjects(folder: Path) -> list[dict[str, Any]]:
    return [
        {"name": name, "digest": {"sha256": file_sha256(path)}}
        for name, path in folder_entries(folder).items()
        if path.is_file() and not path.is_symlink()
    ]


def ci_run_url(env: Mapping[str, str]) -> str | None:
    """The CI job that ran certify, when the environment says (GitHub Actions, GitLab CI)."""
    server, repo, run = (
        env.get("GITHUB_SERVER_URL"),
        env.get("GITHUB_REPOSITORY"),
        env.get("GITHUB_RUN_ID"),
    )
    if server and repo and run:
        return f"{server}/{repo}/actions/runs/{run}"
    return env.get("CI_JOB_URL") or None


def _canonical(value: Any) -> bytes:
    text = json.dumps(sanitise(value), sort_keys=True, separators=(",", ":"), default=str)
    return text.encode("ascii")


def test_result(doc: Mapping[str, Any]) -> str:
    """PASSED: certified; WARNED: nothing failed but it does not certify, or certifies with
    reservations (each a warned test, listed in the target's annotations); FAILED: otherwise."""
    verdict = doc["verdict"]
    if verdict["exit_code"] != 0:
        return "FAILED"
    return "PASSED" if verdict["overall"] == "CERTIFIED" else "WARNED"


def statement(
    doc: Mapping[str, Any], folder: Path, env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The in-toto Statement of a report folder whose report.json document is ``doc``."""
    passed, warned, failed = [], [], []
    for req in doc["requirements"]:
        waived = req["waiver"] is not None and req["waiver"]["applied"]
        if req["outcome"] == "pass":
            passed.append(req["id"])
        elif req["outcome"] in ("fail", "error") and not waived:
            failed.append(req["id"])
        else:  # reserved, not supported, not run, waived
            warned.append(req["id"])
    run = {
        "profile": doc["profile"],
        "seed": doc["seed"],
        "filtered": doc["filtered"],
        "settings": doc["config"].get("effective_settings", {}),
    }
    configuration: list[dict[str, Any]] = [
        {
            "name": "instantcert conformance suite",
            "digest": {"sha256": doc["suite_sha256"]},
            "annotations": {"harnessVersion": doc["harness_version"]},
        },
        *(
            {"name": f"rules/{game}.yaml", "digest": {"sha256": sha}}
            for game, sha in sorted(doc["rules_sha256"].items())
        ),
        {
            "name": "profile",
            "content": base64.b64encode(_canonical(run)).decode("ascii"),
            "digest": {"sha256": hashlib.sha256(_canonical(run)).hexdigest()},
            "mediaType": "application/json",
            "annotations": {k: run[k] for k in ("profile", "seed", "filtered")},
        },
        {
            "name": "target",
            "uri": doc["target"],
            "annotations": {
                "implementation": doc["implementation"],
                "runId": doc["run_id"],
                "verdict": doc["verdict"]["overall"],
                "reservations": [
                    f"{r['kind']} {r['basis']}: {r['message']}"
                    for r in doc["verdict"].get("reservations") or []
                ],
            },
        },
    ]
    predicate: dict[str, Any] = {
        "result": test_result(doc),
        "configuration": configuration,
        "passedTests": passed,
        "warnedTests": warned,
        "failedTests": failed,
    }
    url = ci_run_url(os.environ if env is None else env)
    if url:
        predicate["url"] = url
    return {
        "_type": STATEMENT_TYPE,
        "subject": subjects(folder),
        "predicateType": PREDICATE_TYPE,
        "predicate": predicate,
    }


def sign_folder(
    doc: Mapping[str, Any],
    folder: Path,
    key: Ed25519PrivateKey,
    env: Mapping[str, str] | None = None,
) -> Path:
    """Write the attestation of ``folder`` (after every other file of the report)."""
    target = folder / ATTESTATION
    target.unlink(missing_ok=True)
    signed = envelope(statement(doc, folder, env), key)
    target.write_text(json.dumps(signed, sort_keys=True) + "\n", encoding="utf-8")
    return target


# --- verification -----------------------------------------------------------------------------


@dataclass
class Verification:
    """What ``verify_folder`` found; ``ok`` only when there is nothing to report."""

    keyid: str
    bad_signature: str | None = None
    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    files: int = 0
    statement: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not (self.bad_signature or self.changed or self.added or self.removed)


def _b64(text: str) -> bytes:
    """Standard or URL-safe base64, as DSSE allows; ValueError if it is neither."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return base64.urlsafe_b64decode(text.encode("ascii"))


def read_envelope(folder: Path) -> dict[str, Any]:
    """The DSSE envelope of ``folder``, in shape; SigningError when it is missing or malformed."""
    path = folder / ATTESTATION
    if not path.is_file():
        raise SigningError(
            f"{str(path)!r}: no attestation (was the run signed with certify --sign-key?)"
        )
    text = _read(path, "attestation").decode("utf-8", errors="replace").strip()
    try:
        env = strict_json.loads(text)
    except ValueError as exc:
        raise SigningError(f"{str(path)!r}: not a DSSE envelope (not JSON: {exc})") from None
    if not isinstance(env, dict):
        raise SigningError(f"{str(path)!r}: not a DSSE envelope (a JSON {type(env).__name__})")
    for name in ("payloadType", "payload"):
        if not isinstance(env.get(name), str):
            raise SigningError(f"{str(path)!r}: not a DSSE envelope (no string {name!r})")
    sigs = env.get("signatures")
    if (
        not isinstance(sigs, list)
        or not sigs
        or not all(isinstance(s, dict) and isinstance(s.get("sig"), str) for s in sigs)
    ):
        raise SigningError(f"{str(path)!r}: not a DSSE envelope (signatures: {sigs!r:.80})")
    if env["payloadType"] != PAYLOAD_TYPE:
        raise SigningError(
            f"{str(path)!r}: payloadType {env['payloadType']!r:.80}, expected {PAYLOAD_TYPE!r}"
        )
    return env


def _check_statement(body: bytes, where: str) -> dict[str, Any]:
    try:
        stmt = strict_json.loads(body)
    except ValueError:
        raise SigningError(f"{where}: the signed payload is not JSON") from None
    if not isinstance(stmt, dict) or stmt.get("_type") != STATEMENT_TYPE:
        raise SigningError(f"{where}: the signed payload is not an in-toto Statement v1")
    if stmt.get("predicateType") != PREDICATE_TYPE:
        raise SigningError(
            f"{where}: predicateType {stmt.get('predicateType')!r:.80}, expected {PREDICATE_TYPE!r}"
        )
    subject = stmt.get("subject")
    if not isinstance(subject, list):
        raise SigningError(f"{where}: the statement's subject is not a list")
    for n, item in enumerate(subject):
        name = item.get("name") if isinstance(item, dict) else None
        digest = item.get("digest") if isinstance(item, dict) else None
        sha = digest.get("sha256") if isinstance(digest, dict) else None
        pure = PurePosixPath(name) if isinstance(name, str) else None
        if (
            pure is None
            or pure.is_absolute()
            or ".." in pure.parts
            or not isinstance(sha, str)
            or len(sha) != 64
        ):
            raise SigningError(f"{where}: subject[{n}] is not a file name with a sha256: {item!r}")
    return stmt


def _sha_or_none(path: Path) -> str | None:
    try:
        return file_sha256(path)
    except OSError:
        return None  # unreadable: it cannot be shown to match


def verify_folder(folder: Path, key: Ed25519PublicKey) -> Verification:
    """Check ``folder``'s attestation with ``key``: signature, then every file against it."""
    env = read_envelope(folder)
    where = str(folder / ATTESTATION)
    result = Verification(keyid=keyid(key))
    try:
        body = _b64(env["payload"])
    except ValueError:
        result.bad_signature = "the payload is not base64: it was altered"
        return result
    message = pae(env["payloadType"], body)
    for sig in env["signatures"]:
        try:
            key.verify(_b64(sig["sig"]), message)
            break
        except (InvalidSignature, ValueError):
            continue
    else:
        ids = ", ".join(str(s.get("keyid", "?"))[:16] for s in env["signatures"])
        result.bad_signature = (
            f"no signature holds with key {result.keyid[:16]} (envelope keyids: {ids}): "
            "the attestation was altered or signed with another key"
        )
        return result
    result.statement = _check_statement(body, where)
    listed = {s["name"]: s["digest"]["sha256"] for s in result.statement["subject"]}
    present = folder_entries(folder)
    result.files = len(listed)
    for name, sha in listed.items():
        path = present.get(name)
        if path is None:
            result.removed.append(name)
        elif path.is_symlink() or not path.is_file() or _sha_or_none(path) != sha:
            result.changed.append(name)
    result.added = [name for name in present if name not in listed]
    return result
