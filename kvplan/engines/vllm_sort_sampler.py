"""The 0.8-0.16 series' profiling sampler: PyTorch's native top-k/top-p sort, and what it holds.

vLLM 0.10.0, 0.10.1.1 and 0.10.2 (read in the wheels on PyPI: pip download --no-deps
vllm==0.10.0 / 0.10.1.1 / 0.10.2) profile the sampler on max_num_seqs rows with top-k and top-p
both set (v1/worker/gpu_model_runner.py _dummy_sampler_run: "top_p=dummy_tensors(0.9)",
"top_k=dummy_tensors(logits.size(1) - 1)", max_num_logprobs=None; 0.10.0 :2202-2234). None of
the three wheels requires FlashInfer (METADATA names flashinfer-python only under the
"flashinfer" extra in 0.10.1.1 and 0.10.2, not at all in 0.10.0), and without it
TopKTopPSampler falls back to forward_native (v1/sample/ops/topk_topp_sampler.py: "FlashInfer
is not available. Falling back to the PyTorch-native implementation of top-p & top-k
sampling", which log 213's source prints on every rank). forward_native calls
apply_top_k_top_p, the same function in the three wheels, which sorts the fp32 logits:

    logits_sort, logits_idx = logits.sort(dim=-1, descending=False)

Alive at the sort, per logit (rows x vocab elements):
  2 B  the bf16 logits compute_logits returned (_dummy_sampler_run keeps `logits`)
  4 B  their fp32 copy (v1/sample/sampler.py Sampler.forward: logits.to(torch.float32);
       temperature is divided in place)
  4 B  the sorted values, 8 B their int64 indices (the sort's outputs)
and, inside the sort, PyTorch's transient buffers: a vocabulary above 4,096 takes the stable
cub path (aten/src/ATen/native/cuda/Sort.cpp: should_use_small_sort is size(dim) <= 4096), and
128 or more rows take segmented_sort_pairs (aten/src/ATen/native/cuda/SortStable.cu
launch_stable_sort_kernel: nsegments < 128 takes the full-sort path), which allocates
  8 B  reverse_indices, numel x sizeof(int64_t) (SortStable.cu segmented_sort_pairs)
and calls cub::DeviceSegmentedRadixSort::SortPairs through at::cuda::cub::segmented_sort_pairs
(aten/src/ATen/cuda/cub.cuh, CUB_WRAPPER: temp storage from the caching allocator), whose temp
storage holds, since the call is not overwrite-okay, a third keys and a third values buffer
(cub/device/dispatch/dispatch_radix_sort.cuh DispatchSegmentedRadixSort: "bytes needed for
3rd keys buffer" num_items x sizeof(KeyT), "3rd values buffer" num_items x sizeof(ValueT)):
  4 B  fp32 keys, 8 B int64 values.
That is 38 B a logit at the sort, the peak of the pass: after it the top-k and top-p masks
(1 B each), the softmax of the sorted values (4 B) and the scatter back (4 B) come to 28 B, and
the probabilities and exponential noise of random_sample to 18 B. PyTorch 2.7.1 (0.10.0 and
0.10.1.1) and 2.8.0 (0.10.2) sort this way (SortStable.cu read at pytorch commit 061531e8 and in
its earlier int64-index form; cub's DispatchSegmentedRadixSort in CCCL).

Checked, not fitted: log 132 (vLLM 0.10.2, Qwen3-Next-80B at TP 2 on H200, 1,024 rows x
151,936 vocab) prints "5.58 GiB for peak activation"; 38 B x 155,582,464 logits = 5.51 GiB.
The rest (0.07 GiB, 0.5 B a logit) is not itemised: the dummy batch's hidden states, cub's
histograms and the allocator's rounding are candidates, inside the 40 B high end.

The low end is the FlashInfer path (installed separately, e.g. in vLLM's container image:
forward_cuda samples the fp32 logits in FlashInfer's fused top-k/top-p kernel, no sort), the
12 B low of the V1 sampler; the high end 40 B covers what else the pass keeps alive. Where the
path is known (a log's "Using FlashInfer for top-p & top-k sampling." or fallback warning, a
calibration directive topk_topp_sampler=...; a deployment's engine.topk_topp_sampler, set by
--topk-topp-sampler or read from a manifest's image and VLLM_USE_FLASHINFER_SAMPLER,
kvplan.check.manifests.sampler; EngineSettings.topk_topp_sampler) FlashInfer keeps
the V1 sampler's figures (read here as bf16 + fp32 + masked fp32 + probabilities, 14 B, inside
its 12-28 B); unstated, a 0.8-0.10 release is taken as its wheel installs, without FlashInfer
(0.11 likewise; 0.12-0.16 sort unless VLLM_USE_FLASHINFER_SAMPLER=1, below).

The same sort in 0.11-0.16 (issue #13, task h27v1miss: read in the wheels on PyPI, pip download
--no-deps vllm==0.11.0 / 0.12.0 / 0.13.0 / 0.14.0 / 0.15.0 / 0.16.0): _dummy_sampler_run sets
the same top_p 0.9 and top_k vocab - 1 (v1/worker/gpu_model_runner.py), and apply_top_k_top_p
sorts the same way (`logits.sort(dim=-1, descending=False)`, v1/sample/ops/topk_topp_sampler.py
:258 in 0.12.0/0.13.0, :262 in 0.14.0-0.16.0). 0.11.0's TopKTopPSampler is 0.10's (FlashInfer's
sampler where flashinfer imports, which its wheel lists only under the "flashinfer" extra).
0.12.0-0.16.0 require flashinfer-python (0.5.3, 0.5.3, 0.5.3, 0.6.1, 0.6.3: METADATA) but make its
sampler opt-in: `if envs.VLLM_USE_FLASHINFER_SAMPLER:` ... "Users must opt in explicitly via
VLLM_USE_FLASHINFER_SAMPLER=1", else forward_native (topk_topp_sampler.py:35-57), so unstated
they sort whether installed by pip or in vLLM's image. Their PyTorch (2.9.0 for 0.12-0.13, 2.9.1
for 0.14-0.16) lies between the two SortStable.cu forms read above, which sort alike. Log 123
(0.13.0, Qwen2.5-1.5B AWQ, 256 rows) was +5.47% with 16 B and is inside 5% with the sort.

The same sort in 0.8.0-0.9.2 (issue #13, task h36v083, led by log 282's miss: read in the wheels
on PyPI, pip download --no-deps vllm==0.8.0 ... 0.8.5, 0.9.0, 0.9.1, 0.9.2): _dummy_sampler_run
sets top_p 0.9 and top_k vocab - 1 with max_num_logprobs None and no_penalties True
(v1/worker/gpu_model_runner.py, 0.8.3 :1445-1463), Sampler.forward casts to fp32 and divides the
temperature in place (v1/sample/sampler.py, 0.8.3 apply_temperature "logits.div_"), and
apply_top_k_top_p sorts the same way (topk_topp_sampler.py, 0.8.3 :186, 0.9.2 :187; 0.8.0-0.8.2
cumsum into a new tensor after the sort, 4 B below the sort's peak). The METADATA of 0.8.0, 0.8.1,
0.8.3 and 0.9.0-0.9.2 lists no flashinfer, and 0.8.0-0.8.5 take forward_native even where FlashInfer 0.2.3 or
newer imports ('if flashinfer_version >= "0.2.3"': "Falling back to the PyTorch-native
implementation", 0.8.3 :34-49); 0.9.0-0.9.2 use FlashInfer where it imports. Their PyTorch (2.6.0
for 0.8.x, 2.7.0 for 0.9.x, METADATA) has SortStable.cu's int64-index form (not read at those
tags). Checked, not fitted: log 282 (0.8.3, 1,024 rows x 151,936) and the fit logs 274, 275
(0.8.4, 256 rows), whose misses it narrows. From 0.17 (read in the
0.17.1 and 0.18.0 wheels) apply_top_k_top_p masks with Triton for 8 rows or more (`if HAS_TRITON
and logits.shape[0] >= 8: return apply_top_k_top_p_triton(...)`): no sort; 0.19.0 the same (its
wheel requires flashinfer-python==0.6.6 and leaves FlashInfer's sampler opt-in).
"""

