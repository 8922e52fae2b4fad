"""AIBrix RayClusterFleet (orchestration.aibrix.ai/v1alpha1): spec.replicas Ray clusters made
from spec.template (a KubeRay RayClusterSpec, vllm-project/aibrix
api/orchestration/v1alpha1/rayclusterfleet_types.go). The head runs the server (`vllm serve
... --distributed-executor-backend ray`); the engine spans every GPU of its cluster."""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests import raycluster
from kvplan.check.manifests.pods import PodSite, containers
from kvplan.check.manifests.shapes import typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc

KINDS = ("RayClusterFleet",)


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    bad: list[Problem] = []
    schema = "AIBrix RayClusterFleet CRD, orchestration.aibrix.ai/v1alpha1"
    spec = typed(data, "spec", (), doc, bad, schema)
    tmpl = typed(spec, "template", ("spec",), doc, bad, schema)
    cluster = typed(tmpl, "spec", ("spec", "template"), doc, bad, schema)
    gs = raycluster.groups(cluster, ("spec", "template", "spec"), doc, bad)
    total = raycluster.total_gpus(gs)
    meta = typed(tmpl, "metadata", ("spec", "template"), doc, bad, schema)
    ann = typed(meta, "annotations", ("spec", "template", "metadata"), doc, bad, schema)
    out = []
    for g in gs:  # the group whose container starts the server is the engine's
        site = PodSite("RayClusterFleet", g.pod, g.pod_at, containers(g.pod, g.pod_at),
                       spec.get("replicas", 1), ("spec", "replicas") if "replicas" in spec
                       else None, annotations=ann)
        site.gpus_total = total
        pods = sum(x.pods for x in gs if x.gpus_per_pod > 0) or 1
        site.pods_per_engine = pods
        site.notes.append(f"one Ray cluster of {pods} pod(s), {total} GPU(s), runs one engine")
        site.problems = list(bad)  # a wrong-typed block: named on the engine, never skipped
        out.append(site)
    return out
