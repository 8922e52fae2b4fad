"""One flat record per result: the single source for JSON keys, CSV columns and table cells."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kvplan.capacity.plan import USERS_CAPPED, FleetResult, SizeResult

if TYPE_CHECKING:  # neither the traffic maths nor the engines are imported on `size`'s path
    from kvplan.engines.interface import EngineResult
    from kvplan.traffic.plan import TrafficPlan
    from kvplan.traffic.search import SearchRow


def number(x: Fraction | int) -> int | float:
    """An int when whole, else a float rounded to 3 places (users per GPU under TP)."""
    if isinstance(x, int) or x.denominator == 1:
        return int(x)
    return round(float(x), 3)


def size_record(r: SizeResult, engine: EngineResult | None = None) -> dict[str, Any]:
    """The fields of `size` output, in order. Units are part of every name.

    With an engine profile the engine's own numbers follow the plain ones (keys unchanged).
    """
    q = r.request
    rec: dict[str, Any] = {
        "model": q.model.name,
        "gpu": q.gpu.name,
        "kv_dtype": q.kv_dtype.value,
        "weight_dtype": q.effective_weight_dtype.value,
        "allocation": q.allocation.value,
        "tp": q.tp,
        "pp": q.pp,
        "context_tokens": q.context_tokens,
        "avg_context_tokens": q.tokens_held,
        "block_size_tokens": q.block_size_tokens,
        "shared_prefix_tokens": q.shared_prefix_tokens,
        "kv_bytes_per_token": r.kv_bytes_per_token,
        "kv_bytes_per_token_beyond_window": r.kv_bytes_per_token_beyond_window,
        "kv_bytes_per_sequence": r.kv_bytes_per_sequence,
        "reserved_waste_bytes_per_sequence": r.reserved_waste_bytes_per_sequence,
        "memory_bytes": q.gpu.memory_bytes,
        "memory_utilization": float(q.memory_utilization),
        "weights_bytes": r.weights_bytes,
        "reserve_bytes": r.breakdown.reserve_bytes,
        "kv_budget_bytes": r.kv_budget_bytes,
        "shared_prefix_bytes": r.shared_prefix_bytes,
        "users_per_gpu": number(r.users_per_gpu),
        # the basis of the headline: the engine's sequence cap where it binds, else every
        # sequence at the mean (paged, a mean given) or at its maximum (reserved, or no mean):
        # the worst case
        "users_per_gpu_basis": ("max_num_seqs" if any(a.startswith(USERS_CAPPED)
                                                      for a in r.assumptions)
                                else "mean" if q.tokens_held < q.context_tokens else "worst_case"),
        "users_per_replica": r.users_per_replica,
        "gpus_per_replica": q.gpus_per_replica,
        "nodes_per_replica": q.nodes,
        "fits": r.fits,
        "reason": r.reason,
    }
    if engine is not None:
        rec.update(engine_fields(engine))
    return rec


def engine_fields(e: EngineResult) -> dict[str, Any]:
    """What an engine profile adds: its pool, tokens, concurrency and whether it starts."""
    return {
        "engine": e.engine.value,
        "engine_version": e.engine_version,
        "kv_cache_tokens": e.kv_cache_tokens,
        "kv_cache_tokens_low": e.kv_cache_tokens_low,
        "kv_cache_tokens_high": e.kv_cache_tokens_high,
        "kv_cache_blocks": e.blocks,
        "engine_block_size_tokens": e.block_size_tokens,
        "max_concurrency": round(float(e.max_concurrency), 2),
        "kv_cache_bytes": e.kv_cache_bytes,
        "kv_cache_bytes_low": e.kv_cache_bytes_low,
        "kv_cache_bytes_high": e.kv_cache_bytes_high,
        "activation_bytes": e.activation_bytes,
        "activation_bytes_low": e.activation_bytes_low,
        "activation_bytes_high": e.activation_bytes_high,
        "non_torch_bytes": e.non_torch_bytes,
        "cuda_graph_bytes": e.cuda_graph_bytes,
        "requested_bytes": e.requested_bytes,
        "starts": e.starts,
        "max_model_len_that_starts": e.max_model_len_that_starts,
    }


def fleet_record(f: FleetResult, engine: EngineResult | None = None) -> dict[str, Any]:
    """`size` fields plus the fleet's: peak, headroom, replicas, GPUs."""
    rec = size_record(f.size, engine)
    rec.update(
        {
            "peak_users": f.peak_users,
            "headroom_fraction": float(f.headroom),
            "required_users": f.required_users,
            "replicas": f.replicas,
            "gpus_needed": f.gpus_needed,
        }
    )
    return rec


