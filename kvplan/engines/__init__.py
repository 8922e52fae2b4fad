"""Engine profiles: what vLLM, SGLang, TensorRT-LLM and transformers allocate at start-up."""

from __future__ import annotations

from collections.abc import Callable

from kvplan.capacity.plan import SizeRequest
from kvplan.engines.interface import (
    Engine,
    EngineResult,
    EngineSettings,
    Measured,
    Step,
    parse_engine,
    verify_steps,
)

Profile = Callable[[SizeRequest, EngineSettings], EngineResult]


def profile_for(engine: Engine) -> Profile:
    """The profile function of one engine (imported lazily: each module is small)."""
    if engine is Engine.ideal:
        from kvplan.engines import ideal

        return ideal.profile
    if engine is Engine.vllm:
        from kvplan.engines import vllm

        return vllm.profile
    if engine is Engine.sglang:
        from kvplan.engines import sglang

        return sglang.profile
    if engine is Engine.trtllm:
        from kvplan.engines import trtllm

        return trtllm.profile
    if engine is Engine.transformers:
        from kvplan.engines import transformers

        return transformers.profile
    raise AssertionError(f"engine {engine} has no profile")  # pragma: no cover


SERVING_ENGINES = (Engine.vllm, Engine.sglang, Engine.trtllm)


def run_engine(req: SizeRequest, settings: EngineSettings) -> EngineResult:
    """Size one request the way `settings.engine` would.

    A checkpoint published in float32 (Gemma-2-9B) is served in 16 bits by the serving engines
    when no dtype is stated: vLLM's and SGLang's `--dtype auto` turn float32 into bfloat16 or
    float16 (vLLM `_resolve_auto_dtype`, SGLang `ModelConfig`), and TensorRT-LLM builds 16-bit
    engines. transformers keeps the published dtype."""
    from dataclasses import replace

    from kvplan.units import DType

    auto16 = (settings.engine in SERVING_ENGINES and req.weight_dtype is None
              and req.model.weight_dtype is DType.fp32)
    if auto16:
        req = replace(req, weight_dtype=DType.bf16)
    result = profile_for(settings.engine)(req, settings)
    if auto16:
        note = (f"{req.model.name} is published in float32; {settings.engine.value} serves it in 16 "
                "bits when no dtype is given (--dtype auto)")
        result = replace(result, assumptions=(*result.assumptions, note))
    return result


__all__ = [
    "Engine",
    "EngineResult",
    "EngineSettings",
    "Measured",
    "Step",
    "parse_engine",
    "profile_for",
    "run_engine",
    "verify_steps",
]
