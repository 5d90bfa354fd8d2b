"""The block audit on a Dask distributed cluster: ``instantcert audit-block FILE… --scheduler``.

This module is imported only on that path (``harness/_cli/audit_block.py`` imports it when
``--scheduler`` is given): it imports ``distributed`` and ``fsspec`` (``pip install
'instantcert[dask]'``), which nothing else in the project needs. Without the option nothing of
Dask is imported and the audit runs in this process as before.

How the work is split (docs/block-audit.md, "On a cluster"):

- the workers read the files themselves: each file is named by a path every worker can open
  (a shared file system) or an fsspec URL (``https://``, ``s3://``, ``gs://`` ... where the
  matching fsspec package is installed on the workers); this process never opens them;
- each worker first reads the header line of the files it is given (``_header_on_worker``), so
  the block checks can list the blocks; then each block is audited where it is read
  (``_audit_on_worker``: ``conformance._audit_engine.audit_source``, the same reader, judge and
  randomness family as the local audit, on threads);
- what comes back is the block's ``BlockAudit`` (faults, tallies, digest, one prize a unit)
  and its randomness family: the pooled statistics and the cross-block tests are computed here
  from those, never from block bytes moved around.

Failures of the cluster are errors, never verdicts (``ClusterError``, a ``TargetError``): a
worker lost mid-block has its block started again on another by the scheduler (Dask's
``distributed.scheduler.allowed-failures``, 3 by default; past it, the block's checks end in
error naming the block); a file a worker cannot open or read is that block's error naming the
worker; an unreachable scheduler, or one without workers, is ``ClusterUnavailable`` before the
run starts (the command exits 2 with one line); no wait is unbounded.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

import distributed
import fsspec  # type: ignore[import-untyped]

from contract import TargetError

from . import _stats
from ._audit import (
    RAW_READ,
    AuditError,
    BlockAudit,
    Source,
    expectation_for,
    open_document,
    read_header,
)
from ._audit_engine import BlockRequest, EngineAudit, audit_source
from ._file_target import FileTarget, FileTargets

R = TypeVar("R")

# distributed's client API is untyped: its handles are held as Any here
_Client: Any = distributed.Client

CONNECT_TIMEOUT_S = 10.0
"""How long the client tries to reach the scheduler before the command gives up (exit 2)."""
WORKERS_TIMEOUT_S = 30.0
"""How long a reachable scheduler may take to have one worker."""


class ClusterUnavailable(Exception):
    """The cluster cannot start the audit: no scheduler at the address, no worker, a file no
    worker can read a header from (the command exits 2 with this one line)."""


class ClusterError(TargetError):
    """The cluster failed one block: its checks end in error (never a pass or a fail)."""

    kind = "cluster"


class SourceError(Exception):
    """Reading a URL's bytes failed mid-way (the network's fault, not the file's content): an
    error of the block, not the end of its document (a local file's read error is that)."""


def _one_line(exc: BaseException) -> str:
    """An exception as one line: its type and the first line of its message."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


# -- sources: the files as the workers open them ---------------------------------------------


def is_url(name: str) -> bool:
    """Whether ``name`` is an fsspec URL (``proto://...``) rather than a path."""
    head, sep, _ = name.partition("://")
    return bool(sep) and head.isidentifier() and head != "file"


class _Stream:
    """A binary stream over a URL for ``DocumentReader``: counts its position, and seeks a
    stream that cannot seek (an HTTP body) by opening it again and reading forward; any
    failure mid-read is a ``SourceError`` naming the URL and the byte."""

    def __init__(self, url: str, opener: Callable[[], IO[bytes]]) -> None:
        self._url = url
        self._open = opener
        self._raw = opener()
        self._at = 0

    def read(self, size: int = -1) -> bytes:
        try:
            data: bytes = self._raw.read(size)
        except Exception as exc:
            raise SourceError(
                f"reading {self._url} failed at byte {self._at}: {_one_line(exc)}"
            ) from None
        self._at += len(data)
        return data

    def tell(self) -> int:
        return self._at

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence != 0:
            raise ValueError("a URL stream seeks from its start only")
        if offset == self._at:
            return offset
        with contextlib.suppress(ValueError, OSError):  # fsspec's HTTP stream says it seeks
            self._raw.seek(offset)
            self._at = offset
            return offset
        if offset < self._at:
            self._raw.close()
            self._raw = self._open()
            self._at = 0
        while self._at < offset and self.read(min(RAW_READ, offset - self._at)):
            pass
        return self._at

    def close(self) -> None:
        self._raw.close()


class UrlSource:
    """A block file named by an fsspec URL. HTTP(S) bodies are streamed (any server, with or
    without range requests); other filesystems give their own seekable files."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __str__(self) -> str:
        return self.url

    def _opened(self) -> IO[bytes]:
        options: dict[str, Any] = {"block_size": 0} if self.url.startswith("http") else {}
        try:
            stream: IO[bytes] = fsspec.open(self.url, "rb", **options).open()
        except (
            Exception
        ) as exc:  # FileNotFoundError, a missing fsspec package, a refused connection
            reason = "no such file" if isinstance(exc, FileNotFoundError) else str(exc)
            raise OSError(None, f"{type(exc).__name__}: {reason}") from None
        return stream

    def open(self, mode: str) -> IO[bytes]:
        return _Stream(self.url, self._opened)  # type: ignore[return-value]


def source_of(name: str) -> Source:
    """What a worker opens for a file named ``name``: a URL, or a path on its file system."""
    return UrlSource(name) if is_url(name) else Path(name)


# -- the tasks the workers run ---------------------------------------------------------------


def _worker_address() -> str:
    try:
        return str(distributed.get_worker().address)
    except ValueError:  # not on a worker (a task run in the client, in tests)
        return f"pid {os.getpid()}"


def _header_on_worker(name: str) -> tuple[dict[str, Any] | None, str, str]:
    """(the file's header, "" or why it has none usable, the worker's address)."""
    worker = _worker_address()
    try:
        reader = open_document(source_of(name))
        try:
            header, _, _ = read_header(reader)
        finally:
            reader.close()
        expectation_for(header)
    except (AuditError, SourceError) as exc:
        return None, f"{name}: {exc} (on worker {worker})", worker
    return header, "", worker


def _audit_on_worker(
    name: str, request: BlockRequest
) -> tuple[BlockAudit, _stats.FamilyVerdict, str, float]:
    """The block's audit and randomness family, the worker's address and its seconds."""
    worker = _worker_address()
    began = time.perf_counter()
    try:
        # threads, not processes: a Dask worker is daemonic and runs threads of its own
        result, randomness = audit_source(source_of(name), request, processes=False)
    except (AuditError, SourceError) as exc:
        raise ClusterError(
            f"block {request.block_id} ({name}): {exc} (on worker {worker})"
        ) from None
    return result, randomness, worker, time.perf_counter() - began


def _pair_on_worker(
    function: Callable[..., R],
    a: tuple[BlockAudit, _stats.FamilyVerdict, str, float],
    b: tuple[BlockAudit, _stats.FamilyVerdict, str, float],
    args: tuple[Any, ...],
) -> R:
    """``function`` on two blocks' audits (``_audit_on_worker``'s results, where they are)."""
    return function(a[0], b[0], *args)


# -- the engine, in the client ---------------------------------------------------------------


class DaskEngine:
    """``conformance._audit_engine.AuditEngine`` on a Dask cluster: every block submitted at
    once, each awaited at most ``timeout`` seconds (the run's check budget)."""

    name = "dask"

    def __init__(self, client: Any, sources: Mapping[str, str], timeout: float) -> None:
        self.client = client
        self.scheduler = str(client.scheduler.address) if client.scheduler else ""
        self.sources = dict(sources)  # block id -> the name the workers open
        self.timeout = timeout
        self._futures: dict[tuple[Any, ...], Any] = {}
        self._run = uuid.uuid4().hex[:8]
        self._stalled = False  # a block waited ``timeout`` in vain: the cluster is not answering

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "scheduler": self.scheduler}

    def submit(self, requests: Sequence[BlockRequest]) -> None:
        for request in requests:
            if request.key in self._futures or request.block_id not in self.sources:
                continue
            self._futures[request.key] = self.client.submit(
                _audit_on_worker,
                self.sources[request.block_id],
                request,
                key=f"audit-block-{self._run}-{len(self._futures)}-{request.block_id}",
                pure=False,
            )

    def audited(self, request: BlockRequest) -> EngineAudit:
        self.submit([request])
        future = self._futures.get(request.key)
        what = f"block {request.block_id}"
        if future is None:
            raise ClusterError(f"{what}: no file of this run holds it")
        try:
            # once one block waited its whole budget, the others get only what is done
            wait = 0.0 if self._stalled else self.timeout
            result, randomness, worker, seconds = future.result(timeout=wait)
        except ClusterError:
            raise
        except distributed.TimeoutError:
            self._stalled = True
            raise ClusterError(
                f"{what}: not audited within {self.timeout:g} s by the cluster at {self.scheduler}"
            ) from None
        except Exception as exc:  # KilledWorker (lost too often), a scheduler gone, ...
            raise ClusterError(
                f"{what}: the cluster at {self.scheduler} failed it: {_one_line(exc)}"
            ) from None
        audited_by = {
            "engine": self.name,
            "scheduler": self.scheduler,
            "worker": worker,
            "seconds": round(seconds, 3),
        }
        return EngineAudit(result, randomness, audited_by)

    def compare(
        self,
        function: Callable[..., R],
        pairs: Sequence[tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]],
    ) -> list[R]:
        """Each pair computed on a worker from the two audits the cluster holds (one of them
        moved between workers if they sit apart: a prize a unit, never the block)."""
        futures = [
            self.client.submit(
                _pair_on_worker, function, self._futures[a], self._futures[b], args, pure=False
            )
            for a, b, args in pairs
        ]
        deadline = time.monotonic() + self.timeout
        results: list[R] = []
        for (a, b, _), future in zip(pairs, futures, strict=True):
            try:
                results.append(future.result(timeout=max(0.0, deadline - time.monotonic())))
            except ClusterError:
                raise
            except Exception as exc:
                raise ClusterError(
                    f"comparing blocks {a[0]} and {b[0]}: the cluster at {self.scheduler} "
                    f"failed it: {_one_line(exc)}"
                ) from None
        return results

    def close(self) -> None:
        for future in self._futures.values():
            future.release()
        self.client.close(timeout=CONNECT_TIMEOUT_S)


