"""What every engine profile takes and returns: settings, measured overrides, steps, results.

An engine profile is a pure function `(SizeRequest, EngineSettings) -> EngineResult`. The result
carries the engine's own numbers (KV bytes, tokens, blocks, concurrency, whether it starts) and a
list of `Step`s: every intermediate number with its unit and the operation that produced it, so
`kvplan explain` can print the arithmetic and `verify_steps` can re-check it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from typing import TYPE_CHECKING

from kvplan.capacity.plan import Breakdown, SizeRequest, SizeResult, size
from kvplan.engines.release import parse_version  # the one release reader; imported from here too
from kvplan.engines.steps import (  # the arithmetic trail lives there; imported from here too
    Arg,
    Step,
    Steps,
    evaluate,
    verify_steps,
)
from kvplan.errors import InputError
from kvplan.specs.schema import ModelSpec
from kvplan.units import parse_choice

if TYPE_CHECKING:  # vllm_capture imports this module
    from kvplan.engines.vllm_capture import Capture

__all__ = [
    "ENGINE_ONLY",
    "TP_TRANSPORTS",
    "Arg",
    "Engine",
    "EngineResult",
    "EngineSettings",
    "Interval",
    "Measured",
    "Step",
    "Steps",
    "evaluate",
    "finish_size",
    "parse_engine",
    "parse_version",
    "verify_steps",
]


class Engine(str, Enum):
    """A serving engine whose memory accounting kvplan reproduces."""

    ideal = "ideal"
    vllm = "vllm"
    sglang = "sglang"
    trtllm = "trtllm"
    transformers = "transformers"


_ENGINE_ALIASES = {
    "tensorrt-llm": Engine.trtllm,
    "tensorrt_llm": Engine.trtllm,
    "trt-llm": Engine.trtllm,
    "hf": Engine.transformers,
    "huggingface": Engine.transformers,
}


def parse_engine(text: str) -> Engine:
    """`vllm`, `SGLang`, `tensorrt-llm`, ... -> Engine. Raises InputError naming the choices."""
    try:
        return parse_choice(text, Engine, _ENGINE_ALIASES, "engine")
    except ValueError as err:
        raise InputError(str(err)) from None


@dataclass(frozen=True)
class Measured:
    """Numbers taken from a real start-up log instead of being modelled (None = model it)."""

    memory_bytes: int | None = None  # total device memory the engine saw
    weights_bytes: int | None = None
    activation_bytes: int | None = None  # profiled activation peak
    non_torch_bytes: int | None = None
    cuda_graph_bytes: int | None = None
    free_after_load_bytes: int | None = None  # SGLang / TRT-LLM: free memory after the weights
    free_before_load_bytes: int | None = None  # SGLang: free memory before the weights
    kv_cache_bytes: int | None = None  # vLLM: the KV memory a log printed (skips the subtraction)
    stage_kv_bytes: tuple[int, ...] | None = None  # vLLM: KV memory per pipeline stage


# Flags that exist in one engine only (the CLI flag, kvplan/v1 key and manifest flag share the
# name, with dashes on the command line). Given for another engine they are refused.
ENGINE_ONLY = {
    "kv_cache_memory_bytes": ("vllm",),
    "cpu_offload_bytes": ("vllm",),
    "limit_mm_per_prompt": ("vllm",),
    "draft_params": ("vllm",),
    "draft_model": ("vllm", "sglang"),
    "num_speculative_tokens": ("vllm",),
    "chunked_prefill_size": ("sglang",),
    "cuda_graph_max_bs": ("sglang",),
    "max_running_requests": ("sglang",),
    "attention_backend": ("sglang",),
    "mm_feature_transport": ("sglang",),
    "moe_dense_tp_size": ("sglang",),
    "enable_dp_lm_head": ("sglang",),
    "moe_a2a_backend": ("sglang",),
    "speculative_algorithm": ("sglang",),
    "speculative_num_steps": ("sglang",),
    "speculative_eagle_topk": ("sglang",),
    "speculative_num_draft_tokens": ("sglang",),
    "tp_transport": ("vllm",),
    "disable_custom_all_reduce": ("vllm",),
    "disable_hybrid_kv_cache_manager": ("vllm",),
    "chunked_local_hybrid": ("vllm",),
    "topk_topp_sampler": ("vllm",),
    "entrypoint": ("vllm",),
    "enable_extensible_kv_cache": ("vllm",),
    "cudagraph_capture_sizes": ("vllm",),
    "max_cudagraph_capture_size": ("vllm",),
    "cudagraph_mode": ("vllm",),
    "max_batch_size": ("trtllm",),
    "trt_activation_bytes": ("trtllm",),
    "trtllm_backend": ("trtllm",),
    "max_tokens": ("sglang", "trtllm"),  # SGLang --max-total-tokens; TRT-LLM max_tokens
    "page_size_tokens": ("sglang", "trtllm"),
}
# the TP transport a deployment states (kvplan.engines.vllm_nontorch says what each books)
TP_TRANSPORTS = ("nvlink", "pcie-p2p", "host")


@dataclass(frozen=True)
class EngineSettings:
    """Engine flags. None means the engine's own default (which may depend on version and GPU).

    vLLM: max_num_batched_tokens, max_num_seqs, enforce_eager, kv_cache_memory_bytes
    (--kv-cache-memory-bytes: the pool, no profiling subtraction), cpu_offload_bytes
    (--cpu-offload-gb: weights kept in host memory, per GPU), limit_mm_per_prompt
    (--limit-mm-per-prompt: items per prompt; multimodal models only), draft_params (the
    speculative-decoding draft model's parameters, loaded beside the target), draft_model (its
    spec: weights and KV layers; sets draft_params), num_speculative_tokens, tp_transport
    (nvlink, pcie-p2p or host: the TP non-torch term), disable_custom_all_reduce,
    topk_topp_sampler (the 0.8-0.16 series' top-k/top-p sampler: native, PyTorch's sort, or
    flashinfer; kvplan.engines.vllm_sort_sampler), entrypoint (serve or offline: the LLM class's
    default batched tokens; kvplan.engines.vllm_entrypoint), enable_extensible_kv_cache (0.34:
    false sizes the pool as 0.33 did, with gpu_memory_utilization 0.92 by default).
    SGLang: page_size_tokens (--page-size), chunked_prefill_size, cuda_graph_max_bs,
    max_running_requests, attention_backend (--attention-backend, engine.attention_backend or a
    manifest's argv, one of SGLang's choices; a calibration log prints the resolved one; the
    aiter backend derates mem_fraction_static at long context), mm_feature_transport
    (--mm-feature-transport: cpu, cuda_ipc or cuda_vmm; the multimodal reservation,
    kvplan.engines.sglang_mm), speculative_algorithm (--speculative-algorithm: EAGLE, EAGLE3,
    NEXTN, STANDALONE, NGRAM; the draft in draft_model) with speculative_num_steps,
    speculative_eagle_topk and speculative_num_draft_tokens (all three or none;
    kvplan.engines.sglang_spec).
    TensorRT-LLM: page_size_tokens (tokens_per_block),
    max_num_batched_tokens (max_num_tokens), max_batch_size, max_tokens
    (max_tokens_in_paged_kv_cache), trt_activation_bytes (a TensorRT engine's execution-context
    memory, trtllm-build's "Total Activation Memory"), trtllm_backend (pytorch or tensorrt:
    trtllm-serve --backend; unstated, the release's default); max_seq_len is the request's context,
    memory_fraction is free_gpu_memory_fraction.
    """

    engine: Engine = Engine.ideal
    version: str | None = None
    memory_fraction: Fraction | None = None  # gpu_memory_utilization / mem_fraction_static / ...
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    enforce_eager: bool = False
    page_size_tokens: int | None = None  # SGLang page size / TRT-LLM tokens per block
    max_tokens: int | None = None  # TRT-LLM kv_cache_config.max_tokens
    kv_cache_memory_bytes: int | None = None
    cpu_offload_bytes: int | None = None
    limit_mm_per_prompt: int | None = None
    draft_params: int | None = None
    chunked_prefill_size: int | None = None
    cuda_graph_max_bs: int | None = None
    max_running_requests: int | None = None
    max_batch_size: int | None = None
    trt_activation_bytes: int | None = None  # TRT-LLM: the engine's execution-context memory
    draft_model: ModelSpec | None = None  # vLLM speculative decoding: the draft's spec
    num_speculative_tokens: int | None = None
    attention_backend: str | None = None  # SGLang: --attention-backend, if stated or logged
    mm_feature_transport: str | None = None  # SGLang: --mm-feature-transport, if stated or logged
    # SGLang --moe-dense-tp-size, --enable-dp-lm-head, --moe-a2a-backend (kvplan.engines.sglang_dp)
    moe_dense_tp_size: int | None = None
    enable_dp_lm_head: bool | None = None
    moe_a2a_backend: str | None = None
    speculative_algorithm: str | None = None  # SGLang: --speculative-algorithm (sglang_spec)
    speculative_num_steps: int | None = None
    speculative_eagle_topk: int | None = None
    speculative_num_draft_tokens: int | None = None
    trtllm_backend: str | None = None  # TRT-LLM: --backend (pytorch / tensorrt), if stated
    tp_transport: str | None = None  # vLLM: TP_TRANSPORTS; None: by the GPU label's form factor
    disable_custom_all_reduce: bool | None = None  # vLLM --disable-custom-all-reduce
    # vLLM 0.9.1+ --disable-hybrid-kv-cache-manager: sliding layers cached as full attention
    # beside full ones (kvplan.engines.vllm_hybrid.unified)
    disable_hybrid_kv_cache_manager: bool | None = None
    # vLLM 0.10.1+ VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1: chunked-local layers
    # kept in the hybrid manager (kvplan.engines.vllm_hybrid_off); None: the manager is off
    chunked_local_hybrid: bool | None = None
    topk_topp_sampler: str | None = None  # vLLM 0.10: native / flashinfer; None: by release
    entrypoint: str | None = None  # vLLM: serve / offline (the LLM class); None: serve
    # vLLM 0.34: --enable-extensible-kv-cache / --no-...; None: the release's default (on from
    # 0.34, kvplan.engines.vllm_extensible)
    enable_extensible_kv_cache: bool | None = None
    # vLLM: stated CUDA-graph capture (kvplan.engines.vllm_capture.Stated); None: the release's
    cudagraph_capture_sizes: tuple[int, ...] | None = None
    max_cudagraph_capture_size: int | None = None
    cudagraph_mode: str | None = None
    # vLLM: a stated max_num_seqs also caps the users (its scheduler runs no more); `kvplan check`
    # leaves this off and applies the cap itself, naming it in its verdict
    cap_max_num_seqs: bool = False
    # SGLang: kvplan check's stated --max-running-requests, read by the profile for what it moves
    # (the request-to-token map, 0.5.22's graph batch cap) but not as a cap on the users, which
    # check applies itself (task h62review: check dropped it, and passed a map that did not fit)
    check_caps_users: bool = False
    measured: Measured = Measured()

    @property
    def speculative_params(self) -> tuple[int, int, int] | None:
        """SGLang's stated (steps, topk, draft tokens), or None (all three unstated)."""
        params = (self.speculative_num_steps, self.speculative_eagle_topk,
                  self.speculative_num_draft_tokens)
        return None if None in params else params  # type: ignore[return-value]

    @property
    def users_cap(self) -> int | None:
        """The sequences the engine's scheduler runs at once, where a setting caps the users a
        replica is planned for (vLLM's max_num_seqs, SGLang's --max-running-requests,
        TensorRT-LLM's max_batch_size; SGLang's 48 when speculative decoding is on and none is
        stated, kvplan.engines.sglang_spec.default_running); None where nothing caps them, or
        `check` applies it."""
        running = None if self.check_caps_users else self.max_running_requests
        if running is None and not self.check_caps_users and self.speculative_algorithm:
            from kvplan.engines.sglang_spec import default_running

            running = default_running(self.version, self.speculative_algorithm)
        caps = [c for c in (self.max_num_seqs if self.cap_max_num_seqs else None,
                            running, self.max_batch_size) if c is not None]
        return min(caps) if caps else None

    def check(self) -> None:
        for what, value in (
            ("max_num_batched_tokens", self.max_num_batched_tokens),
            ("max_num_seqs", self.max_num_seqs),
            ("page size", self.page_size_tokens),
            ("max_tokens", self.max_tokens),
            ("kv_cache_memory_bytes", self.kv_cache_memory_bytes),
            ("draft_params", self.draft_params),
            ("chunked_prefill_size", self.chunked_prefill_size),
            ("cuda_graph_max_bs", self.cuda_graph_max_bs),
            ("max_running_requests", self.max_running_requests),
            ("max_batch_size", self.max_batch_size),
            ("trt_activation_bytes", self.trt_activation_bytes),
            ("num_speculative_tokens", self.num_speculative_tokens),
            ("speculative_num_steps", self.speculative_num_steps),
            ("speculative_eagle_topk", self.speculative_eagle_topk),
            ("speculative_num_draft_tokens", self.speculative_num_draft_tokens),
        ):
            if value is not None and value <= 0:
                raise InputError(f"{what} must be a positive integer, got {value}")
        for what, value in (("cpu_offload_bytes", self.cpu_offload_bytes),
                            ("limit_mm_per_prompt", self.limit_mm_per_prompt)):
            if value is not None and value < 0:
                raise InputError(f"{what} must be 0 or more, got {value}")
        if self.memory_fraction is not None and not 0 < self.memory_fraction <= 1:
            raise InputError(
                f"memory fraction must be in (0, 1], got {float(self.memory_fraction):g}"
            )
        from kvplan.engines.refusals import transport_refusal

        if (refused := transport_refusal(self.engine.value, self.tp_transport)) is not None:
            raise InputError(refused)
        from kvplan.engines.sglang_mm import TRANSPORTS

        if self.mm_feature_transport not in (None, *TRANSPORTS):
            raise InputError(f"mm_feature_transport must be one of {', '.join(TRANSPORTS)} "
                             f"(SGLang's choices), got {self.mm_feature_transport!r}")
        from kvplan.engines.sglang_dp import check_settings

        check_settings(self)
        from kvplan.engines.vllm_entrypoint import entrypoint_refusal

        if (refused := entrypoint_refusal(self.entrypoint)) is not None:
            raise InputError(refused)
        from kvplan.engines.sglang_spec import params_refusal

        if (refused := params_refusal(self)) is not None:
            raise InputError(refused)
        for name, engines in ENGINE_ONLY.items():
            if getattr(self, name) is not None and self.engine.value not in engines:
                raise InputError(
                    f"{name} applies only to {' and '.join(engines)}, not {self.engine.value}; "
                    "drop it or choose that engine")


@dataclass(frozen=True)
class Interval:
    """A modelled quantity: best guess with the range it is likely in (bytes)."""

    best: int
    low: int
    high: int

    @staticmethod
    def exact(value: int) -> Interval:
        return Interval(value, value, value)


@dataclass(frozen=True)
class EngineResult:
    """An engine's start-up numbers for one request, per GPU of the tightest rank."""

    engine: Engine
    engine_version: str
    size: SizeResult  # the plain result with the engine's KV pool, for users / fleet / tables
    memory_bytes: int
    requested_bytes: int  # what the engine lets itself use
    weights_bytes: int
    activation_bytes: int
    activation_bytes_low: int
    activation_bytes_high: int
    non_torch_bytes: int
    cuda_graph_bytes: int
    kv_cache_bytes: int  # the KV pool the engine allocates (can be negative: it fails)
    kv_cache_bytes_low: int  # with the high activation estimate
    kv_cache_bytes_high: int  # with the low activation estimate
    kv_cache_tokens: int  # what the engine prints as its cache size in tokens
    kv_cache_tokens_low: int
    kv_cache_tokens_high: int
    blocks: int
    block_size_tokens: int
    max_model_len: int
    max_concurrency: Fraction  # requests of max_model_len tokens held at once
    starts: bool
    reason: str | None
    max_model_len_that_starts: int
    steps: tuple[Step, ...]
    assumptions: tuple[str, ...] = field(default=())
    log_lines: tuple[str, ...] = ()  # the lines the engine itself would print
    # vLLM: the CUDA graphs its profile booked the graph term for (kvplan.engines.vllm_capture;
    # `kvplan calibrate` checks them against the printed counts); None for the other engines
    graph_capture: Capture | None = None


def finish_size(
    req: SizeRequest,
    kv_bytes: int,
    overhead_bytes: int,
    requested_bytes: int,
    starts: bool,
    reason: str | None,
    max_len: int,
    assumptions: Sequence[str],
    weights_bytes: int | None = None,
    users_override: tuple[int, int] | None = None,
) -> SizeResult:
    """A plain SizeResult whose pool is the engine's KV pool; its breakdown adds up to memory.

    `users_override` = (users, KV bytes they use) where the engine counts users itself.
    """
    total = req.gpu.memory_bytes
    base = size(replace(req, kv_budget_bytes=None, reserve_bytes=0))
    weights = base.weights_bytes if weights_bytes is None else weights_bytes
    pool = max(kv_bytes, 0)
    if pool > 0:
        # The stated-budget path checks pool + catalog weights against memory; the engine's own
        # (possibly measured) numbers were already checked, so lift that check here.
        roomy = req.gpu.model_copy(update={"memory_bytes": total + pool + weights})
        sized = size(replace(req, gpu=roomy, kv_budget_bytes=pool, memory_utilization=Fraction(1)))
        users = sized.users_per_replica if starts else 0
        used = sized.breakdown.kv_used_bytes if starts else 0
    else:
        sized, users, used = base, 0, 0
    if users_override is not None and starts:
        users, used = users_override
    overhead = max(0, min(overhead_bytes, total - weights - pool))
    # Negative only when the weights alone exceed memory (as in the plain arithmetic): the
    # parts still add up to the total.
    unallocated = total - weights - pool - overhead
    breakdown = Breakdown(
        total_bytes=total,
        weights_bytes=weights,
        kv_used_bytes=used,
        kv_free_bytes=pool - used,
        reserve_bytes=overhead,
        unallocated_bytes=unallocated,
    )
    if starts and users == 0 and reason is None:
        reason = sized.reason
    return replace(
        sized,
        request=req,
        weights_bytes=weights,
        usable_bytes=requested_bytes,
        kv_budget_bytes=pool,
        users_per_replica=users,
        breakdown=breakdown,
        fits=starts and users > 0,
        reason=reason if not (starts and users > 0) else None,
        max_context_that_fits=None if (starts and users > 0) else max_len,
        assumptions=tuple(assumptions),
        suggestions=(),
    )
