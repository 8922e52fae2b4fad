"""`kvplan fleet`: replicas and GPUs for a peak load, from options or a deployment file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kvplan.capacity import FleetResult, advise, size
from kvplan.cli.common import (
    FormatOpt,
    OutputOpt,
    cli_errors,
    emit,
    non_negative,
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
    GpuOpt,
    GroupOpt,
    KvDtypeOpt,
    MaxBatchedOpt,
    MaxModelLenOpt,
    MaxSeqsOpt,
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
from kvplan.deploy import is_deployment, load_deployment
from kvplan.engines import EngineResult
from kvplan.engines.deployment import deployment_engine_settings
from kvplan.render import OutputFormat, render
from kvplan.render.records import detail, fleet_record
from kvplan.specs import all_hardware
from kvplan.units import exact

TargetArg = Annotated[
    str, typer.Argument(help="model name or spec path, or a kvplan/v1 deployment file")
]


@cli_errors
def fleet_command(
    target: TargetArg,
    peak_users: Annotated[
        int | None, typer.Option("--peak-users", "-n", help="peak concurrent sequences", min=1)
    ] = None,
    headroom: Annotated[
        float,
        typer.Option(help="spare capacity above the peak: 0.2 plans for 20% more",
                     callback=non_negative),
    ] = 0.0,
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
    """How many replicas and GPUs carry a peak of concurrent conversations."""
    path = Path(target)
    engines: list[EngineResult | None]
    if is_deployment(path):
        planned = load_deployment(path)
        dep_settings = deployment_engine_settings(planned.deployment.engine)
        if dep_settings is None:
            result = size(planned.request)
            if not result.fits:
                result = advise(result, all_hardware()[0], size)
            engines = [None]
        else:
            er = run_all([planned.request], dep_settings)[0]
            result, engines = er.size, [er]
        fleets = [FleetResult(result, planned.peak_users, planned.headroom)]
    else:
        if peak_users is None:
            raise typer.BadParameter(
                "give --peak-users N, or a deployment file", param_hint="--peak-users"
            )
        spec = resolve_model(target)
        opts = SizingOptions(
            gpu, context, avg_context, kv_dtype, weight_dtype, allocation, block_size,
            kv_group_size, tp, pp, memory_utilization, reserve_gib, kv_budget_gib,
            shared_prefix_tokens, engine, engine_version, max_num_batched_tokens, max_num_seqs,
            max_model_len,
        )
        requests = build_requests(spec, opts)
        settings = engine_settings(opts)
        if settings is None:
            results = size_all(requests)
            engines = [None for _ in results]
        else:
            ran = run_all(requests, settings)
            results, engines = [e.size for e in ran], list(ran)
        fleets = [FleetResult(r, peak_users, exact(headroom)) for r in results]
    text = render(
        fmt,
        [fleet_record(f, e) for f, e in zip(fleets, engines, strict=True)],
        [detail(f.size, e) for f, e in zip(fleets, engines, strict=True)],
        width=terminal_width(),
        color=use_color() and output is None,
    )
    emit(text, output)
