"""Capacity plans: from a model, a GPU and serving settings to users per GPU and GPUs needed.

Everything here is pure: specs and numbers in, a result dataclass out. Bytes are integers;
capacity is floored (a partial sequence is no sequence) and allocations are ceiled.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from kvplan.capacity import expert_quant, linear_quant
from kvplan.capacity.kv import Allocation, Precision, StageCache, sequence_bytes, stage_caches
from kvplan.capacity.parallel import ep_weight_saving
from kvplan.capacity.request import (  # the request lives there; imported from here too
    DEFAULT_RESERVE_BYTES,
    DEFAULT_UTILIZATION,
    SizeRequest,
    assumptions,
)
from kvplan.errors import InputError
from kvplan.plan.rules import required_users
from kvplan.specs.schema import HardwareSpec, ModelSpec
from kvplan.units import DType, ceil_div, fmt_bytes

__all__ = [
    "DEFAULT_RESERVE_BYTES",
    "DEFAULT_UTILIZATION",
    "Breakdown",
    "FleetResult",
    "SizeRequest",
    "SizeResult",
    "advise",
    "assumptions",
    "fleet",
    "size",
    "weights_bytes_per_gpu",
]


@dataclass(frozen=True)
class Breakdown:
    """Where one GPU's memory goes (the bottleneck stage). The parts add up to the total."""

    total_bytes: int
    weights_bytes: int
    kv_used_bytes: int  # sequences at the planned load, plus a shared prefix
    kv_free_bytes: int  # pool left over: less than one more sequence
    reserve_bytes: int  # activations, CUDA context
    unallocated_bytes: int  # outside the engine's share (1 - memory utilization)

    def parts(self) -> dict[str, int]:
        return {
            "weights_bytes": self.weights_bytes,
            "kv_used_bytes": self.kv_used_bytes,
            "kv_free_bytes": self.kv_free_bytes,
            "reserve_bytes": self.reserve_bytes,
            "unallocated_bytes": self.unallocated_bytes,
        }


# How an engine profile's assumption starts where the engine's scheduler caps the users below what
# the pool holds (vLLM's --max-num-seqs, SGLang's --max-running-requests or its speculative
# default, TensorRT-LLM's max_batch_size): the headline's basis is then that cap
USERS_CAPPED = "users capped at "


@dataclass(frozen=True)
class SizeResult:
    """Everything `size` reports for one combination (per GPU unless the name says so)."""

    request: SizeRequest
    kv_bytes_per_token: int  # while the context is inside every window
    kv_bytes_per_token_beyond_window: int  # what each token adds past the window
    kv_bytes_per_sequence: int  # at the tokens one sequence holds, allocation applied
    kv_bytes_per_sequence_reserved: int  # the same sequence under reserved allocation
    kv_bytes_per_sequence_paged: int  # ... and under paged allocation
    weights_bytes: int
    usable_bytes: int  # memory_bytes x memory utilization
    kv_budget_bytes: int  # pool for the cache (0 when weights do not fit)
    shared_prefix_bytes: int
    users_per_replica: int
    breakdown: Breakdown
    fits: bool
    reason: str | None = None
    suggestions: tuple[str, ...] = ()
    max_context_that_fits: int | None = None
    assumptions: tuple[str, ...] = field(default=())
    state_bytes_per_sequence: int = 0  # linear (Mamba2, Gated DeltaNet) layers' fixed state

    @property
    def users_per_gpu(self) -> Fraction:
        return Fraction(self.users_per_replica, self.request.gpus_per_replica)

    @property
    def reserved_waste_bytes_per_sequence(self) -> int:
        """What reserving the maximum context costs against paging the average one."""
        return self.kv_bytes_per_sequence_reserved - self.kv_bytes_per_sequence_paged


def weights_bytes_per_gpu(model: ModelSpec, dtype: DType, gpus: int) -> int:
    """Parameters x weight bytes, split evenly over the GPUs of a replica (rounded up); a spec
    with quantized routed experts (moe.expert_quant) or GPTQ/AWQ linear layers (weight_quant)
    is priced as kvplan.capacity.expert_quant lays it out."""
    if expert_quant.applies(model, dtype):
        return expert_quant.weights_bytes(model, gpus, 1)
    return ceil_div(model.params_total * dtype.bits, 8 * gpus)


