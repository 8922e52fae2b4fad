"""`kvplan size`: the cache per token and per sequence, one GPU's memory, and users per GPU."""

from __future__ import annotations

from typing import Annotated

import typer

from kvplan.cli import engine_options as eo
from kvplan.cli import options as o
from kvplan.cli.common import (
    FormatOpt,
    OutputOpt,
    cli_errors,
    debug_enabled,
    emit,
    exit_for_fit,
    terminal_width,
    use_color,
)
from kvplan.cli.recordio import emit_results, one, records_for, save, say_notes
from kvplan.cli.values import int_list, non_negative, positive
from kvplan.render import OutputFormat
from kvplan.units import gib_to_bytes

MeasureOpt = Annotated[
    bool,
    typer.Option("--measure", help="build the model with random weights on --device and check "
                 "the prediction against a real cached decode (needs torch and transformers)"),
]
DeviceOpt = Annotated[str, typer.Option("--device", help="--measure on cuda, cuda:N or cpu")]
ToleranceOpt = Annotated[
    float,
    typer.Option("--tolerance", metavar="PERCENT", callback=non_negative,
                 help="--measure: largest error in percent before exit code 1"),
]
TimeLimitOpt = Annotated[
    float,
    typer.Option("--time-limit", metavar="SECONDS", help="--measure: seconds for the searches and timings",
                 callback=positive),
]
LayersOpt = Annotated[
    int | None,
    typer.Option("--layers", metavar="N", help="--measure: build only the first N layers", min=1),
]


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
    num_speculative_tokens: eo.NumSpeculativeTokens = None, page_size: eo.PageSize = None,
    chunked_prefill_size: eo.ChunkedPrefill = None, cuda_graph_max_bs: eo.CudaGraphMaxBs = None,
    max_running_requests: eo.MaxRunning = None, max_total_tokens: eo.MaxTotalTokens = None,
    max_batch_size: eo.MaxBatchSize = None, max_num_tokens: eo.MaxNumTokens = None,
    max_seq_len: eo.MaxSeqLen = None, tokens_per_block: eo.TokensPerBlock = None,
    free_gpu_memory_fraction: eo.FreeGpuFraction = None,
    max_tokens_in_paged_kv_cache: eo.MaxTokensPaged = None, trtllm_config: eo.TrtllmConfig = None,
    fmt: FormatOpt = OutputFormat.table, output: OutputOpt = None, save_to: o.Save = None,
    allow_no_fit: o.AllowNoFit = False,
    measure: MeasureOpt = False, device: DeviceOpt = "cuda", tolerance: ToleranceOpt = 10.0,
    time_limit: TimeLimitOpt = 120.0, layers: LayersOpt = None,
) -> None:
    """How many concurrent sequences one GPU holds, and where its memory goes."""
    if not measure and (layers is not None or device != "cuda"):
        raise typer.BadParameter("--layers and --device apply only with --measure")
    if measure:
        values = {k: v for k, v in locals().items() if v is not None}
        from kvplan.plan.record import is_deployment_target

        given = [f"--{k.replace('_', '-')}" for k in values if k not in _MEASURED]
        if given or is_deployment_target(target):
            raise typer.BadParameter(
                f"{', '.join(given) or target}: --measure builds one model on one device, the "
                "cache in the weights' dtype, and checks both allocations; give a model and "
                "at most --gpu, --context and --kv-budget-gib")
        _measure(target, gpu, context, kv_budget_gib, device, tolerance, time_limit, layers,
                 fmt, output)
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


_MEASURED = {"target", "gpu", "context", "kv_budget_gib", "fmt", "output", "measure", "device",
             "tolerance", "time_limit", "layers", "allow_no_fit"}


def _measure(
    model: str, gpu: str | None, context: str | None, kv_budget_gib: float | None, device: str,
    tolerance: float, time_limit: float, layers: int | None, fmt: OutputFormat,
    output: OutputOpt,
) -> None:
    """`--measure`: torch and transformers are imported only from here on."""
    from kvplan.measure import require_extra
    from kvplan.measure.device import parse_device
    from kvplan.specs import all_hardware, load_hardware, load_model
    from kvplan.specs.schema import ModelSpec

    parse_device(device)
    spec: ModelSpec = load_model(model)
    contexts = int_list(context, "tokens") if context else [None]
    if len(contexts) != 1 or (gpu is not None and "," in gpu):
        raise typer.BadParameter("--measure takes one --context and one --gpu")
    hw = load_hardware(gpu) if gpu is not None else None
    budget = gib_to_bytes(kv_budget_gib) if kv_budget_gib is not None else None
    require_extra()
    from kvplan.measure.run import MeasureOptions, measure
    from kvplan.render.measure import render as render_measure

    report = measure(
        spec,
        MeasureOptions(
            device=device, gpu=hw, catalog=tuple(all_hardware()[0]), context_tokens=contexts[0],
            layers=layers, tolerance_pct=tolerance, time_limit_s=time_limit,
            kv_budget_bytes=budget, debug=debug_enabled(),
        ),
    )
    emit(render_measure(fmt, report, width=terminal_width(), color=use_color() and output is None),
         output)
    if not report.passed:
        raise typer.Exit(code=1)
