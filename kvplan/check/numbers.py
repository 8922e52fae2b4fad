"""The deciding numbers of one setup: what it holds, whether it starts, and why it fails.

`evaluate` sizes a Setup (the knobs a fix may turn) as its engine would, and with traffic as
`kvplan fleet` plans it; kvplan.check.fixes retries it with changed knobs and
kvplan.check.verdict.judge puts the two together.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kvplan.capacity.plan import SizeRequest, SizeResult, size
from kvplan.engines import EngineSettings, run_engine
from kvplan.errors import InputError
from kvplan.units import fmt_bytes


@dataclass(frozen=True)
class Setup:
    """The knobs a fix may turn."""

    gpus: int
    request: SizeRequest
    max_num_seqs: int | None = None
    engines_per_unit: int = 1  # engines that must be added together (data-parallel pods)
    engine: EngineSettings | None = None  # None: the plain arithmetic (`ideal`)
    # the deployment's traffic (a kvplan.traffic.Traffic) when it states a spread of lengths
    # or an SLO: a replica then holds what `kvplan fleet` plans (overflow risk, SLO)
    traffic: Any = None


# traffic plans and conversation-size lattices computed in this process (see _traffic_basis)
_PLANS: dict[Any, TrafficBasis | None] = {}
_LATTICES: dict[Any, dict[Any, Any]] = {}


@dataclass(frozen=True)
class TrafficBasis:
    """Users per replica by each basis `kvplan fleet` reports, for a deployment with traffic."""

    users_at_mean: int  # every conversation at the mean length
    users_at_risk: int  # P(the open conversations overflow the pool) <= risk
    risk: float
    risk_method: str  # "exact", "normal" or "point-mass"
    users_slo: int | None  # the decode-speed SLO's batch, if one is stated
    slo_tokens_per_s: float | None
    binding: str  # "overflow_risk" or "slo"
    users_planned: int  # the smaller of the two: what `kvplan fleet` plans per replica


@dataclass(frozen=True)
class Numbers:
    """The deciding figures for one deployment."""

    users_held: int
    users_required: int
    would_start: bool
    replicas: int
    gpus: int
    gpus_per_replica: int
    users_per_replica: int  # after the max_num_seqs cap
    kv_users_per_replica: int  # what the KV pool alone holds
    kv_pool_bytes: int  # per GPU
    max_sequence_bytes: int  # one max_model_len sequence, per GPU
    longest_context_tokens: int | None  # what fits when one max_model_len sequence does not
    idle_gpus: int
    limited_by: str  # "kv_cache" | "max_num_seqs" | "weights"
    p95_tokens: int | None
    max_model_len: int
    reasons: tuple[str, ...] = ()
    traffic: TrafficBasis | None = None
    p95_beyond_model: bool = False  # no max_model_len the model allows holds the p95

    @property
    def passes(self) -> bool:
        return not self.reasons


def _size(req: SizeRequest, engine: EngineSettings | None = None) -> SizeResult | None:
    """The KV pool and users as the deployment's engine would allocate them."""
    try:
        return run_engine(req, engine).size if engine is not None else size(req)
    except InputError:
        return None


def _starts_short(engine: EngineSettings | None) -> bool:
    """Whether the engine starts with a pool too small for one max_model_len request."""
    from kvplan.engine_traits import traits

    return engine is not None and traits(engine.engine).starts_short


def _pool_range(req: SizeRequest, engine: EngineSettings | None) -> tuple[int, int] | None:
    """The engine's KV pool per GPU from its high to its low activation estimate (None without
    an engine profile or where it cannot size)."""
    if engine is None:
        return None
    try:
        result = run_engine(req, engine)
    except InputError:
        return None
    return result.kv_cache_bytes_low, result.kv_cache_bytes_high


def _traffic_basis(setup: Setup, req: SizeRequest) -> TrafficBasis | None:
    """What `kvplan fleet` plans per replica for this request and the deployment's traffic
    (the same function, `plan_traffic`, with the same engine sizer); None if it cannot size."""
    from kvplan.traffic.plan import plan_traffic

    engine = setup.engine
    # plans are pure functions of the model, the traffic, the engine and the request, so one
    # run of `check` computes each once: repeated trials, and files that deploy the same
    # model for the same traffic (staging and production copies) share them
    same = (_model_key(req.model), setup.traffic, repr(engine))
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


_MODEL_KEYS: dict[int, tuple[Any, str]] = {}


def _model_key(model: Any) -> str:
    """The model spec as JSON (a cache key), serialised once per spec object in a run."""
    hit = _MODEL_KEYS.get(id(model))
    if hit is None or hit[0] is not model:
        if len(_MODEL_KEYS) > 4096:
            _MODEL_KEYS.clear()
        hit = _MODEL_KEYS[id(model)] = (model, model.model_dump_json())
    return hit[1]


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
        # no pool, or the engine stops for a term beside its pool (SGLang's request-to-token
        # map, kvplan.engines.sglang_req_map): the engine's own reason, where the pool holds the
        # sequence or the engine would start short of one (starts_short)
        beside = (one is not None and one.kv_budget_bytes > 0 and one.reason is not None
                  and "would not start" in one.reason
                  and (one.kv_bytes_per_sequence <= one.kv_budget_bytes
                       or _starts_short(setup.engine)))
        if one is not None and (one.kv_budget_bytes <= 0 or beside):
            why = one.reason or "no memory for the KV cache"
            # an engine's own reason already says who would not start
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