from __future__ import annotations

from kvplan.engines.activation import V1_SAMPLER_BYTES_PER_LOGIT
from kvplan.engines.interface import EngineSettings, parse_version
from kvplan.errors import InputError
from kvplan.specs.schema import ModelSpec

# Bytes a logit alive at the sort (see above)
BF16_LOGITS = 2            # compute_logits' output, kept by _dummy_sampler_run
FP32_LOGITS = 4            # Sampler.forward: logits.to(torch.float32)
SORT_VALUES = 4            # logits_sort (fp32)
SORT_INDICES = 8           # logits_idx (int64)
REVERSE_INDICES = 8        # SortStable.cu segmented_sort_pairs: numel * sizeof(int64_t)
CUB_ALT_KEYS = 4           # cub's 3rd keys buffer, sizeof(float)
CUB_ALT_VALUES = 8         # cub's 3rd values buffer, sizeof(int64_t)
SORT_PEAK = (BF16_LOGITS + FP32_LOGITS + SORT_VALUES + SORT_INDICES + REVERSE_INDICES
             + CUB_ALT_KEYS + CUB_ALT_VALUES)  # 38
# PyTorch's small in-place sort below this many elements a row (Sort.cpp should_use_small_sort)
SMALL_SORT_MAX = 4096
# segmented_sort_pairs from this many rows; fewer take segmented_sort_pairs_by_full_sort
SEGMENTED_MIN_ROWS = 128
SORT_SAMPLER_BYTES_PER_LOGIT = (V1_SAMPLER_BYTES_PER_LOGIT[0], SORT_PEAK, SORT_PEAK + 2)
# The paths a 0.8-0.16 release's TopKTopPSampler takes (EngineSettings.topk_topp_sampler)
SAMPLER_PATHS = ("native", "flashinfer")
# The series read: 0.8.0-0.8.5, 0.9.0-0.9.2, 0.10.0, 0.10.1.1, 0.10.2, 0.11.0-0.16.0 (0.17.1
# masks with Triton)
SORT_SAMPLER_FROM = (0, 8)
SORT_SAMPLER_BEFORE = (0, 17)
# From 0.12 FlashInfer's sampler is opt-in (VLLM_USE_FLASHINFER_SAMPLER=1), installed or not
FLASHINFER_OPT_IN_FROM = (0, 12)


