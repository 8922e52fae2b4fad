"""Kubernetes kinds with pod templates: Deployment, StatefulSet, ReplicaSet, Job, DaemonSet
(spec.template) and Pod (spec). `kind: List` is unpacked by kvplan.check.manifests."""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.pods import PodSite, as_dict, containers, template_site
from kvplan.deploy.yamldoc import Doc

KINDS = ("Deployment", "StatefulSet", "ReplicaSet", "Job", "DaemonSet", "Pod")


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    spec = as_dict(data.get("spec"))
    kind = str(data.get("kind"))
    if kind == "Pod":
        return [PodSite("Pod", spec, ("spec",), containers(spec, ("spec",)))]
    site = template_site(spec, ("spec",), kind, spec.get("replicas", 1),
                         ("spec", "replicas") if "replicas" in spec else None)
    if kind == "Job":
        site.replicas = spec.get("parallelism", 1)
        site.replicas_at = ("spec", "parallelism") if "parallelism" in spec else None
    if kind == "DaemonSet":
        site.replicas = 1
        site.notes.append("a DaemonSet runs one pod per matching node: checked as one replica")
    return [site]
