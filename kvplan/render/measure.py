"""`size --measure` output: one record per figure (JSON, CSV) and a predicted/measured table."""

from __future__ import annotations

import json
from typing import Any

from kvplan.measure.compare import Check, Figure, MeasureReport
from kvplan.render import OutputFormat


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def figure_record(report: MeasureReport, f: Figure) -> dict[str, Any]:
    """One figure, flat: the single source for CSV columns, JSON figure keys and table cells."""
    ok = f.passes(report.tolerance_pct)
    return {
        "model": report.model,
        "device": report.device,
        "figure": f.key,
        "label": f.label,
        "unit": f.unit,
        "predicted": f.predicted,
        "measured": f.measured,
        "error_pct": _round(f.error_pct),
        "check": f.check.value,
        "within_tolerance": ok,
        "note": f.note,
    }


def run_record(report: MeasureReport) -> dict[str, Any]:
    """The run's context: what was measured where, with which libraries, and the verdict."""
    return {
        "model": report.model,
        "device": report.device,
        "device_name": report.device_name,
        "hardware": report.hardware,
        "versions": report.versions,
        "weight_dtype": report.weight_dtype,
        "num_layers": report.num_layers,
        "context_tokens": report.context_tokens,
        "kv_budget_bytes": report.kv_budget_bytes,
        "kv_budget_source": report.budget_source,
        "tolerance_pct": report.tolerance_pct,
        "passed": report.passed,
        "failed_figures": [f.key for f in report.failures],
        "elapsed_s": report.elapsed_s,
        "notes": report.notes,
        "errors": report.errors,
    }


def _cell(value: float | int | None, unit: str) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.1f}" if abs(value) >= 100 else f"{value:,.3g}"


def _verdict(rec: dict[str, Any]) -> str:
    ok = rec["within_tolerance"]
    if ok is None:
        return ""
    if rec["check"] == Check.at_most.value:
        return "ok (bound)" if ok else "OVER"
    return "ok" if ok else "MISS"


def table(report: MeasureReport, width: int = 80, color: bool = False) -> str:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from kvplan.render.table import to_string

    hw = report.hardware or "no hardware spec"
    libs = " · ".join(f"{k} {v}" for k, v in report.versions.items())
    head = Text(
        f"{report.model} measured on {report.device} ({report.device_name}; {hw})\n"
        f"{report.num_layers} layers · {report.weight_dtype} weights and cache · context "
        f"{report.context_tokens:,} tokens · KV budget {report.kv_budget_bytes:,} B "
        f"({report.budget_source})\n{libs}",
        style="bold",
    )
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, padding=(0, 1, 0, 0))
    t.add_column("figure", no_wrap=False)
    t.add_column("unit", no_wrap=True)
    for col in ("predicted", "measured", "error"):
        t.add_column(col, justify="right", no_wrap=True)
    t.add_column("", no_wrap=True)
    records = [figure_record(report, f) for f in report.figures]
    for r in records:
        err = "" if r["error_pct"] is None else f"{r['error_pct']:+.2f}%"
        t.add_row(r["label"], r["unit"], _cell(r["predicted"], r["unit"]),
                  _cell(r["measured"], r["unit"]), err, _verdict(r))
    out: list[Any] = [head, t]
    for r in records:
        if r["note"]:
            out.append(Text(f"{r['label'].strip()}: {r['note']}", style="dim"))
    for note in report.notes:
        out.append(Text(f"note: {note}", style="dim"))
    for error in report.errors:
        out.append(Text(f"error: {error}", style="bold red"))
    if report.passed:
        out.append(Text(f"PASS: every checked figure within ±{report.tolerance_pct:g}% "
                        f"({report.elapsed_s:g} s)", style="bold green"))
    elif report.failures:
        missed = ", ".join(f.key for f in report.failures)
        out.append(Text(f"FAIL: beyond ±{report.tolerance_pct:g}%: {missed}", style="bold red"))
    else:
        out.append(Text(f"FAIL: {len(report.errors)} measurement(s) broke off", style="bold red"))
    return to_string(out, width=width, color=color)


def render(fmt: OutputFormat, report: MeasureReport, width: int = 80, color: bool = False) -> str:
    """JSON: the run plus its figures; CSV: one flat row per figure; table for people."""
    if fmt is OutputFormat.json:
        payload = run_record(report)
        payload["figures"] = [figure_record(report, f) for f in report.figures]
        return json.dumps(payload, indent=2) + "\n"
    if fmt is OutputFormat.csv:
        from kvplan.render import csvfmt

        return csvfmt.render([figure_record(report, f) for f in report.figures])
    return table(report, width=width, color=color)
