"""vLLM's non-torch memory: what the profiler books outside torch's allocations, by series.

(best, low, high) in bytes, fitted on the calibration logs named in tests/assets/logs/FITTED.tsv.
V1 counts only the growth after start-up (one GPU 0.07 GiB; with tensor parallelism about 1 GiB
more for NCCL and all-reduce buffers, from log 24); V0 counts the CUDA context too.
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.engines.interface import Interval, parse_version
from kvplan.engines.vllm_series import Flavour
from kvplan.units import GIB, MIB

# (best, low, high) in bytes
NON_TORCH_V1 = (70 * MIB, 20 * MIB, GIB // 2)
NON_TORCH_V1_TP = (GIB, GIB // 4, 2 * GIB)
NON_TORCH_V0 = (350 * MIB, 200 * MIB, 600 * MIB)
NON_TORCH_V0_TP = (GIB // 2, GIB // 4, 4 * GIB)
CUDA_GRAPH = (GIB // 2, GIB // 5, GIB)  # captured graphs measured 0.27-0.85 GiB
# vLLM 0.6.4.x profiled non-torch memory as device use minus torch's *allocated* bytes, so the
# allocator's cached copies left by repacking quantized weights at load (GPTQ/AWQ to Marlin)
# counted as non-torch; 0.6.5's profiler (PR #10511) measures growth instead. Share of the
# weights: (best, low, high); fitted on log 11 (Qwen2.5-72B GPTQ: 4.09 - 0.35 GiB over 38.53).
REPACK_CACHED_SHARE = (Fraction(97, 1000), Fraction(0), Fraction(15, 100))
REPACK_CACHED_VERSIONS = ((0, 6, 4), (0, 6, 5))


def non_torch(fl: Flavour, tp: int, weights: int, quantized: bool) -> tuple[Interval, str]:
    """The non-torch term a vLLM version books, and how it was chosen."""
    table = (NON_TORCH_V1_TP if tp > 1 else NON_TORCH_V1) if fl.v1 else (
        NON_TORCH_V0_TP if tp > 1 else NON_TORCH_V0)
    nt = Interval(*table)
    how = "growth after start-up" if fl.v1 else "CUDA context + NCCL"
    lo_v, hi_v = REPACK_CACHED_VERSIONS
    if not fl.v1 and quantized and lo_v <= (parse_version(fl.version) or ()) < hi_v:
        extra = [int(weights * f) for f in REPACK_CACHED_SHARE]
        nt = Interval(nt.best + extra[0], nt.low + extra[1], nt.high + extra[2])
        how += " + quantized-weight repack cache (vLLM 0.6.4)"
    return nt, how + (" with TP buffers" if tp > 1 else "")
