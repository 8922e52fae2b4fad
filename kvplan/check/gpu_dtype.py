"""The compute dtype on the named GPU (task h81cc): what the engine refuses by the GPU's compute
capability (a FAIL before any arithmetic, with the engine's own reason and where its source
raises it) and what it changes (planned as the engine runs it, with a note). The rules are the
engines' (kvplan.engines.dtype_support); the GPU's compute capability is its hardware spec's."""

from __future__ import annotations

from kvplan.check.target import Target

_FIELD = "engine.weight_dtype"


def apply_gpu_dtype(target: Target) -> None:
    """Add the engine's dtype refusal on the target's GPU to its refusals, or plan the dtype it
    falls back to, with a note; nothing where no GPU is named, the GPU's compute capability is
    not in the catalog, or the model or GPU cannot be read (plan_deployment's ERROR)."""
    dep = target.deployment
    if dep is None or not target.gpu_named:
        return
    from kvplan.deploy import Problem
    from kvplan.plan.gpu_dtype import rule_on

    ruled = rule_on(dep, target.base_dir)
    if ruled is None:
        return
    found, _ = ruled
    written = dep.engine.weight_dtype
    if found.refusal is not None:
        line = target.line_of(_FIELD) if written is not None and found.field == _FIELD else None
        target.refusals.append(Problem(target.field_name(found.field), found.refusal,
                                       line or target.line_of("hardware.gpu")))
    if found.dtype is not None:
        engine = dep.engine.model_copy(update={"weight_dtype": found.dtype.value})
        target.deployment = dep.model_copy(update={"engine": engine})
    if found.note is not None:
        target.notes.append(found.note)
