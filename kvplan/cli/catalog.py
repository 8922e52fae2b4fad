"""`kvplan models` and `kvplan gpus`: the catalogs, searched and filtered, with the names users type.

Both commands take an optional QUERY (a case-insensitive substring) and filters. An empty result
is not an error but is not a success either: the message goes to stderr, json prints `[]`, and
the exit code is 1, as grep does, so a script can tell "nothing matched" (1) from a listing (0)
and from bad input or a broken spec file (2).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Annotated, Any

import typer

from kvplan.capacity.kv import Precision, stage_caches
from kvplan.cli.common import FormatOpt, OutputOpt, cli_errors, emit, terminal_width, use_color
from kvplan.errors import InputError
from kvplan.render import OutputFormat
from kvplan.specs import all_hardware, all_models
from kvplan.specs.schema import HardwareSpec, ModelSpec
from kvplan.units import GIB, DType, fmt_int

NO_MATCH_EXIT = 1  # grep's "nothing selected"; 2 stays for bad input and broken spec files


class AttentionKind(str, Enum):
    """What `--attention` selects, read from the model's attention label."""

    mla = "mla"
    gqa = "gqa"
    mha = "mha"
    mqa = "mqa"
    swa = "swa"  # some or all layers attend over a sliding window
    hybrid = "hybrid"  # linear-attention / state-space layers mixed with attention


QueryArg = Annotated[
    str | None,
    typer.Argument(help="case-insensitive substring of a name, Hugging Face id or alias"),
]


