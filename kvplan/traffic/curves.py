"""The numbers behind the pictures: users against context, and the concurrent cache's law."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from kvplan.capacity.kv import Allocation
from kvplan.capacity.plan import SizeRequest, size
from kvplan.errors import InputError
from kvplan.traffic.lengths import LengthDistribution
from kvplan.traffic.plan import sequence_lattice
from kvplan.traffic.risk import RiskEstimate, overflow_probability, sum_pmf, users_at_risk
from kvplan.units import DType


def context_points(max_tokens: int, start: int = 256) -> list[int]:
    """Powers of two from `start` below the maximum, then the maximum itself."""
    points, t = [], start
    while t < max_tokens:
        points.append(t)
        t *= 2
    return [*points, max_tokens]


def users_vs_context(
    base: SizeRequest, kv_dtypes: Sequence[DType], allocations: Sequence[Allocation]
) -> dict[str, list[tuple[int, Fraction]]]:
    """Users per GPU at each conversation length, per cache precision and allocation.

    Paged: every conversation holds that many tokens. Reserved: every conversation sets aside
    the maximum context whatever it holds, so its line is flat.
    """
    out: dict[str, list[tuple[int, Fraction]]] = {}
    for kv in kv_dtypes:
        for alloc in allocations:
            pts = []
            for tokens in context_points(base.context_tokens):
                req = replace(base, kv_dtype=kv, allocation=alloc, avg_context_tokens=tokens)
                pts.append((tokens, size(req).users_per_gpu))
            out[f"{kv.value} {alloc.value}"] = pts
    return out


@dataclass(frozen=True)
class CacheDistribution:
    """P(the open conversations hold `totals_bytes[i]`) at `users` open conversations."""

    users: int
    totals_bytes: list[int]
    probs: list[float]
    pool_bytes: int
    overflow: RiskEstimate


def cache_distribution(
    req: SizeRequest, lengths: LengthDistribution, users: int | None = None, risk: float = 0.01
) -> CacheDistribution:
    """The law of the total paged cache of `users` conversations (default: users at risk)."""
    result = size(replace(req, avg_context_tokens=None))
    pool = result.kv_budget_bytes - result.shared_prefix_bytes
    if pool <= 0:
        raise InputError(result.reason or "no KV pool on this GPU")
    lat = sequence_lattice(req, lengths)
    n = users if users is not None else users_at_risk(lat, pool, risk).users
    if n <= 0:
        raise InputError("no conversation fits at this risk; nothing to draw")
    pmf = sum_pmf(lat, n)
    peak = max(pmf)
    keep = [i for i, p in enumerate(pmf) if p >= peak * 1e-7]
    lo, hi = keep[0], keep[-1]
    step = max(1, (hi - lo) // 2000)  # at most ~2,000 points, each the mass of its bin
    totals, probs = [], []
    for s in range(lo, hi + 1, step):
        totals.append(n * lat.base_bytes + s * lat.unit_bytes)
        probs.append(sum(pmf[s : s + step]))
    return CacheDistribution(n, totals, probs, pool, overflow_probability(lat, n, pool))
