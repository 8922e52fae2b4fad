"""AIBrix RayClusterFleet (orchestration.aibrix.ai/v1alpha1): spec.replicas Ray clusters made
from spec.template (a KubeRay RayClusterSpec, vllm-project/aibrix
api/orchestration/v1alpha1/rayclusterfleet_types.go). The head runs the server (`vllm serve
... --distributed-executor-backend ray`); the engine spans every GPU of its cluster."""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests import raycluster
from kvplan.check.manifests.pods import PodSite, as_dict, containers
from kvplan.deploy.yamldoc import Doc

KINDS = ("RayClusterFleet",)


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    spec = as_dict(data.get("spec"))
    tmpl = as_dict(spec.get("template"))
    cluster = as_dict(tmpl.get("spec"))
    gs = raycluster.groups(cluster, ("spec", "template", "spec"))
    total = raycluster.total_gpus(gs)
    ann = as_dict(as_dict(tmpl.get("metadata")).get("annotations"))
    out = []
    for g in gs:  # the group whose container starts the server is the engine's
        site = PodSite("RayClusterFleet", g.pod, g.pod_at, containers(g.pod, g.pod_at),
                       spec.get("replicas", 1), ("spec", "replicas") if "replicas" in spec
                       else None, annotations=ann)
        site.gpus_total = total
        pods = sum(x.pods for x in gs if x.gpus_per_pod > 0) or 1
        site.pods_per_engine = pods
        site.notes.append(f"one Ray cluster of {pods} pod(s), {total} GPU(s), runs one engine")
        out.append(site)
    return out
