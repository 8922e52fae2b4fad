"""The catalogs as records, filters and tables: what `kvplan models` and `kvplan gpus` print."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any

from kvplan.units import GIB, DType, fmt_int

if TYPE_CHECKING:  # `kvplan --help` imports this module for AttentionKind: no specs, no pydantic
    from kvplan.specs.schema import HardwareSpec, ModelSpec


class AttentionKind(str, Enum):
    """What `--attention` selects, read from the model's attention label."""

    mla = "mla"
    gqa = "gqa"
    mha = "mha"
    mqa = "mqa"
    swa = "swa"  # some or all layers attend over a sliding window
    hybrid = "hybrid"  # linear-attention / state-space layers mixed with attention


def model_record(m: ModelSpec) -> dict[str, Any]:
    from kvplan.capacity.kv import Precision, stage_caches

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
        "compute_capability": g.compute_capability,
        "compute_capability_source": g.compute_capability_source,
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
    title: str, columns: list[tuple[str, str]], rows: list[list[str]], widths: list[int] | None = None,
    term_width: int = 80, color: bool = False,
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
    return to_string([t], width=term_width, color=color)


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




def models_table(models: list[ModelSpec], title: str, width: int = 80, color: bool = False) -> str:
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
    text = _render(title, columns, rows, term_width=width, color=color)
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


GPU_COLUMNS = [("gpu / aliases", "left"), ("memory", "right"), ("TB/s", "right"),
               ("bf16 TF", "right"), ("fp8", "left"), ("$/h", "right")]


def gpus_table(gpus: list[HardwareSpec], title: str, term_width: int = 80, color: bool = False) -> str:
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
    room = term_width - sum(widths) - 3 * (len(GPU_COLUMNS) - 1) - 2  # gaps, edges
    longest = max([len(g.name) for g in gpus] + [len(a) + 3 for g in gpus for a in g.aliases])
    width = max(longest, min(room, 56))
    rows = [
        ["\n".join([g.name, *_wrap(list(g.aliases), width, "  ")]), *row]
        for g, row in zip(gpus, cells, strict=True)
    ]
    text = _render(title, GPU_COLUMNS, rows, widths=[width, *widths], term_width=term_width, color=color)
    if any(upper_bound(g) for g in gpus):
        text += "* upper bound: no runtime reading found; nvidia-smi or nominal total\n"
    return text


