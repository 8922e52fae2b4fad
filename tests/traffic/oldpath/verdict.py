"""The fix search of kvplan/check/verdict.py as it was before the numpy risk (a reference).

The functions are the old ones, verbatim; the dataclasses they fill are the live ones (so a
test can swap these functions into kvplan.check.verdict and compare `kvplan check` output).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from kvplan.capacity.plan import SizeRequest, SizeResult, size
from kvplan.check.verdict import MAX_TP, Fix, Numbers, Setup, TrafficBasis
from kvplan.engines import EngineSettings, run_engine
from kvplan.errors import InputError
from kvplan.specs.schema import HardwareSpec
from kvplan.units import DType, ceil_div, fmt_bytes

_PLANS: dict[Any, TrafficBasis | None] = {}
_LATTICES: dict[Any, dict[Any, Any]] = {}

# the functions below are swapped into kvplan.check.verdict under these names
SWAPPED = ("_size", "_traffic_basis", "evaluate", "_gpus_for", "_tp_options", "_more_gpus",
           "_fp8_cache", "_max_model_len", "_max_num_seqs", "_hourly", "_relative_cost",
           "_bigger_gpu", "fixes")


def _size(req: SizeRequest, engine: EngineSettings | None = None) -> SizeResult | None:
    """The KV pool and users as the deployment's engine would allocate them."""
    try:
        return run_engine(req, engine).size if engine is not None else size(req)
    except InputError:
        return None


def _traffic_basis(setup: Setup, req: SizeRequest) -> TrafficBasis | None:
    """What `kvplan fleet` plans per replica for this request and the deployment's traffic
    (the same function, `plan_traffic`, with the same engine sizer); None if it cannot size."""
    from kvplan.traffic.plan import plan_traffic

    engine = setup.engine
    # plans are pure functions of the model, the traffic, the engine and the request, so one
    # run of `check` computes each once: repeated trials, and files that deploy the same
    # model for the same traffic (staging and production copies) share them
    same = (req.model.model_dump_json(), setup.traffic, repr(engine))
    key = (same, req.gpu.name, req.context_tokens, req.kv_dtype, req.kv_group_size, req.tp,
           req.pp, req.block_size_tokens, req.allocation, req.shared_prefix_tokens,
           req.kv_budget_bytes, req.memory_utilization, req.reserve_bytes, req.weight_dtype)
    if key in _PLANS:
        return _PLANS[key]
    if len(_PLANS) > 4096:  # a long-lived process checking many files: start afresh
        _PLANS.clear()
        _LATTICES.clear()

    def sizer(r: SizeRequest) -> SizeResult:
        return run_engine(r, engine).size if engine is not None else size(r)

    lattices = _LATTICES.setdefault((same[0], setup.traffic.lengths), {})
    try:
        plan = plan_traffic(req, setup.traffic, sizer=sizer, lattices=lattices)
    except InputError:
        basis = None
    else:
        t = setup.traffic
        slo = t.min_tokens_per_s_per_user
        basis = TrafficBasis(
            users_at_mean=plan.users_per_replica_mean,
            users_at_risk=plan.at_risk.users,
            risk=t.risk,
            risk_method=plan.at_risk.method,
            users_slo=plan.slo_users_per_replica,
            slo_tokens_per_s=float(slo) if slo is not None else None,
            binding="slo" if plan.binding_constraint == "slo" else "overflow_risk",
            users_planned=plan.planned_users_per_replica,
        )
    _PLANS[key] = basis
    return basis


