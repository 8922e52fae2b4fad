"""Settings an engine refuses at start-up for a given model (what `kvplan check` FAILs on before
any arithmetic, naming the setting): pure, from the model spec and the engine block."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvplan.errors import InputError

if TYPE_CHECKING:
    from kvplan.deploy.schema import Deployment
    from kvplan.specs.schema import ModelSpec


def engine_refusals(model: ModelSpec, dep: Deployment) -> list[tuple[str, str]]:
    """(field, why) for each flag the deployment's engine would refuse for `model` (empty: it
    would start)."""
    from kvplan.capacity.parallel import tp_problem
    from kvplan.engines.vllm_flag_versions import missing_flags

    e, tp, ep = dep.engine, dep.parallel.tensor, dep.parallel.expert
    out: list[tuple[str, str]] = missing_flags(e)
    if e.name == "vllm" and e.limit_mm_per_prompt is not None and not model.params_encoder:
        out.append(("engine.limit_mm_per_prompt", "vLLM refuses --limit-mm-per-prompt for a "
                    f"text-only model: {model.name} has no encoder (\"limit_mm_per_prompt is "
                    "only supported for multimodal models\"); drop it"))
    if ep is not None and ep > 1:
        if model.moe is None:
            out.append(("parallel.expert",
                        f"expert parallelism {ep}: {model.name} has no experts; drop it"))
        elif model.moe.num_experts % ep:
            out.append(("parallel.expert", f"expert parallelism {ep} does not divide "
                        f"{model.name}'s {model.moe.num_experts} experts"))
    if e.name == "vllm" and e.speculative_model is not None:
        from kvplan.deploy.engine_block import draft_spec

        try:
            draft = draft_spec(e.speculative_model)
        except InputError:
            return out  # an ERROR from kvplan.deploy: the draft is not in the catalog
        problem = tp_problem(draft, tp)
        if problem is not None:
            out.append(("engine.speculative_model", f"the draft model {draft.name}: {problem}; "
                        "vLLM shards the draft with the target's tensor parallelism"))
    return out
