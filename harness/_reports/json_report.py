"""``report.json``: the whole run, one document (schema: ``harness/schemas/report.schema.json``)."""

from __future__ import annotations

import json
from typing import Any

from ._record import Collector

FILE = "report.json"


class JsonReport(Collector):
    def write(self, doc: dict[str, Any]) -> None:
        text = json.dumps(doc, indent=2, ensure_ascii=False, default=str)
        (self.out_dir / FILE).write_text(text + "\n", encoding="utf-8")
