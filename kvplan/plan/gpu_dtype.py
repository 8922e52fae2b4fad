"""The compute dtype on the GPU a record names, for `size`, `explain` and `fleet` (task h82docs
found them skipping it where `--gpu` alone names the GPU): what the engine refuses by the GPU's
compute capability is said in a note and the plan goes on as if it started (check FAILs it);
what the engine changes (vLLM's float16 or float32 fallback, SGLang's float16, TensorRT-LLM's
float16 for auto) is planned, with a note. The rules are the engines'
(kvplan.engines.dtype_support), as kvplan.check.gpu_dtype applies them to a manifest whose GPU it
names."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kvplan.deploy import Deployment
from kvplan.units import DType, parse_dtype

if TYPE_CHECKING:
    from kvplan.engines.dtype_support import DtypeOnGpu
    from kvplan.specs.schema import HardwareSpec, ModelSpec

_FIELD = "engine.weight_dtype"
_CACHE = "engine.kv_cache_dtype"


def stated_compute_dtype(written: str | None) -> tuple[bool, DType | None]:
    """(whether the engines' compute-dtype rules apply, the stated compute dtype: None for
    `auto`). They do not apply to a dtype below 16 bits (a quantized checkpoint's weights, not a
    compute dtype) or one that does not parse (the plan's own error says so)."""
    if written in (None, "auto"):
        return True, None
    try:
        stated = parse_dtype(str(written))
    except ValueError:
        return False, None
    return stated.bits >= 16, stated


def rule_on(dep: Deployment, base_dir: Path | None, model: ModelSpec | None = None,
            gpu: HardwareSpec | None = None) -> tuple[DtypeOnGpu, HardwareSpec] | None:
    """What the deployment's engine does with its compute dtype on its GPU (or `gpu`), with that
    GPU; None where no rule can apply: an engine whose rules kvplan has not read (traits'
    gpu_dtype_rules; or none, the formula), a GPU at compute capability 8.0 or above or without
    one in the catalog (checked before kvplan.engines is imported: `size` starts light,
    tests/test_imports.py), a dtype below 16 bits, or a model, GPU or dtype that cannot be read
    (the plan's own error)."""
    from kvplan.deploy import resolve_gpu, resolve_model
    from kvplan.engine_traits import traits

    applies, stated = stated_compute_dtype(dep.engine.weight_dtype)
    if not applies or not traits(dep.engine.name).gpu_dtype_rules:
        return None
    try:
        gpu = gpu or resolve_gpu(dep.hardware.gpu)
        if gpu.capability is None or gpu.capability >= (8, 0):
            return None  # bfloat16 runs: no rule applies
        model = model or resolve_model(dep.model, base_dir)
    except Exception:  # noqa: BLE001 - a bad model or GPU is the plan's own error
        return None
    from kvplan.engines.dtype_support import dtype_on_gpu

    return dtype_on_gpu(dep.engine.name, dep.engine.version, stated, model, gpu), gpu


def record_dtype_on_gpu(dep: Deployment, base_dir: Path | None,
                        origins: dict[str, str]) -> tuple[Deployment, list[str]]:
    """The deployment as the engine runs it on its GPU, and the notes that say what changed or
    what the engine refuses; unchanged where no rule applies (rule_on)."""
    ruled = rule_on(dep, base_dir)
    if ruled is None:
        return dep, []
    found, gpu = ruled
    notes = []
    if found.refusal is not None:
        notes.append(f"{found.refusal}; planned as if it started (`kvplan check` FAILs such a "
                     "deployment)")
    if found.dtype is not None:
        update = {"weight_dtype": found.dtype.value}
        if found.dtype.bits > 16 and origins.get(_CACHE, "default") == "default":
            # the command line's 16-bit default cache stands for the engine's auto, which is
            # the model dtype it now runs: float32 (kvplan.deploy._kv_dtype)
            update["kv_cache_dtype"] = "auto"
            origins[_CACHE] = f"planned: the engine's auto, the model's dtype on {gpu.name}"
        engine = dep.engine.model_copy(update=update)
        dep = dep.model_copy(update={"engine": engine})
        origins[_FIELD] = f"planned: the engine's dtype on {gpu.name}"
    if found.note is not None:
        notes.append(found.note)
    return dep, notes
