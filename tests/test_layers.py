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