def detail(r: SizeResult, engine: EngineResult | None = None) -> dict[str, Any]:
    """Nested extras for JSON only: the memory breakdown, assumptions and suggestions."""
    out = {
        "breakdown": r.breakdown.parts(),
        "assumptions": list(r.assumptions),
        "suggestions": list(r.suggestions),
        "max_context_that_fits_tokens": r.max_context_that_fits,
    }
    if r.state_bytes_per_sequence:  # linear (Mamba2, Gated DeltaNet) layers only
        out["state_bytes_per_sequence"] = r.state_bytes_per_sequence
    if engine is not None:
        out["engine_log_lines"] = list(engine.log_lines)
    return out


def _round(x: Fraction | float | None, places: int = 6) -> float | None:
    return None if x is None else round(float(x), places)


def traffic_record(p: TrafficPlan, engine: EngineResult | None = None) -> dict[str, Any]:
    """`fleet` fields plus the traffic plan's; replicas and GPUs follow the plan's binding.

    `users_per_gpu` is the headline: the users per GPU that decided the GPU count (gpus_needed
    = ceil(required_users / users_per_gpu)), its basis beside it; the other bases follow.
    """
    from kvplan.plan.planner import basis

    rec = fleet_record(p.fleet, engine)
    per_gpu = p.per_gpu
    slo = p.traffic.min_tokens_per_s_per_user
    rec.update(
        {
            "users_per_gpu": number(per_gpu(p.planned_users_per_replica)),
            "users_per_gpu_basis": basis(p),
            # the replica's figure on the same basis: replicas = ceil(required / this)
            "users_per_replica": p.planned_users_per_replica,
            "replicas": p.replicas,
            "gpus_needed": p.gpus_needed,
            "reason": rec["reason"] or p.reason,
            "context_distribution": p.lengths.kind,
            "context_mean_tokens": round(p.mean_tokens, 1),
            "context_share_above_max": round(p.share_above_context, 6),
            "users_per_gpu_mean": number(per_gpu(p.users_per_replica_mean)),
            "users_per_gpu_at_risk": number(per_gpu(p.at_risk.users)),
            "users_per_gpu_worst_case": number(per_gpu(p.users_per_replica_worst_case)),
            "users_per_gpu_planned": number(per_gpu(p.planned_users_per_replica)),
            "risk": p.traffic.risk,
            "risk_method": p.at_risk.method,
            "risk_error_bound": _round(p.at_risk.error_bound),
            "overflow_probability": _round(p.overflow_at_plan.probability, 8),
            "min_tokens_per_s_per_user": _round(slo),
            "slo_users_per_gpu": (
                None if p.slo_users_per_replica is None
                else number(per_gpu(p.slo_users_per_replica))
            ),
            "binding_constraint": p.binding_constraint,
            "bandwidth_efficiency": float(p.traffic.bandwidth_efficiency),
            "step_time_s": _round(p.step_time_s, 9),
            "decode_tokens_per_s_per_user": _round(p.decode_tokens_per_s_per_user, 3),
            "prompt_tokens": p.prompt_tokens,
            "ttft_s": _round(p.ttft_s, 6),
            "price_per_hour_usd": p.traffic.price_per_hour_usd,
            "cost_per_hour_usd": _round(p.cost_per_hour_usd, 2),
        }
    )
    return rec


def traffic_detail(p: TrafficPlan, engine: EngineResult | None = None) -> dict[str, Any]:
    """JSON extras for a traffic plan: the size details plus the traffic assumptions."""
    out = detail(p.size, engine)
    out["assumptions"] = out["assumptions"] + list(p.assumptions)
    return out


def search_record(row: SearchRow) -> dict[str, Any]:
    """One ranked configuration of `fleet --search` (flat, for the table and CSV)."""
    p = row.plan
    q = p.size.request
    return {
        "rank": row.rank,
        "gpu": q.gpu.name,
        "tp": q.tp,
        "pp": q.pp,
        "kv_dtype": q.kv_dtype.value,
        "allocation": q.allocation.value,
        "users_per_gpu_planned": number(p.per_gpu(p.planned_users_per_replica)),
        "users_per_gpu_at_risk": number(p.per_gpu(p.at_risk.users)),
        "binding_constraint": p.binding_constraint,
        "replicas": p.replicas,
        "gpus_needed": p.gpus_needed,
        "decode_tokens_per_s_per_user": _round(p.decode_tokens_per_s_per_user, 3),
        "ttft_s": _round(p.ttft_s, 6),
        "price_per_hour_usd": row.price_per_hour_usd,
        "cost_per_hour_usd": _round(p.cost_per_hour_usd, 2),
        "priced": row.price_per_hour_usd is not None,
    }
