"""Human output: rich tables and a memory bar, rendered to a string at a given width."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from kvplan.render.derivation import pool_derivation
from kvplan.render.narrow import fit
from kvplan.units import fmt_bytes, fmt_int

BAR_PARTS = (
    ("weights_bytes", "weights", "█", "magenta"),
    ("kv_used_bytes", "KV in use", "▓", "green"),
    ("kv_free_bytes", "KV free", "▒", "cyan"),
    ("reserve_bytes", "reserve", "░", "yellow"),
    ("unallocated_bytes", "unallocated", "·", "bright_black"),
)


def memory_bar(parts: dict[str, int], total: int, width: int = 60) -> Text:
    """A proportional bar of one GPU's memory with a legend; each part rounds to whole cells."""
    text = Text()
    positive = {k: max(v, 0) for k, v in parts.items()}
    scale = max(total, sum(positive.values()))  # weights alone can exceed the GPU
    cells = []
    for key, _, _, _ in BAR_PARTS:
        cells.append(round(width * positive.get(key, 0) / scale) if scale else 0)
    drift = width - sum(cells)  # keep the bar exactly `width` wide
    if cells:
        biggest = max(range(len(cells)), key=lambda i: cells[i])
        cells[biggest] += drift
    for (_, _, char, style), n in zip(BAR_PARTS, cells, strict=True):
        text.append(char * max(n, 0), style=style)
    line = 0
    for key, label, char, style in BAR_PARTS:
        value = parts.get(key, 0)
        if value:
            item = f"{label} {fmt_bytes(value)}" if value > 0 else f"over by {fmt_bytes(-value)}"
            if line == 0 or line + len(item) + 4 > width:
                text.append("\n")
                line = 0
            else:
                text.append("  ")
                line += 2
            text.append(f"{char} ", style=style)
            text.append(item)
            line += len(item) + 2
    return text


def _kv(rows: Sequence[tuple[str, str]]) -> Table:
    t = Table(box=None, show_header=False, pad_edge=False, padding=(0, 2, 0, 0))
    t.add_column(style="bold", no_wrap=True)
    t.add_column()
    for k, v in rows:
        t.add_row(k, v)
    return t


def _bytes(n: int) -> str:
    return f"{fmt_bytes(n)} ({fmt_int(n)} B)"


def _title(r: dict[str, Any]) -> str:
    par = f"TP {r['tp']}" + (f" x PP {r['pp']}" if r["pp"] > 1 else "")
    alloc = r["allocation"]
    if alloc == "paged":
        alloc += f" ({r['block_size_tokens']}-token blocks)"
    return (
        f"{r['model']} on {r['gpu']}\n"
        f"{r['kv_dtype']} cache · {alloc} · {par} · max context {fmt_int(r['context_tokens'])}"
    )


BASIS = {"mean": "mean", "at_risk": "at risk", "worst_case": "worst case", "slo": "SLO",
         "max_num_seqs": "sequence cap"}