def model_record(m: ModelSpec) -> dict[str, Any]:
    stage = stage_caches(m, Precision(DType.fp16), tp=1, pp=1)[0]
    return {
        "name": m.name,
        "hf_id": m.hf_id,
        "aliases": [{"id": a.id, "source": a.source} for a in m.aliases],
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


def upper_bound(g: HardwareSpec) -> bool:
    """memory_bytes is not a runtime reading but a total the runtime can only fall short of: the
    nvidia-smi total (MiB x 2**20) or a nominal GiB figure. The specs say so in memory_source,
    which starts with "DERIVED" ("DERIVED from a runtime reading" is a reading, in whole MiB)."""
    text = g.memory_source.lstrip().upper()
    return text.startswith("DERIVED") and not text.startswith("DERIVED FROM A RUNTIME READING")


def gpu_record(g: HardwareSpec) -> dict[str, Any]:
    return {
        "name": g.name,
        "aliases": list(g.aliases),
        "vendor": g.vendor,
        "label": g.label,
        "device_names": list(g.device_names),
        "memory_bytes": g.memory_bytes,
        "memory_gib": round(g.memory_bytes / GIB, 2),
        "memory_is_upper_bound": upper_bound(g),
        "nvidia_smi_mib": g.nvidia_smi_mib,
        "nvidia_smi_source": g.nvidia_smi_source,
        "memory_bandwidth_bytes_per_s": g.memory_bandwidth_bytes_per_s,
        "bf16_dense_flops": g.bf16_dense_flops,
        "fp8_supported": g.fp8_supported,
        "unified_memory": g.unified_memory,
        "price_per_hour_usd": g.price_per_hour_usd,
        "price_source": g.price_source,
        "memory_source": g.memory_source,
        "source": g.source,
    }


# ----------------------------------------------------------------------------- filters


def _key(text: str) -> str:
    """Case and `-`/`_` do not matter in a family name: qwen3-moe == qwen3_moe == Qwen3_MoE."""
    return text.strip().lower().replace("-", "_")


def model_families(m: ModelSpec) -> set[str]:
    """The names `--family` accepts for a model: its config's model_type, the first segment of
    its catalog name (qwen2.5, llama, qwen3) and that segment's letters (qwen, gemma, phi)."""
    segment = m.name.split("-")[0]
    letters = segment.rstrip("0123456789.")
    return {_key(k) for k in (m.model_type, segment, letters) if k}


def attention_matches(label: str, kind: AttentionKind) -> bool:
    """`GQA SWA/global` is gqa and swa; `GQA hybrid (linear)` is gqa and hybrid."""
    words = label.lower().replace("/", " ").split()
    if kind is AttentionKind.swa:
        return "swa" in words
    if kind is AttentionKind.hybrid:
        return "hybrid" in words
    return bool(words) and words[0] == kind.value


def model_matches(
    m: ModelSpec, query: str | None, family: str | None, attention: AttentionKind | None
) -> bool:
    if query is not None:
        needle = query.strip().lower()
        names = [m.name, m.hf_id, *(a.id for a in m.aliases)]
        if not any(needle in n.lower() for n in names):
            return False
    if family is not None and _key(family) not in model_families(m):
        return False
    return attention is None or attention_matches(m.attention_kind, attention)


def gpu_matches(g: HardwareSpec, query: str | None, vendor: str | None) -> bool:
    if vendor is not None and g.vendor.lower() != vendor.strip().lower():
        return False
    if query is None:
        return True
    needle = query.strip().lower()
    names = [g.name, g.label, *g.aliases, *g.device_names]
    return any(needle in n.lower() for n in names)


def _describe(query: str | None, **options: str | None) -> str:
    parts = [repr(query)] if query is not None else []
    parts += [f"--{k} {v}" for k, v in options.items() if v is not None]
    return " ".join(parts)


# ----------------------------------------------------------------------------- output


def _wrap(items: list[str], width: int, indent: str) -> list[str]:
    """Comma-separated items wrapped at `width`, never splitting an item."""
    lines: list[str] = []
    line = indent
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if line.strip() and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = indent + piece
        else:
            line = f"{line} {piece}" if line.strip() else indent + piece
    if line.strip():
        lines.append(line)
    return lines


def _render(
    title: str, columns: list[tuple[str, str]], rows: list[list[str]], widths: list[int] | None = None
) -> str:
    """A rich table; each column is (header, justify). Cells may hold several lines. With
    `widths`, every column is exactly that wide and none wraps (the caller has wrapped)."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from kvplan.render.table import to_string

    t = Table(title=escape(title), box=box.SIMPLE_HEAD, pad_edge=False, title_justify="left")
    for i, (header, justify) in enumerate(columns):
        t.add_column(
            header,
            justify=justify,  # type: ignore[arg-type]
            no_wrap=i == 0 or widths is not None,
            width=widths[i] if widths is not None else None,
        )
    for r in rows:
        t.add_row(*(escape(cell) for cell in r))  # a name is text, never rich markup
    return to_string([t], width=terminal_width(), color=use_color())


def _flat(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """CSV has no lists: aliases (and device names) become one `;`-separated cell."""
    out = []
    for r in records:
        row = {}
        for k, v in r.items():
            if isinstance(v, list):
                v = ";".join(item["id"] if isinstance(item, dict) else str(item) for item in v)
            row[k] = v
        out.append(row)
    return out


def _emit(records: list[dict[str, Any]], fmt: OutputFormat, table: str, output: Any) -> None:
    if fmt is OutputFormat.json:  # always a list, whatever its length
        import json

        emit(json.dumps(records, indent=2) + "\n", output)
    elif fmt is OutputFormat.csv:
        from kvplan.render import csvfmt

        emit(csvfmt.render(_flat(records)), output)
    elif records:
        emit(table, output)


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


def models_table(models: list[ModelSpec], title: str) -> str:
    """One row per model, then the Hugging Face ids that resolve to each (hf_id, then aliases)."""
    records = [model_record(m) for m in models]
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
    columns = [("model", "left"), ("attention", "left"), ("KV B/token", "right"),
               ("context", "right"), ("params", "right")]
    text = _render(title, columns, rows)
    width = terminal_width()
    name_w = max(len(m.name) for m in models) + 2
    lines = ["", "Names that resolve to each model (hf_id, aliases):"]
    for m in models:
        ids = [m.hf_id, *(a.id for a in m.aliases)]
        if name_w + 2 + max(len(i) for i in ids) <= width:  # beside the name, hanging indent
            wrapped = _wrap(ids, width, " " * (name_w + 1))
            lines.append(f" {m.name:<{name_w}}" + wrapped[0][name_w + 1:])
            lines.extend(wrapped[1:])
        else:  # an id too long to sit beside the name: all of them on lines below it
            lines.append(f" {m.name}")
            lines.extend(_wrap(ids, width, "   "))
    return text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"


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
    specs, errors = all_models()
    att = attention.value if attention is not None else None
    chosen = [m for m in specs if model_matches(m, query, family, attention)]
    what = f"{len(chosen)} of {len(specs)} models match {_describe(query, family=family, attention=att)}"
    if query is None and family is None and attention is None:
        what = f"{len(specs)} models"
    title = f"{what} (KV bytes per token in fp16, one GPU)" if what.endswith("models") else what
    table = models_table(chosen, title) if chosen else ""
    _emit([model_record(m) for m in chosen], fmt, table, output)
    _finish(errors, len(chosen), f"model matches {_describe(query, family=family, attention=att)}",
            "models", len(specs))


GPU_COLUMNS = [("gpu / aliases", "left"), ("memory", "right"), ("TB/s", "right"),
               ("bf16 TF", "right"), ("fp8", "left"), ("$/h", "right")]


def gpus_table(gpus: list[HardwareSpec], title: str) -> str:
    """Name with every alias under it (wrapped, never cut); memory in GiB over exact bytes.

    The other columns are never wrapped; the name column takes what the terminal leaves, and at
    least the longest name or alias, so an alias is never split."""
    cells = [
        [
            f"{g.memory_bytes / GIB:.2f} GiB{'*' if upper_bound(g) else ''}\n{fmt_int(g.memory_bytes)}",
            f"{g.memory_bandwidth_bytes_per_s / 1e12:.2f}",
            f"{g.bf16_dense_flops / 1e12:.0f}" if g.bf16_dense_flops else "n/a",
            "yes" if g.fp8_supported else "no",
            f"{g.price_per_hour_usd:.2f}" if g.price_per_hour_usd is not None else "-",
        ]
        for g in gpus
    ]
    widths = [
        max([len(header)] + [len(line) for row in cells for line in row[i].splitlines()])
        for i, (header, _) in enumerate(GPU_COLUMNS[1:])
    ]
    room = terminal_width() - sum(widths) - 3 * (len(GPU_COLUMNS) - 1) - 2  # gaps, edges
    longest = max([len(g.name) for g in gpus] + [len(a) + 3 for g in gpus for a in g.aliases])
    width = max(longest, min(room, 56))
    rows = [
        ["\n".join([g.name, *_wrap(list(g.aliases), width, "  ")]), *row]
        for g, row in zip(gpus, cells, strict=True)
    ]
    text = _render(title, GPU_COLUMNS, rows, widths=[width, *widths])
    if any(upper_bound(g) for g in gpus):
        text += "* upper bound: no runtime reading found; nvidia-smi or nominal total\n"
    return text


@cli_errors
def gpus_command(
    query: QueryArg = None,
    vendor: Annotated[
        str | None, typer.Option("--vendor", help="only this vendor's GPUs: nvidia or amd")
    ] = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
) -> None:
    """The GPU catalog: every name you can pass to --gpu, memory as the runtime reports it (GiB
    and bytes), bandwidth, dense BF16 FLOP/s, FP8 support and an hourly price where one was read."""
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
    table = gpus_table(chosen, f"{what} (memory as the runtime reports it)") if chosen else ""
    _emit([gpu_record(g) for g in chosen], fmt, table, output)
    _finish(errors, len(chosen), f"GPU matches {_describe(query, vendor=vendor)}", "gpus", len(specs))
