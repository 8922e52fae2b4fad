"""`kvplan fleet`: replicas and GPUs for a peak load, from options or a deployment file."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kvplan.capacity import SizeRequest, SizeResult
from kvplan.cli.common import (
    FormatOpt,
    OutputOpt,
    cli_errors,
    emit,
    non_negative,
    positive,
    split_list,
    terminal_width,
    use_color,
)
from kvplan.cli.progress import LazyProgress
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
)
from kvplan.errors import InputError
from kvplan.render import OutputFormat, render
from kvplan.specs import all_hardware, load_hardware
from kvplan.specs.loader import read_yaml
from kvplan.units import exact

if TYPE_CHECKING:  # deployment files and engine profiles load only when a command needs them
    from kvplan.engines import EngineResult, EngineSettings

TargetArg = Annotated[
    str, typer.Argument(metavar="TARGET", help="model name or spec path, or a kvplan/v1 deployment file")
]


def _efficiency(value: float | None) -> float | None:
    if value is not None and not 0 < value <= 1:
        raise typer.BadParameter(f"must be in (0, 1], got {value:g} (0.8 means 80%)")
    return value


def _risk(value: float | None) -> float | None:
    if value is not None and not 0 < value < 1:
        raise typer.BadParameter(f"must be between 0 and 1, got {value:g} (0.01 means 1%)")
    return value


def parse_prices(
    items: list[str], prices_file: Path | None
) -> tuple[dict[str, float], float | None]:
    """Per-GPU prices from --prices FILE and --price-per-hour GPU=USD; a bare USD applies to all."""
    prices: dict[str, float] = {}
    if prices_file is not None:
        if prices_file.suffix.lower() == ".csv":
            import csv

            from kvplan.inputs import read_text  # size and encoding checked

            text = read_text(prices_file)
            for i, row in enumerate(csv.DictReader(text.splitlines()), start=2):
                gpu, usd = row.get("gpu"), row.get("price_per_hour_usd")
                if not gpu or not usd:
                    raise InputError(f"{prices_file}: line {i}: need columns gpu and "
                                     "price_per_hour_usd")
                prices[gpu.strip()] = _usd(usd, f"{prices_file}: line {i}")
        else:
            data = read_yaml(prices_file)  # YAML or JSON: {gpu: usd}
            if not isinstance(data, dict):
                raise InputError(f"{prices_file}: expected a mapping of GPU name to USD per hour")
            for gpu, usd in data.items():
                prices[str(gpu)] = _usd(usd, f"{prices_file}: {gpu}")
    flat = None
    for item in items:
        if "=" in item:
            gpu, _, usd = item.partition("=")
            prices[gpu.strip()] = _usd(usd, f"--price-per-hour {item}")
        else:
            flat = _usd(item, f"--price-per-hour {item}")
    return prices, flat


def _usd(value: object, where: str) -> float:
    try:
        usd = float(str(value).strip().lstrip("$"))
    except ValueError:
        raise InputError(f"{where}: {value!r} is not a price in USD per GPU-hour") from None
    if not usd > 0 or usd == float("inf"):  # refuses nan and inf too
        raise InputError(f"{where}: price must be a positive, finite number, got {usd:g}")
    return usd


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
    arrival_rate: Annotated[
        float | None,
        typer.Option("--arrival-rate", help="new conversations per second (with --mean-duration-s)",
                     callback=positive),
    ] = None,
    mean_duration_s: Annotated[
        float | None,
        typer.Option("--mean-duration-s", help="seconds a conversation stays open on average",
                     callback=positive),
    ] = None,
    peak_to_mean: Annotated[
        float, typer.Option("--peak-to-mean", help="busiest rate / mean rate (>= 1)", min=1.0)
    ] = 1.0,
    context_p50: Annotated[
        int | None, typer.Option("--context-p50", help="median tokens per conversation", min=1)
    ] = None,
    context_p95: Annotated[
        int | None, typer.Option("--context-p95", help="95th-percentile tokens", min=1)
    ] = None,
    context_p99: Annotated[
        int | None, typer.Option("--context-p99", help="99th-percentile tokens", min=1)
    ] = None,
    context_sample: Annotated[
        Path | None,
        typer.Option("--context-sample", help="CSV or JSONL of request token counts "
                     "(tokens, or prompt_tokens + output_tokens)"),
    ] = None,
    risk: Annotated[
        float | None,
        typer.Option("--risk", help="allowed chance the open conversations overflow the pool "
                     "[default: 0.01]", callback=_risk),
    ] = None,
    bandwidth_efficiency: Annotated[
        float, typer.Option("--bandwidth-efficiency", help="share of peak memory bandwidth "
                            "decode achieves", callback=_efficiency),
    ] = 1.0,
    flops_efficiency: Annotated[
        float, typer.Option("--flops-efficiency", help="share of peak BF16 FLOP/s prefill "
                            "achieves", callback=_efficiency),
    ] = 1.0,
    min_tps: Annotated[
        float | None,
        typer.Option("--min-tokens-per-s-per-user", help="decode speed each user must see (SLO)",
                     callback=positive),
    ] = None,
    prompt_tokens: Annotated[
        int | None,
        typer.Option("--prompt-tokens", help="prompt length for TTFT [default: mean context]",
                     min=1),
    ] = None,
    price_per_hour: Annotated[
        list[str] | None,
        typer.Option("--price-per-hour", help="USD per GPU-hour: GPU=USD (repeatable) or USD"),
    ] = None,
    prices_file: Annotated[
        Path | None,
        typer.Option("--prices", help="YAML/JSON {gpu: USD} or CSV gpu,price_per_hour_usd"),
    ] = None,
    do_search: Annotated[
        bool, typer.Option("--search", help="try every GPU, TP size and cache precision; "
                           "cheapest fleets first")
    ] = False,
    engine: EngineOpt = None,
    engine_version: EngineVersionOpt = None,
    max_num_batched_tokens: MaxBatchedOpt = None,
    max_num_seqs: MaxSeqsOpt = None,
    max_model_len: MaxModelLenOpt = None,
    search_gpus: Annotated[
        str | None,
        typer.Option("--search-gpus", help="with --search: only these GPUs (comma list) "
                     "[default: the whole catalog]"),
    ] = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
) -> None:
    """How many replicas and GPUs carry a peak of concurrent conversations."""
    from kvplan.deploy import is_deployment, load_deployment
    from kvplan.engines.deployment import deployment_engine_settings
    from kvplan.traffic import Traffic, concurrency, fit_lognormal, load_sample
    from kvplan.traffic.lengths import LengthDistribution
    from kvplan.traffic.plan import DEFAULT_RISK

    path = Path(target)
    dep_risk: float | None = None
    dep_slo: float | None = None
    dep_lengths: LengthDistribution | None = None
    min_users: int | None = None
    percentiles: dict[float, float] = {}
    sample_path = context_sample
    if is_deployment(path):
        engine_flags = (engine, engine_version, max_num_batched_tokens, max_num_seqs, max_model_len)
        if any(v is not None for v in engine_flags) or peak_users is not None:
            raise typer.BadParameter(
                f"{path} states its engine and traffic; change them in the file (engine:, "
                "traffic:) instead of --engine, --engine-version, --max-num-*, --max-model-len "
                "or --peak-users", param_hint="TARGET")
        planned = load_deployment(path)
        for note in planned.notes:  # what was assumed in place of what the file states
            typer.echo(f"note: {path}: {note}", err=True)
        requests = [planned.request]
        settings = deployment_engine_settings(planned.deployment.engine)
        peak, head = planned.traffic_peak, planned.headroom
        min_users = planned.min_users
        t = planned.deployment.traffic
        dep_risk, dep_slo = t.risk, t.min_tokens_per_s_per_user
        dep_lengths = planned.lengths  # sample, percentiles, or mean + one percentile
    else:
        spec = resolve_model(target)  # a bad name or a broken file is the first thing to say
        if arrival_rate is not None or mean_duration_s is not None:
            if arrival_rate is None or mean_duration_s is None:
                raise typer.BadParameter("--arrival-rate and --mean-duration-s go together",
                                         param_hint="--arrival-rate")
            if peak_users is not None:
                raise typer.BadParameter("give --peak-users or an arrival rate, not both",
                                         param_hint="--peak-users")
            peak_users = concurrency(exact(arrival_rate), exact(mean_duration_s),
                                     exact(peak_to_mean))
        if peak_users is None:
            raise typer.BadParameter(
                "give --peak-users N, --arrival-rate with --mean-duration-s, or a deployment file",
                param_hint="--peak-users")
        opts = SizingOptions(
            gpu, context, avg_context, kv_dtype, weight_dtype, allocation, block_size,
            kv_group_size, tp, pp, memory_utilization, reserve_gib, kv_budget_gib,
            shared_prefix_tokens, engine, engine_version, max_num_batched_tokens, max_num_seqs,
            max_model_len,
        )
        requests = build_requests(spec, opts)
        settings = engine_settings(opts)
        peak, head = peak_users, exact(headroom)
    given = ((0.5, context_p50), (0.95, context_p95), (0.99, context_p99))
    cli_pct: dict[float, float] = {q: v for q, v in given if v is not None}
    if cli_pct:
        percentiles, sample_path = cli_pct, context_sample
    if context_sample is not None and cli_pct:
        raise typer.BadParameter("give --context-sample or percentiles, not both",
                                 param_hint="--context-sample")
    if avg_context is not None and (len(cli_pct) > 1 or context_sample is not None):
        raise typer.BadParameter("give --avg-context with at most one percentile, or a "
                                 "distribution (two percentiles or a sample) without it; the "
                                 "distribution sets the mean", param_hint="--avg-context")
    lengths: LengthDistribution | None = None if cli_pct or context_sample else dep_lengths
    if sample_path is not None:
        lengths = load_sample(sample_path)
    elif percentiles:
        if len(percentiles) == 1 and avg_context is None:
            raise typer.BadParameter("a lognormal needs two percentiles (e.g. --context-p50 and "
                                     "--context-p95), or one with --avg-context",
                                     param_hint="--context-p95")
        if len(percentiles) == 1:
            # the mean of served lengths, capped at the one max context (as a deployment file)
            from kvplan.traffic.lengths import fit_lognormal_mean

            ((level, tokens),) = percentiles.items()
            caps = {r.context_tokens for r in requests}
            cap = caps.pop() if len(caps) == 1 else None
            lengths = fit_lognormal_mean(float(avg_context or 0), level, tokens, cap)
        else:
            lengths = fit_lognormal(percentiles)
    prices, flat_price = parse_prices(price_per_hour or [], prices_file)
    slo = min_tps if min_tps is not None else dep_slo
    traffic = Traffic(
        peak_users=peak,
        lengths=lengths,
        headroom=head,
        min_users=min_users,
        risk=risk if risk is not None else (dep_risk if dep_risk is not None else DEFAULT_RISK),
        bandwidth_efficiency=exact(bandwidth_efficiency),
        flops_efficiency=exact(flops_efficiency),
        min_tokens_per_s_per_user=exact(slo) if slo is not None else None,
        prompt_tokens=prompt_tokens,
    )
    color = use_color() and output is None
    if do_search:
        _search(requests[0], traffic, prices, flat_price, fmt, output, color, search_gpus,
                settings)
        return
    _plan(requests, traffic, prices, flat_price, fmt, output, color, settings)


def _engine_sizer(settings: EngineSettings | None) -> Callable[[SizeRequest], SizeResult]:
    """How a request becomes a KV pool: the plain arithmetic, or the engine's own accounting."""
    if settings is None:
        from kvplan.capacity import size

        return size
    from kvplan.engines import run_engine

    def sizer(req: SizeRequest) -> SizeResult:
        return run_engine(req, settings).size

    return sizer


