"""Whether vLLM subtracts a CUDA-graph memory estimate before it sizes the KV pool, per release
and model runner, and what its "Free memory on device" line prints (task h29graphs).

Read in the released wheels (`pip download --no-deps vllm==X`: 0.25.0, 0.26.0, 0.27.0, 0.27.1,
0.28.0, 0.29.0, 0.30.0, 0.31.0, 0.32.0, 0.33.0, 0.34.0; 0.27.1's gpu_worker.py and
gpu/model_runner.py are 0.27.0's byte for byte; 0.34.0 has no old runner, gpu_model_runner.py is
gone, and with its extensible KV cache, on by default, measures the graphs after capture instead
of estimating them: kvplan.engines.vllm_extensible):

- `v1/worker/gpu_worker.py` `determine_available_memory` asks the model runner for an estimate
  when graphs will be captured (`cudagraph_mode != NONE`, i.e. not `enforce_eager`) and subtracts
  it: `available_kv_cache_memory_bytes = requested_memory - non_kv_cache_memory -
  cudagraph_memory_estimate_applied`, the estimate applied when
  `VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS` is set, which defaults to 1 in every release read
  (`envs.py`). Lines (call / subtraction / env default): WORKER below.
- The old (V1) runner's `profile_cudagraph_memory` (`v1/worker/gpu_model_runner.py`, OLD_RUNNER
  below) captures the first two graphs of each mode into a throwaway pool and extrapolates; it
  returns 0 only when no graph is to be captured.
- Model Runner V2's (`v1/worker/gpu/model_runner.py`, MRV2 below) returns 0 in 0.25-0.28 ("NOTE
  (woosuk): It is TBD whether we keep this API or not."), so for the models it runs nothing is
  subtracted; from 0.29.0 it calls `gpu/cudagraph_utils.py` `profile_cudagraph_memory`, which
  runs `capture_model()` once into a throwaway pool (FULL graphs extrapolated from samples).
- Printed: 0.25-0.26 print `peak_activation_memory = torch_peak_increase`; from 0.27 it is
  `transient_peak_headroom + cudagraph_memory_estimate_applied` (PRINTED_ACTIVATION below), so
  the "peak activation" of the "Free memory on device" line holds the subtracted estimate, and
  its "CUDAGraph memory" is the graphs `capture_model` took after sizing, which the pool did not
  lose (logs 253, 0.31.0: 36.33 - 3.31 - 0.79 = 32.23 GiB, and 256, 0.27.1: 85.51 - 56.89 - 0.76
  = 27.86 against 27.85 logged).

Not modelled: 0.23-0.26 estimate on CUDA only (`current_platform.is_cuda()`, 0.25.0
gpu_worker.py:479-483), 0.27 on on ROCm too (`is_cuda_alike()`, 0.27.0 :514-517); kvplan
subtracts on every GPU. Which runner runs a model: kvplan.engines.vllm_series.Flavour.lean_sampler.
"""

from __future__ import annotations

from kvplan.engines.interface import parse_version
from kvplan.engines.vllm_series import Flavour

MRV2_ESTIMATE_FROM = (0, 29)  # gpu/model_runner.py:896 in 0.29.0 -> gpu/cudagraph_utils.py:718
ESTIMATE_IN_PRINTED_ACTIVATION_FROM = (0, 27)  # 0.27.0 gpu_worker.py:527-529
# minor release -> line numbers in that wheel (0.27: 0.27.1's, identical to 0.27.0's)
WORKER = {25: (483, 522, 1931), 26: (506, 544, 1986), 27: (517, 547, 2018),
          28: (532, 562, 2093), 29: (570, 609, 2105), 30: (585, 624, 2109),
          31: (637, 676, 2162), 32: (704, 743, 2221), 33: (717, 756, 2219),
          34: (747, 779, 2355)}
OLD_RUNNER = {25: 6498, 26: 6576, 27: 6645, 28: 6780, 29: 6733, 30: 6661, 31: 6606, 32: 6333,
              33: 6268}  # 0.34.0 has no old runner (gpu_model_runner.py is gone)
MRV2 = {25: 680, 26: 705, 27: 749, 28: 843, 29: 896, 30: 983, 31: 1004, 32: 1038, 33: 1069,
        34: 1121}
