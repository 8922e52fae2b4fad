"""vLLM's `gpu_memory_utilization` default by release, read in the wheels: 0.9 until 0.19.1
(config/cache.py:41 in 0.19.0 and 0.19.1, `Field(default=0.9, ...)`), 0.92 from 0.20.0
(config/cache.py:66: "If unspecified, will use the default value of 0.92"; the LLM class too,
entrypoints/llm.py:231) through 0.33.0 (:215); 0.34 resolves it by its extensible KV cache (1.0,
kvplan.engines.vllm_extensible). Log 257 (0.31.0 at defaults) prints "Desired GPU memory
utilization is (0.92, 72.91 GiB)"."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kvplan.capacity.plan import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm_series import flavour
from kvplan.specs import load_hardware, load_model

H100 = load_hardware("h100")  # 85,045,477,376 B


@pytest.mark.parametrize(("version", "util"), [
    ("0.6.4", Fraction(9, 10)), ("0.11.0", Fraction(9, 10)), ("0.19.1", Fraction(9, 10)),
    ("0.20.0", Fraction(92, 100)), ("0.28.0", Fraction(92, 100)), ("0.33.0", Fraction(92, 100)),
])
def test_the_default_by_release(version: str, util: Fraction):
    assert flavour(version).default_utilization == util


def _requested(version: str, fraction: Fraction | None = None) -> int:
    req = SizeRequest(model=load_model("llama-3.1-8b"), gpu=H100, context_tokens=8192)
    res = run_engine(req, EngineSettings(engine=Engine.vllm, version=version,
                                         memory_fraction=fraction))
    return int(next(s.value for s in res.steps if s.label == "requested memory"))


def test_requested_memory_follows_the_release():
    """floor(85,045,477,376 x 0.92) = 78,241,839,185 B on 0.31.0; x 0.9 = 76,540,929,638 B on
    0.19.1; a stated 0.9 is kept on 0.31.0."""
    assert _requested("0.31.0") == 78_241_839_185
    assert _requested("0.19.1") == 76_540_929_638
    assert _requested("0.31.0", Fraction(9, 10)) == 76_540_929_638
