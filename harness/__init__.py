"""Drives any implementation of the two games, runs the conformance suite, writes the reports."""

__version__ = "0.1.0"

__all__ = ["__version__"]
