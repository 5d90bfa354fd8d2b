"""``attestation.intoto.jsonl``: the signed in-toto Statement over every file of the report.

Closed after the manifest, so it covers every other file, manifest.json and cases/ included
(``harness/_signing.py`` has the formats; docs/signing.md the way a regulator checks it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .._signing import ATTESTATION, sign_folder
from ._record import Collector

FILE = ATTESTATION


class AttestationReport(Collector):
    def __init__(self, out_dir: Path, key: Ed25519PrivateKey) -> None:
        super().__init__(out_dir)
        self.key = key

    def write(self, doc: dict[str, Any]) -> None:
        sign_folder(doc, self.out_dir, self.key)
