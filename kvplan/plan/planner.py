"""The planner's public functions: records in, sized and planned results out.

The CLI calls only these (and `build_records`); the rules that combine a record's inputs (a
mean with one percentile, headroom with min_users, the engine's pool) live here and in
kvplan.deploy, never in a command. `engine_defaults` (the engine's unstated defaults added to the
fields `explain` lists) lives in kvplan.plan.engine_fields and is exported from here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kvplan.capacity import advise, size
from kvplan.deploy import plan_deployment
from kvplan.deploy.problems import DeploymentError
from kvplan.engine_traits import traits
from kvplan.plan.engine_fields import engine_defaults as engine_defaults  # the CLI's import
from kvplan.plan.record import Record, get_field, set_field

if TYPE_CHECKING:
    from kvplan.capacity import SizeRequest, SizeResult
    from kvplan.deploy import PlannedDeployment
    from kvplan.engines import EngineResult, EngineSettings
    from kvplan.traffic import Traffic, TrafficPlan
    from kvplan.traffic.search import SearchResult

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class SizePlan:
    """One record sized: the pool and users (the engine's own when it names one)."""

    record: Record
    size: SizeResult
    engine: EngineResult | None = None
    notes: tuple[str, ...] = ()  # what was assumed in place of what the record states


@dataclass(frozen=True)
class FleetPlan:
    """One record planned for its traffic."""

    record: Record
    plan: TrafficPlan
    engine: EngineResult | None = None
    notes: tuple[str, ...] = ()  # what was assumed in place of what the record states


def resolve(record: Record, need_load: bool = True) -> PlannedDeployment:
    """The record with its specs resolved and its request built (kvplan.deploy's rules)."""
    from kvplan.plan.moot import refuse_moot

    dep = record.deployment
    auto_reads = dep.engine.trtllm_config is not None or \
        traits(dep.engine.name).kv_auto_from_checkpoint  # TensorRT-LLM's
    if auto_reads and "engine.kv_cache_dtype" not in record.origins:
        from kvplan.deploy.engine_block import kv_dtype_unstated

        # the flags' fp16 default: the options file, or the checkpoint (TensorRT-LLM's auto,
        # the model spec's kv_cache_quant_algo), may state one
        dep = kv_dtype_unstated(dep)
    try:
        planned = plan_deployment(dep, record.source, record.base_dir, record.doc,
                                  need_load=need_load, attention_dp=record.attention_dp,
                                  node_gpus=record.node_gpus)
    except DeploymentError as err:
        raise DeploymentError(record.source, record.named(err.items)) from None
    refuse_moot(record, planned)  # a flag this plan never reads is refused, with the reason
    return planned


def engine_settings(record: Record, stated_ideal: bool = False,
                    planned: PlannedDeployment | None = None) -> EngineSettings | None:
    """None for `ideal` (the plain arithmetic), else the engine profile's settings.

    `stated_ideal`: a record that names engine.name ideal gets the ideal profile's settings
    (size then reports the engine's fields too, as for any engine it is given). The engine
    block is the planned one (`planned`, or resolved here): a TensorRT-LLM config file's limits
    merged in, a draft model's path made absolute (kvplan.deploy.engine_block)."""
    e = record.deployment.engine
    if e.trtllm_config is not None or e.speculative_model is not None:
        e = (planned or resolve(record, need_load=False)).deployment.engine
    if e.name == "ideal" and not (stated_ideal and "name" in e.model_fields_set):
        return None
    if e.name == "ideal":
        from kvplan.engines import Engine, EngineSettings

        return EngineSettings(engine=Engine.ideal)
    from kvplan.engines.deployment import deployment_engine_settings

    return deployment_engine_settings(e, cap_sequences=True)


def sizer_for(settings: EngineSettings | None) -> Callable[[SizeRequest], SizeResult]:
    """How a request becomes a KV pool: the plain arithmetic, or the engine's accounting."""
    if settings is None:
        return size
    from kvplan.engines import run_engine

    def sizer(req: SizeRequest) -> SizeResult:
        return run_engine(req, settings).size

    return sizer


def _catalog() -> list[Any]:
    from kvplan.specs import all_hardware

    return list(all_hardware()[0])


def size_records(records: Sequence[Record]) -> list[SizePlan]:
    """Size each record (one replica); attach advice to those that hold nothing."""
    out = []
    for rec in records:
        planned = resolve(rec, need_load=False)
        req = planned.request
        settings = engine_settings(rec, stated_ideal=True, planned=planned)
        if settings is None:
            out.append(SizePlan(rec, size(req), notes=planned.notes))
        else:
            from kvplan.engines import run_engine

            e = run_engine(req, settings)
            out.append(SizePlan(rec, e.size, e, planned.notes))
    if any(not p.size.fits for p in out):
        catalog = _catalog()
        for i, p in enumerate(out):
            if not p.size.fits:
                adv = advise(p.size, catalog, sizer_for(engine_settings(p.record, True)))
                engine = replace(p.engine, size=adv) if p.engine is not None else None
                out[i] = replace(p, size=adv, engine=engine)
    return out


def traffic_of(planned: PlannedDeployment) -> Traffic:
    """The deployment's traffic as every command plans it (fleet, check, explain)."""
    from kvplan.traffic.plan import DEFAULT_RISK, Traffic
    from kvplan.units import exact

    dep = planned.deployment
    t, hw = dep.traffic, dep.hardware
    slo = t.min_tokens_per_s_per_user
    price = hw.price_per_hour_usd
    if price is None:
        price = planned.request.gpu.price_per_hour_usd
    return Traffic(
        peak_users=planned.traffic_peak,
        lengths=planned.lengths,
        headroom=planned.headroom,
        min_users=planned.min_users,
        risk=t.risk if t.risk is not None else DEFAULT_RISK,
        bandwidth_efficiency=exact(hw.bandwidth_efficiency),
        flops_efficiency=exact(hw.flops_efficiency),
        min_tokens_per_s_per_user=exact(slo) if slo is not None else None,
        prompt_tokens=t.prompt_tokens,
        price_per_hour_usd=price,
    )


def fleet_records(records: Sequence[Record], progress: Progress | None = None) -> list[FleetPlan]:
    """Plan each record for its traffic: replicas and GPUs at its risk and SLO."""
    from kvplan.capacity import advise
    from kvplan.traffic import plan_traffic

    out = []
    for i, rec in enumerate(records):
        planned = resolve(rec)
        req = planned.request
        settings = engine_settings(rec, planned=planned)
        engine = None
        if settings is not None:  # the engine's pool and its block size
            from kvplan.engines import run_engine

            engine = run_engine(req, settings)
            req = replace(req, block_size_tokens=engine.block_size_tokens)
        sizer = sizer_for(settings)
        plan = plan_traffic(req, traffic_of(planned), sizer=sizer,
                            users_cap=settings.users_cap if settings is not None else None)
        if not plan.size.fits:
            plan = replace(plan, fleet=replace(plan.fleet, size=advise(plan.size, _catalog(),
                                                                        sizer)))
        out.append(FleetPlan(rec, plan, engine, planned.notes))
        if progress is not None:
            progress(i + 1, len(records))
    return out


def search_record(
    record: Record, prices: dict[str, float], gpus: Sequence[str] | None = None,
    progress: Progress | None = None, tps: Sequence[int] | None = None,
    kv_dtypes: Sequence[str] | None = None,
) -> tuple[Traffic, SearchResult]:
    """Every GPU, TP size and cache precision for one record's traffic, cheapest first.

    `tps` and `kv_dtypes` limit the sizes and precisions tried (default: the search's own);
    each TP must shard the model as the engines require (kvplan.capacity.parallel)."""
    from kvplan.errors import InputError
    from kvplan.specs import load_hardware
    from kvplan.traffic.search import DEFAULT_KV_DTYPES, DEFAULT_TPS, search
    from kvplan.units import parse_dtype

    planned = resolve(record)
    if tps:
        from kvplan.capacity.parallel import tp_problem, valid_tps

        for tp in tps:
            problem = tp_problem(planned.request.model, tp)
            if problem is not None:
                valid = ", ".join(map(str, valid_tps(planned.request.model)))
                raise InputError(f"--tp {tp}: {problem}; valid --tp values: {valid}")
    try:
        dtypes = [parse_dtype(d) for d in kv_dtypes] if kv_dtypes else list(DEFAULT_KV_DTYPES)
    except ValueError as err:
        raise InputError(f"--kv-dtype: {err}") from None
    catalog = [load_hardware(g) for g in gpus] if gpus else _catalog()
    traffic = traffic_of(planned)
    settings = engine_settings(record, planned=planned)
    eng = record.deployment.engine
    from kvplan.plan.block_fp8 import block_reason

    def refuse(req: SizeRequest) -> str | None:  # a block-fp8 TP the engine refuses
        return block_reason(eng.name, eng.version, req.model, req.tp, req.ep, req.attention_dp,
                            eng)

    return traffic, search(planned.request, traffic, catalog, prices, tps=tps or DEFAULT_TPS,
                           kv_dtypes=dtypes, progress=progress, sizer=sizer_for(settings),
                           users_cap=settings.users_cap if settings is not None else None,
                           refuse=refuse)


def explain_records(records: Sequence[Record]) -> list[EngineResult]:
    """Each record's sizing as steps (the engine's, or the plain arithmetic's as `ideal`)."""
    from kvplan.engines import EngineSettings, run_engine

    out = []
    for r in records:
        planned = resolve(r, need_load=False)
        out.append(run_engine(planned.request, engine_settings(r, planned=planned)
                              or EngineSettings()))
    return out


def step_problems(result: EngineResult) -> list[str]:
    """Steps whose stated arithmetic does not reproduce their value (a profile's bug)."""
    from kvplan.engines import verify_steps

    return list(verify_steps(result.steps))


def pool_request(record: Record, planned: PlannedDeployment) -> tuple[SizeRequest, str | None]:
    """The request the pictures size: the plain arithmetic's, or, when the record names an
    engine, the same request with that engine's KV pool per GPU stated and its block size
    (each picture then divides the engine's pool); and a note saying so."""
    req = planned.request
    settings = engine_settings(record, planned=planned)
    if settings is None:
        return req, None
    from kvplan.engines import run_engine
    from kvplan.units import fmt_bytes

    e = run_engine(req, settings)
    pool = e.size.kv_budget_bytes
    if pool <= 0:
        from kvplan.errors import InputError

        raise InputError(f"{record.source}: {e.engine.value} leaves no KV pool on this GPU: "
                         f"{e.reason or e.size.reason or 'nothing fits'}")
    note = (f"{e.engine.value} {e.engine_version}'s KV pool per GPU ({fmt_bytes(pool)}, "
            f"{e.block_size_tokens}-token blocks) divided by each conversation's cache")
    return replace(req, kv_budget_bytes=pool, block_size_tokens=e.block_size_tokens), note


def users_vs_context(req: SizeRequest, dtypes: Sequence[Any], allocs: Sequence[Any]) -> Any:
    """Users per GPU against tokens per conversation (the `plot users-vs-context` curves)."""
    from kvplan.traffic.curves import users_vs_context as curves

    return curves(req, list(dtypes), list(allocs))


def cache_distribution(req: SizeRequest, lengths: Any, users: int | None, risk: float) -> Any:
    """The open conversations' cache against the pool (the `plot risk` picture)."""
    from kvplan.traffic.curves import cache_distribution as dist

    return dist(req, lengths, users, risk)


def basis(plan: TrafficPlan) -> str:
    """What decided the users per replica a fleet plan divides by."""
    from kvplan.capacity.kv import Allocation
    from kvplan.traffic.lengths import PointMass

    if plan.binding_constraint in ("slo", "max_num_seqs"):
        return plan.binding_constraint
    if plan.size.request.allocation is Allocation.reserved:
        return "worst_case"
    if isinstance(plan.lengths, PointMass):
        return "mean"
    return "at_risk"


def record_yaml(record: Record, gpus: int, peak_users: int | None = None) -> str:
    """Write the planned record as a kvplan/v1 file: hardware.count = the GPUs planned.

    Paths in the record (a model spec, a sample) are written absolute so that the file reads
    the same from any folder. `peak_users` states a load for a record that had none (size).
    """
    import yaml

    data: dict[str, Any] = record.deployment.model_dump(mode="json", exclude_unset=True,
                                                        exclude_none=True)
    set_field(data, "hardware.count", gpus)
    if peak_users is not None:
        set_field(data, "traffic.peak_concurrent_users", peak_users)
    for key in ("model", "traffic.context_tokens.sample"):
        value = get_field(data, key)
        looks_like_path = isinstance(value, str) and ("/" in value or value.endswith(
            (".yaml", ".yml", ".json", ".csv", ".jsonl")))
        if looks_like_path and not Path(value).is_absolute():
            candidate = (record.base_dir or Path.cwd()) / value
            if candidate.exists():
                set_field(data, key, str(candidate.resolve()))
    return f"# planned by kvplan from {record.source}\n" + yaml.safe_dump(data, sort_keys=False)
