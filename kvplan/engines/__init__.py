"""Engine profiles: what vLLM, SGLang, TensorRT-LLM and transformers allocate at start-up."""

from __future__ import annotations

from collections.abc import Callable

from kvplan.capacity.plan import SizeRequest
from kvplan.engine_traits import SERVING
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


def default_release(engine: str) -> str | None:
    """The release a profile plans with when none is stated (its DEFAULT_VERSION); None for an
    engine without releases (ideal, transformers) or a name that is no engine."""
    if engine == Engine.vllm.value:
        from kvplan.engines.vllm_series import DEFAULT_VERSION as VLLM_DEFAULT

        return VLLM_DEFAULT
    if engine == Engine.sglang.value:
        from kvplan.engines.sglang_defaults import DEFAULT_VERSION as SGLANG_DEFAULT

        return SGLANG_DEFAULT
    if engine == Engine.trtllm.value:
        from kvplan.engines.trtllm import DEFAULT_VERSION as TRTLLM_DEFAULT

        return TRTLLM_DEFAULT
    return None


SERVING_ENGINES = tuple(Engine(name) for name in SERVING)  # kvplan.engine_traits


def run_engine(req: SizeRequest, settings: EngineSettings) -> EngineResult:
    """Size one request the way `settings.engine` would.

    A checkpoint published in float32 (Gemma-2-9B) is served in 16 bits by the serving engines
    when no dtype is stated: vLLM's and SGLang's `--dtype auto` turn float32 into bfloat16 or
    float16 (vLLM `_resolve_auto_dtype`, SGLang `ModelConfig`), and TensorRT-LLM builds 16-bit
    engines. transformers keeps the published dtype. The KV cache follows: `kv_cache_dtype auto`
    is the model's served dtype (vLLM gpu_model_runner: `if cache_config.cache_dtype == "auto":
    self.kv_cache_dtype = self.dtype`), so a float32 cache that only came from the published dtype
    is served in the same 16 bits (Gemma-2-9B, log 81: 54.12 GiB / 168,880 tokens = 344,064 B = 42
    layers x 8 KV heads x 256 x 2 x 2 B)."""
    from dataclasses import replace

    from kvplan.units import DType

    auto16 = (settings.engine in SERVING_ENGINES and req.weight_dtype is None
              and req.model.weight_dtype is DType.fp32)
    if auto16:
        kv = DType.bf16 if req.kv_dtype is DType.fp32 else req.kv_dtype
        req = replace(req, weight_dtype=DType.bf16, kv_dtype=kv)
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
