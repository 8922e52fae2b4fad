"""`kvplan calibrate`'s checks of vLLM's CUDA-graph lines against kvplan's graph term (issue #13,
task h43oldgraph).

vLLM's old V1 model runner prints the graphs it samples and its estimate before sizing the pool
(0.22.1 `v1/worker/gpu_model_runner.py` `profile_cudagraph_memory`, :6265-6372):
"Profiling CUDA graph memory: PIECEWISE=5 (largest=16), FULL=4 (largest=8)" (:6279-6286) and
"Estimated CUDA graph memory: 0.35 GiB total" (:6365-6368); kvplan.calibrate.lines_vllm reads
them. Where kvplan books a graph term on the shapes basis (kvplan.engines.vllm_capture: the step
"CUDA graph memory"), the printed estimate is compared with it (no target: the term is an
interval fitted on four logs), and the printed counts with the capture sizes kvplan used, a
note where they disagree (stated capture sizes, PIECEWISE-only fallbacks, LoRA cases: what
vllm_capture does not model).
"""

from __future__ import annotations

import re

from kvplan.calibrate.breakdown import Check, rounding
from kvplan.calibrate.lines import Run
from kvplan.units import GIB

# kvplan.engines.vllm_capture.estimate's wording of the graphs it counted
_BOOKED = re.compile(r"(\d+) graphs \(PIECEWISE (\d+): ([^;]*); FULL decode (\d+): ([^)]*)\)")


def booked_capture(formula: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """((PIECEWISE count, largest), (FULL count, largest)) from the graph step's wording, or
    None where the step holds no capture sizes (measured, or no graphs)."""
    m = _BOOKED.search(formula)
    if not m:
        return None

    def largest(sizes: str) -> int:
        last = sizes.replace(".", " ").replace(",", " ").split()
        return int(last[-1]) if last else 0

    return (int(m[2]), largest(m[3])), (int(m[4]), largest(m[5]))


def graph_checks(run: Run, steps: list[object]) -> tuple[list[Check], list[str]]:
    """The printed estimate against kvplan's booked graph term, and a note for each mode whose
    printed count or largest size differs from the capture sizes kvplan booked."""
    from kvplan.engines.steps import Step

    step = next((s for s in steps if isinstance(s, Step) and s.label == "CUDA graph memory"),
                None)
    v = run.values
    checks: list[Check] = []
    notes: list[str] = []
    if step is None:
        return checks, notes
    booked = booked_capture(step.formula)
    if booked is None:
        return checks, notes
    if "cg_estimate_gib" in v:
        logged = v["cg_estimate_gib"]
        checks.append(Check("shapes", "CUDA graph estimate", logged, float(step.value) / GIB,
                            "GiB", rounding(1, logged), None,
                            "vLLM's printed estimate against kvplan.engines.vllm_capture's term"))
    for (mode, (count, big)) in zip(("piecewise", "full"), booked):
        key = f"cg_{mode}_graphs"
        if key not in v:
            continue
        printed = (int(v[key]), int(v.get(f"cg_{mode}_largest", 0)))
        if printed != (count, big):
            notes.append(f"CUDA graphs: the log prints {mode.upper()}={printed[0]} (largest="
                         f"{printed[1]}), kvplan's capture sizes give {count} (largest={big})"
                         " (kvplan.engines.vllm_capture)")
    return checks, notes
