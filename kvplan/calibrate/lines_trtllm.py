"""TensorRT-LLM start-up lines kvplan reads."""

from __future__ import annotations

import re

from kvplan.calibrate.lines import NUM, Run, _f, pattern, setting, values

# --- TensorRT-LLM -----------------------------------------------------------------------------


@pattern("trtllm", r"Memory usage when calculating max tokens in paged kv cache: total: " + NUM
         + r" GiB, available: " + NUM + " GiB")
def _t_available(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # One line per rank; every rank then takes the smallest max tokens (kvCacheManager.cpp: "make
    # sure all ranks use same value for maxTokens", COMM_SESSION.allreduce(..., MpiOp::MIN) in the
    # stored copies of the C++ calculation, code index ids 2600970701, 36938158234, 36939959573;
    # the Python KvCacheCreator's allreduce(max_tokens, MIN) likewise): the tightest rank counts
    # (log 251: 57.87 GiB on rank 0, 61.38-61.64 on the other seven, 52.08 = 0.9 x 57.87 pooled).
    if "available_gib" in r.values and r.values["available_gib"] <= _f(m[2]):
        return
    r.put("total_gib", _f(m[1]), n, t)
    r.put("available_gib", _f(m[2]), n, t)


values("trtllm", r"Number of blocks in KV cache primary pool: (\d+)", "blocks")


setting("trtllm", r"Number of tokens per block: (\d+)", "page_size")


@pattern("trtllm", r"Allocated " + NUM + r" GiB for max tokens in paged KV cache \((\d+)\)")
def _t_alloc(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # The PyTorch backend sizes the cache twice; the last line is the real pool.
    r.put("kv_gib", _f(m[1]), n, t)
    r.put("tokens", _f(m[2]), n, t)


@pattern("trtllm", r"Allocate (\d+) bytes for k/v cache")
def _t_alloc_bytes(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("kv_gib", _f(m[1]) / 2**30, n, t)


@pattern("trtllm", r"Using (\d+) (?:total )?tokens in paged KV cache")
def _t_using_tokens(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # TensorRT-LLM < 0.9 prints the tokens its fraction allows, before rounding up to blocks;
    # the 0.8 C++ runtime says "Using N total tokens in paged KV cache, and M blocks per sequence"
    r.put("tokens", _f(m[1]), n, t)


@pattern("trtllm", r"Both free_gpu_memory_fraction and max_tokens are set \(to " + NUM + r" and "
         + r"(\d+), respectively\)")
def _t_both(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.settings["free_gpu_memory_fraction"] = f"{_f(m[1]):.4g}"
    r.settings["max_tokens"] = m[2]


@pattern("trtllm", r"Peak memory during memory usage profiling \(torch \+ non-torch\): " + NUM
         + r" GiB, available KV cache memory when calculating max tokens: " + NUM
         + r" GiB, fraction is set " + NUM + r", kv size is (\d+)[.,] device total memory " + NUM
         + r" GiB, , tmp kv_mem " + NUM + " GiB")
def _t_peak(r: Run, m: re.Match[str], n: int, t: str) -> None:
    # "kv size is N." in 1.1 (logs 26, 241), "kv size is N," in 0.20.0 (logs 236-240, trtllm-bench)
    r.put("peak_gib", _f(m[1]), n, t)
    r.put("available_kv_gib", _f(m[2]), n, t)
    r.settings["free_gpu_memory_fraction"] = f"{_f(m[3]):.4g}"
    r.put("kv_bytes_per_token", _f(m[4]), n, t)
    r.put("total_gib", _f(m[5]), n, t)
    r.put("tmp_kv_gib", _f(m[6]), n, t)


@pattern("trtllm", r"Peak memory during memory usage profiling \(torch \+ non-torch\): " + NUM
         + r" GiB, available KV cache memory when calculating max tokens: " + NUM
         + r" GiB, fraction is set " + NUM + r", kv size per token is (\d+) bytes/token\. "
         r"device total memory " + NUM + r" GiB, temporary kv cache memory during profiling "
         + NUM + " GiB")
def _t_peak_v2(r: Run, m: re.Match[str], n: int, t: str) -> None:
    _t_peak(r, m, n, t)  # the same six numbers, reworded in later 1.x releases


# zufayu/ClaudeSkillsE2EPerf keeps only what its scripts/trim_logs.py drew from each start-up: the
# LLM API's own "LLM Args:" dump, reflowed one key=value to a line (format_llm_args, 4 spaces in),
# and [MEMORY] lines it reworded. The args dump is printed after the pool is sized: its
# KvCacheConfig carries the max_tokens the KV cache creator set (log 261 prints the same dump on
# one line: max_tokens=900796 as its "Both free_gpu_memory_fraction and max_tokens are set (to 0.9
# and 900796" warning, and the pool is that rounded up to whole blocks, "Allocated 109.96 GiB for
# max tokens in paged KV cache (900800)" = 28,150 x 32). Only the reflowed line (the key at the
# start of the line) is read, so a one-line dump that also prints the pool keeps its Allocated
# count; the tokens read are max_tokens, up to tokens_per_block - 1 below the pool's. 1.3.0rc10's
# KvCacheConfig prints two keys after tokens_per_block (use_kv_cache_manager_v2, max_util_for_resume:
# logs 320-322), so the count may end at a comma as well as at the closing parenthesis.
@pattern("trtllm", r"^\s*kv_cache_config=KvCacheConfig\(.*?\bmax_tokens=(\d+),.*?"
         r"\bfree_gpu_memory_fraction=([\d.]+),.*?\btokens_per_block=(\d+)[,)]")
def _t_reflowed_kv_config(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("tokens", _f(m[1]), n, t)
    r.settings["free_gpu_memory_fraction"] = f"{_f(m[2]):.4g}"
    r.settings["page_size"] = m[3]


# The reflowed LLM Args dump's MoeConfig (1.x): the MoE backend, reported in calibrate's notes where
# kvplan books nothing for it (kvplan.engines.trtllm_mla.deepgemm_workspace_bytes, task h39trt12).
setting("trtllm", r"^\s*moe_config=MoeConfig\(backend='(\w+)'", "moe_backend")


@pattern("trtllm", r"Reserving \S+ GiB for the multimodal encoder cache .*? " + NUM + r"\s*$")
def _t_mm_reserve(r: Run, m: re.Match[str], n: int, t: str) -> None:
    r.put("mm_encoder_cache_gib", _f(m[1]), n, t)


setting("trtllm", r"TensorRT-LLM version: (\S+)", "version")


values("trtllm", r"\[TRT-LLM\] \[I\] max_seq_len=(\d+)", "max_seq_len_final")
values("trtllm", r"maxSequenceLen are too large .*? they are reduced to (\d+)", "max_seq_len_final")

# What the C++ executor allocates before the pool (0.11-0.13 era: TrtGptModelInflightBatching's
# constructor, cpp/tensorrt_llm/batch_manager/trtGptModelInflightBatching.cpp at
# arthurrasmusson/TensorRT-LLM@2730076: createRuntimeContexts, createBuffers, createDecoder, then
# createKvCacheManager). The last two print MemoryCounters::bytesToString, whose units are binary
# ("1.00 KB" is 1 << 10 bytes, "1.00 MB" 1 << 20, "1.00 GB" 1 << 30: cpp/tensorrt_llm/runtime/
# memoryCounters.cpp, doubleBytesToString divides by 1024.0; cpp/tests/runtime/tllmBuffersTest.cpp
# BytesToString). Kept in GiB; kvplan.calibrate.breakdown.printed_terms_note reports them.
_COUNTER_UNITS = {"B": 0, "KB": 10, "MB": 20, "GB": 30, "TB": 40}
values("trtllm", r"Loaded engine size: " + NUM + r" MiB", "engine_mib")
values("trtllm", r"\[MemUsageChange\] Allocated " + NUM + r" MiB for execution context memory",
       "exec_context_mib")


@pattern("trtllm", r"\[MemUsageChange\] Allocated " + NUM + r" (B|KB|MB|GB|TB) GPU memory for "
         r"(runtime buffers|decoder)")
def _t_counter(r: Run, m: re.Match[str], n: int, t: str) -> None:
    key = "runtime_buffers_gib" if m[3] == "runtime buffers" else "decoder_gib"
    r.put(key, _f(m[1]) * 2 ** _COUNTER_UNITS[m[2]] / 2**30, n, t)


# TensorRT's own "[MemUsageChange]" lines (TensorRT 9, printed by the 0.8 runtime) end with "now:
# CPU X, GPU Y (MiB)". After "Init cuBLAS/cuBLASLt" and "Init cuDNN", Y is the device memory in use,
# weights included (log 145: 15,607 = 15,316 of deserialized weights + 8 of cuBLAS + 283); after
# "TensorRT-managed allocation ..." it is TensorRT's own running total (15,316), so those are not
# read as device use. The 0.8-era TllmRuntime constructor allocates the engine's
# getDeviceMemorySize() right after deserializing it (cpp/tensorrt_llm/runtime/tllmRuntime.cpp,
# code index id 710132357), and GptSession::setup / the in-flight batcher create the execution
# context next, whose first "Init cuBLAS" line comes first: what the device gained in between
# (less that line's own "+8") is the execution context as the log shows it (145: 15,835 - 8 -
# 15,617 = 210 MiB; 143: 19,711 - 8 - 15,681 = 4,022 MiB). Reported, not used for a prediction.
@pattern("trtllm", r"\[MemUsageChange\] Init (?:cuBLAS/cuBLASLt|cuDNN): CPU [+-]?\d+, GPU \+?(\d+), "
         r"now: CPU \d+, GPU (\d+) \(MiB\)")
def _t_init_now(r: Run, m: re.Match[str], n: int, t: str) -> None:
    added, used = _f(m[1]), _f(m[2])
    if "deserialized_used_mib" in r.values and "context_rise_mib" not in r.values:
        r.put("context_rise_mib", used - added - r.values["deserialized_used_mib"], n, t)
    r.put("gpu_used_mib", used, n, t)


@pattern("trtllm", r"\[MemUsageChange\] TensorRT-managed allocation in engine deserialization")
def _t_deserialized(r: Run, m: re.Match[str], n: int, t: str) -> None:
    if "gpu_used_mib" in r.values and "deserialized_used_mib" not in r.values:
        r.put("deserialized_used_mib", r.values["gpu_used_mib"], n, t)
