"""vLLM's version series: which accounting each release line uses, and its serve defaults.

Each series starts at the first release where the start-up accounting changed (sources: the
start-up logs in tests/assets/logs and vLLM's own messages quoted below). A version newer than
the newest known series is modelled as that series, with a note saying so; one older than the
oldest (below 0.1, vLLM's first release) as the oldest, with a note too.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from kvplan.engines.interface import parse_version
from kvplan.engines.mxfp4_hopper import triton_hopper_layout
from kvplan.engines.vllm_tp_workspaces import nvswitch_generation
from kvplan.engines.vllm_v0_early import early_batched_tokens
from kvplan.units import GIB


@dataclass(frozen=True)
class Series:
    first: tuple[int, ...]
    name: str
    changes: str  # what this series changes from the one before


SERIES = (
    Series((0, 1), "0.1-0.2.4 (V0)", "profiling: torch.cuda.max_memory_allocated after a "
           "max_num_batched_tokens forward (no non-torch memory booked); 16-token blocks"),
    Series((0, 2, 5), "0.2.5 (V0)", "total - free from mem_get_info after the profile run "
           "(vLLM PR #2031): CUDA context, NCCL and other processes counted; with TP the "
           "all-reduce inputs held by record_stream count too"),
    Series((0, 2, 6), "0.2.6-0.3.0 (V0)", "TORCH_NCCL_AVOID_RECORD_STREAMS=1: all-reduce inputs "
           "freed; CUDA graphs captured after sizing"),
    Series((0, 3, 1), "0.3.1-0.5.2 (V0)", "init free - free: the CUDA context and other "
           "processes no longer counted, only the growth over start-up"),
    Series((0, 5, 3), "0.5.3-0.6.3 (V0)", "chunked prefill on by default above 32,768 tokens: "
           "512 batched tokens profiled"),
    Series((0, 6, 4), "0.6.4-0.7 (V0)", "torch's allocated peak + non-torch memory (PR #9352); "
           "from 0.6.5 memory_profiling prints weights, non-torch and the activation peak; "
           "V0 profiles max(max_model_len, 2048) tokens (above 32,768 with chunked prefill: 512 "
           "in 0.6.4, 2,048 from 0.6.5)"),
    Series((0, 8), "0.8 (V1 default)", "V1 engine: serve defaults 8,192 batched tokens / 1,024 "
           "sequences on >= 70 GiB GPUs (not A100 from 0.9), else 2,048 / 256 (0.8.0-0.8.4 by "
           "the name, H100/H200, and 1,024 sequences on every GPU to 0.8.3); CUDA graphs captured after "
           "sizing; non-torch: device use less torch's allocated bytes, the CUDA context counted, "
           "until 0.9.0 (gpu_worker.py determine_available_memory), growth over a start-up "
           "MemorySnapshot from 0.9.1; the V1 sampler profiles fp32 logits and "
           "their top-k/top-p sort (PyTorch's segmented sort without FlashInfer, 38 B a "
           "logit, as 0.10-0.16; 16 B with it; V0's 40 B)"),
    Series((0, 9), "0.9", '"GPU KV cache size" = blocks // groups x block size'),
    Series((0, 10), "0.10", "hybrid sliding/full grouping with the 1.5x group-size rule; "
           "linear-attention (mamba-style) state groups in the same pool, the attention block "
           "raised so its page holds the state (Qwen3-Next from 0.10.2; vllm_hybrid)"),
    Series((0, 11), "0.11-0.20", '"Free memory on device ... Actual usage is" breakdown line; '
           "from 0.11.1 hybrid blocks align to 32 tokens on Blackwell for head size 256"),
    Series((0, 21), "0.21-0.24", "CUDA-graph memory estimated and subtracted before sizing "
           '("CUDA graph memory profiling is enabled (default since v0.21.0)"; gpu_worker.py '
           "determine_available_memory: requested - non-KV - cudagraph estimate)"),
    Series((0, 25), "0.25-0.28", "Model Runner V2 default for dense models (read in the 0.25.0 "
           "and 0.28.0 wheels, config/vllm.py use_v2_model_runner / "
           "_is_default_v2_model_runner_model: generate models that are neither hybrid nor "
           "attention-free, MoE only for DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES): its profiling "
           "sampler skips top-k/top-p (gpu/model_runner.py _dummy_sampler_run), so nothing is "
           "sorted: the logits and one fp32 copy in 0.25, from 0.26 the bf16 logits untouched "
           "(gpu/sample/sampler.py apply_sampling_params; task h36samp)"),
    Series((0, 29), "0.29-0.31", "Model Runner V2 default for all models; batch-sharded "
           "sampling holds 1/TP of the logits per GPU (v0.29.0 release notes)"),
    Series((0, 33), "0.33", "read in the 0.33.0 wheel: the profiling sampler runs a second, "
           "warm-up pass with every sampling parameter on (gpu/model_runner.py "
           "_dummy_sampler_run, SamplingParams.for_sampler_warmup: top-k/top-p/min-p, "
           "penalties, logprobs): the fp32 copy of the logits and FlashInfer's fused top-k/top-p "
           "sampling with its masked fp32 copy, 14 B a logit; batch-sharded sampling is off unless asked for "
           "(config/parallel.py: 'Currently defaults to False'), so every TP rank samples all "
           "rows; GB10 on the small defaults tier (arg_utils.py get_batch_defaults; its "
           "16,384 serve batched tokens on GPUs of 160 GiB or more date from 0.28.0)"),
    Series((0, 34), "0.34", "read in the 0.34.0 wheel: the extensible KV cache, on by default on "
           "CUDA and ROCm (config/vllm.py _resolve_extensible_kv_cache), is sized after warm-up "
           "and CUDA-graph capture from the memory then free (v1/worker/extensible_kv_cache.py "
           "measure_kv_cache_bytes): gpu_memory_utilization defaults to 1.0 with it "
           "(config/cache.py resolved_gpu_memory_utilization; 0.92 without), the budget is "
           "capped at the memory free at start-up less a margin of max(1 GiB, 0.75 x the "
           "transient peak), and the graph estimate is 0 (the graphs are measured after "
           "capture); 64-token blocks by default (config/cache.py DEFAULT_BLOCK_SIZE; not modelled: "
           "kvplan keeps the block it is given, and says so)"),
)
# Newest release read: the vllm==0.34.0 wheel on PyPI (pip download --no-deps vllm==0.34.0;
# diffed against 0.33.0 for issue #13, task h41v034: v1/worker/gpu_worker.py,
# v1/worker/extensible_kv_cache.py, utils/mem_utils.py, v1/worker/gpu/, config/cache.py,
# config/vllm.py, engine/arg_utils.py, v1/core/kv_cache_utils.py; docs/engines.md "0.34").
# 0.32.0 was not read: it is modelled as the 0.29-0.31 series, with a note.
NEWEST_KNOWN = (0, 34, 0)
DEFAULT_VERSION = "0.34.0"
UNREAD = ((0, 32),)  # releases between known series whose source was not read
V1_FROM = (0, 8)
# vLLM releases in which both engines shipped (V1 the default from 0.8, vllm/envs.py VLLM_USE_V1
# "1"; V0 removed in 0.11): a version suffix below selects V0 there.
BOTH_ENGINES = (V1_FROM, (0, 11))
V0_SUFFIXES = ("-v0", ":v0", "+v0")


def forces_v0(version: str) -> bool:
    """Whether a version string asks for the V0 engine ('0.8.5-v0')."""
    return version.lower().endswith(V0_SUFFIXES)

GRAPH_SUBTRACTED_FROM = (0, 21)
MRV2_DENSE_FROM = (0, 25)  # Model Runner V2 default for dense models (0.25.0 config/vllm.py)
# The MoE architectures Model Runner V2 runs by default before it runs them all: 0.25.0's and
# 0.28.0's config/vllm.py DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES name DeepseekV2ForCausalLM,
# Qwen2MoeForCausalLM and GraniteMoeForCausalLM (0.28 adds DeepSeek-V4, Inkling, Kimi-K3 and
# LongCat-Flash-Ngram, which kvplan has no spec for), here by their config.json model_type.
MRV2_DEFAULT_MOE_TYPES = frozenset({"deepseek_v2", "qwen2_moe", "granitemoe"})
MRV2_ALL_FROM = (0, 29)  # ... for all models, with batch-sharded sampling
# Before 0.25 Model Runner V2 ran by default only the architectures listed in config/vllm.py
# DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES (task h30v1miss, read in the 0.20.0-0.24.0 wheels; 0.20.0
# and 0.21.0 have no list): 0.22.0 {Qwen3ForCausalLM} (:69) and 0.23.0 {Llama, Mistral, Qwen3}
# (:69-75), both only for a model neither MoE nor quantized (_is_default_v2_model_runner_model:
# "return not model_config.is_moe and not model_config.is_quantized", :532 / :558); 0.24.0 {Qwen3,
# DeepseekV2, Qwen2Moe, GraniteMoe, Llama, Mistral} (:68-77) for any listed architecture (:559-561).
# By config.json model_type: (types, quantized and MoE models too).
MRV2_LISTED: dict[tuple[int, ...], tuple[frozenset[str], bool]] = {
    (0, 22): (frozenset({"qwen3"}), False),
    (0, 23): (frozenset({"qwen3", "llama", "mistral"}), False),
    (0, 24): (frozenset({"qwen3", "deepseek_v2", "qwen2_moe", "granitemoe", "llama", "mistral"}),
              True),
}
UNTOUCHED_LOGITS_FROM = (0, 26)  # Model Runner V2's dummy pass leaves the bf16 logits as they are
SAMPLER_WARMUP_FROM = (0, 33)  # the profiling sampler's warm-up pass; sharded sampling opt-in
# `gpu_memory_utilization`'s default: 0.9 until 0.19.1 (config/cache.py:41 in 0.19.0 and 0.19.1;
# entrypoints/llm.py:236), 0.92 from 0.20.0 (config/cache.py:66 "If unspecified, will use the
# default value of 0.92"; llm.py:231), the same through 0.33.0 (:215; read in the 0.20.0, 0.25.0,
# 0.28.0-0.30.0, 0.32.0 and 0.33.0 wheels); 0.34 resolves it by the extensible cache
# (kvplan.engines.vllm_extensible)
UTIL_092_FROM = (0, 20)
UTIL_092_WHY = ("default (0.92 from vLLM 0.20: config/cache.py:66 in 0.20.0, :215 in 0.33.0; "
                "0.9 before)")
EXTENSIBLE_KV_FROM = (0, 34)  # the KV cache sized after warm-up (kvplan.engines.vllm_extensible)
BIG_GPU_BYTES = 70 * GIB
HUGE_GPU_BYTES = 160 * GIB  # 0.28 on: "for GPUs like B200/B300 with >= 160GB memory"
HUGE_TIER_FROM = (0, 28)  # read in the 0.25.0, 0.26.0, 0.27.0 (absent) and 0.28.0 wheels
# The V1 serve defaults before the memory rule (task h36v083, read in the 0.8.0-0.9.0 wheels,
# engine/arg_utils.py _set_default_args_v1): 0.8.0-0.8.3 pick the batched tokens by the device's
# name ("h100" or "h200" in it: 8,192, else 2,048; 0.8.3 :1647) and 1,024 sequences on every GPU
# ("default_max_num_seqs = 1024", 0.8.0 :1715, 0.8.3 :1669); 0.8.4 picks both by the name (1,024
# or 256, :1669-1682); 0.8.5 by memory, >= 70 GiB (:1596), without 0.9.0's A100 exception
# ('and "a100" not in device_name', 0.9.0 :1495, PR #17885).
SEQS_BY_NAME_FROM = (0, 8, 4)
BY_MEMORY_FROM = (0, 8, 5)
A100_SMALL_FROM = (0, 9)
# "GPU KV cache size" printed as int(max concurrency x max_model_len) (v1/core/kv_cache_utils.py:
# 0.20.0 :1694-1698 prints num_blocks // groups x block; 0.21.0 :1708, 0.22.0 :1731, 0.25.0-0.29.0
# get_kv_cache_capacity, 0.30.0 :2373-2383, 0.31.0 :2444-2452, 0.34.0 :1141-1149 the concurrency
# form; task h36v030). Equal to blocks // groups x block for one group and a block-multiple length.
CONCURRENCY_TOKENS_FROM = (0, 21)
# Sliding-window groups hold window - 1 + max_in_flight_tokens, in-flight = max_concurrent_batches
# x max_num_batched_tokens (config/vllm.py: 0.26.0 :512-533, 0.27.0 :540-556, 0.30.0 :589-610;
# 2 with async scheduling at PP 1, on by default: 0.26.0 :1107, 0.30.0 :1438-1487); 0.21.0-0.25.0
# kv_cache_interface.py SlidingWindowSpec: window - 1 + max_num_batched_tokens (task h36v030;
# 0.26.0 :584 the in-flight form).
IN_FLIGHT_BATCHES_FROM = (0, 26)
# GB10 gets the 2,048 / 256 serve tier in every V1 release kvplan models: 0.33 on by its compute
# capability (arg_utils.py get_batch_defaults, 0.34.0 :2995-3003 "GB10 (DGX Spark, cc 12.1)");
# before, get_device_total_memory is NVML's nvmlDeviceGetMemoryInfo (platforms/cuda.py
# NvmlCudaPlatform, 0.30.0 :833-836), which raises NotSupported on GB10's unified memory (public
# reports: NVIDIA/cosmos-framework PR #22, NeMo-RL PR #2203, nvitop PR #208's driver 580 dump), and
# get_batch_defaults' except takes device_memory = 0 (0.30.0 :2719-2725; the same NVML call and
# except in 0.13.0 platforms/cuda.py :526 / arg_utils.py :1786-1791, 0.22.0 :652 / :2300-2305,
# 0.25.0 :767 / :2415-2420; 0.8-0.12 not read): the small tier, as fit logs 28 and 112 (0.13.0, GB10)
# print "max_num_batched_tokens=2048 (auto)" (task h36v030; a driver whose NVML answers would
# give the large tier).
GB10_SMALL_TIER = True


@dataclass(frozen=True)
class Flavour:
    """Which accounting a version string selects."""

    version: str
    v1: bool
    graphs_subtracted: bool
    grouped_tokens: bool = True  # "GPU KV cache size" = blocks // groups x block (0.9 on)
    wide_groups: bool = True  # the 1.5 x group-size rule (0.10 on)
    series: str = ""
    note: str | None = None  # set when the version is newer than any known series
    mrv2_dense: bool = False  # Model Runner V2 runs dense models (its profiling sampler is lean)
    mrv2_all: bool = False  # ... and every model
    sharded_sampling: bool = False  # each TP rank samples 1/TP of the rows (0.29-0.32)
    sampler_warmup: bool = False  # 0.33: the profiling sampler also runs every parameter
    untouched_logits: bool = False  # 0.26 on: Model Runner V2's dummy pass makes no fp32 copy
    mrv2_listed: tuple[frozenset[str], bool] | None = None  # 0.22-0.24: MRV2_LISTED's entry
    concurrency_tokens: bool = False  # printed tokens = int(concurrency x max_model_len) (0.21 on)
    in_flight_batches: bool = False  # sliding groups hold 2 batches in flight at PP 1 (0.26 on)
    extensible_kv: bool = False  # 0.34 on: sized after warm-up, utilization 1.0 by default
    default_utilization: Fraction = Fraction(9, 10)  # gpu_memory_utilization unset (0.92 from 0.20)

    def lean_sampler(self, moe: bool, model_type: str = "", hybrid: bool = False,
                     quantized: bool = False) -> bool:
        """Whether the profiling sampler skips top-k/top-p (Model Runner V2). In 0.25-0.28 vLLM
        picks it for generate models that are not hybrid (mamba-style layers), and for MoE
        models only where the architecture is listed (config/vllm.py
        _is_default_v2_model_runner_model); in 0.22-0.24 only for the listed architectures
        (MRV2_LISTED; `quantized`: the model has a quantization method, which 0.22-0.23 leave
        on the old runner)."""
        if self.mrv2_all:
            return True
        if self.mrv2_listed is not None:
            types, any_model = self.mrv2_listed
            return (model_type in types and not hybrid
                    and (any_model or not (moe or quantized)))
        return self.mrv2_dense and not hybrid and (not moe or model_type in MRV2_DEFAULT_MOE_TYPES)

    @property
    def mxfp4_kernel_default(self) -> str:
        return "marlin"


def series_of(ver: tuple[int, ...]) -> Series:
    found = SERIES[0]
    for s in SERIES:
        if ver >= s.first:
            found = s
    return found


def flavour(version: str | None) -> Flavour:
    """'0.6.4' -> V0; '0.10.2' -> V1; '0.21' -> V1 with CUDA graphs subtracted.

    A suffix '-v0' (e.g. '0.8.5-v0') selects the V0 engine in versions that still had it.
    """
    text = version or DEFAULT_VERSION
    forced_v0 = forces_v0(text)
    ver = parse_version(text) or ()
    note = None
    if ver[:2] > NEWEST_KNOWN[:2]:
        known = ".".join(map(str, NEWEST_KNOWN))
        note = (f"vLLM {text} is newer than the newest modelled release ({known}): modelled as "
                f"the {SERIES[-1].name} series")
    elif ver and ver < SERIES[0].first:  # 0.1.0 (June 2023) is vLLM's first release on PyPI
        note = (f"vLLM {text} is older than the oldest modelled release (0.1, vLLM's first): "
                f"modelled as the {SERIES[0].name} series")
    elif ver[:2] in UNREAD:
        note = (f"vLLM {text}: this release's source was not read; modelled as the "
                f"{series_of(ver).name} series")
    v1 = ver >= V1_FROM and not forced_v0
    warmup = v1 and ver >= SAMPLER_WARMUP_FROM
    return Flavour(text, v1, v1 and ver >= GRAPH_SUBTRACTED_FROM,
                   grouped_tokens=ver >= (0, 9), wide_groups=ver >= (0, 10),
                   series=series_of(ver).name + (" (V0 forced)" if forced_v0 else ""), note=note,
                   mrv2_dense=v1 and ver >= MRV2_DENSE_FROM, mrv2_all=v1 and ver >= MRV2_ALL_FROM,
                   sharded_sampling=v1 and ver >= MRV2_ALL_FROM and not warmup,
                   sampler_warmup=warmup, untouched_logits=v1 and ver >= UNTOUCHED_LOGITS_FROM,
                   mrv2_listed=MRV2_LISTED.get(ver[:2]) if v1 else None,
                   concurrency_tokens=v1 and ver >= CONCURRENCY_TOKENS_FROM,
                   in_flight_batches=v1 and ver >= IN_FLIGHT_BATCHES_FROM,
                   extensible_kv=v1 and ver >= EXTENSIBLE_KV_FROM,
                   default_utilization=Fraction(92, 100) if ver >= UTIL_092_FROM
                   else Fraction(9, 10))


HOPPER = ("h100", "h200", "h20", "h800", "gh200")
BLACKWELL = ("b200", "b100", "gb200", "b300", "gb300")


def mla_block_size(gpu_name: str, block: int, v1: bool) -> int:
    """vLLM raises MLA blocks to 64 (FlashMLA, Hopper) or 128 (CUTLASS MLA, Blackwell)."""
    name = gpu_name.lower()
    if not v1 or block % 64 == 0:
        return block
    if name.startswith(BLACKWELL):
        return 128
    if name.startswith(HOPPER):
        return 64
    return block


def mxfp4_kernel(gpu_name: str, version: str | None = None, label: str = "",
                 device_names: tuple[str, ...] | list[str] = ()) -> str:
    """The MXFP4 MoE kernel vLLM lays gpt-oss experts out for: FlashInfer on Blackwell; on
    Hopper the Triton layout from 0.12 (the wheel vendors `triton_kernels`; the layout by release
    in kvplan.engines.mxfp4_hopper), Marlin before; Marlin elsewhere. The part is read from the
    catalog name, else from the label and runtime names (a calibration run's GPU built from the
    log's total keeps those of its `gpu` directive)."""
    name = gpu_name.lower()
    generation = nvswitch_generation(label, device_names)
    if name.startswith(BLACKWELL) or generation == "blackwell":
        return "flashinfer-sm100"
    if name.startswith(HOPPER) or generation == "hopper":
        layout = triton_hopper_layout(parse_version(version or DEFAULT_VERSION) or ())
        if layout is not None:
            return layout.kernel
    return "marlin"


def batching_defaults(context_tokens: int, gpu_name: str, fl: Flavour,
                      memory: int) -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs) that `vllm serve` picks when not given."""
    if fl.v1:
        name = gpu_name.lower()
        ver = parse_version(fl.version) or ()
        if ver < BY_MEMORY_FROM:  # 0.8.0-0.8.4: by the device's name (_set_default_args_v1)
            hopper = "h100" in name or "h200" in name
            return (8192 if hopper else 2048), (1024 if hopper or ver < SEQS_BY_NAME_FROM else 256)
        if memory >= HUGE_GPU_BYTES and ver >= HUGE_TIER_FROM:
            return 16384, 1024  # get_batch_defaults from 0.28.0 (arg_utils.py:2582; not 0.27.0)
        big = (memory >= BIG_GPU_BYTES and ("a100" not in name or ver < A100_SMALL_FROM)
               and not (GB10_SMALL_TIER and name.startswith("gb10")))
        return (8192, 1024) if big else (2048, 256)
    early = early_batched_tokens(fl.version, context_tokens)
    if early is not None:
        return early, 256
    return (max(context_tokens, 2048) if context_tokens <= 32768 else 2048), 256
