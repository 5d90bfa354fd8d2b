"""Two runs side by side, requirement by requirement: what regressed, what was fixed, what moved.

Meant for two builds of one implementation judged by the same suite: a CI job compares the
build's report with the last release's and fails on a regression. It reads only the two
``report.json`` documents (validated against ``harness/schemas/report.schema.json``).

A requirement *regressed* when it now fails or errors and did not before, or when it is
required, passed before and now is not supported or not run. A requirement that passed and is
now *reserved* (a reading of the project not met, or something the contract lets a target leave
out, docs/certify.md) is an other outcome change, not a regression: a reservation fails no run,
and the verdict line shows CERTIFIED becoming CERTIFIED WITH RESERVATIONS. A requirement that
passed and is *not run* in a newer run that is filtered or quick is *narrower*: the narrower
run explains it, not the implementation; those rows are folded into one line (issue 30). It is
*fixed* when it failed or errored and now passes. Any other change of outcome is listed as
such; the same outcome with a different message or evidence (a new counterexample) is *changed
evidence*. Outcomes are the raw ones: a waiver does not hide a regression (the entry says it is
waived).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from reference import _strict_json as strict_json
from reference._files import quoting_excerpts, read_regular

from ._errors import HarnessError
from ._reports._mdtext import code, plain

FORMAT = "instantcert-compare/1"
MAX_REPORT_BYTES = strict_json.MAX_BYTES  # the strict parser's own bound on a document
BROKEN = ("fail", "error")
CATEGORIES = (
    "regressions",
    "fixes",
    "changed_outcome",
    "changed_evidence",
    "added",
    "removed",
    "narrower",
)


class CompareError(HarnessError):
    """A report that cannot be compared (bad input: exit 2)."""


@cache
def _report_schema() -> dict[str, Any]:
    raw = resources.files("harness").joinpath("schemas/report.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(raw)
    return schema


# What compare reads at the top of a report; a report of an older instantcert may lack a field
# added since (e.g. ``clauses``) and still be compared.
USED = frozenset(
    ("format", "harness_version", "run_id", "started_at", "suite_sha256", "rules_sha256",
     "target", "implementation", "profile", "filtered", "seed", "verdict", "requirements",
     "checks")
)  # fmt: skip


def _newer_field_only(error: jsonschema.ValidationError) -> bool:
    """A top-level field compare does not read is missing: tolerated (an older report)."""
    if error.validator != "required" or error.absolute_path or not isinstance(error.instance, dict):
        return False
    wanted = error.validator_value if isinstance(error.validator_value, list) else []
    missing = {k for k in wanted if k not in error.instance}
    return bool(missing) and not missing & USED


def load_report(path: Path, label: str) -> dict[str, Any]:
    """The report.json of a report folder (or the file itself), validated."""
    file = path / "report.json" if path.is_dir() else path
    if not file.exists():  # a FIFO or device is named for what it is below
        raise CompareError(f"{label} {str(path)!r}: no report.json there (not a report folder)")
    try:
        raw = read_regular(file, MAX_REPORT_BYTES)  # a FIFO or device refused, not read
        if len(raw) > MAX_REPORT_BYTES:
            raise CompareError(f"{label} {str(file)!r}: larger than {MAX_REPORT_BYTES} bytes")
        doc = strict_json.loads(raw.decode("utf-8"))
    except OSError as exc:
        raise CompareError(f"{label} {str(file)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CompareError(f"{label} {str(file)!r}: not UTF-8 text") from None
    except ValueError as exc:
        raise CompareError(f"{label} {str(file)!r}: not valid JSON ({exc})") from None
    errors = jsonschema.Draft202012Validator(_report_schema()).iter_errors(doc)
    error = jsonschema.exceptions.best_match(e for e in errors if not _newer_field_only(e))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "the top level"
        fault = quoting_excerpts(error.message, error.instance)
        raise CompareError(
            f"{label} {str(file)!r}: not an instantcert report: at {where}: {fault:.200}"
        )
    ids = [r["id"] for r in doc["requirements"]]
    duplicate = next((i for i in ids if ids.count(i) > 1), None)
    if duplicate is not None:
        raise CompareError(f"{label} {str(file)!r}: requirement {duplicate!r} appears twice")
    result: dict[str, Any] = doc
    return result


def _evidence_sha256(req: Mapping[str, Any], checks: Mapping[str, Mapping[str, Any]]) -> str:
    """SHA-256 of the evidence held against ``req``: of its checks whose outcome applies to it
    (a check that failed naming another requirement holds no evidence against this one)."""
    evidence = [
        [cid, checks[cid]["evidence"]]
        for cid in req["checks"]
        if cid in checks and checks[cid]["evidence"] and req["id"] in checks[cid]["requirements"]
    ]
    text = json.dumps(evidence, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _side(req: Mapping[str, Any], checks: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "outcome": req["outcome"],
        "message": req["message"],
        "evidence_sha256": _evidence_sha256(req, checks),
        "waived": bool(req["waiver"] and req["waiver"]["applied"]),
        "case_files": [
            p for cid in req["checks"] for p in checks.get(cid, {}).get("case_files", [])
        ],
    }


def _run(doc: Mapping[str, Any], path: str) -> dict[str, Any]:
    impl = doc["implementation"]
    return {
        "path": path,
        "run_id": doc["run_id"],
        "started_at": doc["started_at"],
        "harness_version": doc["harness_version"],
        "suite_sha256": doc["suite_sha256"],
        "rules_sha256": doc["rules_sha256"],
        "target": doc["target"],
        "implementation": None
        if impl is None
        else {"name": str(impl.get("name")), "version": str(impl.get("version"))},
        "profile": doc["profile"],
        "filtered": doc["filtered"],
        "seed": doc["seed"],
        "verdict": doc["verdict"]["overall"],
        "exit_code": doc["verdict"]["exit_code"],
        "reservations": len(doc["verdict"].get("reservations") or []),
    }


def _notes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Why outcomes may differ for reasons other than the implementation."""
    notes = []
    if old["suite_sha256"] != new["suite_sha256"]:
        notes.append("the suites differ (suite_sha256): a check may have changed, not the target")
    if old["rules_sha256"] != new["rules_sha256"]:
        notes.append("the rules files differ (rules_sha256)")
    if old["profile"] != new["profile"]:
        notes.append(f"profiles differ: {old['profile']} then {new['profile']}")
    if old["filtered"] != new["filtered"]:
        notes.append("one run was filtered: requirements outside its scope are 'not run'")
    if old["seed"] != new["seed"]:
        notes.append(
            f"seeds differ ({old['seed']} then {new['seed']}): counterexamples may differ "
            "for that reason alone"
        )
    return notes