def sorts_in_profile(version: str | None) -> bool:
    """Whether a vLLM version's profiling sampler is the native sort (0.8-0.16)."""
    v = parse_version(version) or ()
    return bool(v) and SORT_SAMPLER_FROM <= v < SORT_SAMPLER_BEFORE


def flashinfer_opt_in(version: str | None) -> bool:
    """Whether FlashInfer's sampler runs only with VLLM_USE_FLASHINFER_SAMPLER=1 (0.12-0.16):
    unstated, these releases sort in any install."""
    v = parse_version(version) or ()
    return sorts_in_profile(version) and v >= FLASHINFER_OPT_IN_FROM


def _segmented_sort(version: str | None, rows: int, model: ModelSpec) -> bool:
    """Whether the profiling sampler takes PyTorch's segmented_sort_pairs: a 0.8-0.16 release, 128
    rows or more and a vocabulary above 4,096 (with FlashInfer absent)."""
    return (sorts_in_profile(version) and rows >= SEGMENTED_MIN_ROWS
            and model.vocab_size > SMALL_SORT_MAX)


def v1_sampler_bytes(version: str | None, rows: int, model: ModelSpec,
                     s: EngineSettings) -> tuple[int, int, int]:
    """(low, best, high) bytes a logit the V1 profiling sampler (before Model Runner V2) holds
    at its peak on `rows` x the model's vocabulary: the 0.8-0.16 series' native sort where PyTorch
    takes segmented_sort_pairs (a vocabulary above 4,096, 128 rows or more), else the V1
    sampler's 16 B (fewer rows sort by another path, not modelled here: a small term).
    s.topk_topp_sampler states the path ("flashinfer": the V1 sampler's figures; "native": the
    sort); unstated, a 0.8-0.11 release is taken as pip installs it, without FlashInfer, and
    0.12-0.16 as they run unless VLLM_USE_FLASHINFER_SAMPLER=1."""
    path = s.topk_topp_sampler
    if path is not None and path not in SAMPLER_PATHS:
        raise InputError(f"topk_topp_sampler {path!r}: expected one of {', '.join(SAMPLER_PATHS)}")
    if path != "flashinfer" and _segmented_sort(version, rows, model):
        return SORT_SAMPLER_BYTES_PER_LOGIT
    return V1_SAMPLER_BYTES_PER_LOGIT


