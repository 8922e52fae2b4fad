"""Deployment files (kvplan/v1): read, validate, and turn into sizing requests."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from kvplan.capacity.kv import Allocation
from kvplan.capacity.parallel import uneven_nodes
from kvplan.capacity.plan import DEFAULT_RESERVE_BYTES, SizeRequest
from kvplan.deploy.engine_keys import ENGINE_KEYS, UNUSED_BY, reads, unused_reason
from kvplan.deploy.lengths import context_distribution
from kvplan.deploy.problems import DeploymentError, Problem
from kvplan.deploy.resolve import resolve_gpu, resolve_model, resolve_model_noted
from kvplan.deploy.schema import API_VERSION, Deployment
from kvplan.deploy.validate import is_deployment, parse_deployment, validation_problems
from kvplan.engine_traits import traits
from kvplan.errors import InputError
from kvplan.plan.rules import required_users
from kvplan.specs.schema import HardwareSpec, ModelSpec
from kvplan.units import DType, exact, gib_to_bytes, parse_dtype

if TYPE_CHECKING:
    from collections.abc import Callable

    from kvplan.deploy.schema import Engine as EngineBlock
    from kvplan.deploy.yamldoc import Doc  # the YAML reader loads only where a file is read
    from kvplan.traffic.lengths import LengthDistribution

__all__ = [  # the package's API; the parsing, resolving and key tables live in its modules
    "API_VERSION",
    "ENGINE_KEYS",
    "UNUSED_BY",
    "Deployment",
    "DeploymentError",
    "PlannedDeployment",
    "Problem",
    "is_deployment",
    "load_deployment",
    "parse_deployment",
    "plan_deployment",
    "resolve_gpu",
    "resolve_model",
    "resolve_model_noted",
    "unused_reason",
    "validation_problems",
]


@dataclass(frozen=True)
class PlannedDeployment:
    """A validated deployment with its specs resolved."""

    path: str
    deployment: Deployment
    request: SizeRequest
    peak_users: int  # the traffic's peak, or min_users if larger (what `fleet` plans for)
    headroom: Fraction
    traffic_peak: int = 0  # the traffic's own peak (stated, or by Little's law)
    min_users: int | None = None
    # the stated spread (sample, percentiles, or mean + one percentile); None: a mean alone
    lengths: LengthDistribution | None = None
    notes: tuple[str, ...] = ()  # what was assumed in place of what the file states

    @property
    def judged_by_traffic(self) -> bool:
        """Whether the users a replica holds come from the traffic plan (risk, SLO) rather
        than the mean alone: a spread of lengths or a decode-speed SLO is stated."""
        t = self.deployment.traffic
        return self.lengths is not None or t.min_tokens_per_s_per_user is not None

    @property
    def gpus(self) -> int | None:
        """hardware.count: GPUs of the whole deployment (None when not stated)."""
        return self.deployment.hardware.count

    @property
    def required_users(self) -> int:
        """ceil(traffic peak x (1 + headroom)), or min_users if that is larger."""
        return required_users(self.traffic_peak, self.headroom, self.min_users)


def peak_users(dep: Deployment) -> int:
    """Peak concurrency, stated or by Little's law: rate x duration x peak-to-mean (ceil)."""
    t = dep.traffic
    if t.peak_concurrent_users is not None:
        return t.peak_concurrent_users
    assert t.arrival_rate_per_s is not None and t.mean_duration_s is not None
    return math.ceil(exact(t.arrival_rate_per_s) * exact(t.mean_duration_s) * exact(t.peak_to_mean))


def _line(doc: Doc | None, field: str) -> int | None:
    return doc.line(*field.split(".")) if doc else None


NO_LOAD = "give peak_concurrent_users, or arrival_rate_per_s with mean_duration_s"


