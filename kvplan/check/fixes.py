"""Verified fixes for a failing setup: every single change that makes it pass, re-checked
with the same arithmetic (kvplan.check.numbers.evaluate), smallest first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from kvplan.capacity.parallel import tp_problem
from kvplan.check.numbers import Numbers, Setup, evaluate
from kvplan.specs.schema import HardwareSpec
from kvplan.units import DType, ceil_div

MAX_TP = 8  # one node; kvplan check does not suggest multi-node tensor parallelism


@dataclass(frozen=True)
class Fix:
    """One change that makes the deployment pass, verified. `new` holds the changed knobs."""

    change: str  # more_gpus | fp8_kv_cache | max_num_seqs | max_model_len | bigger_gpu | combined
    old: dict[str, Any]
    new: dict[str, Any]
    numbers: Numbers
    cost: tuple[int, float] = (0, 0.0)  # for ranking: (hardware changed?, relative size)


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
    """Today's TP and its doublings up to MAX_TP that the engine accepts: the heads rule `check`
    refuses a command line by (kvplan.check.startup.heads_refusals), at tp / D under SGLang's
    data-parallel attention (the request's attention_dp = D; a D that does not divide the TP is
    refused there too), and what vLLM accepts of the attention TP (tp_problem: MLA models have
    no KV-head rule). Before task h43sglopts the heads were checked at the whole TP, which
    suggested TPs SGLang refuses and missed ones it takes. A block-fp8 checkpoint's TP that
    splits a block is left out too (kvplan.engines.fp8_blocks; task h91fp8block saw TP 8
    offered for Qwen3-235B-A22B-FP8, which SGLang refuses)."""
    from kvplan.check.startup import heads_refusals
    from kvplan.engines.fp8_blocks import block_fp8_refusal, engine_ep, engine_split

    req = setup.request
    dp = max(req.attention_dp, 1)
    eng = setup.engine
    out = []
    tp = req.tp
    while tp <= MAX_TP:
        name = eng.engine.value if eng is not None else ""
        ep = engine_ep(name, req.model, tp, req.ep, eng)
        blocks = eng is not None and block_fp8_refusal(
            name, eng.version, req.model, tp, ep,
            engine_split(name, req.model, tp, ep, dp, eng)) is not None
        if not heads_refusals(req.model, tp, dp) and tp_problem(req.model, tp // dp) is None \
                and not blocks:
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
    """The smallest GPU of the same vendor with more memory that passes at the same count; never
    a unified-memory part (a desktop DGX Spark is no swap for a data-centre GPU). When today's
    GPU has a price, priced GPUs come first: a fix's cost is a price ratio only when both GPUs
    have one (else a memory ratio), and the two do not rank against each other."""
    req = setup.request
    priced_first = req.gpu.price_per_hour_usd is not None
    for gpu in sorted(catalog, key=lambda g: (priced_first and g.price_per_hour_usd is None,
                                               g.memory_bytes, g.name)):
        if gpu.memory_bytes <= req.gpu.memory_bytes or gpu.vendor != req.gpu.vendor:
            continue
        if gpu.unified_memory and not req.gpu.unified_memory:
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
