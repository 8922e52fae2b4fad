"""OME `InferenceService` (ome.io/v1beta1): a model (BaseModel / ClusterBaseModel) served by a
runtime (ServingRuntime / ClusterServingRuntime), both named by metadata.name in other files.
From sgl-project/ome at 17b77edad23bae262e0c9adb7f12039397a5d33d:

- pkg/apis/ome/v1beta1/inference_service.go `InferenceServiceSpec`: model (`ModelRef` name,
  kind), runtime (`ServingRuntimeRef` name, kind; absent: OME's runtime selector picks one the
  model fits, pkg/runtimeselector), engine / decoder (`EngineSpec` / `DecoderSpec`: minReplicas,
  maxReplicas, and a runner / leader / worker that override the runtime's,
  components/engine.go `MergeRuntimeArgumentsOverride`).
- the engine is the runtime's (kvplan.check.manifests.ome), with $(MODEL_PATH) the named
  BaseModel's weights; spec.engine.minReplicas (default 1) replicas of it.

Both the runtime's and the model's files must be among the files checked in the same run
(kvplan.check.manifests.ome_run); a missing one is an ERROR naming it. Overrides of the
runtime's containers are refused: kvplan does not merge them yet.
"""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests import ome, ome_run
from kvplan.check.manifests.pods import PodSite, as_dict
from kvplan.check.manifests.shapes import typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key

KINDS = ("InferenceService",)
GROUP = "ome.io"
TOGETHER = ("check its file in the same run (kvplan check inferenceservice.yaml runtime.yaml "
            "basemodel.yaml, or their folder)")


def _refused(doc: Doc, at: Key, field: str, message: str) -> list[PodSite]:
    return [PodSite("InferenceService", {}, at, [], problems=[
        Problem(field, message, doc.line(*at) or doc.start_line)])]


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    spec = as_dict(data.get("spec"))
    run = ome_run.current()
    bad: list[Problem] = []  # a model, runtime, engine or decoder block of the wrong type
    for key in ("model", "runtime", "engine", "decoder"):
        typed(spec, key, ("spec",), doc, bad, "OME InferenceServiceSpec")
    if bad:
        return [PodSite("InferenceService", {}, ("spec",), [], problems=bad)]
    ref = as_dict(spec.get("model"))
    name = str(ref.get("name", ""))
    if not name:
        return _refused(doc, ("spec",), "spec.model", "this InferenceService names no model "
                        "(spec.model.name): OME serves a BaseModel or ClusterBaseModel by name")
    kind = ref.get("kind")
    models = [m for m in run.models if m.name == name and (kind is None or m.kind == kind)]
    if not models:
        return _refused(doc, ("spec", "model", "name"), "spec.model.name", (
            f"the model is {kind or 'ClusterBaseModel'} {name!r}, whose file is not among the "
            f"files checked ({_among(run)}): {TOGETHER}"))
    model = models[0]
    rt = as_dict(spec.get("runtime"))
    if rt.get("name"):
        rname, rkind = str(rt["name"]), rt.get("kind")
        runtimes = [r for r in run.runtimes if r.name == rname and (rkind is None
                                                                     or r.kind == rkind)]
        if not runtimes:
            return _refused(doc, ("spec", "runtime", "name"), "spec.runtime.name", (
                f"the runtime is {rkind or 'ServingRuntime or ClusterServingRuntime'} "
                f"{rname!r}, whose file is not among the files checked ({_among(run)}): "
                f"{TOGETHER}"))
        runtime, how = runtimes[0], "spec.runtime"
    else:
        fitting = [r for r in run.runtimes
                   if ome_run.fits(as_dict(r.doc.data.get("spec")), model)]
        if len(fitting) != 1:
            said = (f"several runtimes checked with it fit {model.where()} ("
                    + ", ".join(f"{r.kind} {r.name}" for r in fitting) + "): name one in "
                    "spec.runtime.name" if fitting else
                    f"no runtime among the files checked fits {model.where()} (OME's runtime "
                    "selector would pick one in the cluster): name it in spec.runtime.name and "
                    f"{TOGETHER}")
            return _refused(doc, ("spec", "model", "name"), "spec.runtime", said)
        runtime, how = fitting[0], "OME's runtime selector (the one runtime checked that fits)"
    problems = [Problem(f"spec.{part}.{key}", f"spec.{part}.{key} overrides the runtime's "
                        "containers: kvplan does not merge OME's overrides yet; check the pods "
                        "it renders (kubectl get pod -o yaml)", doc.line("spec", part, key))
                for part in ("engine", "decoder") for key in ("runner", "leader", "worker")
                if key in as_dict(spec.get(part))]
    out = []
    rdata = runtime.doc.data
    for site in ome.sites(rdata, runtime.doc, model):
        _rebase(site, runtime.doc)
        site.kind = "InferenceService"
        part = "decoder" if site.name == "decoder" else "engine"
        site.replicas, site.replicas_at = _replicas(as_dict(spec.get(part)), part,
                                                     site.notes)
        site.notes = [n for n in site.notes if not n.startswith("an OME serving runtime is a "
                                                                "template")]
        site.notes.insert(0, f"the runtime is {runtime.kind} {runtime.name} ({runtime.path}; "
                          f"by {how}): its lines are that file's")
        site.problems = [*problems, *site.problems]
        out.append(site)
    return out


def _among(run: ome_run.Run) -> str:
    n = len(run.files)
    return f"{n} file{'s' if n != 1 else ''}"


def _rebase(site: PodSite, rdoc: Doc) -> None:
    """The runtime's keys moved under ("__runtime__",) with that file's lines, so they do not
    collide with the InferenceService's own keys."""
    head: Key = ("__runtime__",)
    site.pod_at = (*head, *site.pod_at)
    site.containers = [(c, (*head, *at)) for c, at in site.containers]
    site.lines = {(*head, *k): v for k, v in rdoc.lines.items()}


def _replicas(part: dict[str, Any], name: str, notes: list[str]) -> tuple[Any, Key | None]:
    """spec.engine.minReplicas (OME's default 1): the replicas it starts with."""
    low = part.get("minReplicas", 1)
    high = part.get("maxReplicas")
    if isinstance(low, int) and low == 0:
        notes.append(f"spec.{name}.minReplicas 0 (scale to zero): checked as the first replica")
        return 1, ("spec", name, "minReplicas")
    upto = f" (scales up to maxReplicas {high})" if high is not None else ""
    notes.append(f"checked at spec.{name}.minReplicas {low}{upto}")
    return low, (("spec", name, "minReplicas") if "minReplicas" in part else None)