def _single(r: dict[str, Any], extra: dict[str, Any]) -> list[RenderableType]:
    # with TP or PP the cache figures are one GPU's share, as the weights and the pool are
    per_gpu = " per GPU" if r["gpus_per_replica"] > 1 else ""
    rows = [(f"KV per token{per_gpu}", _bytes(r["kv_bytes_per_token"]))]
    if r["kv_bytes_per_token_beyond_window"] != r["kv_bytes_per_token"]:
        rows.append(("  beyond window", _bytes(r["kv_bytes_per_token_beyond_window"])))
    seq_note = f" at {fmt_int(r['avg_context_tokens'])} tokens"
    rows.append((f"KV per sequence{per_gpu}", _bytes(r["kv_bytes_per_sequence"]) + seq_note))
    if extra.get("state_bytes_per_sequence"):
        rows.append(("  of which state", _bytes(extra["state_bytes_per_sequence"])
                     + " (linear layers, any length)"))
    waste = r["reserved_waste_bytes_per_sequence"]
    if r["allocation"] == "paged" and waste > 0:
        rows.append(("  reserved would add", fmt_bytes(waste) + " each"))
    elif r["allocation"] == "paged" and waste < 0:  # the last block's rounding outweighs it
        rows.append(("  reserved would save", fmt_bytes(-waste) + " each (block rounding)"))
    rows += [
        ("GPU memory", _bytes(r["memory_bytes"])),
        ("Weights per GPU", _bytes(r["weights_bytes"])),
        ("KV pool per GPU", _bytes(r["kv_budget_bytes"]) if r["kv_budget_bytes"] else "none"),
    ]
    if r["shared_prefix_bytes"]:
        rows.append(("  shared prefix", _bytes(r["shared_prefix_bytes"])))
    users = f"{r['users_per_gpu']:,}" if r["fits"] else "0 (does not fit)"
    if r["fits"] and r.get("users_per_gpu_basis"):
        users += f" ({BASIS[r['users_per_gpu_basis']]})"
    rows.append(("Users per GPU", users))
    if r["gpus_per_replica"] > 1:
        rows.append(("Users per replica", f"{fmt_int(r['users_per_replica'])}"
                     f" on {r['gpus_per_replica']} GPUs"))
    if "engine" in r:
        rows += _engine_rows(r)
    if "gpus_needed" in r:
        rows += _fleet_rows(r)
    if "users_per_gpu_at_risk" in r:
        rows += _traffic_rows(r)
    out: list[RenderableType] = [Text(_title(r), style="bold"), _kv(rows)]
    if extra.get("engine_log_lines"):
        out.append(Text(f"{r['engine']} would print:\n" + "\n".join(
            f"  {line}" for line in extra["engine_log_lines"])))
    said = extra.get("assumptions", ())
    unused = [a for a in said if a.endswith("so it is not used")]
    caveats = [a for a in said if "not modelled" in a and a not in unused]
    if caveats:  # a term the engine has and kvplan does not book: never left unsaid
        out.append(_listed("not modelled (kvplan explain lists every assumption):", caveats))
    versions = [a for a in said if a not in caveats
                and ("newer than the newest modelled release" in a or "source was not read" in a
                     or "older than the oldest modelled release" in a)]
    if versions:  # a release kvplan models by another series' rules: said where the number is
        out.append(Text("\n".join(f"note: {v}" for v in versions), style="yellow"))
    if unused:  # a stated setting this plan does not read: never silently
        out.append(_listed("not used:", unused))
    if extra:
        out.append(memory_bar(extra["breakdown"], r["memory_bytes"]))
    derived = pool_derivation(r, any("stated directly" in a for a in said))
    if derived:  # the pool's terms with their values: the bar's legend alone hid them
        out.append(Text(derived, style="bright_black"))
    out += _problems(r, extra)
    return out


def _listed(head: str, items: Sequence[str]) -> Group:
    """A heading and its items, each indented two columns on every line it wraps to (a long
    caveat's second line at the left margin read as a new paragraph)."""
    return Group(Text(head, style="yellow"),
                 *(Padding(Text(item, style="yellow"), (0, 0, 0, 2)) for item in items))


def _engine_rows(r: dict[str, Any]) -> list[tuple[str, str]]:
    """The engine's own numbers, with the activation interval where it is modelled."""
    rows = [("Engine", f"{r['engine']} {r['engine_version']}")]
    act = fmt_bytes(r["activation_bytes"])
    if r["activation_bytes_low"] != r["activation_bytes_high"]:
        act += (f" ({fmt_bytes(r['activation_bytes_low'])} to "
                f"{fmt_bytes(r['activation_bytes_high'])})")
    rows.append(("  activation peak", act))
    tokens = fmt_int(r["kv_cache_tokens"])
    if r["kv_cache_tokens_low"] != r["kv_cache_tokens_high"]:
        tokens += f" ({fmt_int(r['kv_cache_tokens_low'])} to {fmt_int(r['kv_cache_tokens_high'])})"
    rows.append(("  KV cache tokens", tokens))
    rows.append(("  max concurrency", f"{r['max_concurrency']:.2f}x at "
                 f"{fmt_int(r['context_tokens'])} tokens"))
    rows.append(("  starts", "yes" if r["starts"] else
                 f"no (largest max_model_len {fmt_int(r['max_model_len_that_starts'])})"))
    return rows


