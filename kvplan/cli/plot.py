"""`kvplan plot`: pictures (PNG/SVG with kvplan[plot]) or, without --output, terminal bars."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kvplan.capacity import Allocation, SizeRequest, size
from kvplan.cli.common import cli_errors, split_list, terminal_width, use_color
from kvplan.cli.sizing import (
    BlockOpt,
    BudgetOpt,
    ContextOpt,
    GpuOpt,
    KvDtypeOpt,
    ModelArg,
    ReserveOpt,
    SizingOptions,
    TpOpt,
    UtilOpt,
    build_requests,
    resolve_model,
)
from kvplan.errors import InputError
from kvplan.units import parse_dtype

if TYPE_CHECKING:
    from rich.console import RenderableType

    from kvplan.traffic.lengths import LengthDistribution

plot_app = typer.Typer(
    help="Pictures: users per GPU against context, one GPU's memory, the overflow risk.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

ImageOpt = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="write a .png or .svg (needs kvplan[plot]); "
                 "without it, bars in the terminal"),
]
AvgOpt = Annotated[
    int | None, typer.Option("--avg-context", help="tokens a conversation holds", min=1)
]


def _request(model: str, gpu: str, context: str | None, kv_dtype: str, allocation: str,
             tp: str, block_size: int, util: float | None, reserve: float | None,
             budget: float | None, avg: int | None) -> SizeRequest:
    spec = resolve_model(model)
    opts = SizingOptions(gpu, context, avg, kv_dtype, None, allocation, block_size, 64, tp, 1,
                         util, reserve, budget, 0)
    reqs = build_requests(spec, opts)
    if len(reqs) != 1:
        raise typer.BadParameter("give one GPU, context, cache precision and TP for this plot")
    return reqs[0]


def _print(renderables: Sequence[RenderableType]) -> None:
    from kvplan.render.table import to_string

    typer.echo(to_string(renderables, width=terminal_width(), color=use_color()), nl=False)


def _done(path: Path) -> None:
    typer.echo(f"wrote {path}", err=True)


@plot_app.command("users-vs-context")
@cli_errors
def users_vs_context_command(
    model: ModelArg,
    gpu: GpuOpt = "h100",
    context: ContextOpt = None,
    kv_dtype: KvDtypeOpt = "fp16,fp8",
    allocation: Annotated[
        str, typer.Option("--allocation", "-a", help="paged, reserved or both")
    ] = "paged,reserved",
    tp: TpOpt = "1",
    block_size: BlockOpt = 16,
    memory_utilization: UtilOpt = 0.9,
    reserve_gib: ReserveOpt = None,
    kv_budget_gib: BudgetOpt = None,
    output: ImageOpt = None,
) -> None:
    """Users per GPU against tokens per conversation, per cache precision and allocation."""
    from kvplan.traffic.curves import users_vs_context

    base = _request(model, gpu, context, "fp16", "paged", tp, block_size, memory_utilization,
                    reserve_gib, kv_budget_gib, None)
    try:
        dtypes = [parse_dtype(d) for d in split_list(kv_dtype, "cache precisions")]
        allocs = [Allocation(a.lower()) for a in split_list(allocation, "allocations")]
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None
    series = users_vs_context(base, dtypes, allocs)
    title = (f"{base.model.name} on {base.gpu.name}, TP {base.tp}: users per GPU "
             f"(max context {base.context_tokens:,})")
    if output is not None:
        from kvplan.render import plots

        plots.check_path(output)
        plots.users_vs_context({k: [(x, float(y)) for x, y in v] for k, v in series.items()},
                               title, output)
        _done(output)
        return
    from kvplan.render.table import users_bars

    _print(users_bars(series, title))


@plot_app.command("memory")
@cli_errors
def memory_command(
    model: ModelArg,
    gpu: GpuOpt = "h100",
    context: ContextOpt = None,
    avg_context: AvgOpt = None,
    kv_dtype: KvDtypeOpt = "fp16",
    allocation: Annotated[str, typer.Option("--allocation", "-a")] = "paged",
    tp: TpOpt = "1",
    block_size: BlockOpt = 16,
    memory_utilization: UtilOpt = 0.9,
    reserve_gib: ReserveOpt = None,
    kv_budget_gib: BudgetOpt = None,
    output: ImageOpt = None,
) -> None:
    """Where one GPU's memory goes: weights, cache in use and free, reserve, unallocated."""
    req = _request(model, gpu, context, kv_dtype, allocation, tp, block_size,
                   memory_utilization, reserve_gib, kv_budget_gib, avg_context)
    r = size(req)
    title = (f"{req.model.name} on {req.gpu.name}: {r.users_per_replica:,} conversations of "
             f"{req.tokens_held:,} tokens ({req.kv_dtype.value} {req.allocation.value})")
    if output is not None:
        from kvplan.render import plots

        plots.check_path(output)
        plots.memory_breakdown(r.breakdown.parts(), req.gpu.memory_bytes, title, output)
        _done(output)
        return
    from rich.text import Text

    from kvplan.render.table import memory_bar

    _print([Text(title, style="bold"), memory_bar(r.breakdown.parts(), req.gpu.memory_bytes)])


