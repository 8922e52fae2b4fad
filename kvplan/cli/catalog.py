"""`kvplan models` and `kvplan gpus`: the catalogs, searched and filtered, with the names users type.

Both commands take an optional QUERY (a case-insensitive substring) and filters. An empty result
is not an error but is not a success either: the message goes to stderr, json prints `[]`, and
the exit code is 1, as grep does, so a script can tell "nothing matched" (1) from a listing (0)
and from bad input or a broken spec file (2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer

from kvplan.cli.common import FormatOpt, OutputOpt, cli_errors, emit, terminal_width, use_color
from kvplan.errors import InputError
from kvplan.render import OutputFormat
from kvplan.render.catalog import (
    AttentionKind,
    _describe,
    _flat,
    gpu_matches,
    gpu_record,
    gpus_table,
    model_matches,
    model_record,
    models_table,
)

QueryArg = Annotated[
    str | None,
    typer.Argument(metavar="QUERY", show_default=False,
                   help="case-insensitive substring of a name, Hugging Face id or alias"),
]

GpuQueryArg = Annotated[
    str | None,
    typer.Argument(metavar="QUERY", show_default=False,
                   help="case-insensitive substring of a GPU's name, label, alias or device name"),
]

NO_MATCH_EXIT = 1  # grep's "nothing selected"; 2 stays for bad input and broken spec files


def _emit(records: list[dict[str, Any]], fmt: OutputFormat, table: Callable[[], str],
          output: Any) -> None:
    """json and csv from the records; the table (rich, built only for this format) if any."""
    if fmt is OutputFormat.json:  # always a list, whatever its length
        import json

        emit(json.dumps(records, indent=2) + "\n", output)
    elif fmt is OutputFormat.csv:
        from kvplan.render import csvfmt

        emit(csvfmt.render(_flat(records)), output)
    elif records:
        emit(table(), output)


def _finish(errors: Sequence[InputError], matched: int, what: str, command: str, total: int) -> None:
    """Broken files are reported after the good ones (exit 2); then an empty selection (exit 1)."""
    for err in errors:
        typer.echo(f"error: {err}", err=True)
    if errors:
        raise typer.Exit(code=2)
    if matched == 0:
        typer.echo(f"no {what}; `kvplan {command}` lists all {total}", err=True)
        raise typer.Exit(code=NO_MATCH_EXIT)


# ----------------------------------------------------------------------------- commands

@cli_errors
def models_command(
    query: QueryArg = None,
    family: Annotated[
        str | None,
        typer.Option("--family", help="model_type (qwen3_moe) or name family (qwen, qwen2.5, llama)"),
    ] = None,
    attention: Annotated[
        AttentionKind | None,
        typer.Option("--attention", help="mla, gqa, mha, mqa, swa (sliding window) or hybrid (linear)"),
    ] = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
) -> None:
    """The model catalog: attention kind, fp16 KV bytes per token, context, parameters and the
    Hugging Face ids (hf_id and sourced aliases) that resolve to each model."""
    from kvplan.specs import all_models  # not at import: `kvplan --help` reads no catalog

    specs, errors = all_models()
    att = attention.value if attention is not None else None
    chosen = [m for m in specs if model_matches(m, query, family, attention)]
    what = f"{len(chosen)} of {len(specs)} models match {_describe(query, family=family, attention=att)}"
    if query is None and family is None and attention is None:
        what = f"{len(specs)} models"
    title = f"{what} (KV bytes per token in fp16, one GPU)" if what.endswith("models") else what
    _emit([model_record(m) for m in chosen], fmt,
          lambda: models_table(chosen, title, terminal_width(), use_color()), output)
    _finish(errors, len(chosen), f"model matches {_describe(query, family=family, attention=att)}",
            "models", len(specs))


@cli_errors
def gpus_command(
    query: GpuQueryArg = None,
    vendor: Annotated[
        str | None, typer.Option("--vendor", help="only this vendor's GPUs: nvidia or amd")
    ] = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
) -> None:
    """The GPU catalog: every name you can pass to --gpu, memory as the runtime reports it (GiB
    and bytes), bandwidth, dense BF16 FLOP/s, FP8 support and an hourly price where one was read."""
    from kvplan.specs import all_hardware

    specs, errors = all_hardware()
    vendors = sorted({g.vendor.lower() for g in specs})
    if vendor is not None and vendor.strip().lower() not in vendors:
        raise typer.BadParameter(
            f"unknown vendor {vendor!r}; the catalog has {', '.join(vendors)}", param_hint="--vendor"
        )
    chosen = [g for g in specs if gpu_matches(g, query, vendor)]
    what = f"{len(chosen)} of {len(specs)} GPUs match {_describe(query, vendor=vendor)}"
    if query is None and vendor is None:
        what = f"{len(specs)} GPUs"
    _emit([gpu_record(g) for g in chosen], fmt, lambda: gpus_table(
        chosen, f"{what} (memory as the runtime reports it)", terminal_width(), use_color()),
        output)
    _finish(errors, len(chosen), f"GPU matches {_describe(query, vendor=vendor)}", "gpus", len(specs))

