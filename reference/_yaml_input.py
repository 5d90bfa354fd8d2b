"""YAML files from outside, read with bounds: a config file, a waivers file, a profile of one's
own given to the pytest face.

``read_input_file`` reads at most ``MAX_INPUT_BYTES``, UTF-8, no aliases (a "billion laughs"
file of 1 KB expands into 9**9 values: gigabytes, and minutes for whoever walks them) and
nesting at most ``MAX_INPUT_DEPTH`` deep; every fault is one ``InputFileError`` naming the file
and the line. The project's own data files are read by ``reference._yaml`` instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ._files import read_regular

MAX_INPUT_BYTES = 1024 * 1024  # a config, waivers or profile file is a few kilobytes
MAX_INPUT_DEPTH = 32


class InputFileError(ValueError):
    """A YAML file from outside that cannot be read: the message names the file and the fault."""


class _BoundedLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` with no aliases (a file from outside never needs them), a bound on
    nesting depth, and no key twice in a mapping."""

    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.YAMLError(
                f"line {event.start_mark.line + 1}: YAML aliases (*{event.anchor}) are not "
                "accepted here"
            )
        self.depth += 1
        try:
            if self.depth > MAX_INPUT_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.YAMLError(
                    f"line {mark.line + 1}: nested deeper than {MAX_INPUT_DEPTH} levels"
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """A mapping naming a key twice is refused (YAML 1.2: keys are unique; PyYAML kept
        the last: ``check_concurrency: 4`` then ``: 64`` ran with 64, silently)."""
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                twice = key in seen
                seen.add(key)
            except TypeError:  # an unhashable key: the base refuses it below
                continue
            if twice:
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key {key!r} is given twice", key_node.start_mark
                )
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping


def read_input_file(path: str | Path, what: str) -> Any:
    """A YAML file's data; an ``InputFileError`` naming ``what`` (e.g. "config file"), the file
    and the fault, whatever it is: unreadable, too big, not UTF-8, not YAML, an alias, too deep,
    or a value YAML cannot build (an impossible date such as 2026-02-30)."""
    path = Path(path)
    where = f"{what} {str(path)!r}"
    try:
        raw = read_regular(path, MAX_INPUT_BYTES)  # a FIFO or device refused, not read
    except OSError as exc:
        raise InputFileError(f"{where}: {exc.strerror or exc}") from None
    if len(raw) > MAX_INPUT_BYTES:
        raise InputFileError(f"{where}: larger than {MAX_INPUT_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        number = raw[: exc.start].count(b"\n") + 1
        shown = raw[exc.start : exc.start + 4]
        raise InputFileError(
            f"{where} line {number}: not UTF-8 (byte {exc.start}: {shown!r})"
        ) from None
    try:
        return yaml.load(text, Loader=_BoundedLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise InputFileError(f"{where}{line}: not valid YAML ({exc.problem})") from None
    except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise InputFileError(f"{where}: not valid YAML ({str(exc)[:200]})") from None
