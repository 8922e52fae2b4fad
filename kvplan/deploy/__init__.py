"""Deployment files (kvplan/v1): read, validate, and turn into sizing requests."""

from __future__ import annotations

import difflib
import math
import typing
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_core import ValidationError  # pydantic's model machinery only on its path

from kvplan.capacity.kv import Allocation
from kvplan.capacity.plan import DEFAULT_RESERVE_BYTES, SizeRequest
from kvplan.deploy.problems import DeploymentError, Problem
from kvplan.deploy.schema import API_VERSION, ContextTokens, Deployment
from kvplan.errors import InputError
from kvplan.plan.rules import required_users
from kvplan.specs.loader import RANGE_HINT, is_bound, load_hardware
from kvplan.specs.schema import HardwareSpec, ModelSpec
from kvplan.units import DType, exact, gib_to_bytes, parse_dtype

if TYPE_CHECKING:
    from kvplan.deploy.yamldoc import Doc  # the YAML reader loads only where a file is read
    from kvplan.traffic.lengths import LengthDistribution

__all__ = [
    "API_VERSION",
    "Deployment",
    "DeploymentError",
    "PlannedDeployment",
    "Problem",
    "is_deployment",
    "load_deployment",
    "parse_deployment",
    "plan_deployment",
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


def is_deployment(path: Path) -> bool:
    """True when a YAML file declares `apiVersion: kvplan/v1`."""
    if path.suffix not in (".yaml", ".yml") or not path.is_file():
        return False
    from kvplan.deploy.yamldoc import read_docs

    try:
        docs = read_docs(path)
    except DeploymentError:
        return False
    return bool(docs) and isinstance(docs[0].data, dict) and "apiVersion" in docs[0].data


def peak_users(dep: Deployment) -> int:
    """Peak concurrency, stated or by Little's law: rate x duration x peak-to-mean (ceil)."""
    t = dep.traffic
    if t.peak_concurrent_users is not None:
        return t.peak_concurrent_users
    assert t.arrival_rate_per_s is not None and t.mean_duration_s is not None
    return math.ceil(exact(t.arrival_rate_per_s) * exact(t.mean_duration_s) * exact(t.peak_to_mean))


def _model_at(cls: Any, loc: tuple[Any, ...]) -> Any:
    """The validator class that holds the field at `loc` (for 'did you mean')."""
    from pydantic import BaseModel

    if not issubclass(cls, BaseModel):  # a plain record: its validator's fields
        cls = cls.validator()
    for part in loc:
        info = cls.model_fields.get(str(part))
        if info is None:
            return None
        candidates = [info.annotation, *typing.get_args(info.annotation)]
        nested = [c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)]
        if not nested:
            return None
        cls = nested[0]
    return cls


def validation_problems(
    cls: Any, err: ValidationError, doc: Doc | None, prefix: tuple[Any, ...] = ()
) -> list[Problem]:
    """One Problem per pydantic error, with the line, the field and a 'did you mean'."""
    from kvplan.deploy.yamldoc import dotted

    out = []
    for item in err.errors():
        loc = tuple(item["loc"])
        msg = item["msg"].removeprefix("Value error, ")
        kind = item["type"]
        if kind == "extra_forbidden":
            holder = _model_at(cls, loc[:-1])
            known = list(holder.model_fields) if holder else []
            close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}?" if close else f"known fields: {', '.join(known)}"
            msg = f"unknown field; {hint}"
        elif kind == "missing":
            msg = "required field is missing"
        elif kind == "less_than_equal" and isinstance(item.get("input"), (int, float)):
            limit = (item.get("ctx") or {}).get("le")
            msg = f"{item['input']:,} is beyond the limit of {limit:,} (docs/limits.md)"
        elif kind == "literal_error" or "type" in kind or "parsing" in kind:
            msg = f"{msg} (got {item.get('input')!r})"
        elif is_bound(kind):  # the same hint a spec file's bounds give
            msg += RANGE_HINT
        line = doc.line(*prefix, *loc) if doc else None
        out.append(Problem(dotted(loc) or "(top level)", msg, line))
    return out


def parse_deployment(data: Any, source: str, doc: Doc | None = None) -> Deployment:
    """Validate one kvplan/v1 document; every problem names its field and line."""
    if not isinstance(data, dict):
        line = doc.start_line if doc else None
        kind = type(data).__name__
        raise DeploymentError(
            source, [Problem("", f"expected a mapping of fields, got {kind}", line)]
        )
    version = data.get("apiVersion")
    if version not in (None, API_VERSION):
        line = doc.line("apiVersion") if doc else None
        msg = f"{version!r} is not supported; use {API_VERSION}"
        raise DeploymentError(source, [Problem("apiVersion", msg, line)])
    from kvplan.deploy.fast import accept

    plainly = accept(data)  # a plainly valid document, without pydantic's machinery
    if plainly is not None:
        return plainly
    try:
        return Deployment.model_validate(data)
    except ValidationError as err:
        raise DeploymentError(source, validation_problems(Deployment, err, doc)) from None


