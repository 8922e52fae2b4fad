"""KServe InferenceService (spec.predictor.model, a runtime's container, or
spec.predictor.containers) and ServingRuntime / ClusterServingRuntime (a template: one
replica). The huggingface runtime adds options of its own, so unknown options are noted."""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.pods import PodSite, as_dict, containers
from kvplan.deploy.yamldoc import Doc, Key

KINDS = ("InferenceService", "ServingRuntime", "ClusterServingRuntime")


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    spec = as_dict(data.get("spec"))
    if data.get("kind") != "InferenceService":
        site = PodSite(str(data.get("kind")), spec, ("spec",), containers(spec, ("spec",)))
        site.notes.append("a serving runtime is a template: checked as one replica")
        return [site]
    pred = as_dict(spec.get("predictor"))
    at: Key = ("spec", "predictor")
    replicas = pred.get("minReplicas", 1)
    replicas_at = (*at, "minReplicas") if "minReplicas" in pred else None
    found = containers(pred, at)
    lenient = False
    if isinstance(pred.get("model"), dict):
        found.insert(0, (pred["model"], (*at, "model")))
        lenient = True  # the huggingface runtime takes vLLM's options and its own
    site = PodSite("InferenceService", pred, at, found, replicas, replicas_at, lenient=lenient)
    site.notes.append("checked at minReplicas (KServe scales up from there)")
    return [site]