def _plan(
    requests: list[SizeRequest], traffic: object, prices: dict[str, float],
    flat_price: float | None, fmt: OutputFormat, output: Path | None, color: bool,
    settings: EngineSettings | None = None,
) -> None:
    from kvplan.capacity import advise
    from kvplan.render.records import traffic_detail, traffic_record
    from kvplan.traffic import Traffic, plan_traffic
    from kvplan.traffic.search import price_of

    assert isinstance(traffic, Traffic)
    sizer = _engine_sizer(settings)
    engines: list[EngineResult | None] = [None for _ in requests]
    if settings is not None:  # the engine's pool and its block size, with advice from it
        engines = list(run_all(requests, settings))
        requests = [replace(r, block_size_tokens=e.block_size_tokens)
                    for r, e in zip(requests, engines, strict=True) if e is not None]
    plans = []
    with LazyProgress("planning") as bar:
        for i, req in enumerate(requests):
            price = price_of(req.gpu, prices)
            price = flat_price if flat_price is not None else price
            plans.append(plan_traffic(req, replace(traffic, price_per_hour_usd=price),
                                      sizer=sizer))
            bar.update(i + 1, len(requests))
    if any(not p.size.fits for p in plans):
        catalog, _ = all_hardware()
        plans = [p if p.size.fits else replace(
            p, fleet=replace(p.fleet, size=advise(p.size, catalog, sizer))) for p in plans]
    text = render(
        fmt,
        [traffic_record(p, e) for p, e in zip(plans, engines, strict=True)],
        [traffic_detail(p, e) for p, e in zip(plans, engines, strict=True)],
        width=terminal_width(),
        color=color,
    )
    emit(text, output)


