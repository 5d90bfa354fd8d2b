"""``instantcert verify DIR --key PUB``: check a signed report folder offline.

Exit 0 only when the attestation's signature holds with ``PUB``, every file it lists has its
SHA-256 and no file was added or removed; 1 otherwise, naming what differs; 2 when the check
cannot be made (no such folder, a key that is not an Ed25519 public key, an attestation that
is not a DSSE envelope holding an in-toto test-result Statement).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from reference import _strict_json as strict_json
from reference._files import read_regular

from .._signing import SigningError, Verification, load_public_key, verify_folder
from . import EXIT_FAILED, EXIT_OK, UsageError

MAX_REPORT_BYTES = strict_json.MAX_BYTES  # the strict parser's own bound on a document

NAME = "verify"
HELP = "check a signed report folder: signature, every file's SHA-256, nothing added or removed"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", metavar="DIR", help="the report folder (certify --sign-key)")
    parser.add_argument(
        "--key", required=True, metavar="PUB", help="the signer's public key (PREFIX.pub)"
    )


def _verdict(folder: Path) -> str:
    try:
        doc = strict_json.loads(read_regular(folder / "report.json", MAX_REPORT_BYTES))
        return f"{doc['verdict']['overall']}: {doc['verdict']['note']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "(report.json unreadable)"


def render(result: Verification, folder: Path) -> str:
    if result.ok:
        predicate = result.statement.get("predicate", {})
        return (
            f"OK: signature by key {result.keyid} holds; {result.files} files match their "
            f"SHA-256, none added or removed\n"
            f"result {predicate.get('result')!s}; verdict {_verdict(folder)}"
        )
    lines = ["FAILED: the report folder is not what was signed"]
    if result.bad_signature:
        lines.append(f"  bad signature: {result.bad_signature}")
    lines += [f"  changed: {name}" for name in result.changed]
    lines += [f"  added:   {name}" for name in result.added]
    lines += [f"  removed: {name}" for name in result.removed]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    if not folder.is_dir():
        raise UsageError(f"{args.dir!r}: no such directory")
    try:
        key = load_public_key(Path(args.key))
        result = verify_folder(folder, key)
    except SigningError as exc:
        raise UsageError(str(exc)) from None
    print(render(result, folder))
    return EXIT_OK if result.ok else EXIT_FAILED
