"""The engines' shared pieces: run_engine's 16-bit serving of float32 checkpoints, the
modelled weights below 16 bits and MXFP4, the pipeline stage's cached layers, and the activation
peak. Each expected value is worked by hand in the comments.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/common.py,
activation.py, encoder_cache.py and __init__.py (split from test_engines_interface.py).
"""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.activation import COMPILE_SLACK, activation_peak, forward_elements_per_token
from kvplan.engines.common import is_mxfp4, quantized, stage_shape, weights_bytes
from kvplan.engines.interface import Interval
from kvplan.specs import load_model
from kvplan.units import GIB, DType
from tests.mutants.engine_runs import H100, LLAMA

# vLLM adds its rotary cos/sin cache (task h39rope): gemma-2-9b's 8,192 positions x head_dim 256 x
# 2 B = 4,194,304 B (kept at 2 B with a stated fp32 too: kvplan prices the served dtype's buffers
# at 2 B).
ROTARY_GEMMA2_9B = 8_192 * 256 * 2


@pytest.mark.parametrize(("engine", "weights", "noted"), [
    (Engine.vllm, 9_241_705_984 * 2 + ROTARY_GEMMA2_9B, True),
    (Engine.sglang, 9_241_705_984 * 2 + 64 * 2**20, True),
    (Engine.trtllm, 9_241_705_984 * 2, True), (Engine.transformers, 9_241_705_984 * 4, False),
    (Engine.ideal, 9_241_705_984 * 4, False)])
def test_a_float32_checkpoint_is_served_in_16_bits_by_the_serving_engines(
        engine: Engine, weights: int, noted: bool):
    req = SizeRequest(model=load_model("gemma-2-9b"), gpu=H100, context_tokens=4096)
    r = run_engine(req, EngineSettings(engine=engine))
    assert r.weights_bytes == weights
    note = ("gemma-2-9b is published in float32; " + engine.value + " serves it in 16 bits when "
            "no dtype is given (--dtype auto)")
    assert (note in r.assumptions) is noted
    if noted:
        assert r.assumptions[-1] == note and r.size.request.weight_dtype is DType.bf16
    # a stated dtype is kept, with no note
    stated = run_engine(SizeRequest(model=load_model("gemma-2-9b"), gpu=H100, context_tokens=4096,
                                    weight_dtype=DType.fp32), EngineSettings(engine=engine))
    assert stated.weights_bytes == 9_241_705_984 * 4 + (
        64 * 2**20 if engine is Engine.sglang else ROTARY_GEMMA2_9B if engine is Engine.vllm
        else 0)
    assert not any("float32" in a for a in stated.assumptions)


def test_a_16_bit_checkpoint_gets_no_note():
    r = run_engine(SizeRequest(model=LLAMA, gpu=H100, context_tokens=4096),
                   EngineSettings(engine=Engine.vllm))
    assert not any("float32" in a for a in r.assumptions)


def _req(model: str, **kw: object) -> SizeRequest:
    return SizeRequest(model=load_model(model), gpu=H100, context_tokens=4096,
                       **kw)  # type: ignore[arg-type]


def test_modelled_weights_below_16_bits():
    # int8: embeddings + head 1,050,673,152 params x 2 B = 2,101,346,304; the other
    # 6,979,588,096 x 8 bits (one scale per output channel, not counted) = 6,979,588,096 B;
    # 9,080,934,400 over 2 GPUs = 4,540,467,200
    assert weights_bytes(_req("llama-3-8b", weight_dtype=DType.int8, tp=2), None) == 4_540_467_200
    # int4: 6,979,588,096 x (4 + 20 / 128) bits = 3,626,114,128 B + 2,101,346,304 = 5,727,460,432,
    # over 3 stages rounded up: 1,909,153,478
    assert weights_bytes(_req("llama-3-8b", weight_dtype=DType.int4, pp=3), None) == 1_909_153_478
    # fp32 and bf16: params x bytes / GPUs, rounded up
    assert weights_bytes(_req("llama-3-8b", weight_dtype=DType.fp32), None) == 32_121_044_992
    assert weights_bytes(_req("llama-3-8b", pp=3), None) == 5_353_507_499
    assert weights_bytes(_req("llama-3-8b"), 42) == 42  # measured
    # a model smaller than its embedding estimate keeps every parameter in 16 bits
    tiny = load_model("llama-3-8b").model_copy(update={"params_total": 1_000_000})
    assert weights_bytes(SizeRequest(model=tiny, gpu=H100, context_tokens=4096,
                                     weight_dtype=DType.int4), None) == 2_000_000


def test_quantized_and_mxfp4_checkpoints():
    assert [quantized(_req("llama-3-8b", weight_dtype=d)) for d in (
        DType.int4, DType.int8, DType.fp8, DType.bf16)] == [True, True, False, False]
    assert is_mxfp4(_req("gpt-oss-20b")) is True
    assert is_mxfp4(_req("gpt-oss-20b", weight_dtype=DType.bf16)) is False
    assert is_mxfp4(_req("qwen3-30b-a3b", weight_dtype=DType.int4)) is False  # not gpt_oss
    dense = load_model("gpt-oss-20b").model_copy(update={"moe": None})
    assert is_mxfp4(SizeRequest(model=dense, gpu=H100, context_tokens=4096)) is False
    # gpt-oss in bf16: every parameter in 2 B
    assert weights_bytes(_req("gpt-oss-20b", weight_dtype=DType.bf16), None) == 41_829_514_368
    # MXFP4 with no padding ("none"): 3 x 2,880 x 2,880 x 136 / 256 = 13,219,200 B an expert,
    # x 768 = 10,152,345,600 + the bf16 rest 3,608,919,168 = 13,761,264,768
    assert weights_bytes(_req("gpt-oss-20b"), None) == 13_761_264_768
    # at tp 2 (Marlin): intermediate 1,440 -> 1,536, hidden 3,072: 3 x 1,536 x 3,072 x 136 / 256
    # = 7,520,256 an expert, x 768 = 5,775,556,608; the rest / 2 = 1,804,459,584
    assert weights_bytes(_req("gpt-oss-20b", tp=2), None, "marlin") == 7_580_016_192
    # at pp 2 the experts split by stage and the rest by GPU: 10,152,345,600 / 2 + 1,804,459,584
    assert weights_bytes(_req("gpt-oss-20b", pp=2), None) == 6_880_632_384


