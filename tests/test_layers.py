"""The layers point one way, read from the code: contract ← reference ← conformance ← harness
← cli; inside each package its own layers point one way too (``INNER_LAYERS``, drawn in
docs/architecture.md), and no module imports, however lazily, a module that imports it back.

``contract`` imports no project package; ``reference`` imports only ``contract``;
``conformance`` imports ``contract`` and ``reference``; ``harness`` may import all three, and
no harness module outside ``harness/_cli`` imports the CLI. Every import counts, at module
level or inside a function, absolute or relative, ``import x`` or ``from x import y``: a lazy
import is still a dependency.
"""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

import reference

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


INNER_LAYERS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "contract": (
        ("documents", ("_documents", "_errors", "_limits", "_fastshape")),
        ("adapter and schemas", ("_adapter", "_schemas")),
        ("the seam", ("_validated",)),
        ("face", ("",)),
    ),
    "reference": (
        (
            "base",
            (
                "_errors",
                "_files",
                "_yaml",
                "_yaml_input",
                "_strict_json",
                "_scenarios",
                "_fastlines",
            ),
        ),
        ("compiled", ("_compiled", "_permutation")),
        ("rules", ("_rules", "_gains", "_{game}_rules")),
        ("game registry", ("_games", "engine_kit")),
        ("games", ("_{game}", "_{game}_*")),
        ("every game", ("_evaluate", "_generate", "_blocks", "_blockfile", "_render", "_builtin")),
        ("service", ("_service_db", "_service", "_http_guard", "_server")),
        ("face", ("", "{game}")),
    ),
    "conformance": (
        (
            "base",
            (
                "_errors",
                "_gzip_ahead",
                "_timestamps",
                "_public_seeds",
                "_special",
                "_scipy",
                "_laws_scipy",
                "_laws",
                "_lazy",
                "_hypothesis",
                "games._{game}_invalid",
                "_fastaudit",
                "_compiled",
            ),
        ),
        ("kit registry", ("games",)),
        (
            "core",
            (
                "_settings",
                "_evaluation",
                "_catalogue",
                "_clauses",
                "_profiles",
                "_pool",
                "_registry",
                "_evidence",
                "_replay",
            ),
        ),
        (
            "block audit",
            (
                "_audit",
                "_audit.*",
                "_kernels",
                "games._boards",
                "games._{game}_kernel",
                "_stats",
                "_crossblock",
                "_drawing",
                "_audit_engine",
                "_started_audit",
                "_file_target",
                "_dask_audit",
            ),
        ),
        ("running a check", ("_execute",)),
        ("strategies", ("strategies", "games._{game}_strategies")),
        ("check helpers", ("checks._*",)),
        ("checks", ("checks", "checks.*")),
        ("game kits", ("games.{game}",)),
        ("the whole suite", ("_suite", "_file_audit")),
        ("face", ("", "plugin", "test_conformance")),
    ),
    "harness": (
        (
            "base",
            (
                "_errors",
                "_adapter",
                "_timeout",
                "_escape",
                "_events",
                "_streams",
                "_parallel",
                "_clause_coverage",
                "_patience",
                "_field_counts",
                "_codecache",
            ),
        ),
        (
            "parts",
            (
                "_budget",
                "_cases",
                "_config",
                "_waivers",
                "_progress",
                "_provenance",
                "_signing",
                "_transport",
                "_wait",
                "_statuses",
                "_redirects",
                "_ids",
                "_flags",
                "_integers",
                "_clients",
            ),
        ),
        ("targets", ("_reference_adapter", "_http_adapter", "_targets")),
        ("run", ("_smoke", "_runner")),
        ("reports", ("_reports", "_reports.*", "_compare")),
        ("face", ("", "_cli", "_cli.*", "pytest_plugin")),
    ),
}
"""Each package's layers, bottom first, each a tuple of module patterns relative to the package
(``""``: the package's ``__init__``, its face; ``{game}``: any registered game's name). A module
is in the first layer one of whose patterns it matches, and may import a module of its own
package in the same layer or a lower one, never a higher one."""

VERSION_READERS = frozenset({"harness._cases", "harness._runner", "harness._cli"})
"""The modules that read ``harness.__version__`` from the package's face, the one place the
version is written (pyproject.toml and CHANGELOG.md name it): the only imports of a face from
inside its package."""


def layer_of(
    module: str, layers: tuple[tuple[str, tuple[str, ...]], ...], games: Sequence[str]
) -> int | None:
    """The index of the layer of ``module`` (a name relative to its package), or None."""
    for index, (_name, patterns) in enumerate(layers):
        for pattern in patterns:
            shapes = [pattern.format(game=g) for g in games] if "{game}" in pattern else [pattern]
            if any(fnmatch.fnmatchcase(module, shape) for shape in shapes):
                return index
    return None


