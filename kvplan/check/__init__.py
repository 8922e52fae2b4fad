"""`kvplan check`: PASS / FAIL / ERROR for every deployment config under some paths.

Reads kvplan/v1 files and the manifests teams already have (kvplan.check.manifests.FORMATS:
Kubernetes workloads, LeaderWorkerSet, KServe InferenceService and LLMInferenceService, KubeRay
RayService, AIBrix RayClusterFleet and StormService, Dynamo, production-stack VLLMRuntime and
Helm values, llm-d ModelService values, docker-compose; and launch scripts and `docker run`
lines, kvplan.check.manifests.shell) that run vLLM,
SGLang or TensorRT-LLM, plans each through `kvplan.deploy.plan_deployment`, and judges it: on
start-up alone when no traffic is declared (kvplan.check.startup), else with the capacity
arithmetic, and for a FAIL finds the smallest verified change that passes. Every document that
runs an engine gets a verdict or a named ERROR; a run that checked nothing exits non-zero.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from kvplan.check.describe import describe_fix, fail_line
from kvplan.check.discover import discover, read_targets
from kvplan.check.gpus import PRODUCT_LABEL, label_for
from kvplan.check.manifests import env_from, kaito_run, ome_run
from kvplan.check.nothing_read import nothing_read
from kvplan.check.outcome import (
    ERROR,
    FAIL,
    PASS,
    WARN,
    YAML_SUFFIXES,
    Outcome,
    Report,
)
from kvplan.check.target import KUBERNETES, Target
from kvplan.check.verdict import judge
from kvplan.deploy import DeploymentError, Problem, plan_deployment
from kvplan.errors import internal_error_line
from kvplan.specs.loader import all_hardware
from kvplan.specs.schema import HardwareSpec


@lru_cache(maxsize=1)
def _catalog() -> tuple[HardwareSpec, ...]:
    return tuple(all_hardware()[0])


def _error(out: Outcome, problems: list[Problem]) -> Outcome:
    """An ERROR outcome placed on the line of its first problem."""
    out.problems = problems
    out.line = next((p.line for p in problems if p.line is not None), out.line)
    return out


def _refused(out: Outcome, target: Target) -> Outcome | None:
    """FAIL before any arithmetic: options the engine refuses, or a model shape it asserts on."""
    from kvplan.check.startup import shape_refusals
    from kvplan.deploy import resolve_model

    dep = target.deployment
    assert dep is not None
    reasons = [p.message for p in target.refusals]
    line = next((p.line for p in target.refusals if p.line is not None), None)
    refused = list(target.refusals)  # each reason with its field and line (task h72mix)
    dropped: list[str] = []  # the deployment's fields the engine refuses (left out to plan)
    kv_said = target.field_name("engine.kv_cache_dtype")
    if kv_said != "engine.kv_cache_dtype" and any(p.field == kv_said for p in target.refusals):
        from kvplan.engines.kv_spelling import block_refusal

        if block_refusal(dep.engine) is not None:  # the option reader refused the release's
            # spelling (argparse's choices, release_options.check_choices): the rest is planned
            # without it, not refused again in kvplan's words (task kvspell)
            dropped.append("engine.kv_cache_dtype")
    shaped = False  # a refused shape (tensor parallelism, context): nothing to plan without it
    try:
        model = resolve_model(dep.model, target.base_dir)
    except Exception:  # noqa: BLE001 - reported by plan_deployment as an ERROR
        model = None
    if model is not None:
        shape = shape_refusals(model, dep.parallel.tensor, dep.engine.max_model_len,
                               target.attention_dp, target.attention_flag)
        if not shape:  # a block-fp8 checkpoint's shards at this TP (kvplan.engines.fp8_blocks),
            # as SGLang splits them under data-parallel attention, --moe-dense-tp-size and
            # DeepEP (kvplan.engines.sglang_dp; task h100sgldp)
            from kvplan.engines.fp8_blocks import block_fp8_reason, engine_ep, engine_split

            e, tp = dep.engine, dep.parallel.tensor
            ep = engine_ep(e.name, model, tp, dep.parallel.expert, e)
            blocks = block_fp8_reason(e.name, e.version, model, tp, ep, engine_split(
                e.name, model, tp, ep, target.attention_dp, e))
            shape = [blocks] if blocks else []
        where = "engine.max_model_len" if shape and "max_model_len" in shape[0] else "parallel.tensor"
        if shape and line is None:
            line = target.line_of(where)
        reasons += shape
        refused += [Problem(target.field_name(where), why, target.line_of(where)) for why in shape]
        shaped = bool(shape)
        from kvplan.engines.refusals import engine_refusals
        from kvplan.errors import KvplanError

        try:
            flags = engine_refusals(model, dep, engine_words=target.field_name(
                "engine.kv_cache_dtype") != "engine.kv_cache_dtype")
        except KvplanError:  # an engine version it cannot read: plan_deployment's ERROR, line
            flags = []
        if target.gpu_named and dep.engine.attention_backend is not None:
            from kvplan.deploy import resolve_gpu
            from kvplan.engines.refusals import aiter_refusal

            try:
                why = aiter_refusal(dep.engine.name, dep.engine.attention_backend,
                                    resolve_gpu(dep.hardware.gpu))
            except Exception:  # noqa: BLE001 - reported by plan_deployment as an ERROR
                why = None
            if why is not None:
                flags.append(("engine.attention_backend", why))
        if target.gpu_named and dep.engine.mm_feature_transport is not None:
            from kvplan.deploy import resolve_gpu
            from kvplan.engines.sglang_mm import mm_transport_refusal

            try:
                gpu = resolve_gpu(dep.hardware.gpu)
                why = mm_transport_refusal(dep.engine.mm_feature_transport, gpu.vendor, gpu.label,
                                           dep.parallel.nodes, dep.parallel.pipeline)
            except Exception:  # noqa: BLE001 - reported by plan_deployment as an ERROR
                why = None
            if why is not None:
                flags.append(("engine.mm_feature_transport", why))
        if flags and line is None:
            line = target.line_of(flags[0][0])
        reasons += [why for _, why in flags]
        refused += [Problem(target.field_name(f), why, target.line_of(f)) for f, why in flags]
        dropped += [f for f, _ in flags]
    if not reasons:
        return None
    out.verdict, out.reasons, out.line = FAIL, reasons, line or out.line
    from kvplan.check.left_out import plan_left_out

    # a failure never hides the others: the plan's own findings without what it refuses
    return plan_left_out(out, target, refused, dropped, shaped)


def judge_target(target: Target) -> Outcome:
    """Plan and judge one target; every failure to read becomes an ERROR outcome."""
    if target.alternatives:
        from kvplan.check.alternatives import judge_alternatives

        return judge_alternatives(target, judge_target)
    from kvplan.check.compute_dtype import keep_quantized_weights

    keep_quantized_weights(target)  # a manifest's --dtype is not a quantized checkpoint's
    from kvplan.check.gpu_dtype import apply_gpu_dtype

    apply_gpu_dtype(target)  # what the engine refuses or changes on this GPU's capability
    out = Outcome(
        file=target.file,
        verdict=ERROR,
        line=target.line,
        name=target.name,
        kind=target.kind,
        server=target.server,
        notes=list(target.notes),
    )
    dep = target.deployment
    if target.problems or dep is None:
        # what the engine refuses is said beside the ERROR: a failure never hides the others
        # (task h71sglfix: a --model-path kvplan cannot read hid an option its release refuses)
        out.refused = list(target.refusals)
        out.reasons = [p.message for p in target.refusals]
        return _error(out, target.problems)
    # a file that names no GPU is planned on a placeholder: not a GPU to report
    out.model, out.engine = dep.model, dep.engine.name
    out.gpu = dep.hardware.gpu if target.gpu_named else None
    out.engine_version = dep.engine.version
    if _refused(out, target) is not None:
        return out
    if dep.hardware.count is None:
        return _error(out, [count_problem(target)])
    try:
        planned = plan_deployment(dep, target.file, target.base_dir, target.doc,
                                  attention_dp=target.attention_dp, node_gpus=target.node_gpus)
    except DeploymentError as err:
        return _error(out, target.renamed(err.items))
    if target.max_model_len_auto and target.gpu_named:
        from kvplan.check.autofit import auto_fit

        try:
            planned = auto_fit(target, planned, out.notes)  # only the engine's context moves
        except DeploymentError as err:
            return _error(out, target.renamed(err.items))
    target.planned = planned
    req = planned.request
    out.model, out.gpu = req.model.name, (req.gpu.name if target.gpu_named else None)
    if target.gpu_named and target.gpu_vendor not in (None, req.gpu.vendor):
        out.notes.append(f"{req.gpu.name} is an {req.gpu.vendor.upper()} GPU, but the container "
                         f"runs on {str(target.gpu_vendor).upper()} GPUs (its image or GPU "
                         "resource): checked as asked")
    refused = _engine_refuses_input(planned)
    if refused is not None:  # kvplan cannot model the engine as set: an ERROR, not a FAIL
        return _error(out, [Problem(target.field_name("engine.name"), refused,
                                    target.line_of("engine"))])
    catalog = _catalog()
    if target.kind == KUBERNETES:  # a GPU a manifest can select by node label
        family = target.label_key or PRODUCT_LABEL
        catalog = tuple(g for g in catalog if label_for(g.name, family) is not None)
    out.notes.extend(planned.notes)
    from kvplan.check.manifests.sampler import FIELD, assumed_note

    if (said := assumed_note(planned, target.gpu_named, target.names.get(FIELD, ""))) is not None:
        out.notes.append(said)  # the sampler path assumed, where it moves the pool
    if not target.gpu_named:
        from kvplan.check.manifests.wording import no_gpu_named, vendor_only
        from kvplan.check.startup import starts_on

        every = _catalog()
        if target.gpu_vendor is not None:  # an AMD (ROCm) container never runs on NVIDIA GPUs
            every = tuple(g for g in every if g.vendor == target.gpu_vendor)
            out.notes.append(vendor_only(target.kind, target.gpu_vendor))
        yes, no, short = starts_on(planned, dep.hardware.count, every, target.engines_per_pod)
        out.verdict, out.gpu = WARN, None
        if short is not None:
            out.notes.append(short)
        out.summary = (f"no GPU named; starts on: {', '.join(yes) or 'none'}; would not start "
                       f"on: {', '.join(no) or 'none'} ({no_gpu_named(target.kind, Path(target.file))})")
        return out
    verdict = judge(planned, dep.hardware.count, catalog, target.engines_per_pod)
    out.numbers = verdict.numbers
    if verdict.numbers.idle_gpus:
        out.notes.append(f"{verdict.numbers.idle_gpus} GPU(s) idle: not a whole replica")
    from kvplan.check.startup import shared_gpu_note

    if (shared := shared_gpu_note(planned, verdict.numbers)) is not None:
        out.notes.append(shared)  # V1 before 0.9.1 and two V0 series count other processes
    if verdict.passes:
        out.verdict = PASS
        if target.no_traffic:
            from kvplan.check.startup import pass_text, startup

            out.summary = pass_text(startup(planned, dep.hardware.count, target.engines_per_pod))
        return out
    out.verdict = FAIL
    n = verdict.numbers
    from kvplan.check.startup import short_pool

    partial = short_pool(planned, n) if target.no_traffic else None
    if partial is not None:
        # SGLang starts whenever one token fits; it then refuses requests longer than its pool
        out.verdict = WARN
        out.summary = (f"starts, but a {n.max_model_len:,}-token request cannot be served: the "
                       f"pool holds {partial:,} tokens per replica (SGLang refuses longer "
                       "requests); no traffic declared")
    elif target.no_traffic:
        out.summary = (f"does not start on {n.replicas} replica(s) x {n.gpus_per_replica} "
                       f"{out.gpu}; no traffic declared")
    out.fixes = list(verdict.fixes)
    out.fix_text = [describe_fix(target, f) for f in verdict.fixes]
    out.line = fail_line(target, verdict.numbers)
    return out


def count_problem(target: Target) -> Problem:
    """check's ERROR on a deployment that does not say how many GPUs it has."""
    return Problem(target.field_name("hardware.count"),
                   "required by `kvplan check`: the GPUs the deployment has, replicas x tensor x "
                   "pipeline (`kvplan fleet` computes it)", target.line_of("hardware"))


