"""Where each Kubernetes kind keeps the pods that run a server, and how many it runs.

One function per kind family; each returns the sites (a pod spec, its containers, replicas and
pods per engine) that the workload reader turns into a launch record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kvplan.deploy.yamldoc import Key


@dataclass
class PodSite:
    """One pod template of a workload."""

    kind: str
    pod: dict[str, Any]
    pod_at: Key
    containers: list[tuple[dict[str, Any], Key]]
    replicas: Any = 1
    replicas_at: Key | None = None
    pods_per_engine: int = 1  # LeaderWorkerSet: the group's pods make one engine
    annotations: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    lenient: bool = False  # a launcher that adds options of its own (KServe huggingface)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _containers(pod: dict[str, Any], at: Key) -> list[tuple[dict[str, Any], Key]]:
    items = pod.get("containers") or []
    return [(c, (*at, "containers", i)) for i, c in enumerate(items if isinstance(items, list)
                                                               else []) if isinstance(c, dict)]


def _template(data: dict[str, Any], at: Key, kind: str, replicas: Any,
              replicas_at: Key | None) -> PodSite:
    tmpl = _dict(_dict(data).get("template"))
    pod = _dict(tmpl.get("spec"))
    pod_at = (*at, "template", "spec")
    ann = _dict(_dict(tmpl.get("metadata")).get("annotations"))
    return PodSite(kind, pod, pod_at, _containers(pod, pod_at), replicas, replicas_at,
                   annotations=ann)


def workloads(data: dict[str, Any]) -> list[PodSite]:
    """Deployment, StatefulSet, ReplicaSet, Job, DaemonSet (spec.template)."""
    spec = _dict(data.get("spec"))
    kind = str(data.get("kind"))
    site = _template(spec, ("spec",), kind, spec.get("replicas", 1),
                     ("spec", "replicas") if "replicas" in spec else None)
    if kind == "Job":
        site.replicas = spec.get("parallelism", 1)
        site.replicas_at = ("spec", "parallelism") if "parallelism" in spec else None
    if kind == "DaemonSet":
        site.replicas = 1
        site.notes.append("a DaemonSet runs one pod per matching node: checked as one replica")
    return [site]


def pod(data: dict[str, Any]) -> list[PodSite]:
    spec = _dict(data.get("spec"))
    return [PodSite("Pod", spec, ("spec",), _containers(spec, ("spec",)))]


def leader_worker_set(data: dict[str, Any]) -> list[PodSite]:
    """LeaderWorkerSet: `size` pods (leader + workers) make one engine; the leader runs it."""
    spec = _dict(data.get("spec"))
    lwt = _dict(spec.get("leaderWorkerTemplate"))
    at: Key = ("spec", "leaderWorkerTemplate")
    size = lwt.get("size", 1)
    size = size if isinstance(size, int) and size > 0 else 1
    replicas_at = ("spec", "replicas") if "replicas" in spec else None
    sites = []
    for part in ("leaderTemplate", "workerTemplate"):
        if part not in lwt:
            continue
        tmpl = _dict(lwt.get(part))
        pod_at = (*at, part, "spec")
        p = _dict(tmpl.get("spec"))
        ann = _dict(_dict(tmpl.get("metadata")).get("annotations"))
        site = PodSite("LeaderWorkerSet", p, pod_at, _containers(p, pod_at),
                       spec.get("replicas", 1), replicas_at, size, ann)
        if size > 1:
            site.notes.append(f"a group of {size} pods runs one engine")
        sites.append(site)
    return sites


def inference_service(data: dict[str, Any]) -> list[PodSite]:
    """KServe InferenceService: spec.predictor.model (a runtime's container) or .containers."""
    spec = _dict(data.get("spec"))
    pred = _dict(spec.get("predictor"))
    at: Key = ("spec", "predictor")
    replicas = pred.get("minReplicas", 1)
    replicas_at = (*at, "minReplicas") if "minReplicas" in pred else None
    containers = _containers(pred, at)
    lenient = False
    if isinstance(pred.get("model"), dict):
        containers.insert(0, (pred["model"], (*at, "model")))
        lenient = True  # the huggingface runtime takes vLLM's options and its own
    site = PodSite("InferenceService", pred, at, containers, replicas, replicas_at,
                   lenient=lenient)
    site.notes.append("checked at minReplicas (KServe scales up from there)")
    return [site]


def serving_runtime(data: dict[str, Any]) -> list[PodSite]:
    """KServe ServingRuntime / ClusterServingRuntime: a template, one replica."""
    spec = _dict(data.get("spec"))
    site = PodSite(str(data.get("kind")), spec, ("spec",), _containers(spec, ("spec",)))
    site.notes.append("a serving runtime is a template: checked as one replica")
    return [site]


def llm_inference_service(data: dict[str, Any]) -> list[PodSite]:
    """KServe LLMInferenceService: spec.template is the pod; spec.model.uri the model."""
    spec = _dict(data.get("spec"))
    p = _dict(spec.get("template"))
    site = PodSite("LLMInferenceService", p, ("spec", "template"),
                   _containers(p, ("spec", "template")), spec.get("replicas", 1),
                   ("spec", "replicas") if "replicas" in spec else None, lenient=True)
    return [site]


READERS: dict[str, Callable[[dict[str, Any]], list[PodSite]]] = {
    "Deployment": workloads,
    "StatefulSet": workloads,
    "ReplicaSet": workloads,
    "Job": workloads,
    "DaemonSet": workloads,
    "Pod": pod,
    "LeaderWorkerSet": leader_worker_set,
    "InferenceService": inference_service,
    "ServingRuntime": serving_runtime,
    "ClusterServingRuntime": serving_runtime,
    "LLMInferenceService": llm_inference_service,
}