def plan_deployment(
    dep: Deployment, source: str, base_dir: Path | None = None, doc: Doc | None = None,
    need_load: bool = True, attention_dp: int = 1, node_gpus: int | None = None,
) -> PlannedDeployment:
    """Resolve specs and build the sizing request: the one place the engine is chosen.

    Every input (a kvplan/v1 file, a Kubernetes manifest) passes through here, so engine
    profiles (dep.engine.name / version / flags) plug in at this point. `node_gpus`: the GPUs
    one server holds where the file's launcher names a machine bigger than the GPU spec's
    gpus_per_node (kvplan.check.manifests.skypilot_counts.node_gpus), replacing it.
    """
    problems: list[Problem] = []

    def fail(field: str, message: str) -> None:
        problems.append(Problem(field, message, _line(doc, field)))

    model: ModelSpec | None = None
    gpu: HardwareSpec | None = None
    model_note = ""
    try:
        model, model_note = resolve_model_noted(dep.model, base_dir)
    except InputError as err:
        fail("model", str(err))
    try:
        gpu = resolve_gpu(dep.hardware.gpu)
    except InputError as err:
        fail("hardware.gpu", str(err))
    if gpu is not None and node_gpus is not None and node_gpus > gpu.gpus_per_node:
        gpu = gpu.model_copy(update={"gpus_per_node": node_gpus})
    if dep.engine.trtllm_config is not None or dep.engine.speculative_model is not None \
            or dep.engine.num_speculative_tokens is not None:
        from kvplan.deploy.engine_block import resolve_engine_block

        dep, block_notes = resolve_engine_block(dep, base_dir, fail)
    else:
        block_notes = []
    e = dep.engine
    _check_engine(e, fail)
    if need_load and not dep.traffic.has_load:
        fail("traffic", NO_LOAD)
    dtypes = _parse_dtypes(e, fail)
    tp, pp = dep.parallel.tensor, dep.parallel.pipeline
    _check_settings(dep, gpu, fail)
    checkpoint_kv = _checkpoint_kv(e, dtypes, model, fail)
    if problems or model is None or gpu is None:
        raise DeploymentError(source, problems)

    weight_dtype = dtypes.get("weight_dtype")
    kv_dtype = _kv_dtype(dtypes, model, e.name)
    if checkpoint_kv is not None:
        kv_dtype = parse_dtype(checkpoint_kv[0])
    context = e.max_model_len or model.max_context_tokens
    ctx = dep.traffic.context_tokens
    mean = ctx.mean if ctx else None
    notes: list[str] = [f"model {model_note}"] if model_note else []
    notes += block_notes
    notes += [f"engine.kv_cache_dtype auto: {checkpoint_kv[1]}"] if checkpoint_kv else []
    if traits(e.name).kv_auto_from_checkpoint and not checkpoint_kv and \
            e.kv_cache_dtype == "auto" and \
            "kv_cache_dtype" in e.model_fields_set:  # stated auto, nothing to resolve it to
        notes.append(f"engine.kv_cache_dtype auto: TensorRT-LLM keeps the checkpoint's KV "
                     f"quantization; {model.name}'s spec records none (kv_cache_quant_algo "
                     f"unset: the files its source cites state none), so the cache is the "
                     f"model's {kv_dtype.value}")
    notes += [f"engine.{key}: {unused_reason(e.name, key)}, so it is not used"  # never silently
              for key in UNUSED_BY.get(e.name, ())
              if key in e.model_fields_set and key != "block_size"]  # manifests state pages
    lengths = (context_distribution(ctx, context, base_dir, fail, notes.append)
               if ctx is not None else None)
    if lengths is not None and mean is None:  # capped at max_model_len, rounded up
        mean = max(1, math.ceil(lengths.mean_tokens(context)))
    if context > model.max_context_tokens:
        fail(
            "engine.max_model_len",
            f"{context:,} tokens exceeds {model.name}'s max_context_tokens "
            f"{model.max_context_tokens:,}",
        )
    if mean is not None and mean > context:
        fail(
            "traffic.context_tokens.mean",
            f"{mean:,} tokens exceeds the longest sequence the engine accepts "
            f"(max_model_len {context:,})",
        )
    if pp > model.num_layers:
        fail("parallel.pipeline", f"{pp} stages for {model.num_layers} layers")
    nodes = dep.parallel.nodes
    if nodes is not None and nodes <= tp * pp and (tp * pp) % nodes:  # more: kvplan.plan.moot
        fail("parallel.nodes", uneven_nodes(tp, pp, nodes, gpu.gpus_per_node))
    if dep.parallel.attention_dp is not None:  # kvplan/v1, --attention-dp (a manifest: the arg)
        from kvplan.engines.refusals import attention_dp_refusal

        attention_dp = dep.parallel.attention_dp
        if (why := attention_dp_refusal(e.name, tp, attention_dp)) is not None:
            fail("parallel.attention_dp", why)
    prefix = dep.traffic.shared_prefix_tokens if e.enable_prefix_caching else 0
    if prefix and prefix > (mean or context):
        fail("traffic.shared_prefix_tokens", f"{prefix:,} is longer than a conversation")
    if problems:
        raise DeploymentError(source, problems)
    req = SizeRequest(
        model=model,
        gpu=gpu,
        context_tokens=context,
        kv_dtype=kv_dtype,
        allocation=Allocation(e.allocation),
        avg_context_tokens=mean,
        weight_dtype=weight_dtype,
        block_size_tokens=e.block_size,
        kv_group_size=e.kv_group_size,
        tp=tp,
        pp=pp,
        nodes=dep.parallel.nodes,
        ep=dep.parallel.expert,
        attention_dp=attention_dp,
        memory_utilization=exact(e.gpu_memory_utilization),
        reserve_bytes=gib_to_bytes(e.reserve_gib)
        if e.reserve_gib is not None
        else DEFAULT_RESERVE_BYTES,
        kv_budget_bytes=gib_to_bytes(e.kv_budget_gib) if e.kv_budget_gib else None,
        shared_prefix_tokens=prefix,
    )
    try:
        req.check()
    except InputError as err:
        raise DeploymentError(source, [Problem("engine", str(err), _line(doc, "engine"))]) from None
    traffic_peak = peak_users(dep) if dep.traffic.has_load else 0
    floor = dep.requirement.min_users
    return PlannedDeployment(
        path=source,
        deployment=dep,
        request=req,
        peak_users=max(traffic_peak, floor or 0),
        headroom=exact(dep.requirement.headroom_pct) / 100,
        traffic_peak=traffic_peak,
        min_users=floor,
        lengths=lengths,
        notes=tuple(notes),
    )


