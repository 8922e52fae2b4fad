"""`kvplan explain`: the record field by field, then the arithmetic of its plan, step by step."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from kvplan.cli import engine_options as eo
from kvplan.cli import options as o
from kvplan.cli import spec_options as so
from kvplan.cli.common import FormatOpt, OutputOpt, cli_errors, emit, terminal_width, use_color
from kvplan.cli.recordio import records_for
from kvplan.errors import KvplanError
from kvplan.render import OutputFormat

if TYPE_CHECKING:
    from kvplan.plan.record import Record


@cli_errors
def explain_command(
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
    fmt: FormatOpt = OutputFormat.table, output: OutputOpt = None,
) -> None:
    """Print the record (each field and where it came from), then the arithmetic step by step."""
    from kvplan.plan.planner import explain_records
    from kvplan.plan.prices import parse_prices
    from kvplan.plan.record import record_fields

    records = records_for(target, locals(), parse_prices(price_per_hour or [], prices_file))
    results = explain_records(records)
    from kvplan.plan.planner import engine_defaults, resolve

    fields = [engine_defaults(record_fields(r, resolve(r, need_load=False).deployment), res)
              for r, res in zip(records, results, strict=True)]
    fleets = [_fleet_lines(r) for r in records]
    if fmt is OutputFormat.table:
        from kvplan.cli.explain_render import render_text

        text = render_text(results, terminal_width(), use_color() and output is None, fields,
                           fleets)
    elif fmt is OutputFormat.json:
        from kvplan.cli.explain_render import step_record

        text = json.dumps({"results": [
            {"record": [{"field": k, "value": v, "from": src} for k, v, src in f],
             "model": r.size.request.model.name, "gpu": r.size.request.gpu.name,
             "engine": r.engine.value, "engine_version": r.engine_version,
             "starts": r.starts, "reason": r.reason,
             "steps": [step_record(s) for s in r.steps], "fleet": fl}
            for r, f, fl in zip(results, fields, fleets, strict=True)]}, indent=2) + "\n"
    else:
        raise KvplanError("explain prints a table or json; use --format table or --format json")
    emit(text, output)


def _fleet_lines(record: Record) -> list[str]:
    """The fleet arithmetic, when the record states a load: required users, replicas, GPUs."""
    if not record.deployment.traffic.has_load:
        return []
    from kvplan.plan.planner import basis, fleet_records

    p = fleet_records([record])[0].plan
    t = p.traffic
    g = p.gpus_per_replica
    per = p.planned_users_per_replica
    lines = [f"required users = max(ceil({t.peak_users:,} x (1 + {float(t.headroom):g})), "
             f"{t.min_users or 0:,}) = {t.required_users:,}",
             f"users per replica ({basis(p).replace('_', ' ')}) = {per:,} on {g} GPU(s)"]
    if p.replicas is not None:
        lines += [f"replicas = ceil({t.required_users:,} / {per:,}) = {p.replicas:,}",
                  f"GPUs = {p.replicas:,} x {g} = {p.gpus_needed:,}"]
    else:
        lines.append(f"no replica holds a user: {p.reason or p.size.reason}")
    return lines
