"""The calculator's rules: TP, PP, sliding windows, MLA, int4 scales, budgets, advice."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from kvplan.capacity import Allocation, SizeRequest, advise, fleet, size
from kvplan.capacity.kv import Precision, pipeline_stages, stage_caches
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, DType

H100 = load_hardware("h100")
H200 = load_hardware("h200")


def bpt(name: str, dtype: DType = DType.fp16, tp: int = 1, group: int = 64) -> int:
    return stage_caches(load_model(name), Precision(dtype, group), tp, 1)[0].bytes_per_token


def test_tp_splits_kv_heads():
    assert bpt("llama-3-8b", tp=2) == 65_536
    assert bpt("llama-3-8b", tp=8) == 16_384


def test_tp_beyond_kv_heads_replicates_one_head():
    # 8 KV heads over 16 GPUs: each still holds one whole head
    assert bpt("llama-3-8b", tp=16) == bpt("llama-3-8b", tp=8) == 32 * 256 * 2


def test_mla_latent_is_not_split_by_tp():
    # DeepSeek-V3: 61 layers x (512 + 64) x 2 bytes, the same on every rank
    assert bpt("deepseek-v3") == 70_272
    assert bpt("deepseek-v3", tp=8) == 70_272


def test_int4_carries_group_scales():
    # Llama-3-8B: per layer 8 heads x 2 vectors x (128 x 4 bits + 2 groups x 16 bits) = 8,704 bits
    assert bpt("llama-3-8b", DType.int4) == 32 * 8 * 2 * (128 * 4 + 2 * 16) // 8 == 34_816
    assert bpt("llama-3-8b", DType.int4, group=128) == 32 * 8 * 2 * (64 + 2)
    assert bpt("llama-3-8b", DType.int8) == 65_536


def test_sliding_window_caps_the_cache():
    m = load_model("mistral-7b-v0.1")
    req = SizeRequest(model=m, gpu=H100, context_tokens=32768, allocation=Allocation.reserved)
    r = size(req)
    assert r.kv_bytes_per_token == 131_072
    assert r.kv_bytes_per_token_beyond_window == 0
    assert r.kv_bytes_per_sequence == 4096 * 131_072  # the window, not 32k
    short = size(replace(req, allocation=Allocation.paged, avg_context_tokens=1000))
    assert short.kv_bytes_per_sequence == 1008 * 131_072  # 63 blocks of 16


def test_pipeline_stages_follow_vllm():
    assert [len(s) for s in pipeline_stages(32, 2)] == [16, 16]
    assert [len(s) for s in pipeline_stages(61, 4)] == [15, 15, 16, 15]
    assert [len(s) for s in pipeline_stages(126, 4)] == [31, 32, 32, 31]


def test_pipeline_bottleneck_stage_sets_capacity():
    m = load_model("deepseek-v3")
    stages = stage_caches(m, Precision(DType.fp16), tp=8, pp=4)
    assert max(s.bytes_per_token for s in stages) == 16 * 1152


def test_weights_do_not_fit_says_so_and_suggests():
    req = SizeRequest(model=load_model("llama-3.1-70b"), gpu=H100, context_tokens=8192)
    r = size(req)
    assert not r.fits and r.users_per_replica == 0 and r.kv_budget_bytes == 0
    assert "weights need" in (r.reason or "")
    advised = advise(r, [H100, H200], size)
    assert any(t.startswith("--tp 2") for t in advised.suggestions)
    assert any(t.startswith("--weight-dtype fp8") for t in advised.suggestions)
    assert not any(t.startswith("--gpu") for t in advised.suggestions)  # 141 GB > an H200 too


def test_bigger_gpu_is_suggested_when_one_fits():
    small = H100.model_copy(update={"name": "small-20gib", "memory_bytes": 20 * GIB})
    r = size(SizeRequest(model=load_model("llama-2-13b"), gpu=small, context_tokens=4096))
    assert not r.fits
    advised = advise(r, [small, H100, H200], size)
    assert any(t.startswith("--gpu h100-sxm-80gb") for t in advised.suggestions)


def test_context_too_long_for_pool_reports_longest_that_fits():
    req = SizeRequest(
        model=load_model("llama-3.1-8b"), gpu=H100, context_tokens=131072, kv_budget_bytes=GIB
    )
    r = size(req)
    assert not r.fits
    assert r.max_context_that_fits == 8192


def test_shared_prefix_is_stored_once():
    base = SizeRequest(
        model=load_model("llama-3-8b"), gpu=H100, context_tokens=8192, avg_context_tokens=2000,
        kv_budget_bytes=60 * GIB,
    )
    r = size(replace(base, shared_prefix_tokens=1500))
    # 1,500 tokens = 93 whole blocks (1,488 tokens) shared; each sequence keeps 2,000 - 1,488
    assert r.shared_prefix_bytes == 1488 * 131_072
    assert r.kv_bytes_per_sequence == (2000 - 1488) * 131_072
    assert r.users_per_replica == (60 * GIB - 1488 * 131_072) // (512 * 131_072)


def test_breakdown_adds_up():
    r = size(SizeRequest(model=load_model("llama-3-8b"), gpu=H100, context_tokens=8192))
    assert sum(r.breakdown.parts().values()) == H100.memory_bytes


def test_tp_users_per_gpu_is_fraction_of_replica():
    r = size(SizeRequest(model=load_model("llama-3.1-70b"), gpu=H100, context_tokens=8192, tp=4))
    assert r.users_per_gpu == Fraction(r.users_per_replica, 4)
    f = fleet(replace(r.request), peak_users=1000)
    assert f.gpus_needed == f.replicas * 4


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"context_tokens": 0}, "context must be a positive integer"),
        ({"memory_utilization": Fraction(3, 2)}, "memory utilization must be in (0, 1]"),
        ({"context_tokens": 9000}, "exceeds llama-3-8b's max_context_tokens 8,192"),
        ({"avg_context_tokens": 9000}, "exceeds the maximum context"),
        ({"tp": 0}, "tp must be a positive integer"),
        ({"kv_budget_bytes": 100 * GIB}, "exceeds h100-sxm-80gb's"),
    ],
)
def test_impossible_settings_are_refused(change, message):
    req = replace(
        SizeRequest(model=load_model("llama-3-8b"), gpu=H100, context_tokens=8192), **change
    )
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        size(req)
