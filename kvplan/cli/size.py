"""`kvplan size`: the cache per token and per sequence, one GPU's memory, and users per GPU."""

from __future__ import annotations

from typing import Annotated

import typer

from kvplan.cli.common import (
    FormatOpt,
    OutputOpt,
    cli_errors,
    debug_enabled,
    emit,
    int_list,
    non_negative,
    positive,
    terminal_width,
    use_color,
)
from kvplan.cli.sizing import (
    AllocOpt,
    AvgOpt,
    BlockOpt,
    BudgetOpt,
    ContextOpt,
    EngineOpt,
    EngineVersionOpt,
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
from kvplan.specs.schema import ModelSpec
from kvplan.units import gib_to_bytes

MaybeGpuOpt = Annotated[
    str | None,
    typer.Option("--gpu", "-g", help="GPU name or alias; comma-separated [default: h100; "
                 "with --measure: the detected GPU]"),
]
MeasureOpt = Annotated[
    bool,
    typer.Option("--measure", help="build the model with random weights on --device and check "
                 "the prediction against a real cached decode (needs kvplan[measure])"),
]
DeviceOpt = Annotated[str, typer.Option("--device", help="--measure on cuda, cuda:N or cpu")]
ToleranceOpt = Annotated[
    float,
    typer.Option("--tolerance", help="--measure: largest error in percent before exit code 1",
                 callback=non_negative),
]
TimeLimitOpt = Annotated[
    float,
    typer.Option("--time-limit", help="--measure: seconds for the searches and timings",
                 callback=positive),
]
LayersOpt = Annotated[
    int | None,
    typer.Option("--layers", help="--measure: build only the first N layers", min=1),
]


@cli_errors
def size_command(
    model: ModelArg,
    gpu: MaybeGpuOpt = None,
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
    measure: MeasureOpt = False,
    device: DeviceOpt = "cuda",
    tolerance: ToleranceOpt = 10.0,
    time_limit: TimeLimitOpt = 120.0,
    layers: LayersOpt = None,
) -> None:
    """How many concurrent sequences one GPU holds, and where its memory goes."""
    if not measure and (layers is not None or device != "cuda"):
        raise typer.BadParameter("--layers and --device apply only with --measure")
    if measure:
        ignored = {
            "--kv-dtype": kv_dtype != "fp16", "--weight-dtype": weight_dtype is not None,
            "--allocation": allocation != "paged", "--avg-context": avg_context is not None,
            "--tp": tp != "1", "--pp": pp != 1, "--shared-prefix-tokens": shared_prefix_tokens > 0,
            "--reserve-gib": reserve_gib is not None,
            "--engine": engine is not None, "--engine-version": engine_version is not None,
            "--max-num-batched-tokens": max_num_batched_tokens is not None,
            "--max-num-seqs": max_num_seqs is not None, "--max-model-len": max_model_len is not None,
        }
        given = [name for name, on in ignored.items() if on]
        if given:
            raise typer.BadParameter(
                f"{', '.join(given)}: --measure builds one model on one device, the cache in the "
                "weights' dtype, and checks both allocations; drop these options"
            )
        _measure(model, gpu, context, kv_budget_gib, device, tolerance, time_limit, layers,
                 fmt, output)
        return
    spec = resolve_model(model)
    opts = SizingOptions(
        gpu or "h100", context, avg_context, kv_dtype, weight_dtype, allocation, block_size,
        kv_group_size, tp, pp, memory_utilization, reserve_gib, kv_budget_gib, shared_prefix_tokens,
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


def _measure(
    model: str, gpu: str | None, context: str | None, kv_budget_gib: float | None, device: str,
    tolerance: float, time_limit: float, layers: int | None, fmt: OutputFormat,
    output: OutputOpt,
) -> None:
    """`--measure`: torch and transformers are imported only from here on."""
    from kvplan.measure import require_extra
    from kvplan.measure.device import parse_device
    from kvplan.specs import all_hardware, load_hardware

    parse_device(device)
    spec: ModelSpec = resolve_model(model)
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
