"""JSON: one object per combination, a list when there are several."""

from __future__ import annotations

import json
from typing import Any


def render(records: list[dict[str, Any]]) -> str:
    payload: Any = records[0] if len(records) == 1 else records
    return json.dumps(payload, indent=2) + "\n"
