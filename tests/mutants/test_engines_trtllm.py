"""TensorRT-LLM's profile in full: every number of an EngineResult, its explain steps, notes and
log lines for representative cases (the 1.x PyTorch backend and the TensorRT engine, TP 1 and 4,
fp8 weights, a stated max_tokens and max_batch_size, logged free memory, a lowered max_seq_len,
one that does not start). Each expected number is worked by hand in the comments from the
accounting the TensorRT-LLM docs ("Memory Usage of TensorRT-LLM") and kvCacheManager.cpp
describe, as kvplan.engines.trtllm's docstring quotes them: KV = floor((total - weights -
activations - non-torch) x free_gpu_memory_fraction); max_tokens = KV // bytes per token;
blocks = ceil(max_tokens / tokens per block).

These close the mutants `benchmarks/mutation.py` found alive in kvplan/engines/trtllm.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from kvplan.capacity.plan import Breakdown
from kvplan.engines import Engine, EngineResult, Measured
from kvplan.engines.trtllm import tokens_per_block
from kvplan.units import DType
from tests.mutants.engine_runs import GIB, MIB, assert_weights_overflow, numbers, run


def trtllm(model: str, gpu: str, ctx: int, version: str | None = None,
           **kw: object) -> EngineResult:
    return run(Engine.trtllm, model, gpu, ctx, version, **kw)


@pytest.mark.parametrize(("version", "tokens"), [
    ((0, 18, 2), 64), ((0, 19), 32), ((0, 19, 0), 32), ((1, 0), 32), ((0, 9), 64)])
def test_tokens_per_block_changes_at_019(version: tuple[int, ...], tokens: int):
    assert tokens_per_block(version) == tokens


FORMULAS = [
    ("GPU memory", "device total"),
    ("weights", "8,030,261,248 params x 16 bits / 1 GPU(s)"),
    ("activations",
     "max(forward 8,192 tok x 55,296 el x 2 B, sampler 0 rows x vocab 128,256 x 40 B)"),
    ("non-torch memory", "outside torch at the profiled peak (CUDA context, CUDA graphs, "
     "workspaces; fitted on log 19)"),
    ("free memory", "GPU memory - weights - activations - non-torch"),
    ("free_gpu_memory_fraction", "default 0.9"),
    ("KV cache memory", "floor(free memory x fraction)"),
    ("KV bytes per token per layer", "K + V of one layer on this GPU"),
    ("cached layers", "every attention layer"),
    ("KV bytes per token", "all layers"),
    ("tokens per block", "TensorRT-LLM 1.3.0"),
    ("max tokens (raw)", "floor(KV cache memory / bytes per token)"),
    ("max tokens (>= 0)", "never below 0"),
    ("blocks", "ceil(max tokens / tokens per block)"),
    ("KV cache tokens", "blocks x tokens per block"),
    ("KV pool", "what is allocated"),
    ("maximum concurrency", "tokens / max_seq_len 8,192"),
    ("KV bytes per sequence",
     "8,192 tokens, paged in 32-token blocks, every cached layer on this GPU"),
    ("users per replica", "floor(KV pool / KV bytes per sequence)"),
    ("GPUs per replica", "tp 1 x pp 1"),
    ("users per GPU", "users per replica / GPUs per replica"),
]


def test_llama3_8b_on_one_h100_with_the_default_130_in_every_field():
    r = trtllm("llama-3-8b", "h100", 8192)
    # activations: the forward over max_num_tokens 8,192, no sampler rows: 8,192 x 55,296 x 2 B
    # = 905,969,664 (low int(0.85 x) 770,074,214, high int(1.35 x) 1,223,059,046 + 0.25 GiB
    # = 1,491,494,502); non-torch of the PyTorch backend (1,617, 400, 2,048 MiB;
    # trtllm_pytorch.NON_TORCH_PYTORCH, fitted on log 19).
    # free 85,045,477,376 - 16,060,522,496 - 905,969,664 - 1,695,547,392 = 66,383,437,824;
    # KV floor(0.9 x) = 59,745,094,041 -> // 131,072 = 455,818 tokens -> ceil(/ 32) = 14,245
    # blocks = 455,840 tokens, pool 455,840 x 131,072 = 59,747,860,480 (rounded up, as
    # kvCacheManager does); 8,192 tokens a user (1 GiB): 55 users.
    # low: free - (1,491,494,502 - 905,969,664) - (2 GiB - 1,617 MiB) = 65,345,976,730; x 0.9 =
    #   58,811,379,057 -> 448,695 tokens -> 14,022 blocks = 448,704 tokens;
    # high: free + 135,895,450 + 1,276,116,992 = 67,795,450,266; x 0.9 = 61,015,905,239 ->
    #   465,514 -> 14,548 blocks = 465,536 tokens.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=59_745_094_041,
        weights_bytes=16_060_522_496, activation_bytes=905_969_664,
        activation_bytes_low=770_074_214, activation_bytes_high=1_491_494_502,
        non_torch_bytes=1617 * MIB, cuda_graph_bytes=0,
        kv_cache_bytes=59_747_860_480, kv_cache_bytes_low=448_704 * 131_072,
        kv_cache_bytes_high=465_536 * 131_072, kv_cache_tokens=455_840,
        kv_cache_tokens_low=448_704, kv_cache_tokens_high=465_536, blocks=14_245,
        block_size_tokens=32, max_model_len=8192, max_concurrency=Fraction(455_840, 8192),
        starts=True, reason=None, max_model_len_that_starts=8192)
    assert r.engine is Engine.trtllm and r.engine_version == "1.3.0"
    s = r.size
    # usable = weights + KV (requested) + activations + non-torch = 78,407,133,593; the
    # overhead is what is left beside weights and pool: 85,045,477,376 - 16,060,522,496 - 59,747,860,480
    assert (s.users_per_replica, s.kv_budget_bytes, s.usable_bytes) == (
        55, 59_747_860_480, 78_407_133_593)
    assert s.breakdown == Breakdown(
        total_bytes=85_045_477_376, weights_bytes=16_060_522_496, kv_used_bytes=55 * GIB,
        kv_free_bytes=59_747_860_480 - 55 * GIB, reserve_bytes=9_237_094_400,
        unallocated_bytes=0)
    assert (s.request.block_size_tokens, s.request.allocation.value) == (32, "paged")
    assert [(st.label, st.formula) for st in r.steps] == FORMULAS
    assert [(st.label, st.value, st.op, st.args) for st in r.steps] == [
        ("GPU memory", 85_045_477_376, "given", ()),
        ("weights", 16_060_522_496, "given", ()),
        ("activations", 905_969_664, "given", ()),
        ("non-torch memory", 1617 * MIB, "given", ()),
        ("free memory", 66_383_437_824, "sum",
         ("GPU memory", "-weights", "-activations", "-non-torch memory")),
        ("free_gpu_memory_fraction", Fraction(9, 10), "given", ()),
        ("KV cache memory", 59_745_094_041, "mul", ("free memory", "free_gpu_memory_fraction")),
        ("KV bytes per token per layer", 4096, "given", ()),
        ("cached layers", 32, "given", ()),
        ("KV bytes per token", 131_072, "mul", ("KV bytes per token per layer",
                                                "cached layers")),
        ("tokens per block", 32, "given", ()),
        ("max tokens (raw)", 455_818, "div", ("KV cache memory", "KV bytes per token")),
        ("max tokens (>= 0)", 455_818, "max", ("max tokens (raw)", 0)),
        ("blocks", 14_245, "ceildiv", ("max tokens (>= 0)", "tokens per block")),
        ("KV cache tokens", 455_840, "mul", ("blocks", "tokens per block")),
        ("KV pool", 59_747_860_480, "mul", ("KV cache tokens", "KV bytes per token")),
        ("maximum concurrency", Fraction(455_840, 8192), "ratio", ("KV cache tokens", 8192)),
        ("KV bytes per sequence", GIB, "given", ()),
        ("users per replica", 55, "div", ("KV pool", "KV bytes per sequence")),
        ("GPUs per replica", 1, "given", ()),
        ("users per GPU", 55, "ratio", ("users per replica", "GPUs per replica")),
    ]
    assert r.assumptions == (
        "TensorRT-LLM 1.3.0 (PyTorch backend), free_gpu_memory_fraction 0.9 of the memory free "
        "after weights",
        "32 tokens per block, fp16 cache",
    )
    assert r.log_lines == (
        "Number of tokens per block: 32.",
        # 59,747,860,480 / 2^30 = 55.64
        "[MemUsageChange] Allocated 55.64 GiB for max tokens in paged KV cache (455840).")


def test_a_tp4_fp8_engine_with_max_tokens_and_max_batch_size_in_every_field():
    r = trtllm("llama-3.1-70b", "h100", 32768, "0.18.2", tp=4, weight_dtype=DType.fp8,
               max_tokens=500_000, max_batch_size=8, max_num_batched_tokens=4096)
    # fp8 weights: embeddings + head 2 x 128,256 x 8,192 = 2,101,346,304 params in 2 B, the
    # other 68,452,360,192 in 1 B (no group scales): 72,655,052,800 / 4 = 18,163,763,200.
    # activations 4,096 x 46,080 x 2 B = 377,487,360 (low 320,864,256; high int(1.35 x)
    # 509,607,936 + 0.25 GiB = 778,043,392; fp8 is not an int checkpoint: no 2 GiB).
    # runtime buffers and decoder (trtllm_buffers) at 8 slots: 8 x (128,256 x (4 + 12) +
    # 32,768 x (12 + 16)) = 23,756,800; free 85,045,477,376 - 18,163,763,200 - 377,487,360 -
    # 805,306,368 - 23,756,800 = 65,675,163,648;
    # KV floor(0.9 x) = 59,107,647,283 -> // (80 x 2 x 256 x 2 B = 81,920) = 721,528 tokens,
    # max_tokens 500,000 -> ceil(/ 64) = 7,813 blocks = 500,032 tokens, pool 40,962,621,440;
    # the range is capped the same way. Users 40,962,621,440 // 2,684,354,560 = 15, capped 8.
    # The TensorRT engine fits (7,813 - 1) x 64 + 1 = 499,969 tokens in one sequence.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=59_107_647_283,
        weights_bytes=18_163_763_200, activation_bytes=377_487_360,
        activation_bytes_low=320_864_256, activation_bytes_high=778_043_392,
        non_torch_bytes=768 * MIB + 23_756_800, cuda_graph_bytes=0,
        kv_cache_bytes=40_962_621_440, kv_cache_bytes_low=40_962_621_440,
        kv_cache_bytes_high=40_962_621_440, kv_cache_tokens=500_032,
        kv_cache_tokens_low=500_032, kv_cache_tokens_high=500_032, blocks=7813,
        block_size_tokens=64, max_model_len=32768, max_concurrency=Fraction(500_032, 32768),
        starts=True, reason=None, max_model_len_that_starts=32768)
    s = r.size
    assert (s.users_per_replica, s.breakdown.kv_used_bytes) == (8, 8 * 2_684_354_560)
    by_label = {st.label: st for st in r.steps}
    # the embeddings and LM head stay 16-bit: 2 x 128,256 x 8,192 = 2,101,346,304 params
    assert by_label["weights"].formula == ("70,553,706,496 params x 8 bits / 4 GPU(s), the "
                                           "embeddings and LM head (2,101,346,304 params) in 16 bits")
    capped = by_label["max tokens"]
    # no free_gpu_memory_fraction stated: on the engine path max_tokens replaces the estimate
    # (kvCacheManager.cpp calculateMaxNumBlocks; tests/engines/test_trtllm_source.py)
    assert (capped.value, capped.op, capped.args, capped.formula) == (
        500_000, "given", (), "max_tokens_in_paged_kv_cache (no fraction set: replaces the estimate)")
    assert by_label["max tokens (>= 0)"].args == ("max tokens", 0)
    assert by_label["tokens per block"].formula == "TensorRT-LLM 0.18.2"
    assert (by_label["users per replica"].value, by_label["users per GPU"].value) == (
        15, Fraction(15, 4))
    assert r.assumptions == (
        "TensorRT-LLM 0.18.2 (TensorRT engine), max_tokens_in_paged_kv_cache 500,000 replaces the "
        "memory estimate (no free_gpu_memory_fraction set)",
        "64 tokens per block, fp16 cache",
        "users capped at max_batch_size 8",
    )
    assert r.log_lines == (
        "Number of tokens per block: 64.",
        "[MemUsageChange] Allocated 38.15 GiB for max tokens in paged KV cache (500032).")


def test_caps_at_the_pool_change_nothing():
    # 455,840 tokens hold 55 users (above): a max_batch_size of 55 and max_tokens above the raw
    # 455,818 leave both
    r = trtllm("llama-3-8b", "h100", 8192, max_batch_size=55, max_tokens=455_818)
    assert (r.kv_cache_tokens, r.size.users_per_replica) == (455_840, 55)
    assert len(r.assumptions) == 2


def test_free_memory_after_the_weights_from_a_log():
    r = trtllm("llama-3-8b", "h100", 8192,
               measured=Measured(free_after_load_bytes=60 * GIB, weights_bytes=15 * GIB))
    # KV floor(60 GiB x 0.9) = 54 GiB = 442,368 tokens of 131,072 B = 13,824 blocks exactly;
    # activations 0 and non-torch = 85,045,477,376 - 15 GiB - 60 GiB = 4,514,840,576 (what the
    # log's free memory leaves); the range is that exact number.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=54 * GIB, weights_bytes=15 * GIB,
        activation_bytes=0, activation_bytes_low=0, activation_bytes_high=0,
        non_torch_bytes=4_514_840_576, cuda_graph_bytes=0, kv_cache_bytes=54 * GIB,
        kv_cache_bytes_low=54 * GIB, kv_cache_bytes_high=54 * GIB, kv_cache_tokens=442_368,
        kv_cache_tokens_low=442_368, kv_cache_tokens_high=442_368, blocks=13_824,
        block_size_tokens=32, max_model_len=8192, max_concurrency=Fraction(54),
        starts=True, reason=None, max_model_len_that_starts=8192)
    assert r.size.users_per_replica == 54
    assert [(st.label, st.value, st.formula) for st in r.steps[:3]] == [
        ("GPU memory", 85_045_477_376, "device total"),
        ("free memory", 60 * GIB, "measured (log: available / total - peak)"),
        ("free_gpu_memory_fraction", Fraction(9, 10), "default 0.9"),
    ]


def test_a_70b_on_one_h100_does_not_start():
    r = trtllm("llama-3.1-70b", "h100", 8192)
    # free 85,045,477,376 - 141,107,412,992 - 1,811,939,328 - 1,695,547,392 = -59,569,422,336;
    # KV floor(0.9 x) = -53,612,480,103 (-49.93 GiB): no tokens, no blocks
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=-53_612_480_103,
        weights_bytes=141_107_412_992, activation_bytes=1_811_939_328,
        activation_bytes_low=1_540_148_428, activation_bytes_high=2_714_553_548,
        non_torch_bytes=1617 * MIB, cuda_graph_bytes=0, kv_cache_bytes=0,
        kv_cache_bytes_low=0, kv_cache_bytes_high=0, kv_cache_tokens=0,
        kv_cache_tokens_low=0, kv_cache_tokens_high=0, blocks=0, block_size_tokens=32,
        max_model_len=8192, max_concurrency=Fraction(0), starts=False,
        reason="TensorRT-LLM would not start: no KV blocks fit (-49.93 GiB for the cache); raise "
               "free_gpu_memory_fraction or add GPUs",
        max_model_len_that_starts=0)
    assert_weights_overflow(r, 85_045_477_376, 141_107_412_992)
    assert r.steps[-3].formula == "the engine does not start"
    assert len(r.assumptions) == 2


def test_a_pytorch_backend_pool_shorter_than_max_seq_len_on_a_newer_release():
    r = trtllm("llama-3.1-70b", "h100", 131072, "1.5.0", tp=2, page_size_tokens=16,
               measured=Measured(activation_bytes=GIB, non_torch_bytes=GIB))
    # free 85,045,477,376 - 70,553,706,496 - 1 GiB - 1 GiB = 12,344,287,232; KV floor(0.9 x) =
    # 11,109,858,508 -> // (80 x 2,048 = 163,840) = 67,809 tokens -> ceil(/ 16) = 4,239 blocks
    # = 67,824 tokens (pool 11,112,284,160). From 1.0 the longest sequence is blocks x 16 =
    # 67,824: max_seq_len lowered to it; no user of 131,072 tokens fits.
    assert numbers(r) == dict(
        memory_bytes=85_045_477_376, requested_bytes=11_109_858_508,
        weights_bytes=70_553_706_496, activation_bytes=GIB, activation_bytes_low=GIB,
        activation_bytes_high=GIB, non_torch_bytes=GIB, cuda_graph_bytes=0,
        kv_cache_bytes=11_112_284_160, kv_cache_bytes_low=11_112_284_160,
        kv_cache_bytes_high=11_112_284_160, kv_cache_tokens=67_824, kv_cache_tokens_low=67_824,
        kv_cache_tokens_high=67_824, blocks=4239, block_size_tokens=16, max_model_len=131_072,
        max_concurrency=Fraction(67_824, 131_072), starts=True, reason=None,
        max_model_len_that_starts=67_824)
    s = r.size
    assert (s.users_per_replica, s.fits, s.max_context_that_fits) == (0, False, 67_824)
    assert s.reason == ("one sequence of 131,072 tokens needs 20 GiB of cache but the pool is "
                        "10.35 GiB; the longest context that fits is 67,824 tokens")
    assert r.steps[2].formula == "measured (log)"
    assert r.assumptions[2:] == (
        "max_seq_len would be lowered to 67,824 to fit one sequence",
        "TensorRT-LLM 1.5.0 is newer than the newest modelled release (1.3.0): modelled as the "
        "1.x PyTorch backend",
    )


def test_a_tensorrt_engine_fits_one_token_less_than_its_blocks():
    r = trtllm("llama-3.1-70b", "h100", 131072, "0.12.0", tp=2, memory_fraction=Fraction(1, 2))
    # activations 8,192 x 67,584 x 2 B = 1,107,296,256; runtime buffers and decoder at
    # trtllm-build 0.12's default 256 slots (trtllm_buffers), vocab 128,256, max_seq_len 131,072:
    # best 256 x (128,256 x (4 + 12) + 131,072 x (12 + 16)) = 1,464,860,672 (low 16-bit logits
    # 256 x (128,256 x (2 + 10) + 131,072 x 28) = 1,333,526,528; high 256 x (128,256 x (4 + 24)
    # + 131,072 x 28) = 1,858,863,104); free 85,045,477,376 - 70,553,706,496 - 1,107,296,256 -
    # 805,306,368 - 1,464,860,672 = 11,114,307,584; KV x 0.5 = 5,557,153,792 -> 33,918 tokens
    # -> 530 blocks of 64 = 33,920 tokens; before 1.0 the engine fits (530 - 1) x 64 + 1 =
    # 33,857 tokens in one sequence.
    # low: free - 655,989,145 - 1,342,177,280 - 394,002,432 = 8,722,138,727, x 0.5 ->
    # 26,617 tokens -> 416 blocks = 26,624; high: free + 166,094,439 + 385,875,968 +
    # 131,334,144 = 11,797,612,135, x 0.5 -> 36,003 -> 563 blocks = 36,032.
    assert 256 * (128_256 * 16 + 131_072 * 28) == 1_464_860_672
    assert (r.requested_bytes, r.kv_cache_tokens, r.blocks, r.max_model_len_that_starts) == (
        5_557_153_792, 33_920, 530, 33_857)
    assert (r.kv_cache_tokens_low, r.kv_cache_tokens_high) == (26_624, 36_032)
    assert (r.kv_cache_bytes_low, r.kv_cache_bytes_high) == (
        26_624 * 163_840, 36_032 * 163_840)
    assert r.steps[4].label == "runtime buffers and decoder"
    assert r.steps[6].formula == "flag"
    assert r.assumptions == (
        "TensorRT-LLM 0.12.0 (TensorRT engine), free_gpu_memory_fraction 0.5 of the memory free "
        "after weights",
        "64 tokens per block, fp16 cache",
        "max_seq_len would be lowered to 33,857 to fit one sequence",
    )