def _engine_refuses_input(planned: Any) -> str | None:
    """The message when the deployment's engine profile refuses its settings as input (kvplan
    cannot model them); a verdict's trials read that as "does not start", without the reason."""
    from kvplan.engines import run_engine
    from kvplan.engines.deployment import deployment_engine_settings
    from kvplan.errors import InputError

    engine = deployment_engine_settings(planned.deployment.engine)
    if engine is None:
        return None
    try:
        run_engine(planned.request, engine)
    except InputError as err:
        return str(err)
    return None


def check_paths(paths: list[str], default_gpu: str | None = None,
                progress: Any = None, debug: bool = False) -> Report:
    """Check every deployment under `paths`. Never raises for bad input: it becomes ERROR.
    `default_gpu` is the GPU of manifests that name none; `progress(done, n, outcomes)` is
    called before each file and once at the end, with the outcomes so far. A bug met in one
    file is that file's ERROR (the internal-error line) and the report's exit code 3, so it
    never hides the other files' verdicts; with `debug` it is raised instead."""
    passed: list[tuple[str, str, str]] = []
    left: list[tuple[str, str]] = []
    patches: list[tuple[str, str]] = []
    files, outcomes = discover(paths, passed, left, patches)
    skipped: list[str] = []
    ignored: list[str] = []
    side_cache: dict[Path, Any] = {}
    run = [path for path, _ in files]
    # OME's models and runtimes, KAITO's ConfigMaps and the ConfigMaps a container's env reads
    with ome_run.run_of(run), kaito_run.run_of(run), env_from.run_of(run):
        used, internal = _check_files(files, outcomes, skipped, ignored, side_cache,
                                      default_gpu, progress, debug)
    if progress is not None:
        progress(len(files), len(files), outcomes)
    return Report(outcomes, skipped, ignored, used, internal, passed, left, patches)


