"""Every shipped model's fp16 KV bytes per token, worked by hand from its official config."""

from __future__ import annotations

import pytest

from kvplan.capacity.kv import Precision, stage_caches
from kvplan.specs import all_models, load_model
from kvplan.units import DType

# name: (bytes/token below the window, bytes/token beyond it, window, state bytes per sequence)
# per layer per token = kv_heads x head_dim x 2 (K and V) x 2 bytes (fp16); MLA: latent x 2 bytes
TABLE = {
    "llama-2-7b": (524_288, 524_288, None, 0),  # 32 L x 32 kv x 128 x 2 x 2 (MHA)
    "llama-2-13b": (819_200, 819_200, None, 0),  # 40 L x 40 kv x 128 x 4 (MHA)
    "llama-2-70b": (327_680, 327_680, None, 0),  # 80 L x 8 kv x 128 x 4
    "llama-3-8b": (131_072, 131_072, None, 0),  # 32 L x 8 kv x 128 x 4
    "llama-3.1-8b": (131_072, 131_072, None, 0),  # 32 L x 8 kv x 128 x 4
    "llama-3.1-70b": (327_680, 327_680, None, 0),  # 80 L x 8 kv x 128 x 4
    "llama-3.1-405b": (516_096, 516_096, None, 0),  # 126 L x 8 kv x 128 x 4
    "llama-3.2-1b": (32_768, 32_768, None, 0),  # 16 L x 8 kv x head_dim 64 x 4
    "llama-3.2-3b": (114_688, 114_688, None, 0),  # 28 L x 8 kv x head_dim 128 x 4
    "llama-3.3-70b": (327_680, 327_680, None, 0),  # 80 L x 8 kv x 128 x 4
    "mistral-7b-v0.1": (131_072, 0, 4096, 0),  # 32 L x 8 x 128 x 4, every layer windowed
    "mistral-7b-instruct-v0.3": (131_072, 131_072, None, 0),  # sliding_window null
    "mistral-nemo-12b": (163_840, 163_840, None, 0),  # 40 L x 8 x head_dim 128 (not 160) x 4
    "mistral-small-24b": (163_840, 163_840, None, 0),  # 40 L x 8 x head_dim 128 (not 160) x 4
    "mixtral-8x7b": (131_072, 131_072, None, 0),  # 32 L x 8 x 128 x 4; experts hold no cache
    "qwen2.5-7b": (57_344, 57_344, None, 0),  # 28 L x 4 kv x 128 x 4; use_sliding_window false
    "qwen2.5-72b": (327_680, 327_680, None, 0),  # 80 L x 8 x 128 x 4; use_sliding_window false
    "qwen3-8b": (147_456, 147_456, None, 0),  # 36 L x 8 x 128 x 4
    "qwen3-32b": (262_144, 262_144, None, 0),  # 64 L x 8 x head_dim 128 (not 80) x 4
    "qwen3-235b-a22b": (192_512, 192_512, None, 0),  # 94 L x 4 kv x head_dim 128 (not 64) x 4
    # 12 of 48 layers full: 12 x 2 kv x 256 x 4; 36 linear layers x 548,864 state values x 2 B
    "qwen3-next-80b-a3b": (24_576, 24_576, None, 39_518_208),
    "gemma-2-9b": (344_064, 172_032, 4096, 0),  # 42 L x 8 x 256 x 4; 21 global layers beyond
    "gemma-2-27b": (376_832, 188_416, 4096, 0),  # 46 L x 16 x 128 x 4; 23 global layers beyond
    "gemma-3-27b": (507_904, 81_920, 1024, 0),  # 62 L x 16 x 128 x 4; 10 global (every 6th)
    "deepseek-v2-lite": (31_104, 31_104, None, 0),  # 27 L x (512 + 64) x 2, MLA
    "deepseek-v3": (70_272, 70_272, None, 0),  # 61 L x (512 + 64) x 2, MLA
    "deepseek-r1": (70_272, 70_272, None, 0),  # 61 L x (512 + 64) x 2, MLA
    "kimi-k2": (70_272, 70_272, None, 0),  # 61 L x (512 + 64) x 2, MLA (not 64 heads)
    "gpt-oss-20b": (49_152, 24_576, 128, 0),  # 24 L x 8 x 64 x 4; 12 full layers beyond
    "gpt-oss-120b": (73_728, 36_864, 128, 0),  # 36 L x 8 x 64 x 4; 18 full layers beyond
    "phi-3-mini-4k": (393_216, 0, 2047, 0),  # 32 L x 32 kv x 96 x 4, every layer windowed
    "phi-4": (204_800, 204_800, None, 0),  # 40 L x 10 kv x 128 x 4
    "falcon-7b": (8_192, 8_192, None, 0),  # 32 L x 1 kv (multi_query) x 64 x 4
    "tiny-test-model": (23_040, 23_040, None, 0),  # SmolLM2-135M: 30 L x 3 kv x 64 x 4
    # added for issue 12; head_dim as the config sets it (Qwen3: 128 whatever hidden / heads)
    "deepseek-r1-distill-qwen-1.5b": (28_672, 28_672, None, 0),  # 28 L x 2 kv x 128 x 4
    "gemma-2-2b": (106_496, 53_248, 4096, 0),  # 26 L x 4 kv x 256 x 4; 13 global layers beyond
    "gemma-2b": (18_432, 18_432, None, 0),  # 18 L x 1 kv x 256 x 4
    "gemma-3-1b": (26_624, 4_096, 512, 0),  # 26 L x 1 kv x 256 x 4; 4 global (every 6th)
    "gemma-7b": (458_752, 458_752, None, 0),  # 28 L x 16 kv x 256 x 4
    "glm-4.7": (376_832, 376_832, None, 0),  # 92 L x 8 kv x 128 x 4
    "llama-4-maverick": (196_608, 49_152, 8192, 0),  # 48 L x 8 kv x 128 x 4; 12 NoPE layers beyond the chunk
    "llama-4-scout": (196_608, 49_152, 8192, 0),  # 48 L x 8 kv x 128 x 4; 12 NoPE layers beyond the chunk
    "mistral-7b-v0.2": (131_072, 131_072, None, 0),  # 32 L x 8 kv x 128 x 4
    "mixtral-8x22b": (229_376, 229_376, None, 0),  # 56 L x 8 kv x 128 x 4
    "phi-3.5-mini": (393_216, 0, 262144, 0),  # 32 L x 32 kv x 96 x 4, all windowed
    "phi-4-mini": (131_072, 0, 262144, 0),  # 32 L x 8 kv x 128 x 4, all windowed
    "qwen2-0.5b": (12_288, 12_288, None, 0),  # 24 L x 2 kv x 64 x 4
    "qwen2-1.5b": (28_672, 28_672, None, 0),  # 28 L x 2 kv x 128 x 4
    "qwen2-7b": (57_344, 57_344, None, 0),  # 28 L x 4 kv x 128 x 4
    "qwen2.5-0.5b": (12_288, 12_288, None, 0),  # 24 L x 2 kv x 64 x 4
    "qwen2.5-14b": (196_608, 196_608, None, 0),  # 48 L x 8 kv x 128 x 4
    "qwen2.5-32b": (262_144, 262_144, None, 0),  # 64 L x 8 kv x 128 x 4
    "qwen2.5-3b": (36_864, 36_864, None, 0),  # 36 L x 2 kv x 128 x 4
    "qwen2.5-vl-7b": (57_344, 57_344, None, 0),  # 28 L x 4 kv x 128 x 4
    "qwen3-0.6b": (114_688, 114_688, None, 0),  # 28 L x 8 kv x 128 x 4
    "qwen3-1.7b": (114_688, 114_688, None, 0),  # 28 L x 8 kv x 128 x 4
    "qwen3-14b": (163_840, 163_840, None, 0),  # 40 L x 8 kv x 128 x 4
    "qwen3-235b-a22b-fp8": (192_512, 192_512, None, 0),  # 94 L x 4 kv x 128 x 4
    "qwen3-30b-a3b": (98_304, 98_304, None, 0),  # 48 L x 4 kv x 128 x 4
    "qwen3-30b-a3b-fp8": (98_304, 98_304, None, 0),  # 48 L x 4 kv x 128 x 4
    "qwen3-32b-fp8": (262_144, 262_144, None, 0),  # 64 L x 8 kv x 128 x 4
    "qwen3-4b": (147_456, 147_456, None, 0),  # 36 L x 8 kv x 128 x 4
    "qwen3-coder-30b-a3b": (98_304, 98_304, None, 0),  # 48 L x 4 kv x 128 x 4
    "qwen3-coder-480b-a35b": (253_952, 253_952, None, 0),  # 62 L x 8 kv x 128 x 4
    "qwen3-vl-235b-a22b": (192_512, 192_512, None, 0),  # 94 L x 4 kv x 128 x 4
    "qwen3-vl-2b": (114_688, 114_688, None, 0),  # 28 L x 8 kv x 128 x 4
    "qwen3-vl-30b-a3b": (98_304, 98_304, None, 0),  # 48 L x 4 kv x 128 x 4
    "qwen3-vl-32b": (262_144, 262_144, None, 0),  # 64 L x 8 kv x 128 x 4
    "qwen3-vl-4b": (147_456, 147_456, None, 0),  # 36 L x 8 kv x 128 x 4
    "qwen3-vl-8b": (147_456, 147_456, None, 0),  # 36 L x 8 kv x 128 x 4
    "tinyllama-1.1b": (22_528, 22_528, None, 0),  # 22 L x 4 kv x 64 x 4
}


