"""`kvplan size`: the cache per token and per sequence, one GPU's memory, and users per GPU."""

from __future__ import annotations

from kvplan.cli.common import FormatOpt, OutputOpt, cli_errors, emit, terminal_width, use_color
from kvplan.cli.sizing import (
    AllocOpt,
    AvgOpt,
    BlockOpt,
    BudgetOpt,
    ContextOpt,
    EngineOpt,
    EngineVersionOpt,
    GpuOpt,
    GroupOpt,
    KvDtypeOpt,
    MaxBatchedOpt,
    MaxModelLenOpt,
    MaxSeqsOpt,
    ModelArg,
    PpOpt,
    PrefixOpt,
    ReserveOpt,
    SizingOptions,
    TpOpt,
    UtilOpt,
    WeightDtypeOpt,
    build_requests,
    engine_settings,
    resolve_model,
    run_all,
    size_all,
)
from kvplan.render import OutputFormat, render
from kvplan.render.records import detail, size_record


@cli_errors
def size_command(
    model: ModelArg,
    gpu: GpuOpt = "h100",
    context: ContextOpt = None,
    avg_context: AvgOpt = None,
    kv_dtype: KvDtypeOpt = "fp16",
    weight_dtype: WeightDtypeOpt = None,
    allocation: AllocOpt = "paged",
    block_size: BlockOpt = 16,
    kv_group_size: GroupOpt = 64,
    tp: TpOpt = "1",
    pp: PpOpt = 1,
    memory_utilization: UtilOpt = None,
    reserve_gib: ReserveOpt = None,
    kv_budget_gib: BudgetOpt = None,
    shared_prefix_tokens: PrefixOpt = 0,
    engine: EngineOpt = None,
    engine_version: EngineVersionOpt = None,
    max_num_batched_tokens: MaxBatchedOpt = None,
    max_num_seqs: MaxSeqsOpt = None,
    max_model_len: MaxModelLenOpt = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
) -> None:
    """How many concurrent sequences one GPU holds, and where its memory goes."""
    spec = resolve_model(model)
    opts = SizingOptions(
        gpu, context, avg_context, kv_dtype, weight_dtype, allocation, block_size, kv_group_size,
        tp, pp, memory_utilization, reserve_gib, kv_budget_gib, shared_prefix_tokens,
        engine, engine_version, max_num_batched_tokens, max_num_seqs, max_model_len,
    )
    requests = build_requests(spec, opts)
    settings = engine_settings(opts)
    if settings is None:
        results = size_all(requests)
        records = [size_record(r) for r in results]
        extras = [detail(r) for r in results]
    else:
        engines = run_all(requests, settings)
        records = [size_record(e.size, e) for e in engines]
        extras = [detail(e.size, e) for e in engines]
    text = render(
        fmt, records, extras, width=terminal_width(), color=use_color() and output is None
    )
    emit(text, output)