@lru_cache(maxsize=256)
def _catalog_model(ref: str) -> tuple[ModelSpec, str]:
    from kvplan.specs.resolve import resolve_model as resolve

    found = resolve(ref)
    return found.spec, found.note


@lru_cache(maxsize=256)
def _catalog_gpu(ref: str) -> HardwareSpec:
    return load_hardware(ref)


def resolve_model(ref: str, base_dir: Path | None) -> ModelSpec:
    """A catalog name, hf_id, alias or hub id, or a spec path (relative to the deployment
    file's folder first): kvplan.specs.resolve's rules."""
    return resolve_model_noted(ref, base_dir)[0]


def resolve_model_noted(ref: str, base_dir: Path | None) -> tuple[ModelSpec, str]:
    """The spec, and which rule resolved the name ('' for a plain catalog name)."""
    from kvplan.specs.resolve import looks_like_path
    from kvplan.specs.resolve import resolve_model as resolve

    if looks_like_path(ref):
        found = resolve(ref, base=base_dir if base_dir is not None and not Path(ref).is_absolute()
                        and (base_dir / ref).exists() else None)
        return found.spec, found.note
    return _catalog_model(ref)


def resolve_gpu(ref: str) -> HardwareSpec:
    """A GPU by catalog name or alias (cached), or a spec path."""
    if "/" in ref or ref.endswith((".yaml", ".yml")):
        return load_hardware(ref)
    return _catalog_gpu(ref)


def _line(doc: Doc | None, field: str) -> int | None:
    return doc.line(*field.split(".")) if doc else None


def _distribution(
    ctx: ContextTokens, max_tokens: int, base_dir: Path | None, fail: Any, note: Any
) -> LengthDistribution | None:
    """The conversation lengths the file states: a sample, a lognormal fitted to two or more
    percentiles, or to the mean and one percentile; None for a mean alone (no spread)."""
    from kvplan.traffic.lengths import fit_lognormal, fit_lognormal_mean, load_sample

    pairs = ((0.5, ctx.p50), (0.95, ctx.p95), (0.99, ctx.p99))
    given = {q: float(v) for q, v in pairs if v is not None}
    try:
        if ctx.sample is not None:
            sample = Path(ctx.sample)
            if not sample.is_absolute() and base_dir is not None:
                sample = base_dir / sample
            return load_sample(sample)
        if len(given) >= 2:
            fitted = fit_lognormal(given)
            if ctx.mean is not None:  # the percentiles decide; say so when the mean disagrees
                fit_mean = fitted.mean_tokens(max_tokens)
                if abs(fit_mean - ctx.mean) > 0.05 * ctx.mean:
                    note(f"traffic.context_tokens: the lognormal fitted to the percentiles has "
                         f"a mean of {fit_mean:,.0f} tokens (capped at {max_tokens:,}), not the "
                         f"stated {ctx.mean:,}; sized by the percentiles")
            return fitted
        if given and ctx.mean is not None:
            ((level, tokens),) = given.items()
            # the stated mean is of served lengths, which max_model_len caps
            try:
                return fit_lognormal_mean(float(ctx.mean), level, tokens, max_tokens)
            except InputError as err:  # a tail heavier than a lognormal's: size by the mean
                note(f"traffic.context_tokens: {err}; sized by the mean alone (no overflow "
                     "risk computed)")
                return None
    except (InputError, ValueError, OSError) as err:
        fail("traffic.context_tokens", str(err))
    return None


# engine settings an engine never reads (so a stated one is noted, and a flag refused): the
# profiles model their activations (no reserve) and their own allocation; transformers fixes
# its page size (one page per sequence). Settings of one engine only are read by that engine.
_FIXED = ("reserve_gib", "allocation", "block_size")
ENGINE_KEYS: dict[str, tuple[str, ...]] = {  # engine.<key> -> the engines that read it
    "enforce_eager": ("vllm",),
    "kv_cache_memory_bytes": ("vllm",),
    "cpu_offload_gb": ("vllm",),
    "limit_mm_per_prompt": ("vllm",),
    "speculative_model": ("vllm",),
    "num_speculative_tokens": ("vllm",),
    "cuda_graph_max_bs": ("sglang",),
    "max_total_tokens": ("sglang",),
    "attention_backend": ("sglang",),
    "tp_transport": ("vllm",),
    "disable_custom_all_reduce": ("vllm",),
    "max_tokens_in_paged_kv_cache": ("trtllm",),
    "trtllm_config": ("trtllm",),
    "trt_activation_bytes": ("trtllm",),
    "trtllm_backend": ("trtllm",),
}
_ENGINES = ("ideal", "vllm", "sglang", "trtllm", "transformers")
_OWN = {e: tuple(k for k, engines in ENGINE_KEYS.items() if e not in engines) for e in _ENGINES}
UNUSED_BY = {
    "ideal": ("version", "max_num_batched_tokens", *_OWN["ideal"]),
    "vllm": ("reserve_gib", "allocation", *_OWN["vllm"]),
    "sglang": ("reserve_gib", "allocation", *_OWN["sglang"]),
    "trtllm": ("reserve_gib", "allocation", *_OWN["trtllm"]),
    "transformers": (*_FIXED, "max_num_batched_tokens", *_OWN["transformers"]),
}