MRV2_UTILS = {29: 718, 30: 847, 31: 854, 32: 873, 33: 922, 34: 989}
# 0.22-0.24, where Model Runner V2 runs the listed architectures (vllm_series.MRV2_LISTED): its
# profile_cudagraph_memory returns 0 too (task h30v1miss, read in the 0.22.0-0.24.0 wheels)
MRV2_LISTED_LINES = {22: 620, 23: 660, 24: 684}
PRINTED_ACTIVATION = {25: 504, 26: 526, 27: 527, 28: 542, 29: 601, 30: 616, 31: 668, 32: 735,
                      33: 748, 34: 772}


def _ver(version: str) -> tuple[int, ...]:
    return parse_version(version) or ()


def _read(ver: tuple[int, ...]) -> tuple[int, str] | None:
    """The read wheel whose lines are cited for `ver` (0.25-0.34; newer: 0.34.0's)."""
    if ver[:1] != (0,) or len(ver) < 2 or ver[1] < min(WORKER):
        return None
    minor = min(ver[1], max(WORKER))
    return minor, "0.27.1" if minor == 27 else f"0.{minor}.0"


def mrv2_estimates(version: str) -> bool:
    """Whether Model Runner V2's profile_cudagraph_memory measures the graphs (0.29 on)."""
    return _ver(version) >= MRV2_ESTIMATE_FROM


def subtracted(fl: Flavour, mrv2: bool, enforce_eager: bool) -> bool:
    """Whether determine_available_memory takes a CUDA-graph estimate out of the pool."""
    return (fl.graphs_subtracted and not enforce_eager
            and (not mrv2 or mrv2_estimates(fl.version)))


def note(fl: Flavour, mrv2: bool, enforce_eager: bool) -> str:
    """`kvplan explain`'s line: whether the graphs are subtracted, and why (file:line)."""
    if enforce_eager and fl.graphs_subtracted:
        return "CUDA graphs: none (enforce_eager)"
    if not fl.graphs_subtracted:
        return ("CUDA graphs: captured after sizing (not subtracted)" if not enforce_eager
                else "CUDA graphs: none (enforce_eager)")
    read = _read(_ver(fl.version))
    if read is None and mrv2 and len(_ver(fl.version)) > 1 and (
            (minor := _ver(fl.version)[1]) in MRV2_LISTED_LINES):
        return (f"CUDA graphs: not subtracted (Model Runner V2 runs this model, an architecture "
                f"0.{minor}'s DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES lists; its "
                f"profile_cudagraph_memory returns 0, gpu/model_runner.py:"
                f"{MRV2_LISTED_LINES[minor]} in 0.{minor}.0; captured after sizing)")
    if fl.extensible_kv:  # 0.34 on: the pool is sized after capture (vllm_extensible)
        return ("CUDA graphs: captured before sizing and measured with the other non-KV memory "
                "(the extensible KV cache: profile_cudagraph_memory returns 0, gpu/"
                "model_runner.py:1123-1125, and the pool is sized after warm-up and capture, "
                "v1/worker/extensible_kv_cache.py:592-618; read in 0.34.0); kvplan's estimate "
                "stands for the captured graphs")
    if read is None:  # 0.21-0.24
        return "CUDA graphs: estimate subtracted before sizing (vLLM 0.21-0.24 gpu_worker.py)"
    minor, wheel = read
    if mrv2 and not mrv2_estimates(fl.version):
        return (f"CUDA graphs: not subtracted (Model Runner V2 runs this model; its "
                f"profile_cudagraph_memory returns 0, gpu/model_runner.py:{MRV2[minor]} in "
                f"{wheel}; captured after sizing); not modelled: compiled runs of these "
                f"releases leave 0.7-1.4 GiB a GPU more outside the pool than kvplan books "
                f"(logs 45, 48, 210; source not found), so the pool may be that much high")
    how = (f"Model Runner V2's profile_cudagraph_memory measures them, gpu/model_runner.py:"
           f"{MRV2[minor]} -> gpu/cudagraph_utils.py:{MRV2_UTILS[minor]}" if mrv2 else
           f"the V1 runner's profile_cudagraph_memory measures them, gpu_model_runner.py:"
           f"{OLD_RUNNER[minor]}")
    return (f"CUDA graphs: estimate subtracted before sizing ({how}; gpu_worker.py:"
            f"{WORKER[minor][1]} subtracts it; read in {wheel})")


def printed_activation_holds_estimate(version: str) -> bool:
    """Whether the "Free memory on device" line's peak activation already holds the subtracted
    estimate, so its "CUDAGraph memory" (captured after sizing) must not be subtracted again."""
    return _ver(version) >= ESTIMATE_IN_PRINTED_ACTIVATION_FROM
