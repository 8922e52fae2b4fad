"""TensorRT-LLM's KV pool arithmetic as its source states it, with real values.

C++ KVCacheManager::calculateMaxNumBlocks (cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp,
0.11/0.12-era batch manager as stored at arthurrasmusson/TensorRT-LLM@2730076):
  maxTokens = floor(freeGpuMemoryFraction x (free + memoryPoolFree) / cacheSizeBytesPerToken)
  maxTokens = min(maxTokens, maxTokens flag) if the fraction was set, else the flag alone
  blocksInPrimaryPool = ceilDiv(maxTokens, tokensPerBlock)
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, Measured, run_engine
from kvplan.specs import load_hardware, load_model
from kvplan.units import GIB, DType

RTX3090 = load_hardware("rtx-3090")
PER_TOKEN = 32 * 8 * 128 * 2 * 2  # Llama-3-8B bf16: 131,072 B (tests/assets/logs/145's note)
FREE = 10 * GIB  # 10,737,418,240 B free when the pool is sized


def _req() -> SizeRequest:
    return SizeRequest(model=load_model("llama-3-8b"), gpu=RTX3090, context_tokens=2048,
                       kv_dtype=DType.bf16, tp=1)


def _run(version: str, **kw):
    return run_engine(_req(), EngineSettings(engine=Engine.trtllm, version=version,
                                             page_size_tokens=128,
                                             measured=Measured(free_after_load_bytes=FREE), **kw))


def test_fraction_of_free_memory_floor_then_whole_blocks():
    # floor(0.9 x 10,737,418,240 / 131,072) = floor(73,728.0) = 73,728 tokens; ceil(/128) = 576
    r = _run("0.8.0", memory_fraction=Fraction(9, 10))
    assert 9 * FREE // 10 // PER_TOKEN == 73_728
    assert r.kv_cache_tokens == 73_728 and r.blocks == 576
    assert r.kv_cache_bytes == 73_728 * PER_TOKEN


def test_log_145_pool_from_its_free_memory():
    # log 145: "Allocate 7952400384 bytes for k/v cache", 60,672 tokens = 474 x 128;
    # 7,952,400,384 / 0.9 = 8,836,000,426.7 B free at least, so 8,836,000,427 gives it back
    r = run_engine(_req(), EngineSettings(
        engine=Engine.trtllm, version="0.8.0", page_size_tokens=128,
        memory_fraction=Fraction(9, 10),
        measured=Measured(free_after_load_bytes=8_836_000_427)))
    assert r.kv_cache_tokens == 60_672 and r.kv_cache_bytes == 7_952_400_384


def test_max_tokens_alone_replaces_the_estimate_on_the_engine_path():
    # no fraction: "will use default value of 0.9 or max_tokens_in_paged_kv_cache" (log 143);
    # calculateMaxNumBlocks takes maxTokens as given: 2,560 tokens = 20 blocks of 128
    r = _run("0.8.0", max_tokens=2560)
    assert r.kv_cache_tokens == 2560 and r.blocks == 20 and r.starts


def test_max_tokens_with_a_fraction_takes_the_smaller():
    # both set: min(73,728, 200,000) = 73,728
    r = _run("0.8.0", memory_fraction=Fraction(9, 10), max_tokens=200_000)
    assert r.kv_cache_tokens == 73_728


def test_max_tokens_alone_beyond_free_memory_does_not_start():
    # 200,000 x 131,072 = 26,214,400,000 B > 10 GiB free: the pool's cudaMalloc fails
    r = _run("0.8.0", max_tokens=200_000)
    assert r.kv_cache_tokens == 200_064 and not r.starts
    assert "max_tokens_in_paged_kv_cache 200,000" in (r.reason or "")


def test_llm_api_always_sets_the_fraction_so_max_tokens_caps():
    # 1.x LLM API: KvCacheConfig.free_gpu_memory_fraction defaults to 0.9, so the smaller counts
    r = _run("1.2.1", max_tokens=200_000)
    assert r.kv_cache_tokens == 73_728 and r.starts


def test_pytorch_backend_available_times_fraction_floor():
    # _util.py cal_max_tokens: available = (total - peak + tmp pool) x fraction; with the log's free
    # memory standing for total - peak: floor(0.85 x 10 GiB / 131,072) = floor(69,632.0) = 69,632,
    # ceil(/32) = 2,176 blocks at 1.x's 32-token blocks
    r = run_engine(_req(), EngineSettings(engine=Engine.trtllm, version="1.2.1",
                                          memory_fraction=Fraction(85, 100),
                                          measured=Measured(free_after_load_bytes=FREE)))
    assert 85 * FREE // 100 // PER_TOKEN == 69_632
    assert r.kv_cache_tokens == 69_632 and r.blocks == 2_176 and r.block_size_tokens == 32


def _qwen3_06b_on_h100(version: str):
    req = SizeRequest(model=load_model("qwen3-0.6b"), gpu=load_hardware("h100"),
                      context_tokens=8192, kv_dtype=DType.bf16, tp=1)
    return run_engine(req, EngineSettings(engine=Engine.trtllm, version=version))


def test_pytorch_backend_outside_torch_term_fitted_on_log_19():
    # tests/assets/logs/19 (fit part): Qwen3-0.6B, 1.2.1, H100, defaults, 643,136 tokens
    # (68.69 GiB). KvCacheCreator: peak = torch peak + (mem_get_info used - torch allocated),
    # available = (total - peak + profiling pool) x 0.9; kvplan: free = 85,045,477,376 -
    # 1,192,099,840 weights - 201,326,592 forward (8,192 x 12,288 x 2 B) - 1,617 MiB
    # (1,695,547,392) = 81,956,503,552; floor(0.9 x) = 73,760,853,196; // 114,688 (28 x 8 x 128
    # x 2 x 2 B) = 643,143 -> 20,099 blocks of 32 = 643,168 tokens, one block above the log's.
    r = _qwen3_06b_on_h100("1.2.1")
    assert r.non_torch_bytes == 1_695_547_392 and r.activation_bytes == 201_326_592
    assert (r.requested_bytes, r.kv_cache_tokens, r.blocks) == (73_760_853_196, 643_168, 20_099)
    assert r.kv_cache_tokens - 643_136 == 32
    assert (r.kv_cache_tokens_low, r.kv_cache_tokens_high) == (636_960, 653_408)


def test_the_engine_path_keeps_the_engine_docs_non_torch():
    # before 1.0 kvplan models the TensorRT engine path: 768 MiB non-torch (the docs' example),
    # plus the C++ executor's runtime buffers and decoder at trtllm-build's default
    # max_batch_size 2,048 (kvplan/engines/trtllm_buffers.py): 2,048 x (151,936 x (4 + 12) +
    # 8,192 x (12 + 16)) = 5,448,400,896; free = 85,045,477,376 - 1,192,099,840 - 201,326,592 -
    # 805,306,368 - 5,448,400,896 = 77,398,343,680; floor(0.9 x) = 69,658,509,312 // 114,688 =
    # 607,380 -> 18,981 blocks of 32 = 607,392 tokens
    assert 2_048 * (151_936 * (4 + 12) + 8_192 * (12 + 16)) == 5_448_400_896
    r = _qwen3_06b_on_h100("0.21.0")
    assert r.non_torch_bytes == 805_306_368 + 5_448_400_896
    assert (r.requested_bytes, r.kv_cache_tokens) == (69_658_509_312, 607_392)
