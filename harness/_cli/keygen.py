"""``instantcert keygen --out PREFIX``: an Ed25519 key pair for signing report folders.

``PREFIX.key`` is the private key (PEM PKCS8, unencrypted, mode 0600: keep it in the lab's
secret store); ``PREFIX.pub`` the public key (PEM SubjectPublicKeyInfo) a regulator is given.
Existing files are never overwritten: a lost signing key cannot be replaced by accident.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from .._signing import generate_key, keyid, private_pem, public_pem
from . import EXIT_OK, UsageError

NAME = "keygen"
HELP = "write an Ed25519 key pair PREFIX.key / PREFIX.pub for certify --sign-key and verify"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        required=True,
        metavar="PREFIX",
        help="writes PREFIX.key (private, mode 0600) and PREFIX.pub (public)",
    )


def _write_new(path: Path, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.fchmod(fd, mode)
        os.write(fd, data)
    finally:
        os.close(fd)


def run(args: argparse.Namespace) -> int:
    private, public = Path(f"{args.out}.key"), Path(f"{args.out}.pub")
    for path in (private, public):
        if path.exists() or path.is_symlink():
            raise UsageError(f"{str(path)!r} exists; refusing to overwrite a key")
    if not private.parent.is_dir():
        raise UsageError(f"--out {args.out!r}: no such directory {str(private.parent)!r}")
    key = generate_key()
    try:
        _write_new(private, private_pem(key), 0o600)
        _write_new(public, public_pem(key.public_key()), 0o644)
    except OSError as exc:
        raise UsageError(f"--out {args.out!r}: {exc.strerror or exc}") from None
    print(f"private key: {private} (keep it secret)")
    print(f"public key:  {public} (give it to whoever verifies)")
    print(f"keyid:       {keyid(key.public_key())}")
    return EXIT_OK
