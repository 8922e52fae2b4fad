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


def run_engine(req: SizeRequest, settings: EngineSettings) -> EngineResult:
    """Size one request the way `settings.engine` would."""
    return profile_for(settings.engine)(req, settings)


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
