"""What SGLang prints for an MLA model's pool: one latent per token, one "KV size".

Found by task h90review asking "what does SGLang allocate for DeepSeek-V3 on 8xH200": kvplan's
"sglang would print" showed "K size: 21.26 GB, V size: 21.26 GB", halving the pool as
MHATokenToKVPool logs it, but an MLA model's MLATokenToKVPool holds one (kv_lora_rank +
qk_rope_head_dim) latent per token and logs one size: memory_pool.py's
_finalize_allocation_log prints "#tokens: N, KV size: X GB" when get_kv_size_bytes is not a
(K, V) pair (sglang 0.5.23 mem_cache/memory_pool.py:2093-2098; 0.5.12 :746-751, before the
dtype field of 0.5.13). A real one: tests/assets/logs/118-sglang-kimi-k2.5-tp8-mi355x-rocm-0.5.8.log
("KV Cache is allocated. #tokens: 2454421, KV size: 160.63 GB").
"""

from __future__ import annotations

from kvplan.calibrate.lines import PATTERNS
from kvplan.calibrate.lines_sglang import _s_kv, _s_kv_mla
from tests.conftest import size_record

# DeepSeek-V3 config.json: kv_lora_rank 512, qk_rope_head_dim 64, 61 layers; 16-bit cache
CELL = (512 + 64) * 61 * 2
assert CELL == 70_272


def _read_as(line: str) -> object:
    """Which of kvplan's own readers of real SGLang logs takes the line."""
    return next(fn for engine, rx, fn in PATTERNS if engine == "sglang" and rx.search(line))


def test_deepseek_v3_on_8_h200_prints_one_kv_size():
    r = size_record("deepseek-v3", "--gpu", "h200", "--tp", "8", "--engine", "sglang")
    tokens = r["kv_cache_tokens"]
    assert r["kv_bytes_per_token"] == CELL  # the latent is whole on every TP rank
    assert r["kv_budget_bytes"] == tokens * CELL
    size_gb = f"{tokens * CELL / 2**30:.2f}"  # SGLang's GB is 2^30 bytes
    assert r["engine_log_lines"][0] == (
        f"KV Cache is allocated. #tokens: {tokens}, KV size: {size_gb} GB")
    assert r["engine_log_lines"][1] == f"max_total_num_tokens={tokens}"
    assert _read_as(r["engine_log_lines"][0]) is _s_kv_mla  # read back as a real MLA line


def test_mha_model_keeps_k_and_v():
    r = size_record("llama-3.1-8b", "--gpu", "h100", "--engine", "sglang", "--context", "8192")
    tokens = r["kv_cache_tokens"]
    half = f"{tokens * 131_072 / 2 / 2**30:.2f}"
    assert r["engine_log_lines"][0] == (
        f"KV Cache is allocated. #tokens: {tokens}, K size: {half} GB, V size: {half} GB")
    assert _read_as(r["engine_log_lines"][0]) is _s_kv
