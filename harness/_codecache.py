"""The code of the dataclasses' generated methods, kept between runs of the command.

Python 3.11 and 3.12 write each method a dataclass gets (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, ``__setattr__``, ...) as source text and compile it at every start
(``dataclasses._create_fn``: one ``exec`` of a text a method; 3.13 one a class). The modules a
block audit loads define about 75 dataclasses, some 400 methods: 35-45 ms of the one core that
loads them before the audit's checks can run, the largest single part of the start-up after
numpy's import (docs/block-audit.md, "The dataclasses' code kept").

The ``instantcert`` command (``harness._cli.entry_point``, never an import of the library)
gives ``dataclasses`` an ``exec`` of its own (``install``) that looks each text up in a table of
code objects compiled from those very texts before compiling it; the table is read from
``__pycache__/dataclass-code.<cache tag>.marshal`` beside this module at start and written
again at the end of a run that compiled a text it did not hold (``save``), as Python keeps
modules' bytecode in ``__pycache__``. A code object compiled from a text is the text's, to
the byte: ``exec`` of it with the same globals and namespace makes the same functions, so
every class is the same as without the table. The file names the interpreter it was written
by (``sys.version``); a file of another interpreter, damaged or of another shape is not read
(the texts are compiled, as without it). ``INSTANTCERT_NO_CODE_CACHE=1`` turns it off.
"""

from __future__ import annotations

import builtins
import contextlib
import marshal
import os
import sys
from types import CodeType
from typing import Any

FILE_NAME = f"dataclass-code.{sys.implementation.cache_tag or 'python'}.marshal"
FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
HEADER = f"instantcert dataclass code\n{sys.version}\n".encode()
"""The file's first bytes: a table another interpreter wrote (marshal's format of code objects
changes between versions) is not read."""
MAX_TEXTS = 4000
"""At most this many texts kept: past it, a run keeps only the texts it used (the commands'
dataclasses are a few hundred; texts of classes since changed would otherwise pile up)."""
OFF = "INSTANTCERT_NO_CODE_CACHE"


class CodeCache:
    """Code objects by the source text they were compiled from (see the module)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.codes: dict[str, CodeType] = {}
        self.used: set[str] = set()
        self.compiled = 0  # texts compiled by this process: not in the table read
        self.loaded = self._load()

    def _load(self) -> bool:
        try:
            with open(self.path, "rb") as file:
                data = file.read()
        except OSError:
            return False
        if not data.startswith(HEADER):
            return False
        try:
            table = marshal.loads(memoryview(data)[len(HEADER) :])
        except (ValueError, EOFError, TypeError):
            return False
        if not isinstance(table, dict) or not all(
            isinstance(text, str) and isinstance(code, CodeType) for text, code in table.items()
        ):
            return False
        self.codes = table
        return True

    def code(self, text: str) -> CodeType:
        """The code of ``text``, compiled as ``exec`` compiles a text (file ``<string>``)."""
        self.used.add(text)
        code = self.codes.get(text)
        if code is None:
            code = compile(text, "<string>", "exec")
            self.codes[text] = code
            self.compiled += 1
        return code

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        """``exec`` as ``dataclasses`` calls it: a text's code from the table."""
        if isinstance(source, str):
            source = self.code(source)
        builtins.exec(source, globals, locals)

    def save(self) -> bool:
        """Write the table if this process compiled a text it did not hold (atomically: a
        reader sees the old file or the new one); False if it was not written (nothing new,
        or the folder cannot be written: the texts are compiled again next time)."""
        if not self.compiled:
            return False
        table = self.codes
        if len(table) > MAX_TEXTS:
            table = {text: code for text, code in table.items() if text in self.used}
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(temporary, "wb") as file:
                file.write(HEADER)
                marshal.dump(table, file)
            os.replace(temporary, self.path)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            return False
        return True


_INSTALLED: CodeCache | None = None


def install(folder: str | None = None) -> CodeCache | None:
    """Give ``dataclasses`` the table's ``exec`` for the rest of the process (the command's
    own: never called by an import); None when ``INSTANTCERT_NO_CODE_CACHE`` is set."""
    global _INSTALLED
    if os.environ.get(OFF):
        return None
    import dataclasses

    cache = CodeCache(os.path.join(FOLDER if folder is None else folder, FILE_NAME))
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]  # shadows the builtin there
    _INSTALLED = cache
    return cache


def uninstall() -> None:
    """``dataclasses`` compiles its texts itself again (tests)."""
    global _INSTALLED
    import dataclasses

    vars(dataclasses).pop("exec", None)
    _INSTALLED = None


def installed() -> CodeCache | None:
    return _INSTALLED


__all__ = ["FILE_NAME", "FOLDER", "CodeCache", "install", "installed", "uninstall"]
