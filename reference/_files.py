"""The one way a path given by a user is opened for reading, and the one way its bytes are
quoted in an error (issue 29 item 2).

``open_regular`` refuses a FIFO, a device, a socket or a directory before reading a byte: the
file is opened without blocking (a FIFO with no writer would otherwise hang the command for
ever), its kind read from the open descriptor (no race with a rename), and only a regular
file is handed back. ``excerpt`` is all of a file's content an error may show: a few bytes,
escaped, so that naming the wrong file (``/proc/self/environ``, a key) puts no secret in a CI
log.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

EXCERPT_BYTES = 24  # what an error may quote of a file that is not what was expected


class NotRegularFile(OSError):
    """A path that names no regular file: ``strerror`` says what it names instead."""


def kind(mode: int) -> str:
    """What a ``st_mode`` names, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: str | Path) -> BinaryIO:
    """``path`` opened for reading in binary; ``NotRegularFile`` (an ``OSError``) when it is a
    FIFO, device, socket or directory, ``OSError`` when it cannot be opened."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(
                errno.EINVAL,
                f"{kind(mode)}, not a regular file: instantcert reads only files on disk",
                str(path),
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def write_text(path: str | Path, text: str) -> None:
    """``text`` written to ``path`` as UTF-8, created or truncated; never waited on: a FIFO
    nobody reads is refused (``OSError``, ENXIO, its ``strerror`` saying so) where ``open``
    would block for ever. A FIFO someone reads, ``/dev/stdout`` or ``/dev/null`` is written."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "a FIFO (named pipe) that nobody reads", str(path)) from None
        raise
    os.set_blocking(fd, True)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


def read_regular(path: str | Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the regular file ``path`` (one more than ``limit`` says
    that it is larger); ``OSError`` as ``open_regular``."""
    with open_regular(path) as handle:
        return handle.read(limit + 1)


def check_regular(path: str | Path) -> None:
    """``NotRegularFile`` unless ``path`` is a regular file (or does not exist: the opener
    names that); for paths another library opens."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        raise NotRegularFile(
            errno.EINVAL,
            f"{kind(mode)}, not a regular file: instantcert reads only files on disk",
            str(path),
        )


def quoting_excerpts(message: str, value: object) -> str:
    """A validator's ``message`` about ``value`` (jsonschema writes ``repr(value)`` into it)
    with the value shown as an excerpt: a file of the wrong kind is not printed whole."""
    return message.replace(repr(value), excerpt(value))


def excerpt(data: object, limit: int = EXCERPT_BYTES) -> str:
    """The start of ``data`` as an error may show it: ``limit`` bytes or characters at most,
    every control, non-ASCII byte and quote escaped (``repr``), "…" when cut. Any other value
    is shown as its ``repr``, cut the same way."""
    if not isinstance(data, bytes | str):
        text = repr(data)
        return text if len(text) <= limit else text[:limit] + "…"
    shown = repr(data[:limit])
    return shown + "…" if len(data) > limit else shown
