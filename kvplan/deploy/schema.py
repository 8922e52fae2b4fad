"""The kvplan/v1 deployment file as kvplan computes with it: plain frozen records (kvplan.plain).

Each class is validated by the pydantic class of the same name in kvplan.deploy.validators,
which holds the descriptions the docs print and is the validator of record: every error message
is pydantic's. `TYPES` below states each field's type and bounds once more, for the fast
acceptor (kvplan.deploy.fast), which builds the records of a document that is plainly valid
without importing pydantic's model machinery; tests/schema/test_plain.py checks `TYPES` against
the validators field by field and the two paths against each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, get_args

from kvplan.inputs import limits as lim
from kvplan.plain import REQUIRED, Plain

API_VERSION = "kvplan/v1"
_V = "kvplan.deploy.validators"


# --- field types, for the fast acceptor: (kind, arguments) ------------------------------------
def Int(gt: int | None = None, ge: int | None = None, le: int | None = None) -> tuple[Any, ...]:
    """A whole number, not true/false, within the bounds."""
    return ("int", gt, ge, None, le)


def Num(gt: float | None = None, ge: float | None = None, lt: float | None = None,
        le: float | None = None) -> tuple[Any, ...]:
    """A finite number (an int becomes a float, as pydantic converts it)."""
    return ("float", gt, ge, lt, le)


STR: tuple[Any, ...] = ("str",)
BOOL: tuple[Any, ...] = ("bool",)


def Lit(*values: str) -> tuple[Any, ...]:
    return ("literal", frozenset(values))


def Opt(kind: tuple[Any, ...]) -> tuple[Any, ...]:
    return ("optional", kind)


def Sub(name: str) -> tuple[Any, ...]:
    """A nested block: the record class of that name."""
    return ("model", name)


# SGLang's --attention-backend choices: ATTENTION_BACKEND_CHOICES in
# sglang/srt/arg_groups/choices.py of the sglang 0.5.21 wheel (PyPI), which server_args.py
# re-exports; "nsa" and "compressed" are its deprecated aliases of "dsa" and "dsv4". 0.5.22 adds
# "llada2_cfg_flashinfer" (choices.py:83 in the 0.5.22 and 0.5.23 wheels); 0.5.23 keeps
# "tokenspeed_mla" as a deprecated alias of "cutedsl_mla" (:87).
AttentionBackend = Literal[
    "triton", "torch_native", "flex_attention", "dsa", "nsa", "qsa", "dsv4", "compressed",
    "fa3", "fa4", "flashinfer", "llada2_cfg_flashinfer", "flashmla", "trtllm_mla", "cutedsl_mla",
    "tokenspeed_mla", "trtllm_mha", "hpc_ops", "minicpm_flashattn", "minicpm_flashinfer", "aiter", "wave",
    "intel_amx", "ascend", "intel_xpu"]
ATTENTION_BACKENDS: tuple[str, ...] = get_args(AttentionBackend)
# SGLang's --mm-feature-transport choices (arg_groups/fields/mm.py:144 in the 0.5.23 wheel;
# kvplan.engines.sglang_mm.TRANSPORTS)
MmFeatureTransport = Literal["cpu", "cuda_ipc", "cuda_vmm"]
MM_FEATURE_TRANSPORTS: tuple[str, ...] = get_args(MmFeatureTransport)
MoeA2aBackend = Literal["none", "deepep", "mooncake"]  # SGLang 0.5.5's --moe-a2a-backend choices
MOE_A2A_BACKENDS: tuple[str, ...] = get_args(MoeA2aBackend)
# SGLang's --speculative-algorithm values kvplan models (kvplan.engines.sglang_spec.ALGORITHMS)
SpeculativeAlgorithm = Literal["EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM"]
SPECULATIVE_ALGORITHMS: tuple[str, ...] = get_args(SpeculativeAlgorithm)
# the tensor-parallel transport (kvplan.engines.interface.TP_TRANSPORTS, read by vLLM's profile)
TpTransport = Literal["nvlink", "pcie-p2p", "host"]
TP_TRANSPORTS: tuple[str, ...] = get_args(TpTransport)
# vLLM 0.10's top-k/top-p sampler path (kvplan.engines.vllm_sort_sampler.SAMPLER_PATHS)
TopkToppSampler = Literal["native", "flashinfer"]
TOPK_TOPP_SAMPLERS: tuple[str, ...] = get_args(TopkToppSampler)
# how vLLM is started: `vllm serve` or the offline LLM class (kvplan.engines.vllm_entrypoint)
Entrypoint = Literal["serve", "offline"]
ENTRYPOINTS: tuple[str, ...] = get_args(Entrypoint)
# vLLM's CUDAGraphMode (config/compilation.py :59-63 in 0.30.0; kvplan.engines.vllm_capture)
CudagraphMode = Literal["NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"]
CUDAGRAPH_MODES: tuple[str, ...] = get_args(CudagraphMode)

POS = Int(gt=0)
TOKENS = Int(gt=0, le=lim.MAX_CONTEXT_TOKENS)
USERS = Int(gt=0, le=lim.MAX_USERS)
WAYS = Int(gt=0, le=lim.MAX_PARALLEL)
POSNUM = Num(gt=0)
MAX_GIB = lim.MAX_MEMORY_BYTES / 2**30  # a memory size in GiB: 1 PiB, as a device's memory_bytes


class Hardware(Plain):
    _VALIDATORS = _V
    _FIELDS = {"gpu": REQUIRED, "count": None, "price_per_hour_usd": None,
               "bandwidth_efficiency": 1.0, "flops_efficiency": 1.0}
    TYPES = {"gpu": STR, "count": Opt(Int(gt=0, le=lim.MAX_GPUS)),
             "price_per_hour_usd": Opt(POSNUM), "bandwidth_efficiency": Num(gt=0, le=1),
             "flops_efficiency": Num(gt=0, le=1)}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        gpu: str
        count: int | None
        price_per_hour_usd: float | None
        bandwidth_efficiency: float
        flops_efficiency: float


class Parallel(Plain):
    _VALIDATORS = _V
    _FIELDS = {"tensor": 1, "pipeline": 1, "nodes": None, "expert": None, "attention_dp": None}
    TYPES = {"tensor": WAYS, "pipeline": WAYS, "nodes": Opt(WAYS), "expert": Opt(WAYS),
             "attention_dp": Opt(WAYS)}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        tensor: int
        pipeline: int
        nodes: int | None
        expert: int | None
        attention_dp: int | None


class Engine(Plain):
    """Serving settings, named as vLLM names its flags (kvplan.deploy.validators.Engine says
    which SGLang and TensorRT-LLM settings each name holds)."""

    _VALIDATORS = _V
    _FIELDS = {"name": "ideal", "version": None, "gpu_memory_utilization": 0.9,
               "max_model_len": None, "kv_cache_dtype": "auto", "weight_dtype": None,
               "allocation": "paged", "block_size": 16, "kv_group_size": 64,
               "max_num_seqs": None, "max_num_batched_tokens": None,
               "enable_prefix_caching": False, "reserve_gib": None, "kv_budget_gib": None,
               "enforce_eager": None, "enable_extensible_kv_cache": None,
               "kv_cache_memory_bytes": None, "cpu_offload_gb": None,
               "limit_mm_per_prompt": None, "speculative_model": None,
               "num_speculative_tokens": None, "cuda_graph_max_bs": None,
               "max_total_tokens": None, "max_tokens_in_paged_kv_cache": None,
               "trtllm_config": None, "trt_activation_bytes": None, "attention_backend": None,
               "mm_feature_transport": None, "trtllm_backend": None, "tp_transport": None,
               "disable_custom_all_reduce": None, "disable_hybrid_kv_cache_manager": None,
               "chunked_local_hybrid": None,
               "topk_topp_sampler": None,
               "entrypoint": None, "cudagraph_capture_sizes": None,
               "max_cudagraph_capture_size": None, "cudagraph_mode": None,
               "speculative_algorithm": None, "speculative_num_steps": None,
               "speculative_eagle_topk": None, "speculative_num_draft_tokens": None,
               "moe_dense_tp_size": None, "enable_dp_lm_head": None, "moe_a2a_backend": None}
    TYPES = {
        "name": Lit("ideal", "vllm", "sglang", "trtllm", "transformers"),
        "version": Opt(STR), "gpu_memory_utilization": Num(gt=0, le=1),
        "max_model_len": Opt(TOKENS), "kv_cache_dtype": STR, "weight_dtype": Opt(STR),
        "allocation": Lit("paged", "reserved"), "block_size": Int(gt=0, le=lim.MAX_BLOCK_TOKENS),
        "kv_group_size": Int(gt=0, le=lim.MAX_HEAD_DIM),
        "max_num_seqs": Opt(Int(gt=0, le=lim.MAX_SEQS)), "max_num_batched_tokens": Opt(TOKENS),
        "enable_prefix_caching": BOOL, "reserve_gib": Opt(Num(ge=0, le=MAX_GIB)),
        "kv_budget_gib": Opt(Num(gt=0, le=MAX_GIB)),
        "enforce_eager": Opt(BOOL), "enable_extensible_kv_cache": Opt(BOOL),
        "kv_cache_memory_bytes": Opt(Int(gt=0, le=lim.MAX_MEMORY_BYTES)),
        "cpu_offload_gb": Opt(Num(ge=0, le=MAX_GIB)),
        "limit_mm_per_prompt": Opt(Int(ge=0, le=lim.MAX_SEQS)), "speculative_model": Opt(STR),
        "num_speculative_tokens": Opt(Int(gt=0, le=lim.MAX_SEQS)),
        "cuda_graph_max_bs": Opt(Int(gt=0, le=lim.MAX_SEQS)), "max_total_tokens": Opt(TOKENS),
        "max_tokens_in_paged_kv_cache": Opt(TOKENS), "trtllm_config": Opt(STR),
        "trt_activation_bytes": Opt(Int(gt=0, le=lim.MAX_MEMORY_BYTES)),
        "attention_backend": Opt(Lit(*ATTENTION_BACKENDS)),
        "mm_feature_transport": Opt(Lit(*MM_FEATURE_TRANSPORTS)),
        "trtllm_backend": Opt(Lit("pytorch", "tensorrt")),
        "tp_transport": Opt(Lit(*TP_TRANSPORTS)), "disable_custom_all_reduce": Opt(BOOL),
        "disable_hybrid_kv_cache_manager": Opt(BOOL),
        "chunked_local_hybrid": Opt(BOOL),
        "topk_topp_sampler": Opt(Lit(*TOPK_TOPP_SAMPLERS)),
        "entrypoint": Opt(Lit(*ENTRYPOINTS)), "cudagraph_capture_sizes": Opt(STR),
        "max_cudagraph_capture_size": Opt(TOKENS), "cudagraph_mode": Opt(Lit(*CUDAGRAPH_MODES)),
        "speculative_algorithm": Opt(Lit(*SPECULATIVE_ALGORITHMS)),
        "speculative_num_steps": Opt(Int(gt=0, le=lim.MAX_SEQS)),
        "speculative_eagle_topk": Opt(Int(gt=0, le=lim.MAX_SEQS)),
        "speculative_num_draft_tokens": Opt(Int(gt=0, le=lim.MAX_SEQS)),
        "moe_dense_tp_size": Opt(WAYS), "enable_dp_lm_head": Opt(BOOL),
        "moe_a2a_backend": Opt(Lit(*MOE_A2A_BACKENDS)),
    }
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        name: str
        version: str | None
        gpu_memory_utilization: float
        max_model_len: int | None
        kv_cache_dtype: str
        weight_dtype: str | None
        allocation: str
        block_size: int
        kv_group_size: int
        max_num_seqs: int | None
        max_num_batched_tokens: int | None
        enable_prefix_caching: bool
        reserve_gib: float | None
        kv_budget_gib: float | None
        enforce_eager: bool | None
        enable_extensible_kv_cache: bool | None
        kv_cache_memory_bytes: int | None
        cpu_offload_gb: float | None
        limit_mm_per_prompt: int | None
        speculative_model: str | None
        num_speculative_tokens: int | None
        cuda_graph_max_bs: int | None
        max_total_tokens: int | None
        max_tokens_in_paged_kv_cache: int | None
        trtllm_config: str | None
        trt_activation_bytes: int | None
        attention_backend: str | None
        mm_feature_transport: str | None
        trtllm_backend: str | None
        tp_transport: str | None
        disable_custom_all_reduce: bool | None
        disable_hybrid_kv_cache_manager: bool | None
        chunked_local_hybrid: bool | None
        topk_topp_sampler: str | None
        entrypoint: str | None
        cudagraph_capture_sizes: str | None
        max_cudagraph_capture_size: int | None
        cudagraph_mode: str | None
        speculative_algorithm: str | None
        speculative_num_steps: int | None
        speculative_eagle_topk: int | None
        speculative_num_draft_tokens: int | None
        moe_dense_tp_size: int | None
        enable_dp_lm_head: bool | None
        moe_a2a_backend: str | None


class ContextTokens(Plain):
    """Tokens a conversation holds (prompt plus output): a mean, percentiles, or a sample."""

    _VALIDATORS = _V
    _FIELDS = {"mean": None, "p50": None, "p95": None, "p99": None, "sample": None}
    TYPES = {"mean": Opt(TOKENS), "p50": Opt(TOKENS), "p95": Opt(TOKENS), "p99": Opt(TOKENS),
             "sample": Opt(STR)}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        mean: int | None
        p50: int | None
        p95: int | None
        p99: int | None
        sample: str | None

    @property
    def has_spread(self) -> bool:
        """Whether it gives a spread of lengths (a sample or percentiles), not a mean alone."""
        return self.sample is not None or any(
            q is not None for q in (self.p50, self.p95, self.p99))


class Traffic(Plain):
    _VALIDATORS = _V
    _FIELDS = {"peak_concurrent_users": None, "arrival_rate_per_s": None,
               "mean_duration_s": None, "peak_to_mean": 1.0, "context_tokens": None,
               "shared_prefix_tokens": 0, "risk": None, "min_tokens_per_s_per_user": None,
               "prompt_tokens": None}
    TYPES = {"peak_concurrent_users": Opt(USERS), "arrival_rate_per_s": Opt(POSNUM),
             "mean_duration_s": Opt(POSNUM), "peak_to_mean": Num(ge=1),
             "context_tokens": Opt(Sub("ContextTokens")),
             "shared_prefix_tokens": Int(ge=0, le=lim.MAX_CONTEXT_TOKENS),
             "risk": Opt(Num(gt=0, lt=1)), "min_tokens_per_s_per_user": Opt(POSNUM),
             "prompt_tokens": Opt(POS)}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        peak_concurrent_users: int | None
        arrival_rate_per_s: float | None
        mean_duration_s: float | None
        peak_to_mean: float
        context_tokens: ContextTokens | None
        shared_prefix_tokens: int
        risk: float | None
        min_tokens_per_s_per_user: float | None
        prompt_tokens: int | None

    @property
    def has_load(self) -> bool:
        return self.peak_concurrent_users is not None or self.arrival_rate_per_s is not None


class Requirement(Plain):
    _VALIDATORS = _V
    _FIELDS = {"min_users": None, "headroom_pct": 0.0}
    TYPES = {"min_users": Opt(USERS), "headroom_pct": Num(ge=0)}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        min_users: int | None
        headroom_pct: float


class Deployment(Plain):
    """One deployment: a model on some GPUs under an engine, and the load it must carry."""

    _VALIDATORS = _V
    _FIELDS = {"apiVersion": REQUIRED, "name": REQUIRED, "model": REQUIRED,
               "hardware": REQUIRED, "parallel": Parallel.model_construct(),
               "engine": Engine.model_construct(), "traffic": REQUIRED,
               "requirement": Requirement.model_construct()}
    TYPES = {"apiVersion": Lit(API_VERSION), "name": STR, "model": STR,
             "hardware": Sub("Hardware"), "parallel": Sub("Parallel"), "engine": Sub("Engine"),
             "traffic": Sub("Traffic"), "requirement": Sub("Requirement")}
    __slots__ = tuple(_FIELDS)
    if TYPE_CHECKING:
        apiVersion: str  # noqa: N815 - the file's own key
        name: str
        model: str
        hardware: Hardware
        parallel: Parallel
        engine: Engine
        traffic: Traffic
        requirement: Requirement


RECORDS: dict[str, type[Plain]] = {cls.__name__: cls for cls in (
    Hardware, Parallel, Engine, ContextTokens, Traffic, Requirement, Deployment)}


# --- the rules across fields: one text each, raised by the validators and by the fast acceptor
def context_tokens_length(c: Any) -> str | None:
    """What is wrong with how a ContextTokens gives its length, if anything."""
    given = [q for q in (c.p50, c.p95, c.p99) if q is not None]
    if c.mean is None and c.sample is None and len(given) < 2:
        return "give mean, at least two of p50/p95/p99, or a sample file"
    if c.sample is not None and given:
        return "give a sample or percentiles, not both"
    return None


def context_tokens_order(c: Any) -> str | None:
    if c.p95 is not None and c.mean is not None and c.p95 < c.mean:
        return f"p95 ({c.p95}) must not be below the mean ({c.mean})"
    return None


def traffic_load(t: Any) -> str | None:
    """No load at all is valid here (`kvplan size` plans one replica); planning a fleet or
    checking a deployment requires one (kvplan.deploy.plan_deployment, need_load)."""
    rate = t.arrival_rate_per_s is not None or t.mean_duration_s is not None
    if t.peak_concurrent_users is not None and rate:
        return "give peak_concurrent_users or an arrival rate, not both"
    if rate and (t.arrival_rate_per_s is None or t.mean_duration_s is None):
        return "arrival_rate_per_s and mean_duration_s go together"
    if rate:  # Little's law's peak has peak_concurrent_users' bound (task srefirst: 1e308 x
        # 1e308 reached the cost's float and stopped as an internal error)
        from kvplan.units import exact

        peak = exact(t.arrival_rate_per_s) * exact(t.mean_duration_s) * exact(t.peak_to_mean)
        if peak > lim.MAX_USERS:
            return (f"arrival_rate_per_s x mean_duration_s x peak_to_mean is more than "
                    f"{lim.MAX_USERS:,} conversations at once, the limit on "
                    "peak_concurrent_users (docs/limits.md); check the units (requests per "
                    "second, seconds)")
    return None


# class name -> its rules, in the order the validators apply them
RULES: dict[str, tuple[Any, ...]] = {
    "ContextTokens": (context_tokens_length, context_tokens_order),
    "Traffic": (traffic_load,),
}
