"""Clause coverage: how much of the contract and the rules a run actually tested.

The clause catalogue (``conformance/clauses/*.yaml``, docs/clauses.md) lists every normative
statement once, each mapped to the requirements that test it or marked untestable from outside.
A run states which clauses are in its scope (``RunStarted.clauses``: the contract's, rules.md's
for both games, and those of the games in scope); the report folds them with the requirements'
outcomes (``RunFinished``) into one status per clause:

- ``untestable``: no requirement can test it from outside (the catalogue says why);
- ``passed``: every requirement it maps to passed;
- ``failed``: at least one of its requirements failed;
- ``partly_tested``: some of its requirements passed, none failed, others were not decided
  (not supported, not run, error);
- ``not_tested``: none of its requirements was decided in this run.

A clause is *tested* when passed, failed or partly tested: at least one requirement mapped to it
was decided (pass or fail) by this run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conformance._catalogue import Requirement
from conformance._clauses import load_clause_files, wording

STATUSES = ("passed", "failed", "partly_tested", "not_tested", "untestable")


def clause_entries(games: Iterable[str]) -> list[dict[str, Any]]:
    """The clauses a run over ``games`` answers to, as RunStarted carries them."""
    wanted = set(games)
    return [
        {
            "id": c.id,
            "article": c.article,
            "requirements": list(c.requirements),
            "untestable": c.untestable is not None,
        }
        for f in load_clause_files()
        for c in f.clauses
        if c.game is None or c.game in wanted
    ]


def requirement_wording(requirement: Requirement) -> dict[str, Any] | None:
    """The rules' own words for a requirement (its article's clause texts), for its verdict."""
    found = wording(requirement)
    return None if found is None else found.to_dict()


def status(entry: Mapping[str, Any], outcomes: Mapping[str, str]) -> str:
    """One clause's status from its requirements' outcomes (absent: not run)."""
    if entry["untestable"]:
        return "untestable"
    # reserved: the letter held where it was checked (a reading is no clause)
    got = [outcomes.get(rid, "not_run") for rid in entry["requirements"]]
    got = ["pass" if o == "reserved" else o for o in got]
    if "fail" in got:
        return "failed"
    if all(o == "pass" for o in got):
        return "passed"
    return "partly_tested" if "pass" in got else "not_tested"


def coverage(entries: Sequence[Mapping[str, Any]], outcomes: Mapping[str, str]) -> dict[str, Any]:
    """Counts per status, and each clause with its status, for report.json's ``clauses``."""
    items = [
        {
            "id": e["id"],
            "article": e["article"],
            "requirements": list(e["requirements"]),
            "status": status(e, outcomes),
        }
        for e in entries
    ]
    counts = {s: sum(1 for i in items if i["status"] == s) for s in STATUSES}
    return {
        "total": len(items),
        "mapped": len(items) - counts["untestable"],
        "tested": counts["passed"] + counts["failed"] + counts["partly_tested"],
        **counts,
        "clauses": items,
    }


def summary(cov: Mapping[str, Any]) -> str:
    """One line for every report: ``172 clauses: 142 mapped, ...``."""
    return (
        f"{cov['total']} clauses of the contract and the rules: {cov['mapped']} mapped to "
        f"requirements, {cov['untestable']} untestable from outside; {cov['tested']} tested in "
        f"this run ({cov['passed']} passed, {cov['failed']} failed, {cov['partly_tested']} "
        f"partly tested), {cov['not_tested']} not tested"
    )
