"""The compiled parts (issue 12): reference._fastlines, the reference's unit lines in C, and
conformance._fastaudit, the block audit's chunks of both games in C.

Both optional: where they cannot be built (no C compiler), the install goes on, blocks render
through numpy and the audit judges through numpy: the same bytes and verdicts, slower.
Everything else is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("reference._fastlines", ["reference/_fastlines.c"], optional=True),
        Extension("conformance._fastaudit", ["conformance/_fastaudit.c"], optional=True),
    ]
)
