"""Kubernetes kinds with pod templates: Deployment, StatefulSet, ReplicaSet, Job, DaemonSet
(spec.template) and Pod (spec). `kind: List` is unpacked by kvplan.check.manifests."""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.pods import PodSite, as_dict, containers, template_site
from kvplan.deploy.yamldoc import Doc

KINDS = ("Deployment", "StatefulSet", "ReplicaSet", "Job", "DaemonSet", "Pod")
# pod-spec fields that belong under spec.template.spec: on the workload's own spec they are
# unknown fields, which kubectl apply refuses (its --validate defaults to strict field
# validation, https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation)
# and a lenient client drops, so the pods never get them
_POD_FIELDS = ("nodeSelector", "affinity", "tolerations", "containers", "runtimeClassName")


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    spec = as_dict(data.get("spec"))
    kind = str(data.get("kind"))
    if kind == "Pod":
        return [PodSite("Pod", spec, ("spec",), containers(spec, ("spec",)))]
    site = template_site(spec, ("spec",), kind, spec.get("replicas", 1),
                         ("spec", "replicas") if "replicas" in spec else None, doc)
    if kind == "Job":
        site.replicas = spec.get("parallelism", 1)
        site.replicas_at = ("spec", "parallelism") if "parallelism" in spec else None
    if kind == "DaemonSet":
        site.replicas = 1
        site.notes.append("a DaemonSet runs one pod per matching node: checked as one replica")
    misplaced = [f for f in _POD_FIELDS if f in spec]
    if misplaced:
        site.notes.append(f"spec.{misplaced[0]} sits on the {kind}, not its pod template: an "
                          "unknown field there, which kubectl apply refuses (move it under "
                          "spec.template.spec); not read")
    return [site]
