"""``report.html``: one self-contained page a person reads in a browser.

Verdict first; then what failed, each counterexample drawn as the game shows it; then results
per article; then each block's lot table and plots; then what the verdict rests on. CSS is
inline and figures are inline SVG: no script, no external file, no network.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from conformance.games import kit_names, kits

from .._escape import html_text as escape
from . import _plots
from ._faults import Fault, case_file, faults, is_minimal
from ._record import OUTCOMES, Collector
from ._render import breakable, euros, pretty, render_evidence
from ._reservations import covers, head, reach, reservations
from ._wording import coverage_line, label

FILE = "report.html"
LABEL = {
    "pass": "pass",
    "fail": "fail",
    "error": "error",
    "reserved": "reserved",
    "not_supported": "not supported",
    "not_run": "not run",
}

_CSS_BEFORE_BOARDS = """
:root{--pass:#2e7d32;--fail:#c62828;--error:#e65100;--ns:#6d6d6d;--nr:#8a8a8a;--rs:#7a6a00}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d1d1d;
background:#f6f7f9}
main{max-width:1180px;margin:0 auto;padding:24px}
h1{margin:0 0 4px}h2{margin-top:32px;border-bottom:2px solid #dde;padding-bottom:4px}
.verdict{border-radius:10px;padding:20px 24px;color:#fff;margin-bottom:16px}
.verdict.CERTIFIED{background:var(--pass)}.verdict.NOT_CERTIFIED{background:var(--fail)}
.verdict.INCOMPLETE{background:#8d6e00}.verdict.CERTIFIED_WITH_RESERVATIONS{background:#558b2f}
.verdict.AUDIT_PASSED{background:var(--pass)}.verdict.AUDIT_PASSED_WITH_RESERVATIONS{background:#558b2f}
.verdict .fine{font-size:13px;opacity:.9;margin-top:6px}
.o.reserved{background:var(--rs)}.reservation{background:#fff;border-left:6px solid var(--rs);
border-radius:6px;padding:8px 16px;margin:10px 0}
.verdict .big{font-size:34px;font-weight:700;letter-spacing:.5px}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;font-size:14px}
.meta dt{color:#555}.meta dd{margin:0;font-family:ui-monospace,monospace;overflow-wrap:anywhere;
min-width:0}
.counts{display:flex;gap:10px;flex-wrap:wrap;margin:12px 0}
.count{background:#fff;border-radius:8px;padding:8px 14px;border:1px solid #dde}
.count b{font-size:20px;display:block}
.o{display:inline-block;border-radius:4px;padding:0 6px;color:#fff;font-size:13px;
white-space:nowrap}
.o.pass{background:var(--pass)}.o.fail{background:var(--fail)}.o.error{background:var(--error)}
.o.not_supported{background:var(--ns)}.o.not_run{background:var(--nr)}
.o.outside{background:#fff;color:#555;border:1px solid #bbb}
.outside-list{columns:2 280px;font-size:14px}
.w{font-size:12px;color:#6a4f00;background:#fff3c4;border-radius:4px;padding:0 5px;margin-left:4px}
table{border-collapse:collapse;background:#fff;max-width:100%}
td,th{border:1px solid #dde;padding:4px 8px;text-align:left;vertical-align:top;font-size:14px}
th{background:#eef1f5}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.diff td{background:#fde7e7}
details{background:#fff;border:1px solid #dde;border-radius:8px;margin:8px 0;padding:6px 12px}
summary{cursor:pointer;font-weight:600}
.failure{background:#fff;border-left:6px solid var(--fail);border-radius:6px;padding:10px 16px;
margin:14px 0}
.failure.error{border-left-color:var(--error)}
pre{overflow-wrap:anywhere}
pre{margin:0;white-space:pre-wrap;font-size:12.5px}
details pre:not(.diff){max-height:360px;overflow:auto}
.note{color:#555;font-style:italic}p.met{margin:4px 0 0}ul.met{margin:2px 0 10px}
.met code{font-size:13px}
.diffhead{font-size:13px;margin:8px 0 2px}.diffhead span{margin-right:14px;padding:0 4px}
pre.diff{background:#fff;border:1px solid #dde;border-radius:6px;padding:6px 0}
pre.diff span{display:block;padding:0 8px}
.del{background:#fde7e7;color:#8e1b1b}.add{background:#e3f4e1;color:#1b5e20}
pre.diff .same{color:#444}pre.diff .gap{color:#888}
.values h5{margin:8px 0 2px;font-size:13px;color:#444}
table.reqs{table-layout:fixed;width:100%}.reqs td{overflow-wrap:break-word}
.reqs th:nth-child(1){width:22%}.reqs th:nth-child(2){width:38%}.reqs th:nth-child(3){width:15%}
.reqs small{display:block;color:#555}
@media (max-width:900px){main{padding:12px}details{padding:6px 8px}td,th{padding:4px 5px}}
"""

_CSS_AFTER_BOARDS = """\
.notation code{font-size:12.5px;background:#eef1f5;padding:2px 6px;border-radius:4px}
.invalid code{display:block;margin-top:4px}
.words{margin:4px 0 0;padding:3px 8px;border-left:3px solid #8a6d1d;background:#fbf5e4;
white-space:pre-wrap;font-size:13px}.words small{display:block;color:#6a5a30;font-style:italic}
svg.plot{display:block;width:100%;max-width:820px;height:auto;background:#fff;border-radius:6px;
margin:6px 0}
"""


def css() -> str:
    """The page's CSS: the report's own, with each game kit's board CSS in the middle."""
    boards = "".join(k.board_css for k in kits())
    return _CSS_BEFORE_BOARDS + boards + _CSS_AFTER_BOARDS


def _outcome(outcome: str) -> str:
    return f'<span class="o {outcome}">{LABEL[outcome]}</span>'


def _waiver_tag(waiver: dict[str, Any] | None) -> str:
    if waiver is None:
        return ""
    tags = []
    if waiver["applied"]:
        tags.append(f"waived until {waiver['expires']}")
    if waiver["unnecessary"]:
        tags.append("waiver unnecessary: passes")
    if waiver["expired"]:
        tags.append(f"waiver expired {waiver['expires']}")
    title = escape(waiver["reason"])
    return "".join(f'<span class="w" title="{title}">{escape(t)}</span>' for t in tags)


def audit_passed(doc: dict[str, Any]) -> bool:
    """A block audit in which every requirement it could check passed (report.json says
    INCOMPLETE, exit 0: a block audit alone never certifies; the page says what it checked)."""
    counts = doc["verdict"]["counts"]
    return (
        doc["profile"] == "audit"
        and doc["verdict"]["overall"] == "INCOMPLETE"
        and doc["verdict"]["exit_code"] == 0
        and counts["fail"] == 0
        and counts["error"] == 0
        and bool(doc["smoke"]["ok"])
    )


OUTSIDE = "outside the audit"


def _badge(outcome: str, audit: bool) -> str:
    """An outcome's badge; in a block audit, what it could not check reads as outside it."""
    if audit and outcome in ("not_supported", "not_run"):
        return f'<span class="o outside">{OUTSIDE}</span>'
    return _outcome(outcome)


def _banner(doc: dict[str, Any]) -> str:
    verdict = doc["verdict"]
    if not audit_passed(doc):
        return (
            f'<div class="verdict {verdict["overall"].replace(" ", "_")}">'
            f'<div class="big">{escape(verdict["overall"])}</div>'
            f"<div>{breakable(verdict['note'])}</div><div>exit code {verdict['exit_code']}</div>"
            "</div>"
        )
    reserved = verdict["counts"]["reserved"]
    title = "BLOCK AUDIT PASSED" + (" WITH RESERVATIONS" if reserved else "")
    checked = [r for r in doc["requirements"] if r["outcome"] in ("pass", "reserved")]
    outside = [r["id"] for r in doc["requirements"] if r["outcome"] in ("not_supported", "not_run")]
    lines = [
        f"every requirement a block audit can check passed ({len(checked)} checked"
        + (f", {reserved} with a reservation below" if reserved else "")
        + ")",
        "outside a block audit: what only a server shows (evaluate, play, reveal, the block "
        "listing and its slices"
        + (f": {', '.join(outside)}" if outside else "")
        + "); certify a target for those",
    ]
    return (
        f'<div class="verdict {title.replace(" ", "_").replace("BLOCK_", "")}">'
        f'<div class="big">{title}</div>'
        + "".join(f"<div>{breakable(line)}</div>" for line in lines)
        + f'<div class="fine">report.json: verdict {escape(verdict["overall"])} (a block audit '
        f"alone never certifies an implementation), exit code {verdict['exit_code']}</div></div>"
    )


def _head(doc: dict[str, Any]) -> str:
    verdict = doc["verdict"]
    impl = doc["implementation"] or {}
    name = f"{impl.get('name', '?')} {impl.get('version', '')}" if impl else "(not reached)"
    meta = [
        ("target", doc["target"]),
        ("implementation", name),
        ("profile", doc["profile"] + (" (filtered)" if doc["filtered"] else "")),
        ("seed", str(doc["seed"])),
        ("started / finished", f"{doc['started_at']} / {doc['finished_at']}"),
        ("harness", doc["harness_version"]),
        ("suite sha256", doc["suite_sha256"]),
    ] + [(f"rules sha256 ({g})", h) for g, h in doc["rules_sha256"].items()]
    if coverage_line(doc):
        meta.append(("clauses", coverage_line(doc)))
    dl = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in meta)
    audit = doc["profile"] == "audit"
    shown = [o for o in OUTCOMES if not (audit and o in ("not_supported", "not_run"))]
    counts = "".join(
        f'<div class="count"><b>{verdict["counts"][o]}</b>{_outcome(o)}</div>' for o in shown
    )
    if audit:
        left = verdict["counts"]["not_supported"] + verdict["counts"]["not_run"]
        counts += f'<div class="count"><b>{left}</b>{_badge("not_run", True)}</div>'
    smoke = (
        ""
        if doc["smoke"]["ok"]
        else (
            '<p class="failure error"><b>Smoke step failed:</b> '
            f"{escape(doc['smoke']['message'])}</p>"
        )
    )
    return f'{_banner(doc)}<div class="counts">{counts}</div>{smoke}<dl class="meta">{dl}</dl>'


def _reach(doc: dict[str, Any]) -> str:
    """The ages the run reached; what a line says "not covered", no check of the run judged."""
    lines = reach(doc)
    if not lines:
        return ""
    items = "".join(f"<li>{escape(line)}</li>" for line in lines)
    return f"<h2>Ages reached</h2><ul>{items}</ul>"


def _reservations(doc: dict[str, Any]) -> str:
    """Every reservation: what, its basis, what was seen, what would lift it, the evidence."""
    found = reservations(doc)
    scope = f"<p>Scope: {escape(covers(doc))}.</p>" if covers(doc) else ""
    if not found:
        return scope
    parts = [f"<h2>Reservations ({len(found)})</h2>{scope}"]
    for item in found:
        body = [
            f"<h3>{escape(head(item))}</h3><p>{escape(item['message'])}</p>",
            f"<p><b>To lift it:</b> {escape(item['lift'])}</p>",
        ]
        body += [render_evidence(ev) for ev in item["evidence"][:3]]
        parts.append(f'<div class="reservation">{"".join(body)}</div>')
    return "".join(parts)


def _replay(doc: dict[str, Any], case: str | None) -> str:
    if case is None:
        return ""
    return (
        f"<p>replay: <code>instantcert replay {breakable(case)} --target "
        f"{breakable(doc['target'])}</code></p>"
    )


def _counterexample_title(evidence: dict[str, Any]) -> str:
    """ "minimal counterexample" only for one a search shrank; "counterexample" otherwise."""
    return "minimal counterexample" if is_minimal(evidence) else "counterexample"


def _message(message: str) -> str:
    return pretty(message) if "\n" in message else f"<p>{breakable(message)}</p>"


def _fault(doc: dict[str, Any], fault: Fault) -> str:
    """One fault: what it breaks, the checks that met it, one counterexample first, and what
    each check found folded below."""
    broke = ", ".join(fault.requirements)
    verb = "fails" if fault.outcome == "fail" else "could not be decided (error)"
    met = "".join(
        f"<li><code>{breakable(c['check_id'])}</code>: "
        f"{breakable(c['message'].splitlines()[0] if c['message'] else '')}</li>"
        for c in fault.checks
    )
    body = [
        f"<h3>{breakable(broke)} {verb}</h3>",
        f'<p class="met">met by {len(fault.checks)} check(s):</p><ul class="met">{met}</ul>',
    ]
    first = fault.first()
    if first is not None:
        check, n = first
        body.append(
            f"<h4>{_counterexample_title(check['evidence'][n])} "
            f"<small>(found by <code>{breakable(check['check_id'])}</code>)</small></h4>"
            f"{render_evidence(check['evidence'][n])}{_replay(doc, case_file(check, n))}"
        )
    others = []
    for check in fault.checks:
        items = [
            f"<h4><code>{breakable(check['check_id'])}</code> {_outcome(check['outcome'])}</h4>"
        ]
        if "\n" in check["message"]:
            items.append(_message(check["message"]))
        for n, evidence in enumerate(check["evidence"]):
            if first is not None and check is first[0] and n == first[1]:
                continue
            items.append(
                f"<details><summary>{_counterexample_title(evidence)} {n + 1}"
                f"{': ' + escape(str(evidence['note'])) if evidence.get('note') else ''}"
                f"</summary>{render_evidence(evidence)}{_replay(doc, case_file(check, n))}"
                "</details>"
            )
        if len(items) > 1:
            others.append("".join(items))
    more = sum(len(c["evidence"]) for c in fault.checks) - (first is not None)
    if others:
        summary = (
            f"what each check found ({len(fault.checks)} check(s), {more} more counterexample(s))"
        )
        body.append(f"<details><summary>{summary}</summary>{''.join(others)}</details>")
    css = "failure" if fault.outcome == "fail" else "failure error"
    return f'<div class="{css}">{"".join(body)}</div>'


def _failures(doc: dict[str, Any]) -> str:
    found = faults(doc["checks"])
    if not found:
        return ""
    checks = sum(len(f.checks) for f in found)
    intro = f"<p>{len(found)} fault(s), met by {checks} check(s); each fault is shown once.</p>"
    return "<h2>Failures and errors</h2>" + intro + "".join(_fault(doc, f) for f in found)


def _article_key(article: str) -> tuple[int, int, str]:
    """Each game's articles (in the order the kits are registered), then the law, the
    contract; articles in number order."""
    sources = (*kit_names(), "law", "contract")
    source, _, number = article.partition(" ")
    rank = sources.index(source) if source in sources else len(sources)
    return rank, int(number) if number.isdigit() else 99, article


def _words(requirement: dict[str, Any]) -> str:
    """The rules' own words under a requirement's title (French where the rules have it)."""
    wording = requirement.get("wording")
    if not wording:
        return ""
    return (
        f'<blockquote class="words" lang="{escape(wording["language"])}">'
        f"<small>{escape(label(wording))}</small>{escape(wording['text'])}</blockquote>"
    )


def _outside(reqs: list[dict[str, Any]], audit: bool) -> str:
    """ ", 1 outside the audit" in a block audit's article summary, "" otherwise."""
    left = sum(r["outcome"] in ("not_supported", "not_run") for r in reqs) if audit else 0
    return f", {left} {OUTSIDE}" if left else ""


def _articles(doc: dict[str, Any]) -> str:
    audit = doc["profile"] == "audit"
    groups: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
    for req in doc["requirements"]:
        groups.setdefault(req["article"].split(".")[0], []).append(req)
    parts = ["<h2>Results per article</h2>"]
    order = ("fail", "error", "reserved", "not_supported", "not_run", "pass")
    for article, reqs in sorted(groups.items(), key=lambda item: _article_key(item[0])):
        judged = [r["outcome"] for r in reqs]
        if audit:  # what a block audit cannot check does not colour its article
            judged = [o for o in judged if o not in ("not_supported", "not_run")] or judged
        worst = min(judged, key=order.index)
        rows = "".join(
            f"<tr><td><code>{breakable(r['id'])}</code><small>{escape(r['article'])}</small></td>"
            f"<td>{escape(r['title'])}{_words(r)}</td>"
            f"<td>{_badge(r['outcome'], audit)}{_waiver_tag(r['waiver'])}"
            f"{'' if r['required'] else '<small>optional</small>'}</td>"
            f"<td>{breakable(r['message'].splitlines()[0] if r['message'] else '')}</td></tr>"
            for r in reqs
        )
        open_ = "" if worst == "pass" or _badge(worst, audit).count(OUTSIDE) else " open"
        parts.append(
            f"<details{open_}><summary>{escape(article)} {_badge(worst, audit)} "
            f"({sum(r['outcome'] == 'pass' for r in reqs)}/{len(reqs)} pass{_outside(reqs, audit)})"
            "</summary>"
            '<table class="reqs"><tr><th>requirement</th><th>title</th><th>outcome</th>'
            f"<th>why</th></tr>{rows}</table></details>"
        )
    return "".join(parts)


def _lot_table(block: dict[str, Any]) -> str:
    expected, observed = block["lots_expected"], block["lots_observed"]
    tiers = sorted({int(k) for k in expected} | {int(k) for k in observed}, reverse=True)
    scale = _plots.sample_scale(block)
    rows = []
    for t in tiers:
        e, o = expected.get(str(t), 0), observed.get(str(t), 0)
        prize = euros(t) if t else "loses"
        if scale == 1.0:
            rows.append(
                f'<tr class="{"diff" if e != o else ""}"><td class="num">{prize}</td>'
                f'<td class="num">{e:,}</td><td class="num">{o:,}</td>'
                f'<td class="num">{o - e:+,}</td></tr>'
            )
        else:
            rows.append(
                f'<tr><td class="num">{prize}</td><td class="num">{e:,}</td>'
                f'<td class="num">{e * scale:,.1f}</td><td class="num">{o:,}</td></tr>'
            )
    head = (
        "<th>expected units</th><th>observed units</th><th>difference</th>"
        if scale == 1.0
        else "<th>expected in the block</th><th>expected in the slice read (pro rata)</th>"
        "<th>observed in the slice</th>"
    )
    return f"<table><tr><th>prize</th>{head}</tr>{''.join(rows)}</table>"


def _blocks(doc: dict[str, Any]) -> str:
    if not doc["blocks"]:
        return ""
    from conformance.checks.blocks import RANDOMNESS_CHECKS  # each holds its share of alpha

    run_alpha = float(doc["config"].get("effective_settings", {}).get("alpha", 0.01))
    alpha = run_alpha / len(RANDOMNESS_CHECKS)
    parts = ["<h2>Blocks</h2>"]
    for block in doc["blocks"]:
        share = (
            100 * block["payout_cents"] / block["face_value_cents"]
            if block["face_value_cents"]
            else 0.0
        )
        sample = "" if block["audited_units"] >= block["units"] else " (sample)"
        facts = [
            ("block", block["block_id"]),
            ("game / stake", f"{block['game']} / {euros(block['stake_cents'])}"),
            ("units audited", f"{block['audited_units']:,} of {block['units']:,}{sample}"),
            (
                "payout",
                f"{euros(block['payout_cents'])} = {share:.3f} % of "
                f"{euros(block['face_value_cents'])} face value",
            ),
            ("sha256", block["sha256"]),
        ]
        dl = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
        figures = [_plots.lot_distribution(block)]
        for figure in (_plots.cumulative_payout(block), _plots.p_values(block, alpha)):
            if figure is not None:
                figures.append(figure)
        pv = "".join(
            f"<tr><td>{escape(k)}</td><td class='num'>{v:.4g}</td></tr>"
            for k, v in sorted(block["p_values"].items())
        )
        p_table = f"<table><tr><th>test</th><th>p-value</th></tr>{pv}</table>" if pv else ""
        parts.append(
            f"<details open><summary>{escape(block['block_id'])}</summary>"
            f'<dl class="meta">{dl}</dl><h4>lot table, observed vs expected</h4>'
            f"{_lot_table(block)}{''.join(figures)}{p_table}"
            f"<h4>header</h4>{pretty(block['header'])}</details>"
        )
    return "".join(parts)


def _rest(doc: dict[str, Any]) -> str:
    parts = []
    if doc["interpretations"]:
        items = "".join(
            f"<li><b>{escape(i['id'])}</b> ({escape(i['game'])}): {escape(i['text'])}"
            + (
                f"<br><small>cited by {escape(', '.join(i.get('requirements', [])))}</small>"
                if i.get("requirements")
                else ""
            )
            + "</li>"
            for i in doc["interpretations"]
        )
        parts.append(f"<h2>Interpretations this verdict rests on</h2><ul>{items}</ul>")
    if doc["waivers"]:
        rows = "".join(
            f"<tr><td><code>{escape(w['requirement'])}</code></td><td>{escape(w['reason'])}</td>"
            f"<td>{escape(w['expires'])}</td><td>{_outcome(w['outcome'])}</td>"
            f"<td>{'expired' if w['expired'] else ('applied' if w['applied'] else 'not needed')}"
            "</td></tr>"
            for w in doc["waivers"]
        )
        parts.append(
            "<h2>Waivers</h2><table><tr><th>requirement</th><th>reason</th>"
            f"<th>expires</th><th>outcome</th><th>status</th></tr>{rows}</table>"
        )
    rows = "".join(
        f"<tr><td><code>{escape(c['check_id'])}</code></td><td>{_outcome(c['outcome'])}</td>"
        f"<td class='num'>{c['duration_s']:.2f} s</td>"
        f"<td>{escape(', '.join(c['requirements']))}</td></tr>"
        for c in doc["checks"]
    )
    parts.append(
        "<h2>Checks</h2><table><tr><th>check</th><th>outcome</th><th>time</th>"
        f"<th>requirements</th></tr>{rows}</table>"
    )
    parts.append(
        "<h2>Run</h2><details><summary>implementation (/v1/implementation)</summary>"
        f"{pretty(doc['implementation'])}</details><details><summary>configuration</summary>"
        f"{pretty(doc['config'])}</details>"
    )
    return "".join(parts)


def render(doc: dict[str, Any]) -> str:
    title = f"instantcert: {doc['verdict']['overall']} · {doc['target']}"
    body = _head(doc) + _reservations(doc) + _reach(doc) + _failures(doc)
    body += _articles(doc) + _blocks(doc) + _rest(doc)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{css()}</style></head><body><main>"
        f"<h1>instantcert {'block audit' if doc['profile'] == 'audit' else 'certification'} "
        f"report</h1>{body}"
        f"<footer><p><small>run {escape(doc['run_id'])} · report.json holds every field; "
        f"manifest.json the SHA-256 of each file · "
        f"{escape(json.dumps(doc['rules_sha256']))}</small></p></footer>"
        "</main></body></html>\n"
    )


class HtmlReport(Collector):
    def write(self, doc: dict[str, Any]) -> None:
        (self.out_dir / FILE).write_text(render(doc), encoding="utf-8", errors="backslashreplace")
