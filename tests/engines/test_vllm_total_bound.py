"""The GPU total a vLLM log's CUDA-graph suggestion admits (kvplan.engines.vllm_total_bound; issue
#13, task h36fp8tp).

vLLM 0.19.0 prints `round(util + estimate / total, 4)` (v1/worker/gpu_worker.py:448-470) beside
the estimate at "%.2f GiB" (gpu_model_runner.py:5955-5957), so the two lines bound the runtime
total; kvplan's calibration moves a catalog total the bound excludes to the nearest admitted one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kvplan.calibrate.parse import parse_file, parse_text
from kvplan.engines.vllm_total_bound import total_bounds, within_bounds
from kvplan.specs import load_hardware
from kvplan.units import GIB

LOGS = Path(__file__).resolve().parents[1] / "assets" / "logs"
LOG_272 = LOGS / "272-vllm-qwen2.5-72b-tp4-l40s-8k-v0.19.0.log"


def test_log_272s_lines_bound_the_l40s_below_the_catalog() -> None:
    """272 prints "Estimated CUDA graph memory: 2.73 GiB total" and "increase
    --gpu-memory-utilization from 0.9000 to 0.9616": estimate / total is 0.0616 +/- 0.00005 and
    the estimate 2.73 +/- 0.005 GiB, so the total is 2.725 / 0.06165 = 44.2011 GiB to
    2.735 / 0.06155 = 44.4354 GiB; the catalog's L40S, 47,803,596,800 B = 44.5206 GiB (deviceQuery
    under driver 550), is above it, so it moves to the top: int(44.4354 x 2^30) B."""
    values = parse_file(LOG_272).runs[0].values
    assert values["cg_estimate_gib"] == 2.73
    assert (values["cg_util_from"], values["cg_util_to"]) == (0.9, 0.9616)
    low, high = total_bounds(values) or (0.0, 0.0)
    assert low == pytest.approx(2.725 / 0.06165, rel=1e-9)
    assert high == pytest.approx(2.735 / 0.06155, rel=1e-9)
    assert (low, high) == pytest.approx((44.2011, 44.4354), abs=1e-4)
    l40s = load_hardware("l40s")
    assert l40s.memory_bytes == 47_803_596_800
    moved, note = within_bounds(l40s, values)
    assert moved.memory_bytes == int(2.735 / 0.06155 * GIB)
    assert note is not None and "admits 44.201-44.435 GiB, not the catalog's 44.521" in note
    assert l40s.memory_bytes == 47_803_596_800  # the catalog entry itself is not changed


def test_log_272s_pool_with_the_admitted_total() -> None:
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights, and
    # leaves the pool; recomputed: 71,680 -> 71,568
    """0.9 x 47,712,167,159 B = 42,940,950,443 B requested, less the weights 36,353,101,824
    (72,706,203,648 params x 2 B / 4), the sampler's 622,854,144 (256 x 152,064 x 16 B) and the
    in-window TP term 92,667,904 = 5,872,326,571 B; over 1,310,720 B a block (80 layers x 16 x
    2 KV heads x 256 x 2 B) 4,480 blocks, 71,680 tokens against the logged 67,024 (+6.95%;
    72,688 and +8.45% with the catalog's total)."""
    from kvplan.calibrate.compare import calibrate_files

    (report,) = calibrate_files([LOG_272])
    shapes = {c.quantity: c for c in report.checks if c.basis == "shapes"}
    assert shapes["KV tokens"].predicted == 71_568
    assert shapes["KV tokens"].logged == 67_024


def test_a_line_that_admits_the_catalog_total_leaves_it() -> None:
    """Log 218's form (0.26.1, A100 80GB): 0.15 GiB and 0.9000 -> 0.9019 admit 0.145 / 0.00195 =
    74.36 to 0.155 / 0.00185 = 83.78 GiB, which holds the catalog's 85,100,068,864 B = 79.26
    GiB: nothing moves."""
    values = {"cg_estimate_gib": 0.15, "cg_util_from": 0.9, "cg_util_to": 0.9019}
    low, high = total_bounds(values) or (0.0, 0.0)
    assert (low, high) == pytest.approx((0.145 / 0.00195, 0.155 / 0.00185), rel=1e-9)
    a100 = load_hardware("a100-80gb")
    moved, note = within_bounds(a100, values)
    assert moved is a100 and note is None


def test_a_catalog_total_below_the_bound_moves_up() -> None:
    """Log 268 (RTX 3090 under WSL, 0.19.1): 0.51 GiB and 0.8500 -> 0.8712 admit 0.505 / 0.02125
    = 23.7647 to 0.515 / 0.02115 = 24.3499 GiB; the catalog's 25,327,697,920 B = 23.5883 GiB is
    below, so it moves to int(23.7647 x 2^30) B."""
    values = parse_file(next(LOGS.glob("268-*.log"))).runs[0].values
    moved, note = within_bounds(load_hardware("rtx-3090"), values)
    assert moved.memory_bytes == int(0.505 / 0.02125 * GIB)
    assert note is not None and "admits 23.765-24.350 GiB" in note


@pytest.mark.parametrize("values", [
    {"cg_estimate_gib": 2.73, "cg_util_from": 0.9},  # no suggestion line
    {"cg_util_from": 0.9, "cg_util_to": 0.9616},  # no estimate line
    {"cg_estimate_gib": 9.0, "cg_util_from": 0.9, "cg_util_to": 1.0},  # min(..., 1.0): capped
    {"cg_estimate_gib": 0.01, "cg_util_from": 0.9, "cg_util_to": 0.9},  # a zero step
])
def test_lines_that_bound_nothing(values: dict[str, float]) -> None:
    assert total_bounds(values) is None
    l40s = load_hardware("l40s")
    gpu, note = within_bounds(l40s, values)
    assert gpu == l40s
    if len(values) < 3:  # a line missing: nothing was read to bound with
        assert note is None
    else:  # both lines read but bounding nothing: said, not dropped silently
        assert note is not None and "bound no total" in note and "catalog total kept" in note


def test_the_021_form_of_the_line_is_read() -> None:
    """0.21 on print "The current --gpu-memory-utilization=U is equivalent to ... increase
    --gpu-memory-utilization to S." (log 211's line, 0.23): U 0.22, S 0.2267."""
    text = ("INFO 01-01 00:00:00 [gpu_model_runner.py:5955] Estimated CUDA graph memory: 0.53 GiB "
            "total\nINFO 01-01 00:00:00 [gpu_worker.py:440] CUDA graph memory profiling is enabled "
            "(default since v0.21.0). The current --gpu-memory-utilization=0.2200 is equivalent to "
            "--gpu-memory-utilization=0.2133 without CUDA graph memory profiling. To maintain the "
            "same effective KV cache size as before, increase --gpu-memory-utilization to 0.2267. "
            "To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.\n")
    values = parse_text(text, Path("x.log")).runs[0].values
    assert (values["cg_estimate_gib"], values["cg_util_from"], values["cg_util_to"]) == (
        0.53, 0.22, 0.2267)
