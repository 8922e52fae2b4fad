"""A KubeRay RayClusterSpec (headGroupSpec, workerGroupSpecs), as RayService and AIBrix's
RayClusterFleet embed it: the pods, and the GPUs Ray advertises on each (rayStartParams
num-gpus, else the container's nvidia.com/gpu limit)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kvplan.check.manifests.pods import as_dict
from kvplan.check.manifests.shapes import mistyped, typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key

GPU_KEYS = ("nvidia.com/gpu", "amd.com/gpu")
SCHEMA = "KubeRay RayCluster spec, ray.io/v1"


@dataclass
class RayGroup:
    """The head or one worker group: its pod template and what it holds."""

    name: str
    pod: dict[str, Any]
    pod_at: Key
    gpus_per_pod: int
    pods: int  # replicas x numOfHosts (the head: 1)
    max_pods: int
    head: bool = False


def _gpus(pod: dict[str, Any], params: dict[str, Any]) -> int:
    if "num-gpus" in params:
        try:
            return int(float(str(params["num-gpus"])))
        except ValueError:
            return 0
    containers = pod.get("containers")
    for c in containers if isinstance(containers, list) else []:  # another type: _resources
        res = as_dict(as_dict(c).get("resources"))
        for part in ("limits", "requests"):
            for key in GPU_KEYS:
                value = as_dict(res.get(part)).get(key)
                if value is not None:
                    try:
                        return int(str(value))
                    except ValueError:
                        return 0
    return 0


def _resources(pod: dict[str, Any], pod_at: Key, doc: Doc, bad: list[Problem]) -> None:
    """A head or worker container's resources (and its limits, requests) of the wrong type: named in
    `bad`, where it used to count 0 GPUs for the group in silence (task h47silent); the
    core/v1 Container schema has them mappings."""
    found = pod.get("containers")
    if found is not None and not isinstance(found, list):  # exit 3 before task h51sweep
        bad.append(mistyped((*pod_at, "containers"), list, found, doc))
    for j, c in enumerate(found if isinstance(found, list) else []):
        at = (*pod_at, "containers", j)
        if isinstance(c, dict):
            res = typed(c, "resources", at, doc, bad, "Kubernetes core/v1 schema")
            for part in ("limits", "requests"):
                typed(res, part, (*at, "resources"), doc, bad, "Kubernetes core/v1 schema")


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def groups(cluster: dict[str, Any], at: Key, doc: Doc | None = None,
           bad: list[Problem] | None = None) -> list[RayGroup]:
    """The head, then each worker group, in file order. With `doc` and `bad`, a block of the
    wrong type (a group, its template, pod spec or rayStartParams) is named in `bad`."""
    out = []
    d, b = Doc({}, 1, {}) if doc is None else doc, [] if bad is None else bad

    def block(node: Any, key: str, where: Key, want: type = dict) -> Any:
        return typed(as_dict(node), key, where, d, b, SCHEMA, want)

    head = block(cluster, "headGroupSpec", at)
    h_at = (*at, "headGroupSpec")
    pod = block(block(head, "template", h_at), "spec", (*h_at, "template"))
    _resources(pod, (*h_at, "template", "spec"), d, b)
    out.append(RayGroup("head", pod, (*at, "headGroupSpec", "template", "spec"),
                        _gpus(pod, block(head, "rayStartParams", h_at)), 1, 1, head=True))
    workers = block(cluster, "workerGroupSpecs", at, list)
    for i, w in enumerate(workers):
        w_at = (*at, "workerGroupSpecs", i)
        if not isinstance(w, dict):
            b.append(mistyped(w_at, dict, w, d, SCHEMA))
            continue
        pod = block(block(w, "template", w_at), "spec", (*w_at, "template"))
        _resources(pod, (*w_at, "template", "spec"), d, b)
        hosts = _int(w.get("numOfHosts"), 1)
        replicas = _int(w.get("replicas"), _int(w.get("minReplicas"), 1))
        most = _int(w.get("maxReplicas"), replicas)
        out.append(RayGroup(str(w.get("groupName", f"worker-{i}")), pod,
                            (*at, "workerGroupSpecs", i, "template", "spec"),
                            _gpus(pod, block(w, "rayStartParams", w_at)), replicas * hosts,
                            max(most, replicas) * hosts))
    return out


def total_gpus(gs: list[RayGroup], at_max: bool = False) -> int:
    return sum(g.gpus_per_pod * (g.max_pods if at_max else g.pods) for g in gs)
