"""The engines' shared interface and pieces: engine names and versions, settings checks, the
explain steps' arithmetic and its re-check, finish_size's plain result, the activation peak,
run_engine's 16-bit serving of float32 checkpoints, and the modelled weights below 16 bits.
Each expected value is worked by hand in the comments.

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/interface.py
(and steps.py, split from it), common.py, activation.py, encoder_cache.py and __init__.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from kvplan.capacity import SizeRequest
from kvplan.capacity.plan import Breakdown
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.activation import COMPILE_SLACK, activation_peak, forward_elements_per_token
from kvplan.engines.common import gib, is_mxfp4, quantized, stage_shape, users_steps, weights_bytes
from kvplan.engines.interface import (
    Interval,
    Measured,
    Step,
    Steps,
    evaluate,
    finish_size,
    parse_engine,
    parse_version,
    verify_steps,
)
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

GIB = 1 << 30


@pytest.mark.parametrize(("text", "engine"), [
    ("vllm", Engine.vllm), (" SGLang ", Engine.sglang), ("TensorRT-LLM", Engine.trtllm),
    ("tensorrt_llm", Engine.trtllm), ("trt-llm", Engine.trtllm), ("trtllm", Engine.trtllm),
    ("HF", Engine.transformers), ("huggingface", Engine.transformers), ("ideal", Engine.ideal)])
def test_engine_names_and_aliases(text: str, engine: Engine):
    assert parse_engine(text) is engine


def test_an_unknown_engine_names_the_choices():
    with pytest.raises(InputError) as err:
        parse_engine("tgi")
    assert str(err.value) == "unknown engine 'tgi'; use one of ideal, vllm, sglang, trtllm, transformers"


@pytest.mark.parametrize(("text", "parts"), [
    (None, None), ("0.10.2", (0, 10, 2)), ("v0.8.5.dev169+g1234", (0, 8, 5)), ("V1.2", (1, 2)),
    ("1.0rc1", (1, 0)), (" 0.6.4 ", (0, 6, 4)), ("0.x.1", (0,)), ("12", (12,)),
    ("0.6.4.post1", (0, 6, 4))])
def test_versions_are_read_up_to_the_first_non_digit(text: str | None,
                                                     parts: tuple[int, ...] | None):
    assert parse_version(text) == parts


@pytest.mark.parametrize("text", ["latest", "", "v", "x0.1"])
def test_an_unreadable_version(text: str):
    with pytest.raises(InputError) as err:
        parse_version(text)
    assert str(err.value) == f"cannot read engine version {text!r}; write it like 0.10.2"


@pytest.mark.parametrize(("kw", "message"), [
    ({"max_num_batched_tokens": 0}, "max_num_batched_tokens must be a positive integer, got 0"),
    ({"max_num_seqs": -1}, "max_num_seqs must be a positive integer, got -1"),
    ({"engine": Engine.sglang, "page_size_tokens": 0}, "page size must be a positive integer, got 0"),
    ({"engine": Engine.sglang, "max_tokens": 0}, "max_tokens must be a positive integer, got 0"),
    ({"engine": Engine.vllm, "kv_cache_memory_bytes": 0},
     "kv_cache_memory_bytes must be a positive integer, got 0"),
    ({"engine": Engine.vllm, "draft_params": 0}, "draft_params must be a positive integer, got 0"),
    ({"engine": Engine.sglang, "chunked_prefill_size": 0},
     "chunked_prefill_size must be a positive integer, got 0"),
    ({"engine": Engine.sglang, "cuda_graph_max_bs": 0},
     "cuda_graph_max_bs must be a positive integer, got 0"),
    ({"engine": Engine.sglang, "max_running_requests": 0},
     "max_running_requests must be a positive integer, got 0"),
    ({"engine": Engine.trtllm, "max_batch_size": 0}, "max_batch_size must be a positive integer, got 0"),
    ({"engine": Engine.vllm, "num_speculative_tokens": 0},
     "num_speculative_tokens must be a positive integer, got 0"),
    ({"engine": Engine.vllm, "cpu_offload_bytes": -1}, "cpu_offload_bytes must be 0 or more, got -1"),
    ({"engine": Engine.vllm, "limit_mm_per_prompt": -1},
     "limit_mm_per_prompt must be 0 or more, got -1"),
    ({"memory_fraction": Fraction(0)}, "memory fraction must be in (0, 1], got 0"),
    ({"memory_fraction": Fraction(3, 2)}, "memory fraction must be in (0, 1], got 1.5"),
    ({"engine": Engine.vllm, "max_tokens": 10},
     "max_tokens applies only to sglang and trtllm, not vllm; drop it or choose that engine"),
    ({"engine": Engine.sglang, "draft_params": 10},
     "draft_params applies only to vllm, not sglang; drop it or choose that engine"),
])
def test_settings_checks(kw: dict[str, object], message: str):
    with pytest.raises(InputError) as err:
        EngineSettings(**kw).check()  # type: ignore[arg-type]
    assert str(err.value) == message


def test_settings_at_their_limits_pass():
    EngineSettings(engine=Engine.vllm, cpu_offload_bytes=0, limit_mm_per_prompt=0,
                   memory_fraction=Fraction(1), max_num_seqs=1, kv_cache_memory_bytes=1).check()
    EngineSettings(engine=Engine.trtllm, max_tokens=1, page_size_tokens=1, max_batch_size=1).check()


def test_each_step_operation():
    v = {"a": Fraction(7), "b": Fraction(2), "c": Fraction(-7)}
    s = lambda op, args, unit="bytes": evaluate(Step("x", 0, unit, "", op, args), v)  # noqa: E731
    assert s("sum", ("a", "-b", 3)) == 8
    assert s("sum", ()) == 0
    assert s("mul", ("a", Fraction(1, 2))) == 3  # floored: 3.5 bytes -> 3
    assert s("mul", ("c", Fraction(1, 2))) == -4  # floor, not truncation
    assert s("mul", ("a", Fraction(1, 2)), "ratio") == Fraction(7, 2)
    assert s("mul", ()) == 1
    assert s("div", ("a", "b")) == 3
    assert s("div", ("c", "b")) == -4
    assert s("ceildiv", ("a", "b")) == 4
    assert s("ceildiv", ("c", "b")) == -3
    assert s("min", ("a", "b", 5)) == 2
    assert s("max", ("a", "b", 9)) == 9
    assert s("ratio", ("a", "b")) == Fraction(7, 2)
    with pytest.raises(ValueError) as err:
        s("pow", ("a", "b"))
    assert str(err.value) == "unknown op 'pow'"
    with pytest.raises(KeyError) as key:
        s("sum", ("a", "-d"))
    assert key.value.args == ("step refers to unknown or later step 'd'",)


def test_verify_steps_names_every_problem():
    steps = [
        Step("a", 5, "bytes", "", "given"),
        Step("b", 2, "bytes", "", "given"),
        Step("c", 7, "bytes", "", "sum", ("a", "b")),
        Step("d", 4, "bytes", "", "sum", ("a", "-b")),  # 3, not 4
        Step("e", 1, "bytes", "", "sum", ("z",)),
        Step("f", 1, "bytes", "", "div", ("a", 0)),
        Step("g", 0, "bytes", "", "pow", ("a",)),
        Step("a", 5, "bytes", "", "given"),
    ]
    problems = verify_steps(steps)
    # (the division by zero's text is Python's own)
    assert problems[2].startswith("f: ") and "ZeroDivision" not in problems[2]
    assert problems[:2] + problems[3:] == [
        "d: claims 4 but sum('a', '-b') = 3",
        'e: "step refers to unknown or later step \'z\'"',
        "g: unknown op 'pow'",
        "duplicate step 'a'",
    ]
    assert verify_steps(steps[:3]) == []


def test_steps_keep_exact_fractions_and_floor_on_int():
    st = Steps()
    assert st.given("n", 7, "bytes", "") == 7
    third = st.op("third", "ratio", ["n", 3], "ratio", "")
    assert third == Fraction(7, 3) and st.items[-1].value == Fraction(7, 3)
    assert st.int("third") == 2
    whole = st.op("double", "mul", ["n", 2], "bytes", "")
    assert whole == 14 and type(st.items[-1].value) is int
    assert st.values == {"n": 7, "third": Fraction(7, 3), "double": 14}


def test_interval_exact_and_gib():
    assert Interval.exact(5) == Interval(5, 5, 5)
    assert (gib(GIB * 3 // 2), gib(0), gib(-GIB)) == ("1.50 GiB", "0.00 GiB", "-1.00 GiB")


H100 = load_hardware("h100")
LLAMA = load_model("llama-3-8b")


def test_finish_size_with_an_engine_pool():
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192)
    # a 10 GiB pool holds 10 users of 1 GiB; overhead 3 GiB; usable given as 70 GiB
    r = finish_size(req, 10 * GIB, 3 * GIB, 70 * GIB, True, None, 8192, ["note"])
    assert (r.users_per_replica, r.fits, r.reason, r.max_context_that_fits) == (10, True, None,
                                                                                 None)
    assert (r.weights_bytes, r.usable_bytes, r.kv_budget_bytes, r.assumptions,
            r.suggestions) == (16_060_522_496, 70 * GIB, 10 * GIB, ("note",), ())
    assert r.request is req
    assert r.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=16_060_522_496, kv_used_bytes=10 * GIB,
        kv_free_bytes=0, reserve_bytes=3 * GIB,
        unallocated_bytes=85_045_477_376 - 16_060_522_496 - 13 * GIB)
    # a pool whose breakdown crowds out the overhead: clamped to what is left beside it
    big = finish_size(req, 68 * GIB, 3 * GIB, 70 * GIB, True, None, 8192, [],
                      weights_bytes=10 * GIB)
    assert big.breakdown.reserve_bytes == 85_045_477_376 - 78 * GIB
    assert big.breakdown.unallocated_bytes == 0 and big.users_per_replica == 68
    # one byte of pool: users 0, the plain result's reason, the length it was given
    tiny = finish_size(req, 1, 0, 70 * GIB, True, None, 5, [])
    assert (tiny.users_per_replica, tiny.fits, tiny.kv_budget_bytes,
            tiny.max_context_that_fits) == (0, False, 1, 5)
    assert tiny.reason is not None and tiny.reason.startswith("one sequence of 8,192 tokens needs")


def test_finish_size_when_the_engine_does_not_start():
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192)
    r = finish_size(req, 10 * GIB, GIB, 70 * GIB, False, "it would not start", 77, [],
                    users_override=(5, 5 * GIB))
    # not started: nobody, nothing used, whatever the override says; the engine's reason stands
    assert (r.users_per_replica, r.fits, r.reason, r.max_context_that_fits) == (
        0, False, "it would not start", 77)
    assert (r.breakdown.kv_used_bytes, r.breakdown.kv_free_bytes) == (0, 10 * GIB)
    # no pool at all (a negative one counts as none)
    r = finish_size(req, -GIB, GIB, 70 * GIB, False, "none", 0, [])
    assert (r.kv_budget_bytes, r.breakdown.kv_free_bytes, r.breakdown.reserve_bytes) == (0, 0, GIB)
    assert r.breakdown.unallocated_bytes == 85_045_477_376 - 16_060_522_496 - GIB


def test_finish_size_takes_the_engines_own_user_count():
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192)
    r = finish_size(req, 10 * GIB, 0, 70 * GIB, True, None, 8192, [], users_override=(3, 3 * GIB))
    assert (r.users_per_replica, r.breakdown.kv_used_bytes, r.breakdown.kv_free_bytes) == (
        3, 3 * GIB, 7 * GIB)
    # an override of 0 users: no fit, the plain reason is not taken (the engine said none)
    r = finish_size(req, 10 * GIB, 0, 70 * GIB, True, None, 8192, [], users_override=(0, 0))
    assert (r.users_per_replica, r.fits, r.max_context_that_fits) == (0, False, 8192)


def test_users_steps_with_a_shared_prefix_count_users_from_the_plain_result():
    from kvplan.capacity import size
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, shared_prefix_tokens=1024)
    sized = size(req)
    st = Steps()
    st.given("KV pool", sized.kv_budget_bytes, "bytes", "")
    users_steps(st, sized, "KV pool", True)
    assert [(s.label, s.value, s.unit, s.op, s.formula) for s in st.items[1:]] == [
        ("KV bytes per sequence", sized.kv_bytes_per_sequence, "bytes", "given",
         "8,192 tokens, paged in 16-token blocks, every cached layer on this GPU"),
        ("users per replica", sized.users_per_replica, "users", "given",
         "the tightest pipeline stage"),
        ("GPUs per replica", 1, "GPUs", "given", "tp 1 x pp 1"),
        ("users per GPU", sized.users_per_replica, "users", "ratio",
         "users per replica / GPUs per replica"),
    ]


def test_users_steps_in_engine_blocks_when_not_started():
    from kvplan.capacity import size
    sized = size(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, tp=2))
    st = Steps()
    st.given("GPU blocks", 0, "blocks", "")
    users_steps(st, sized, "GPU blocks", False, per_user_blocks=512)
    assert [(s.label, s.value, s.unit, s.op, s.args, s.formula) for s in st.items[1:]] == [
        ("blocks per user", 512, "blocks", "given", (),
         "one sequence holding 8,192 tokens, as the engine allocates it"),
        ("users per replica", 0, "users", "given", (), "the engine does not start"),
        ("GPUs per replica", 2, "GPUs", "given", (), "tp 2 x pp 1"),
        ("users per GPU", 0, "users", "ratio", ("users per replica", "GPUs per replica"),
         "users per replica / GPUs per replica"),
    ]


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


def test_measured_defaults_are_all_unset():
    assert Measured() == Measured(None, None, None, None, None, None, None, None, None)


def test_finish_size_lifts_the_stated_budget_check_for_the_engines_own_pool():
    # a 70 GiB engine pool beside the catalog's 15 GiB of weights exceeds the H100's 79.2 GiB
    # (the engine's own weights were smaller, or measured): still 70 users of 1 GiB
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192)
    r = finish_size(req, 70 * GIB, 0, 70 * GIB, True, None, 8192, [], weights_bytes=GIB)
    assert (r.users_per_replica, r.breakdown.kv_used_bytes, r.breakdown.weights_bytes) == (
        70, 70 * GIB, GIB)
    # a request that states its own large budget is sized without it for the weights
    stated = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=70 * GIB)
    assert finish_size(stated, 10 * GIB, 0, 0, True, None, 8192, []).weights_bytes == (
        16_060_522_496)


def test_finish_size_without_a_pool_takes_the_plain_reason_without_a_reserve():
    # no pool, the engine's reason unset: the plain arithmetic's reason, sized with no reserve
    req = SizeRequest(model=load_model("llama-3.1-70b"), gpu=H100, context_tokens=8192)
    r = finish_size(req, 0, 0, 0, True, None, 0, [])
    assert r.reason == ("weights need 131.42 GiB per GPU and the reserve 0 B, but only 71.28 GiB "
                        "of h100-sxm-80gb's memory is usable at 0.9 utilization: 60.13 GiB short")
    assert (r.users_per_replica, r.fits, r.kv_budget_bytes) == (0, False, 0)
