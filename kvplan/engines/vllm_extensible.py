"""vLLM 0.34's extensible KV cache: the pool sized after warm-up from the memory then free.

Read in the vllm==0.34.0 wheel (pip download --no-deps; issue #13, task h41v034), not fitted:

- `config/vllm.py:3180-3263` `_resolve_extensible_kv_cache`: unset, it is on wherever it is
  supported (CUDA and ROCm), off where `kv_cache_memory_bytes` or `num_gpu_blocks_override` is
  set, with elastic EP, or with a KV connector that cannot use driver-mapped memory.
- `config/cache.py:216` `gpu_memory_utilization` defaults to None, and
  `resolved_gpu_memory_utilization` (`:494-501`) makes it 1.0 with the extensible cache, else
  `DEFAULT_GPU_MEMORY_UTILIZATION` 0.92 (`:186`); `v1/worker/utils.py:742-743` `request_memory`:
  requested = ceil(total x that utilization).
- `v1/worker/gpu/model_runner.py:1121-1125` `profile_cudagraph_memory` returns 0 with it ("The
  extensible KV cache measures the capture footprint after warmup"), so `determine_available_
  memory` (`v1/worker/gpu_worker.py:742-780`) subtracts no estimate; the graphs are captured
  before the cache is sized and measured as resident memory.
- `v1/worker/extensible_kv_cache.py:592-618` `measure_kv_cache_bytes` (called by
  `measure_kv_cache_blocks`, `:621-707`, from `gpu_worker.py:1231` after warm-up): non-KV use =
  free at start-up - free after warm-up - the committed KV prefix (weights, non-torch memory,
  Model Runner V2's state, the captured graphs); available = min(requested - non-KV use,
  headroom - margin) - max(transient peak, torch reserve growth), headroom = free after warm-up
  + the committed prefix = free at start-up - non-KV use, margin = max(KV_CACHE_MARGIN_FLOOR_BYTES,
  0.75 x transient peak) (`:64-65`: 1 GiB on CUDA, 3 GiB on ROCm). The transient peak starts as
  the profile run's `peak_activation_memory` (`gpu_worker.py:946-948`: the torch peak over what
  stays allocated, plus the graph estimate, 0 here) and takes the larger warm-up step peaks
  (`gpu/warmup.py:452-479`; attention runs there, not in the profile run: not modelled).

So available = min(total x util, free at start-up - margin) - non-KV use - transient peak, which
is kvplan's usual subtraction from a budget capped at the device headroom: total - the memory in
use before the worker's start-up snapshot (its CUDA context: kvplan's V1 context term; with TP
the TP group's set-up, which 0.34 runs before the snapshot: kvplan.engines.vllm_tp_setup, task
h42v034) - the margin. At the default 1.0 the cap binds; at 0.9 on a large GPU the requested
memory does, as in 0.33.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kvplan.engines.interface import parse_version
from kvplan.engines.vllm_nontorch import V1_CONTEXT
from kvplan.units import GIB

if TYPE_CHECKING:
    from kvplan.engines.interface import EngineResult, EngineSettings
    from kvplan.engines.vllm_series import Flavour

MARGIN_FLOOR = GIB  # KV_CACHE_MARGIN_FLOOR_BYTES on CUDA (extensible_kv_cache.py:64)
MARGIN_FLOOR_ROCM = 3 * GIB  # ... on ROCm
MARGIN_FRACTION = Fraction(3, 4)  # KV_CACHE_MARGIN_FRACTION (:65)
UTIL_EXTENSIBLE = Fraction(1)  # resolved_gpu_memory_utilization with the extensible cache
EXTENSIBLE_UTIL_WHY = "default (1.0 with vLLM 0.34's extensible KV cache, config/cache.py:494-501)"
ESTIMATED_UTIL_WHY = ("default (0.92 in vLLM 0.34 without the extensible KV cache: "
                      "DEFAULT_GPU_MEMORY_UTILIZATION, config/cache.py:186, :494-501)")
OFF_NOTE = ("vLLM 0.34 with --no-enable-extensible-kv-cache: the pool is sized from the "
            "profiling estimate before warm-up, as in 0.33 (CUDA-graph estimate measured by "
            "v1/worker/gpu/model_runner.py:1121-1128 -> gpu/cudagraph_utils.py:989, called at "
            "gpu_worker.py:746-747 and subtracted at :776-780, read in 0.34.0), with "
            "gpu_memory_utilization 0.92 unless given (config/cache.py:186, :494-501)")
KV_BYTES_NOTE = ("vLLM 0.34 with kv_cache_memory_bytes: the extensible KV cache is off (unset, "
                 "_resolve_extensible_kv_cache turns it off because \"it sizes the KV cache from "
                 "measured memory, which kv_cache_memory_bytes overrides\", config/vllm.py:"
                 "3203-3207, :3252-3254 in 0.34.0); the pool is the bytes given, memory "
                 "profiling skipped and gpu_memory_utilization not applied to it "
                 "(v1/worker/gpu_worker.py:696-708)")
CONTEXT = V1_CONTEXT[0]  # memory in use before the start-up snapshot: the CUDA context
EXTENSIBLE_NOTE = ("vLLM 0.34's extensible KV cache (on by default on CUDA and ROCm): sized after "
                   "warm-up and CUDA-graph capture, from a budget of min(total x "
                   "gpu_memory_utilization, total - CUDA context - the TP set-up before the "
                   "start-up snapshot (with TP) - max(1 GiB, 0.75 x activation peak)); warm-up "
                   "steps with a larger transient peak than the profile run "
                   "(attention) are not modelled (kvplan.engines.vllm_extensible)")
BLOCK_64_NOTE = ("vLLM 0.34 defaults to 64-token blocks (config/cache.py:185 DEFAULT_BLOCK_SIZE); "
                 "kvplan sizes {block}-token blocks as given: pass --block-size 64 for the "
                 "default")


def applied_flavour(s: EngineSettings) -> Flavour:
    """The release's flavour with engine.enable_extensible_kv_cache applied: false turns 0.34's
    extensible cache off (config/vllm.py:3252-3254 keeps an explicit value; unset it is on where
    supported). Unset with engine.kv_cache_memory_bytes, vLLM turns it off too
    (config/vllm.py:3203-3207, :3252-3254: kv_cache_memory_bytes makes it unsupported, and an
    unset value resolves to supported-or-not; until task h101left kvplan kept it on and said so in
    the assumptions). True changes nothing where the release has it on; true with
    kv_cache_memory_bytes and any value before 0.34 are refused
    (kvplan.engines.vllm_flag_versions), so they never reach here."""
    from kvplan.engines.vllm_series import flavour

    fl = flavour(s.version)
    if fl.extensible_kv and (s.enable_extensible_kv_cache is False
                             or (s.enable_extensible_kv_cache is None
                                 and s.kv_cache_memory_bytes is not None)):
        return replace(fl, extensible_kv=False)
    return fl


def from_034(fl: Flavour) -> bool:
    """A V1 release of 0.34 or later, the extensible cache on or off (its 64-token blocks and
    0.92 utilization default do not depend on it)."""
    from kvplan.engines.vllm_series import EXTENSIBLE_KV_FROM

    return fl.v1 and (parse_version(fl.version) or ()) >= EXTENSIBLE_KV_FROM


def default_util(fl: Flavour) -> Fraction:
    """gpu_memory_utilization unless given: 1.0 with the extensible cache, else the release's
    default (Flavour.default_utilization: 0.9 before 0.20, 0.92 from 0.20, which 0.34 keeps as
    DEFAULT_GPU_MEMORY_UTILIZATION without the extensible cache, config/cache.py:186, :494-501)."""
    return UTIL_EXTENSIBLE if fl.extensible_kv else fl.default_utilization


def util_why(fl: Flavour) -> str:
    """The requested utilization's origin when not given (see default_util)."""
    if fl.extensible_kv:
        return EXTENSIBLE_UTIL_WHY
    from kvplan.engines.vllm_series import UTIL_092_WHY

    if from_034(fl):
        return ESTIMATED_UTIL_WHY
    return UTIL_092_WHY if fl.default_utilization != Fraction(9, 10) else "flag (default 0.9)"


