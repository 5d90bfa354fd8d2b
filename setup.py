"""The compiled parts (issue 12): reference._fastlines, the reference's unit lines in C, and
conformance._fastaudit, the block audit's chunks of both games in C.

Both optional: where they cannot be built (no C compiler), the install goes on, blocks render
through numpy and the audit judges through numpy: the same bytes and verdicts, slower.

An editable install (``pip install -e .``) also byte-compiles the packages in place: pip
byte-compiles what a wheel installs, but an editable install leaves the sources where they are,
and where ``PYTHONDONTWRITEBYTECODE`` is set (many containers set it) nothing ever writes their
``__pycache__``, so every command compiled its modules from source again: about 0.15-0.5 s of a
block audit's start-up (issue 32), measured with ``-X importtime``. A source edited later is
compiled again in memory as before (Python checks the source's time stamp): never stale.

Every build also parses the YAML files the packages ship once and keeps their data, marshalled,
in ``reference/__pycache__`` (``reference._yaml``: a block audit then imports no PyYAML and
parses nothing, about 15 ms of its start-up); keyed by each file's digest, so never stale.
Everything else is in pyproject.toml.
"""

import compileall
import importlib.util
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

PACKAGES = ("contract", "reference", "conformance", "harness")


class BuildExtAndBytecode(build_ext):
    """``build_ext``, then, when it builds in place (an editable install), the packages'
    bytecode beside their sources."""

    def run(self) -> None:
        super().run()
        root = Path(__file__).resolve().parent
        in_place = self.inplace or getattr(self, "editable_mode", False)
        write_parsed_yaml(root, root if in_place else Path(self.build_lib))
        if in_place:
            for package in PACKAGES:
                compileall.compile_dir(root / package, quiet=1)


def write_parsed_yaml(root: Path, into: Path) -> None:
    """The shipped YAML files' parsed data (``reference._yaml.write_parsed``) in ``into``'s
    ``reference/__pycache__``; skipped, with a note, where PyYAML cannot be loaded (the
    files are then parsed as they are read, as before)."""
    spec = importlib.util.spec_from_file_location("_yaml_at_build", root / "reference/_yaml.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = into / "reference" / "__pycache__" / module.PARSED_NAME
    try:
        kept = module.write_parsed(str(root), str(out), PACKAGES)
    except ImportError as exc:
        print(f"YAML files not parsed ahead ({exc})", file=sys.stderr)
        return
    print(f"{kept} YAML files parsed ahead into {out}", file=sys.stderr)


setup(
    ext_modules=[
        Extension("reference._fastlines", ["reference/_fastlines.c"], optional=True),
        Extension("conformance._fastaudit", ["conformance/_fastaudit.c"], optional=True),
    ],
    cmdclass={"build_ext": BuildExtAndBytecode},
)