@plot_app.command("risk")
@cli_errors
def risk_command(
    model: ModelArg,
    gpu: GpuOpt = "h100",
    context: ContextOpt = None,
    kv_dtype: KvDtypeOpt = "fp16",
    tp: TpOpt = "1",
    block_size: BlockOpt = 16,
    memory_utilization: UtilOpt = 0.9,
    reserve_gib: ReserveOpt = None,
    kv_budget_gib: BudgetOpt = None,
    context_p50: Annotated[int | None, typer.Option("--context-p50", min=1)] = None,
    context_p95: Annotated[int | None, typer.Option("--context-p95", min=1)] = None,
    context_p99: Annotated[int | None, typer.Option("--context-p99", min=1)] = None,
    context_sample: Annotated[Path | None, typer.Option("--context-sample")] = None,
    users: Annotated[
        int | None, typer.Option("--users", help="open conversations [default: users at risk]",
                                 min=1)
    ] = None,
    risk: Annotated[float, typer.Option("--risk", help="overflow risk for the default users")]
    = 0.01,
    output: ImageOpt = None,
) -> None:
    """The distribution of the open conversations' cache against the pool, overflow shaded."""
    from kvplan.traffic import fit_lognormal, load_sample
    from kvplan.traffic.curves import cache_distribution

    if not 0 < risk < 1:
        raise typer.BadParameter(f"must be between 0 and 1, got {risk:g}", param_hint="--risk")
    req = _request(model, gpu, context, kv_dtype, "paged", tp, block_size, memory_utilization,
                   reserve_gib, kv_budget_gib, None)
    pct = {q: v for q, v in ((0.5, context_p50), (0.95, context_p95), (0.99, context_p99))
           if v is not None}
    lengths: LengthDistribution
    if context_sample is not None:
        lengths = load_sample(context_sample)
    elif pct:
        lengths = fit_lognormal({q: float(v) for q, v in pct.items()})
    else:
        raise InputError("give a spread: --context-p50 with --context-p95/--context-p99, or "
                         "--context-sample FILE")
    dist = cache_distribution(req, lengths, users, risk)
    title = (f"{req.model.name} on {req.gpu.name}: cache of {dist.users:,} open conversations "
             f"({req.kv_dtype.value})")
    if output is not None:
        from kvplan.render import plots

        plots.check_path(output)
        plots.risk_distribution(dist.totals_bytes, dist.probs, dist.pool_bytes,
                                dist.overflow.probability, title, output)
        _done(output)
        return
    from kvplan.render.table import risk_bars

    _print(risk_bars(dist.totals_bytes, dist.probs, dist.pool_bytes, dist.overflow.probability,
                     title))