def evaluate(setup: Setup, required: int, p95: int | None) -> Numbers:
    """The numbers and the reasons to fail for one setup."""
    req = setup.request
    per = req.gpus_per_replica
    replicas = setup.gpus // per
    idle = setup.gpus - replicas * per
    res = _size(req, setup.engine)
    one_req = replace(req, avg_context_tokens=None, shared_prefix_tokens=0)
    same = req.tokens_held == req.context_tokens and not req.shared_prefix_tokens
    one = res if same else _size(one_req, setup.engine)
    kv_users = res.users_per_replica if res else 0
    would_start = bool(one and one.users_per_replica >= 1)
    users = kv_users
    limited = "kv_cache"
    basis = None
    if setup.traffic is not None and would_start and res is not None:
        basis = _traffic_basis(setup, req)
        if basis is not None:  # what fleet plans, even where it exceeds the mean's count
            users, limited = basis.users_planned, basis.binding
    if setup.max_num_seqs is not None and setup.max_num_seqs < users:
        users, limited = setup.max_num_seqs, "max_num_seqs"
    if res is not None and res.kv_budget_bytes <= 0:
        limited = "weights"
    held = replicas * users if would_start else 0
    reasons = []
    longest = None
    if not would_start:
        if one is not None and one.kv_budget_bytes <= 0:
            why = one.reason or "no memory for the KV cache"
            # an engine's own reason already says who would not start (wording kept in step
            # with kvplan/check/verdict.py: the old path differs only in its search)
            reasons.append(why if "would not start" in why else f"would not start: {why}")
        elif one is not None:
            budget = one.kv_budget_bytes
            longest = one.max_context_that_fits or 0
            seq = one.kv_bytes_per_sequence
            reasons.append(
                f"would not start: one {req.context_tokens:,}-token sequence needs "
                f"{fmt_bytes(seq)} of KV cache per GPU, the pool is {fmt_bytes(budget)} "
                f"(longest that fits: {longest:,} tokens)"
            )
            # wording kept in step with kvplan/check/numbers.py (not a search: a second line)
            from kvplan.check.numbers import _pool_range

            span = _pool_range(one_req if not same else req, setup.engine)
            if span is not None and span[0] < seq <= span[1]:
                reasons.append(
                    f"borderline: kvplan's range for this pool is {fmt_bytes(span[0])} to "
                    f"{fmt_bytes(span[1])} (the ranges of the terms it books, `kvplan explain`), "
                    "so it may start; the verdict follows the best estimate"
                )
    if held < required:
        reasons.append(f"holds {held:,} users, {required:,} required")
        if limited == "max_num_seqs" and would_start:
            reasons.append(
                f"max_num_seqs caps each replica at {users:,} sequences; its KV pool holds "
                f"{kv_users:,}"
            )
        if limited == "overflow_risk" and basis is not None:
            reasons.append(
                f"at {basis.risk:.2%} overflow risk a replica holds {users:,} conversations "
                f"({kv_users:,} if every one had the mean length)"
            )
        if limited == "slo" and basis is not None and basis.slo_tokens_per_s is not None:
            reasons.append(
                f"the {basis.slo_tokens_per_s:g} tokens/s per user SLO caps a replica at "
                f"{users:,} conversations (memory holds {basis.users_at_risk:,} at "
                f"{basis.risk:.2%} risk)"
            )
    if p95 is not None and p95 > req.context_tokens:
        longest = req.model.max_context_tokens
        beyond = (f"; it is beyond {req.model.name}'s max_context_tokens ({longest:,}), so no "
                  "max_model_len can hold it: those conversations are cut, or a model with a "
                  "longer context is needed") if p95 > longest else ""
        reasons.append(
            f"p95 conversation ({p95:,} tokens) is longer than max_model_len "
            f"({req.context_tokens:,}){beyond}"
        )
    return Numbers(
        users_held=held,
        users_required=required,
        would_start=would_start,
        replicas=replicas,
        gpus=setup.gpus,
        gpus_per_replica=per,
        users_per_replica=users,
        kv_users_per_replica=kv_users,
        kv_pool_bytes=max(res.kv_budget_bytes, 0) if res else 0,
        max_sequence_bytes=one.kv_bytes_per_sequence if one else 0,
        longest_context_tokens=longest,
        idle_gpus=idle,
        limited_by=limited,
        p95_tokens=p95,
        max_model_len=req.context_tokens,
        reasons=tuple(reasons),
        traffic=basis,
        p95_beyond_model=p95 is not None and p95 > req.model.max_context_tokens,
    )


def _gpus_for(setup: Setup, required: int, p95: int | None) -> Numbers | None:
    """The fewest GPUs (whole units) at this setup's per-replica config that pass."""
    req = setup.request
    per_unit = req.gpus_per_replica * setup.engines_per_unit
    probe = evaluate(replace(setup, gpus=per_unit), required, p95)
    if not probe.would_start or probe.users_per_replica == 0:
        return None
    replicas = ceil_div(required, probe.users_per_replica)
    units = ceil_div(replicas, setup.engines_per_unit)
    numbers = evaluate(replace(setup, gpus=units * per_unit), required, p95)
    return numbers if numbers.passes else None


def _tp_options(setup: Setup) -> list[int]:
    req = setup.request
    heads = req.model.num_attention_heads
    out = []
    tp = req.tp
    while tp <= MAX_TP:
        if heads % tp == 0:
            out.append(tp)
        tp *= 2
    return out or [req.tp]


def _more_gpus(setup: Setup, required: int, p95: int | None) -> Fix | None:
    """More replicas at the same tensor parallelism; a wider replica only when one of the
    current width cannot start (then the widest-but-fewest GPUs that pass)."""
    for tps in ([setup.request.tp], [t for t in _tp_options(setup) if t > setup.request.tp]):
        best: Fix | None = None
        for tp in tps:
            trial = replace(setup, request=replace(setup.request, tp=tp))
            numbers = _gpus_for(trial, required, p95)
            if numbers is None:
                continue
            if numbers.gpus <= setup.gpus and tp == setup.request.tp:
                continue  # more GPUs would not be the change that helps
            if best is None or numbers.gpus < best.numbers.gpus:
                new: dict[str, Any] = {"gpus": numbers.gpus}
                old: dict[str, Any] = {"gpus": setup.gpus}
                if tp != setup.request.tp:
                    new["tp"], old["tp"] = tp, setup.request.tp
                cost = (1, _relative_cost(setup, setup.request.gpu, numbers.gpus))
                best = Fix("more_gpus", old, new, numbers, cost)
        if best is not None:
            return best
    return None


