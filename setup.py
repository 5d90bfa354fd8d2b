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
Everything else is in pyproject.toml.
"""

import compileall
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

PACKAGES = ("contract", "reference", "conformance", "harness")


class BuildExtAndBytecode(build_ext):
    """``build_ext``, then, when it builds in place (an editable install), the packages'
    bytecode beside their sources."""

    def run(self) -> None:
        super().run()
        if self.inplace or getattr(self, "editable_mode", False):
            root = Path(__file__).resolve().parent
            for package in PACKAGES:
                compileall.compile_dir(root / package, quiet=1)


setup(
    ext_modules=[
        Extension("reference._fastlines", ["reference/_fastlines.c"], optional=True),
        Extension("conformance._fastaudit", ["conformance/_fastaudit.c"], optional=True),
    ],
    cmdclass={"build_ext": BuildExtAndBytecode},
)
