"""Output formats: a result record in, a string out. Only the CLI prints."""

from __future__ import annotations

from enum import Enum
from typing import Any


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


def render(
    fmt: OutputFormat,
    records: list[dict[str, Any]],
    extras: list[dict[str, Any]] | None = None,
    width: int = 80,
    color: bool = False,
) -> str:
    """Dispatch to one format. JSON gets the nested extras; CSV stays flat."""
    extras = extras if extras is not None else [{} for _ in records]
    if fmt is OutputFormat.json:
        from kvplan.render import jsonfmt

        return jsonfmt.render([{**r, **e} for r, e in zip(records, extras)])
    if fmt is OutputFormat.csv:
        from kvplan.render import csvfmt

        return csvfmt.render(records)
    from kvplan.render import table  # rich is only imported for humans

    return table.render(records, extras, width=width, color=color)