def _is_regression(old: str, new: str, required: bool) -> bool:
    if new in BROKEN:
        return old not in BROKEN
    return old == "pass" and new not in ("pass", "reserved") and required


def _narrower(old: str, new: str, run: Mapping[str, Any]) -> bool:
    """pass -> not run in a newer run that is filtered or quick: its scope explains it."""
    return old == "pass" and new == "not_run" and (run["filtered"] or run["profile"] == "quick")


def compare(
    old: Mapping[str, Any], new: Mapping[str, Any], paths: tuple[str, str] = ("OLD", "NEW")
) -> dict[str, Any]:
    """The comparison document (schema: ``harness/schemas/compare.schema.json``); ``paths``
    name the two reports in it."""
    result: dict[str, Any] = {
        "format": FORMAT,
        "old": _run(old, paths[0]),
        "new": _run(new, paths[1]),
    }
    result["notes"] = _notes(old, new)
    found: dict[str, list[dict[str, Any]]] = {c: [] for c in CATEGORIES}
    old_checks = {c["check_id"]: c for c in old["checks"]}
    new_checks = {c["check_id"]: c for c in new["checks"]}
    before = {r["id"]: r for r in old["requirements"]}
    after = {r["id"]: r for r in new["requirements"]}
    unchanged = 0
    for rid in [*after, *(i for i in before if i not in after)]:
        a, b = before.get(rid), after.get(rid)
        about = b if b is not None else a
        assert about is not None
        entry = {
            "id": rid,
            "article": about["article"],
            "title": about["title"],
            "required": about["required"],
            "old": None if a is None else _side(a, old_checks),
            "new": None if b is None else _side(b, new_checks),
        }
        if a is None:
            found["added"].append(entry)
        elif b is None:
            found["removed"].append(entry)
        elif a["outcome"] != b["outcome"]:
            if _narrower(a["outcome"], b["outcome"], new):
                found["narrower"].append(entry)
            elif _is_regression(a["outcome"], b["outcome"], b["required"]):
                found["regressions"].append(entry)
            elif a["outcome"] in BROKEN and b["outcome"] == "pass":
                found["fixes"].append(entry)
            else:
                found["changed_outcome"].append(entry)
        elif (entry["old"]["message"], entry["old"]["evidence_sha256"]) != (
            entry["new"]["message"],
            entry["new"]["evidence_sha256"],
        ):
            found["changed_evidence"].append(entry)
        else:
            unchanged += 1
    result.update(found)
    result["unchanged"] = unchanged
    result["exit_code"] = 1 if found["regressions"] else 0
    return result


