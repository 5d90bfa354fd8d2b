"""The one default of a request's deadline, below every module that opens a target."""

DEFAULT_TIMEOUT_S = 60.0
"""Seconds a target may take to answer one request: the one default of certify, replay and the
pytest plugin (``--timeout``, ``timeout_s``)."""
