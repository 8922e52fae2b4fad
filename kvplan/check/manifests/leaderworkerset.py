"""LeaderWorkerSet (kubernetes-sigs/lws): `size` pods (leader + workers) make one engine; the
template that runs the server (the leader's, or the worker template when it is the only one)
is read. spec.replicas groups."""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.pods import PodSite, as_dict, containers
from kvplan.deploy.yamldoc import Doc, Key

KINDS = ("LeaderWorkerSet",)


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    spec = as_dict(data.get("spec"))
    lwt = as_dict(spec.get("leaderWorkerTemplate"))
    at: Key = ("spec", "leaderWorkerTemplate")
    size = lwt.get("size", 1)
    size = size if isinstance(size, int) and size > 0 else 1
    replicas_at = ("spec", "replicas") if "replicas" in spec else None
    out = []
    for part in ("leaderTemplate", "workerTemplate"):
        if part not in lwt:
            continue
        tmpl = as_dict(lwt.get(part))
        pod_at = (*at, part, "spec")
        p = as_dict(tmpl.get("spec"))
        ann = as_dict(as_dict(tmpl.get("metadata")).get("annotations"))
        site = PodSite("LeaderWorkerSet", p, pod_at, containers(p, pod_at),
                       spec.get("replicas", 1), replicas_at, size, ann)
        if size > 1:
            site.notes.append(f"a group of {size} pods runs one engine")
        out.append(site)
    return out
