"""Mutation tests of kvplan/engines/vllm_extensible.py (task h71mut), by hand from the
vllm==0.34.0 lines the module cites: KV_CACHE_MARGIN_FLOOR_BYTES 1 GiB on CUDA and 3 GiB on ROCm,
KV_CACHE_MARGIN_FRACTION 0.75 (v1/worker/extensible_kv_cache.py:64-65); the utilization default
1.0 with the extensible cache, else DEFAULT_GPU_MEMORY_UTILIZATION 0.92 (config/cache.py:186,
:494-501); 0.9 before vLLM 0.20.

GiB = 1,073,741,824 B; kvplan's V1 CUDA context 350 - 70 MiB = 280 MiB = 293,601,280 B.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm_extensible import (
    ESTIMATED_UTIL_WHY,
    EXTENSIBLE_UTIL_WHY,
    applied_flavour,
    default_util,
    from_034,
    headroom,
    margin,
    record_util,
    util_why,
)
from kvplan.engines.vllm_series import UTIL_092_WHY, flavour
from kvplan.specs import load_hardware, load_model

GIB = 1_073_741_824


def test_margin() -> None:
    """max(floor, int(0.75 x peak)): 0 -> 1 GiB (3 GiB on ROCm); 4 GiB -> 3 GiB; 8 GiB on ROCm ->
    6 GiB; 1,431,655,767 B -> int(1,073,741,825.25) = 1,073,741,825, one byte above the floor;
    1,431,655,764 -> 1,073,741,823 -> the floor."""
    assert margin(0) == GIB
    assert margin(0, rocm=True) == 3 * GIB
    assert margin(4 * GIB) == 3 * GIB
    assert margin(8 * GIB, rocm=True) == 6 * GIB
    assert margin(2 * GIB, rocm=True) == 3 * GIB
    assert margin(1_431_655_767) == 1_073_741_825
    assert margin(1_431_655_764) == GIB


def test_headroom() -> None:
    """80 GiB (85,899,345,920 B) - 293,601,280 - 1 GiB = 84,532,002,816 B; less a TP set-up of
    220,594,176 B: 84,311,408,640; on ROCm with an 8 GiB peak (margin 6 GiB): 79,163,293,696."""
    assert headroom(80 * GIB, 0) == 84_532_002_816
    assert headroom(80 * GIB, 0, tp_setup=220_594_176) == 84_311_408_640
    assert headroom(80 * GIB, 8 * GIB, rocm=True) == 79_163_293_696
    assert headroom(80 * GIB, 0, True) == 80 * GIB - 293_601_280 - 3 * GIB


def test_flavour_rules() -> None:
    on, off = flavour("0.34.0"), replace(flavour("0.34.0"), extensible_kv=False)
    assert (default_util(on), default_util(off)) == (Fraction(1), Fraction(92, 100))
    assert default_util(flavour("0.33.0")) == Fraction(92, 100)
    assert default_util(flavour("0.19.0")) == Fraction(9, 10)
    assert (from_034(on), from_034(off), from_034(flavour("0.33.0"))) == (True, True, False)
    assert from_034(replace(on, v1=False)) is False
    assert from_034(flavour("0.34")) is True  # the release written as two numbers
    assert util_why(on) == EXTENSIBLE_UTIL_WHY
    assert util_why(off) == ESTIMATED_UTIL_WHY
    assert util_why(flavour("0.33.0")) == UTIL_092_WHY
    assert util_why(flavour("0.19.0")) == "flag (default 0.9)"
    assert EXTENSIBLE_UTIL_WHY == ("default (1.0 with vLLM 0.34's extensible KV cache, "
                                   "config/cache.py:494-501)")
    assert ESTIMATED_UTIL_WHY == ("default (0.92 in vLLM 0.34 without the extensible KV cache: "
                                  "DEFAULT_GPU_MEMORY_UTILIZATION, config/cache.py:186, :494-501)")


def test_applied_flavour() -> None:
    def applied(version: str, on: bool | None) -> bool:
        return applied_flavour(EngineSettings(engine=Engine.vllm, version=version,
                                              enable_extensible_kv_cache=on)).extensible_kv

    assert (applied("0.34.0", None), applied("0.34.0", True), applied("0.34.0", False)) == (
        True, True, False)
    assert applied("0.33.0", None) is False


def test_record_util() -> None:
    """The record's unstated utilization as the engine took it: 1.0 (0.34), 0.92 (0.34 with the
    cache off, 0.33); a stated field, another field and 0.19's 0.9 stay as they are."""
    req = SizeRequest(model=load_model("llama-3.1-8b"), gpu=load_hardware("h100"),
                      context_tokens=8192)
    fields = [("engine.gpu_memory_utilization", 0.9, "default"), ("engine.x", 1, "default"),
              ("engine.gpu_memory_utilization", 0.5, "record")]

    def recorded(version: str, on: bool | None = None,
                 util: Fraction | None = None) -> list[tuple[str, object, str]]:
        s = EngineSettings(engine=Engine.vllm, version=version, enable_extensible_kv_cache=on,
                           memory_fraction=util)
        return record_util(list(fields), run_engine(req, s))

    assert recorded("0.34.0") == [("engine.gpu_memory_utilization", 1.0, EXTENSIBLE_UTIL_WHY),
                                  *fields[1:]]
    assert recorded("0.34.0", False) == [
        ("engine.gpu_memory_utilization", 0.92, ESTIMATED_UTIL_WHY), *fields[1:]]
    assert recorded("0.33.0") == [("engine.gpu_memory_utilization", 0.92, UTIL_092_WHY),
                                  *fields[1:]]
    assert recorded("0.19.0") == fields
    assert recorded("0.34.0", util=Fraction(8, 10)) == fields
    # a result without the step (SGLang's: mem_fraction_static) leaves the fields alone
    sglang = run_engine(req, EngineSettings(engine=Engine.sglang, version="0.5.23"))
    assert not any(s.label == "gpu_memory_utilization" for s in sglang.steps)
    assert record_util(list(fields), sglang) == fields
