"""`kvplan check`: PASS / FAIL / ERROR for every deployment config under some paths.

Reads kvplan/v1 files and the manifests teams already have (kvplan.check.manifests.FORMATS:
Kubernetes workloads, LeaderWorkerSet, KServe InferenceService and LLMInferenceService, KubeRay
RayService, AIBrix RayClusterFleet and StormService, Dynamo, production-stack VLLMRuntime and
Helm values, llm-d ModelService values, docker-compose) that run vLLM,
SGLang or TensorRT-LLM, plans each through `kvplan.deploy.plan_deployment`, and judges it: on
start-up alone when no traffic is declared (kvplan.check.startup), else with the capacity
arithmetic, and for a FAIL finds the smallest verified change that passes. Every document that
runs an engine gets a verdict or a named ERROR; a run that checked nothing exits non-zero.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from kvplan.check.documents import Broken, read_documents
from kvplan.check.gpus import PRODUCT_LABEL, label_for
from kvplan.check.manifests import read_document
from kvplan.check.manifests.engine import FLAG_NAMES
from kvplan.check.manifests.side import is_side_file
from kvplan.check.target import KUBERNETES, KVPLAN, Target
from kvplan.check.verdict import Fix, Numbers, judge
from kvplan.deploy import DeploymentError, Problem, parse_deployment, plan_deployment
from kvplan.deploy.yamldoc import Doc
from kvplan.specs.loader import all_hardware
from kvplan.specs.schema import HardwareSpec

PASS, FAIL, WARN, ERROR = "PASS", "FAIL", "WARN", "ERROR"
YAML_SUFFIXES = (".yaml", ".yml")


@dataclass
class Outcome:
    """The verdict on one deployment (or one unreadable file)."""

    file: str
    verdict: str
    line: int | None = None
    name: str | None = None
    kind: str | None = None
    server: str | None = None
    model: str | None = None
    gpu: str | None = None
    engine: str | None = None
    engine_version: str | None = None
    numbers: Numbers | None = None
    fixes: list[Fix] = field(default_factory=list)
    fix_text: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)  # a FAIL without numbers (refused options)
    summary: str | None = None  # the start-up verdict's phrase (no traffic / no GPU named)

    @property
    def label(self) -> str:
        return self.name or Path(self.file).name


@dataclass
class Report:
    outcomes: list[Outcome]
    skipped: list[str]

    ignored: list[str] = field(default_factory=list)  # unreadable non-workload documents
    default_gpu_used: bool = False  # some manifest named no GPU and was planned on --gpu

    @property
    def checked_none(self) -> bool:
        """No deployment was judged: the gate must not go green on nothing."""
        return not any(o.verdict in (PASS, FAIL, WARN) for o in self.outcomes)

    @property
    def exit_code(self) -> int:
        verdicts = {o.verdict for o in self.outcomes}
        if ERROR in verdicts or self.checked_none:
            return 2
        return 1 if FAIL in verdicts else 0

    def counts(self) -> dict[str, int]:
        return {v: sum(o.verdict == v for o in self.outcomes) for v in (PASS, FAIL, WARN, ERROR)}


def _has_magic(text: str) -> bool:
    return any(c in text for c in "*?[")


def discover(paths: list[str]) -> tuple[list[tuple[Path, bool]], list[Outcome]]:
    """Files to read, each with whether it was named explicitly; missing paths as ERRORs."""
    files: list[tuple[Path, bool]] = []
    missing: list[Outcome] = []
    seen: set[Path] = set()

    def add(path: Path, explicit: bool) -> None:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            files.append((path, explicit))

    def walk(folder: Path) -> None:
        for root, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                path = Path(root) / name
                if path.suffix in YAML_SUFFIXES and not is_side_file(path):
                    add(path, False)

    for text in paths:
        path = Path(text)
        if path.is_dir():
            walk(path)
        elif path.is_file():
            add(path, True)
        elif _has_magic(text):
            matches = sorted(glob.glob(text, recursive=True))
            for m in matches:
                p = Path(m)
                if p.is_dir():
                    walk(p)
                elif p.suffix in YAML_SUFFIXES and not is_side_file(p):
                    add(p, False)
            if not matches:
                missing.append(Outcome(text, ERROR, problems=[Problem("", "no file matches")]))
        else:
            missing.append(Outcome(text, ERROR, problems=[Problem("", "no such file or folder")]))
    return files, missing


def read_targets(path: Path, side_cache: dict[Path, Any], default_gpu: str | None = None,
                 ignored: list[str] | None = None) -> list[Target]:
    """Every deployment one file holds: kvplan/v1 documents and manifests that run an engine.
    A broken document is an ERROR when it runs an engine or is an unrendered template, else
    it is listed in `ignored` and the documents beside it are read."""
    out: list[Target] = []
    docs = read_documents(path)
    alone = all(isinstance(d, Broken) for d in docs)  # nothing readable beside it: report it
    for doc in docs:
        if isinstance(doc, Broken):
            from kvplan.check.manifests.workload import RENDER_FIRST, mentions_engine

            runs = alone or "kvplan/" in doc.text or mentions_engine(doc.text) is not None
            if doc.templated and (runs or "kind:" not in doc.text):
                message = f"unrendered template: {RENDER_FIRST}"
            elif runs:
                message = doc.problem.message
            else:
                if ignored is not None:
                    ignored.append(f"{path}:{doc.problem.line or doc.start_line}: {doc.problem.message}")
                continue
            out.append(Target(file=str(path), kind=KUBERNETES, line=doc.start_line,
                              problems=[Problem("", message, doc.problem.line or doc.start_line)]))
            continue
        data = doc.data
        if isinstance(data, dict) and str(data.get("apiVersion", "")).startswith("kvplan"):
            out.append(_kvplan_target(path, doc))
            continue
        found = read_document(doc, path, side_cache, default_gpu)
        out.extend(found or [])
    return out


def _kvplan_target(path: Path, doc: Doc) -> Target:
    target = Target(file=str(path), kind=KVPLAN, line=doc.start_line, doc=doc, base_dir=path.parent)
    data = doc.data
    target.name = str(data.get("name")) if isinstance(data.get("name"), str) else None
    try:
        target.deployment = parse_deployment(data, str(path), doc)
    except DeploymentError as err:
        target.problems = err.items
    return target


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
    try:
        model = resolve_model(dep.model, target.base_dir)
    except Exception:  # noqa: BLE001 - reported by plan_deployment as an ERROR
        model = None
    if model is not None:
        shape = shape_refusals(model, dep.parallel.tensor, dep.engine.max_model_len)
        if shape and line is None:
            line = target.line_of("engine.max_model_len" if "max_model_len" in shape[0]
                                  else "parallel.tensor")
        reasons += shape
        from kvplan.engines.refusals import engine_refusals

        flags = engine_refusals(model, dep)
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
        if flags and line is None:
            line = target.line_of(flags[0][0])
        reasons += [why for _, why in flags]
    if not reasons:
        return None
    out.verdict, out.reasons, out.line = FAIL, reasons, line or out.line
    return out


def judge_target(target: Target) -> Outcome:
    """Plan and judge one target; every failure to read becomes an ERROR outcome."""
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
        return _error(out, target.problems)
    out.model, out.gpu, out.engine = dep.model, dep.hardware.gpu, dep.engine.name
    out.engine_version = dep.engine.version
    if _refused(out, target) is not None:
        return out
    if dep.hardware.count is None:
        return _error(
            out,
            [
                Problem(
                    target.field_name("hardware.count"),
                    "required by `kvplan check`: the GPUs the deployment has, replicas x tensor x "
                    "pipeline (`kvplan fleet` computes it)",
                    target.line_of("hardware"),
                )
            ],
        )
    try:
        planned = plan_deployment(dep, target.file, target.base_dir, target.doc)
    except DeploymentError as err:
        return _error(out, target.renamed(err.items))
    target.planned = planned
    req = planned.request
    out.model, out.gpu = req.model.name, req.gpu.name
    refused = _engine_refuses_input(planned)
    if refused is not None:  # kvplan cannot model the engine as set: an ERROR, not a FAIL
        return _error(out, [Problem(target.field_name("engine.name"), refused,
                                    target.line_of("engine"))])
    catalog = _catalog()
    if target.kind == KUBERNETES:  # a GPU a manifest can select by node label
        family = target.label_key or PRODUCT_LABEL
        catalog = tuple(g for g in catalog if label_for(g.name, family) is not None)
    out.notes.extend(planned.notes)
    if not target.gpu_named:
        from kvplan.check.startup import starts_on

        yes, no = starts_on(planned, dep.hardware.count, _catalog(), target.engines_per_pod)
        out.verdict, out.gpu = WARN, None
        out.summary = (f"no GPU named; starts on: {', '.join(yes) or 'none'}; would not start "
                       f"on: {', '.join(no) or 'none'} (name one with a node label or --gpu)")
        return out
    verdict = judge(planned, dep.hardware.count, catalog, target.engines_per_pod)
    out.numbers = verdict.numbers
    if verdict.numbers.idle_gpus:
        out.notes.append(f"{verdict.numbers.idle_gpus} GPU(s) idle: not a whole replica")
    if verdict.passes:
        out.verdict = PASS
        if target.no_traffic:
            from kvplan.check.startup import pass_text, startup

            out.summary = pass_text(startup(planned, dep.hardware.count, target.engines_per_pod))
        return out
    out.verdict = FAIL
    n = verdict.numbers
    partial = _starts_short(planned, n) if target.no_traffic else None
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


def _starts_short(planned: Any, n: Numbers) -> int | None:
    """The pool's tokens when the engine starts without room for one max_model_len request
    (SGLang: `max_total_num_tokens > 0`); None when that is not the case."""
    from kvplan.engines import run_engine
    from kvplan.engines.deployment import deployment_engine_settings
    from kvplan.errors import InputError

    if n.would_start or n.limited_by == "weights" or n.kv_pool_bytes <= 0:
        return None
    engine = deployment_engine_settings(planned.deployment.engine)
    if engine is None or engine.engine.value != "sglang":
        return None
    try:
        res = run_engine(planned.request, engine)
    except InputError:
        return None
    return res.kv_cache_tokens if res.starts and res.kv_cache_tokens > 0 else None


def fail_line(target: Target, numbers: Numbers) -> int:
    """The line a FAIL annotation points at: the tensor size (or GPU) when the weights do not
    fit, max_model_len when one sequence does not fit or the p95 is longer, else the GPU count
    (replicas in a manifest)."""
    if not numbers.would_start and numbers.limited_by == "weights":
        paths: tuple[str, ...] = ("parallel.tensor", "hardware.gpu", "model")
    elif not numbers.would_start or (
        numbers.p95_tokens is not None and numbers.p95_tokens > numbers.max_model_len
    ):
        paths = ("engine.max_model_len", "engine", "model")
    else:
        paths = ()
    for path in paths:
        if target.doc is not None and tuple(path.split(".")) in target.doc.lines:
            return target.line_of(path)
    return target.line_of("hardware.count")


def describe_fix(target: Target, fix: Fix) -> str:
    """A fix in the file's own words (kvplan fields, or manifest flags and labels)."""
    from kvplan.check.startup import sequences

    parts = []
    new, old = fix.new, fix.old
    manifest = target.kind == KUBERNETES
    names = FLAG_NAMES.get(target.server or "vllm", FLAG_NAMES["vllm"])
    if "tp" in new:
        flag = names["tp"]
        if manifest:
            per_pod = new["tp"] * (target.planned.request.pp if target.planned else 1)
            per_pod *= target.engines_per_pod
            parts.append(f"{flag} {old['tp']} -> {new['tp']} with nvidia.com/gpu: {per_pod}")
        else:
            parts.append(f"parallel.tensor: {old['tp']} -> {new['tp']}")
    if "gpus" in new:
        if manifest:
            per_pod = fix.numbers.gpus_per_replica * target.engines_per_pod
            pods_old = old["gpus"] // (
                (target.planned.request.gpus_per_replica if target.planned else 1)
                * target.engines_per_pod
            )
            pods_new = new["gpus"] // per_pod
            if pods_new != pods_old:
                parts.append(f"replicas: {pods_old} -> {pods_new}")
        else:
            parts.append(f"hardware.count: {old['gpus']} -> {new['gpus']}")
    if "kv_cache_dtype" in new:
        if manifest:
            parts.append(names["kv"])
        else:
            parts.append(f"engine.kv_cache_dtype: {old['kv_cache_dtype']} -> fp8")
    if "max_num_seqs" in new:
        if manifest:
            flag = names["seqs"]
            parts.append(f"{flag} {old['max_num_seqs']} -> {new['max_num_seqs']}")
        else:
            parts.append(f"engine.max_num_seqs: {old['max_num_seqs']} -> {new['max_num_seqs']}")
    if "max_model_len" in new:
        if manifest:
            flag = names["len"]
            parts.append(f"{flag} {old['max_model_len']} -> {new['max_model_len']}")
        else:
            parts.append(f"engine.max_model_len: {old['max_model_len']} -> {new['max_model_len']}")
    if "gpu" in new:
        if manifest and target.label_key is not None:
            family = target.label_key
            label = label_for(new["gpu"], family) or new["gpu"]
            parts.append(f"{family}: {label} ({new['gpu']})")
        elif manifest:  # the GPU came from a side file, an annotation or --gpu, not a label
            parts.append(f"GPU {old['gpu']} -> {new['gpu']}")
        else:
            parts.append(f"hardware.gpu: {old['gpu']} -> {new['gpu']}")
    n = fix.numbers
    if target.no_traffic:  # no load declared: say what starts, not a placeholder user count
        return (f"{' and '.join(parts)} (starts; holds {sequences(n.kv_users_per_replica)} of "
                f"{n.max_model_len:,} tokens per replica on {n.gpus} GPU(s))")
    return f"{' and '.join(parts)} (holds {n.users_held:,} users on {n.gpus} GPU(s))"


