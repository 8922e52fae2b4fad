"""Manifests teams already have, read into kvplan/v1 deployments: one module per format, each
listed in FORMATS (the registry every document goes through, and docs/check.md's table).

Each reader turns a document into pod sites (kvplan.check.manifests.pods.PodSite); the
workload reader (workload.py, with hardware.py for the GPUs) reads a site into the launch
record (engine, argv, env, GPUs per replica, nodes, GPU label, model, replicas) and launch.py
converts that into a kvplan/v1 Deployment. A document of a kind that runs an engine but that
no reader covers is an ERROR naming its kind, never a skip.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kvplan.check.argv import UnclosedQuote
from kvplan.check.manifests import (
    compose,
    dstack,
    dynamo,
    env_from,
    helm_values,
    kaito,
    kserve,
    kubeai,
    kubernetes,
    leaderworkerset,
    llmd_values,
    llmisvc,
    ome,
    ome_isvc,
    rayclusterfleet,
    rayservice,
    skypilot,
    stormservice,
    vllmruntime,
)
from kvplan.check.manifests.compose_mounts import ComposeService
from kvplan.check.manifests.engine_mention import mentions_engine
from kvplan.check.manifests.hardware import read_gpu_count, read_gpu_type
from kvplan.check.manifests.launch import apply_side_file, resolve_model, to_target
from kvplan.check.manifests.node_options import ray_cluster_nodes
from kvplan.check.manifests.pods import PodSite
from kvplan.check.manifests.shapes import shape_problems, typed
from kvplan.check.manifests.side import skips
from kvplan.check.manifests.unserved import (
    engine_named,
    no_server,
    unreadable,
    unrendered_engine,
    unserved,
)
from kvplan.check.manifests.wording import in_file_words
from kvplan.check.manifests.workload import Workload
from kvplan.check.set_args import SetArgsTooLarge
from kvplan.check.target import COMPOSE_SITE, KUBERNETES, Target, kind_of_site
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc


@dataclass(frozen=True)
class Format:
    """One manifest format: what it is called, its module, the kinds it reads (none: a
    kind-less file recognised by `detect`) and its reader."""

    name: str
    module: str
    kinds: tuple[str, ...]
    read: Callable[..., list[PodSite]]  # (data, doc), with_path: (data, doc, path)
    detect: Callable[[dict[str, Any]], bool] | None = None
    group: str = ""  # the API group its kinds are read for only (a name as common as `Model`)
    # a launcher's file (SkyPilot, dstack) read whole into targets, one per candidate GPU,
    # in place of `read`'s pod sites: (doc, path, side_cache, default_gpu) -> targets
    launcher: Callable[[Doc, Path, dict[Path, Any], str | None], list[Target] | None] | None = None
    # `read` takes the file's path too (data, doc, path): KAITO's ConfigMaps are the run's
    with_path: bool = False


def _compose_sites(data: dict[str, Any], doc: Doc, path: Path | None = None) -> list[PodSite]:
    out = []
    for i, (site, name) in enumerate(compose.sites(data, path)):
        site.group, site.name = i, name
        site.files = ComposeService(name)  # its own volumes put its option files in place
        line = doc.line("services", name, "command") or doc.line("services", name)
        own = f"services.{name}."  # a field of the service (compose.sites): its own line
        site.problems = [Problem(p.field, p.message, p.line or (
            doc.line("services", name, *(int(k) if k.isdigit() else k
                                         for k in p.field[len(own):].split(".")))
            if p.field.startswith(own) else line)) for p in site.problems]
        out.append(site)
    return out


FORMATS: tuple[Format, ...] = (
    Format("Kubernetes workloads (Deployment, StatefulSet, ReplicaSet, Job, DaemonSet, Pod)",
           "kubernetes", kubernetes.KINDS, kubernetes.sites),
    Format("LeaderWorkerSet", "leaderworkerset", leaderworkerset.KINDS, leaderworkerset.sites),
    Format("KServe InferenceService, ServingRuntime, ClusterServingRuntime", "kserve",
           kserve.KINDS, kserve.sites),
    Format("KServe LLMInferenceService", "llmisvc", llmisvc.KINDS, llmisvc.sites),
    Format("KubeRay RayService (Ray Serve LLM)", "rayservice", rayservice.KINDS,
           rayservice.sites),
    Format("AIBrix RayClusterFleet", "rayclusterfleet", rayclusterfleet.KINDS,
           rayclusterfleet.sites),
    Format("AIBrix StormService", "stormservice", stormservice.KINDS, stormservice.sites),
    Format("NVIDIA Dynamo DynamoGraphDeployment", "dynamo", dynamo.KINDS, dynamo.sites),
    Format("vLLM production-stack VLLMRuntime", "vllmruntime", vllmruntime.KINDS,
           vllmruntime.sites),
    Format("vLLM production-stack Helm values", "helm_values", (), helm_values.sites,
           helm_values.is_values),
    Format("llm-d ModelService Helm values", "llmd_values", (), llmd_values.sites,
           llmd_values.is_values),
    Format("KubeAI Model (kubeai.org)", "kubeai", kubeai.KINDS, kubeai.sites,
           group=kubeai.GROUP),
    Format("OME ServingRuntime, ClusterServingRuntime (ome.io)", "ome", ome.KINDS, ome.sites,
           group=ome.GROUP),
    Format("OME InferenceService (ome.io), with its runtime and BaseModel", "ome_isvc",
           ome_isvc.KINDS, ome_isvc.sites, group=ome_isvc.GROUP),
    Format("KAITO Workspace, InferenceSet (kaito.sh), with its inference ConfigMap", "kaito",
           kaito.KINDS, kaito.sites, group=kaito.GROUP, with_path=True),
    Format("docker-compose", "compose", (), _compose_sites, compose.is_compose),
    Format("SkyPilot task YAML (sky launch, sky serve)", "skypilot", (), lambda data, doc: [],
           skypilot.is_task, launcher=skypilot.targets),
    Format("dstack run configuration (type: service, task)", "dstack", (), lambda data, doc: [],
           dstack.is_config, launcher=dstack.targets),
)
BY_KIND: dict[str, Format] = {k: f for f in FORMATS if not f.group for k in f.kinds}
BY_GROUP_KIND: dict[tuple[str, str], Format] = {(f.group, k): f for f in FORMATS if f.group
                                                for k in f.kinds}

# kinds that exist to run an inference engine: one kvplan cannot read is an ERROR, never a skip
ENGINE_KINDS = {
    "LLMInferenceService", "InferenceService", "RayService", "RayClusterFleet", "StormService",
    "DynamoGraphDeployment", "DynamoComponentDeployment", "VLLMRuntime", "ModelService",
    "RoleSet", "ModelAdapter",
}
# kinds of other API groups that exist to run an engine, by (group, kind), that no format reads:
# their names are taken by a format kvplan reads (OME's InferenceService is not KServe's), so
# the group decides (blind round of 2026-12-06, task h42corpus: each was a silent skip; KubeAI's
# Model and OME's runtimes have readers since task h42readers, OME's InferenceService since task
# h43ome, BY_GROUP_KIND)
ENGINE_GROUP_KINDS = {
    ("disaggregatedset.x-k8s.io", "DisaggregatedSet"),  # LWS's prefill/decode set (llm-d guides)
}


def _targets(doc: Doc, path: Path, sites: list[PodSite], name: str | None,
             meta_ann: dict[str, Any], side_cache: dict[Path, Any],
             default_gpu: str | None, kind: str = "") -> list[Target]:
    """One target per group of sites: the first site of the group that runs a server. With
    `kind` (a Kubernetes object's), a group in which no site starts a server kvplan reads but
    whose container plainly runs an engine gets its own ERROR (`unserved.unserved`), so one worker that
    kvplan cannot read never hides the results of the others."""
    out: list[Target] = []
    groups: dict[int, list[PodSite]] = {}
    for site in sites:
        groups.setdefault(site.group, []).append(site)
    for group in groups.values():
        before = len(out)
        for site in group:
            wdoc = Doc(doc.data, doc.start_line, {**doc.lines, **site.lines}) if site.lines \
                else doc
            label = site.name or name
            if not site.containers and site.problems:
                out.append(Target(file=str(path), kind=kind_of_site(site.kind),
                                  line=doc.start_line, name=label, problems=list(site.problems)))
                break
            bad = shape_problems(site.pod, site.pod_at, site.containers, wdoc)
            if bad:  # a field of the wrong type: what it must be, before a reader trips on it
                out.append(Target(file=str(path), kind=kind_of_site(site.kind),
                                  line=bad[0].line or doc.start_line, name=label, problems=bad))
                break
            w = Workload(wdoc, path, site, label, meta_ann)
            try:
                if not w.find_server():
                    continue
            except (SetArgsTooLarge, UnclosedQuote) as err:  # a `sh -c` script's "$@" doubled
                # past the limit, or a quote it never closes (task readfix)
                at = site.lines.get(site.pod_at) or doc.start_line
                out.append(Target(file=str(path), kind=kind_of_site(site.kind), line=at,
                                  name=label, problems=[Problem("command", str(err), at)]))
                break
            if skips(w.annotations):  # left out as asked (the group's ERROR below skipped too)
                break
            w.problems.extend(site.problems)
            w.engine()
            if not w.problems:
                read_gpu_count(w)
                read_gpu_type(w, default_gpu)
                w.read_annotations()
                apply_side_file(w, side_cache)
                ray_cluster_nodes(w)
                resolve_model(w)
            out.append(to_target(w))
            break
        if any(skips({**site.annotations, **meta_ann}) for site in group):
            continue
        refused = [p for site in group for p in site.problems]
        if len(out) == before and refused:  # what the reader refused stopped it finding a server
            out.append(Target(file=str(path), kind=kind_of_site(group[0].kind),
                              line=doc.start_line, name=group[0].name or name, problems=refused))
        if len(out) == before and (kind or group[0].kind == COMPOSE_SITE):
            out.extend(unserved(doc, path, kind or COMPOSE_SITE, group, name))
    if not out and kind:  # nothing read, where the image itself is still a template
        out.extend(unrendered_engine(doc, path, sites, name))
    for target in out:  # a compose file's or a script's own words (kvplan.check.manifests.wording)
        if target.kind != KUBERNETES:
            target.problems = [Problem(p.field, in_file_words(p.message, path, target.kind),
                                       p.line) for p in target.problems]
            target.notes = [in_file_words(n, path, target.kind) for n in target.notes]
    return out


site_targets = _targets  # the shell-script reader (shell.py) turns its sites into targets too


def _read(fmt: Format, data: dict[str, Any], doc: Doc, path: Path) -> list[PodSite]:
    if fmt.read is _compose_sites:
        return _compose_sites(data, doc, path)
    if fmt.with_path:
        return fmt.read(data, doc, path)
    return fmt.read(data, doc)


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
    group = str(data.get("apiVersion", "")).split("/", 1)[0]
    if (group, kind) in ENGINE_GROUP_KINDS:
        return [unreadable(path, doc, f"{kind} ({group})", engine_named(data), name)]
    fmt = BY_GROUP_KIND.get((group, kind)) or (BY_KIND.get(kind) if kind else next(
        (f for f in FORMATS if f.detect is not None and f.detect(data)), None))
    if fmt is not None and fmt.launcher is not None:  # its script, on each candidate GPU
        return fmt.launcher(doc, path, side_cache, default_gpu)
    if fmt is not None:
        sites = _read(fmt, data, doc, path)
        if kind:  # the object's metadata or annotations (kvplan.io/...) of the wrong type
            bad: list[Problem] = []
            meta_block = typed(data, "metadata", (), doc, bad, "Kubernetes ObjectMeta")
            typed(meta_block, "annotations", ("metadata",), doc, bad, "Kubernetes ObjectMeta")
            typed(meta_block, "name", ("metadata",), doc, bad, "Kubernetes ObjectMeta", str)
            for site in sites:
                site.problems = [*bad, *site.problems]
        targets = _targets(doc, path, sites, name, meta_ann if kind else {}, side_cache,
                           default_gpu, kind)
        if targets or not kind:
            return targets
        if kind in ENGINE_KINDS:
            return [no_server(path, doc, kind, mentions_engine(data) or "an inference engine",
                              name)]
        return None
    engine = mentions_engine(data)
    if engine is None and kind not in ENGINE_KINDS:
        return None
    if kind == "ConfigMap" and name and env_from.referenced(name):
        return None  # a container's env of the run reads it (env_from): no deployment of its own
    return [unreadable(path, doc, kind, engine or "an inference engine", name)]
