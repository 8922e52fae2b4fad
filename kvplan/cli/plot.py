"""`kvplan plot`: pictures (PNG/SVG with matplotlib) or, without --output, terminal bars."""

from __future__ import annotations

from typing import Annotated

import typer

from kvplan.cli import options as o
from kvplan.cli import plot_io as pio
from kvplan.cli.common import cli_errors
from kvplan.cli.recordio import one, records_for
from kvplan.cli.values import split_list
from kvplan.errors import InputError
from kvplan.units import parse_dtype

MAX_DRAWN_USERS = 10_000  # plot risk --users: about 2 CPU s and 250 MB at 10,000
plot_app = typer.Typer(
    help="Pictures: users per GPU against context, one GPU's memory, the overflow risk.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

@plot_app.command("users-vs-context")
@cli_errors
def users_vs_context_command(
    target: o.TargetArg, gpu: o.Gpu = None, context: o.Context = None,
    kv_dtype: Annotated[str, typer.Option("--kv-dtype", metavar="DTYPE[,...]",
                                          help="one curve per precision")] = "fp16,fp8",
    allocation: Annotated[str, typer.Option("--allocation", "-a", metavar="paged|reserved[,...]",
                                            help="one curve per allocation")] = "paged,reserved",
    tp: o.Tp = None, block_size: o.BlockSize = None,
    memory_utilization: o.MemoryUtilization = None, reserve_gib: o.ReserveGib = None,
    kv_budget_gib: o.KvBudgetGib = None, output: pio.ImageOpt = None,
) -> None:
    """Users per GPU against tokens per conversation, per cache precision and allocation."""
    from kvplan.capacity import Allocation
    from kvplan.plan.planner import users_vs_context

    curves = ("kv_dtype", "allocation")  # one curve each, not fields of the record
    base = pio.planned(target, {k: v for k, v in locals().items() if k not in curves})[1]
    try:
        dtypes = [parse_dtype(d) for d in split_list(kv_dtype, "cache precisions")]
        allocs = [Allocation(a.lower()) for a in split_list(allocation, "allocations")]
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None
    series = users_vs_context(base, dtypes, allocs)
    title = (f"{base.model.name} on {base.gpu.name}, TP {base.tp}: users per GPU "
             f"(max context {base.context_tokens:,})")
    from kvplan.render import plots, table

    pio.show(output, lambda path: plots.users_vs_context(
        {k: [(x, float(y)) for x, y in v] for k, v in series.items()}, title, path),
        lambda: table.users_bars(series, title))


@plot_app.command("memory")
@cli_errors
def memory_command(
    target: o.TargetArg, gpu: o.Gpu = None, context: o.Context = None,
    avg_context: o.AvgContext = None, kv_dtype: o.KvDtype = None, allocation: o.Allocation = None,
    tp: o.Tp = None, block_size: o.BlockSize = None,
    memory_utilization: o.MemoryUtilization = None, reserve_gib: o.ReserveGib = None,
    kv_budget_gib: o.KvBudgetGib = None, output: pio.ImageOpt = None,
) -> None:
    """Where one GPU's memory goes: weights, cache in use and free, reserve, unallocated."""
    from kvplan.plan.planner import size_records

    plan = size_records([one(records_for(target, locals()), "a plot")])[0]
    r = plan.size  # the engine's accounting when the record names one
    req = r.request
    title = (f"{req.model.name} on {req.gpu.name}: {r.users_per_replica:,} conversations of "
             f"{req.tokens_held:,} tokens (max {req.context_tokens:,}; {req.kv_dtype.value} "
             f"{req.allocation.value})")
    from rich.text import Text

    from kvplan.render import plots, table

    parts, total = r.breakdown.parts(), req.gpu.memory_bytes
    pio.show(output, lambda path: plots.memory_breakdown(parts, total, title, path),
          lambda: [Text(title, style="bold"), table.memory_bar(parts, total)])


@plot_app.command("risk")
@cli_errors
def risk_command(
    target: o.TargetArg, gpu: o.Gpu = None, context: o.Context = None,
    kv_dtype: o.KvDtype = None, tp: o.Tp = None, block_size: o.BlockSize = None,
    memory_utilization: o.MemoryUtilization = None, reserve_gib: o.ReserveGib = None,
    kv_budget_gib: o.KvBudgetGib = None, avg_context: o.AvgContext = None,
    context_p50: o.P50 = None, context_p95: o.P95 = None, context_p99: o.P99 = None,
    context_sample: o.Sample = None,
    users: Annotated[
        int | None, typer.Option("--users", help="open conversations [default: users at risk]",
                                 min=1)
    ] = None,
    risk: Annotated[float | None, typer.Option(
        "--risk", show_default=False,
        help="overflow risk that sets the default users [default: 0.01]")] = None,
    output: pio.ImageOpt = None,
) -> None:
    """The distribution of the open conversations' cache against the pool, overflow shaded."""
    from kvplan.plan.planner import cache_distribution

    if users is not None and users > MAX_DRAWN_USERS:
        raise typer.BadParameter(f"{users:,} is beyond the {MAX_DRAWN_USERS:,} open conversations "
                                 "a picture draws (the exact law of their total grows with each "
                                 "one); give fewer", param_hint="--users")
    if risk is not None and users is not None:
        raise typer.BadParameter("it sets how many conversations are open when --users is not "
                                 "given; give one of them", param_hint="--risk")
    if risk is not None and not 0 < risk < 1:
        raise typer.BadParameter(f"must be between 0 and 1, got {risk:g}", param_hint="--risk")
    values = {k: v for k, v in locals().items() if k not in ("users", "risk")}
    planned, req = pio.planned(target, values)
    lengths = planned.lengths
    if lengths is None:
        raise InputError("give a spread: --context-p50 with --context-p95/--context-p99, "
                         "--context-sample FILE, or --avg-context with one percentile")
    dist = cache_distribution(req, lengths, users, 0.01 if risk is None else risk)
    title = (f"{req.model.name} on {req.gpu.name}: cache of {dist.users:,} open conversations "
             f"({req.kv_dtype.value})")
    from kvplan.render import plots, table

    args = (dist.totals_bytes, dist.probs, dist.pool_bytes, dist.overflow.probability, title)
    pio.show(output, lambda path: plots.risk_distribution(*args, path),
          lambda: table.risk_bars(*args))
