"""`kvplan explain`: the arithmetic of `size`, step by step, with every number and its unit."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import TYPE_CHECKING, Any

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
)
from kvplan.errors import KvplanError
from kvplan.render import OutputFormat
from kvplan.units import fmt_bytes, fmt_int

if TYPE_CHECKING:  # the engine profiles load when explain runs, not on every kvplan start
    from kvplan.engines import EngineResult, Step


def format_value(step: Step) -> str:
    """A step's value for people: bytes with binary units, counts with separators."""
    v = Fraction(step.value)
    if step.unit == "bytes":
        n = int(v)
        return f"{fmt_bytes(n)} ({fmt_int(n)} B)"
    if step.unit == "ratio" or v.denominator != 1:
        return f"{float(v):.4g}"
    return fmt_int(int(v))


def step_record(step: Step) -> dict[str, Any]:
    v = Fraction(step.value)
    return {
        "label": step.label,
        "value": int(v) if v.denominator == 1 else float(v),
        "unit": step.unit,
        "formula": step.formula,
        "op": step.op,
        "args": [a if isinstance(a, str) else float(a) for a in step.args],
    }


def render_text(results: list[EngineResult], width: int, color: bool) -> str:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from kvplan.render.table import to_string

    parts: list[Any] = []
    for r in results:
        q = r.size.request
        parts.append(Text(
            f"{q.model.name} on {q.gpu.name}, {r.engine.value} {r.engine_version}: "
            f"{q.kv_dtype.value} cache, TP {q.tp} x PP {q.pp}, max_model_len "
            f"{fmt_int(q.context_tokens)}", style="bold"))
        t = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1, 0, 0))
        wide = width >= 110  # narrow terminals get the formula on its own line under the step
        t.add_column("#", justify="right", no_wrap=True)
        t.add_column("step" if wide else "step / how", no_wrap=wide, ratio=None if wide else 1)
        t.add_column("value", justify="right", no_wrap=True)
        t.add_column("unit", no_wrap=True)
        if wide:
            t.add_column("how")
        for i, s in enumerate(r.steps, start=1):
            if wide:
                t.add_row(str(i), s.label, format_value(s), s.unit, s.formula)
            else:
                t.add_row(str(i), s.label, format_value(s), s.unit)
                t.add_row("", Text(f"  = {s.formula}", style="dim"), "", "")
        parts.append(t)
        if r.log_lines:
            parts.append(Text(f"{r.engine.value} would print:\n" + "\n".join(
                f"  {line}" for line in r.log_lines)))
        verdict = "starts" if r.starts else f"does not start: {r.reason}"
        parts.append(Text(f"{r.engine.value} {verdict}; largest max_model_len that starts: "
                          f"{fmt_int(r.max_model_len_that_starts)}"))
        from kvplan.engines import verify_steps

        problems = verify_steps(r.steps)
        if problems:  # pragma: no cover - a bug in a profile; shown rather than hidden
            parts.append(Text("arithmetic check FAILED: " + "; ".join(problems), style="red"))
        parts.append(Text(""))
    return to_string(parts, width=width, color=color)


@cli_errors
def explain_command(
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
    """Print the sizing arithmetic step by step, from GPU memory to users per GPU."""
    spec = resolve_model(model)
    opts = SizingOptions(
        gpu, context, avg_context, kv_dtype, weight_dtype, allocation, block_size, kv_group_size,
        tp, pp, memory_utilization, reserve_gib, kv_budget_gib, shared_prefix_tokens,
        engine, engine_version, max_num_batched_tokens, max_num_seqs, max_model_len,
    )
    requests = build_requests(spec, opts)
    from kvplan.engines import EngineSettings

    settings = engine_settings(opts) or EngineSettings()
    results = run_all(requests, settings)
    if fmt is OutputFormat.table:
        text = render_text(results, terminal_width(), use_color() and output is None)
    elif fmt is OutputFormat.json:
        text = json.dumps([
            {"model": r.size.request.model.name, "gpu": r.size.request.gpu.name,
             "engine": r.engine.value, "engine_version": r.engine_version,
             "starts": r.starts, "reason": r.reason,
             "steps": [step_record(s) for s in r.steps]}
            for r in results], indent=2) + "\n"
    else:
        raise KvplanError("explain prints a table or json; use --format table or --format json")
    emit(text, output)