# the note a plan carries where the path is unstated and the sort applies (kvplan explain lists
# it as engine.topk_topp_sampler from "default: ..."; kvplan.plan.planner.engine_defaults)
PIP_DEFAULT = ("as pip installs a 0.8-0.11 release (its wheel does not require FlashInfer, "
               "so TopKTopPSampler falls back to PyTorch's sort, 38 B a logit); the official "
               "vllm/vllm-openai image installs FlashInfer: state flashinfer (16 B)")
# ... for 0.12-0.16, where FlashInfer's sampler is opt-in
OPT_IN_DEFAULT = ("as 0.12-0.16 run unless VLLM_USE_FLASHINFER_SAMPLER=1 (FlashInfer's "
                  "sampler is opt-in there, so TopKTopPSampler sorts with PyTorch, 38 B a logit, "
                  "in vLLM's image too): state flashinfer (16 B) where it is set")


def unstated_default(version: str | None) -> str:
    """The default path's wording for this release (PIP_DEFAULT or OPT_IN_DEFAULT)."""
    return OPT_IN_DEFAULT if flashinfer_opt_in(version) else PIP_DEFAULT


# how that note starts (kvplan.plan.planner lists the default it names as a record field)
UNSTATED_NOTE = "topk_topp_sampler unstated: native"


def sampler_note(version: str | None, v1: bool, lean: bool, rows: int, model: ModelSpec,
                 s: EngineSettings) -> str | None:
    """What a plan says about the 0.8-0.16 sampler path: a stated path this profile does not read
    (another series, V0, the lean sampler, fewer than 128 rows, a small vocabulary), or, unstated
    where the sort applies, the pip default taken. None: a stated path that is used, or nothing
    to say (another series, unstated)."""
    path = s.topk_topp_sampler
    if path is None:
        sorts = v1 and not lean and _segmented_sort(version, rows, model)
        return f"{UNSTATED_NOTE}, {unstated_default(version)}" if sorts else None
    why = unused_reason(version, v1, lean, rows, model)
    return f"topk_topp_sampler {path}: {why}, so it is not used" if why else None


def unused_reason(version: str | None, v1: bool, lean: bool, rows: int | None,
                  model: ModelSpec | None) -> str | None:
    """Why the sampler path moves nothing in this plan (None: it moves the pool). `rows` and
    `model` None: the version alone (kvplan.plan.moot refuses a flag on that)."""
    if not sorts_in_profile(version):
        return (f"only the 0.8-0.16 series (0.8.0-0.16.x) sort the logits natively in their "
                f"profiling sampler; vLLM {version or 'unstated (the newest modelled)'} samples "
                "as it does with FlashInfer or without it")
    if not v1:
        return "the V0 engine's sampler does not take this path"
    if lean:
        return "Model Runner V2's lean profiling sampler runs no top-k/top-p"
    if rows is not None and rows < SEGMENTED_MIN_ROWS:
        return (f"{rows} sampler rows take PyTorch's full-sort path (fewer than "
                f"{SEGMENTED_MIN_ROWS}), not modelled: the V1 sampler's 16 B a logit either way")
    if model is not None and model.vocab_size <= SMALL_SORT_MAX:
        return (f"a vocabulary of {model.vocab_size:,} takes PyTorch's small in-place sort (not "
                "modelled): the V1 sampler's 16 B a logit either way")
    return None
