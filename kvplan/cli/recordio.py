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
    _refuse_moot_under_reserved(records)
    said: set[str] = set()
    for rec in records:  # the same overrides for every combination; a price note per GPU
        for note in rec.notes:
            if note not in said:
                said.add(note)
                typer.echo(clip_words(f"note: {rec.source}: {note}"), err=True)
    return records


# flags a reserved cache never reads: each sequence sets aside its whole context, in no blocks.
# Refused only when every combination is reserved (an `--allocation paged,reserved` sweep reads
# them on its paged rows). Until task h100review both were taken and dropped in silence: `size
# llama-3-8b --context 8192 --avg-context 2000 --allocation reserved` reported
# avg_context_tokens 8192, and --block-size 1000 moved nothing (1,048,576,000 B a sequence at
# 8,000 tokens with 16 or 1,000).
_RESERVED_MOOT = (
    ("traffic.context_tokens.mean", "a reserved cache sets aside the full context for every "
     "sequence, so the average length moves nothing; drop the option or use --allocation "
     "paged"),
    ("engine.block_size", "a reserved cache sets aside the whole context for every sequence "
     "in one piece, not in blocks; drop the option or use --allocation paged"),
)


def _refuse_moot_under_reserved(records: list[Record]) -> None:
    from kvplan.deploy.problems import DeploymentError, Problem

    if not records or any(r.deployment.engine.allocation != "reserved" for r in records):
        return
    rec = records[0]
    ctx = rec.deployment.traffic.context_tokens
    spread = ctx is not None and (ctx.sample is not None or any(
        v is not None for v in (ctx.p50, ctx.p95, ctx.p99)))
    for dotted, why in _RESERVED_MOOT:
        if spread and dotted == "traffic.context_tokens.mean":
            continue  # with percentiles the mean shapes the fit, whose mean sets TTFT and decode
        flag = rec.origins.get(dotted, "")
        if flag.startswith("--"):
            raise DeploymentError(rec.source, [Problem(f"{dotted} ({flag})", why)])


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
    emit(record_yaml(record, gpus, peak_users), path)


def one(records: list[Any], what: str = "--save") -> Any:
    if len(records) != 1:
        raise typer.BadParameter(f"{what} writes one record; give one value per comma list",
                                 param_hint=what)
    return records[0]
