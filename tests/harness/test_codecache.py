"""The dataclasses' generated code kept between runs of the command (``harness._codecache``)."""

from __future__ import annotations

import dataclasses
import json
import marshal
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import _codecache
from harness._codecache import HEADER, CodeCache


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[CodeCache]:
    installed = _codecache.install(str(tmp_path))
    assert installed is not None
    try:
        yield installed
    finally:
        _codecache.uninstall()


def _classes() -> list[type]:
    """Dataclasses of every kind of generated method: defaults, factories, frozen (hash,
    setattr), order, keyword-only, slots, InitVar and __post_init__."""

    @dataclasses.dataclass(frozen=True, order=True)
    class Point:
        x: int
        y: int = 2

    @dataclasses.dataclass(kw_only=True, slots=True)
    class Bag:
        items: list[int] = dataclasses.field(default_factory=list)
        name: str = "bag"

    @dataclasses.dataclass(eq=True, unsafe_hash=True)
    class Derived:
        base: dataclasses.InitVar[int]
        doubled: int = dataclasses.field(init=False, default=0)

        def __post_init__(self, base: int) -> None:
            self.doubled = 2 * base

    return [Point, Bag, Derived]


def _behaviour(point: type, bag: type, derived: type) -> list[object]:
    """What the three classes do, as plain values to compare."""
    p, q = point(1), point(1, 3)
    frozen = False
    try:
        p.x = 5
    except dataclasses.FrozenInstanceError:
        frozen = True
    b = bag(items=[1])
    try:
        bag(1)
        positional = True
    except TypeError:
        positional = False
    d = derived(4)
    return [
        repr(p),
        p == point(1, 2),
        p < q,
        hash(p) == hash(point(1)),
        frozen,
        repr(b),
        bag().items is not bag().items,
        positional,
        hasattr(b, "__dict__"),
        repr(d),
        d.doubled,
        hash(d) == hash(derived(4)),
        [f.name for f in dataclasses.fields(derived)],
    ]


def test_classes_made_from_the_table_are_the_classes_made_without_it(
    cache: CodeCache, tmp_path: Path
) -> None:
    compiled = _behaviour(*_classes())  # the texts compiled, into the table
    assert cache.compiled > 0
    assert cache.save()
    again = CodeCache(cache.path)  # a later run: every text from the file
    assert again.loaded and set(again.codes) == set(cache.codes)
    _codecache.uninstall()
    import dataclasses as plain

    assert "exec" not in vars(plain)
    without = _behaviour(*_classes())
    dataclasses.exec = again.exec  # type: ignore[attr-defined]
    try:
        from_file = _behaviour(*_classes())
    finally:
        vars(dataclasses).pop("exec", None)
    assert again.compiled == 0  # nothing compiled: every method's code came from the file
    assert compiled == without == from_file


def test_a_second_run_compiles_nothing_and_writes_nothing(cache: CodeCache) -> None:
    _classes()
    assert cache.save()
    stamp = os.stat(cache.path).st_mtime_ns
    later = CodeCache(cache.path)
    for text in cache.codes:
        later.code(text)
    assert later.compiled == 0
    assert not later.save()
    assert os.stat(cache.path).st_mtime_ns == stamp


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"garbage",
        HEADER + b"\x00\x01\x02",  # marshal cannot read it
        HEADER + marshal.dumps([1, 2, 3]),  # not a table
        HEADER + marshal.dumps({"text": 3}),  # not code
        b"instantcert dataclass code\nPython 0.1\n" + marshal.dumps({}),  # another interpreter
    ],
    ids=["empty", "garbage", "not-marshal", "a-list", "not-code", "other-interpreter"],
)
def test_a_damaged_or_foreign_file_is_not_read(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / _codecache.FILE_NAME
    path.write_bytes(content)
    cache = CodeCache(str(path))
    assert not cache.loaded and cache.codes == {}
    code = cache.code("x = 1\n")
    namespace: dict[str, object] = {}
    exec(code, {}, namespace)
    assert namespace == {"x": 1} and cache.compiled == 1
    assert cache.save()  # written anew, readable
    assert CodeCache(str(path)).loaded


def test_a_folder_it_cannot_write_is_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder would be")
    cache = CodeCache(str(blocked / _codecache.FILE_NAME))
    cache.code("y = 2\n")
    assert not cache.save()
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


def test_past_its_bound_the_table_keeps_the_texts_a_run_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_codecache, "MAX_TEXTS", 3)
    path = str(tmp_path / _codecache.FILE_NAME)
    old = CodeCache(path)
    for n in range(5):
        old.code(f"a = {n}\n")
    assert old.save()
    run = CodeCache(path)
    assert len(run.codes) == 5
    run.code("a = 0\n")
    run.code("b = 1\n")  # compiled: the table is written, with what this run used only
    assert run.save()
    assert set(CodeCache(path).codes) == {"a = 0\n", "b = 1\n"}


def test_only_the_command_installs_it_and_it_can_be_turned_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    imported = subprocess.run(
        [
            sys.executable,
            "-c",
            "import dataclasses, harness, harness._cli, reference, conformance._audit\n"
            "print('exec' in vars(dataclasses))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert imported.stdout.split() == ["False"], imported.stderr  # a library import: untouched
    monkeypatch.delitem(vars(dataclasses), "exec", raising=False)
    monkeypatch.setenv(_codecache.OFF, "1")
    assert _codecache.install(str(tmp_path)) is None
    assert "exec" not in vars(dataclasses)


COMMAND = """
import sys
from harness import _codecache
_codecache.FOLDER = sys.argv.pop(1)
from harness._cli import entry_point
sys.argv[0] = "instantcert"
entry_point()
"""

PROBE = """
import json, sys
from harness import _codecache
cache = _codecache.CodeCache(sys.argv[1])
print(json.dumps({"texts": len(cache.codes), "loaded": cache.loaded}))
"""


def test_the_command_writes_the_table_once_and_reads_it_after(tmp_path: Path) -> None:
    """``instantcert`` keeps the code of every dataclass its command made: a second run of
    the same command compiles none (so writes nothing)."""
    folder = tmp_path / "pycache"
    env = {k: v for k, v in os.environ.items() if k != _codecache.OFF}

    def run() -> None:
        done = subprocess.run(
            [sys.executable, "-c", COMMAND, str(folder), "evaluate", "--game", "robots", "X"],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert done.returncode in (0, 1, 2), done.stderr

    run()
    table = folder / _codecache.FILE_NAME
    assert table.exists()
    first = table.stat().st_mtime_ns
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, str(table)], capture_output=True, text=True, timeout=60
    )
    seen = json.loads(probe.stdout)
    assert seen["loaded"] and seen["texts"] > 20
    run()
    assert table.stat().st_mtime_ns == first  # nothing new compiled: not written again
