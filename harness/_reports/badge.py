"""``badge.json``: the verdict as a shields.io endpoint badge (https://shields.io/badges/endpoint-badge).

Publish the file where shields.io can fetch it and point a badge at
``https://img.shields.io/endpoint?url=<its URL>``. Colours: green CERTIFIED, yellowgreen
CERTIFIED WITH RESERVATIONS (the reservations are in the reports), red NOT CERTIFIED,
orange INCOMPLETE after checks ran, lightgrey when nothing could be checked (target
unreachable, adapter broken).
"""

from __future__ import annotations

from typing import Any

from reference import _strict_json as strict_json

from ._record import Collector

FILE = "badge.json"


def badge(doc: dict[str, Any]) -> dict[str, Any]:
    overall = doc["verdict"]["overall"]
    if overall == "CERTIFIED":
        color = "green"
    elif overall == "CERTIFIED WITH RESERVATIONS":
        color = "yellowgreen"
    elif overall == "NOT CERTIFIED":
        color = "red"
    elif doc["smoke"]["ok"] and doc["verdict"]["exit_code"] != 2:
        color = "orange"
    else:
        color = "lightgrey"
    return {"schemaVersion": 1, "label": "instantcert", "message": overall, "color": color}


class BadgeReport(Collector):
    def write(self, doc: dict[str, Any]) -> None:
        (self.out_dir / FILE).write_text(strict_json.dumps(badge(doc)) + "\n", encoding="utf-8")
