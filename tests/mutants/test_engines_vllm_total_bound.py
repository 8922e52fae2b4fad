"""Mutation tests of kvplan/engines/vllm_total_bound.py (task h71mut): vLLM 0.19.0 prints the
CUDA-graph estimate at "%.2f GiB" and the utilization it suggests at round(., 4)
(v1/worker/gpu_worker.py:448-470), so estimate / total = step +/- 0.00005 and the estimate is
+/- 0.005 GiB: total in [(est - 0.005) / (step + 0.00005), (est + 0.005) / (step - 0.00005)].
Figures by hand below."""

from __future__ import annotations

import pytest

from kvplan.engines.vllm_total_bound import total_bounds, within_bounds
from kvplan.specs import load_hardware

GIB = 1_073_741_824
UNBOUNDED = ("the log's CUDA-graph suggestion lines bound no total (a suggestion of 1.0 or more, "
             "or a step or estimate within the print rounding): catalog total kept")


def _v(est: float, frm: float, to: float) -> dict[str, float]:
    return {"cg_estimate_gib": est, "cg_util_from": frm, "cg_util_to": to}


def test_bounds_need_all_three_lines_and_a_measurable_step() -> None:
    assert total_bounds({}) is None
    assert total_bounds({"cg_estimate_gib": 2.0, "cg_util_from": 0.9}) is None
    assert total_bounds({"cg_estimate_gib": 2.0, "cg_util_to": 0.95}) is None
    assert total_bounds({"cg_util_from": 0.9, "cg_util_to": 0.95}) is None
    assert total_bounds(_v(2.0, 0.9, 1.0)) is None  # a suggestion of 1.0
    assert total_bounds(_v(2.0, 0.0, 0.00005)) is None  # the step is the print rounding
    assert total_bounds(_v(0.005, 0.0, 0.5)) is None  # the estimate is the print rounding


def test_bounds_by_hand() -> None:
    """est 1.0 GiB, 0.0 -> 0.5: (0.995 / 0.50005, 1.005 / 0.49995) = (1.98980..., 2.01020...)."""
    low, high = total_bounds(_v(1.0, 0.0, 0.5)) or (0.0, 0.0)
    assert low == pytest.approx(1.9898010198980102, rel=1e-12)
    assert high == pytest.approx(2.0102010201020102, rel=1e-12)
    # just past the rounding: step 0.0001, est 0.006 -> (0.001 / 0.00015, 0.011 / 0.00005)
    low, high = total_bounds(_v(0.006, 0.0, 0.0001)) or (0.0, 0.0)
    assert (low, high) == pytest.approx((6.666666666666667, 220.0), rel=1e-9)


def test_within_bounds() -> None:
    """H100 (the catalog's total) against a log admitting 1.99-2.01 GiB: moved down to the high
    end; against one admitting far more (est 80 GiB over 0.0 -> 0.5: 159.18-160.82 GiB): moved up
    to the low end; inside the bounds: unchanged, no note; unbounded lines: a note, unchanged."""
    h100 = load_hardware("h100")
    total = h100.memory_bytes / GIB
    moved, note = within_bounds(h100, _v(1.0, 0.0, 0.5))
    high = 1.005 / 0.49995
    assert note == (f"total {high:.3f} GiB: the log's CUDA-graph suggestion admits 1.990-2.010 "
                    f"GiB, not the catalog's {total:.3f}")
    assert moved.memory_bytes == int(high * GIB)
    assert moved.memory_source == note + " (kvplan.engines.vllm_total_bound)"
    up, note = within_bounds(h100, _v(80.0, 0.0, 0.5))
    assert up.memory_bytes == int(79.995 / 0.50005 * GIB)
    assert note is not None and note.startswith("total 159.974 GiB: ")
    # a log admitting the catalog total (est = total / 2 over 0 -> 0.5) leaves it alone
    assert within_bounds(h100, _v(total / 2, 0.0, 0.5)) == (h100, None)
    assert within_bounds(h100, _v(2.0, 0.9, 1.0)) == (h100, UNBOUNDED)
    assert within_bounds(h100, {"cg_estimate_gib": 2.0}) == (h100, None)


def test_a_total_on_either_bound_is_admitted() -> None:
    """The bounds are closed: a 100 GiB GPU (107,374,182,400 B) against est 12.51 GiB over
    0.0 -> 0.125 (low = 12.505 / 0.12505 = 100 exactly) and against est 12.49 GiB (high =
    12.495 / 0.12495 = 100 exactly) keeps its total, with no note (task h80mut)."""
    gpu = load_hardware("h100").model_copy(update={"memory_bytes": 100 * GIB})
    assert total_bounds(_v(12.51, 0.0, 0.125)) == (100.0, pytest.approx(12.515 / 0.12495))
    assert total_bounds(_v(12.49, 0.0, 0.125)) == (pytest.approx(12.485 / 0.12505), 100.0)
    assert within_bounds(gpu, _v(12.51, 0.0, 0.125)) == (gpu, None)
    assert within_bounds(gpu, _v(12.49, 0.0, 0.125)) == (gpu, None)