def _fleet_rows(r: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [("Peak users", fmt_int(r["peak_users"]))]
    head = Fraction(r["headroom_fraction"]).limit_denominator(10**6)
    with_headroom = math.ceil(r["peak_users"] * (1 + head))
    if r["required_users"] > with_headroom:  # a deployment's min_users decides
        rows.append(("  required", f"{fmt_int(r['required_users'])} (min_users)"))
    elif r["headroom_fraction"]:
        rows.append(("  with headroom", f"{fmt_int(r['required_users'])} "
                     f"(+{r['headroom_fraction']:.0%})"))
    if r["replicas"] is None:
        rows.append(("GPUs needed", "none fit (see below)"))
    else:
        rows.append(("Replicas", fmt_int(r["replicas"])))
        rows.append(("GPUs needed", fmt_int(r["gpus_needed"])))
    return rows


def _num(x: int | float) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:,.3f}".rstrip("0").rstrip(".")


def _traffic_rows(r: dict[str, Any]) -> list[tuple[str, str]]:
    """Users per GPU three ways, what bound the plan, decode speed, TTFT and cost."""
    rows = [
        ("Users per GPU by basis", ""),
        ("  mean context", f"{_num(r['users_per_gpu_mean'])} ({_mean_basis(r)})"),
        (f"  at {r['risk']:.2%} risk", f"{_num(r['users_per_gpu_at_risk'])} "
                                      f"({_risk_method(r)})"),
        ("  worst case", f"{_num(r['users_per_gpu_worst_case'])} (every conversation at "
                         f"{fmt_int(r['context_tokens'])} tokens)"),
    ]
    if r["slo_users_per_gpu"] is not None:
        rows.append((f"  SLO {r['min_tokens_per_s_per_user']:g} tok/s",
                     _num(r["slo_users_per_gpu"])))
    rows.append(("  planned", f"{_num(r['users_per_gpu_planned'])} "
                              f"({r['binding_constraint']} binds)"))
    if r["risk_method"] != "point-mass" and r["users_per_gpu_planned"]:
        rows.append(("Overflow at plan", f"{r['overflow_probability']:.4%} per replica"))
    if r["decode_tokens_per_s_per_user"] is not None:
        rows.append(("Decode per user", f"{r['decode_tokens_per_s_per_user']:,.1f} tokens/s "
                     f"(step {r['step_time_s'] * 1000:,.1f} ms, "
                     f"{r['bandwidth_efficiency']:.0%} of peak bandwidth)"))
    if r["ttft_s"] is None:
        rows.append(("TTFT (prefill)", f"n/a: {r['gpu']} has no sourced BF16 FLOP/s"))
    else:
        rows.append(("TTFT (prefill)", f"{r['ttft_s'] * 1000:,.1f} ms for "
                                       f"{fmt_int(r['prompt_tokens'])} prompt tokens"))
    if r["cost_per_hour_usd"] is not None:
        rows.append(("Cost", f"${r['cost_per_hour_usd']:,.2f}/h "
                             f"(${r['price_per_hour_usd']:g} per GPU-hour)"))
    return rows


def _mean_basis(r: dict[str, Any]) -> str:
    if r["allocation"] == "reserved":  # each holds the max context, whatever its length
        held = f"each reserving {fmt_int(r['context_tokens'])} tokens"
        if round(r["context_mean_tokens"]) == r["context_tokens"]:
            return held
        return f"mean {r['context_mean_tokens']:,.0f} tokens, {held}"
    return f"every conversation at {r['context_mean_tokens']:,.0f} tokens"