def _bottleneck(
    stages: Sequence[StageCache], req: SizeRequest, budget: int, shared: int
) -> tuple[StageCache, int, int, int]:
    """The stage that holds the fewest sequences: (stage, users, seq bytes, prefix bytes)."""
    best: tuple[StageCache, int, int, int] | None = None
    for stage in stages:
        seq = sequence_bytes(
            stage, req.model, req.tokens_held, req.allocation, req.block_size_tokens, shared
        )
        prefix = shared * stage.full_bytes_per_token
        room = budget - prefix
        users = room // seq if (seq > 0 and room > 0) else 0
        if seq == 0:  # nothing per sequence at all: unbounded by the cache
            raise InputError(f"{req.model.name} keeps no per-sequence cache on a pipeline stage")
        if best is None or users < best[1]:
            best = (stage, users, seq, prefix)
    assert best is not None
    return best


def _max_context(stage: StageCache, req: SizeRequest, room: int) -> int:
    """The longest context one sequence can hold in `room` bytes (0 if none)."""
    lo, hi = 0, req.model.max_context_tokens
    alloc = req.allocation
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sequence_bytes(stage, req.model, mid, alloc, req.block_size_tokens) <= room:
            lo = mid
        else:
            hi = mid - 1
    return lo


def size(req: SizeRequest) -> SizeResult:
    """Size one combination. Raises InputError for impossible settings."""
    req.check()
    model, gpu = req.model, req.gpu
    precision = Precision(req.kv_dtype, req.kv_group_size)
    stages = stage_caches(model, precision, req.tp, req.pp)
    if expert_quant.applies(model, req.effective_weight_dtype):
        if model.weight_quant is not None:
            linear_quant.check_split(model, req.tp)
        weights = expert_quant.weights_bytes(model, req.tp, req.pp, req.ep)
    else:
        weights = weights_bytes_per_gpu(model, req.effective_weight_dtype, req.gpus_per_replica)
        weights -= ep_weight_saving(model, req.effective_weight_dtype.bits, req.tp, req.pp, req.ep)
    usable = math.floor(gpu.memory_bytes * req.memory_utilization)
    shared = 0
    if req.allocation is Allocation.paged and req.shared_prefix_tokens:
        shared = req.shared_prefix_tokens // req.block_size_tokens * req.block_size_tokens

    if req.kv_budget_bytes is not None:
        budget = req.kv_budget_bytes
        reserve = 0
        unallocated = gpu.memory_bytes - weights - budget
        if unallocated < 0:
            raise InputError(
                f"stated KV budget {fmt_bytes(budget)} plus weights {fmt_bytes(weights)} exceeds "
                f"{gpu.name}'s {fmt_bytes(gpu.memory_bytes)}; lower --kv-budget-gib"
            )
    else:
        reserve = req.reserve_bytes
        budget = usable - weights - reserve
        unallocated = gpu.memory_bytes - usable

    heaviest = max(stages, key=lambda s: (s.bytes_per_token, s.state_bytes_per_sequence))
    per_token = heaviest.bytes_per_token
    beyond = heaviest.full_bytes_per_token if model.attention.sliding_window_tokens else per_token

    def seq_for(alloc: Allocation, stage: StageCache) -> int:
        tokens = req.tokens_held if alloc is Allocation.paged else req.context_tokens
        return sequence_bytes(stage, model, tokens, alloc, req.block_size_tokens)

    notes = assumptions(req)
    if budget <= 0:
        shortfall = -budget
        breakdown = Breakdown(
            total_bytes=gpu.memory_bytes,
            weights_bytes=weights,
            kv_used_bytes=0,
            kv_free_bytes=0,
            # the reserve the plan sets aside, as the reason counts it (the shortfall is
            # weights + reserve - usable); the parts still add up, unallocated going negative
            # by what the GPU lacks. Until task h101left this was min(reserve, usable - weights)
            # floored at 0, so a model whose weights alone overflow exported reserve_bytes 0
            # beside a reason that said "the reserve 2 GiB"
            reserve_bytes=reserve,
            unallocated_bytes=gpu.memory_bytes - weights - reserve,
        )
        why = (
            f"weights need {fmt_bytes(weights)} per GPU and the reserve {fmt_bytes(reserve)}, "
            f"but only {fmt_bytes(usable)} of {gpu.name}'s memory is usable at "
            f"{float(req.memory_utilization):g} utilization: {fmt_bytes(shortfall)} short"
        )
        return SizeResult(
            request=req,
            kv_bytes_per_token=per_token,
            kv_bytes_per_token_beyond_window=beyond,
            kv_bytes_per_sequence=seq_for(req.allocation, heaviest),
            kv_bytes_per_sequence_reserved=seq_for(Allocation.reserved, heaviest),
            kv_bytes_per_sequence_paged=seq_for(Allocation.paged, heaviest),
            weights_bytes=weights,
            usable_bytes=usable,
            kv_budget_bytes=0,
            shared_prefix_bytes=0,
            users_per_replica=0,
            breakdown=breakdown,
            fits=False,
            reason=why,
            assumptions=notes,
        )

    stage, users, seq, prefix = _bottleneck(stages, req, budget, shared)
    used = users * seq + prefix if users else 0
    breakdown = Breakdown(
        total_bytes=gpu.memory_bytes,
        weights_bytes=weights,
        kv_used_bytes=used,
        kv_free_bytes=budget - used,
        reserve_bytes=reserve,
        unallocated_bytes=unallocated,
    )
    reason: str | None = None
    max_ctx: int | None = None
    if users == 0:
        max_ctx = _max_context(stage, req, budget)
        reason = (
            f"one sequence of {req.tokens_held:,} tokens needs {fmt_bytes(seq + prefix)} of cache "
            f"but the pool is {fmt_bytes(budget)}; the longest context that fits is "
            f"{max_ctx:,} tokens"
        )
    return SizeResult(
        request=req,
        kv_bytes_per_token=per_token,
        kv_bytes_per_token_beyond_window=beyond,
        kv_bytes_per_sequence=seq,
        kv_bytes_per_sequence_reserved=seq_for(Allocation.reserved, stage),
        kv_bytes_per_sequence_paged=seq_for(Allocation.paged, stage),
        weights_bytes=weights,
        usable_bytes=usable,
        kv_budget_bytes=budget,
        shared_prefix_bytes=prefix,
        users_per_replica=users,
        breakdown=breakdown,
        fits=users > 0,
        reason=reason,
        max_context_that_fits=max_ctx,
        assumptions=notes,
        state_bytes_per_sequence=stage.state_bytes_per_sequence,
    )


