"""The compute dtype on the named GPU (task h81cc): what the engine refuses by the GPU's compute
capability (a FAIL before any arithmetic, with the engine's own reason and where its source
raises it) and what it changes (planned as the engine runs it, with a note). The rules are the
engines' (kvplan.engines.dtype_support); the GPU's compute capability is its hardware spec's."""

from __future__ import annotations

from kvplan.check.target import Target
from kvplan.units import parse_dtype

_FIELD = "engine.weight_dtype"


def apply_gpu_dtype(target: Target) -> None:
    """Add the engine's dtype refusal on the target's GPU to its refusals, or plan the dtype it
    falls back to, with a note; nothing where no GPU is named, the GPU's compute capability is
    not in the catalog, or the model or GPU cannot be read (plan_deployment's ERROR)."""
    dep = target.deployment
    if dep is None or not target.gpu_named:
        return
    from kvplan.deploy import Problem, resolve_gpu, resolve_model
    from kvplan.engines.dtype_support import dtype_on_gpu

    written = dep.engine.weight_dtype
    try:
        model = resolve_model(dep.model, target.base_dir)
        gpu = resolve_gpu(dep.hardware.gpu)
        stated = None if written in (None, "auto") else parse_dtype(str(written))
    except Exception:  # noqa: BLE001 - a bad model, GPU or dtype is plan_deployment's ERROR
        return
    if stated is not None and stated.bits < 16:
        return  # not a compute dtype: a quantized checkpoint's weights (kvplan.check.compute_dtype)
    found = dtype_on_gpu(dep.engine.name, dep.engine.version, stated, model, gpu)
    if found.refusal is not None:
        line = target.line_of(_FIELD) if written is not None and found.field == _FIELD else None
        target.refusals.append(Problem(target.field_name(found.field), found.refusal,
                                       line or target.line_of("hardware.gpu")))
    if found.dtype is not None:
        engine = dep.engine.model_copy(update={"weight_dtype": found.dtype.value})
        target.deployment = dep.model_copy(update={"engine": engine})
    if found.note is not None:
        target.notes.append(found.note)
