"""How `kvplan explain` prints: the record field by field, then each step with its formula."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kvplan.units import fmt_bytes, fmt_int

if TYPE_CHECKING:
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



def _hanging(mark: str, text: str, style: str = "") -> Any:
    """`mark text` with every wrapped line of `text` under its first word (a hanging indent):
    an 80-column formula or assumption used to wrap back to the left margin."""
    from rich.table import Table

    grid = Table.grid(padding=(0, 1, 0, 0))
    grid.add_column(no_wrap=True, style=style)
    grid.add_column(ratio=1, style=style, overflow="fold")  # a long source path folds, not cut
    grid.add_row(mark, text)
    return grid

def render_text(
    results: list[EngineResult], width: int, color: bool,
    records: list[list[tuple[str, Any, str]]], fleet: list[list[str]],
) -> str:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from kvplan.render.table import to_string

    parts: list[Any] = []
    for r, fields, arithmetic in zip(results, records, fleet, strict=True):
        parts.append(Text("The record (field, value, where it came from)", style="bold"))
        rt = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1, 0, 0))
        # a field name is never broken, nor a value that fits in 32 columns (a model id): the
        # origin's words wrap instead (task h90review)
        rt.add_column("field", no_wrap=True)
        rt.add_column("value", overflow="fold",
                      min_width=min(32, max(len(str(v)) for _, v, _ in fields)))
        rt.add_column("from", overflow="fold")
        for key, value, origin in fields:
            rt.add_row(key, str(value), origin)
        parts.append(rt)
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
                t.add_row("", _hanging("  =", s.formula, "dim"), "", "")
        parts.append(t)
        if r.log_lines:
            parts.append(Text(f"{r.engine.value} would print:\n" + "\n".join(
                f"  {line}" for line in r.log_lines)))
        if r.assumptions:
            parts.append(Text("Assumptions", style="bold"))
            parts.extend(_hanging("  -", a) for a in r.assumptions)
        verdict = "starts" if r.starts else f"does not start: {r.reason}"
        parts.append(Text(f"{r.engine.value} {verdict}; largest max_model_len that starts: "
                          f"{fmt_int(r.max_model_len_that_starts)}"))
        from kvplan.plan.planner import step_problems

        problems = step_problems(r)
        if problems:  # pragma: no cover - a bug in a profile; shown rather than hidden
            parts.append(Text("arithmetic check FAILED: " + "; ".join(problems), style="red"))
        if arithmetic:
            parts.append(Text("The fleet", style="bold"))
            parts.append(Text("\n".join(f"  {line}" for line in arithmetic)))
        parts.append(Text(""))
    return to_string(parts, width=width, color=color)
