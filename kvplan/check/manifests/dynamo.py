"""NVIDIA Dynamo DynamoGraphDeployment (ai-dynamo/dynamo, deploy/cloud/operator api):

- nvidia.com/v1alpha1: spec.services.<name> with componentType (frontend, worker, planner),
  replicas (default 1), resources.limits.gpu (GPUs a pod), multinode.nodeCount (pods an
  engine), extraPodSpec (the pod: node selector, affinity) and extraPodSpec.mainContainer (the
  container: command, args);
- nvidia.com/v1beta1: spec.components[] with name, type, replicas, multinode and podTemplate
  (a pod template whose container `main` runs the worker).

A worker runs `python -m dynamo.vllm` / `dynamo.sglang` with the engine's options plus
Dynamo's own (noted, not refused). Each worker service is one engine; a frontend or planner
runs none. The runtime image's tag is Dynamo's release, not the engine's.
"""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.pods import PodSite, containers, template_site
from kvplan.check.manifests.shapes import mistyped, typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key

KINDS = ("DynamoGraphDeployment",)
SCHEMA = "Dynamo DynamoGraphDeployment CRD, nvidia.com"


def _nodes(svc: dict[str, Any], at: Key, doc: Doc, bad: list[Problem]) -> int:
    n = typed(svc, "multinode", at, doc, bad, SCHEMA).get("nodeCount", 1)
    return n if isinstance(n, int) and n > 0 else 1


def _v1alpha1(name: str, svc: dict[str, Any], at: Key, doc: Doc, group: int) -> PodSite:
    bad: list[Problem] = []
    extra = typed(svc, "extraPodSpec", at, doc, bad, SCHEMA)
    pod_at: Key = (*at, "extraPodSpec")
    main = typed(extra, "mainContainer", pod_at, doc, bad, SCHEMA)
    c_at: Key = (*pod_at, "mainContainer")
    container = dict(main)
    lines: dict[Key, int] = {}
    res = typed(svc, "resources", at, doc, bad, SCHEMA)
    for part in ("limits", "requests"):
        gpu = typed(res, part, (*at, "resources"), doc, bad, SCHEMA).get("gpu")
        if gpu is not None:
            container["resources"] = {"limits": {"nvidia.com/gpu": gpu}}
            lines[c_at + ("resources", "limits", "nvidia.com/gpu")] = doc.line(
                *at, "resources", part, "gpu")
            break
    found = [(container, c_at)] if main else []
    found += containers(extra, pod_at)
    return PodSite("DynamoGraphDeployment", extra, pod_at, found, svc.get("replicas", 1),
                   (*at, "replicas") if "replicas" in svc else None, _nodes(svc, at, doc, bad),
                   group=group, name=name, lines=lines, line_at=at, problems=bad)


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    bad: list[Problem] = []
    spec = typed(data, "spec", (), doc, bad, SCHEMA)
    out = []
    services = typed(spec, "services", ("spec",), doc, bad, SCHEMA)
    for i, (name, svc) in enumerate(services.items()):
        s_at: Key = ("spec", "services", str(name))
        if not isinstance(svc, dict):
            bad.append(mistyped(s_at, dict, svc, doc, SCHEMA))
            continue
        out.append(_v1alpha1(str(name), svc, s_at, doc, i))
    comps = typed(spec, "components", ("spec",), doc, bad, SCHEMA, list)
    for i, comp in enumerate(comps):
        at: Key = ("spec", "components", i)
        if not isinstance(comp, dict):
            bad.append(mistyped(at, dict, comp, doc, SCHEMA))
            continue
        c_bad: list[Problem] = []
        tmpl = typed(comp, "podTemplate", at, doc, c_bad, SCHEMA)
        pod_schema = "Kubernetes core/v1 PodTemplateSpec"  # podTemplate is one (task h47silent)
        typed(tmpl, "spec", (*at, "podTemplate"), doc, c_bad, pod_schema)
        meta = typed(tmpl, "metadata", (*at, "podTemplate"), doc, c_bad, pod_schema)
        typed(meta, "annotations", (*at, "podTemplate", "metadata"), doc, c_bad, pod_schema)
        site = template_site({"template": comp.get("podTemplate")}, at, "DynamoGraphDeployment",
                             comp.get("replicas", 1), (*at, "replicas") if "replicas" in comp
                             else None)
        site.pod_at = (*at, "podTemplate", "spec")
        site.containers = containers(site.pod, site.pod_at)
        site.pods_per_engine = _nodes(comp, at, doc, c_bad)
        site.problems = c_bad
        site.group, site.name, site.line_at = len(out), str(comp.get("name", i)), at
        out.append(site)
    if bad:  # a wrong-typed block the reader walks: named, never read as empty in silence
        out.insert(0, PodSite("DynamoGraphDeployment", {}, ("spec",), [], problems=bad))
        for k, site in enumerate(out):
            site.group = k
    for site in out:
        site.image_names_engine = False
        if site.pods_per_engine > 1:
            site.notes.append(f"multinode: {site.pods_per_engine} pods run one engine")
    return out
