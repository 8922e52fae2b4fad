"""OME documents read together in one `kvplan check` run: the BaseModels / ClusterBaseModels
and serving runtimes an InferenceService names, or that a runtime is checked with. From
sgl-project/ome at 17b77edad23bae262e0c9adb7f12039397a5d33d:

- pkg/apis/ome/v1beta1/inference_service.go `InferenceServiceSpec`: model (`ModelRef`: name,
  kind BaseModel | ClusterBaseModel, default ClusterBaseModel) and runtime (`ServingRuntimeRef`:
  name, kind ServingRuntime | ClusterServingRuntime), both by metadata.name.
- pkg/apis/ome/v1beta1/model.go `BaseModelSpec`: storage (storageUri `hf://org/name`, path),
  modelArchitecture, modelParameterSize. pkg/controller/v1beta1/basemodel/controller.go (line
  763) fills modelArchitecture from the checkpoint's config.json when the file leaves it unset:
  kvplan stands in with the catalog model the storageUri names (its model_type).
- pkg/runtimeselector/matcher.go `IsCompatible`: a runtime serves a model when one of its
  supportedModelFormats matches (`compareSupportedModelFormats`: modelArchitecture equal) and
  the model's size is within modelSizeRange (`checkModelSize`, bounds inclusive).

A runtime without an InferenceService is paired with the run's BaseModel that fits it when
exactly one does; the model is then the BaseModel's hub repository (what $(MODEL_PATH) holds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kvplan.check.manifests.run_scope import RunScope, mapping_documents
from kvplan.deploy.yamldoc import Doc

GROUP = "ome.io"
MODEL_KINDS = ("BaseModel", "ClusterBaseModel")
RUNTIME_KINDS = ("ServingRuntime", "ClusterServingRuntime")
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMBT]?)\s*$", re.IGNORECASE)
_SCALE = {"": 1, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}


@dataclass
class BaseModel:
    """One BaseModel / ClusterBaseModel document of the run."""

    kind: str
    name: str
    path: Path
    line: int
    spec: dict[str, Any]

    @property
    def hub(self) -> str | None:
        """The hub repository storage.storageUri names (hf://org/name), else None."""
        uri = str((self.spec.get("storage") or {}).get("storageUri", ""))
        return uri.removeprefix("hf://") if uri.startswith("hf://") else None

    def where(self) -> str:
        return f"{self.kind} {self.name} ({self.path}, line {self.line})"


@dataclass
class Runtime:
    kind: str
    name: str
    path: Path
    doc: Doc


@dataclass
class Run:
    models: list[BaseModel] = field(default_factory=list)
    runtimes: list[Runtime] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    @property
    def model_files(self) -> set[Path]:
        return {m.path for m in self.models}


def collect(files: list[Path]) -> Run:
    run = Run(files=list(files))
    for path, doc in mapping_documents(files, GROUP + "/"):
        data = doc.data
        if str(data.get("apiVersion", "")).split("/", 1)[0] != GROUP:
            continue
        kind = str(data.get("kind", ""))
        meta = data["metadata"] if isinstance(data.get("metadata"), dict) else {}
        name = str(meta.get("name", ""))
        spec: dict[str, Any] = data["spec"] if isinstance(data.get("spec"), dict) else {}
        if kind in MODEL_KINDS and name:
            run.models.append(BaseModel(kind, name, path, doc.start_line, spec))
        elif kind in RUNTIME_KINDS and name:
            run.runtimes.append(Runtime(kind, name, path, doc))
    return run


def parse_size(text: Any) -> float | None:
    """OME's size words (7B, 1.5T, 650B) as a parameter count; None when unreadable."""
    m = _SIZE.match(str(text))
    return float(m[1]) * _SCALE[m[2].upper()] if m else None


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


# model_type -> the checkpoint's architectures[0] where the two differ: OME's controller fills
# modelArchitecture from config.json's architectures and modelType from its model_type
# (pkg/controller/v1beta1/basemodel, updateSpecWithConfig), and the runtime selector compares the
# architecture, so a Kimi-K2 BaseModel (model_type kimi_k2, architectures [DeepseekV3ForCausalLM]:
# moonshotai/Kimi-K2-Instruct config.json, fixture tests/assets/hf_configs/kimi-k2.json) fits a
# runtime of DeepseekV3ForCausalLM; its weights stay the catalog's Kimi-K2 (the storageUri's
# repository), never DeepSeek-V3 (task h44checkgaps). gemma3_text: google/gemma-3-1b-it
# config.json (fixture gemma-3-1b.json), Gemma3ForCausalLM.
ARCHITECTURE_OF_TYPE = {"kimi_k2": "DeepseekV3ForCausalLM", "gemma3_text": "Gemma3ForCausalLM"}


def architecture_of(model: BaseModel) -> tuple[str | None, float | None]:
    """(architecture key, parameters) of a BaseModel: its own modelArchitecture and
    modelParameterSize where the file sets them, else the catalog model its storageUri names
    (model_type, params_total): what OME's controller reads from the checkpoint's config.json."""
    from kvplan.errors import InputError
    from kvplan.specs.resolve import resolve_model

    arch = model.spec.get("modelArchitecture")
    size = parse_size(model.spec["modelParameterSize"]) if model.spec.get(
        "modelParameterSize") else None
    key = _norm(_strip_head(str(arch))) if arch else None
    if (key is None or size is None) and model.hub:
        try:
            spec = resolve_model(model.hub, allow_hub=False).spec
        except InputError:
            return key, size
        key = key or _norm(_strip_head(ARCHITECTURE_OF_TYPE.get(spec.model_type or "", ""))
                           or spec.model_type or "")
        size = size or float(spec.params_total or 0) or None
    return key, size


def _strip_head(arch: str) -> str:
    """Qwen3ForCausalLM -> Qwen3: transformers names an architecture after its model_type."""
    for tail in ("ForCausalLM", "ForConditionalGeneration", "LMHeadModel", "Model"):
        if arch.endswith(tail) and arch != tail:
            return arch[: -len(tail)]
    return arch


def fits(runtime_spec: dict[str, Any], model: BaseModel) -> bool:
    """matcher.go IsCompatible, as far as the files tell: an architecture of
    supportedModelFormats equals the model's, and its size is within modelSizeRange."""
    key, size = architecture_of(model)
    listed = runtime_spec.get("supportedModelFormats") or []
    if not isinstance(listed, list):  # the runtime's own reading refuses it with an ERROR
        return False
    formats = [f for f in listed if isinstance(f, dict)]
    archs = {_norm(_strip_head(str(f["modelArchitecture"]))) for f in formats
             if f.get("modelArchitecture")}
    if archs and key not in archs:
        return False
    bounds = runtime_spec.get("modelSizeRange")
    if isinstance(bounds, dict) and size is not None:
        low, high = parse_size(bounds.get("min", "")), parse_size(bounds.get("max", ""))
        if (low is not None and size < low) or (high is not None and size > high):
            return False
    return True


def models_for(runtime_spec: dict[str, Any]) -> list[BaseModel]:
    """The run's BaseModels this runtime can serve."""
    return [m for m in current().models if fits(runtime_spec, m)]


_SCOPE: RunScope[Run] = RunScope("ome_run", Run(), collect)
# the OME models and runtimes among `files`: `run_of(files)` makes them `current()` while the
# files are checked
current, run_of = _SCOPE.current, _SCOPE.of
