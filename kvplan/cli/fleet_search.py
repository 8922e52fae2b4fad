"""`kvplan fleet --search`: every GPU, TP size and cache precision for one record's traffic.

--tp and --kv-dtype limit the sizes and precisions tried, --search-gpus the GPUs, --top N the rows
shown (the N first of the ranked order, a footer saying how many were left out); what a search
cannot honour (--gpu, one flat price, a stated KV pool) is refused with the reason. Nothing
carrying the load is a verdict of no (exit 1, unless --allow-no-fit), and --save then refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kvplan.cli import sections as s
from kvplan.cli.common import emit, exit_for_fit, terminal_width, use_color
from kvplan.cli.progress import LazyProgress
from kvplan.cli.recordio import emit_results, one, records_for, save
from kvplan.cli.values import int_list, split_list
from kvplan.render import OutputFormat

if TYPE_CHECKING:
    from kvplan.plan.prices import PriceTable
    from kvplan.plan.record import Record

SearchOpt = Annotated[bool, typer.Option(
    "--search", rich_help_panel=s.SEARCH,
    help="try every GPU, TP size (1, 2, 4, 8) and cache precision (fp16, fp8); "
    "cheapest fleets first; --tp and --kv-dtype limit the sizes and precisions tried")]
SearchGpus = Annotated[str | None, typer.Option(
    "--search-gpus", metavar="GPU[,GPU...]", show_default=False, rich_help_panel=s.SEARCH,
    help="with --search: only these GPUs [default: the whole catalog]")]
TopOpt = Annotated[int | None, typer.Option(
    "--top", metavar="N", min=1, show_default=False, rich_help_panel=s.SEARCH,
    help="with --search: show only the N first configurations (cheapest first) in the table, "
         "CSV and JSON [default: all]")]


def search_command(params: dict[str, Any], prices: PriceTable) -> None:
    """fleet's parameters with --search: refuse what a search cannot honour, then search."""
    if params["gpu"] is not None:
        raise typer.BadParameter("--search tries every catalog GPU; limit it with --search-gpus",
                                 param_hint="--gpu")
    if prices.flat is not None:
        raise typer.BadParameter("with --search give prices per GPU: --price-per-hour "
                                 "GPU=USD", param_hint="--price-per-hour")
    if params["kv_budget_gib"] is not None:
        raise typer.BadParameter("states one GPU's KV pool; --search derives each GPU's own "
                                 "(memory x utilization - weights - reserve)",
                                 param_hint="--kv-budget-gib")
    tp, kv_dtype = params["tp"], params["kv_dtype"]
    tps = int_list(tp, "GPUs") if tp is not None else None
    dtypes = split_list(kv_dtype, "cache precisions") if kv_dtype is not None else None
    params = {**params, "tp": str(tps[0]) if tps else None,
              "kv_dtype": dtypes[0] if dtypes else None}
    record = one(records_for(params["target"], params), "--search")
    _search(record, prices, params["search_gpus"], params["fmt"], params["output"],
            params["save_to"], params["allow_no_fit"], tps, dtypes, params["top"])


def _search(record: Record, prices: PriceTable, only: str | None, fmt: OutputFormat,
            output: Path | None, save_to: Path | None, allow_no_fit: bool,
            tps: list[int] | None, dtypes: list[str] | None, top: int | None = None) -> None:
    from kvplan.plan.planner import search_record
    from kvplan.render.records import search_record as row_record

    gpus = split_list(only, "GPUs") if only else None
    with LazyProgress("searching") as bar:
        traffic, result = search_record(record, prices.by_gpu, gpus, progress=bar.update,
                                        tps=tps, kv_dtypes=dtypes)
    records = [row_record(r) for r in result.rows]
    carrying = len(records)
    if top is not None:  # the N first in the ranked order (unpriced rows come last)
        records = records[:top]
    notes = []
    if result.unpriced_gpus:
        notes.append("unpriced (no price in the spec or given): " + ", ".join(result.unpriced_gpus)
                     + "; add --price-per-hour GPU=USD or --prices FILE")
    notes.append(f"{result.tried} configurations tried, {len(result.rejected)} cannot carry "
                 f"{traffic.required_users:,} conversations"
                 + (" at the SLO" if traffic.min_tokens_per_s_per_user else "")
                 + _why_rejected(result.rejected))
    if len(records) < carrying:
        notes.append(f"showing {len(records):,} of the {carrying:,} configurations that carry "
                     "it; omit --top for all")
    notes.append("KV pool derived from each GPU (memory x utilization - weights - reserve)")
    if fmt is OutputFormat.table:
        from kvplan.render.search_table import render_search

        title = f"{record.deployment.model}: {traffic.required_users:,} conversations, cheapest first"
        if not records:
            notes.insert(0, "no configuration carries the load")
        emit(title + "\n" + render_search(records, notes, terminal_width(),
                                          use_color() and output is None), output)
    else:
        rejected: list[dict[str, Any]] = [
            {"gpu": r.gpu.name, "tp": r.tp, "kv_dtype": r.kv_dtype.value, "reason": why}
            for r, why in result.rejected]
        extra: dict[str, Any] = {"unpriced_gpus": result.unpriced_gpus, "rejected": rejected} \
            if fmt is OutputFormat.json else {}
        if fmt is OutputFormat.json and top is not None:
            extra.update(top=top, configurations_carrying=carrying)
        emit_results(fmt, records, [{} for _ in records], output, **extra)
    if save_to is not None and not result.rows:
        raise typer.BadParameter("no configuration carries the load, so there is no plan to "
                                 "save", param_hint="--save")
    if save_to is not None:  # the cheapest configuration, as a record
        from kvplan.plan.record import with_fields

        plan = result.rows[0].plan
        req = plan.size.request
        best = with_fields(record, {"hardware.gpu": req.gpu.name, "parallel.tensor": req.tp,
                                    "engine.kv_cache_dtype": req.kv_dtype.value,
                                    "hardware.price_per_hour_usd": plan.traffic.price_per_hour_usd})
        save(save_to, best, plan.gpus_needed)
    exit_for_fit(bool(result.rows), allow_no_fit)


REJECTED_LISTED = 6  # GPU x TP groups the table lists with their reason; more: the JSON has them


def _why_rejected(rejected: Any) -> str:
    """Why the configurations that cannot carry the load fail, grouped by GPU and TP with their
    cache precisions where they share one reason (task h90review: the table said only how many,
    so a configuration the user asked about vanished without a word)."""
    if not rejected:
        return ""
    groups: dict[tuple[str, int, str], list[str]] = {}
    for req, why in rejected:
        groups.setdefault((req.gpu.name, req.tp, why), []).append(req.kv_dtype.value)
    if len(groups) > REJECTED_LISTED:
        return " (-f json lists each with its reason)"
    return ":\n" + "\n".join(f"  {gpu} TP {tp} ({', '.join(kv)}): {why}"
                              for (gpu, tp, why), kv in groups.items())
