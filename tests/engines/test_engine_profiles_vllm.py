"""Engine profiles: vLLM's own rules (page sizes, refusals, CUDA graphs, batching defaults,
hybrid groups, the activation peak) checked on logged figures; split from
test_engine_profiles.py."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from kvplan.engines import Engine, EngineSettings, Measured, run_engine, vllm
from kvplan.engines.activation import activation_peak
from kvplan.engines.common import LayerShape
from kvplan.specs import load_model
from kvplan.units import GIB, DType
from tests.engines.profile_requests import H100, H200, gib, req


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
    # the estimate by the capture sizes (kvplan.engines.vllm_capture): H100 serve defaults 8,192
    # tokens / 1,024 sequences -> sizes up to min(2 x 1,024, 512) = 512: 51 PIECEWISE + 51 FULL
    # (every size <= 1,024) = 102 graphs in 2 modes: 358,612,992 B first capture + 100 later x
    # 32 layers x 89,653 B = 645,502,592 B (task h44graphbase)
    assert old.kv_cache_bytes - new.kv_cache_bytes == 358_612_992 + 100 * 32 * 89_653
    assert old.kv_cache_bytes - new.kv_cache_bytes == 645_502_592
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
