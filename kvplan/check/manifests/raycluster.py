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


def _count(value: Any, where: Key, doc: Doc, bad: list[Problem], ray: bool) -> int:
    """A GPU count as Kubernetes (a whole number: no fraction of an extended resource) or Ray
    (`ray start --num-gpus`, an integer; "1.0" is read as 1) takes it; another value, or one past
    kvplan's limit, is named in `bad` (task h81hostile: "two", 0.5, [1] counted 0 GPUs and 10^30
    every GPU asked for, in silence) and counts 0."""
    from kvplan.inputs import limits as lim

    text = str(value).strip()
    try:
        number = float(text) if ray else int(text)
    except (ValueError, OverflowError):
        number = None
    if isinstance(value, bool) or number is None or number != number or number < 0 or (
            ray and number != int(number)):
        what = "Ray's num-gpus (ray start --num-gpus)" if ray else "a GPU resource (Kubernetes"\
            " takes a whole number of an extended resource)"
        bad.append(Problem(str(where[-1]), f"{value!r} is not a whole number of GPUs: {what}; "
                           "write a count, or remove it", doc.line(*where)))
        return 0
    if number > lim.MAX_GPUS:
        bad.append(Problem(str(where[-1]), f"{int(number):,} is beyond the limit of "
                           f"{lim.MAX_GPUS:,} (docs/limits.md)", doc.line(*where)))
        return 0
    return int(number)


def _gpus(pod: dict[str, Any], params: dict[str, Any], pod_at: Key = (), params_at: Key = (),
          doc: Doc | None = None, bad: list[Problem] | None = None) -> int:
    """The GPUs Ray advertises on a pod; without `bad` (helm_ray's chart values) a value it
    cannot read, or one past the limit, counts 0 unsaid (before task h81hostile the latter
    counted as given)."""
    doc = Doc({}, 1, {}) if doc is None else doc
    bad = [] if bad is None else bad
    if "num-gpus" in params:
        return _count(params["num-gpus"], (*params_at, "num-gpus"), doc, bad, ray=True)
    containers = pod.get("containers")
    for j, c in enumerate(containers if isinstance(containers, list) else []):  # another type:
        res = as_dict(as_dict(c).get("resources"))  # _resources names it
        counts = [_count(value, (*pod_at, "containers", j, "resources", part, key), doc, bad,
                         ray=False)  # each one said is checked; the limit is the count
                  for part in ("limits", "requests") for key in GPU_KEYS
                  if (value := as_dict(res.get(part)).get(key)) is not None]
        if counts:
            return counts[0]
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
                        _gpus(pod, block(head, "rayStartParams", h_at),
                              (*h_at, "template", "spec"), (*h_at, "rayStartParams"), d, b),
                        1, 1, head=True))
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
                            _gpus(pod, block(w, "rayStartParams", w_at),
                                  (*w_at, "template", "spec"), (*w_at, "rayStartParams"), d, b),
                            replicas * hosts,
                            max(most, replicas) * hosts))
    return out


def total_gpus(gs: list[RayGroup], at_max: bool = False) -> int:
    return sum(g.gpus_per_pod * (g.max_pods if at_max else g.pods) for g in gs)