def _search(
    base: SizeRequest, traffic: object, prices: dict[str, float], flat_price: float | None,
    fmt: OutputFormat, output: Path | None, color: bool, only: str | None = None,
    settings: EngineSettings | None = None,
) -> None:
    from kvplan.render.records import search_record
    from kvplan.traffic import Traffic
    from kvplan.traffic.search import search

    assert isinstance(traffic, Traffic)
    if only:
        catalog = [load_hardware(g) for g in split_list(only, "GPUs")]
    else:
        catalog, _ = all_hardware()
    if flat_price is not None:
        raise typer.BadParameter("with --search give prices per GPU: --price-per-hour GPU=USD",
                                 param_hint="--price-per-hour")
    with LazyProgress("searching") as bar:
        result = search(base, traffic, catalog, prices, progress=bar.update,
                        sizer=_engine_sizer(settings))
    records = [search_record(r) for r in result.rows]
    notes = []
    if result.unpriced_gpus:
        notes.append("unpriced (no price in the spec or given): " + ", ".join(result.unpriced_gpus)
                     + "; add --price-per-hour GPU=USD or --prices FILE")
    notes.append(f"{result.tried} configurations tried, {len(result.rejected)} cannot carry "
                 f"{traffic.required_users:,} conversations"
                 + (" at the SLO" if traffic.min_tokens_per_s_per_user else ""))
    notes.append("KV pool derived from each GPU (memory x utilization - weights - reserve)")
    if fmt is OutputFormat.json:
        payload = {"rows": records, "unpriced_gpus": result.unpriced_gpus,
                   "rejected": [{"gpu": r.gpu.name, "tp": r.tp, "kv_dtype": r.kv_dtype.value,
                                 "reason": why} for r, why in result.rejected]}
        emit(json.dumps(payload, indent=2) + "\n", output)
    elif fmt is OutputFormat.csv:
        from kvplan.render import csvfmt

        emit(csvfmt.render(records), output)
    else:
        from kvplan.render.table import render_search

        title = (f"{base.model.name}: {traffic.required_users:,} conversations, cheapest first")
        if not records:
            notes.insert(0, "no configuration carries the load")
        emit(title + "\n" + render_search(records, notes, terminal_width(), color), output)

