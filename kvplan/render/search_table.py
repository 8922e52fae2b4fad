"""`fleet --search`'s table: the ranked configurations, cheapest first, then the notes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from kvplan.render.table import _num, to_string
from kvplan.units import fmt_int


def render_search(
    records: list[dict[str, Any]], notes: Sequence[str], width: int = 80, color: bool = False
) -> str:
    """`fleet --search`: the ranked configurations, cheapest first, then the unpriced."""
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, padding=(0, 1, 0, 0))
    for col, justify in (
        ("#", "right"), ("GPU", "left"), ("TP", "right"), ("KV", "left"),
        ("users/GPU", "right"), ("bound", "left"), ("GPUs", "right"), ("tok/s/user", "right"),
        ("$/h", "right"),
    ):
        # numbers keep their width; a long GPU name folds onto a second line instead
        t.add_column(col, justify=justify, no_wrap=col != "GPU",  # type: ignore[arg-type]
                     min_width=len(col) if col != "GPU" else 6,
                     overflow="fold" if col == "GPU" else "ellipsis")
    for r in records:
        t.add_row(
            str(r["rank"]) if r["rank"] is not None else "-",
            r["gpu"], str(r["tp"]), r["kv_dtype"], _num(r["users_per_gpu_planned"]),
            r["binding_constraint"], fmt_int(r["gpus_needed"]),
            f"{r['decode_tokens_per_s_per_user']:,.1f}"
            if r["decode_tokens_per_s_per_user"] is not None else "-",
            f"{r['cost_per_hour_usd']:,.2f}" if r["cost_per_hour_usd"] is not None else "unpriced",
        )
    from kvplan.render.narrow import fit

    out: list[RenderableType] = fit(t, width)  # narrower than the table: each row as pairs
    out += [Padding(Text(ln[2:]), (0, 0, 0, 2)) if ln.startswith("  ") else Text(ln)
            for n in notes for ln in n.split("\n")]  # an item's wrapped lines stay indented
    return to_string(out, width=width, color=color)
