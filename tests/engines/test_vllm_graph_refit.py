"""vLLM's CUDA-graph estimate refitted on every fit log that prints it (issue #13, task h48graphfit).

Task h44graphbase booked the estimate as a first capture (vllm_capture.BASE_BYTES) + later
graphs x layers x a per-graph-layer cost (GRAPH_LAYER_BYTES), separated on one pair of fit logs
(480 and 211). Task h48graphfit added fit log 560 and refitted by least squares over the fit
logs, x = later graphs x layers, y = the printed (or utilization-derived) estimate in MiB
(docs/engines-calibration.md, "task h48graphfit"). Each test reads the estimate from the log file and counts
the graphs with kvplan's capture rule, so a changed log or rule fails here.
"""

from __future__ import annotations

from pathlib import Path

from kvplan.calibrate.parse import parse_file
from kvplan.engines.vllm_capture import BASE_BYTES, GRAPH_LAYER_BYTES, capture, graph_bytes
from kvplan.units import MIB

LOGS = Path(__file__).parent.parent / "assets" / "logs"


def printed_mib(number: str) -> float:
    """The log's "Estimated CUDA graph memory: X GiB" as MiB."""
    (path,) = LOGS.glob(f"{number}-*.log")
    return parse_file(path).runs[0].values["cg_estimate_gib"] * 1024


def least_squares(points: list[tuple[int, float]]) -> tuple[float, float]:
    """(intercept, slope) of the ordinary least-squares line through `points`."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    slope = (sum((x - mx) * (y - my) for x, y in points)
             / sum((x - mx) ** 2 for x, _ in points))
    return my - slope * mx, slope


def test_fit_log_560_prints_what_the_best_pair_books():
    """560 (vLLM 0.24.0, Qwen2.5-7B-Instruct, 28 layers, RTX 4090 at 2,048 tokens) prints 0.53 GiB
    and no graph counts; 0.24.0's capture rule at serve's 256 sequences and 2,048 batched tokens
    gives 51 PIECEWISE + 35 FULL = 86 graphs, 84 later: 358,612,992 + 84 x 28 x 89,653 =
    569,476,848 B = 543.1 MiB = 0.5304 GiB, the same as fit log 211 (0.53 GiB at 86 graphs and
    28 layers): +0.07% against the print, within its 0.005 GiB rounding."""
    cap = capture("0.24.0", 256, 2048)
    assert (len(cap.piecewise), len(cap.full), cap.later) == (51, 35, 84)
    assert graph_bytes(cap, 28).best == 358_612_992 + 84 * 28 * 89_653 == 569_476_848
    assert printed_mib("560") == printed_mib("211") == 0.53 * 1024
    assert abs(569_476_848 / MIB - 0.53 * 1024) < 0.005 * 1024


def test_least_squares_over_the_old_runner_dense_fit_logs_keeps_the_constants():
    """480 (7 later x 28 = 196, 0.35 GiB = 358.4 MiB), 211 and 560 (84 x 28 = 2,352, 542.72 MiB
    each): the mean point of the three is (1,633.33, 481.28); Sxx = 1,437.33^2 + 2 x 718.67^2 =
    3,098,890.7, Sxy = 1,437.33 x 122.88 + 2 x 718.67 x 61.44 = 264,929.3 -> slope 0.085492 MiB
    a later graph and layer, intercept 481.28 - 1,633.33 x 0.085492 = 341.64 MiB: the pair's
    0.0855 MiB (89,653 B) and 342 MiB (358,612,992 B), unchanged."""
    points = [(7 * 28, printed_mib("480")), (84 * 28, printed_mib("211")),
              (84 * 28, printed_mib("560"))]
    base, per = least_squares(points)
    assert abs(per - 0.085492) < 0.000001 and abs(base - 341.64) < 0.01
    assert abs(per - GRAPH_LAYER_BYTES[0] / MIB) < 0.0001
    assert round(base) == BASE_BYTES[0] // MIB == 342


def test_the_wider_fit_set_gives_no_one_baseline():
    """Adding 272 (vLLM 0.19.0, the same old-runner estimator; Qwen2.5-72B at TP 4, 84 later x
    80 layers = 6,720, 2.73 GiB = 2,795.52 MiB) to the three: mean (2,905, 1,059.84); Sxx =
    2,709^2 + 2 x 553^2 + 3,815^2 = 22,504,524, Sxy = 2,709 x 701.44 + 2 x 553 x 517.12 +
    3,815 x 1,735.68 = 9,093,754.9 -> slope 0.40409 MiB, intercept 1,059.84 - 2,905 x 0.40409
    = -114.0 MiB, a negative first capture: the one form does not hold across TP and model
    size, so the wider set does not support new constants. Model Runner V2's two fit logs (its
    real-capture estimator, 0.29 on), 253 (84 x 28 = 2,352; (0.9200 - 0.9110) x 39.49 GiB =
    363.94 MiB) and 285 (84 x 48 = 4,032; 0.0090 x 121.63 GiB = 1,120.94 MiB), give
    (1,120.94 - 363.94) / (4,032 - 2,352) = 0.45060 MiB and 363.94 - 2,352 x 0.45060 =
    -695.9 MiB: negative too."""
    old = [(7 * 28, printed_mib("480")), (84 * 28, printed_mib("211")),
           (84 * 28, printed_mib("560")), (84 * 80, printed_mib("272"))]
    base, per = least_squares(old)
    assert -115.0 < base < -113.0 and abs(per - 0.40409) < 0.00001
    mrv2 = [(84 * 28, 0.0090 * 39.49 * 1024), (84 * 48, 0.0090 * 121.63 * 1024)]
    base2, per2 = least_squares(mrv2)
    assert abs(per2 - 0.45060) < 0.00001 and -697.0 < base2 < -695.0
