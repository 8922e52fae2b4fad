"""Engine profiles: every engine wired, explanations that add up, and the engines' own rules."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvplan.capacity import SizeRequest
from kvplan.engines import (
    Engine,
    EngineSettings,
    Measured,
    Step,
    parse_engine,
    profile_for,
    run_engine,
    sglang,
    transformers,
    trtllm,
    verify_steps,
    vllm,
)
from kvplan.engines.activation import activation_peak
from kvplan.engines.common import LayerShape, router_params, weights_bytes
from kvplan.engines.interface import parse_version
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, DType

H100 = load_hardware("h100")
H200 = load_hardware("h200")
MODELS = ["llama-3-8b", "mistral-7b-v0.1", "deepseek-v3", "llama-3.1-70b", "qwen2.5-7b"]


def req(name: str = "llama-3-8b", ctx: int = 8192, tp: int = 1, gpu=H100, **kw) -> SizeRequest:
    return SizeRequest(model=load_model(name), gpu=gpu, context_tokens=ctx,
                       kv_dtype=kw.pop("kv_dtype", DType.bf16), tp=tp, **kw)


def gib(x: float) -> int:
    return int(x * GIB)


# --- wiring -------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", list(Engine))
def test_every_engine_is_wired_and_parses(engine: Engine):
    assert parse_engine(engine.value.upper()) is engine
    result = profile_for(engine)(req(), EngineSettings(engine=engine))
    assert result.engine is engine
    assert result.kv_cache_tokens > 0 and result.starts


def test_engine_aliases_and_unknown_names():
    assert parse_engine("TensorRT-LLM") is Engine.trtllm
    assert parse_engine("hf") is Engine.transformers
    with pytest.raises(InputError, match="unknown engine 'ollama'; use one of ideal, vllm"):
        parse_engine("ollama")


def test_parse_version():
    assert parse_version("v0.8.5.dev169+gce17db808") == (0, 8, 5)
    assert parse_version("0.13.0+faa43dbf.nv26.01") == (0, 13, 0)
    assert parse_version("1.1.0rc3") == (1, 1, 0)
    with pytest.raises(InputError):
        parse_version("latest")


# --- the arithmetic of explain adds up ----------------------------------------------------


@pytest.mark.parametrize("engine", list(Engine))
@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("tp", [1, 2, 8])
def test_every_explanation_adds_up(engine: Engine, name: str, tp: int):
    if name == "qwen2.5-7b" and tp == 8:  # 28 heads: 28 % 8 = 4, a TP vLLM refuses
        with pytest.raises(InputError, match="valid --tp values: 1, 2, 4, 28"):
            run_engine(req(name, ctx=4096, tp=tp), EngineSettings(engine=engine))
        return
    r = run_engine(req(name, ctx=4096, tp=tp), EngineSettings(engine=engine))
    assert verify_steps(r.steps) == []
    labels = [s.label for s in r.steps]
    assert labels[0] == "GPU memory" and labels[-1] == "users per GPU"
    assert r.steps[0].value == H100.memory_bytes
    assert Fraction(r.steps[-1].value) == r.size.users_per_gpu


def test_verify_catches_a_step_that_does_not_add_up():
    steps = [Step("a", 10, "bytes", "given"), Step("b", 3, "bytes", "given"),
             Step("c", 8, "bytes", "a - b", "sum", ("a", "-b"))]
    assert verify_steps(steps) == ["c: claims 8 but sum('a', '-b') = 7"]


def test_memory_breakdown_adds_up_for_every_engine():
    for engine in Engine:
        r = run_engine(req("llama-3.1-8b", ctx=32768), EngineSettings(engine=engine)).size
        assert sum(r.breakdown.parts().values()) == H100.memory_bytes, engine


# --- vLLM -----------------------------------------------------------------------------------


def test_vllm_page_size_gqa_and_mla():
    r = run_engine(req(), EngineSettings(engine=Engine.vllm))
    steps = {s.label: s.value for s in r.steps}
    assert steps["page size per layer"] == 16 * 8 * (128 + 128) * 2  # 65,536
    # MLA: one latent (512 + 64) per token, the same on every tensor-parallel rank; on Hopper
    # vLLM raises MLA blocks to 64 tokens (FlashMLA), elsewhere (L4, log 09) they stay 16
    ds = run_engine(req("deepseek-v3", ctx=4096, tp=8, gpu=H200, kv_dtype=DType.bf16),
                    EngineSettings(engine=Engine.vllm))
    steps = {s.label: s.value for s in ds.steps}
    assert steps["block size"] == 64 and steps["page size per layer"] == 64 * 576 * 2
    assert vllm.mla_block_size("l4", 16, v1=True) == 16
    assert vllm.mla_block_size("b200", 16, v1=True) == 128


def test_vllm_v1_llava_log_from_its_breakdown():
    # tests/assets/logs/23: 79.19 GiB x 0.9; 14.08 weights, 1.97 activation, 0.07 non-torch
    # -> "Available KV cache memory: 55.15 GiB", "GPU KV cache size: 451,744 tokens", 110.29x
    gpu = H100.model_copy(update={"memory_bytes": gib(79.19)})
    m = Measured(weights_bytes=gib(14.08), activation_bytes=gib(1.97), non_torch_bytes=gib(0.07))
    backbone = load_model("tests/assets/model_specs/mistral-7b-instruct-v0.3.yaml")
    r = run_engine(replace(req(ctx=4096, gpu=gpu, kv_dtype=DType.fp16), model=backbone),
                   EngineSettings(engine=Engine.vllm, version="0.10.2", measured=m))
    assert r.log_lines[0] == "Available KV cache memory: 55.15 GiB"
    assert abs(r.kv_cache_tokens - 451_744) / 451_744 < 0.0002
    assert round(float(r.max_concurrency), 1) == 110.3


def test_vllm_v0_refuses_a_request_longer_than_the_pool():
    # tests/assets/logs/01 run B: 23.58 GiB x 0.9 - 17.98 peak - 0.35 non-torch = 2.89 GiB,
    # "# GPU blocks: 1478", max seq len 29000 > 23648 -> vLLM refuses to start.
    gpu = H100.model_copy(update={"memory_bytes": gib(23.58)})
    m = Measured(weights_bytes=gib(14.9888), activation_bytes=gib(17.98 - 14.9888),
                 non_torch_bytes=gib(0.35))
    r = run_engine(req("llama-3.1-8b", ctx=29000, gpu=gpu),
                   EngineSettings(engine=Engine.vllm, version="0.6.4", measured=m))
    assert abs(r.blocks - 1478) <= 2
    assert not r.starts and "larger than the maximum number of tokens" in (r.reason or "")
    assert r.max_model_len_that_starts == r.blocks * 16
    assert r.size.users_per_replica == 0 and not r.size.fits


def test_vllm_v1_refusal_names_the_largest_length():
    # Llama-3.1-70B on 4 x H100: 131,072 tokens fit; on 2 they do not.
    ok = run_engine(req("llama-3.1-70b", ctx=131072, tp=4), EngineSettings(engine=Engine.vllm))
    assert ok.starts
    tight = run_engine(req("llama-3.1-70b", ctx=131072, tp=2),
                       EngineSettings(engine=Engine.vllm, memory_fraction=Fraction(95, 100)))
    assert not tight.starts
    assert 0 < tight.max_model_len_that_starts < 131072
    assert f"{tight.max_model_len_that_starts:,}" in (tight.reason or "")


def test_vllm_graphs_are_subtracted_from_0_21_only():
    assert not vllm.flavour("0.13.0").graphs_subtracted
    assert vllm.flavour("0.21.0").graphs_subtracted
    assert not vllm.flavour("0.6.4").v1 and not vllm.flavour("0.8.5-v0").v1
    # FlashInfer's sampler stated: 0.13 otherwise sorts in its profiling sampler (38 B a logit,
    # kvplan/engines/vllm_sort_sampler.py), which 0.21 does not. Utilization 0.9 stated: 0.21's
    # own default is 0.92 (config/cache.py:66 from 0.20.0), 0.13's 0.9, and the graphs are the
    # only difference this test is about
    old = run_engine(req(), EngineSettings(engine=Engine.vllm, version="0.13.0",
                                           topk_topp_sampler="flashinfer",
                                           memory_fraction=Fraction(9, 10)))
    new = run_engine(req(), EngineSettings(engine=Engine.vllm, version="0.21.0",
                                           memory_fraction=Fraction(9, 10)))
    assert old.kv_cache_bytes - new.kv_cache_bytes == vllm.CUDA_GRAPH[0]
    eager = run_engine(req(), EngineSettings(engine=Engine.vllm, enforce_eager=True))
    assert eager.cuda_graph_bytes == 0


def test_vllm_batching_defaults():
    fl = vllm.flavour("0.11.0")
    assert vllm.batching_defaults(req(), fl, H100.memory_bytes) == (8192, 1024)
    assert vllm.batching_defaults(req(), fl, 48 * 10**9) == (2048, 256)
    v0 = vllm.flavour("0.6.4")
    assert vllm.batching_defaults(req(ctx=20000), v0, H100.memory_bytes) == (20000, 256)
    assert vllm.batching_defaults(req(ctx=1024), v0, H100.memory_bytes) == (2048, 256)


def test_vllm_hybrid_grouping_and_sliding_blocks():
    # gpt-oss: 18 sliding + 18 full -> 2 groups of 18 (NOTES: vLLM kv_cache_utils)
    gpt_oss = LayerShape(18, 18, 0, 1024, 128)
    g = vllm.kv_groups(gpt_oss, v1=True)
    assert (g.group_size, g.full_groups, g.sliding_groups) == (18, 1, 1)
    # Gemma-3-27B: 52 sliding + 10 full -> group size 10, 1 full + 6 sliding groups
    g = vllm.kv_groups(LayerShape(10, 52, 0, 1024, 1024), v1=True)
    assert (g.group_size, g.full_groups, g.sliding_groups) == (10, 1, 6)
    # sliding layers hold ceil(min(W - 1 + batched, L) / block) + 1 blocks
    g = vllm.kv_groups(gpt_oss, v1=True)
    need = vllm.blocks_per_request(gpt_oss, g, 131072, 16, 8192, v1=True)
    assert need == 131072 // 16 + (-(-(127 + 8192) // 16) + 1)


def test_gemma3_1b_concurrency_from_its_log():
    # tests/assets/logs/25: 25.39 GiB, 26 layers (22 sliding(512) + 4 full), 1 KV head of 256,
    # max_model_len 2048, 8192 batched -> "GPU KV cache size: 950,864", "461.21x".
    shape = LayerShape(4, 22, 0, 1 * (256 + 256) * 2, 512)
    g = vllm.kv_groups(shape, v1=True)
    assert (g.group_size, g.count) == (4, 7)  # "Add 2 padding layers"
    blocks = gib(25.39) // (16 * shape.bytes_per_token_per_layer * g.group_size)
    assert abs(blocks // g.count * 16 - 950_864) / 950_864 < 0.0005
    need = vllm.blocks_per_request(shape, g, 2048, 16, 8192, v1=True)
    assert round(blocks / need, 1) == 461.2


def test_activation_model_matches_logged_peaks():
    # tests/assets/logs/01: V0 profiled 2.07 and 2.99 GiB at 20,000 and 29,000 batched tokens
    m = load_model("llama-3.1-8b")
    for tokens, logged in ((20000, 2.07), (29000, 2.99)):
        a = activation_peak(m, 1, tokens, 256)
        assert abs(a.peak.best / GIB - logged) / logged < 0.02
        assert a.peak.low <= a.peak.best <= a.peak.high


@settings(max_examples=30, deadline=None)
@given(util=st.integers(50, 99), batched=st.integers(512, 32768))
def test_vllm_pool_grows_with_utilization_and_shrinks_with_batch(util: int, batched: int):
    def tokens(u: int, b: int) -> int:
        s = EngineSettings(engine=Engine.vllm, memory_fraction=Fraction(u, 100),
                           max_num_batched_tokens=b)
        return run_engine(req(), s).kv_cache_tokens

    assert tokens(util, batched) <= tokens(util + 1, batched)
    assert tokens(util, batched) >= tokens(util, batched * 2)


# --- SGLang / TensorRT-LLM / transformers ---------------------------------------------------


def test_sglang_docs_log_to_the_token():
    # tests/assets/logs/15: avail 78.81 GB before, 63.72 after, mem_fraction_static 0.88
    # -> max_total_num_tokens=444500
    m = Measured(free_before_load_bytes=gib(78.81), free_after_load_bytes=gib(63.72))
    r = run_engine(req("llama-3.1-8b", ctx=131072),
                   EngineSettings(engine=Engine.sglang, memory_fraction=Fraction(88, 100),
                                  measured=m))
    assert abs(r.kv_cache_tokens - 444_500) <= 30


def test_sglang_default_fraction_generations():
    assert sglang.default_fraction(1, "0.4.1") == Fraction(88, 100)
    assert sglang.default_fraction(4, "0.4.3") == Fraction(85, 100)
    # NOTES Q6a: H100 (81,559 MiB) TP1 -> 0.874 (0.4.7-0.4.10) and 0.835 (0.5)
    assert sglang.default_fraction(1, "0.4.9", 81559) == Fraction(874, 1000)
    assert sglang.default_fraction(1, "0.5.3", 81559) == Fraction(835, 1000)
    assert sglang.default_fraction(8, "0.5.3", 143771) == Fraction(897, 1000)
    # 0.5.0-0.5.2 still reserve by the GPU's size (0.5.0rc0 / 0.5.1 wheels; PR #10975 in 0.5.3):
    # (81,559 - 10 x 1,024) / 81,559 = 0.8744; (143,771 - 16 x 1,024) / 143,771 = 0.8860
    assert sglang.default_fraction(1, "0.5.1", 81559) == Fraction(874, 1000)
    assert sglang.default_fraction(8, "0.5.0", 143771) == Fraction(886, 1000)


def test_sglang_aiter_derates_the_fraction_above_8k_context():
    # tests/assets/logs/140 (SGLang 0.5.17, aiter backend, MI355X, --mem-fraction-static 0.6,
    # Qwen3-0.6B at its 40,960-token context): sglang PR #6564 multiplies the fraction by 0.85
    # above 8,192 tokens, so 286.05 - 287.26 x (1 - 0.51) = 145.29 GiB of 114,688 B tokens
    # = 1,360,2xx tokens (logged 1,360,288); at 0.6 it would be 171.15 GiB.
    m = Measured(free_before_load_bytes=gib(287.26), free_after_load_bytes=gib(286.05))
    mi355x = load_hardware("mi355x")
    s = EngineSettings(engine=Engine.sglang, version="0.5.17", memory_fraction=Fraction(6, 10),
                       attention_backend="aiter", measured=m)
    r = run_engine(req("qwen3-0.6b", ctx=40960, gpu=mi355x), s)
    assert abs(r.kv_cache_tokens - 1_360_288) <= 30
    assert any("0.51 (0.6 x 0.85)" in a for a in r.assumptions)
    # not derated: 8,192 tokens of context, another backend, or a release before 0.4.7
    for settings_, ctx in ((s, 8192), (replace(s, attention_backend="triton"), 40960),
                           (replace(s, version="0.4.6"), 40960)):
        r = run_engine(req("qwen3-0.6b", ctx=ctx, gpu=mi355x), settings_)
        assert abs(r.kv_cache_tokens - 1_602_317) <= 30  # 171.15 GiB / 114,688 B
    with pytest.raises(InputError, match="attention_backend applies only to sglang"):
        run_engine(req(), EngineSettings(engine=Engine.vllm, attention_backend="aiter"))


def test_sglang_mla_ranks_hold_the_down_projections_and_router_whole():
    # sglang models/deepseek_v2.py: q_a_proj and kv_a_proj_with_mqa are ReplicatedLinear, the MoE
    # router (MoEGate) a bf16 nn.Parameter, so every TP rank holds them whole. DeepSeek-R1 (fp8):
    # 7,168 x (1,536 + 512 + 64) x 61 layers = 923,467,776 B of projections, less the 1/16 the
    # even split booked (57,716,736) -> 865,751,040 B at TP 16. Below 16 bits the modelled
    # weights already hold the router (256 x 7,168 x 58 MoE layers x 2 B = 212,860,928 B) whole
    # on every rank (common.ROUTER_BYTES, task h31fp8w), so the term no longer adds it; until
    # then it did: (923,467,776 + 106,430,464) x 1 B / 16 = 64,368,640 -> 1,071,960,064 B, and
    # the total is the same: 212,860,928 - 106,430,464 / 16 = 206,209,024 B moved.
    r1 = req("deepseek-r1", ctx=163840, tp=16, gpu=load_hardware("h20"), nodes=2)
    assert sglang.replicated_bytes(r1) == 865_751_040 == 1_071_960_064 - 206_209_024
    assert router_params(r1.model) * 2 == 212_860_928
    # Kimi-K2.5 (int4 experts, bf16 elsewhere) at TP 8: (923,467,776 + 165,150,720) x 2 B x 7/8
    k25 = req("kimi-k2.5", ctx=262144, tp=8, gpu=load_hardware("mi355x"))
    assert sglang.replicated_bytes(k25) == 1_905_082_368
    assert sglang.replicated_bytes(replace(r1, tp=1, nodes=None)) == 0
    assert sglang.replicated_bytes(req("llama-3.1-70b", tp=8)) == 0  # no MLA
    # it enters the modelled weights, not measured ones
    s = EngineSettings(engine=Engine.sglang, memory_fraction=Fraction(93, 100))
    with_term = run_engine(r1, s).weights_bytes
    measured = run_engine(r1, replace(s, measured=Measured(weights_bytes=40 * GIB))).weights_bytes
    assert measured == 40 * GIB and with_term > 40 * GIB


def test_sglang_start_up_use_with_tensor_parallelism_by_interconnect():
    # fitted on log 03 (FITTED.tsv): 2,072 MiB on NVLink modules (H100 SXM label), 900 MiB on PCIe
    # cards, 400 MiB on one GPU
    s = EngineSettings(engine=Engine.sglang, memory_fraction=Fraction(9, 10))
    steps = {st.label: st.value for st in run_engine(req("llama-3.1-70b", tp=4), s).steps}
    assert steps["start-up use"] == 2072 * 1024 * 1024
    pcie = run_engine(req("qwen2.5-32b", tp=4, gpu=load_hardware("rtx-3090")), s)
    assert {st.label: st.value for st in pcie.steps}["start-up use"] == 900 * 1024 * 1024
    one = run_engine(req("llama-3-8b"), s)
    assert {st.label: st.value for st in one.steps}["start-up use"] == 400 * 1024 * 1024


def test_trtllm_rounds_max_tokens_up_to_whole_blocks():
    # tests/assets/logs/07: max_tokens 860308 with 32-token blocks -> 860320 tokens
    r = run_engine(req("llama-3.1-8b", ctx=157, kv_dtype=DType.fp8, weight_dtype=DType.fp8),
                   EngineSettings(engine=Engine.trtllm, version="1.0",
                                  memory_fraction=Fraction(8, 10), max_tokens=860308))
    assert r.kv_cache_tokens == 860_320 and r.blocks == 26_885
    assert trtllm.tokens_per_block((0, 18)) == 64 and trtllm.tokens_per_block((1, 2)) == 32


def test_trtllm_fraction_of_free_memory():
    # tests/assets/logs/06: available 17.83 GiB x 0.9, fp8 Llama-3.1-8B, 32-token blocks -> 8219
    m = Measured(free_after_load_bytes=gib(17.83))
    r = run_engine(req("llama-3.1-8b", ctx=2048, kv_dtype=DType.fp8, weight_dtype=DType.fp8),
                   EngineSettings(engine=Engine.trtllm, version="0.19.0", measured=m))
    assert abs(r.blocks - 8219) <= 3


def test_transformers_static_cache_expands_gqa_four_times():
    base = req(ctx=8192)
    dyn = run_engine(base, EngineSettings(engine=Engine.transformers))
    sta = run_engine(base, EngineSettings(engine=Engine.transformers, version="static"))
    layer = 8192 * 8 * 256 * 2  # one layer's K and V for one 8,192-token sequence
    dyn_t = {s.label: s.value for s in dyn.steps}["transient per sequence"]
    sta_t = {s.label: s.value for s in sta.steps}["transient per sequence"]
    assert dyn_t == layer and sta_t == 4 * layer
    assert sta.size.users_per_replica <= dyn.size.users_per_replica
    with pytest.raises(InputError, match="dynamic"):
        run_engine(base, EngineSettings(engine=Engine.transformers, version="4.46"))


def test_transformers_caches_the_mla_latent_and_expands_it_per_layer():
    # modeling_deepseek_v3.py (transformers 5.17 and 5.24): cache.update(kv_nope, k_rot) keeps
    # the 512 + 64 latent; expand_kv then builds kv_b_proj's output (128 heads x (128 + 128))
    # and the keys (128 heads x (128 + 64)) for every cached token of the layer.
    r = run_engine(req("deepseek-v3", ctx=8192, gpu=H200), EngineSettings(engine=Engine.transformers))
    steps = {s.label: s.value for s in r.steps}
    assert steps["cache per sequence"] == 61 * 8192 * (512 + 64) * 2
    assert steps["transient per sequence"] == 8192 * 128 * (128 + 128 + 128 + 64) * 2
    assert verify_steps(r.steps) == []


def test_transformers_sliding_only_model_copies_one_window():
    # Mistral-7B slides on every layer (window 4,096): the cat copy is one window, not 8,192
    r = run_engine(req("mistral-7b-v0.1", ctx=8192), EngineSettings(engine=Engine.transformers))
    steps = {s.label: s.value for s in r.steps}
    per_token_layer = 8 * 128 * 2 * 2
    assert steps["cache per sequence"] == 32 * 4096 * per_token_layer
    assert steps["transient per sequence"] == 4096 * per_token_layer


def test_quantized_weights_keep_embeddings_in_16_bits():
    # Qwen2.5-72B-GPTQ-Int4 loaded 38.53 GiB (log 11); params x 4 bits alone would be 33.9 GiB
    spec = load_model("tests/assets/model_specs/qwen2.5-72b.yaml")
    r = replace(req(), model=spec, weight_dtype=DType.int4)
    assert abs(weights_bytes(r, None) / GIB - 38.53) / 38.53 < 0.02


def test_sglang_and_vllm_differ_as_the_issue_says():
    # Qwen3-235B-A22B-FP8 on 4 x H100: vLLM 178,880 tokens (log 02), SGLang 367,404 (log 03).
    # kvplan's vLLM figure leaves out the LMCache connector log 02 attached (not modelled), so
    # the gap it shows is smaller: SGLang 391,164 against vLLM 288,672 tokens (1.36x), still
    # SGLang's larger pool (its fraction 0.93 of free memory against vLLM's 0.9 of the total
    # less the profiled activation).
    spec = load_model("tests/assets/model_specs/qwen3-235b-a22b.yaml")
    r = SizeRequest(model=spec, gpu=H100, context_tokens=40960, kv_dtype=DType.bf16,
                    weight_dtype=DType.fp8, tp=4)
    v = run_engine(r, EngineSettings(engine=Engine.vllm, version="0.10.0"))
    s = run_engine(r, EngineSettings(engine=Engine.sglang, memory_fraction=Fraction(93, 100)))
    assert s.kv_cache_tokens > 1.3 * v.kv_cache_tokens
    assert transformers.CACHES == ("dynamic", "static")


@settings(max_examples=80, deadline=None)
@given(
    engine=st.sampled_from(list(Engine)),
    name=st.sampled_from(MODELS + ["llama-2-7b"]),
    gpu=st.sampled_from([H100, H200]),
    tp=st.sampled_from([1, 2, 8]),
    pp=st.sampled_from([1, 2]),
    kv=st.sampled_from([DType.fp16, DType.fp8, DType.int4]),
    reserved=st.booleans(),
    avg=st.sampled_from([None, 1000]),
    prefix=st.sampled_from([0, 512]),
)
def test_any_combination_adds_up(engine, name, gpu, tp, pp, kv, reserved, avg, prefix):
    from kvplan.capacity import Allocation

    if name == "qwen2.5-7b" and tp == 8:
        return  # 28 heads: a TP vLLM refuses (test_every_explanation_adds_up checks the refusal)
    r = SizeRequest(model=load_model(name), gpu=gpu, context_tokens=4096, kv_dtype=kv, tp=tp,
                    pp=pp, allocation=Allocation.reserved if reserved else Allocation.paged,
                    avg_context_tokens=avg, shared_prefix_tokens=prefix)
    res = run_engine(r, EngineSettings(engine=engine))
    assert verify_steps(res.steps) == []
    parts = res.size.breakdown.parts()
    assert sum(parts.values()) == gpu.memory_bytes
    assert all(v >= 0 for k, v in parts.items() if k != "unallocated_bytes")
    assert res.starts or res.size.users_per_replica == 0


@settings(max_examples=25, deadline=None)
@given(frac=st.integers(60, 94), engine=st.sampled_from([Engine.sglang, Engine.trtllm]))
def test_fraction_engines_grow_with_their_fraction(frac: int, engine: Engine):
    def tokens(f: int) -> int:
        s = EngineSettings(engine=engine, memory_fraction=Fraction(f, 100))
        return run_engine(req("llama-3.1-8b", ctx=32768), s).kv_cache_tokens

    assert tokens(frac) <= tokens(frac + 1)
