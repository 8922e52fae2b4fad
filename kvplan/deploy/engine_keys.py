"""Which engine reads which engine.<key>: the keys one engine alone reads, and the ones each
engine never reads (noted when stated, refused as a flag)."""

from __future__ import annotations

# engine settings an engine never reads (so a stated one is noted, and a flag refused): the
# profiles model their activations (no reserve) and their own allocation; transformers fixes
# its page size (one page per sequence). Settings of one engine only are read by that engine.
_FIXED = ("reserve_gib", "allocation", "block_size")
ENGINE_KEYS: dict[str, tuple[str, ...]] = {  # engine.<key> -> the engines that read it
    "enforce_eager": ("vllm",),
    "kv_cache_memory_bytes": ("vllm",),
    "cpu_offload_gb": ("vllm",),
    "limit_mm_per_prompt": ("vllm",),
    "speculative_model": ("vllm", "sglang"),
    "num_speculative_tokens": ("vllm",),
    "cuda_graph_max_bs": ("sglang",),
    "max_total_tokens": ("sglang",),
    "attention_backend": ("sglang",),
    "mm_feature_transport": ("sglang",),
    "moe_dense_tp_size": ("sglang",),
    "enable_dp_lm_head": ("sglang",),
    "moe_a2a_backend": ("sglang",),
    "speculative_algorithm": ("sglang",),
    "speculative_num_steps": ("sglang",),
    "speculative_eagle_topk": ("sglang",),
    "speculative_num_draft_tokens": ("sglang",),
    "tp_transport": ("vllm",),
    "disable_custom_all_reduce": ("vllm",),
    "disable_hybrid_kv_cache_manager": ("vllm",),
    "chunked_local_hybrid": ("vllm",),
    "topk_topp_sampler": ("vllm",),
    "entrypoint": ("vllm",),
    "enable_extensible_kv_cache": ("vllm",),
    "cudagraph_capture_sizes": ("vllm",),
    "max_cudagraph_capture_size": ("vllm",),
    "cudagraph_mode": ("vllm",),
    "max_tokens_in_paged_kv_cache": ("trtllm",),
    "trtllm_config": ("trtllm",),
    "trt_activation_bytes": ("trtllm",),
    "trtllm_backend": ("trtllm",),
    # the plain arithmetic's stated pool, vLLM's --kv-cache-memory-bytes; the other profiles
    # size their own pool (task h90review: SGLang's ignored a stated 60 GiB in silence)
    "kv_budget_gib": ("ideal", "vllm"),
}
_ENGINES = ("ideal", "vllm", "sglang", "trtllm", "transformers")
_OWN = {e: tuple(k for k, engines in ENGINE_KEYS.items() if e not in engines) for e in _ENGINES}
UNUSED_BY = {
    "ideal": ("version", "max_num_batched_tokens", *_OWN["ideal"]),
    "vllm": ("reserve_gib", "allocation", *_OWN["vllm"]),
    "sglang": ("reserve_gib", "allocation", *_OWN["sglang"]),
    "trtllm": ("reserve_gib", "allocation", *_OWN["trtllm"]),
    "transformers": (*_FIXED, "max_num_batched_tokens", *_OWN["transformers"]),
}


def reads(engine: str, key: str) -> bool:
    """Whether `engine` reads engine.<key>, a key one engine alone reads (ENGINE_KEYS)."""
    return engine in ENGINE_KEYS[key]


def unused_reason(engine: str, key: str | None = None) -> str:
    if key == "tp_transport":
        from kvplan.engines.refusals import transport_unread

        return f"only vllm reads it, not {engine}: {transport_unread(engine)}"
    if key == "kv_budget_gib":
        return (f"only ideal and vllm read it (vllm as --kv-cache-memory-bytes), not {engine}: "
                "it sizes its own KV pool; give --memory-utilization to move it")
    if key in ENGINE_KEYS:
        engines = ENGINE_KEYS[key]
        return f"only {' and '.join(engines)} {'reads' if len(engines) == 1 else 'read'} it, not {engine}"
    if engine == "ideal":
        return "read only by an engine profile (vllm, sglang, trtllm, transformers)"
    return f"the {engine} profile sets this itself (activations, allocation, page size)"
