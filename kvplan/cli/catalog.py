"""`kvplan models` and `kvplan gpus`: the catalogs, with per-token bytes and memory."""

from __future__ import annotations

from typing import Any

from kvplan.capacity.kv import Allocation, Precision, stage_caches
from kvplan.cli.common import FormatOpt, OutputOpt, cli_errors, emit, terminal_width, use_color
from kvplan.errors import InputError
from kvplan.render import OutputFormat
from kvplan.specs import all_hardware, all_models
from kvplan.specs.schema import HardwareSpec, ModelSpec
from kvplan.units import DType, fmt_bytes, fmt_int

_ = Allocation  # re-exported for symmetry with size


def model_record(m: ModelSpec) -> dict[str, Any]:
    stage = stage_caches(m, Precision(DType.fp16), tp=1, pp=1)[0]
    return {
        "name": m.name,
        "hf_id": m.hf_id,
        "model_type": m.model_type,
        "attention": m.attention_kind,
        "num_layers": m.num_layers,
        "kv_bytes_per_token_fp16": stage.bytes_per_token,
        "kv_bytes_per_token_beyond_window_fp16": stage.full_bytes_per_token,
        "state_bytes_per_sequence": stage.state_bytes_per_sequence,
        "sliding_window_tokens": m.attention.sliding_window_tokens,
        "max_context_tokens": m.max_context_tokens,
        "params_total": m.params_total,
        "params_active": m.params_active,
        "params_estimated": m.params_estimated,
        "weight_dtype": m.weight_dtype.value,
        "source": m.source,
    }


def gpu_record(g: HardwareSpec) -> dict[str, Any]:
    return {
        "name": g.name,
        "aliases": ",".join(g.aliases),
        "vendor": g.vendor,
        "label": g.label,
        "memory_bytes": g.memory_bytes,
        "nvidia_smi_mib": g.nvidia_smi_mib,
        "nvidia_smi_source": g.nvidia_smi_source,
        "memory_bandwidth_bytes_per_s": g.memory_bandwidth_bytes_per_s,
        "bf16_dense_flops": g.bf16_dense_flops,
        "fp8_supported": g.fp8_supported,
        "price_per_hour_usd": g.price_per_hour_usd,
        "price_source": g.price_source,
        "memory_source": g.memory_source,
        "source": g.source,
    }


def _table(title: str, columns: list[str], rows: list[list[str]]) -> str:
    from rich import box
    from rich.table import Table

    from kvplan.render.table import to_string

    t = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, title_justify="left")
    for i, c in enumerate(columns):
        t.add_column(c, justify="left" if i < 2 else "right", no_wrap=i == 0)
    for r in rows:
        t.add_row(*r)
    return to_string([t], width=terminal_width(), color=use_color())


def _emit(records: list[dict[str, Any]], fmt: OutputFormat, table: str, output: Any) -> None:
    if fmt is OutputFormat.json:  # always a list, whatever its length
        import json

        emit(json.dumps(records, indent=2) + "\n", output)
    elif fmt is OutputFormat.csv:
        from kvplan.render import csvfmt

        emit(csvfmt.render(records), output)
    else:
        emit(table, output)


def _report(errors: list[InputError]) -> None:
    import typer

    for err in errors:
        typer.echo(f"error: {err}", err=True)


@cli_errors
def models_command(fmt: FormatOpt = OutputFormat.table, output: OutputOpt = None) -> None:
    """The model catalog: attention kind, fp16 KV bytes per token, context, parameters."""
    specs, errors = all_models()
    records = [model_record(m) for m in specs]
    rows = [
        [
            r["name"],
            r["attention"],
            fmt_int(r["kv_bytes_per_token_fp16"]),
            fmt_int(r["max_context_tokens"]),
            f"{r['params_total'] / 1e9:.1f}B",
        ]
        for r in records
    ]
    table = _table(
        f"{len(records)} models (KV bytes per token in fp16, one GPU)",
        ["model", "attention", "KV B/token", "context", "params"],
        rows,
    )
    _emit(records, fmt, table, output)
    _finish(errors)


@cli_errors
def gpus_command(fmt: FormatOpt = OutputFormat.table, output: OutputOpt = None) -> None:
    """The GPU catalog: memory as the runtime reports it, bandwidth, BF16 FLOP/s."""
    specs, errors = all_hardware()
    records = [gpu_record(g) for g in specs]
    rows = [
        [
            r["name"],
            r["aliases"],
            fmt_bytes(r["memory_bytes"]),
            f"{r['memory_bandwidth_bytes_per_s'] / 1e12:.2f} TB/s",
            f"{r['bf16_dense_flops'] / 1e12:.0f} TF" if r["bf16_dense_flops"] else "n/a",
            "yes" if r["fp8_supported"] else "no",
        ]
        for r in records
    ]
    table = _table(
        f"{len(records)} GPUs (memory as the runtime reports it)",
        ["gpu", "aliases", "memory", "bandwidth", "bf16", "fp8"],
        rows,
    )
    _emit(records, fmt, table, output)
    _finish(errors)


def _finish(errors: list[Any]) -> None:
    """Broken files are reported after the good ones, and the exit code says so."""
    if errors:
        import typer

        _report(errors)
        raise typer.Exit(code=2)