def margin(transient_peak: int, rocm: bool = False) -> int:
    """max(floor, int(0.75 x transient peak)), as measure_kv_cache_bytes takes it."""
    return max(MARGIN_FLOOR_ROCM if rocm else MARGIN_FLOOR,
               int(transient_peak * MARGIN_FRACTION))


def headroom(memory: int, transient_peak: int, rocm: bool = False, tp_setup: int = 0) -> int:
    """The budget's cap: total - the CUDA context - the TP set-up before the start-up snapshot
    (kvplan.engines.vllm_tp_setup; 0 on one GPU) - the margin (the memory free at start-up
    less the margin, before the non-KV use both sides subtract)."""
    return memory - CONTEXT - tp_setup - margin(transient_peak, rocm)


def record_util(fields: list[tuple[str, Any, str]],
                result: EngineResult) -> list[tuple[str, Any, str]]:
    """The record's unstated gpu_memory_utilization as the engine took it: 1.0 where vLLM 0.34's
    extensible KV cache applies, 0.92 where it is turned off and in 0.20-0.33 (the record's
    schema default is 0.9)."""
    from kvplan.engines.vllm_series import UTIL_092_WHY

    step = next((s for s in result.steps if s.label == "gpu_memory_utilization"), None)
    if step is None or step.formula not in (EXTENSIBLE_UTIL_WHY, ESTIMATED_UTIL_WHY, UTIL_092_WHY):
        return fields
    return [(k, float(step.value), step.formula) if k == "engine.gpu_memory_utilization"
            and frm == "default" else (k, v, frm) for k, v, frm in fields]