def headline(result: Mapping[str, Any]) -> str:
    counts = {c: len(result[c]) for c in CATEGORIES}
    return (
        f"{counts['regressions']} regression(s), {counts['fixes']} fix(es), "
        f"{counts['changed_outcome']} other outcome change(s), "
        f"{counts['changed_evidence']} with changed evidence, {counts['added']} new, "
        f"{counts['removed']} removed, {result['unchanged']} unchanged"
        + (
            f", {counts['narrower']} not run in the narrower new run"
            if counts.get("narrower")
            else ""
        )
    )


def _outcome(side: Mapping[str, Any] | None) -> str:
    if side is None:
        return "-"
    return str(side["outcome"]).replace("_", " ") + (" (waived)" if side["waived"] else "")


def _msg(side: Mapping[str, Any] | None) -> str:
    return (code(side["message"]) or "-") if side is not None else "-"


def _cell(entry: Mapping[str, Any], column: str) -> str:
    old, new = entry["old"], entry["new"]
    if column == "requirement":
        return code(entry["id"], 120)
    if column == "article":
        return plain(entry["article"], 80)
    if column == "required":
        return "yes" if entry["required"] else "no"
    if column == "outcome":
        return _outcome(new or old)
    if column in ("old", "new"):
        return _outcome(old if column == "old" else new)
    return _msg(old if column == "old message" else new)


def _table(entries: list[dict[str, Any]], columns: tuple[str, ...]) -> list[str]:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(e, c) for c in columns) + " |" for e in entries]
    return lines


_CHANGE = ("requirement", "article", "old", "new", "required", "new message")
SECTIONS = (
    ("regressions", "Regressions", _CHANGE),
    ("fixes", "Fixes", ("requirement", "article", "old", "new", "old message")),
    ("changed_outcome", "Other outcome changes", _CHANGE),
    (
        "changed_evidence",
        "Changed evidence (same outcome)",
        ("requirement", "article", "outcome", "old message", "new message"),
    ),
    ("added", "New requirements", ("requirement", "article", "outcome", "required", "new message")),
    ("removed", "Removed requirements", ("requirement", "article", "outcome", "required")),
)


def _how_narrow(run: Mapping[str, Any]) -> str:
    return " and ".join(
        w for w, on in (("filtered", run["filtered"]), ("quick", run["profile"] == "quick")) if on
    )


def _who(run: Mapping[str, Any]) -> str:
    impl = run["implementation"]
    return code(run["target"], 120) + (
        f" ({code(impl['name'], 60)} {code(impl['version'], 40)})" if impl else ""
    )


def markdown(result: Mapping[str, Any]) -> str:
    old, new = result["old"], result["new"]
    out = [
        f"## instantcert compare: {len(result['regressions'])} regression(s)",
        "",
        headline(result) + ".",
        "",
        "| | old | new |",
        "|---|---|---|",
        f"| report | {code(old['path'], 120)} | {code(new['path'], 120)} |",
        f"| verdict | {old['verdict']} (exit {old['exit_code']}) | "
        f"{new['verdict']} (exit {new['exit_code']}) |",
        f"| reservations | {old.get('reservations', 0)} | {new.get('reservations', 0)} |",
        f"| target | {_who(old)} | {_who(new)} |",
        f"| profile, seed | {plain(old['profile'], 40)}{' (filtered)' * old['filtered']}, "
        f"{old['seed']} | {plain(new['profile'], 40)}{' (filtered)' * new['filtered']}, "
        f"{new['seed']} |",
        f"| run | {code(old['run_id'], 40)} {old['started_at']} | "
        f"{code(new['run_id'], 40)} {new['started_at']} |",
    ]
    if result["notes"]:
        out += ["", "Notes:", ""] + [f"- {plain(n, 300)}" for n in result["notes"]]
    for key, title, columns in SECTIONS:
        if result[key]:
            out += ["", f"### {title} ({len(result[key])})", "", *_table(result[key], columns)]
    narrower = result.get("narrower") or []
    if narrower:  # folded: one line, not a row each
        ids = ", ".join(code(e["id"], 120) for e in narrower[:10])
        more = f" and {len(narrower) - 10} more" if len(narrower) > 10 else ""
        out += [
            "",
            f"Not run in the new run, which is {_how_narrow(new)} ({len(narrower)}, passed "
            f"before; not regressions): {ids}{more}.",
        ]
    return "\n".join(out) + "\n"
