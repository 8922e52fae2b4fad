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


# kvplan/v1 `engine:` keys this module reads beyond the schema's current ones, with the
# EngineSettings field each sets (GiB keys are converted to bytes). The schema (kvplan/deploy)
# must declare them; until it does, getattr finds none and they stay at the engine's default.
EXTRA_KEYS = {
    "enforce_eager": "enforce_eager",
    "kv_cache_memory_bytes": "kv_cache_memory_bytes",
    "cpu_offload_gb": "cpu_offload_bytes",
    "limit_mm_per_prompt": "limit_mm_per_prompt",
    "draft_params": "draft_params",
    "page_size": "page_size_tokens",
    "tokens_per_block": "page_size_tokens",
    "chunked_prefill_size": "chunked_prefill_size",
    "cuda_graph_max_bs": "cuda_graph_max_bs",
    "max_running_requests": "max_running_requests",
    "max_batch_size": "max_batch_size",
    "max_num_tokens": "max_num_batched_tokens",
    "max_tokens_in_paged_kv_cache": "max_tokens",
    "max_total_tokens": "max_tokens",
}


def extra_settings(block: object) -> dict[str, object]:
    """The EngineSettings fields the block's extra keys set (None values left out)."""
    from kvplan.units import GIB

    out: dict[str, object] = {}
    for key, field in EXTRA_KEYS.items():
        value = getattr(block, key, None)
        if value is None:
            continue
        if key == "cpu_offload_gb":
            value = int(float(value) * GIB)
        if field in out and out[field] != value:
            raise InputError(f"engine.{key}: conflicts with another key setting {field}")
        out[field] = value
    return out


def deployment_engine_settings(block: EngineBlock) -> EngineSettings | None:
    """None for `ideal` (the plain arithmetic); else the profile's settings.

    gpu_memory_utilization counts only when the file sets it; otherwise each engine uses its own
    default (vLLM 0.9 of total, SGLang's mem_fraction_static by TP, TensorRT-LLM 0.9 of free).
    A key that does not apply to the named engine is refused (EngineSettings.check).
    """
    engine = parse_engine(block.name)
    if engine is Engine.ideal:
        return None
    explicit = "gpu_memory_utilization" in block.model_fields_set
    settings = EngineSettings(
        engine=engine,
        version=block.version,
        memory_fraction=exact(block.gpu_memory_utilization) if explicit else None,
        max_num_batched_tokens=block.max_num_batched_tokens,
        max_num_seqs=block.max_num_seqs,
        **extra_settings(block),  # type: ignore[arg-type]
    )
    try:
        settings.check()
    except InputError as err:
        raise InputError(f"engine: {err}") from None
    return settings
