"""Engine profiles: every engine wired, explanations that add up, and the engines' own rules
(vLLM's in test_engine_profiles_vllm.py, SGLang's in test_engine_profiles_sglang.py; TensorRT-LLM
and transformers here)."""

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
    transformers,
    trtllm,
    verify_steps,
)
from kvplan.engines.common import weights_bytes
from kvplan.engines.interface import parse_version
from kvplan.errors import InputError
from kvplan.specs import load_model
from kvplan.units import GIB, DType
from tests.engines.profile_requests import H100, H200, gib, req

MODELS = ["llama-3-8b", "mistral-7b-v0.1", "deepseek-v3", "llama-3.1-70b", "qwen2.5-7b"]


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


# --- TensorRT-LLM / transformers ---------------------------------------------------------


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
    # the refused pairs, and only they: SGLang has no integer cache
    # (tests/engines/test_sglang_kv_dtype.py), TensorRT-LLM no int4 one, and vLLM's
    # int4_per_token_head no MLA backend (deepseek-v3; tests/engines/test_kv_int_engines.py)
    if kv is DType.int4 and (engine in (Engine.sglang, Engine.trtllm)
                             or (engine is Engine.vllm and name == "deepseek-v3")):
        with pytest.raises(InputError):
            run_engine(r, EngineSettings(engine=engine))
        return
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
