"""The compute dtype on the GPU a record names, for `size`, `explain` and `fleet` (task h82docs
found them skipping it where `--gpu` alone names the GPU): what the engine refuses by the GPU's
compute capability is said in a note and the plan goes on as if it started (check FAILs it);
what the engine changes (vLLM's float16 or float32 fallback, SGLang's float16) is planned, with
a note. The rules are the engines' (kvplan.engines.dtype_support), as kvplan.check.gpu_dtype
applies them to a manifest whose GPU it names."""

from __future__ import annotations

from pathlib import Path

from kvplan.deploy import Deployment
from kvplan.units import parse_dtype

_FIELD = "engine.weight_dtype"
_CACHE = "engine.kv_cache_dtype"


def record_dtype_on_gpu(dep: Deployment, base_dir: Path | None,
                        origins: dict[str, str]) -> tuple[Deployment, list[str]]:
    """The deployment as the engine runs it on its GPU, and the notes that say what changed or
    what the engine refuses; unchanged where the model, GPU or dtype cannot be read (the plan's
    own error says so), or the GPU's compute capability is not in the catalog."""
    from kvplan.deploy import resolve_gpu, resolve_model
    from kvplan.engine_traits import traits

    if not traits(dep.engine.name).compute_dtypes:
        return dep, []  # an engine whose dtype rules kvplan has not read (or none: the formula)
    written = dep.engine.weight_dtype
    try:
        gpu = resolve_gpu(dep.hardware.gpu)
        if gpu.capability is None or gpu.capability >= (8, 0):
            return dep, []  # bfloat16 runs: no rule applies (start-up stays light, test_imports)
        model = resolve_model(dep.model, base_dir)
        stated = None if written in (None, "auto") else parse_dtype(str(written))
    except Exception:  # noqa: BLE001 - a bad model, GPU or dtype is the plan's own error
        return dep, []
    from kvplan.engines.dtype_support import dtype_on_gpu

    if stated is not None and stated.bits < 16:
        return dep, []  # not a compute dtype: the weights of a quantized checkpoint
    found = dtype_on_gpu(dep.engine.name, dep.engine.version, stated, model, gpu)
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