def advise(
    result: SizeResult, gpus: Sequence[HardwareSpec], sizer: Callable[[SizeRequest], SizeResult]
) -> SizeResult:
    """Attach what would fit when a result holds no sequence: more TP, fp8 weights, a bigger GPU."""
    if result.fits:
        return result
    req = result.request
    tips: list[str] = []

    def users(r: SizeRequest) -> int:
        try:
            return sizer(r).users_per_replica
        except InputError:
            return 0

    per_node = req.gpu.gpus_per_node
    for tp in (2, 4, 8, 16):
        if tp > req.tp:
            nodes = -(-tp // per_node) if tp > per_node else req.nodes
            n = users(replace(req, tp=tp, nodes=nodes))
            if n:
                span = f" --nodes {nodes}" if nodes and nodes > 1 else ""
                tips.append(f"--tp {tp}{span}: {n:,} users per replica of {tp * req.pp} GPUs")
                break
    if req.effective_weight_dtype.bits > 8:
        n = users(replace(req, weight_dtype=DType.fp8))
        if n:
            tips.append(f"--weight-dtype fp8: {n:,} users per replica of {req.gpus_per_replica} GPU(s)")
    if req.kv_dtype.bits > 8:
        n = users(replace(req, kv_dtype=DType.fp8))
        if n:
            tips.append(f"--kv-dtype fp8: {n:,} users per replica of {req.gpus_per_replica} GPU(s)")
    for gpu in sorted(gpus, key=lambda g: g.memory_bytes):
        if gpu.memory_bytes > req.gpu.memory_bytes:
            n = users(replace(req, gpu=gpu))
            if n:
                tips.append(f"--gpu {gpu.name}: {n:,} users per replica of {req.gpus_per_replica} GPU(s)")
                break
    if result.max_context_that_fits:
        tips.append(f"--context {result.max_context_that_fits}: fits one sequence")
    return replace(result, suggestions=tuple(tips))


@dataclass(frozen=True)
class FleetResult:
    """GPUs for a peak load, from one sized combination."""

    size: SizeResult
    peak_users: int
    headroom: Fraction  # 0.2 = plan for 20% more than the peak
    min_users: int | None = None  # a floor on what must be held (a deployment's requirement)

    @property
    def required_users(self) -> int:
        """ceil(peak x (1 + headroom)), or min_users if that is larger (as `kvplan check`)."""
        return required_users(self.peak_users, self.headroom, self.min_users)

    @property
    def replicas(self) -> int | None:
        per = self.size.users_per_replica
        return ceil_div(self.required_users, per) if per else None

    @property
    def gpus_needed(self) -> int | None:
        r = self.replicas
        return None if r is None else r * self.size.request.gpus_per_replica


def fleet(req: SizeRequest, peak_users: int, headroom: Fraction = Fraction(0)) -> FleetResult:
    """Replicas and GPUs that hold `peak_users` concurrent sequences plus headroom."""
    if peak_users <= 0:
        raise InputError(f"peak users must be a positive integer, got {peak_users}")
    if headroom < 0:
        raise InputError(f"headroom must not be negative, got {float(headroom)}")
    return FleetResult(size=size(req), peak_users=peak_users, headroom=headroom)
