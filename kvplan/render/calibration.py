"""`kvplan calibrate`'s report: one record per checked figure, and the text summary with the
fit / held-out split per engine and model class."""

from __future__ import annotations

from typing import Any


def records(reports: list[Any]) -> list[dict[str, Any]]:
    rows = []
    for rep in reports:
        for c in rep.checks:
            rows.append({
                "run": rep.label, "engine": rep.engine, "engine_version": rep.version,
                "model": rep.model, "basis": c.basis, "quantity": c.quantity, "unit": c.unit,
                "logged": c.logged, "predicted": round(c.predicted, 4),
                "error_pct": round(c.error_pct, 3) if abs(c.error_pct) != float("inf") else None,
                "rounding_pct": round(c.rounding_pct, 3) if c.rounding_pct is not None else None,
                "target_pct": c.target_pct, "ok": c.ok, "note": c.note,
                "log": rep.log, "part": rep.part, "model_class": rep.model_class,
                "compile_cache": rep.compile_cache.state if rep.compile_cache else None,
            })
    return rows


def _num(x: float, unit: str) -> str:
    if unit in ("tokens", "blocks"):
        return f"{x:,.0f}"
    if unit == "bool":
        return "yes" if x else "no"
    return f"{x:,.2f}"


def text_report(reports: list[Any], width: int, color: bool) -> str:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from kvplan.calibrate.compare import summarize
    from kvplan.render.table import to_string

    parts: list[Any] = []
    for rep in reports:
        head = f"{rep.label}: {rep.engine or '?'} {rep.version or ''}"
        if rep.model:
            head += f", model {rep.model}"
        parts.append(Text(head, style="bold"))
        if rep.checks:
            t = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1, 0, 0))
            for col, just in (("basis", "left"), ("quantity", "left"), ("logged", "right"),
                              ("kvplan", "right"), ("error", "right"), ("", "left")):
                t.add_column(col, justify=just, no_wrap=True)  # type: ignore[arg-type]
            for c in rep.checks:
                err = c.error_pct
                err_text = "-" if c.unit == "bool" else (
                    f"{err:+.2f}%" if abs(err) != float("inf") else "inf")
                mark = {True: "ok", False: "MISS", None: ""}[c.ok]
                t.add_row(c.basis, f"{c.quantity} ({c.unit})", _num(c.logged, c.unit),
                          _num(c.predicted, c.unit), err_text, mark)
            parts.append(t)
        for note in rep.notes:
            parts.append(Text(f"  {note}"))
        if rep.compile_cache is not None:
            parts.append(Text(f"  {compile_cache_note(rep.compile_cache)}"))
        for lineno, text in rep.unparsed[:5]:
            parts.append(Text(f"  unparsed line {lineno}: {text[:100]}", style="yellow"))
        if len(rep.unparsed) > 5:
            parts.append(Text(f"  ... and {len(rep.unparsed) - 5} more unparsed lines"))
    s = summarize(reports)

    def med(xs: list[float]) -> str:
        m = s.median(xs)
        return "n/a" if m is None else f"{m:.2f}% (median of {len(xs)})"

    within = sum(1 for x in s.shapes_dense_errors if x <= 5.0)
    bd_ok = sum(1 for x, r in zip(s.breakdown_errors, s.breakdown_rounding, strict=True)
                if x <= max(0.5, r))
    parts.append(Text(
        f"KV memory from the logged breakdown: |error| {med(s.breakdown_errors)}; "
        f"{bd_ok} of {len(s.breakdown_errors)} within 0.5% (or the print rounding)"
        f"\nKV tokens from shapes, dense models: |error| {med(s.shapes_dense_errors)}; "
        f"{within} of {len(s.shapes_dense_errors)} within 5%\n"
        f"KV tokens from shapes, MoE/other: |error| {med(s.shapes_other_errors)}",
        style="bold"))
    parts.append(_split_table(reports))
    misses = misses_by_compile_cache(reports)
    if misses:
        parts.append(Text(misses))
    return to_string(parts, width=width, color=color)


STATE_WORDS = {"cold": "cold", "warm": "warm", "eager": "eager", "unknown": "not stated"}
EXCERPT = 64  # at most this many characters of the deciding line are quoted, cut at a space


def compile_cache_note(cc: Any) -> str:
    """'torch.compile cache: cold (line 57: Compiling a graph for compile range ...)'."""
    text = f"torch.compile cache: {STATE_WORDS[cc.state]}"
    if cc.line is not None:
        quoted = cc.text if len(cc.text) <= EXCERPT else (
            cc.text[:EXCERPT + 1].rsplit(" ", 1)[0].rstrip() + " ...")
        text += f" (line {cc.line}: {quoted})"
    elif cc.state == "eager":
        text += " (enforce_eager=True: nothing compiled)"
    return text


def misses_by_compile_cache(reports: list[Any]) -> str:
    """'vLLM dense held-out runs beyond 5%: N (cold compile C: 440, ...; warm W; eager E; not
    stated U); the planner assumes ...': the misses sorted by their logs' torch.compile cache
    state (the runs named for every state but not stated); empty where no such run misses (a
    folder outside SPLIT.tsv has no held-out part)."""
    from kvplan.calibrate.compare import held_out_dense_misses

    by_state = held_out_dense_misses(reports)
    words = {"cold": "cold compile", "warm": "warm", "eager": "eager", "unknown": "not stated"}
    cells = []
    for state, names in by_state.items():
        cell = f"{words[state]} {len(names)}"
        if names and state != "unknown":
            cell += ": " + ", ".join(names)
        cells.append(cell)
    total = sum(len(names) for names in by_state.values())
    if not total:
        return ""
    return (f"vLLM dense held-out runs beyond 5%: {total} ({'; '.join(cells)}); the planner "
            "assumes a warm cache (docs/engines-findings.md, task h48cold)")


TARGETS = {("vllm", "dense"): "2% (each 5%)", ("vllm", "moe/mla/multimodal"): "5%",
           ("sglang", "dense"): "3%", ("trtllm", "dense"): "3%",
           ("sglang", "moe/mla/multimodal"): "3%", ("trtllm", "moe/mla/multimodal"): "3%"}


def split_summary(reports: list[Any]) -> list[dict[str, Any]]:
    """Median and worst |error| in KV tokens (shapes only) per engine, class and part."""
    from kvplan.calibrate.compare import split_rows
    from kvplan.calibrate.split import group

    return [{"engine": c.engine, "model_class": c.model_class, "part": c.part,
             "runs": len(c.errors), "median_abs_error_pct": round(c.median, 2),
             "worst_abs_error_pct": round(c.worst, 2),
             "target_median": TARGETS.get((c.engine, c.model_class))}
            for c in group(split_rows(reports))]


def _split_table(reports: list[Any]) -> Any:
    from rich import box
    from rich.table import Table

    t = Table(title="KV tokens from shapes only, |error| by engine, class and part (SPLIT.tsv)",
              box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1, 0, 0), title_justify="left")
    for col in ("engine", "class", "part", "runs", "median", "worst", "target"):
        t.add_column(col, justify="left" if col in ("engine", "class", "part", "target")
                     else "right", no_wrap=True)
    for row in split_summary(reports):
        t.add_row(row["engine"], row["model_class"], row["part"], str(row["runs"]),
                  f"{row['median_abs_error_pct']:.2f}%", f"{row['worst_abs_error_pct']:.2f}%",
                  row["target_median"] or "")
    return t
