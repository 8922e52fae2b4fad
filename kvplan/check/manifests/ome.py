"""OME (ome.io/v1beta1) ServingRuntime / ClusterServingRuntime: a template OME's controller
fills in for an InferenceService. From sgl-project/ome at 17b77edad23bae262e0c9adb7f12039397a5d33d:

- pkg/apis/ome/v1beta1/servingruntime_types.go `ServingRuntimeSpec`: supportedModelFormats
  (modelArchitecture, modelFormat, ...), modelSizeRange, engineConfig, decoderConfig,
  routerConfig, acceleratorRequirements (acceleratorClasses: OME AcceleratorClass objects).
- pkg/apis/ome/v1beta1/inference_service.go `EngineSpec` / `DecoderSpec`: a PodSpec inline
  (containers, nodeSelector, affinity, ...), `runner` (a corev1.Container: the server),
  `leader` / `worker` (multi-node); `RouterSpec` runs the router, no engine.
- pkg/controller/v1beta1/inferenceservice/components/base.go `UpdateEnvVariables`: OME adds
  MODEL_PATH (constants.ModelPathEnvVarKey) = the BaseModel's storage.path to the runner, so
  `$(MODEL_PATH)` is the weights of the BaseModel the InferenceService's spec.model names: not
  in this file. The model is read from the runner's own words only: a served name
  (`--served-model-name Qwen/Qwen3-8B`) that is a catalog model; else an ERROR naming the file
  that says it (the InferenceService's spec.model) and what to set here.

engineConfig's runner (with engineConfig.containers) is one engine; decoderConfig's, where
present, is the decode engine of a prefill/decode pair. A runtime is a template: one replica.
leader/worker (multi-node) runtimes are refused: kvplan does not read them yet.
"""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests.pods import PodSite, as_dict, containers
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key

KINDS = ("ServingRuntime", "ClusterServingRuntime")
GROUP = "ome.io"
# the weights' path: OME sets MODEL_PATH to the BaseModel's storage.path at render time
MODEL_PATH = "/<storage.path of the InferenceService's BaseModel>"
ELSEWHERE = ("OME hands this runtime the weights of the BaseModel an InferenceService names "
             "(its spec.model.name) as $(MODEL_PATH), so the InferenceService's file names the "
             "model, not this runtime; set the annotation kvplan.io/model (or a side file's "
             "model:) to that BaseModel's model")


def sites(data: dict[str, Any], doc: Doc) -> list[PodSite]:
    spec = as_dict(data.get("spec"))
    kind = str(data.get("kind"))
    notes = _notes(spec)
    out: list[PodSite] = []
    for group, (part, role) in enumerate((("engineConfig", "engine"),
                                          ("decoderConfig", "decoder"))):
        if part not in spec:
            continue
        cfg = as_dict(spec.get(part))
        at: Key = ("spec", part)
        if "leader" in cfg or "worker" in cfg:
            out.append(PodSite(kind, {}, at, [], group=group, name=role, problems=[Problem(
                f"{part}.leader", f"{part} runs a multi-node engine (leader / worker): kvplan "
                "does not read OME's multi-node runtimes yet; check the pods it renders "
                "(kubectl get pod -o yaml)", doc.line(*at))]))
            continue
        found = containers(cfg, at)
        runner = cfg.get("runner")
        if isinstance(runner, dict):
            runner = _with_model_path(runner)
            found.insert(0, (runner, (*at, "runner")))
        site = PodSite(kind, cfg, at, found, group=group, notes=list(notes),
                       name=role if "decoderConfig" in spec else None)
        site.model_elsewhere = ELSEWHERE
        if "decoderConfig" in spec:
            site.notes.append(f"{part}: the {'prefill' if role == 'engine' else 'decode'} "
                              "engine of a prefill/decode pair")
        out.append(site)
    if not out:
        out.append(PodSite(kind, {}, ("spec",), [], problems=[Problem(
            "engineConfig", "this runtime has no engineConfig: nothing runs an engine",
            doc.line("spec") or doc.start_line)]))
    return out


def _with_model_path(runner: dict[str, Any]) -> dict[str, Any]:
    """The runner as OME renders it: MODEL_PATH added to its env unless it sets one."""
    env = [e for e in runner.get("env") or [] if isinstance(e, dict)]
    if any(e.get("name") == "MODEL_PATH" for e in env):
        return runner
    return {**runner, "env": [*env, {"name": "MODEL_PATH", "value": MODEL_PATH}]}


def _notes(spec: dict[str, Any]) -> list[str]:
    notes = ["an OME serving runtime is a template: checked as one replica"]
    archs = sorted({str(f["modelArchitecture"]) for f in spec.get("supportedModelFormats") or []
                    if isinstance(f, dict) and f.get("modelArchitecture")})
    size = as_dict(spec.get("modelSizeRange"))
    if archs or size:
        said = f"models of {', '.join(archs)}" if archs else "models"
        if size:
            said += f" from {size.get('min', '?')} to {size.get('max', '?')} parameters"
        notes.append(f"the runtime serves {said} (supportedModelFormats, modelSizeRange)")
    classes = as_dict(spec.get("acceleratorRequirements")).get("acceleratorClasses")
    if classes:
        named = ", ".join(map(str, classes))
        notes.append(f"acceleratorRequirements names OME AcceleratorClasses ({named}), which kvplan "
                     "does not read: the GPU comes from a node label, --gpu or a side file")
    if "routerConfig" in spec:
        notes.append("routerConfig runs the router, no engine: not checked")
    return notes
