"""The `engine:` block of a kvplan/v1 deployment file, as engine settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvplan.engines.interface import Engine, EngineSettings, parse_engine, parse_version
from kvplan.errors import InputError
from kvplan.units import exact

if TYPE_CHECKING:  # kvplan.deploy imports this module: no import at run time
    from kvplan.deploy.schema import Engine as EngineBlock


def check_engine_block(block: EngineBlock) -> None:
    """Reject an engine block kvplan cannot model (raises InputError naming the field)."""
    engine = parse_engine(block.name)
    if block.version is not None and engine not in (Engine.ideal, Engine.transformers):
        try:
            parse_version(block.version)
        except InputError as err:
            raise InputError(f"engine.version: {err}") from None


# kvplan/v1 `engine:` keys read by one engine, with the EngineSettings field each sets (GiB
# keys are converted to bytes). kvplan.deploy.ENGINE_KEYS says which engine reads which; a key
# given with another engine is noted there (a file) or refused (a flag).
EXTRA_KEYS = {
    "enforce_eager": "enforce_eager",
    "kv_cache_memory_bytes": "kv_cache_memory_bytes",
    "cpu_offload_gb": "cpu_offload_bytes",
    "limit_mm_per_prompt": "limit_mm_per_prompt",
    "num_speculative_tokens": "num_speculative_tokens",
    "cuda_graph_max_bs": "cuda_graph_max_bs",
    "max_tokens_in_paged_kv_cache": "max_tokens",
    "max_total_tokens": "max_tokens",
    "trt_activation_bytes": "trt_activation_bytes",
    "attention_backend": "attention_backend",
    "mm_feature_transport": "mm_feature_transport",
    "moe_dense_tp_size": "moe_dense_tp_size",
    "enable_dp_lm_head": "enable_dp_lm_head",
    "moe_a2a_backend": "moe_a2a_backend",
    "speculative_algorithm": "speculative_algorithm",
    "speculative_num_steps": "speculative_num_steps",
    "speculative_eagle_topk": "speculative_eagle_topk",
    "speculative_num_draft_tokens": "speculative_num_draft_tokens",
    "trtllm_backend": "trtllm_backend",
    "tp_transport": "tp_transport",
    "disable_custom_all_reduce": "disable_custom_all_reduce",
    "disable_hybrid_kv_cache_manager": "disable_hybrid_kv_cache_manager",
    "chunked_local_hybrid": "chunked_local_hybrid",
    "topk_topp_sampler": "topk_topp_sampler",
    "entrypoint": "entrypoint",
    "enable_extensible_kv_cache": "enable_extensible_kv_cache",
    "cudagraph_capture_sizes": "cudagraph_capture_sizes",
    "max_cudagraph_capture_size": "max_cudagraph_capture_size",
    "cudagraph_mode": "cudagraph_mode",
}
# boolean keys whose false is not the engine's default (vLLM 0.34's extensible KV cache is on
# unless turned off), so false is passed on
FALSE_MEANS_OFF = {"enable_extensible_kv_cache"}
# the vLLM-named keys other engines read under their own names (kvplan.deploy.schema.Engine)
RENAMED = {
    "sglang": {"max_num_seqs": "max_running_requests",
               "max_num_batched_tokens": "chunked_prefill_size", "block_size": "page_size_tokens"},
    "trtllm": {"max_num_seqs": "max_batch_size", "block_size": "page_size_tokens"},
}


def extra_settings(block: object, engine: str | None = None) -> dict[str, object]:
    """The EngineSettings fields the block's engine-specific keys set (None values left out);
    with `engine`, only the keys that engine reads (kvplan.deploy.ENGINE_KEYS)."""
    from kvplan.deploy import ENGINE_KEYS
    from kvplan.units import GIB

    out: dict[str, object] = {}
    for key, field in EXTRA_KEYS.items():
        value = getattr(block, key, None)
        if value is None or (value is False and key not in FALSE_MEANS_OFF):
            continue
        if engine is not None and engine not in ENGINE_KEYS.get(key, (engine,)):
            continue
        if key == "cpu_offload_gb":
            value = int(float(value) * GIB)
        if field in out and out[field] != value:
            raise InputError(f"engine.{key}: conflicts with another key setting {field}")
        out[field] = value
    return out


def deployment_engine_settings(block: EngineBlock, cap_sequences: bool = False,
                               ) -> EngineSettings | None:
    """None for `ideal` (the plain arithmetic); else the profile's settings.

    gpu_memory_utilization counts only when the file sets it; otherwise each engine uses its own
    default (vLLM 0.9 of total, SGLang's mem_fraction_static by TP, TensorRT-LLM 0.9 of free).
    max_num_seqs, max_num_batched_tokens and a stated block_size are read under each engine's
    own name (RENAMED); `cap_sequences` lets the profiles (vLLM's too) cap the users
    at max_num_seqs (size, fleet, explain), where `kvplan check` applies that cap itself (its
    verdict names it and suggests raising it). Keys of another engine are left out
    (kvplan.deploy notes or refuses them); a draft model is resolved through the shared
    resolver (kvplan.specs.resolve).
    """
    engine = parse_engine(block.name)
    if engine is Engine.ideal:
        return None
    explicit = "gpu_memory_utilization" in block.model_fields_set
    fields: dict[str, object] = {"max_num_batched_tokens": block.max_num_batched_tokens,
                                 "max_num_seqs": block.max_num_seqs}
    renamed = RENAMED.get(engine.value, {})
    for key, field in renamed.items():
        if key == "block_size" and key not in block.model_fields_set:
            continue  # the schema's 16 is vLLM's default, not this engine's
        if key == "max_num_seqs" and not cap_sequences:
            if engine is Engine.sglang and block.max_num_seqs is not None:
                fields["max_running_requests"] = block.max_num_seqs
                fields["check_caps_users"] = True
            continue
        fields.pop(key, None)
        fields[field] = getattr(block, key)
    fields.update(extra_settings(block, engine.value))
    speculative = getattr(block, "speculative_model", None)
    if engine in (Engine.vllm, Engine.sglang) and speculative is not None:
        from kvplan.deploy.engine_block import draft_spec

        draft = draft_spec(speculative)
        fields["draft_model"] = draft
        if engine is Engine.vllm:  # SGLang's profile reads the spec (kvplan.engines.sglang_spec)
            fields["draft_params"] = draft.params_total
    if isinstance(fields.get("cudagraph_capture_sizes"), str):
        from kvplan.engines.vllm_capture import parse_sizes

        try:
            fields["cudagraph_capture_sizes"] = parse_sizes(str(fields["cudagraph_capture_sizes"]))
        except ValueError:
            raise InputError("engine.cudagraph_capture_sizes: not whole numbers of 1 or more, "
                             f"comma- or space-separated: {fields['cudagraph_capture_sizes']!r}"
                             ) from None
    if engine is Engine.vllm and cap_sequences and block.max_num_seqs is not None:
        fields["cap_max_num_seqs"] = True
    settings = EngineSettings(
        engine=engine,
        version=block.version,
        memory_fraction=exact(block.gpu_memory_utilization) if explicit else None,
        enforce_eager=bool(fields.pop("enforce_eager", False)),
        **fields,  # type: ignore[arg-type]
    )
    try:
        settings.check()
    except InputError as err:
        raise InputError(f"engine: {err}") from None
    return settings
