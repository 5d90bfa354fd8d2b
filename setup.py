"""The one compiled part: reference._fastlines, robots unit lines in C (issue 12).

Optional: where it cannot be built (no C compiler), the install goes on and blocks render
through numpy, the same bytes, slower. Everything else is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("reference._fastlines", ["reference/_fastlines.c"], optional=True),
    ]
)
