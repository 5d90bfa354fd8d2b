"""Naming a target (contract section 5): ``open_target(spec)`` returns its ``Adapter``.

- ``python:reference``: the built-in reference, in-process (the default target);
- ``python:package.module:factory``: a vendor's own adapter, ``factory()`` returns it;
- ``http://host:port`` or ``https://...``: a target speaking HTTP API v1.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import os
import re
import sys
from typing import Any
from urllib.parse import urlsplit

from ._adapter import OPERATIONS, Adapter
from ._errors import ConfigError, TargetUnreachable
from ._timeout import DEFAULT_TIMEOUT_S

DEFAULT_TARGET = "python:reference"
REFERENCE_SEED = hashlib.sha256(b"instantcert python:reference").digest()
"""The built-in target's master seed: fixed and public, so that certifying the reference is
reproducible to the byte, block statistics included. ``instantcert serve`` draws a secret one."""

_FACTORY = re.compile(
    r"python:(?P<module>[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*):(?P<factory>[A-Za-z_]\w*)"
)
_OPERATIONS = (*OPERATIONS, "close")
_FORMS = "python:reference, python:package.module:factory, http://host:port, https://host:port"
_HOST_PORT = re.compile(r"(?:localhost|[\w.-]+\.[\w-]+|\[[0-9A-Fa-f:.]+\])(?::\d+)?(?:/.*)?")
"""What a URL without its scheme looks like: ``127.0.0.1:8080``, ``localhost:8080``,
``api.vendor.example``, ``[::1]:8080``, a path allowed (checked once the scheme is added)."""
_API_PATH = "v1"
"""The first segment of every path of HTTP API v1: a base URL never holds it, the harness adds
it to every request (contract section 4)."""


def open_target(
    spec: str,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    user_agent: str | None = None,
    **http_options: Any,
) -> Adapter:
    """The adapter of the target named ``spec``; ``timeout`` (s), ``user_agent`` (None: the
    default, a common client's) and ``http_options`` (see ``HttpAdapter``) apply to HTTP
    targets. ConfigError for a name that is none of the forms, TargetUnreachable for a vendor
    adapter that cannot be loaded."""
    if not isinstance(spec, str):
        raise ConfigError(f"a target is a string, got {type(spec).__name__}: {spec!r}")
    if spec == DEFAULT_TARGET:
        from ._reference_adapter import ReferenceAdapter

        return ReferenceAdapter(seed=REFERENCE_SEED)
    if spec.startswith(("http://", "https://")):
        from ._http_adapter import HttpAdapter

        _refuse_api_path(spec)
        if user_agent is not None:
            http_options["user_agent"] = user_agent
        return HttpAdapter(spec, timeout=timeout, **http_options)
    match = _FACTORY.fullmatch(spec)
    if match is None:
        raise ConfigError(f"target {spec!r} is not one of: {_FORMS}{_target_hint(spec)}")
    return _vendor_adapter(spec, match["module"], match["factory"])


def _refuse_api_path(url: str) -> None:
    """ConfigError for a base URL that holds the API's own path (``http://host:8080/v1``,
    ``.../v1/implementation``): every request would go to ``/v1/v1/...`` and the target look
    broken. A path before ``/v1`` (a vendor behind a reverse proxy's prefix) is kept."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL: the adapter says what is wrong with it
        return
    segments = parts.path.split("/")
    if _API_PATH not in segments:
        return
    base = parts._replace(path="/".join(segments[: segments.index(_API_PATH)]), query="")
    raise ConfigError(
        f"target {url!r} includes the API path /{_API_PATH}: give the base URL without "
        f"/{_API_PATH} (the harness adds it to every request): {base.geturl()}"
    )


def _target_hint(spec: str) -> str:
    """What a target that is none of the forms was most likely meant to be: a URL without its
    scheme, a misspelt scheme, the reference without ``python:``; empty when nothing is close."""
    scheme, sep, rest = spec.partition("://")
    if sep:
        close = difflib.get_close_matches(scheme.lower(), ["http", "https"], n=1, cutoff=0.7)
        return f"; did you mean {close[0]}://{rest}?" if close else ""
    if _HOST_PORT.fullmatch(spec):
        return f"; did you mean http://{spec}?"
    if spec == "reference":
        return f"; did you mean {DEFAULT_TARGET}?"
    head, colon, tail = spec.partition(":")
    if colon and head != "python" and difflib.get_close_matches(head, ["python"], cutoff=0.6):
        return f"; did you mean python:{tail}?"
    return ""


def _vendor_adapter(spec: str, module_name: str, factory_name: str) -> Adapter:
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())  # as `python -m` would: a vendor's module in the cwd
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # an adapter module can fail any way on import
        raise TargetUnreachable(
            f"target {spec!r}: cannot import {module_name!r}: {type(exc).__name__}: {exc}"
        ) from None
    factory = getattr(module, factory_name, None)
    if not callable(factory):
        raise TargetUnreachable(f"target {spec!r}: {module_name} has no callable {factory_name!r}")
    try:
        adapter = factory()
    except Exception as exc:
        raise TargetUnreachable(
            f"target {spec!r}: {factory_name}() failed: {type(exc).__name__}: {exc}"
        ) from None
    missing = [name for name in _OPERATIONS if not callable(getattr(adapter, name, None))]
    if missing:
        raise TargetUnreachable(
            f"target {spec!r}: {factory_name}() returned a {type(adapter).__name__} without "
            f"{', '.join(missing)}: not an Adapter"
        )
    if not isinstance(getattr(adapter, "name", None), str):
        try:
            adapter.name = spec
        except AttributeError:
            raise TargetUnreachable(f"target {spec!r}: the adapter has no str 'name'") from None
    assert isinstance(adapter, Adapter)
    return adapter
