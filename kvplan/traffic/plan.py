"""A traffic-aware plan: users per GPU three ways, the SLO, decode speed, TTFT and cost."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING

from kvplan.capacity.kv import (
    Allocation,
    Precision,
    StageCache,
    sequence_bytes,
    sequences_bytes,
    stage_caches,
)
from kvplan.capacity.plan import FleetResult, SizeRequest, SizeResult, size, weights_bytes_per_gpu
from kvplan.errors import InputError
from kvplan.plan.rules import required_users
from kvplan.specs.schema import ModelSpec
from kvplan.traffic.decode import decode_step_time_s, slo_batch, ttft_s
from kvplan.traffic.lengths import LengthDistribution, PointMass
from kvplan.traffic.risk import (
    EXACT_LATTICE_LIMIT,
    RiskEstimate,
    SequenceLattice,
    overflow_probability,
    users_at_risk,
)
from kvplan.units import ceil_div

if TYPE_CHECKING:
    import numpy as np

DEFAULT_RISK = 0.01


@dataclass(frozen=True)
class Traffic:
    """The load and the bar: peak conversations, their lengths, the risk and the SLO."""

    peak_users: int
    lengths: LengthDistribution | None = None  # None: every conversation at the request's mean
    headroom: Fraction = Fraction(0)
    risk: float = DEFAULT_RISK
    bandwidth_efficiency: Fraction = Fraction(1)
    flops_efficiency: Fraction = Fraction(1)
    min_tokens_per_s_per_user: Fraction | None = None
    prompt_tokens: int | None = None  # TTFT prompt; None: the mean context
    price_per_hour_usd: float | None = None
    min_users: int | None = None  # a floor on what must be held (a deployment's requirement)

    @property
    def required_users(self) -> int:
        """ceil(peak x (1 + headroom)), or min_users if that is larger (as `kvplan check`)."""
        return required_users(self.peak_users, self.headroom, self.min_users)


@dataclass(frozen=True)
class TrafficPlan:
    """Everything `fleet` reports with traffic: per replica unless the name says per GPU."""

    fleet: FleetResult  # the mean-based plan (the keys `fleet` always had)
    traffic: Traffic
    lengths: LengthDistribution
    mean_tokens: float
    share_above_context: float
    users_per_replica_mean: int
    users_per_replica_worst_case: int
    at_risk: RiskEstimate
    slo_users_per_replica: int | None
    planned_users_per_replica: int
    binding_constraint: str  # "memory" or "slo"
    replicas: int | None
    gpus_needed: int | None
    overflow_at_plan: RiskEstimate
    kv_read_bytes_per_sequence: int  # per step, at the mean context, summed over stages
    weights_read_bytes: int  # per step, summed over stages
    step_time_s: Fraction | None
    ttft_s: Fraction | None  # None where the GPU spec has no sourced BF16 FLOP/s
    prompt_tokens: int
    cost_per_hour_usd: float | None
    assumptions: tuple[str, ...] = field(default=())
    reason: str | None = None  # why nothing is planned, when memory fits but the SLO does not

    @property
    def size(self) -> SizeResult:
        return self.fleet.size

    @property
    def gpus_per_replica(self) -> int:
        return self.size.request.gpus_per_replica

    def per_gpu(self, users: int) -> Fraction:
        return Fraction(users, self.gpus_per_replica)

    @property
    def decode_tokens_per_s_per_user(self) -> Fraction | None:
        return 1 / self.step_time_s if self.step_time_s else None

    @property
    def fits(self) -> bool:
        return self.planned_users_per_replica > 0


def heaviest_stage(stages: list[StageCache]) -> StageCache:
    """The stage that stores the most per token (it fills first)."""
    return max(stages, key=lambda s: (s.full_bytes_per_token, s.bytes_per_token,
                                      s.state_bytes_per_sequence))


def sequence_lattice(req: SizeRequest, lengths: LengthDistribution) -> SequenceLattice:
    """One conversation's paged bytes on the fullest GPU, for each block count it may hold
    (every block count at once, as arrays; one point without numpy for a mean alone)."""
    stage = heaviest_stage(stage_caches(req.model, Precision(req.kv_dtype, req.kv_group_size),
                                        req.tp, req.pp))
    b = req.block_size_tokens
    shared = 0
    if req.allocation is Allocation.paged and req.shared_prefix_tokens:
        shared = req.shared_prefix_tokens // b * b
    if req.allocation is Allocation.reserved:
        seq = sequence_bytes(stage, req.model, req.context_tokens, Allocation.reserved, b)
        return SequenceLattice.from_bytes({seq: 1.0})
    if isinstance(lengths, PointMass):
        pmf = lengths.block_pmf(b, req.context_tokens)
        tokens = [max(min(k * b, req.context_tokens), shared) for k in pmf]
        probs: dict[int, float] = {}
        for seq, p in zip(sequences_bytes(stage, req.model, tokens, Allocation.paged, b, shared),
                          pmf.values(), strict=True):
            probs[seq] = probs.get(seq, 0.0) + p
        return SequenceLattice.from_bytes(probs)
    import numpy as np

    from kvplan.traffic.blocks import block_arrays

    counts, probs_arr = block_arrays(lengths, b, req.context_tokens)
    held = np.maximum(np.minimum(counts * b, req.context_tokens), shared)
    return SequenceLattice.from_arrays(paged_bytes(stage, req.model, held, b, shared), probs_arr)


def paged_bytes(stage: StageCache, model: ModelSpec, tokens: np.ndarray, block_tokens: int,
                shared_tokens: int) -> np.ndarray:
    """`sequences_bytes(..., Allocation.paged, ...)` over an int64 array of lengths."""
    import numpy as np

    window = model.attention.sliding_window_tokens
    full, sliding = stage.full_bytes_per_token, stage.sliding_bytes_per_token
    base = stage.state_bytes_per_sequence - shared_tokens * full
    held = np.minimum(tokens, window) if window is not None else tokens
    b = block_tokens
    out: np.ndarray = (-(-tokens // b)) * b * full + (-(-held // b)) * b * sliding + base
    return out


def kv_read_bytes(req: SizeRequest, tokens: int) -> int:
    """KV bytes one sequence of `tokens` tokens is read per decode step, over all stages."""
    stages = stage_caches(req.model, Precision(req.kv_dtype, req.kv_group_size), req.tp, req.pp)
    return sum(sequence_bytes(s, req.model, tokens, Allocation.reserved, 1) for s in stages)


def plan_traffic(
    req: SizeRequest,
    traffic: Traffic,
    limit: int = EXACT_LATTICE_LIMIT,
    progress: Callable[[], None] | None = None,
    sizer: Callable[[SizeRequest], SizeResult] = size,
    lattices: dict[tuple[object, ...], SequenceLattice] | None = None,
    users_cap: int | None = None,
) -> TrafficPlan:
    """Size `req` for `traffic`. The request's avg context is replaced by the lengths' mean.

    `users_cap`, an engine's sequence cap (EngineSettings.users_cap), bounds the plan whatever
    the lengths: the binding constraint is then "max_num_seqs", as `kvplan check` names it.

    `sizer` turns a request into a KV pool: the plain arithmetic, or an engine profile.
    `lattices`, a cache shared by calls for one model and one length distribution, keeps
    each conversation-size lattice (and its FFT) for the requests that differ only in the GPU.
    """
    if traffic.peak_users <= 0:
        raise InputError(f"peak users must be a positive integer, got {traffic.peak_users}")
    lengths = traffic.lengths
    if lengths is None:
        lengths = PointMass(req.tokens_held)
    mean = lengths.mean_tokens(req.context_tokens)
    mean_int = max(1, min(req.context_tokens, round(mean)))
    req = replace(req, avg_context_tokens=mean_int)
    mean_result = sizer(req)
    fleet_mean = FleetResult(mean_result, traffic.peak_users, traffic.headroom, traffic.min_users)
    worst = sizer(replace(req, avg_context_tokens=None)).users_per_replica
    pool = mean_result.kv_budget_bytes - mean_result.shared_prefix_bytes
    # a paged lattice depends on the cap only through its block count (the last block
    # takes every longer length): max_model_len trials inside one block share it
    cap = (req.context_tokens if req.allocation is Allocation.reserved
           else ceil_div(req.context_tokens, req.block_size_tokens))
    key = (req.kv_dtype, req.kv_group_size, req.tp, req.pp, req.block_size_tokens,
           cap, req.allocation, req.shared_prefix_tokens)
    if lattices is None:
        lattice = sequence_lattice(req, lengths)
    else:
        if key not in lattices:
            lattices[key] = sequence_lattice(req, lengths)
        lattice = lattices[key]
    if pool <= 0 or not mean_result.kv_budget_bytes:
        # nothing fits: certain either way; with a mean alone it is still "no spread given"
        at_risk = RiskEstimate(0, 1.0, "point-mass" if traffic.lengths is None else "exact")
    else:
        at_risk = users_at_risk(lattice, pool, traffic.risk, limit, progress)
    pool_users = at_risk.users  # what the pool alone holds, before an engine's own count
    if traffic.lengths is None and at_risk.users > mean_result.users_per_replica:
        # no spread: every conversation at the mean, so the sizer's own count (an engine's
        # accounting, e.g. vLLM's sliding-window pages) is exact, as `size` and `check` say
        at_risk = replace(at_risk, users=mean_result.users_per_replica)
    memory_users = at_risk.users
    gpus = req.gpus_per_replica
    weights_read = weights_bytes_per_gpu(req.model, req.effective_weight_dtype, gpus) * req.pp
    kv_read = kv_read_bytes(req, mean_int)
    bw = req.gpu.memory_bandwidth_bytes_per_s
    eff = traffic.bandwidth_efficiency
    slo_users = None
    planned, binding = memory_users, "memory"
    if traffic.min_tokens_per_s_per_user is not None:
        slo_users = slo_batch(weights_read, kv_read, bw, traffic.min_tokens_per_s_per_user, eff)
        if slo_users < memory_users:
            planned, binding = slo_users, "slo"
    if users_cap is not None and (planned > users_cap or (
            binding == "memory" and planned == users_cap < pool_users)):
        planned, binding = users_cap, "max_num_seqs"  # the scheduler runs no more at once
    replicas = ceil_div(traffic.required_users, planned) if planned else None
    gpus_needed = replicas * gpus if replicas is not None else None
    step = decode_step_time_s(weights_read, kv_read, planned, bw, eff) if planned else None
    prompt = traffic.prompt_tokens or mean_int
    params = req.model.params_active or req.model.params_total
    flops = req.gpu.bf16_dense_flops
    first = (
        ttft_s(params, prompt, flops, traffic.flops_efficiency, req.tp) if flops is not None else None
    )
    price = traffic.price_per_hour_usd
    cost = gpus_needed * price if (price is not None and gpus_needed is not None) else None
    if planned == memory_users:
        overflow = at_risk
    elif pool > 0:
        overflow = overflow_probability(lattice, planned, pool, limit)
    else:
        overflow = RiskEstimate(planned, 1.0, "exact")
    notes = [
        f"lengths: {lengths.describe()}",
        f"overflow risk: P(total paged cache of the open conversations > pool) <= "
        f"{traffic.risk:g}, {_method_note(at_risk, req, traffic.lengths is not None)}",
        f"decode: step = (weights on this GPU + batch x KV at the mean context) / "
        f"(bandwidth x {float(eff):g}); tokens/s per user = 1 / step",
        f"TTFT: 2 x {params:,} active params x {prompt:,} prompt tokens / (BF16 FLOP/s x "
        f"{float(traffic.flops_efficiency):g} x TP {req.tp}); attention FLOPs and queueing "
        "left out",
    ]
    reason = None
    if planned == 0 and memory_users > 0 and slo_users is not None:
        best = Fraction(bw) * eff / (weights_read + kv_read)
        reason = (
            f"no batch reaches {float(traffic.min_tokens_per_s_per_user or 0):g} tokens/s per "
            f"user on {req.gpu.name}: even one user gets {float(best):.1f} tokens/s (weights "
            f"and one cache read per step at {float(eff):g} of the bandwidth); try a faster "
            "GPU, more TP, fp8 weights or a lower target"
        )
    share_above = lengths.share_above(req.context_tokens)
    if share_above > 0:
        notes.append(f"{share_above:.2%} of lengths exceed the {req.context_tokens:,}-token "
                     "context and are capped there")
    if req.pp > 1:
        notes.append("pipeline stages run one after another for a token: their times add")
    if req.model.moe is not None:
        notes.append("MoE: every resident expert is read each step (a large batch touches all)")
    return TrafficPlan(
        fleet=fleet_mean,
        traffic=traffic,
        lengths=lengths,
        mean_tokens=mean,
        share_above_context=share_above,
        users_per_replica_mean=mean_result.users_per_replica,
        users_per_replica_worst_case=worst,
        at_risk=at_risk,
        slo_users_per_replica=slo_users,
        planned_users_per_replica=planned,
        binding_constraint=binding,
        replicas=replicas,
        gpus_needed=gpus_needed,
        overflow_at_plan=overflow,
        kv_read_bytes_per_sequence=kv_read,
        weights_read_bytes=weights_read,
        step_time_s=step,
        ttft_s=first,
        prompt_tokens=prompt,
        cost_per_hour_usd=cost,
        assumptions=tuple(notes),
        reason=reason,
    )


def _method_note(est: RiskEstimate, req: SizeRequest, spread: bool) -> str:
    if est.method == "normal":
        return (f"normal approximation (Berry-Esseen: the probability is within "
                f"{est.error_bound:.3g} of the true value)")
    # one cache size for every conversation. Until task h100review this said "no spread
    # given" even where one was (a reserved cache, or lengths all in one block count)
    if est.method == "point-mass" and req.allocation is Allocation.reserved:
        return (f"reserved: every conversation sets aside its full {req.context_tokens:,} "
                f"tokens, so the lengths do not move the answer: it is certain")
    if est.method == "point-mass" and spread:
        return "every length takes the same cache (one block count), so the answer is certain"
    if est.method == "point-mass":
        return "no spread given: every conversation at the mean, so the answer is certain"
    return "exact distribution of the sum over block counts"