def test_stage_shape_picks_the_stage_with_the_most_cached_layers():
    # Gemma-3-1B (full at 5, 11, 17, 23) at pp 2: layers 0-12 and 13-25, 2 full + 11 sliding
    # each; at pp 3: 9 / 9 / 8 layers (the remainder before the last): 0-8 (1 full, 8 sliding)
    # and 9-17 (2 full, 7 sliding) tie at 9 cached layers: the first is kept
    from kvplan.capacity.kv import Precision
    gemma = load_model("gemma-3-1b")
    two = stage_shape(gemma, Precision(DType.fp16), 1, 2)
    assert (two.full_layers, two.sliding_layers, two.window) == (2, 11, 512)
    three = stage_shape(gemma, Precision(DType.fp16), 1, 3)
    assert (three.full_layers, three.sliding_layers) == (1, 8)
    # tp 2 on Llama-3-8B: 4 KV heads x 256 x 2 B a layer
    assert stage_shape(LLAMA, Precision(DType.fp16), 2).bytes_per_token_per_layer == 2048
    # Qwen3-Next: linear layers are counted, not cached
    nxt = stage_shape(load_model("qwen3-next-80b-a3b"), Precision(DType.fp16))
    assert (nxt.full_layers, nxt.linear_layers, nxt.cached_layers) == (12, 36, 12)


def test_forward_elements_per_token_by_mlp_kind():
    # DeepSeek-V3 at tp 8: MoE 8 x (3 x 2,048 / 8 + 7,168) = 8 x 7,936 = 63,488; its dense first
    # layers 3 x 18,432 / 8 = 6,912; attention (16 q x 192 + 2 x 16 kv x 192 + 16 x 128) = 11,264
    assert forward_elements_per_token(load_model("deepseek-v3"), 8) == 3 * 7168 + 63_488
    # Mixtral (no dense first layers): 2 x (3 x 14,336 + 4,096) = 94,208
    assert forward_elements_per_token(load_model("mixtral-8x7b"), 1) == 3 * 4096 + 94_208
    # a dense first layer wider than the experts: 3 x 60,000 / 2 = 90,000 > 6 x (3 x 704 + 2,048)
    wide = load_model("deepseek-v2-lite").model_copy(update={"intermediate_size": 60_000})
    assert forward_elements_per_token(wide, 2) == 3 * 2048 + 90_000
    # no intermediate size published: 3 x 4 x hidden / tp
    plain = LLAMA.model_copy(update={"intermediate_size": None})
    assert forward_elements_per_token(plain, 2) == 3 * 4096 + 3 * 4 * 2048
    # attention wider than the MLP: a tiny MLP, 32 q + 2 x 8 kv + 32 o heads x 128 = 10,240
    narrow = LLAMA.model_copy(update={"intermediate_size": 100})
    assert forward_elements_per_token(narrow, 1) == 3 * 4096 + 10_240


def test_activation_peak_interval():
    # forward 1,000 tokens x 55,296 x 2 B = 110,592,000 > sampler 10 rows x 128,256 x 40 B =
    # 51,302,400: best 110,592,000; low max(int(0.85 x) 94,003,200, 10 x 128,256 x 16);
    # high max(int(1.35 x) 149,299,200, x 48 = 61,562,880) + 0.25 GiB
    am = activation_peak(LLAMA, 1, 1000, 10)
    assert (am.forward_bytes, am.forward_elements_per_token, am.sampler_bytes,
            am.sampler_rows) == (110_592_000, 55_296, 51_302_400, 10)
    assert am.peak == Interval(110_592_000, 94_003_200, 149_299_200 + COMPILE_SLACK)
    assert am.formula == ("max(forward 1,000 tok x 55,296 el x 2 B, sampler 10 rows x vocab "
                          "128,256 x 40 B)")
    # quantized: 2 GiB more at the high end only
    q = activation_peak(LLAMA, 1, 1000, 10, quantized=True)
    assert q.peak == Interval(110_592_000, 94_003_200, 149_299_200 + COMPILE_SLACK + 2 * GIB)
    # the sampler decides: 1,000 rows x 128,256 x (1, 2, 3) B with 1 batched token
    s = activation_peak(LLAMA, 1, 1, 1000, sampler_bytes=(1, 2, 3))
    assert s.peak == Interval(256_512_000, 128_256_000, 384_768_000 + COMPILE_SLACK)
    assert s.sampler_bytes == 256_512_000 and s.formula.endswith("x 2 B)")
    # a low sampler estimate above the best is cut to the best
    odd = activation_peak(LLAMA, 1, 1, 1000, sampler_bytes=(5, 2, 3))
    assert odd.peak.low == odd.peak.best == 256_512_000