def _risk_method(r: dict[str, Any]) -> str:
    method = r["risk_method"]
    if method == "normal":
        return f"normal approx., error <= {r['risk_error_bound']:.3g}"
    # until task h100review a reserved cache, or lengths all in one block count, were said to
    # have "no length spread given" where a spread was given
    if method == "point-mass" and r["allocation"] == "reserved":
        return "reserved: lengths do not matter"
    if method == "point-mass" and r["context_distribution"] != "mean":
        return "every length in one block count: certain"
    if method == "point-mass":
        return "no length spread given: as the mean"
    return method


def _problems(r: dict[str, Any], extra: dict[str, Any]) -> list[RenderableType]:
    out: list[RenderableType] = []
    if r["reason"]:
        out.append(Text(f"Does not fit: {r['reason']}", style="bold red"))
    for tip in extra.get("suggestions", []):
        out.append(Text(f"  try {tip}", style="yellow"))
    return out


def _many(records: list[dict[str, Any]], extras: list[dict[str, Any]],
          width: int = 80) -> list[RenderableType]:
    fleet = "gpus_needed" in records[0]
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, padding=(0, 1, 0, 0))
    for col, justify in (
        ("GPU", "left"), ("KV", "left"), ("alloc", "left"), ("TP", "right"),
        ("tokens", "right"), ("KV/seq", "right"), ("pool/GPU", "right"), ("users/GPU", "right"),
    ):
        t.add_column(col, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    engine = "engine" in records[0] and not fleet  # fleet: no room at 80 columns
    if engine:
        t.add_column("KV tok", justify="right", no_wrap=True)
    if fleet:
        t.add_column("GPUs", justify="right", no_wrap=True)
    for r in records:
        ctx = fmt_int(r["avg_context_tokens"])
        row = [
            r["gpu"], r["kv_dtype"], r["allocation"], str(r["tp"]), ctx,
            fmt_bytes(r["kv_bytes_per_sequence"], 1), fmt_bytes(r["kv_budget_bytes"], 1),
            f"{r['users_per_gpu']:,}" if r["fits"] else "-",
        ]
        if engine:
            row.append(f"{r['kv_cache_tokens'] / 1000:,.0f}k" if r["starts"] else "-")
        if fleet:
            row.append(fmt_int(r["gpus_needed"]) if r["gpus_needed"] is not None else "-")
        t.add_row(*row)
    models = sorted({r["model"] for r in records})
    engines = sorted({f"{r['engine']} {r['engine_version']}" for r in records if "engine" in r})
    where = f" ({', '.join(engines)})" if engines else ""
    out: list[RenderableType] = [Text(f"{', '.join(models)}: {len(records)} combinations{where}",
                                      style="bold"), *fit(t, width)]  # narrow: rows as pairs
    if "users_per_gpu_at_risk" in records[0]:
        out += _traffic_grid(records, width)
    for r, extra in zip(records, extras, strict=True):
        if r["reason"]:
            out.append(Text(f"{r['gpu']} {r['kv_dtype']} {r['allocation']} TP {r['tp']}: "
                            f"{r['reason']}", style="red"))
            for tip in extra.get("suggestions", []):
                out.append(Text(f"  try {tip}", style="yellow"))
    return out


def _traffic_grid(records: list[dict[str, Any]], width: int = 80) -> list[RenderableType]:
    """Users per GPU three ways and what bound the plan, one row per combination."""
    r0 = records[0]
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, padding=(0, 1, 0, 0))
    for col, justify in (
        ("GPU", "left"), ("KV", "left"), ("TP", "right"), ("mean", "right"),
        (f"@{r0['risk']:.1%}", "right"), ("worst", "right"), ("plan", "right"),
        ("bound", "left"), ("tok/s/user", "right"), ("GPUs", "right"),
    ):
        t.add_column(col, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for r in records:
        tps = r["decode_tokens_per_s_per_user"]
        t.add_row(
            r["gpu"], r["kv_dtype"], str(r["tp"]), _num(r["users_per_gpu_mean"]),
            _num(r["users_per_gpu_at_risk"]), _num(r["users_per_gpu_worst_case"]),
            _num(r["users_per_gpu_planned"]), r["binding_constraint"],
            f"{tps:,.1f}" if tps is not None else "-",
            fmt_int(r["gpus_needed"]) if r["gpus_needed"] is not None else "-",
        )
    return [Text("Users per GPU: mean context, at the risk, worst case; the plan", style="bold"),
            *fit(t, width)]


def to_string(renderables: Sequence[RenderableType], width: int = 80, color: bool = False) -> str:
    """Render to text; ANSI colour only when asked for (a terminal)."""
    buf = io.StringIO()
    # a height too: without one rich lays a dumb terminal (TERM=dumb) out at 80 columns,
    # whatever the width asked for (rich.console.Console.size; until task srefirst)
    console = Console(
        file=buf, width=width, height=25, force_terminal=color, no_color=not color,
        color_system="standard" if color else None, highlight=False, soft_wrap=False,
    )
    # any table that would cut a cell at this width prints its rows as pairs (task uxfix: explain,
    # models, gpus and calibrate cut numbers to ellipses at 60 columns; size/fleet already did)
    laid: list[RenderableType] = []
    for r in renderables:
        laid += fit(r, width) if isinstance(r, Table) else [r]
    console.print(Group(*laid))
    return "\n".join(line.rstrip() for line in buf.getvalue().splitlines()) + "\n"


def render(
    records: list[dict[str, Any]], extras: list[dict[str, Any]], width: int = 80,
    color: bool = False,
) -> str:
    """The table for `size` and `fleet`: a detailed card for one result, a grid for several."""
    body = _single(records[0], extras[0]) if len(records) == 1 else _many(records, extras, width)
    return to_string(body, width=width, color=color)


def users_bars(series: dict[str, Any], title: str, width: int = 40) -> list[RenderableType]:
    """Users per GPU against tokens per conversation as terminal bars, one block per series."""
    top = max((float(y) for pts in series.values() for _, y in pts), default=0.0) or 1.0
    out: list[RenderableType] = [Text(title, style="bold")]
    t = Table(box=None, show_header=True, pad_edge=False, padding=(0, 1, 0, 0))
    t.add_column("cache", no_wrap=True)
    t.add_column("tokens", justify="right", no_wrap=True)
    t.add_column("users/GPU", justify="right", no_wrap=True)
    t.add_column("", no_wrap=True)
    for label, pts in series.items():
        for i, (x, y) in enumerate(pts):
            cells = round(width * float(y) / top)
            t.add_row(label if i == 0 else "", fmt_int(x), _num(_whole(y)),
                      Text("█" * cells, style="green"))
    out.append(t)
    return out


def _whole(y: Any) -> int | float:
    value = float(y)
    return int(value) if value == int(value) else round(value, 3)


def risk_bars(
    totals: Sequence[int], probs: Sequence[float], pool: int, overflow: float, title: str,
    bins: int = 16, width: int = 40,
) -> list[RenderableType]:
    """The concurrent cache's distribution as terminal bars; bins past the pool in red."""
    lo, hi = totals[0], totals[-1]
    span = max(1, hi - lo)
    mass = [0.0] * bins
    for b, p in zip(totals, probs, strict=True):
        mass[min(bins - 1, (b - lo) * bins // span)] += p
    top = max(mass) or 1.0
    t = Table(box=None, show_header=True, pad_edge=False, padding=(0, 1, 0, 0))
    t.add_column("cache from", justify="right", no_wrap=True)
    t.add_column("P", justify="right", no_wrap=True)
    t.add_column("", no_wrap=True)
    for i, m in enumerate(mass):
        start = lo + span * i // bins
        over = start >= pool
        t.add_row(fmt_bytes(start, 1), f"{m:.2%}",
                  Text("█" * round(width * m / top), style="red" if over else "cyan"))
    return [Text(title, style="bold"), t,
            Text(f"KV pool {fmt_bytes(pool)}: P(overflow) = {overflow:.3%}")]
