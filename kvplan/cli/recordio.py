"""The CLI's side of records: build them from the options, say each override, print, save."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from kvplan.cli.common import emit, terminal_width, use_color
from kvplan.render import OutputFormat
from kvplan.render.clip import clip_words

if TYPE_CHECKING:
    from kvplan.plan.prices import PriceTable
    from kvplan.plan.record import Record


def flag_values(params: dict[str, Any]) -> dict[str, Any]:
    """The options of a command that set fields of the record (see kvplan.plan.fields)."""
    from kvplan.plan.fields import FLAGS

    return {k: v for k, v in params.items() if k in FLAGS}


def records_for(target: str, params: dict[str, Any], prices: PriceTable | None = None,
                ) -> list[Record]:
    """One record per combination; each override of a file's field is said on stderr."""
    from kvplan.plan.record import build_records

    records = build_records(target, flag_values(params), prices.apply if prices else None)
    from kvplan.plan.moot import refuse_moot_all_reserved

    refuse_moot_all_reserved(records)  # --avg-context / --block-size when no row reads them
    said: set[str] = set()
    for rec in records:  # the same overrides for every combination; a price note per GPU
        for note in rec.notes:
            if note not in said:
                said.add(note)
                typer.echo(clip_words(f"note: {rec.source}: {note}"), err=True)
    return records


def say_notes(plans: list[Any]) -> None:
    """What the planner assumed in place of what a record states, once per distinct note."""
    seen: set[str] = set()
    for p in plans:
        for note in p.notes:
            if note not in seen:
                seen.add(note)
                typer.echo(clip_words(f"note: {p.record.source}: {note}"), err=True)


def emit_results(
    fmt: OutputFormat, records: list[dict[str, Any]], extras: list[dict[str, Any]],
    output: Path | None, **more: Any,
) -> None:
    """JSON is always an object with a `results` list (docs/record.md); CSV and tables as ever."""
    if fmt is OutputFormat.json:
        payload = {"results": [{**r, **e} for r, e in zip(records, extras, strict=True)], **more}
        emit(json.dumps(payload, indent=2) + "\n", output)
        return
    from kvplan.render import render

    emit(render(fmt, records, extras, width=terminal_width(),
                color=use_color() and output is None), output)


def save(path: Path, record: Record, gpus: int | None, peak_users: int | None = None) -> None:
    """--save: the planned record as a kvplan/v1 file (refused when nothing was planned)."""
    from kvplan.plan.planner import record_yaml

    if not gpus:
        raise typer.BadParameter("nothing fits, so there is no plan to save", param_hint="--save")
    emit(record_yaml(record, gpus, peak_users), path, "--save")


def one(records: list[Any], what: str = "--save") -> Any:
    if len(records) != 1:
        raise typer.BadParameter(f"{what} writes one record; give one value per comma list",
                                 param_hint=what)
    return records[0]