def inner_layer_violations(
    graph: Mapping[str, set[str]],
    inner: Mapping[str, tuple[tuple[str, tuple[str, ...]], ...]] = INNER_LAYERS,
    games: Sequence[str] = (),
    allowed: frozenset[tuple[str, str]] = frozenset(),
) -> list[str]:
    """One line per module in no layer, and per import of a higher layer of the same package."""
    found: list[str] = []
    for module in sorted(graph):
        package, _, relative = module.partition(".")
        if package not in inner:
            continue
        layers = inner[package]
        here = layer_of(relative, layers, games)
        if here is None:
            found.append(f"{module}: in no layer of {package}")
            continue
        for name in sorted(graph[module]):
            other_package, _, other = name.partition(".")
            if other_package != package or (module, name) in allowed:
                continue
            there = layer_of(other, layers, games)
            if there is not None and there > here:
                found.append(
                    f"{module} ({layers[here][0]}) imports {name} ({layers[there][0]}, above)"
                )
    return found


def test_each_package_keeps_its_inner_layers() -> None:
    """Inside each package, a module imports only its own layer and those below
    (``INNER_LAYERS``; docs/architecture.md draws them), every import counted as in the cycle
    test; a new module must be placed in a layer."""
    allowed = frozenset((module, "harness") for module in VERSION_READERS)
    graph = import_graph(ROOT)
    assert inner_layer_violations(graph, games=reference.games(), allowed=allowed) == []


def test_an_import_of_a_higher_layer_is_found() -> None:
    inner = {"contract": (("low", ("_a", "_{game}_x")), ("high", ("_b", "")))}
    graph = {
        "contract": {"contract._a"},
        "contract._a": {"contract._b", "reference._z"},  # up: found; another package: not here
        "contract._b": {"contract._a"},
        "contract._coins_x": {"contract._b"},  # a game's module, by its pattern
        "contract._c": set(),  # in no layer
    }
    assert inner_layer_violations(graph, inner, games=("coins",)) == [
        "contract._a (low) imports contract._b (high, above)",
        "contract._c: in no layer of contract",
        "contract._coins_x (low) imports contract._b (high, above)",
    ]
    allowed = frozenset({("contract._a", "contract._b"), ("contract._coins_x", "contract._b")})
    assert inner_layer_violations(graph, inner, ("coins",), allowed) == [
        "contract._c: in no layer of contract"
    ]


SHIPPED_GAME_LISTS = frozenset({"reference/_builtin.py"})
"""The one module whose job is to name the shipped games: it registers their engines."""

HELP_TEXTS = frozenset({"harness/_cli/__init__.py", "harness/_cli/generate_block.py"})
"""The CLI's help texts, written for a person using the shipped games."""


def own_file(path: Path, games: Sequence[str]) -> bool:
    """A game's own file: its name (or a folder's) holds the game's name (``_robots.py``,
    ``games/eldorado.py``, ``checks/robots_rules.py``, ``games/_eldorado_kernel.py``)."""
    return any(game in part.lower() for part in path.parts for game in games)


def game_names_in(path: Path, games: Sequence[str]) -> list[str]:
    """``line: text`` of every string literal (docstrings aside, an attribute's too: they
    explain, they do not decide) and every identifier (names, attributes, definitions,
    arguments, imported modules) of ``path`` that holds a game's name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docstrings = {  # every bare string statement: a module's, a class's, an attribute's
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }
    found: list[str] = []
    for node in ast.walk(tree):
        words: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            words = [] if id(node) in docstrings else [node.value]
        elif isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            words = [node.name]
        elif isinstance(node, ast.arg):
            words = [node.arg]
        elif isinstance(node, ast.alias):
            words = [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom):
            words = [node.module or ""]
        for word in words:
            if any(game in word.lower() for game in games):
                found.append(f"{getattr(node, 'lineno', 0)}: {word[:60]!r}")
    return found


def generic_modules_naming_a_game(root: Path, games: Sequence[str]) -> dict[str, list[str]]:
    """Every module of the four packages that is no game's own file and names a game."""
    found: dict[str, list[str]] = {}
    for package in LAYERS:
        for path in sorted((root / package).rglob("*.py")):
            where = path.relative_to(root).as_posix()
            if own_file(path.relative_to(root), games) or where in SHIPPED_GAME_LISTS | HELP_TEXTS:
                continue
            if names := game_names_in(path, games):
                found[where] = names
    return found


def test_no_generic_module_names_a_game() -> None:
    """Game code lives in the game's own files (its engine, rules, kit, kernel, strategies,
    checks) and YAML: a generic module that names a registered game (a literal, an
    identifier, an import of a game's module) is how a second game would have to edit it."""
    assert generic_modules_naming_a_game(ROOT, reference.games()) == {}


def test_a_game_name_is_found_in_code_not_in_docstrings(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "conformance/generic.py": (
                '"""Works for coins too."""\n'  # a docstring explains: not counted
                "def f(game):\n"
                '    """coins."""\n'
                '    return game == "coins"\n'  # a branch on the name
            ),
            "conformance/other.py": "from .games._coins_kit import X\nCOINS_LIMIT = 3\n",
            "conformance/games/_coins_kit.py": 'X = "coins"\n',  # the game's own file
            "reference/_coins.py": "coins = 1\n",
        },
    )
    assert generic_modules_naming_a_game(root, ("coins",)) == {
        "conformance/generic.py": ["4: 'coins'"],
        "conformance/other.py": ["1: 'games._coins_kit'", "2: 'COINS_LIMIT'"],
    }
