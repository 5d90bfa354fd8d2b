"""Failed and errored checks grouped into faults: each fault shown once, with the checks that met
it.

Several checks often meet the same fault: an X2 counted as one notch fails the edge search, the
gauge fills and the several-gauges search alike, each with its own counterexamples. A fault is
keyed by the check's outcome and the requirements it broke (``checks[].requirements``, narrowed
by the check to what its evidence breaks): the checks with the same key met the same fault. For
an error, the first line of its message joins the key, so two different breakdowns stay apart.

Each fault shows one counterexample first: a minimal one (its note starts with "minimal") where
a check shrank one, else the first of the first check; every other counterexample stays in the
report, listed under the check that found it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Fault:
    outcome: str  # "fail" or "error"
    requirements: tuple[str, ...]
    checks: list[Mapping[str, Any]] = field(default_factory=list)

    @property
    def check_ids(self) -> list[str]:
        return [c["check_id"] for c in self.checks]

    def first(self) -> tuple[Mapping[str, Any], int] | None:
        """The counterexample shown first, as (check, index in its evidence); None without any."""
        found = [(c, n) for c in self.checks for n in range(len(c["evidence"]))]
        for check, n in found:
            if is_minimal(check["evidence"][n]):
                return check, n
        return found[0] if found else None


def is_minimal(evidence: Mapping[str, Any]) -> bool:
    """True for a counterexample a search shrank (its note says so: "minimal ticket: ...")."""
    return str(evidence.get("note") or "").startswith("minimal")


def key(check: Mapping[str, Any]) -> tuple[str, ...]:
    """What makes two failed checks the same fault (see the module's docstring)."""
    parts = (check["outcome"], *sorted(check["requirements"]))
    if check["outcome"] == "error":
        parts += (check["message"].splitlines()[0] if check["message"] else "",)
    return parts


def faults(checks: Sequence[Mapping[str, Any]]) -> list[Fault]:
    """The faults the failed and errored checks met, failures first, in the checks' order."""
    grouped: dict[tuple[str, ...], Fault] = {}
    for check in checks:
        if check["outcome"] not in ("fail", "error"):
            continue
        fault = grouped.setdefault(
            key(check), Fault(check["outcome"], tuple(sorted(check["requirements"])))
        )
        fault.checks.append(check)
    return sorted(grouped.values(), key=lambda f: f.outcome != "fail")


def case_file(check: Mapping[str, Any], index: int) -> str | None:
    """The case file written for a check's counterexample ``index`` (``cases/<check>-<n>.json``),
    None when there is none."""
    files = check["case_files"]  # one per counterexample, in order (harness._cases)
    return files[index] if index < len(files) else None
