"""The layers point one way, read from the code: contract ← reference ← conformance ← harness
← cli.

``contract`` imports no project package; ``reference`` imports only ``contract``;
``conformance`` imports ``contract`` and ``reference``; ``harness`` may import all three, and
no harness module outside ``harness/_cli`` imports the CLI. Every import counts, at module
level or inside a function, absolute or relative, ``import x`` or ``from x import y``: a lazy
import is still a dependency.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LAYERS: dict[str, frozenset[str]] = {
    "contract": frozenset(),
    "reference": frozenset({"contract"}),
    "conformance": frozenset({"contract", "reference"}),
    "harness": frozenset({"contract", "reference", "conformance"}),
}
"""Each project package, and the project packages it may import (besides itself)."""


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(tree: ast.AST, module: str, is_package: bool) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) of every import in ``tree``, relative ones resolved."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            if node.level and node.module is None:  # from .. import x: x is the module
                for alias in node.names:
                    yield node.lineno, ".".join([*base, alias.name])
            elif node.level:
                yield node.lineno, ".".join([*base, node.module or ""])
            else:
                yield node.lineno, node.module or ""


def violations(root: Path, layers: Mapping[str, frozenset[str]] = LAYERS) -> list[str]:
    """One line per forbidden import under ``root``: ``path:line: a imports b``."""
    found: list[str] = []
    for layer, allowed in layers.items():
        for path in sorted((root / layer).rglob("*.py")):
            module = module_name(root, path)
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for line, name in imported(tree, module, path.name == "__init__.py"):
                top = name.split(".")[0]
                if top in layers and top != layer and top not in allowed:
                    where = path.relative_to(root).as_posix()
                    found.append(f"{where}:{line}: {layer} imports {name}")
    return found


def test_the_layers_point_one_way() -> None:
    assert all((ROOT / layer / "__init__.py").is_file() for layer in LAYERS)
    assert violations(ROOT) == []


def _tree(root: Path, files: Mapping[str, str]) -> Path:
    for name in ("contract", "reference", "conformance", "harness"):
        (root / name).mkdir()
        (root / name / "__init__.py").write_text("", encoding="utf-8")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_forbidden_import_is_found_wherever_it_hides(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "contract/a.py": "import json\nfrom . import b\n",  # allowed: stdlib, itself
            "contract/b.py": "def f():\n    from reference import x\n",  # in a function
            "reference/r.py": "from contract import Adapter\nimport conformance.checks\n",
            "conformance/checks/c.py": "from ...harness._errors import TargetError\n",
            "conformance/ok.py": "from contract import A\nfrom reference._x import y\n",
            "conformance/p.py": "from .. import harness\n",  # relative, no module
            "harness/h.py": "import conformance, reference, contract\n",  # the top: anything
        },
    )
    assert violations(root) == [
        "contract/b.py:2: contract imports reference",
        "reference/r.py:2: reference imports conformance.checks",
        "conformance/checks/c.py:1: conformance imports harness._errors",
        "conformance/p.py:1: conformance imports harness",
    ]


def cli_violations(root: Path) -> list[str]:
    """One line per harness module outside ``harness/_cli`` that imports the CLI: the
    commands sit on top of the harness, which never reaches back up to them."""
    found: list[str] = []
    for path in sorted((root / "harness").rglob("*.py")):
        if "_cli" in path.relative_to(root / "harness").parts:
            continue
        module = module_name(root, path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, name in imported(tree, module, path.name == "__init__.py"):
            if name == "harness._cli" or name.startswith("harness._cli."):
                found.append(f"{path.relative_to(root).as_posix()}:{line}: imports {name}")
    return found


def test_the_cli_sits_on_top_of_the_harness(tmp_path: Path) -> None:
    assert cli_violations(ROOT) == []
    root = _tree(
        tmp_path,
        {
            "harness/_cli/certify.py": "from .. import _runner\n",  # the CLI uses the harness
            "harness/_runner.py": "def f():\n    from ._cli import certify\n",
            "harness/_reports/x.py": "import harness._cli.replay\n",
        },
    )
    assert cli_violations(root) == [
        "harness/_reports/x.py:1: imports harness._cli.replay",
        "harness/_runner.py:2: imports harness._cli",
    ]


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def project_modules(root: Path) -> dict[str, Path]:
    """Every module of the project packages, by dotted name: the ``.py`` files, and the
    compiled extensions by their ``.pyi`` stubs (so ``from . import _fastlines`` names a
    module, not its package)."""
    modules: dict[str, Path] = {}
    for package in LAYERS:
        for path in sorted((root / package).rglob("*.py*")):
            if path.suffix in (".py", ".pyi"):
                modules.setdefault(module_name(root, path), path)
    return modules


def module_imports(path: Path, module: str, modules: Mapping[str, Path]) -> set[str]:
    """The project modules ``module`` imports: every import, at module level or inside a
    function or method (a lazy import is still an edge of the graph), except in an
    ``if TYPE_CHECKING:`` block, which never runs. ``from p import x`` is an import of the
    module ``p.x`` when that is a module, else of ``p``; a name is cut back to the nearest
    project module (``conformance.checks._scenarios.client.Session`` is ``...client``)."""
    if path.suffix == ".pyi":
        return set()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                names.add(submodule if submodule in modules else source)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found: set[str] = set()
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.add(name)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each project module and the project modules it imports."""
    modules = project_modules(root)
    return {name: module_imports(path, name, modules) for name, path in modules.items()}


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: its strongly connected components of more than one
    module (Tarjan's algorithm, iterative), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = []
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work.append((start, iter(sorted(graph[start]))))
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in graph:
                    continue
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def describe_cycle(component: list[str], graph: Mapping[str, set[str]]) -> str:
    members = set(component)
    edges = "; ".join(f"{m} -> {', '.join(sorted(graph[m] & members))}" for m in component)
    return f"{len(component)} modules: {edges}"


def test_no_import_cycle() -> None:
    """No module imports, however lazily, a module that imports it back, directly or
    through others: every import inside a function counts (moving an import into a function
    moves the cycle to run time, it does not remove it). Only ``if TYPE_CHECKING:`` blocks
    are left out, since they never run. A failure names each cycle and its edges."""
    graph = import_graph(ROOT)
    assert [describe_cycle(c, graph) for c in cycles(graph)] == []


def test_a_cycle_is_found_wherever_its_imports_hide(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "contract/a.py": "from . import b\n",  # a submodule through its package
            "contract/b.py": "def f():\n    from .a import x\n",  # lazily, back to a
            "contract/_ext.pyi": "def f() -> int: ...\n",
            "contract/c.py": "from . import _ext\n",  # a compiled module, not the package
            "reference/__init__.py": "from .g import G\n",
            "reference/g.py": "import reference.h\n",
            "reference/h.py": "class H:\n    def m(self):\n        import reference\n",
            "conformance/t.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import u\n"
            ),
            "conformance/u.py": "from .t import T\n",  # t's import of u never runs
        },
    )
    graph = import_graph(root)
    assert graph["contract.c"] == {"contract._ext"}
    assert cycles(graph) == [
        ["contract.a", "contract.b"],
        ["reference", "reference.g", "reference.h"],
    ]
    assert describe_cycle(["contract.a", "contract.b"], graph) == (
        "2 modules: contract.a -> contract.b; contract.b -> contract.a"
    )


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"a"}}, []),  # a module naming itself is no cycle
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, [["a", "b"], ["c", "d"]]),
    ],
)
def test_cycles_are_the_strongly_connected_components(
    graph: dict[str, set[str]], expected: list[list[str]]
) -> None:
    assert cycles(graph) == expected