def unused_reason(engine: str, key: str | None = None) -> str:
    if key == "tp_transport":
        from kvplan.engines.refusals import transport_unread

        return f"only vllm reads it, not {engine}: {transport_unread(engine)}"
    if key in ENGINE_KEYS:
        return f"only {' and '.join(ENGINE_KEYS[key])} reads it, not {engine}"
    if engine == "ideal":
        return "read only by an engine profile (vllm, sglang, trtllm, transformers)"
    return f"the {engine} profile sets this itself (activations, allocation, page size)"


NO_LOAD = "give peak_concurrent_users, or arrival_rate_per_s with mean_duration_s"


def plan_deployment(
    dep: Deployment, source: str, base_dir: Path | None = None, doc: Doc | None = None,
    need_load: bool = True,
) -> PlannedDeployment:
    """Resolve specs and build the sizing request: the one place the engine is chosen.

    Every input (a kvplan/v1 file, a Kubernetes manifest) passes through here, so engine
    profiles (dep.engine.name / version / flags) plug in at this point.
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
    if dep.engine.trtllm_config is not None or dep.engine.speculative_model is not None \
            or dep.engine.num_speculative_tokens is not None:
        from kvplan.deploy.engine_block import resolve_engine_block

        dep, block_notes = resolve_engine_block(dep, base_dir, fail)
    else:
        block_notes = []
    e = dep.engine
    if e.name != "ideal":  # the engine profiles live in kvplan.engines (loaded only for them)
        from kvplan.engines.deployment import check_engine_block

        try:
            check_engine_block(e)
        except InputError as err:
            fail("engine.name", str(err))
        else:
            from kvplan.engines.vllm_flag_versions import missing_flags

            for field, why in missing_flags(e):
                fail(field, why)
            if e.name == "trtllm":
                from kvplan.engines.interface import parse_version
                from kvplan.engines.trtllm import DEFAULT_VERSION, activation_refusal
                from kvplan.engines.trtllm_pytorch import backend_refusal

                refused = activation_refusal(e.version, e.trt_activation_bytes, e.trtllm_backend)
                if refused is not None:
                    fail("engine.trt_activation_bytes", refused)
                bad = backend_refusal(parse_version(e.version or DEFAULT_VERSION) or (),
                                      e.trtllm_backend)
                if bad is not None:
                    fail("engine.trtllm_backend", bad)
    if need_load and not dep.traffic.has_load:
        fail("traffic", NO_LOAD)
    dtypes = {}
    for field in ("weight_dtype", "kv_cache_dtype"):
        value = getattr(e, field)
        if value in (None, "auto"):
            continue
        try:
            dtypes[field] = parse_dtype(value)
        except ValueError as err:
            fail(f"engine.{field}", str(err))
    tp, pp = dep.parallel.tensor, dep.parallel.pipeline
    ep = dep.parallel.expert
    if e.name == "vllm" and e.kv_cache_memory_bytes is not None and e.kv_budget_gib is not None:
        fail("engine.kv_cache_memory_bytes", "kv_budget_gib states the pool too; give one")
    if gpu is not None and e.attention_backend is not None:
        from kvplan.engines.refusals import aiter_refusal

        refused = aiter_refusal(e.name, e.attention_backend, gpu)
        if refused is not None:
            fail("engine.attention_backend", refused)
    if e.tp_transport is not None and e.name != "vllm":
        from kvplan.engines.refusals import transport_refusal

        fail("engine.tp_transport", str(transport_refusal(e.name, e.tp_transport)))
    if ep is not None and ep > tp and e.name in ("sglang", "trtllm"):
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
    if problems or model is None or gpu is None:
        raise DeploymentError(source, problems)

    weight_dtype = dtypes.get("weight_dtype")
    kv_dtype = dtypes.get("kv_cache_dtype") or weight_dtype or model.weight_dtype
    if "kv_cache_dtype" not in dtypes and kv_dtype.bits < 16:
        # auto is the model's compute dtype, not its weight quantization: an int4 (MXFP4, GPTQ,
        # AWQ) or fp8 checkpoint computes and caches in 16 bits (vLLM's kv_cache_dtype auto =
        # model dtype; SGLang and TensorRT-LLM alike); a quantized cache is --kv-cache-dtype's
        kv_dtype = DType.bf16
    if kv_dtype is DType.fp32 and e.name in ("vllm", "sglang", "trtllm"):
        kv_dtype = DType.bf16  # --dtype auto serves a float32 checkpoint in 16 bits, cache too
    context = e.max_model_len or model.max_context_tokens
    ctx = dep.traffic.context_tokens
    mean = ctx.mean if ctx else None
    notes: list[str] = [f"model {model_note}"] if model_note else []
    notes += block_notes
    notes += [f"engine.{key}: {unused_reason(e.name, key)}, so it is not used"  # never silently
              for key in UNUSED_BY.get(e.name, ())
              if key in e.model_fields_set and key != "block_size"]  # manifests state pages
    lengths = (_distribution(ctx, context, base_dir, fail, notes.append)
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
