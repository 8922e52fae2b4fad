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

from kvplan.check.manifests.pods import PodSite, as_dict, containers, template_site
from kvplan.deploy.yamldoc import Doc, Key

KINDS = ("DynamoGraphDeployment",)


def _nodes(svc: dict[str, Any]) -> int:
    n = as_dict(svc.get("multinode")).get("nodeCount", 1)
    return n if isinstance(n, int) and n > 0 else 1


def _v1alpha1(name: str, svc: dict[str, Any], at: Key, doc: Doc, group: int) -> PodSite:
    extra = as_dict(svc.get("extraPodSpec"))
    pod_at: Key = (*at, "extraPodSpec")
    main = as_dict(extra.get("mainContainer"))
    c_at: Key = (*pod_at, "mainContainer")
    container = dict(main)
    lines: dict[Key, int] = {}
    res = as_dict(svc.get("resources"))
    for part in ("limits", "requests"):
        gpu = as_dict(res.get(part)).get("gpu")
        if gpu is not None:
            container["resources"] = {"limits": {"nvidia.com/gpu": gpu}}
            lines[c_at + ("resources", "limits", "nvidia.com/gpu")] = doc.line(
                *at, "resources", part, "gpu")
            break
    found = [(container, c_at)] if main else []
    found += containers(extra, pod_at)
    return PodSite("DynamoGraphDeployment", extra, pod_at, found, svc.get("replicas", 1),
                   (*at, "replicas") if "replicas" in svc else None, _nodes(svc),
                   group=group, name=name, lines=lines, line_at=at)


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    spec = as_dict(data.get("spec"))
    out = []
    services = spec.get("services")
    for i, (name, svc) in enumerate(as_dict(services).items()):
        out.append(_v1alpha1(str(name), as_dict(svc), ("spec", "services", str(name)), doc, i))
    comps = spec.get("components")
    for i, comp in enumerate(comps if isinstance(comps, list) else []):
        comp = as_dict(comp)
        at: Key = ("spec", "components", i)
        site = template_site({"template": comp.get("podTemplate")}, at, "DynamoGraphDeployment",
                             comp.get("replicas", 1), (*at, "replicas") if "replicas" in comp
                             else None)
        site.pod_at = (*at, "podTemplate", "spec")
        site.containers = containers(site.pod, site.pod_at)
        site.pods_per_engine = _nodes(comp)
        site.group, site.name, site.line_at = len(out), str(comp.get("name", i)), at
        out.append(site)
    for site in out:
        site.image_names_engine = False
        if site.pods_per_engine > 1:
            site.notes.append(f"multinode: {site.pods_per_engine} pods run one engine")
    return out