def load_deployment(path: Path) -> PlannedDeployment:
    """Read and resolve one deployment file. Errors name the file, the field and the line."""
    from kvplan.deploy.yamldoc import read_docs

    docs = read_docs(path)
    if not docs:
        raise DeploymentError(str(path), [Problem("", "the file is empty")])
    doc = docs[0]
    dep = parse_deployment(doc.data, str(path), doc)
    return plan_deployment(dep, str(path), path.parent, doc)


def _check_engine(e: EngineBlock, fail: Callable[[str, str], None]) -> None:
    """The engine block against the engine's profile: its name and version, flags its version
    lacks, TensorRT-LLM's activation and backend settings."""
    if e.name == "ideal":  # the engine profiles live in kvplan.engines (loaded only for them)
        return
    from kvplan.engines.deployment import check_engine_block

    try:
        check_engine_block(e)
    except InputError as err:  # the field it names (engine.version: ...), else the name
        field, sep, why = str(err).partition(": ")
        if sep and field == "engine.version":
            fail(field, why)
        else:
            fail("engine.name", str(err))
    else:
        from kvplan.engines.kv_spelling import block_refusal
        from kvplan.engines.vllm_flag_versions import missing_flags

        for field, why in missing_flags(e) + [r for r in [block_refusal(e)] if r is not None]:
            fail(field, why)
        own = traits(e.name).hook("block_refusals")  # TensorRT-LLM's activation and backend
        for field, why in own(e) if own is not None else ():
            fail(field, why)


def _parse_dtypes(e: EngineBlock, fail: Callable[[str, str], None]) -> dict[str, DType]:
    """The stated weight and cache dtypes ("auto" and unset left out)."""
    dtypes: dict[str, DType] = {}
    for field in ("weight_dtype", "kv_cache_dtype"):
        value = getattr(e, field)
        if value in (None, "auto"):
            continue
        try:
            dtypes[field] = parse_dtype(value)
        except ValueError as err:  # "auto" is taken too: the message names it (task h90review)
            fail(f"engine.{field}", f"{err}, or auto ({_AUTO[field]})")
    return dtypes


