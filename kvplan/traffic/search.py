"""Cost search: every GPU type, TP size and cache precision that fits, cheapest fleet first."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from kvplan.capacity.plan import SizeRequest, SizeResult, size
from kvplan.errors import InputError
from kvplan.specs.schema import HardwareSpec
from kvplan.traffic.plan import Traffic, TrafficPlan, plan_traffic
from kvplan.traffic.risk import EXACT_LATTICE_LIMIT
from kvplan.units import DType

DEFAULT_TPS = (1, 2, 4, 8)
DEFAULT_KV_DTYPES = (DType.fp16, DType.fp8)


@dataclass(frozen=True)
class SearchRow:
    """One configuration that carries the load; rank is None when its GPU has no price."""

    plan: TrafficPlan
    price_per_hour_usd: float | None
    rank: int | None


@dataclass(frozen=True)
class SearchResult:
    rows: tuple[SearchRow, ...]  # priced (ranked, cheapest first), then unpriced
    rejected: tuple[tuple[SizeRequest, str], ...]  # configurations that cannot carry the load
    tried: int

    @property
    def unpriced_gpus(self) -> list[str]:
        return sorted({r.plan.size.request.gpu.name for r in self.rows if r.rank is None})


def candidates(
    base: SizeRequest,
    gpus: Sequence[HardwareSpec],
    tps: Sequence[int] = DEFAULT_TPS,
    kv_dtypes: Sequence[DType] = DEFAULT_KV_DTYPES,
) -> list[SizeRequest]:
    """Every (GPU, TP, cache precision) to try, in a stable order.

    TP must divide the query heads (vLLM's rule); fp8 caches only on GPUs that support fp8.
    A stated KV budget belongs to one GPU, so each candidate derives its own.
    """
    out = []
    for gpu in gpus:
        for tp in tps:
            if base.model.num_attention_heads % tp:
                continue
            for kv in kv_dtypes:
                if kv is DType.fp8 and not gpu.fp8_supported:
                    continue
                out.append(replace(base, gpu=gpu, tp=tp, kv_dtype=kv, kv_budget_bytes=None))
    return out


def price_of(gpu: HardwareSpec, prices: dict[str, float]) -> float | None:
    """A price override (by name or alias) wins over the spec's price."""
    for key in (gpu.name, *gpu.aliases):
        if key in prices:
            return prices[key]
    return gpu.price_per_hour_usd


def rank_key(row: SearchRow) -> tuple[float, int, str, int, int]:
    plan = row.plan
    req = plan.size.request
    cost = plan.cost_per_hour_usd if plan.cost_per_hour_usd is not None else float("inf")
    assert plan.gpus_needed is not None
    return (cost, plan.gpus_needed, req.gpu.name, req.tp, -req.kv_dtype.bits)


def search(
    base: SizeRequest,
    traffic: Traffic,
    gpus: Sequence[HardwareSpec],
    prices: dict[str, float] | None = None,
    tps: Sequence[int] = DEFAULT_TPS,
    kv_dtypes: Sequence[DType] = DEFAULT_KV_DTYPES,
    progress: Callable[[int, int], None] | None = None,
    sizer: Callable[[SizeRequest], SizeResult] | None = None,
    limit: int = EXACT_LATTICE_LIMIT,
    users_cap: int | None = None,
    refuse: Callable[[SizeRequest], str | None] | None = None,
) -> SearchResult:
    """Plan every candidate; rank those that carry the load (and the SLO) by cost per hour.
    A candidate `refuse` names a reason for (the engine would not start: a block-fp8
    checkpoint's TP that splits a block, kvplan.engines.fp8_blocks) is rejected with it.

    Ties in cost go to fewer GPUs, then by name, TP and the wider cache. GPUs without a price
    follow the ranked rows, ordered by GPU count, with no rank. `users_cap`: an engine's
    sequence cap, bounding each replica (plan_traffic).
    """
    prices = prices or {}
    todo = candidates(base, gpus, tps, kv_dtypes)
    if not todo:
        raise InputError("no configuration to try: no GPU, TP size or cache precision applies")
    rows: list[SearchRow] = []
    rejected: list[tuple[SizeRequest, str]] = []
    for i, req in enumerate(todo):
        price = price_of(req.gpu, prices)
        refused = refuse(req) if refuse is not None else None
        if refused is not None:
            rejected.append((req, refused))
            if progress is not None:
                progress(i + 1, len(todo))
            continue
        try:
            plan = plan_traffic(req, replace(traffic, price_per_hour_usd=price), limit,
                                sizer=sizer or size, users_cap=users_cap)
        except InputError as err:
            rejected.append((req, str(err)))
        else:
            if plan.gpus_needed is None:
                why = plan.size.reason or plan.reason or "holds no conversation"
                rejected.append((req, why))
            else:
                rows.append(SearchRow(plan, price, None))
        if progress is not None:
            progress(i + 1, len(todo))
    priced = sorted((r for r in rows if r.price_per_hour_usd is not None), key=rank_key)
    unpriced = sorted((r for r in rows if r.price_per_hour_usd is None), key=rank_key)
    ranked = [replace(r, rank=i + 1) for i, r in enumerate(priced)]
    return SearchResult(tuple(ranked + unpriced), tuple(rejected), len(todo))
