"""vLLM's options that a plan may never read, refused with the reason (kvplan.plan.moot calls
`moot_refusals` through kvplan.engine_traits; these were `engine == "vllm"` branches there until
task h49engines): the top-k/top-p sampler outside the releases whose profile sorts, the
offline entry point where it moves nothing, and --disable-hybrid-kv-cache-manager on a model
without both sliding-window and full-attention layers (task h91fp8block) or where vLLM turns the
manager off by itself (Llama 4's chunked layers; task h100vllmhyb, with --chunked-local-hybrid
where it cannot matter)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def moot_refusals(dep: Any, req: Any, refuse: Callable[[str, str], None]) -> None:
    """Call `refuse(field, why)` for each vLLM setting of `dep` that cannot change this plan
    (`req`, the resolved request)."""
    if dep.engine.topk_topp_sampler is not None:
        from kvplan.engines.vllm_series import flavour
        from kvplan.engines.vllm_sort_sampler import sorts_in_profile, unused_reason

        fl = flavour(dep.engine.version)
        why = unused_reason(fl.version, fl.v1, False, None, None)
        if why is not None:
            fix = ("drop the option" if sorts_in_profile(fl.version) else
                   "add --engine-version 0.10.0 (0.10.0-0.16.x) or drop the option")
            refuse("engine.topk_topp_sampler", f"{why}; {fix}")
    if dep.engine.entrypoint == "offline":
        from kvplan.engines.vllm_entrypoint import moot_reason

        why = moot_reason(dep.engine.version, req, dep.engine.max_num_batched_tokens)
        if why is not None:
            refuse("engine.entrypoint", why)
    if dep.engine.chunked_local_hybrid is not None:
        from kvplan.engines.vllm_hybrid_off import env_moot
        from kvplan.engines.vllm_series import flavour

        fl = flavour(dep.engine.version)
        why = env_moot(req.model, fl.version, fl.v1)
        if why is None and dep.engine.disable_hybrid_kv_cache_manager:
            why = ("--disable-hybrid-kv-cache-manager turns the manager off whatever the "
                   "environment variable says")
        if why is not None:
            refuse("engine.chunked_local_hybrid", f"{why}; drop the option")
    if dep.engine.disable_hybrid_kv_cache_manager is False:
        from kvplan.engines.vllm_hybrid_off import chunked_off, explicit_refusal
        from kvplan.engines.vllm_series import flavour

        fl = flavour(dep.engine.version)
        allow = dep.engine.chunked_local_hybrid
        why = explicit_refusal(req.model, fl.version, fl.v1, False, allow)
        if why is None and (off := chunked_off(req.model, fl.version, fl.v1, allow)):
            why = (f"{off}; before 0.13.0 --no-disable-hybrid-kv-cache-manager is a plain "
                   "bool this rule overrides, so it changes nothing; drop it")
        if why is not None:
            refuse("engine.disable_hybrid_kv_cache_manager", why)
    if dep.engine.disable_hybrid_kv_cache_manager:
        from kvplan.engines.vllm_groups import unify_refusal
        from kvplan.specs.schema import LayerKind

        kinds = set(req.model.layer_kinds())
        refused = unify_refusal(req.model)
        if refused is not None:
            refuse("engine.disable_hybrid_kv_cache_manager", refused)
        elif not {LayerKind.full, LayerKind.sliding} <= kinds:
            refuse("engine.disable_hybrid_kv_cache_manager", (
                f"{req.model.name} has no sliding-window layers beside full-attention ones, "
                "so vLLM's unify_hybrid_kv_cache_specs changes nothing "
                "(v1/core/kv_cache_utils.py:1160-1210 in 0.19.1) and the plan is the same; "
                "drop the option"))
        elif dep.engine.chunked_local_hybrid is None:
            from kvplan.engines.vllm_hybrid_off import chunked_off
            from kvplan.engines.vllm_series import flavour

            fl = flavour(dep.engine.version)
            if (why := chunked_off(req.model, fl.version, fl.v1, None)) is not None:
                refuse("engine.disable_hybrid_kv_cache_manager",
                       f"{why}, so the option changes nothing; drop it")
