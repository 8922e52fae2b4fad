"""One flat record per result: the single source for JSON keys, CSV columns and table cells."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kvplan.capacity.plan import FleetResult, SizeResult


def number(x: Fraction | int) -> int | float:
    """An int when whole, else a float rounded to 3 places (users per GPU under TP)."""
    if isinstance(x, int) or x.denominator == 1:
        return int(x)
    return round(float(x), 3)


def size_record(r: SizeResult) -> dict[str, Any]:
    """The fields of `size` output, in order. Units are part of every name."""
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
        "users_per_replica": r.users_per_replica,
        "gpus_per_replica": q.gpus_per_replica,
        "fits": r.fits,
        "reason": r.reason,
    }
    return rec


def fleet_record(f: FleetResult) -> dict[str, Any]:
    """`size` fields plus the fleet's: peak, headroom, replicas, GPUs."""
    rec = size_record(f.size)
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


def detail(r: SizeResult) -> dict[str, Any]:
    """Nested extras for JSON only: the memory breakdown, assumptions and suggestions."""
    return {
        "breakdown": r.breakdown.parts(),
        "assumptions": list(r.assumptions),
        "suggestions": list(r.suggestions),
        "max_context_that_fits_tokens": r.max_context_that_fits,
    }