def _check_files(files: list[tuple[Path, bool]], outcomes: list[Outcome], skipped: list[str],
                 ignored: list[str], side_cache: dict[Path, Any], default_gpu: str | None,
                 progress: Any, debug: bool) -> tuple[bool, bool]:
    """Each file's outcomes appended; whether any GPU came from --gpu, and whether a bug
    stopped some file's check (that file's ERROR holds the internal-error line)."""
    used = internal = False
    for i, (path, explicit) in enumerate(files):
        if progress is not None:
            progress(i, len(files), outcomes)
        try:
            used = _check_file(path, explicit, outcomes, skipped, ignored, side_cache,
                               default_gpu) or used
        except Exception as err:
            if debug:
                raise
            outcomes.append(Outcome(str(path), ERROR, problems=[Problem(
                "", internal_error_line(err))]))
            internal = True
    return used, internal


def _check_file(path: Path, explicit: bool, outcomes: list[Outcome], skipped: list[str],
                ignored: list[str], side_cache: dict[Path, Any],
                default_gpu: str | None) -> bool:
    """One file's outcomes appended; whether any of its GPUs came from --gpu."""
    try:
        targets = read_targets(path, side_cache, default_gpu, ignored)
    except DeploymentError as err:
        outcomes.append(Outcome(str(path), ERROR, line=err.line, problems=err.items))
        return False
    if not targets:
        if explicit and path not in ome_run.current().model_files:  # a BaseModel: read
            # as the model of the runtimes checked with it (ome_run), no verdict of its own
            why, line = nothing_read(path)
            outcomes.append(Outcome(str(path), ERROR, line=line, problems=[Problem("", why, line)]))
        else:
            skipped.append(str(path))
        return False
    outcomes.extend(judge_target(t) for t in targets)
    return any(t.names.get("hardware.gpu") == "--gpu" for t in targets)


__all__ = ["ERROR", "FAIL", "PASS", "WARN", "YAML_SUFFIXES", "Outcome", "Report", "check_paths",
           "describe_fix", "discover", "fail_line", "read_targets"]
