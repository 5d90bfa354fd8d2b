"""``report.md``: the run for a CI job summary (GitHub ``$GITHUB_STEP_SUMMARY``, GitLab notes).

Verdict first, then what did not pass with its counterexample, then every requirement.
"""

from __future__ import annotations

from typing import Any

from reference import _strict_json as strict_json

from .._escape import md_block, md_code, md_text
from ._record import OUTCOMES, Collector
from ._reservations import covers, head, reach, reservations
from ._wording import coverage_line, label

FILE = "report.md"
ICON = {
    "pass": "✅ pass",
    "fail": "❌ fail",
    "error": "⚠️ error",
    "reserved": "🔶 reserved",
    "not_supported": "➖ not supported",
    "not_run": "⏸️ not run",
}


def _cell(text: object) -> str:
    """The first line of ``text``, shortened, as Markdown text (docs/reports.md: escaping)."""
    lines = str(text).splitlines() if text else []
    return md_text(lines[0] if lines else "", 160)


def _code(value: Any) -> str:
    text = value if isinstance(value, str) else strict_json.dumps(value, sort_keys=True)
    return md_code(text, 3000) if "\n" not in text else f"\n{md_block(text, 3000)}\n"


def render(doc: dict[str, Any]) -> str:
    verdict = doc["verdict"]
    impl = doc["implementation"] or {}
    out = [
        f"# instantcert: {verdict['overall']}",
        "",
        f"**{verdict['overall']}** (exit {verdict['exit_code']}): {md_text(verdict['note'])}",
        "",
        f"- target: {md_code(doc['target'])}"
        + (
            f" ({md_text(impl.get('name'), 200)} {md_text(impl.get('version'), 200)})"
            if impl
            else ""
        ),
        f"- profile: {md_code(doc['profile'])}{' (filtered)' if doc['filtered'] else ''}, "
        f"seed `{doc['seed']}`",
        f"- harness {md_text(doc['harness_version'])}, suite sha256 `{doc['suite_sha256'][:16]}…`",
        f"- started {doc['started_at']}, finished {doc['finished_at']}",
        "",
        "| outcome | requirements |",
        "|---|---:|",
    ]
    out += [f"| {ICON[o]} | {verdict['counts'][o]} |" for o in OUTCOMES]
    if coverage_line(doc):
        out += ["", f"Clause coverage: {coverage_line(doc)} (docs/clauses.md)."]
    if not doc["smoke"]["ok"]:
        out += ["", f"**Smoke step failed:** {md_text(doc['smoke']['message'], 2000)}"]
    out += _reservations(doc)
    out += _reach(doc)
    if doc["failures"]:
        out += ["", "## Failures", ""]
        for failure in doc["failures"]:
            out.append(
                f"### {md_text(', '.join(failure['requirements']))} "
                f"({md_text(failure['check_id'])})"
            )
            out += ["", _cell(failure["message"]), ""]
            for n, ev in enumerate(failure["evidence"], start=1):
                out.append(f"{n}. input: {_code(ev.get('input'))}")
                out.append(f"   - expected (the rules): {_code(ev.get('expected'))}")
                out.append(f"   - got (the target): {_code(ev.get('got'))}")
                if ev.get("request") is not None:
                    out.append(f"   - request: {_code(ev.get('request'))}")
                if ev.get("note"):
                    out.append(f"   - note: {_cell(ev['note'])}")
            for case in failure["case_files"]:
                command = f"instantcert replay {case} --target {doc['target']}"
                out.append(f"- replay: {md_code(command)}")
            out.append("")
    if doc["blocks"]:
        out += [
            "",
            "## Blocks",
            "",
            "| block | game | stake | units audited | payout | min p-value | sha256 |",
            "|---|---|---:|---:|---:|---:|---|",
        ]
        for b in doc["blocks"]:
            p_min = min(b["p_values"].values()) if b["p_values"] else None
            share = 100 * b["payout_cents"] / b["face_value_cents"] if b["face_value_cents"] else 0
            out.append(
                f"| {md_text(b['block_id'], 160)} | {md_text(b['game'])} | {b['stake_cents']} | "
                f"{b['audited_units']:,}/{b['units']:,} | "
                f"{b['payout_cents']:,} c ({share:.2f} %) | "
                f"{'-' if p_min is None else f'{p_min:.4g}'} | `{b['sha256'][:16]}…` |"
            )
    out += [
        "",
        "## Requirements",
        "",
        "| requirement | article | outcome | required | note |",
        "|---|---|---|---|---|",
    ]
    for req in doc["requirements"]:
        outcome = ICON[req["outcome"]]
        waiver = req["waiver"]
        if waiver is not None:
            outcome += " (waived)" if waiver["applied"] else ""
            outcome += " (waiver unnecessary)" if waiver["unnecessary"] else ""
            outcome += " (waiver expired)" if waiver["expired"] else ""
        note = "" if req["outcome"] == "pass" else _cell(req["message"])
        out.append(
            f"| {md_code(req['id'], in_table=True)} | {md_text(req['article'])} | {outcome} | "
            f"{'yes' if req['required'] else 'no'} | {note} |"
        )
    out += _own_words(doc)
    if doc["interpretations"]:
        out += ["", "## Interpretations this verdict rests on", ""]
        for item in doc["interpretations"]:
            out.append(
                f"- **{md_text(item['id'])}** ({md_text(item['game'])}): {md_text(item['text'])}"
            )
    return "\n".join(out) + "\n"


def _reservations(doc: dict[str, Any]) -> list[str]:
    """Every reservation, each with its basis, what was seen and what would lift it."""
    found = reservations(doc)
    if not found:
        return []
    scope = covers(doc)
    out = ["", f"## Reservations ({len(found)})", ""]
    if scope:
        out += [f"Scope: {md_text(scope)}.", ""]
    for n, item in enumerate(found, start=1):
        out.append(f"{n}. **{md_text(head(item))}**: {md_text(item['message'], 2000)}")
        out.append(f"   - to lift it: {md_text(item['lift'], 2000)}")
        for ev in item["evidence"][:3]:
            out.append(f"   - expected: {_code(ev.get('expected'))}; got: {_code(ev.get('got'))}")
    return out


def _reach(doc: dict[str, Any]) -> list[str]:
    """The ages the run reached; what a line says "not covered", no check of the run judged."""
    lines = reach(doc)
    if not lines:
        return []
    return ["", "## Ages reached", "", *(f"- {md_text(line, 2000)}" for line in lines)]


def _own_words(doc: dict[str, Any]) -> list[str]:
    """Each requirement's English title beside the words of the article it rests on (the
    project's own clause data, kept as Markdown: the French lot tables stay tables)."""
    out = ["", "## The rules' own words", ""]
    for req in doc["requirements"]:
        out.append(
            f"- **{md_code(req['id'])}** ({md_text(req['article'])}): {md_text(req['title'])}"
        )
        wording = req.get("wording")
        if wording:
            out.append(f"  > *{label(wording)}:*")
            out += [f"  > {text}".rstrip() for text in wording["text"].splitlines()]
    return out


class MarkdownReport(Collector):
    def write(self, doc: dict[str, Any]) -> None:
        (self.out_dir / FILE).write_text(render(doc), encoding="utf-8", errors="backslashreplace")
