"""After a refusal, the rest of the deployment: a failure never hides the others (task h72mix).

An option the engine refuses is a FAIL before any arithmetic (kvplan.check._refused): the engine
would not start, so no capacity figure is given. The plan is still run on the deployment with
the refused options left out (the engine would not start with them anyway), so that an ERROR
the plan raises (a GPU or model kvplan cannot resolve, a deployment without a GPU count, an
engine setting kvplan cannot model) is said on the same run, marked as found with the refused
options left out; the outcome is then that ERROR with the refusals "refused too", as
task h71sglfix says a reader's ERROR. Where the refused value is the deployment's own shape
(parallelism, node count, context length: kvplan.check.startup.shape_refusals, a manifest's
option that sets one) nothing is planned without it: the GPU's name is still resolved, and
what was not checked is said.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kvplan.check.outcome import ERROR, Outcome
from kvplan.check.target import Target
from kvplan.deploy import DeploymentError, Problem, plan_deployment

LEFT_OUT = "with the refused option left out"
_WHY = "the engine would not start with it anyway"


# what places or sizes the engine (kvplan.check.manifests.option_fields' fields): a refused one
# cannot be left out, as the plan would then ask for what it stated (task h72mix: `--nnodes 3`
# refused, the plan without it said "state the node count")
_SHAPE_FIELDS = {"parallel.tensor", "parallel.pipeline", "parallel.expert", "dp", "dp_local",
                 "attn_dp", "expert_parallel", "engine.max_model_len"}


def shape_option(flag: str) -> bool:
    """Whether a refused option of a manifest sets the deployment's shape: its parallelism, its
    node count, or its context length."""
    from kvplan.check.manifests.node_options import NODE_OPTIONS
    from kvplan.check.manifests.option_fields import FIELDS

    name = flag.split("=", 1)[0]
    return name in NODE_OPTIONS or name == "--enable-dp-attention" or any(
        table.get(name, ("", ""))[0] in _SHAPE_FIELDS for table in FIELDS.values())


def _without(dep: Any, fields: list[str]) -> Any:
    """The deployment with each refused `engine.X` / `parallel.X` field unset."""
    for path in dict.fromkeys(fields):
        block, _, key = path.partition(".")
        if block not in ("engine", "parallel") or not key:
            continue
        part = getattr(dep, block)
        dep = dep.model_copy(update={block: part.model_copy(update={key: None})})
    return dep


def _marked(problems: list[Problem]) -> list[Problem]:
    return [Problem(p.field, f"{p.message} (found {LEFT_OUT}: {_WHY})", p.line)
            for p in problems]


def _as_error(out: Outcome, refused: list[Problem], problems: list[Problem]) -> Outcome:
    """The plan's ERROR, with what the engine refuses said beside it (as task h71sglfix)."""
    from kvplan.check import _error

    out.verdict, out.refused = ERROR, refused
    return _error(out, _marked(problems))


def plan_left_out(out: Outcome, target: Target, refused: list[Problem], dropped: list[str],
                  shaped: bool) -> Outcome:
    """`out` (a refusal's FAIL) with the plan's own findings on the rest of the deployment."""
    from kvplan.check import _engine_refuses_input, count_problem
    from kvplan.deploy import resolve_gpu

    dep = target.deployment
    assert dep is not None
    shaped = shaped or any(shape_option(p.field) for p in refused if p.field)
    if shaped:  # parallelism, nodes or context: the deployment's shape itself
        if target.gpu_named:
            try:
                resolve_gpu(dep.hardware.gpu)
            except Exception as err:  # noqa: BLE001 - said as the plan says it
                return _as_error(out, refused, [Problem(target.field_name("hardware.gpu"),
                                                        str(err), target.line_of("hardware"))])
        out.notes.append("not checked: the weights and the KV pool; the engine refuses the "
                         "deployment's own shape (its parallelism, nodes or context length), "
                         "which cannot be left out to plan the rest")
        return out
    dep = _without(dep, dropped)
    if dep.hardware.count is None:
        return _as_error(out, refused, [count_problem(target)])
    try:
        planned = plan_deployment(dep, target.file, target.base_dir, target.doc,
                                  attention_dp=target.attention_dp, node_gpus=target.node_gpus)
    except DeploymentError as err:
        return _as_error(out, refused, target.renamed(err.items))
    cannot = _engine_refuses_input(planned)
    if cannot is not None:
        return _as_error(out, refused, [Problem(target.field_name("engine.name"), cannot,
                                                target.line_of("engine"))])
    out.notes.extend(f"{LEFT_OUT}: {n}" for n in planned.notes)
    if not target.gpu_named:
        from kvplan.check.manifests.wording import no_gpu_named

        out.notes.append(f"{LEFT_OUT}: no GPU named, so where it would start was not checked "
                         f"({no_gpu_named(target.kind, Path(target.file))})")
    return out
