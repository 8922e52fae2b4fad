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

Multi-node runtimes (`leader` + `worker` in engineConfig / decoderConfig) render a
LeaderWorkerSet: the leader pod and `worker.size` worker pods run one engine, read as the LWS
reader reads one (kvplan.check.manifests.leaderworkerset: the leader's runner, pods per engine
= 1 + worker.size, GPUs a pod from the runner's resources). OME and LWS hand the runner its
parallel layout through the environment, which kvplan sets as they do:

- components/engine.go `getWorkerSize` (worker.size, default 0) and
  `setParallelismEnvVarForEngine` (decoder.go `setParallelismEnvVarForDecoder` alike):
  PARALLELISM_SIZE = GPUs of the runner x (1 leader + worker.size), set only when no
  AcceleratorClass is selected (an acceleratorRequirements runtime is left to that class).
- reconcilers/lws/lws_reconciler.go `createLWS` (line 74): the LeaderWorkerSet's size is
  worker.size + 1, its leader template the leader pod, its worker template the worker pod.
- kubernetes-sigs/lws at 47a6181f092baa7be1475a75480fa717ca4d5647,
  api/leaderworkerset/v1/leaderworkerset_types.go (LwsLeaderAddress, LwsGroupSize,
  LwsWorkerIndex: env added to every container of a group): LWS_GROUP_SIZE = 1 + worker.size,
  LWS_WORKER_INDEX = 0 on the leader ("The leader also gets a workerIndex, and it is always
  set to 0"; its runner is the server kvplan reads), LWS_LEADER_ADDRESS = the leader's address.

The weights: when the run holds exactly one BaseModel this runtime can serve (see
kvplan.check.manifests.ome_run), $(MODEL_PATH) is that BaseModel's hub repository.
"""

from __future__ import annotations

from typing import Any

from kvplan.check.manifests import ome_run
from kvplan.check.manifests.pods import PodSite, as_dict, containers
from kvplan.check.manifests.shapes import typed
from kvplan.deploy import Problem
from kvplan.deploy.yamldoc import Doc, Key

KINDS = ("ServingRuntime", "ClusterServingRuntime")
GROUP = "ome.io"
SCHEMA = "OME ServingRuntimeSpec"
# the weights' path: OME sets MODEL_PATH to the BaseModel's storage.path at render time
MODEL_PATH = "/<storage.path of the InferenceService's BaseModel>"
ELSEWHERE = ("OME hands this runtime the weights of the BaseModel an InferenceService names "
             "(its spec.model.name) as $(MODEL_PATH), so the InferenceService's file names the "
             "model, not this runtime; set the annotation kvplan.io/model (or a side file's "
             "model:) to that BaseModel's model")


def sites(data: dict[str, Any], doc: Doc,
          model: ome_run.BaseModel | None = None) -> list[PodSite]:
    """The engines of a runtime; `model` is the BaseModel an InferenceService names (else the
    run's one BaseModel that fits, if any)."""
    spec = as_dict(data.get("spec"))
    kind = str(data.get("kind"))
    formats = spec.get("supportedModelFormats")
    mistyped = [] if formats is None or isinstance(formats, list) else [Problem(
        "spec.supportedModelFormats", "must be a list of model formats (OME "
        f"ServingRuntimeSpec), got {str(formats)[:40]!r}; write it as a list, or remove it",
        doc.line("spec", "supportedModelFormats"))]
    # acceleratorRequirements decides whether OME sets PARALLELISM_SIZE: a non-mapping is named
    typed(spec, "acceleratorRequirements", ("spec",), doc, mistyped, SCHEMA)
    notes = _notes(spec)
    model_path, model_note, elsewhere = _weights(spec, model)
    if model_note:
        notes.append(model_note)
    out: list[PodSite] = []
    for group, (part, role) in enumerate((("engineConfig", "engine"),
                                          ("decoderConfig", "decoder"))):
        if part not in spec:
            continue
        own: list[Problem] = []
        cfg = typed(spec, part, ("spec",), doc, own, SCHEMA)
        at: Key = ("spec", part)
        multi = "leader" in cfg or "worker" in cfg
        site = (_multi_node(cfg, at, kind, doc, part, spec, model_path) if multi
                else _single(cfg, at, kind, model_path))
        site.group, site.notes = group, [*notes, *site.notes]
        site.problems = [*mistyped, *own, *site.problems]
        site.name = role if "decoderConfig" in spec else None
        site.model_elsewhere = elsewhere
        if "decoderConfig" in spec:
            site.notes.append(f"{part}: the {'prefill' if role == 'engine' else 'decode'} "
                              "engine of a prefill/decode pair")
        out.append(site)
    if not out:
        out.append(PodSite(kind, {}, ("spec",), [], problems=[Problem(
            "engineConfig", "this runtime has no engineConfig: nothing runs an engine",
            doc.line("spec") or doc.start_line)]))
    return out


def _weights(spec: dict[str, Any], model: ome_run.BaseModel | None
             ) -> tuple[str, str, str]:
    """(what $(MODEL_PATH) stands for, a note, the ERROR's advice when it names no model)."""
    if model is None:
        fitting = ome_run.models_for(spec)
        if len(fitting) == 1:
            model = fitting[0]
        elif len(fitting) > 1:
            named = ", ".join(m.where() for m in fitting)
            return MODEL_PATH, "", (f"several BaseModels checked with it fit this runtime "
                                    f"({named}): check the InferenceService that names one")
    if model is None:
        return MODEL_PATH, "", ELSEWHERE
    if model.hub is None:
        uri = (model.spec.get("storage") or {}).get("storageUri")
        return MODEL_PATH, "", (f"{model.where()} holds the weights, but its storageUri "
                                f"{uri!r} is not a Hugging Face repository (hf://org/name); set "
                                "the annotation kvplan.io/model (or a side file's model:) to the "
                                "model it holds")
    return model.hub, (f"$(MODEL_PATH) holds {model.where()}: storageUri hf://{model.hub}"), ""


def _single(cfg: dict[str, Any], at: Key, kind: str, model_path: str) -> PodSite:
    found = containers(cfg, at)
    runner = cfg.get("runner")
    if isinstance(runner, dict):
        found.insert(0, (_with_env(runner, {"MODEL_PATH": model_path}), (*at, "runner")))
    return PodSite(kind, cfg, at, found)


def _multi_node(cfg: dict[str, Any], at: Key, kind: str, doc: Doc, part: str,
                spec: dict[str, Any], model_path: str) -> PodSite:
    """The leader pod of a leader/worker engine: the LWS group of 1 + worker.size pods."""
    problems: list[Problem] = []
    leader = typed(cfg, "leader", at, doc, problems, SCHEMA)
    worker = typed(cfg, "worker", at, doc, problems, SCHEMA)
    size = worker.get("size", 0)
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        problems.append(Problem(f"{part}.worker.size", f"{size!r} is not a count of worker "
                                "pods", doc.line(*at, "worker", "size")))
        size = 0
    pods = 1 + size
    pod_at: Key = (*at, "leader")
    runner = leader.get("runner") if "leader" in cfg else worker.get("runner")
    if "leader" not in cfg:
        pod_at = (*at, "worker")
    env = {"MODEL_PATH": model_path, "LWS_GROUP_SIZE": str(pods), "LWS_WORKER_INDEX": "0",
           "LWS_LEADER_ADDRESS": "<leader>"}
    notes = [f"{part} runs one engine over a group of {pods} pods (OME's leader + worker.size "
             f"{size}, rendered as a LeaderWorkerSet)"]
    gpus = _gpus(runner)
    if gpus is not None and not as_dict(spec.get("acceleratorRequirements")):
        env["PARALLELISM_SIZE"] = str(gpus * pods)
        notes.append(f"PARALLELISM_SIZE = {gpus} GPUs a pod x {pods} pods = {gpus * pods} "
                     "(OME's setParallelismEnvVarForEngine)")
    worker_gpus = _gpus(worker.get("runner"))
    if gpus is not None and worker_gpus is not None and worker_gpus != gpus and size:
        problems.append(Problem(f"{part}.worker", f"the worker's runner has {worker_gpus} GPUs "
                                f"and the leader's {gpus}: kvplan plans one engine over equal "
                                "pods", doc.line(*at, "worker", "runner")))
    found = containers(leader or worker, pod_at)
    if isinstance(runner, dict):
        found.insert(0, (_with_env(runner, env), (*pod_at, "runner")))
    else:
        problems.append(Problem(f"{part}.leader.runner", f"{part}'s leader has no runner: "
                                "nothing runs the engine", doc.line(*pod_at) or doc.line(*at)))
    site = PodSite(kind, leader or worker, pod_at, found, pods_per_engine=pods, notes=notes,
                   problems=problems)
    return site


def _gpus(runner: Any) -> int | None:
    """The runner's GPU count (limits, else requests), as isvcutils.GetGpuCountFromContainer."""
    res = as_dict(as_dict(runner).get("resources"))
    for block in ("limits", "requests"):
        for key in ("nvidia.com/gpu", "amd.com/gpu"):
            value = as_dict(res.get(block)).get(key)
            if value is not None and str(value).isdigit():
                return int(str(value))
    return None


def _with_env(runner: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    """The runner as OME renders it: its env plus what OME and LWS add, unless it sets them."""
    env = [e for e in runner.get("env") or [] if isinstance(e, dict)]
    have = {str(e.get("name")) for e in env}  # a name of the wrong type: the shape check's
    added = [{"name": k, "value": v} for k, v in values.items() if k not in have]
    return {**runner, "env": [*env, *added]} if added else runner


def _notes(spec: dict[str, Any]) -> list[str]:
    notes = ["an OME serving runtime is a template: checked as one replica"]
    formats = spec.get("supportedModelFormats")
    archs = sorted({str(f["modelArchitecture"]) for f in (
        formats if isinstance(formats, list) else []) if isinstance(f, dict)
        and f.get("modelArchitecture")})
    size = as_dict(spec.get("modelSizeRange"))
    if spec.get("modelSizeRange") is not None and not size:  # said, never a silent skip
        notes.append(f"spec.modelSizeRange must be a mapping (min, max: OME ServingRuntimeSpec), "
                     f"got {spec['modelSizeRange']!r:.40}; write it as min: and max:, or remove "
                     "it (not read: it does not move the plan)")
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
