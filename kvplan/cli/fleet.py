"""`kvplan fleet`: replicas and GPUs for a peak load, planned from one deployment record."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kvplan.cli import engine_options as eo
from kvplan.cli import options as o
from kvplan.cli.common import FormatOpt, OutputOpt, cli_errors, emit, exit_for_fit, terminal_width
from kvplan.cli.common import use_color as _use_color
from kvplan.cli.progress import LazyProgress
from kvplan.cli.recordio import emit_results, one, records_for, save, say_notes
from kvplan.cli.values import split_list
from kvplan.render import OutputFormat

if TYPE_CHECKING:
    from kvplan.plan.prices import PriceTable
    from kvplan.plan.record import Record

SearchOpt = Annotated[bool, typer.Option(
    "--search", help="try every GPU, TP size and cache precision; cheapest fleets first")]
SearchGpus = Annotated[str | None, typer.Option(
    "--search-gpus", metavar="GPU[,GPU...]", show_default=False,
    help="with --search: only these GPUs [default: the whole catalog]")]


@cli_errors
def fleet_command(
    target: o.TargetArg,
    peak_users: o.PeakUsers = None, headroom: o.Headroom = None, min_users: o.MinUsers = None,
    gpu: o.Gpu = None, context: o.Context = None, avg_context: o.AvgContext = None,
    kv_dtype: o.KvDtype = None, weight_dtype: o.WeightDtype = None,
    allocation: o.Allocation = None, block_size: o.BlockSize = None,
    kv_group_size: o.KvGroupSize = None, tp: o.Tp = None, pp: o.Pp = None, nodes: o.Nodes = None,
    ep: eo.Ep = None,
    memory_utilization: o.MemoryUtilization = None, reserve_gib: o.ReserveGib = None,
    kv_budget_gib: o.KvBudgetGib = None, shared_prefix_tokens: o.SharedPrefix = None,
    arrival_rate: o.ArrivalRate = None, mean_duration_s: o.MeanDuration = None,
    peak_to_mean: o.PeakToMean = None, context_p50: o.P50 = None, context_p95: o.P95 = None,
    context_p99: o.P99 = None, context_sample: o.Sample = None, risk: o.Risk = None,
    bandwidth_efficiency: o.BandwidthEff = None, flops_efficiency: o.FlopsEff = None,
    min_tokens_per_s_per_user: o.MinTps = None, prompt_tokens: o.PromptTokens = None,
    price_per_hour: o.PricePerHour = None, prices_file: o.Prices = None,
    do_search: SearchOpt = False, search_gpus: SearchGpus = None,
    engine: eo.Engine = None, engine_version: eo.EngineVersion = None,
    max_num_batched_tokens: eo.MaxBatched = None, max_num_seqs: eo.MaxSeqs = None,
    max_model_len: o.MaxModelLen = None,
    enforce_eager: eo.EnforceEager = None, kv_cache_memory_bytes: eo.KvCacheMemoryBytes = None,
    cpu_offload_gb: eo.CpuOffloadGb = None, limit_mm_per_prompt: eo.LimitMm = None,
    speculative_model: eo.SpeculativeModel = None, speculative_config: eo.SpeculativeConfig = None,
    num_speculative_tokens: eo.NumSpeculativeTokens = None, page_size: eo.PageSize = None,
    chunked_prefill_size: eo.ChunkedPrefill = None, cuda_graph_max_bs: eo.CudaGraphMaxBs = None,
    max_running_requests: eo.MaxRunning = None, max_total_tokens: eo.MaxTotalTokens = None,
    max_batch_size: eo.MaxBatchSize = None, max_num_tokens: eo.MaxNumTokens = None,
    max_seq_len: eo.MaxSeqLen = None, tokens_per_block: eo.TokensPerBlock = None,
    free_gpu_memory_fraction: eo.FreeGpuFraction = None,
    max_tokens_in_paged_kv_cache: eo.MaxTokensPaged = None, trtllm_config: eo.TrtllmConfig = None,
    fmt: FormatOpt = OutputFormat.table, output: OutputOpt = None, save_to: o.Save = None,
    allow_no_fit: o.AllowNoFit = False,
) -> None:
    """How many replicas and GPUs carry a peak of concurrent conversations."""
    from kvplan.plan.prices import parse_prices

    prices = parse_prices(price_per_hour or [], prices_file)
    if search_gpus is not None and not do_search:
        raise typer.BadParameter("applies only with --search", param_hint="--search-gpus")
    if do_search and gpu is not None:
        raise typer.BadParameter("--search tries every catalog GPU; limit it with --search-gpus",
                                 param_hint="--gpu")
    if do_search:
        if prices.flat is not None:
            raise typer.BadParameter("with --search give prices per GPU: --price-per-hour "
                                     "GPU=USD", param_hint="--price-per-hour")
        record = one(records_for(target, locals()), "--search")
        _search(record, prices, search_gpus, fmt, output, save_to)
        return
    records = records_for(target, locals(), prices)
    _plan(records, fmt, output, save_to, allow_no_fit)


def _plan(records: list[Record], fmt: OutputFormat, output: Path | None,
          save_to: Path | None, allow_no_fit: bool) -> None:
    from kvplan.plan.planner import fleet_records
    from kvplan.render.records import traffic_detail, traffic_record

    if save_to is not None:
        one(records)
    with LazyProgress("planning") as bar:
        plans = fleet_records(records, progress=bar.update)
    say_notes(plans)
    emit_results(fmt, [traffic_record(p.plan, p.engine) for p in plans],
                 [traffic_detail(p.plan, p.engine) for p in plans], output)
    if save_to is not None:
        save(save_to, plans[0].record, plans[0].plan.gpus_needed)
    exit_for_fit(any(p.plan.fits for p in plans), allow_no_fit)


def _search(record: Record, prices: PriceTable, only: str | None, fmt: OutputFormat,
            output: Path | None, save_to: Path | None) -> None:
    from kvplan.plan.planner import search_record
    from kvplan.render.records import search_record as row_record

    gpus = split_list(only, "GPUs") if only else None
    with LazyProgress("searching") as bar:
        traffic, result = search_record(record, prices.by_gpu, gpus, progress=bar.update)
    records = [row_record(r) for r in result.rows]
    notes = []
    if result.unpriced_gpus:
        notes.append("unpriced (no price in the spec or given): " + ", ".join(result.unpriced_gpus)
                     + "; add --price-per-hour GPU=USD or --prices FILE")
    notes.append(f"{result.tried} configurations tried, {len(result.rejected)} cannot carry "
                 f"{traffic.required_users:,} conversations"
                 + (" at the SLO" if traffic.min_tokens_per_s_per_user else ""))
    notes.append("KV pool derived from each GPU (memory x utilization - weights - reserve)")
    if fmt is OutputFormat.table:
        from kvplan.render.table import render_search

        title = f"{record.deployment.model}: {traffic.required_users:,} conversations, cheapest first"
        if not records:
            notes.insert(0, "no configuration carries the load")
        emit(title + "\n" + render_search(records, notes, terminal_width(),
                                          _use_color() and output is None), output)
    else:
        rejected: list[dict[str, Any]] = [
            {"gpu": r.gpu.name, "tp": r.tp, "kv_dtype": r.kv_dtype.value, "reason": why}
            for r, why in result.rejected]
        extra = {"unpriced_gpus": result.unpriced_gpus, "rejected": rejected} \
            if fmt is OutputFormat.json else {}
        emit_results(fmt, records, [{} for _ in records], output, **extra)
    if save_to is not None and result.rows:  # the cheapest configuration, as a record
        from kvplan.plan.record import with_fields

        plan = result.rows[0].plan
        req = plan.size.request
        best = with_fields(record, {"hardware.gpu": req.gpu.name, "parallel.tensor": req.tp,
                                    "engine.kv_cache_dtype": req.kv_dtype.value,
                                    "hardware.price_per_hour_usd": plan.traffic.price_per_hour_usd})
        save(save_to, best, plan.gpus_needed)
