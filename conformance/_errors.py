"""The base of the conformance package's exceptions, below every module that raises one."""


class ConformanceError(Exception):
    """Base of the conformance package's exceptions."""


__all__ = ["ConformanceError"]
