"""Write the answer schemas of ``reference/openapi/openapi.json`` from ``contract/schemas/``.

The OpenAPI document's components for the contract's answers are the shipped JSON Schemas
(``contract._schemas.components``): edit a schema file, run this, and the HTTP contract follows.
``tests/contract/test_schemas.py`` fails when the document is not what this script writes.

    python scripts/openapi_schemas.py [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from contract._schemas import components  # noqa: E402

DOCUMENT = ROOT / "reference" / "openapi" / "openapi.json"


def written() -> str:
    """The OpenAPI document with its answer components taken from the schema files."""
    spec = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    spec["components"]["schemas"].update(components())
    return json.dumps(spec, indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    text = written()
    if DOCUMENT.read_text(encoding="utf-8") == text:
        return 0
    if args.check:
        print(f"{DOCUMENT.relative_to(ROOT)} is out of date: run scripts/openapi_schemas.py")
        return 1
    DOCUMENT.write_text(text, encoding="utf-8")
    print(f"wrote {DOCUMENT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
