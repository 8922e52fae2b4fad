"""The `engine:` block of a kvplan/v1 deployment file, as engine settings."""

from __future__ import annotations

from kvplan.deploy.schema import Engine as EngineBlock
from kvplan.engines.interface import Engine, EngineSettings, parse_engine, parse_version
from kvplan.errors import InputError
from kvplan.units import exact


def check_engine_block(block: EngineBlock) -> None:
    """Reject an engine block kvplan cannot model (raises InputError naming the field)."""
    engine = parse_engine(block.name)
    if block.version is not None and engine not in (Engine.ideal, Engine.transformers):
        try:
            parse_version(block.version)
        except InputError as err:
            raise InputError(f"engine.version: {err}") from None


def deployment_engine_settings(block: EngineBlock) -> EngineSettings | None:
    """None for `ideal` (the plain arithmetic); else the profile's settings.

    gpu_memory_utilization counts only when the file sets it; otherwise each engine uses its own
    default (vLLM 0.9 of total, SGLang's mem_fraction_static by TP, TensorRT-LLM 0.9 of free).
    """
    engine = parse_engine(block.name)
    if engine is Engine.ideal:
        return None
    explicit = "gpu_memory_utilization" in block.model_fields_set
    return EngineSettings(
        engine=engine,
        version=block.version,
        memory_fraction=exact(block.gpu_memory_utilization) if explicit else None,
        max_num_batched_tokens=block.max_num_batched_tokens,
        max_num_seqs=block.max_num_seqs,
    )
