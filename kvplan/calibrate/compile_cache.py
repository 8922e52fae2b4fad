"""Whether a vLLM run compiled its model from scratch (a cold torch.compile cache), loaded the
compiled graphs from the cache (warm), ran eager, or does not say: read from the log's own lines.

Why it matters (task h43cold, docs/engines-findings.md "cold and warm torch.compile caches"): vLLM's first
forward pass compiles the model, and that pass is `profile_run`, inside `memory_profiling` (0.27.1
v1/worker/gpu_worker.py:500-504; the peak statistic is reset at vllm/utils/mem_utils.py:291 and
read after it). What a cold compile allocates on the device (Inductor's runtime autotuning of the
kernels it generated, which a warm cache skips with the stored best configs) is in that window. The
classification is reported, not booked: the source gives the window, not the size.

Lines (vLLM's own wording: vllm/compilation/backends.py and decorators.py of each wheel):
- cold: "Compiling a graph for dynamic shape takes" / "for shape %s takes" (0.11.0 backends.py:218,
  221), "Compiling a graph for general shape takes" (0.6.6-0.7), "Compiling a graph for compile range
  %s takes" (0.20.0 :392, 0.27.1 and 0.30.0 :394), "Cache the graph ... for later use" (printed when
  a fresh compile is stored: 0.11.0 :198-200, 0.27.1 :379); a "torch.compile takes/took N s in
  total" line (compilation/monitor.py) with no cache-load line counts as cold too.
- warm: "Directly load the compiled graph(s) for ... from the cache" (0.11.0 :165-169, 0.27.1
  :293), the debug "Directly load the N-th graph" (0.27.1 :255), "Directly load AOT compilation
  from path" (decorators.py: 0.20.0 :306, 0.27.1 :312, 0.30.0 :314), or "loaded from the cache".
- eager: `enforce_eager=True` in the printed engine arguments (or a directive saying so).
A run with both a compile line and a load line compiled at least one graph: cold. A run whose
excerpt kept only the "torch.compile took N s" line is cold by that rule, though a short time (a
few seconds) may be a warm load whose load line was not quoted: docs/engines-findings.md counts
those apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kvplan.calibrate.lines import Handler, Run, pattern

COLD, WARM, EAGER, UNKNOWN = "cold", "warm", "eager", "unknown"

_COLD = r"Compiling a graph for (?:dynamic shape|general shape|compile range|shape)|Cache the graph\b"
_WARM = (r"Directly load (?:the )?(?:compiled graph|\d+-th graph)|Directly load AOT compil"
         r"|loaded from the cache")
_TIMED = r"torch\.compile (?:takes|took) [\d.]+ ?s in total"

# the marks the patterns below leave: the first line (number, text) of each kind of line
_KEYS = {"cold": "compile_cold_line", "warm": "compile_warm_line", "timed": "compile_timed_line"}


def _mark(kind: str) -> Handler:
    def handler(r: Run, m: re.Match[str], n: int, t: str) -> None:
        r.marks.setdefault(_KEYS[kind], (n, t[m.start():].strip()))
    return handler


pattern("vllm", _COLD)(_mark("cold"))
pattern("vllm", _WARM)(_mark("warm"))
pattern("vllm", _TIMED)(_mark("timed"))


def compile_cache_state(run: Run) -> str:
    """cold | warm | eager | unknown for one vLLM run (see the module's docstring)."""
    if run.settings.get("enforce_eager", "").lower() in ("true", "1"):
        return EAGER
    if _KEYS["cold"] in run.marks:
        return COLD
    if _KEYS["warm"] in run.marks:
        return WARM
    if _KEYS["timed"] in run.marks:
        return COLD
    return UNKNOWN


@dataclass(frozen=True)
class CompileCache:
    """A run's state and the line that decided it (none for eager and unknown): what
    `kvplan calibrate` reports beside each vLLM run (task h50coldreport)."""

    state: str  # cold | warm | eager | unknown
    line: int | None = None  # the log file's line number
    text: str | None = None  # that line from the matched words on


def compile_cache_of(run: Run) -> CompileCache:
    """compile_cache_state with its evidence: for cold, the first compile or cache-store line,
    else the timer line; for warm, the first load line."""
    state = compile_cache_state(run)
    key = {COLD: _KEYS["cold"] if _KEYS["cold"] in run.marks else _KEYS["timed"],
           WARM: _KEYS["warm"]}.get(state)
    if key is None:
        return CompileCache(state)
    line, text = run.marks[key]
    return CompileCache(state, line, text)
