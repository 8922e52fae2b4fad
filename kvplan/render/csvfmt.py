"""CSV: a header row and one row per combination; the same flat fields as JSON."""

from __future__ import annotations

import csv
import io
from typing import Any


def _cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def render(records: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    flat = [{k: v for k, v in r.items() if not isinstance(v, (dict, list))} for r in records]
    if not flat:
        return ""
    writer = csv.DictWriter(buf, fieldnames=list(flat[0]), lineterminator="\n")
    writer.writeheader()
    for row in flat:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return buf.getvalue()
