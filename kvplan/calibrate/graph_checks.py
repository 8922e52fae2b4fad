"""`kvplan calibrate`'s checks of vLLM's CUDA-graph lines against kvplan's graph term (issue #13,
tasks h43oldgraph and h44graphbase).

vLLM's old V1 model runner prints the graphs it samples and its estimate before sizing the pool
(0.22.1 `v1/worker/gpu_model_runner.py` `profile_cudagraph_memory`, :6265-6370):
"Profiling CUDA graph memory: PIECEWISE=5 (largest=16), FULL=4 (largest=8)" (:6279-6286) and
"Estimated CUDA graph memory: 0.35 GiB total" (:6365-6368); kvplan.calibrate.lines_vllm reads
them. Where kvplan books a graph term on the shapes basis (kvplan.engines.vllm_capture: the step
"CUDA graph memory", a baseline + later graphs x layers), the printed estimate is compared with
the step's value (no target: the term is an interval fitted on a few logs), and the printed
counts with the capture sizes kvplan used, a note where they disagree (PIECEWISE-only fallbacks,
LoRA cases: what vllm_capture does not model). Both come as data: the step's value and the
Capture the profile booked (EngineResult.graph_capture, task h48mend; until then recomputed
here), not explain's wording (task h44graphbase; h43oldgraph parsed the wording).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvplan.calibrate.breakdown import Check, rounding
from kvplan.calibrate.lines import Run
from kvplan.units import GIB

if TYPE_CHECKING:
    from kvplan.engines.vllm_capture import Capture


def graph_checks(run: Run, steps: list[object], cap: Capture) -> tuple[list[Check], list[str]]:
    """The printed estimate against kvplan's booked graph term (the step's value), and a note
    for each mode whose printed count or largest size differs from `cap`; nothing where kvplan
    books no graph term (no step, or 0: Model Runner V2's 0.25-0.28 estimate, no graphs)."""
    from kvplan.engines.steps import Step

    step = next((s for s in steps if isinstance(s, Step) and s.label == "CUDA graph memory"),
                None)
    v = run.values
    checks: list[Check] = []
    notes: list[str] = []
    if step is None or not step.value:
        return checks, notes
    if "cg_estimate_gib" in v:
        logged = v["cg_estimate_gib"]
        checks.append(Check("shapes", "CUDA graph estimate", logged, float(step.value) / GIB,
                            "GiB", rounding(1, logged), None,
                            "vLLM's printed estimate against kvplan.engines.vllm_capture's term"))
    for (mode, (count, big)) in zip(("piecewise", "full"), cap.printed):
        key = f"cg_{mode}_graphs"
        if key not in v:
            continue
        printed = (int(v[key]), int(v.get(f"cg_{mode}_largest", 0)))
        if printed != (count, big):
            notes.append(f"CUDA graphs: the log prints {mode.upper()}={printed[0]} (largest="
                         f"{printed[1]}), kvplan's capture sizes give {count} (largest={big})"
                         " (kvplan.engines.vllm_capture)")
    return checks, notes
