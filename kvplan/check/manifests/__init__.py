"""Manifests teams already have, read into kvplan/v1 deployments (one module per format).

- pods.py: Kubernetes kinds with pod templates (Deployment, StatefulSet, ReplicaSet, Job,
  DaemonSet, Pod, `kind: List`), LeaderWorkerSet, KServe InferenceService, ServingRuntime,
  ClusterServingRuntime and LLMInferenceService;
- helm_values.py: vLLM production-stack Helm values (servingEngineSpec.modelSpec[]);
- compose.py: docker-compose services;
- any other document that runs an engine is an ERROR naming its kind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kvplan.check.manifests import compose, helm_values
from kvplan.check.manifests.launch import apply_side_file, resolve_model, to_target
from kvplan.check.manifests.pods import READERS, PodSite
from kvplan.check.manifests.side import ANNOTATION_PREFIX, SKIP_ANNOTATION
from kvplan.check.manifests.workload import Workload, container_engine, mentions_engine
from kvplan.check.target import KUBERNETES, Target
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc


def _site_targets(doc: Doc, path: Path, sites: list[PodSite], name: str | None,
                  meta_ann: dict[str, Any], side_cache: dict[Path, Any],
                  default_gpu: str | None) -> list[Target]:
    for site in sites:
        w = Workload(doc, path, site, name, meta_ann)
        if not w.find_server():
            continue
        if str(w.annotations.get(ANNOTATION_PREFIX + SKIP_ANNOTATION, "")).lower() == "true":
            return []
        w.engine()
        if not w.problems:
            w.gpus()
            w.gpu_type(default_gpu)
            w.read_annotations()
            apply_side_file(w, side_cache)
            resolve_model(w)
        return [to_target(w)]
    return []


# kinds that exist to run an inference engine: one kvplan cannot read is an ERROR, never a skip
ENGINE_KINDS = {
    "LLMInferenceService", "InferenceService", "RayService", "RayClusterFleet", "StormService",
    "DynamoGraphDeployment", "DynamoComponentDeployment", "VLLMRuntime", "ModelService",
    "RoleSet", "ModelAdapter",
}


def no_command(path: Path, doc: Doc, kind: str, engine: str, name: str | None) -> Target:
    return Target(file=str(path), kind=KUBERNETES, line=doc.start_line, name=name,
                  problems=[Problem("command", f"this {kind} runs {engine}, but not through a "
                                    "server command kvplan reads (vllm serve, python -m "
                                    "vllm.entrypoints.openai.api_server, python -m "
                                    "sglang.launch_server, sglang serve, python -m dynamo.vllm, "
                                    "trtllm-serve)", doc.start_line)])


def unreadable(path: Path, doc: Doc, kind: str, engine: str, name: str | None) -> Target:
    return Target(file=str(path), kind=KUBERNETES, line=doc.start_line, name=name,
                  problems=[Problem("kind", f"{kind} runs {engine}, but kvplan cannot read a "
                                    f"{kind} yet; check the pods it renders (kubectl get pod -o "
                                    "yaml) or write a kvplan/v1 file", doc.start_line)])


def read_document(doc: Doc, path: Path, side_cache: dict[Path, Any],
                  default_gpu: str | None = None) -> list[Target] | None:
    """The targets one document holds; None when it runs no engine kvplan knows of."""
    data = doc.data
    if not isinstance(data, dict):
        return None
    kind = str(data.get("kind", "")) if "kind" in data else ""
    meta: dict[str, Any] = data["metadata"] if isinstance(data.get("metadata"), dict) else {}
    name = str(meta.get("name")) if meta.get("name") else None
    meta_ann: dict[str, Any] = (meta["annotations"] if isinstance(meta.get("annotations"), dict)
                                else {})
    if kind == "List" and isinstance(data.get("items"), list):
        out: list[Target] = []
        for i, item in enumerate(data["items"]):
            sub = Doc(item, doc.line("items", i), {k[2:]: v for k, v in doc.lines.items()
                                                   if k[:2] == ("items", i)})
            found = read_document(sub, path, side_cache, default_gpu)
            out.extend(found or [])
        return out or None
    if kind in READERS:
        targets = _site_targets(doc, path, READERS[kind](data), name, meta_ann, side_cache,
                                default_gpu)
        if targets:
            return targets
        for site in READERS[kind](data):
            for c, _ in site.containers:
                engine = container_engine(c)
                if engine is not None:
                    return [no_command(path, doc, kind, engine, name)]
        if kind in ENGINE_KINDS:
            return [unreadable(path, doc, kind, mentions_engine(data) or "an inference engine",
                               name)]
        return None
    if not kind and helm_values.is_values(data):
        return [t for site, sname, mann in helm_values.sites(data)
                for t in _site_targets(doc, path, [site], sname, mann, side_cache, default_gpu)]
    if not kind and compose.is_compose(data):
        return [t for site, sname in compose.sites(data)
                for t in _site_targets(doc, path, [site], sname, {}, side_cache, default_gpu)]
    engine = mentions_engine(data)
    if engine is None and kind not in ENGINE_KINDS:
        return None
    return [unreadable(path, doc, kind or "this document", engine or "an inference engine", name)]
