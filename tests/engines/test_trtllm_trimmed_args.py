"""zufayu/ClaudeSkillsE2EPerf keeps TensorRT-LLM start-ups only as its scripts/trim_logs.py rewrote
them: the LLM API's "LLM Args:" dump reflowed one key=value a line, and reworded [MEMORY] lines.
`kvplan calibrate` reads the engine's own KvCacheConfig from the reflowed dump (max_tokens, the
fraction, tokens_per_block) and nothing else from the rewritten lines."""

from __future__ import annotations

from pathlib import Path

from kvplan.calibrate.parse import parse_text

# results/b200_dsr_fp8/b200_dsr_fp8_mtp0_ep1_tp8_post3/server_fp8_throughput_chat_ep1_c64.trimmed.log
# at zufayu/ClaudeSkillsE2EPerf@f655ecbe (log 311's source), verbatim lines
EXCERPT = """[SERVER RUNTIME]
  LLM Args:
    model='/home/models/models--DeepSeek-R1-0528'
    tensor_parallel_size=8
    moe_expert_parallel_size=1
    kv_cache_config=KvCacheConfig(enable_block_reuse=False, max_tokens=2099464, \
max_attention_window=None, sink_token_length=None, free_gpu_memory_fraction=0.8, host_cache_size=None, \
onboard_blocks=True, cross_kv_cache_fraction=None, secondary_offload_min_priority=None, \
event_buffer_max_size=0, attention_dp_events_gather_period_ms=5, enable_partial_reuse=True, \
copy_on_partial_reuse=True, use_uvm=False, max_gpu_total_bytes=73766802227, dtype='fp8', \
mamba_ssm_cache_dtype='auto', tokens_per_block=32)
    max_batch_size=2048
    max_seq_len=8192
    max_num_tokens=8192
  Runtime: max_seq_len=8193, max_num_requests=2048, max_num_tokens=8192, max_batch_size=2048

[MEMORY]
  Model weights (torch): 81.97 GiB
  Model weights (non-torch): 10.50 GiB
  Peak memory: 92.75 GiB, KV cache: 68.70 GiB (fraction=0.8)
  Estimated KV cache: 68.70 GiB
  PyTorch memory fraction: 0.5781128939969282 (103.1070556640625 GiB)
"""


def test_the_reflowed_kv_cache_config_gives_the_engines_max_tokens() -> None:
    """max_tokens 2,099,464 is the KV cache creator's own count: max_gpu_total_bytes
    73,766,802,227 // 35,136 B a token (61 x 576 x 1 B, fp8 MLA) = 2,099,464 (2,099,464 x 35,136
    = 73,766,767,104, 35,123 B below it: less than one token)."""
    assert 73_766_802_227 // 35_136 == 2_099_464
    run = parse_text("# engine: trtllm\n" + EXCERPT, Path("x.log")).runs[0]
    assert run.values == {"tokens": 2_099_464}
    assert run.settings["free_gpu_memory_fraction"] == "0.8"
    assert run.settings["page_size"] == "32"
    assert run.lines["tokens"][0] == 7  # the kv_cache_config line (the header is line 1)


def test_the_reworded_memory_lines_are_reported_not_read() -> None:
    """The trimmed [MEMORY] lines drop the device total, the kv size and the profiling cache the
    breakdown needs, so none is read as an engine line: all five are reported as unparsed."""
    run = parse_text("# engine: trtllm\n" + EXCERPT, Path("x.log")).runs[0]
    assert [text for _, text in run.unparsed] == [
        "Model weights (torch): 81.97 GiB", "Model weights (non-torch): 10.50 GiB",
        "Peak memory: 92.75 GiB, KV cache: 68.70 GiB (fraction=0.8)",
        "Estimated KV cache: 68.70 GiB",
        "PyTorch memory fraction: 0.5781128939969282 (103.1070556640625 GiB)"]


def test_a_one_line_args_dump_keeps_the_pools_allocated_count() -> None:
    """The engine's own one-line dump (log 261, 1.2.0rc4) puts kv_cache_config=KvCacheConfig(...)
    mid-line after the pool line: it is not read, so the pool's 900,800 tokens (28,150 blocks x
    32) stay, not max_tokens 900,796."""
    text = ("# engine: trtllm\n[TensorRT-LLM][INFO] [MemUsageChange] Allocated 109.96 GiB for max "
            "tokens in paged KV cache (900800).\nmodel='m' tokenizer=None kv_cache_config=KvCacheConfig("
            "enable_block_reuse=True, max_tokens=900796, free_gpu_memory_fraction=0.9, "
            "tokens_per_block=32) max_batch_size=32\n")
    run = parse_text(text, Path("x.log")).runs[0]
    assert run.values["tokens"] == 900_800 and run.values["kv_gib"] == 109.96


def test_the_committed_log_reads_its_max_tokens() -> None:
    """Log 311 is that start-up with its source header: the same 2,099,464 tokens."""
    logs = Path(__file__).resolve().parents[1] / "assets" / "logs"
    (path,) = logs.glob("311-trtllm-*.log")
    from kvplan.calibrate.parse import parse_file

    run = parse_file(path).runs[0]
    assert run.values["tokens"] == 2_099_464
    assert run.settings["free_gpu_memory_fraction"] == "0.8"


# results/b300_gptoss120b_fp4/b300_gptoss120b_fp4_mtp0_ep1_tp1_rc10/
# server_fp4_throughput_chat_ep1_c1.trimmed.log at zufayu/ClaudeSkillsE2EPerf@f655ecbe
# (log 321's source, TensorRT-LLM 1.3.0rc10), verbatim lines
EXCERPT_1_3 = """[SERVER RUNTIME]
  LLM Args:
    model='/models/gpt-oss-120b'
    tensor_parallel_size=1
    kv_cache_config=KvCacheConfig(enable_block_reuse=False, max_tokens=4691006, \
max_attention_window=None, sink_token_length=None, free_gpu_memory_fraction=0.8, host_cache_size=None, \
onboard_blocks=True, cross_kv_cache_fraction=None, secondary_offload_min_priority=None, \
event_buffer_max_size=0, attention_dp_events_gather_period_ms=5, enable_partial_reuse=True, \
copy_on_partial_reuse=True, use_uvm=False, max_gpu_total_bytes=172929252556, dtype='fp8', \
mamba_ssm_cache_dtype='auto', mamba_ssm_stochastic_rounding=False, mamba_ssm_philox_rounds=10, \
tokens_per_block=32, use_kv_cache_manager_v2=False, max_util_for_resume=0.95)
    max_batch_size=2048
"""


def test_the_1_3_kv_cache_config_with_keys_after_tokens_per_block_is_read() -> None:
    """1.3.0rc10 prints use_kv_cache_manager_v2 and max_util_for_resume after tokens_per_block;
    max_tokens 4,691,006 is still read: max_gpu_total_bytes 172,929,252,556 // 36,864 B a token
    (36 layers x 8 kv heads x 64 x 2 x 1 B, fp8) = 4,691,006 (4,691,006 x 36,864 =
    172,929,245,184, 7,372 B below it: less than one token)."""
    assert 172_929_252_556 // 36_864 == 4_691_006
    run = parse_text("# engine: trtllm\n" + EXCERPT_1_3, Path("x.log")).runs[0]
    assert run.values == {"tokens": 4_691_006}
    assert run.settings["free_gpu_memory_fraction"] == "0.8"
    assert run.settings["page_size"] == "32"
    assert run.lines["tokens"][0] == 6  # the kv_cache_config line (the header is line 1)
