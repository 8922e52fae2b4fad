"""`kvplan size --measure`: its options, which of size's options it takes, and the run.

torch and transformers are imported only inside `run_measure`; the options are refused
without --measure (each named), and size's other options are refused with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from kvplan.cli import sections as s
from kvplan.cli.common import debug_enabled, emit, terminal_width, use_color
from kvplan.cli.values import int_list, non_negative, positive
from kvplan.render import OutputFormat
from kvplan.units import gib_to_bytes

MeasureOpt = Annotated[
    bool,
    typer.Option("--measure", rich_help_panel=s.MEASURE,
                 help="build the model with random weights on --device and check "
                 "the prediction against a real cached decode (needs torch and transformers)"),
]
DeviceOpt = Annotated[str | None, typer.Option(
    "--device", show_default=False, rich_help_panel=s.MEASURE,
    help="--measure on cuda, cuda:N or cpu [default: cuda]")]
ToleranceOpt = Annotated[
    float | None,
    typer.Option("--tolerance", metavar="PERCENT", callback=non_negative, show_default=False,
                 rich_help_panel=s.MEASURE,
                 help="--measure: largest error in percent before exit code 1 [default: 10]"),
]
TimeLimitOpt = Annotated[
    float | None,
    typer.Option("--time-limit", metavar="SECONDS", callback=positive, show_default=False,
                 rich_help_panel=s.MEASURE,
                 help="--measure: seconds from the run's start, the model's build included, "
                      "after which no new search or timing starts [default: 120]"),
]
LayersOpt = Annotated[
    int | None,
    typer.Option("--layers", metavar="N", rich_help_panel=s.MEASURE,
                 help="--measure: build only the first N layers", min=1),
]
TOLERANCE_PCT, TIME_LIMIT_S, DEVICE = 10.0, 120.0, "cuda"  # --measure's defaults
OWN = ("layers", "device", "tolerance", "time_limit")  # options of --measure alone
_RENAMED = {"save_to": "--save"}  # parameters not named as their option
_MEASURED = {"target", "gpu", "context", "kv_budget_gib", "fmt", "output", "measure", *OWN}


def refuse_without_measure(params: dict[str, Any]) -> None:
    """--layers, --device, --tolerance and --time-limit given without --measure: refused."""
    given = [f"--{k.replace('_', '-')}" for k in OWN if params.get(k) is not None]
    if given:
        raise typer.BadParameter(f"{', '.join(given)} appl{'ies' if len(given) == 1 else 'y'} "
                                 "only with --measure")


def measure_command(params: dict[str, Any]) -> None:
    """size's parameters with --measure: anything but a model, one GPU, one context and a
    budget is refused, then the model is measured."""
    from kvplan.plan.record import is_deployment_target

    values = {k: v for k, v in params.items() if v is not None and v is not False}
    given = [_RENAMED.get(k, f"--{k.replace('_', '-')}") for k in values if k not in _MEASURED]
    target = params["target"]
    if given or is_deployment_target(target):
        raise typer.BadParameter(
            f"{', '.join(given) or target}: --measure builds one model on one device, the "
            "cache in the weights' dtype, and checks both allocations; give a model and "
            "at most --gpu, --context and --kv-budget-gib")
    p = {k: params.get(k) for k in ("device", "tolerance", "time_limit")}
    run_measure(target, params["gpu"], params["context"], params["kv_budget_gib"],
                p["device"] or DEVICE, TOLERANCE_PCT if p["tolerance"] is None else p["tolerance"],
                TIME_LIMIT_S if p["time_limit"] is None else p["time_limit"], params["layers"],
                params["fmt"], params["output"])


def run_measure(
    model: str, gpu: str | None, context: str | None, kv_budget_gib: float | None, device: str,
    tolerance: float, time_limit: float, layers: int | None, fmt: OutputFormat,
    output: Path | None,
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
