"""`kvplan fleet`: replicas and GPUs for a peak load, planned from one deployment record."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from kvplan.cli import engine_options as eo
from kvplan.cli import fleet_search as fs
from kvplan.cli import options as o
from kvplan.cli import spec_options as so
from kvplan.cli.common import FormatOpt, OutputOpt, cli_errors, exit_for_fit
from kvplan.cli.progress import LazyProgress
from kvplan.cli.recordio import emit_results, one, records_for, save, say_notes
from kvplan.render import OutputFormat

if TYPE_CHECKING:
    from kvplan.plan.record import Record


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
    do_search: fs.SearchOpt = False, search_gpus: fs.SearchGpus = None, top: fs.TopOpt = None,
    engine: eo.Engine = None, engine_version: eo.EngineVersion = None,
    max_num_batched_tokens: eo.MaxBatched = None, max_num_seqs: eo.MaxSeqs = None,
    max_model_len: o.MaxModelLen = None,
    enforce_eager: eo.EnforceEager = None, kv_cache_memory_bytes: eo.KvCacheMemoryBytes = None,
    cpu_offload_gb: eo.CpuOffloadGb = None, limit_mm_per_prompt: eo.LimitMm = None,
    speculative_model: eo.SpeculativeModel = None, speculative_config: eo.SpeculativeConfig = None,
    num_speculative_tokens: eo.NumSpeculativeTokens = None, tp_transport: eo.TpTransport = None,
    disable_custom_all_reduce: eo.DisableCustomAllReduce = None, page_size: eo.PageSize = None,
    topk_topp_sampler: eo.TopkToppSampler = None, entrypoint: eo.Entrypoint = None,
    enable_extensible_kv_cache: eo.ExtensibleKvCache = None,
    disable_hybrid_kv_cache_manager: eo.DisableHybridKvCacheManager = None,
    chunked_local_hybrid: eo.ChunkedLocalHybrid = None,
    cudagraph_capture_sizes: eo.CudagraphCaptureSizes = None,
    max_cudagraph_capture_size: eo.MaxCudagraphCaptureSize = None,
    cudagraph_mode: eo.CudagraphMode = None,
    chunked_prefill_size: eo.ChunkedPrefill = None, cuda_graph_max_bs: eo.CudaGraphMaxBs = None,
    max_running_requests: eo.MaxRunning = None, max_total_tokens: eo.MaxTotalTokens = None,
    attention_backend: eo.AttentionBackend = None,
    mm_feature_transport: eo.MmFeatureTransport = None,
    attention_dp: so.AttentionDp = None, moe_dense_tp_size: so.MoeDenseTpSize = None,
    enable_dp_lm_head: so.EnableDpLmHead = None, moe_a2a_backend: so.MoeA2aBackend = None,
    speculative_algorithm: so.SpeculativeAlgorithm = None,
    speculative_num_steps: so.SpeculativeNumSteps = None,
    speculative_eagle_topk: so.SpeculativeEagleTopk = None,
    speculative_num_draft_tokens: so.SpeculativeNumDraftTokens = None,
    max_batch_size: eo.MaxBatchSize = None, max_num_tokens: eo.MaxNumTokens = None,
    max_seq_len: eo.MaxSeqLen = None, tokens_per_block: eo.TokensPerBlock = None,
    free_gpu_memory_fraction: eo.FreeGpuFraction = None,
    max_tokens_in_paged_kv_cache: eo.MaxTokensPaged = None, trtllm_config: eo.TrtllmConfig = None,
    trt_activation_bytes: eo.TrtActivationBytes = None,
    trtllm_backend: eo.TrtllmBackend = None,
    fmt: FormatOpt = OutputFormat.table, output: OutputOpt = None, save_to: o.Save = None,
    allow_no_fit: o.AllowNoFit = False,
) -> None:
    """How many replicas and GPUs carry a peak of concurrent conversations."""
    from kvplan.plan.prices import parse_prices

    prices = parse_prices(price_per_hour or [], prices_file)
    if search_gpus is not None and not do_search:
        raise typer.BadParameter("applies only with --search", param_hint="--search-gpus")
    if top is not None and not do_search:
        raise typer.BadParameter("applies only with --search", param_hint="--top")
    if do_search:
        from kvplan.cli.fleet_search import search_command

        search_command(locals(), prices)
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