def dtype_problems(e: EngineBlock) -> list[tuple[str, str]]:
    """(field, why) for each stated weight or cache dtype kvplan cannot read, as
    plan_deployment says them (kvplan.plan.targets reads a manifest's before the record is
    built, so that size and explain say them in the file's words, as check does)."""
    found: list[tuple[str, str]] = []
    _parse_dtypes(e, lambda field, why: found.append((field, why)))
    return found


_AUTO = {"kv_cache_dtype": "the weight dtype; 16 bits for int4 or fp8 weights",
         "weight_dtype": "the model's published dtype"}


def _check_settings(dep: Deployment, gpu: HardwareSpec | None,
                    fail: Callable[[str, str], None]) -> None:
    """Settings that contradict each other, the engine or the GPU count."""
    e = dep.engine
    tp, pp = dep.parallel.tensor, dep.parallel.pipeline
    ep = dep.parallel.expert
    if reads(e.name, "kv_cache_memory_bytes") and e.kv_cache_memory_bytes is not None and \
            e.kv_budget_gib is not None:
        fail("engine.kv_cache_memory_bytes", "kv_budget_gib states the pool too; give one")
    if gpu is not None and e.attention_backend is not None:
        from kvplan.engines.refusals import aiter_refusal

        refused = aiter_refusal(e.name, e.attention_backend, gpu)
        if refused is not None:
            fail("engine.attention_backend", refused)
    if e.tp_transport is not None and not reads(e.name, "tp_transport"):
        from kvplan.engines.refusals import transport_refusal

        fail("engine.tp_transport", str(transport_refusal(e.name, e.tp_transport)))
    if ep is not None and ep > tp and traits(e.name).expert_within_tensor:
        fail("parallel.expert", f"{e.name}'s expert-parallel size divides its tensor-parallel "
             f"size ({tp}); {ep} ranks beyond it is vLLM's --enable-expert-parallel with data "
             "parallelism")
    count = dep.hardware.count
    if count is not None and count < tp * pp:
        fail(
            "hardware.count",
            f"{count} GPU(s) cannot hold one replica: tensor {tp} x pipeline {pp} needs "
            f"{tp * pp} GPUs",
        )


def _checkpoint_kv(e: EngineBlock, dtypes: dict[str, DType], model: ModelSpec | None,
                   fail: Callable[[str, str], None]) -> tuple[str, str] | None:
    """TensorRT-LLM's cache dtype auto (its default: no kv dtype stated, or `auto`) where the
    model spec records the checkpoint's KV quantization: (the kv dtype, the note), None where
    it does not apply; a quantization kvplan cannot plan fails naming what to state."""
    if not traits(e.name).kv_auto_from_checkpoint or model is None or \
            model.kv_cache_quant_algo is None or (
            "kv_cache_dtype" in dtypes and "kv_cache_dtype" in e.model_fields_set):
        return None
    from kvplan.engines.trtllm_settings import checkpoint_kv

    kv, why = checkpoint_kv(model, e.version, e.trtllm_backend)
    if kv is None:
        fail("engine.kv_cache_dtype", f"auto: {why}")
        return None
    return kv, why


def _kv_dtype(dtypes: dict[str, DType], model: ModelSpec, engine: str) -> DType:
    """The cache dtype: stated, else the weights' (a quantized checkpoint caches in 16 bits)."""
    weight_dtype = dtypes.get("weight_dtype")
    kv_dtype = dtypes.get("kv_cache_dtype") or weight_dtype or model.weight_dtype
    if "kv_cache_dtype" not in dtypes and kv_dtype.bits < 16:
        # auto is the model's compute dtype, not its weight quantization: an int4 (MXFP4, GPTQ,
        # AWQ) or fp8 checkpoint computes and caches in 16 bits (vLLM's kv_cache_dtype auto =
        # model dtype; SGLang and TensorRT-LLM alike); a quantized cache is --kv-cache-dtype's
        kv_dtype = DType.bf16
    if kv_dtype is DType.fp32 and traits(engine).serving and "weight_dtype" not in dtypes:
        kv_dtype = DType.bf16  # --dtype auto serves a float32 checkpoint in 16 bits, cache too
    # a stated float32 (--dtype float32, or the engine's float32 fallback on a GPU without
    # bfloat16) caches in float32: the cache's auto is the model dtype (vLLM CacheConfig
    # cache_dtype "auto"; SGLang's kv_cache_dtype "auto" = the model's dtype)
    return kv_dtype