def check_paths(paths: list[str], default_gpu: str | None = None,
                progress: Any = None) -> Report:
    """Check every deployment under `paths`. Never raises for bad input: it becomes ERROR.
    `default_gpu` is the GPU of manifests that name none; `progress(done, n, outcomes)` is
    called before each file and once at the end, with the outcomes so far."""
    files, outcomes = discover(paths)
    skipped: list[str] = []
    ignored: list[str] = []
    side_cache: dict[Path, Any] = {}
    used = False
    for i, (path, explicit) in enumerate(files):
        if progress is not None:
            progress(i, len(files), outcomes)
        try:
            targets = read_targets(path, side_cache, default_gpu, ignored)
        except DeploymentError as err:
            outcomes.append(Outcome(str(path), ERROR, line=err.line, problems=err.items))
            continue
        if not targets:
            if explicit:
                outcomes.append(Outcome(str(path), ERROR, line=1, problems=[Problem(
                    "", "no kvplan/v1 deployment and nothing that runs vLLM, SGLang or "
                    "TensorRT-LLM in this file")]))
            else:
                skipped.append(str(path))
            continue
        outcomes.extend(judge_target(t) for t in targets)
        used = used or any(t.names.get("hardware.gpu") == "--gpu" for t in targets)
    if progress is not None:
        progress(len(files), len(files), outcomes)
    return Report(outcomes, skipped, ignored, used)


__all__ = ["ERROR", "FAIL", "PASS", "WARN", "Outcome", "Report", "check_paths"]
