"""The GPU total a vLLM log's CUDA-graph suggestion line admits (issue #13, task h36fp8tp).

vLLM 0.19 and later print the CUDA-graph memory they estimate and the utilization that would
keep the pool the same once the estimate is subtracted (0.19.0 `v1/worker/gpu_worker.py:448-470`:
`suggested = round(util + estimate / total, 4)`, capped at 1.0; `total` is the start-up
snapshot's `cudaMemGetInfo` total, `utils/mem_utils.py:104`, the same total `request_memory`
multiplies by the utilization, `v1/worker/utils.py:408-409`). The estimate is printed to 0.01
GiB (`gpu_model_runner.py:5955-5957`) and the utilizations to 0.0001, so

    total in [(estimate - 0.005) / (S - U + 0.00005), (estimate + 0.005) / (S - U - 0.00005)].

A catalog total is a measurement on one machine and driver; where the log's own line excludes
it, kvplan's calibration takes the admitted total nearest the catalog's (the least change the
line forces), and keeps the catalog's where the line admits it. Read in source after log 272's
miss (READ_FROM; FITTED.tsv). A total the log prints, or a `total_gib` directive, is never
replaced (`kvplan.calibrate.resolve.resolve_gpu`).
"""

from __future__ import annotations

from collections.abc import Mapping

from kvplan.specs.schema import HardwareSpec
from kvplan.units import GIB

HALF_CENT_GIB = 0.005  # the estimate's print rounding ("%.2f GiB")
HALF_UTIL_STEP = 0.00005  # the utilizations' print rounding ("%.4f", round(..., 4))
READ_FROM = "vllm 0.19.0 v1/worker/gpu_worker.py:448-470"  # read after log 272 (task h36fp8tp)


def total_bounds(v: Mapping[str, float]) -> tuple[float, float] | None:
    """(low, high) GiB a run's parsed values (kvplan.calibrate.lines_vllm) admit; None without
    both lines, with a suggestion capped at 1.0, or with a step too small to bound anything."""
    if not {"cg_estimate_gib", "cg_util_from", "cg_util_to"} <= v.keys():
        return None
    est, step = v["cg_estimate_gib"], v["cg_util_to"] - v["cg_util_from"]
    if v["cg_util_to"] >= 1.0 or step <= HALF_UTIL_STEP or est <= HALF_CENT_GIB:
        return None
    return ((est - HALF_CENT_GIB) / (step + HALF_UTIL_STEP),
            (est + HALF_CENT_GIB) / (step - HALF_UTIL_STEP))


def within_bounds(gpu: HardwareSpec, v: Mapping[str, float]) -> tuple[HardwareSpec, str | None]:
    """The GPU with its total moved to the nearest the log admits, and a note; unchanged (note
    None) where the log bounds nothing or admits the catalog's total."""
    bounds = total_bounds(v)
    if bounds is None:
        if {"cg_estimate_gib", "cg_util_from", "cg_util_to"} <= v.keys():
            return gpu, ("the log's CUDA-graph suggestion lines bound no total (a suggestion of 1.0 "
                         "or more, or a step or estimate within the print rounding): catalog "
                         "total kept")
        return gpu, None
    low, high = bounds
    total = gpu.memory_bytes / GIB
    if low <= total <= high:
        return gpu, None
    nearest = high if total > high else low
    note = (f"total {nearest:.3f} GiB: the log's CUDA-graph suggestion admits {low:.3f}-"
            f"{high:.3f} GiB, not the catalog's {total:.3f}")
    moved = gpu.model_copy(update={"memory_bytes": int(nearest * GIB),
                                   "memory_source": note + " (kvplan.engines.vllm_total_bound)"})
    return moved, note
