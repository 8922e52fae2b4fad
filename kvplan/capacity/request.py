"""What one sizing is asked: the request, its checks, and the assumptions it is sized under.

A SizeRequest names a model, a GPU and the serving settings; `check` refuses impossible ones
with one sentence each, and `assumptions` states in words how kvplan.capacity.plan.size reads
them. The arithmetic itself lives in kvplan.capacity.plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from kvplan.capacity import expert_quant, linear_quant, nvfp4
from kvplan.capacity.kv import (
    DEFAULT_BLOCK_TOKENS,
    DEFAULT_INT4_GROUP,
    Allocation,
    Precision,
    stage_caches,
    state_bytes_per_layer,
)
from kvplan.capacity.parallel import check_parallelism
from kvplan.errors import InputError
from kvplan.specs.schema import HardwareSpec, ModelSpec
from kvplan.units import GIB, DType, fmt_bytes

DEFAULT_UTILIZATION = Fraction(9, 10)
# Activations (a forward pass over a batch of prompt tokens), the CUDA context (~0.55 GB on
# an H200) and allocator slack. 2 GiB covers an 8B-class model with 8,192 batched tokens;
# engine profiles model this precisely, and --reserve-gib overrides it.
DEFAULT_RESERVE_BYTES = 2 * GIB



@dataclass(frozen=True)
class SizeRequest:
    """One combination to size. `context_tokens` is the maximum context per sequence."""

    model: ModelSpec
    gpu: HardwareSpec
    context_tokens: int
    kv_dtype: DType = DType.fp16
    allocation: Allocation = Allocation.paged
    avg_context_tokens: int | None = None  # paged: what a sequence holds on average
    weight_dtype: DType | None = None  # None: the model's published dtype
    block_size_tokens: int = DEFAULT_BLOCK_TOKENS
    kv_group_size: int = DEFAULT_INT4_GROUP
    tp: int = 1
    pp: int = 1
    memory_utilization: Fraction = DEFAULT_UTILIZATION
    reserve_bytes: int = DEFAULT_RESERVE_BYTES
    kv_budget_bytes: int | None = None  # stated directly instead of derived
    shared_prefix_tokens: int = 0
    nodes: int | None = None  # servers a replica spans; required when tp exceeds one node's GPUs
    ep: int | None = None  # expert-parallel ranks (MoE): beyond tp, experts / ep per GPU
    # SGLang's --dp-size with --enable-dp-attention: attention runs over tp / attention_dp GPUs
    # (kvplan.capacity.parallel.check_parallelism); weights and KV are still planned per tp rank
    attention_dp: int = 1

    @property
    def gpus_per_replica(self) -> int:
        return self.tp * self.pp

    @property
    def tokens_held(self) -> int:
        """Tokens each sequence holds: the maximum (reserved) or the average (paged)."""
        if self.allocation is Allocation.reserved or self.avg_context_tokens is None:
            return self.context_tokens
        return self.avg_context_tokens

    @property
    def effective_weight_dtype(self) -> DType:
        return self.weight_dtype or self.model.weight_dtype

    def check(self) -> None:
        """Reject impossible settings with one clear sentence each."""
        positive = {
            "context": self.context_tokens,
            "block size": self.block_size_tokens,
            "kv group size": self.kv_group_size,
            "tp": self.tp,
            "pp": self.pp,
            "attention dp": self.attention_dp,
        }
        for what, value in positive.items():
            if value <= 0:
                raise InputError(f"{what} must be a positive integer, got {value}")
        check_parallelism(self.model, self.tp, gpus_per_node=self.gpu.gpus_per_node, nodes=self.nodes,
                          ep=self.ep, attention_dp=self.attention_dp,
                          nvlink_domain=self.gpu.nvlink_domain_gpus, pp=self.pp)
        if not 0 < self.memory_utilization <= 1:
            raise InputError(
                f"memory utilization must be in (0, 1], got {float(self.memory_utilization)}"
            )
        if self.reserve_bytes < 0:
            raise InputError("reserve must not be negative")
        if self.kv_budget_bytes is not None and self.kv_budget_bytes <= 0:
            raise InputError("kv budget must be positive")
        if self.context_tokens > self.model.max_context_tokens:
            raise InputError(
                f"context {self.context_tokens:,} tokens exceeds {self.model.name}'s "
                f"max_context_tokens {self.model.max_context_tokens:,}; use --context "
                f"{self.model.max_context_tokens} or less"
            )
        if self.avg_context_tokens is not None:
            if self.avg_context_tokens <= 0:
                raise InputError(f"avg context must be positive, got {self.avg_context_tokens}")
            if self.avg_context_tokens > self.context_tokens:
                raise InputError(
                    f"avg context {self.avg_context_tokens:,} exceeds the maximum context "
                    f"{self.context_tokens:,}"
                )
        if self.shared_prefix_tokens < 0:
            raise InputError("shared prefix tokens must not be negative")
        if self.shared_prefix_tokens > self.tokens_held:
            raise InputError(
                f"shared prefix {self.shared_prefix_tokens:,} tokens is longer than the "
                f"{self.tokens_held:,} tokens a sequence holds"
            )
        if self.pp > self.model.num_layers:
            raise InputError(f"pp {self.pp} exceeds the model's {self.model.num_layers} layers")


def assumptions(req: SizeRequest) -> tuple[str, ...]:
    """What a sizing of `req` takes as given, one sentence each (the result carries them)."""
    notes = [
        f"KV cache in {req.kv_dtype.value} ({req.kv_dtype.bits} bits per value)",
        f"weights in {req.effective_weight_dtype.value}, split over {req.gpus_per_replica} GPU(s)",
    ]
    quant = req.model.moe.expert_quant if req.model.moe is not None else None
    if req.model.weight_quant is not None and expert_quant.applies(
            req.model, req.effective_weight_dtype):
        notes[1] = (f"{linear_quant.describe(req.model)}, split over {req.gpus_per_replica} "
                    "GPU(s)")
    elif req.model.nvfp4 is not None and expert_quant.applies(
            req.model, req.effective_weight_dtype):
        notes[1] = f"{nvfp4.describe(req.model)}, split over {req.gpus_per_replica} GPU(s)"
    elif quant is not None and expert_quant.applies(req.model, req.effective_weight_dtype):
        notes[1] = (f"weights in {req.effective_weight_dtype.value} but the routed experts in "
                    f"{quant.weight_dtype.value}, one {quant.scale_dtype.value} scale per "
                    f"{quant.group_size}, split over {req.gpus_per_replica} GPU(s)")
    if req.weight_dtype is None and req.model.weight_dtype is DType.fp32:  # as published (Gemma-2-9B)
        notes[1] += ("; engines serve a float32 checkpoint in 16 bits (vLLM and SGLang cast it "
                     "to bf16/fp16): --weight-dtype bf16, or --engine, plans that")
    if req.kv_dtype is DType.int4:
        notes.append(f"int4 cache carries one fp16 scale per {req.kv_group_size} values")
    if req.allocation is Allocation.paged:
        notes.append(
            f"paged: each sequence holds {req.tokens_held:,} tokens in blocks of "
            f"{req.block_size_tokens} tokens (rounded up)"
        )
    else:
        notes.append(f"reserved: every sequence sets aside its full {req.context_tokens:,} tokens")
    if req.kv_budget_bytes is not None:
        notes.append("KV budget stated directly (--kv-budget-gib); reserve not applied")
    else:
        notes.append(
            f"KV budget = memory x {float(req.memory_utilization):g} - weights - "
            f"{fmt_bytes(req.reserve_bytes)} reserve for activations and the CUDA context"
        )
    if req.shared_prefix_tokens:
        if req.allocation is Allocation.paged:
            notes.append(
                "shared prefix: whole blocks stored once per replica on full-attention layers"
            )
        else:
            notes.append("shared prefix ignored: reserved allocation copies it per sequence")
    if req.model.attention.sliding_window_tokens:
        notes.append(
            f"sliding-window layers hold at most {req.model.attention.sliding_window_tokens:,} "
            "tokens"
        )
    if req.model.attention.num_kv_heads < req.tp and req.model.attention.mla is None:
        notes.append("tp exceeds the KV heads: each GPU holds one replicated KV head")
    linear = state_bytes_per_layer(req.model, req.tp)
    if linear:
        layers = max(stage.linear_layers for stage in stage_caches(
            req.model, Precision(req.kv_dtype, req.kv_group_size), req.tp, req.pp))
        notes.append(
            f"fixed state per sequence, whatever its length: {layers} linear/Mamba2 layer(s) x "
            f"{linear:,} B ({req.model.weight_dtype.value}, split over TP {req.tp}) = "
            f"{layers * linear:,} B on the busiest GPU")
    return tuple(notes)