def _fp8_cache(setup: Setup, required: int, p95: int | None) -> Fix | None:
    req = setup.request
    if not req.gpu.fp8_supported or req.kv_dtype.bits <= 8:
        return None
    numbers = evaluate(replace(setup, request=replace(req, kv_dtype=DType.fp8)), required, p95)
    if not numbers.passes:
        return None
    return Fix(
        "fp8_kv_cache",
        {"kv_cache_dtype": req.kv_dtype.value},
        {"kv_cache_dtype": "fp8"},
        numbers,
        (0, 0.0),
    )


def _max_model_len(setup: Setup, required: int, p95: int | None) -> Fix | None:
    """The longest max_model_len that passes, not below the mean or p95 conversation."""
    req = setup.request
    floor = max(p95 or 0, req.avg_context_tokens or 0, req.shared_prefix_tokens + 1, 1)
    current = req.context_tokens

    def trial(n: int) -> Numbers:
        return evaluate(replace(setup, request=replace(req, context_tokens=n)), required, p95)

    if p95 is not None and p95 > current:  # longer, up to the p95 conversation
        if p95 > req.model.max_context_tokens:
            return None
        numbers = trial(p95)
        if not numbers.passes:
            return None
        return Fix(
            "max_model_len", {"max_model_len": current}, {"max_model_len": p95}, numbers, (0, 1.0)
        )
    if floor >= current or not trial(floor).passes:
        return None
    lo, hi = floor, current - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if trial(mid).passes:
            lo = mid
        else:
            hi = mid - 1
    return Fix(
        "max_model_len", {"max_model_len": current}, {"max_model_len": lo}, trial(lo), (0, 1.0)
    )


def _max_num_seqs(setup: Setup, required: int, p95: int | None) -> Fix | None:
    """Raise a max_num_seqs cap that binds, to the smallest value that passes."""
    cap = setup.max_num_seqs
    current = evaluate(setup, required, p95)
    if cap is None or current.limited_by != "max_num_seqs" or current.replicas == 0:
        return None
    wanted = min(ceil_div(required, current.replicas), current.kv_users_per_replica)
    if wanted <= cap:
        return None
    numbers = evaluate(replace(setup, max_num_seqs=wanted), required, p95)
    if not numbers.passes:
        return None
    return Fix("max_num_seqs", {"max_num_seqs": cap}, {"max_num_seqs": wanted}, numbers, (0, 0.5))


def _hourly(gpu: HardwareSpec, count: int) -> float | None:
    return gpu.price_per_hour_usd * count if gpu.price_per_hour_usd is not None else None


def _relative_cost(setup: Setup, gpu: HardwareSpec, count: int) -> float:
    """What a hardware change costs against today: by price per hour when both GPUs have
    one, else by the GPU memory bought."""
    now, then = _hourly(setup.request.gpu, setup.gpus), _hourly(gpu, count)
    if now and then:
        return then / now
    return (gpu.memory_bytes * count) / (setup.request.gpu.memory_bytes * setup.gpus)


def _bigger_gpu(
    setup: Setup, required: int, p95: int | None, catalog: Sequence[HardwareSpec]
) -> Fix | None:
    """The smallest GPU of the same vendor with more memory that passes at the same count."""
    req = setup.request
    priced_first = req.gpu.price_per_hour_usd is not None  # rule added after the copy
    for gpu in sorted(catalog, key=lambda g: (priced_first and g.price_per_hour_usd is None,
                                               g.memory_bytes, g.name)):
        if gpu.memory_bytes <= req.gpu.memory_bytes or gpu.vendor != req.gpu.vendor:
            continue
        if gpu.unified_memory and not req.gpu.unified_memory:  # rule added after the copy
            continue
        numbers = evaluate(replace(setup, request=replace(req, gpu=gpu)), required, p95)
        if numbers.passes:
            cost = (1, _relative_cost(setup, gpu, setup.gpus))
            return Fix("bigger_gpu", {"gpu": req.gpu.name}, {"gpu": gpu.name}, numbers, cost)
    return None


def fixes(
    setup: Setup, required: int, p95: int | None, catalog: Sequence[HardwareSpec]
) -> tuple[Fix, ...]:
    """Every single change that passes, smallest first: config before hardware, then size."""
    found = [
        f
        for f in (
            _fp8_cache(setup, required, p95),
            _max_num_seqs(setup, required, p95),
            _max_model_len(setup, required, p95),
            _more_gpus(setup, required, p95),
            _bigger_gpu(setup, required, p95, catalog),
        )
        if f is not None
    ]
    if not found and setup.request.gpu.fp8_supported and setup.request.kv_dtype.bits > 8:
        fp8 = replace(setup, request=replace(setup.request, kv_dtype=DType.fp8))
        more = _more_gpus(fp8, required, p95)
        if more is not None:
            old = {**more.old, "kv_cache_dtype": setup.request.kv_dtype.value}
            new = {**more.new, "kv_cache_dtype": "fp8"}
            found.append(Fix("combined", old, new, more.numbers, (1, more.cost[1])))
    return tuple(sorted(found, key=lambda f: f.cost))
