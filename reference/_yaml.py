"""The project's own YAML data (rules, requirements, clauses, profiles), read by libyaml, or
from their parsed form written when the package is built.

These files ship with the package and are trusted; what they say is validated by their
loaders. ``yaml.CSafeLoader`` parses them about ten times faster than the pure-Python
``safe_load`` (about 0.3 s of every command's start-up otherwise), with the same safe schema.
Files from outside (configs, waivers) go through ``harness._config``'s bounded loader instead.

Parsed ahead (issue 32, item 5): when the package is built (``setup.py``: an editable install,
a wheel), every YAML file it ships is parsed once and its data kept, marshalled, in
``reference/__pycache__/yaml-parsed.<cache tag>.marshal``, keyed by the SHA-256 of the file's
bytes. ``load`` of a text found there unmarshals a fresh copy of that data (0.3 ms for every
file a block audit reads, against about 10 ms of parsing and 8 ms of importing PyYAML); any
other text (a file edited since the build, a profile of one's own) is parsed by PyYAML, loaded
then. The key is the text's own digest, so the table is never stale: at worst it misses.
Only data marshal holds exactly (mappings, lists, strings, numbers, booleans, None) is kept;
a file with a date or another YAML type is always parsed.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from collections.abc import Iterable
from typing import Any

PARSED_NAME = f"yaml-parsed.{sys.implementation.cache_tag}.marshal"
"""The table's file name, in a package's ``__pycache__`` (marshal's format is Python's)."""

PARSED = os.path.join(os.path.dirname(__file__), "__pycache__", PARSED_NAME)

_table: dict[str, bytes] | None = None


class YAMLError(ValueError):
    """A text that is not valid YAML (PyYAML's ``YAMLError``, its message kept)."""


def _parsed() -> dict[str, bytes]:
    global _table
    if _table is None:
        try:
            with open(PARSED, "rb") as handle:
                found = marshal.load(handle)
        except (OSError, EOFError, ValueError, TypeError):
            found = {}
        _table = found if isinstance(found, dict) else {}
    return _table


def digest(text: str | bytes) -> str:
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()


def load(text: str | bytes) -> Any:
    """``yaml.safe_load(text)``: the parsed form kept at build time when there is one, else by
    libyaml where PyYAML has it. Not valid YAML: ``YAMLError``."""
    kept = _parsed().get(digest(text))
    if kept is not None:
        return marshal.loads(kept)  # a fresh copy: callers may change what they get
    return parse(text)


def parse(text: str | bytes) -> Any:
    """``text`` parsed by PyYAML (libyaml where it has it)."""
    import yaml

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # without libyaml: Python
    try:
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        raise YAMLError(str(exc)) from exc


def parsed_table(texts: Iterable[bytes]) -> bytes:
    """The table ``load`` reads: each text's data, marshalled, by the text's digest; a text
    whose data marshal does not hold exactly (a date, a NaN) is left out (parsed each time)."""
    table: dict[str, bytes] = {}
    for text in texts:
        data = parse(text)
        try:
            kept = marshal.dumps(data)
        except ValueError:  # a type marshal cannot write (datetime.date, ...)
            continue
        if marshal.loads(kept) == data and _same_types(marshal.loads(kept), data):
            table[digest(text)] = kept
    return marshal.dumps(table)


def _same_types(a: Any, b: Any) -> bool:
    """``a`` and ``b`` (equal) hold the same types all the way down (1 == True, 1 == 1.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return all(_same_types(k, j) for k, j in zip(a, b, strict=True)) and all(
            _same_types(a[k], b[k]) for k in a
        )
    if isinstance(a, list | tuple):
        return all(_same_types(x, y) for x, y in zip(a, b, strict=True))
    return True


def write_parsed(root: str, out: str, packages: Iterable[str]) -> int:
    """Write the table of every ``*.yaml`` file under ``root``'s ``packages`` into ``out``
    (``setup.py``, as it builds); the number of files kept."""
    texts = []
    for package in packages:
        for folder, _, files in os.walk(os.path.join(root, package)):
            for name in sorted(files):
                if name.endswith(".yaml"):
                    with open(os.path.join(folder, name), "rb") as handle:
                        texts.append(handle.read())
    table = parsed_table(texts)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "wb") as handle:
        handle.write(table)
    return len(marshal.loads(table))