def connect(scheduler: str, connect_timeout: float | None = None) -> Any:
    """A client of the scheduler at ``scheduler`` with at least one worker, or
    ``ClusterUnavailable`` (one line) within about ``connect_timeout`` (default:
    ``CONNECT_TIMEOUT_S``, read at the call) + ``WORKERS_TIMEOUT_S``."""
    if connect_timeout is None:
        connect_timeout = CONNECT_TIMEOUT_S
    try:
        client = _Client(scheduler, timeout=connect_timeout, set_as_default=False)
    except Exception as exc:  # OSError, TimeoutError, ValueError (a malformed address)
        raise ClusterUnavailable(
            f"cannot reach the Dask scheduler at {scheduler!r} within {connect_timeout:g} s: "
            f"{_one_line(exc)}"
        ) from None
    try:
        client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
    except Exception:
        client.close(timeout=connect_timeout)
        raise ClusterUnavailable(
            f"the Dask scheduler at {scheduler!r} has no worker after {WORKERS_TIMEOUT_S:g} s"
        ) from None
    return client


def open_cluster_targets(
    names: Sequence[str], client: Any, timeout: float
) -> FileTarget | FileTargets:
    """The block files ``names`` as the local audit sees them (one ``FileTarget``, or
    ``FileTargets``), their headers read by the workers, their blocks audited on the cluster.
    ``ClusterUnavailable`` names a file whose header no worker could read."""
    futures = client.map(_header_on_worker, list(names), pure=False)
    deadline = time.monotonic() + timeout
    try:
        answers = [f.result(timeout=max(0.0, deadline - time.monotonic())) for f in futures]
    except Exception as exc:
        raise ClusterUnavailable(
            f"reading the files' headers on the cluster failed: {_one_line(exc)}"
        ) from None
    targets: list[FileTarget] = []
    for name, (header, problem, _worker) in zip(names, answers, strict=True):
        if header is None:
            raise ClusterUnavailable(problem)
        targets.append(FileTarget(name, header=header, source=name))
    files: FileTarget | FileTargets = (
        targets[0] if len(targets) == 1 else FileTargets(names, files=targets)
    )
    engine = DaskEngine(client, {t.block_id: t.source for t in targets}, timeout)
    files.engine = engine
    return files


__all__ = [
    "CONNECT_TIMEOUT_S",
    "ClusterError",
    "ClusterUnavailable",
    "DaskEngine",
    "SourceError",
    "UrlSource",
    "connect",
    "is_url",
    "open_cluster_targets",
    "source_of",
]
