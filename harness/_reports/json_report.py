"""``report.json``: the whole run, one document (schema: ``harness/schemas/report.schema.json``)."""

from __future__ import annotations

from typing import Any

from reference import _strict_json as strict_json

from ._record import Collector

FILE = "report.json"


class JsonReport(Collector):
    def write(self, doc: dict[str, Any]) -> None:
        text = strict_json.dumps(doc, indent=2)  # valid JSON whatever the target sent
        (self.out_dir / FILE).write_text(text + "\n", encoding="utf-8")