def test_table_covers_the_whole_catalog():
    specs, errors = all_models()
    assert errors == []
    assert sorted(s.name for s in specs) == sorted(TABLE)
    assert len(specs) >= 70


@pytest.mark.parametrize("name", sorted(TABLE))
def test_per_token_bytes(name: str):
    below, beyond, window, state = TABLE[name]
    model = load_model(name)
    stage = stage_caches(model, Precision(DType.fp16), tp=1, pp=1)[0]
    assert stage.bytes_per_token == below
    assert stage.full_bytes_per_token == beyond
    assert model.attention.sliding_window_tokens == window
    assert stage.state_bytes_per_sequence == state


def test_tiny_test_model_is_a_small_llama_with_gqa():
    m = load_model("tiny-test-model")
    assert m.model_type == "llama"
    assert m.num_layers <= 32 and m.hidden_size <= 1024
    assert 1 < m.attention.num_kv_heads < m.num_attention_heads
    assert "SmolLM2-135M" in m.hf_id


def test_moe_active_is_below_total():
    moe = ("mixtral-8x7b", "qwen3-235b-a22b", "qwen3-next-80b-a3b", "gpt-oss-120b", "kimi-k2")
    for name in moe:
        m = load_model(name)
        assert m.moe is not None
        assert m.params_active is not None and m.params_active < m.params_total / 3


def test_estimated_counts_say_so():
    specs, _ = all_models()
    for s in specs:
        if s.params_estimated:
            assert "estimated" in s.source, s.name
