"""`kvplan size`: the cache per token and per sequence, one GPU's memory, and users per GPU."""

from __future__ import annotations

from kvplan.cli import engine_options as eo
from kvplan.cli import options as o
from kvplan.cli import size_measure as sm
from kvplan.cli import spec_options as so
from kvplan.cli.common import FormatOpt, OutputOpt, cli_errors, exit_for_fit
from kvplan.cli.recordio import emit_results, one, records_for, save, say_notes
from kvplan.render import OutputFormat


@cli_errors
def size_command(
    target: o.TargetArg,
    gpu: o.Gpu = None, context: o.Context = None, avg_context: o.AvgContext = None,
    kv_dtype: o.KvDtype = None, weight_dtype: o.WeightDtype = None,
    allocation: o.Allocation = None, block_size: o.BlockSize = None,
    kv_group_size: o.KvGroupSize = None, tp: o.Tp = None, pp: o.Pp = None, nodes: o.Nodes = None,
    ep: eo.Ep = None,
    memory_utilization: o.MemoryUtilization = None, reserve_gib: o.ReserveGib = None,
    kv_budget_gib: o.KvBudgetGib = None, shared_prefix_tokens: o.SharedPrefix = None,
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
    measure: sm.MeasureOpt = False, device: sm.DeviceOpt = None,
    tolerance: sm.ToleranceOpt = None, time_limit: sm.TimeLimitOpt = None,
    layers: sm.LayersOpt = None,
) -> None:
    """How many concurrent sequences one GPU holds, and where its memory goes."""
    if not measure:
        sm.refuse_without_measure(locals())
    else:
        sm.measure_command(locals())
        return
    from kvplan.plan.planner import size_records
    from kvplan.render.records import detail, size_record

    records = records_for(target, locals())
    plans = size_records([one(records)] if save_to is not None else records)
    say_notes(plans)
    emit_results(fmt, [size_record(p.size, p.engine) for p in plans],
                 [detail(p.size, p.engine) for p in plans], output)
    if save_to is not None:  # one full replica: its GPUs and the users it holds
        p = plans[0]
        save(save_to, p.record, p.size.request.gpus_per_replica if p.size.fits else None,
             p.size.users_per_replica)
    exit_for_fit(any(p.size.fits for p in plans), allow_no_fit)

