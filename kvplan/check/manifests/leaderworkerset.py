"""LeaderWorkerSet (kubernetes-sigs/lws): `size` pods (leader + workers) make one engine; the
template that runs the server (the leader's, or the worker template when it is the only one)
is read. spec.replicas groups."""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.pods import PodSite, containers
from kvplan.check.manifests.shapes import typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key

SCHEMA = "LeaderWorkerSet CRD, leaderworkerset.x-k8s.io/v1"

KINDS = ("LeaderWorkerSet",)


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    bad: list[Problem] = []
    spec = typed(data, "spec", (), doc, bad, SCHEMA)
    lwt = typed(spec, "leaderWorkerTemplate", ("spec",), doc, bad, SCHEMA)
    at: Key = ("spec", "leaderWorkerTemplate")
    size = lwt.get("size", 1)
    size = size if isinstance(size, int) and size > 0 else 1
    replicas_at = ("spec", "replicas") if "replicas" in spec else None
    out = []
    for part in ("leaderTemplate", "workerTemplate"):
        if part not in lwt:
            continue
        tmpl = typed(lwt, part, at, doc, bad, SCHEMA)
        pod_at = (*at, part, "spec")
        p = typed(tmpl, "spec", (*at, part), doc, bad, SCHEMA)
        meta = typed(tmpl, "metadata", (*at, part), doc, bad, SCHEMA)
        ann = typed(meta, "annotations", (*at, part, "metadata"), doc, bad, SCHEMA)
        site = PodSite("LeaderWorkerSet", p, pod_at, containers(p, pod_at),
                       spec.get("replicas", 1), replicas_at, size, ann)
        if size > 1:
            site.notes.append(f"a group of {size} pods runs one engine")
        out.append(site)
    if bad:  # a wrong-typed field the reader walks: named on every site, or on one of its own
        for site in out:
            site.problems = [*bad, *site.problems]
        return out or [PodSite("LeaderWorkerSet", {}, at, [], problems=bad)]
    return out
