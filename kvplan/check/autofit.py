"""vLLM's `--max-model-len auto` (KAITO passes it for every vLLM Workspace): the engine starts
with the model's own context when one such sequence fits the KV pool, else with the longest
context that does. vllm==0.25.1 wheel, vllm/v1/core/kv_cache_utils.py
`_auto_fit_max_model_len` (called from `get_kv_cache_configs` when original_max_model_len is
-1): a binary search over 1..the model's length for the longest whose
`max_memory_usage_bytes` fits the memory left for the KV cache (`estimate_max_model_len`);
none (not one token) raises "Cannot auto-fit max_model_len" and the engine stops.

kvplan checks the deployment at the model's own context first (max_model_len unset); where one
sequence does not fit but the pool holds some, it checks again at the longest context that fits
(Numbers.longest_context_tokens, kvplan's pool over the per-GPU bytes of a token), the context
vLLM would pick, and says so.
"""

from __future__ import annotations

from typing import Any

from kvplan.check.startup import startup
from kvplan.check.target import Target


def auto_fit(target: Target, planned: Any, notes: list[str]) -> Any:
    """The planned deployment at the context vLLM's auto-fit picks; notes what it picked."""
    from kvplan.deploy import plan_deployment

    dep = target.deployment
    assert dep is not None
    if dep.engine.max_model_len is not None or dep.hardware.count is None:
        return planned
    full = planned.request.context_tokens
    n = startup(planned, dep.hardware.count, target.engines_per_pod).numbers
    if n.would_start:
        notes.append(f"--max-model-len auto: the model's own {full:,} tokens fit the KV pool")
        return planned
    longest = n.longest_context_tokens or 0
    if n.limited_by == "weights" or n.kv_pool_bytes <= 0 or longest <= 0:
        return planned  # vLLM stops ("Cannot auto-fit max_model_len"): the FAIL says why
    engine = dep.engine.model_copy(update={"max_model_len": longest})
    dep = dep.model_copy(update={"engine": engine})
    target.deployment = dep
    notes.append(f"--max-model-len auto: {full:,} tokens do not fit the KV pool, so vLLM "
                 f"shortens the context to the longest that fits, {longest:,} tokens (checked "
                 "at that length)")
    return plan_deployment(dep, target.file, target.base_dir, target.doc,
                           attention_dp=target.attention_dp, node_gpus=target.node_gpus)
