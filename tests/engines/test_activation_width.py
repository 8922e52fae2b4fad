"""Activation element width follows the serving dtype (task actwidth).

vLLM builds the layers under `set_default_torch_dtype(model_config.dtype)` (0.30.0
model_executor/model_loader/base_loader.py:66) and its runner takes `self.dtype =
self.model_config.dtype` (v1/worker/gpu/model_runner.py:205), so `--dtype float32` runs the
profiled forward pass in 4-byte elements; fp8 / int4 checkpoints still compute in 16 bits.
"""

from __future__ import annotations

from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.activation import serving_act_bytes
from kvplan.units import DType
from tests.engines.profile_requests import req

SETTINGS = EngineSettings(engine=Engine.vllm, max_num_batched_tokens=2048, max_num_seqs=16,
                          enforce_eager=True, version="0.31.0")


def test_element_width_per_served_dtype() -> None:
    assert serving_act_bytes(DType.fp32) == 4
    assert [serving_act_bytes(d) for d in (DType.bf16, DType.fp16, DType.fp8, DType.int4)] == [2] * 4


def test_fp32_plan_doubles_the_forward_peak_of_the_bf16_plan() -> None:
    # Qwen2.5-0.5B (config.json): hidden 896, intermediate 4864, 14 heads, 2 KV heads, head_dim 64.
    # Elements a token at TP 1: 3 x 896 + max(MLP 3 x 4864 = 14,592, attention
    # (14 + 2 x 2 + 14) x 64 = 2,048) = 2,688 + 14,592 = 17,280.
    # bf16: 2,048 tokens x 17,280 x 2 B = 70,778,880; fp32: x 4 B = 141,557,760 (the sampler,
    # 16 rows x 151,936 x 2 B = 4.9 MB, is smaller in both).
    fp32 = run_engine(req("qwen2.5-0.5b", ctx=2048, weight_dtype=DType.fp32,
                          kv_dtype=DType.fp32), SETTINGS)
    bf16 = run_engine(req("qwen2.5-0.5b", ctx=2048, weight_dtype=DType.bf16,
                          kv_dtype=DType.fp32), SETTINGS)
    assert bf16.activation_bytes == 70_778_880
    assert fp32.activation_bytes == 141_557_760
    # Same KV dtype and settings, so the pools differ by the weights difference plus the
    # activation difference, 141,557,760 - 70,778,880 = 70,778,880 B.
    weights = fp32.weights_bytes - bf16.weights_bytes
    assert bf16.kv_cache_bytes - fp32.kv_cache_bytes == weights + 70_778_880


def _sampler_peak(version: str, dtype: DType) -> tuple[int, int]:
    s = EngineSettings(engine=Engine.vllm, max_num_batched_tokens=2048, max_num_seqs=1024,
                       enforce_eager=True, version=version)
    r = run_engine(req("qwen2.5-0.5b", ctx=2048, weight_dtype=dtype, kv_dtype=DType.fp32), s)
    return r.activation_bytes, r.activation_bytes_high


def test_model_runner_v2_logits_take_the_model_dtype() -> None:
    # 1,024 rows x 151,936 vocab = 155,582,464 logits; the forward pass (2,048 x 17,280 x 2 or
    # 4 B, at most 141,557,760) is smaller, so the sampler sets the peak.
    # 0.26-0.32 (untouched logits): the logits alone, 2 B in bf16, 4 B in fp32; the high end
    # adds the fp32 copy (6 / 8 B) and COMPILE_SLACK 268,435,456.
    assert _sampler_peak("0.31.0", DType.bf16) == (311_164_928, 933_494_784 + 268_435_456)
    assert _sampler_peak("0.31.0", DType.fp32) == (622_329_856, 1_244_659_712 + 268_435_456)
    # 0.22-0.25: the logits and their fp32 copy (empty_like(..., float32).copy_, a copy even
    # from fp32): 2 + 4 = 6 B in bf16, 4 + 4 = 8 B in fp32.
    assert _sampler_peak("0.25.0", DType.bf16)[0] == 155_582_464 * 6 == 933_494_784
    assert _sampler_peak("0.25.0", DType.fp32)[0] == 155_582_464 * 8 == 1_244_659_712


def test_v1_sampler_before_model_runner_v2_stays_fp32() -> None:
    # 0.19: Sampler.forward casts to fp32 and sorts (4 + 4 + 8 = 16 B) whatever the model dtype.
    assert _sampler_peak("0.19.0", DType.bf16) == _sampler_peak("0.19.0", DType.fp32)
    assert _sampler_peak("0.19.0", DType.fp32)[0] == 155_582_464 * 16 == 2_489_319_424
