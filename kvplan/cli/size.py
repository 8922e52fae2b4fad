"""`kvplan size`: the cache per token and per sequence, one GPU's memory, and users per GPU."""

from __future__ import annotations

from kvplan.cli.common import FormatOpt, OutputOpt, cli_errors, emit, terminal_width, use_color
from kvplan.cli.sizing import (
    AllocOpt,
    AvgOpt,
    BlockOpt,
    BudgetOpt,
    ContextOpt,
    GpuOpt,
    GroupOpt,
    KvDtypeOpt,
    ModelArg,
    PpOpt,
    PrefixOpt,
    ReserveOpt,
    SizingOptions,
    TpOpt,
    UtilOpt,
    WeightDtypeOpt,
    build_requests,
    resolve_model,
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
    memory_utilization: UtilOpt = 0.9,
    reserve_gib: ReserveOpt = None,
    kv_budget_gib: BudgetOpt = None,
    shared_prefix_tokens: PrefixOpt = 0,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
) -> None:
    """How many concurrent sequences one GPU holds, and where its memory goes."""
    spec = resolve_model(model)
    opts = SizingOptions(
        gpu, context, avg_context, kv_dtype, weight_dtype, allocation, block_size, kv_group_size,
        tp, pp, memory_utilization, reserve_gib, kv_budget_gib, shared_prefix_tokens,
    )
    results = size_all(build_requests(spec, opts))
    text = render(
        fmt,
        [size_record(r) for r in results],
        [detail(r) for r in results],
        width=terminal_width(),
        color=use_color() and output is None,
    )
    emit(text, output)
