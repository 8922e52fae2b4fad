# ruff: noqa: E501
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
    "llama-3.1-70b-instruct-fp8": (327_680, 327_680, None, 0),  # nvidia's ModelOpt FP8: 80 L x 8 kv x 128 x 4
    "mistral-7b-v0.1": (131_072, 0, 4096, 0),  # 32 L x 8 x 128 x 4, every layer windowed
    "mistral-7b-instruct-v0.3": (131_072, 131_072, None, 0),  # sliding_window null
    "mistral-nemo-12b": (163_840, 163_840, None, 0),  # 40 L x 8 x head_dim 128 (not 160) x 4
    "mistral-small-24b": (163_840, 163_840, None, 0),  # 40 L x 8 x head_dim 128 (not 160) x 4
    # task h80catalog: mistral3, the text_config's 40 L x 8 kv x head_dim 128 x 2 (K, V) x 2 B
    "mistral-small-3.1-24b": (163_840, 163_840, None, 0),
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
    "kimi-k2.5": (70_272, 70_272, None, 0),  # kimi-k2's text stack: 61 L x (512 + 64) x 2, MLA
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
    # added by the catalog helper (issue 12, second pass)
    "qwen2.5-1.5b": (28_672, 28_672, None, 0),  # 28 L x 2 kv x 128 x 4
    "gemma-3-4b": (139_264, 20_480, 1024, 0),  # 34 L x 4 kv x 256 x 4; 5 global (layers 6, 12, ..., 30)
    "gemma-3-12b": (393_216, 65_536, 1024, 0),  # 48 L x 8 kv x 256 x 4; 8 global (every 6th)
    "granite-3.3-8b": (163_840, 163_840, None, 0),  # 40 L x 8 kv x 128 x 4
    "qwen2.5-vl-3b": (36_864, 36_864, None, 0),  # 36 L x 2 kv x 128 x 4; use_sliding_window false
    "opt-125m": (36_864, 36_864, None, 0),  # 12 L x 12 kv (MHA) x 64 x 4
    # added by the catalog helper (issue 12, third pass)
    "qwen2.5-coder-32b": (262_144, 262_144, None, 0),  # 64 L x 8 kv x 128 x 4; use_sliding_window false
    "deepseek-r1-distill-qwen-7b": (57_344, 57_344, None, 0),  # 28 L x 4 kv x 128 x 4; sliding_window null
    "llama-3-70b": (327_680, 327_680, None, 0),  # 80 L x 8 kv x 128 x 4
    "qwen3-235b-a22b-2507": (192_512, 192_512, None, 0),  # 94 L x 4 kv x head_dim 128 (not 64) x 4
    "qwen3-4b-2507": (147_456, 147_456, None, 0),  # 36 L x 8 kv x 128 x 4
    # task h70catalog: Qwen3-30B-A3B-Thinking-2507's config (transformers' print): 48 L x 4 kv x head_dim 128 x 4
    "qwen3-30b-a3b-thinking-2507": (98_304, 98_304, None, 0),
    "qwen3-30b-a3b-thinking-2507-fp8": (98_304, 98_304, None, 0),  # its FP8 release: the same cache
    "qwen2.5-7b-base": (57_344, 57_344, None, 0),  # 28 L x 4 kv x 128 x 4; use_sliding_window false
    "qwen2.5-14b-instruct": (196_608, 196_608, None, 0),  # 48 L x 8 kv x 128 x 4
    "qwen2.5-32b-instruct": (262_144, 262_144, None, 0),  # 64 L x 8 kv x 128 x 4, as qwen2.5-32b
    # added by the catalog helper (issue 12, fourth pass)
    "llama-3.1-tulu-3-8b": (131_072, 131_072, None, 0),  # 32 L x 8 kv x 128 x 4 (Llama-3.1-8B's)
    "tinyllama-1.1b-chat-v0.3": (22_528, 22_528, None, 0),  # 22 L x 4 kv x 64 x 4 (v1.0's)
    # fifth pass
    "glm-4.5-air": (188_416, 188_416, None, 0),  # 46 L x 8 kv x head_dim 128 (not 42.67) x 4
    # sixth pass: GLM-4.7's attention (reconstructed configs; see catalog_sources.py)
    "glm-4.5": (376_832, 376_832, None, 0),  # 92 L x 8 kv x 128 x 4 (K and V, 2 B each)
    "glm-4.6": (376_832, 376_832, None, 0),  # 92 L x 8 kv x 128 x 4
    "qwen2.5-72b-base": (327_680, 327_680, None, 0),  # 80 L x 8 kv x 128 x 4 (the Instruct's); use_sliding_window false
    "deepseek-llm-7b-chat": (491_520, 491_520, None, 0),  # 30 L x 32 kv (MHA) x 128 x 4
    "deepseek-coder-6.7b-instruct": (524_288, 524_288, None, 0),  # 32 L x 32 kv (MHA) x 128 x 4
    "opt-13b": (819_200, 819_200, None, 0),  # 40 L x 40 kv (MHA) x 128 x 4
    # seventh pass
    "granite-3.1-8b": (163_840, 163_840, None, 0),  # 40 L x 8 kv x 128 x 4 (granite-3.3-8b's)
    # importer pass (phi added): the cache keeps the whole head_dim, though rotary covers half
    "phi-1.5": (196_608, 196_608, None, 0),  # 24 L x 32 kv (MHA, num_key_value_heads null) x 64 x 4
    # chatglm (remote code): key and value cached per multi_query_group_num group, kv_channels wide
    "chatglm2-6b": (28_672, 28_672, None, 0),  # 28 L x 2 groups x kv_channels 128 x 4
    # task h61catalog: Mixtral-8x22B-Instruct-v0.1 (the base's attention, a larger vocabulary)
    "mixtral-8x22b-instruct": (229_376, 229_376, None, 0),  # 56 L x 8 kv x 128 x 4
    # task h91catalog (models the check corpus names): phi keeps the whole head_dim in the cache
    "phi-2": (327_680, 327_680, None, 0),  # 32 L x 32 kv (MHA) x head_dim 80 (2,560 / 32) x 2 (K, V) x 2 B
    "qwen2.5-math-1.5b": (28_672, 28_672, None, 0),  # 28 L x 2 kv x 128 x 2 x 2 B; use_sliding_window false
    "qwen1.5-7b-chat": (524_288, 524_288, None, 0),  # 32 L x 32 kv (MHA) x 128 x 2 x 2 B; use_sliding_window false
    "hermes-2-pro-llama-3-8b": (131_072, 131_072, None, 0),  # 32 L x 8 kv x 128 x 2 x 2 B (Llama-3-8B's)
    "vicuna-7b-v1.3": (524_288, 524_288, None, 0),  # 32 L x 32 kv (MHA, num_key_value_heads absent) x 128 x 2 x 2 B
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


# params_total, params_active (MoE), params_encoder (vision tower) of every spec added for issue 12.
# Official figures are marked; the others are kvplan.specs.params counts, whose formula per
# architecture equals the tensors transformers builds (tests/catalog/test_params_oracle.py).
PARAMS = {
    "deepseek-r1-distill-qwen-1.5b": (1_777_088_000, None, None),  # 1,777,088,000 text
    "gemma-2-2b": (2_614_341_888, None, None),  # 2,614,341,888 text
    "gemma-2b": (2_506_172_416, None, None),  # 256000 x 2048 tied + 18 x (9,437,184 attn + 100,663,296 MLP + 4,096 norms) + 2,048
    "gemma-3-1b": (999_885_952, None, None),  # 999,885,952 text (official)
    "gemma-7b": (8_537_680_896, None, None),  # 256000 x 3072 tied + 28 x (50,331,648 attn + 226,492,416 MLP + 6,144) + 3,072
    "glm-4.7": (352_797_829_024, 33632266144, None),  # 352,797,829,024 text
    "llama-4-maverick": (401_583_781_376, 17184691200, 871932416),  # 400,711,848,960 text + 871,932,416 vision tower (official)
    "llama-4-scout": (108_641_793_536, 17172894720, 871932416),  # 107,769,861,120 text + 871,932,416 vision tower (official)
    "mistral-7b-v0.2": (7_241_732_096, None, None),  # 7,241,732,096 text
    "mixtral-8x22b": (140_620_634_112, 39152031744, None),  # 140,620,634,112 text (official)
    "phi-3.5-mini": (3_821_079_552, None, None),  # 3,821,079,552 text
    "phi-4-mini": (3_836_021_760, None, None),  # 3,836,021,760 text
    "qwen2-0.5b": (494_032_768, None, None),  # 494,032,768 text
    "qwen2-1.5b": (1_543_714_304, None, None),  # 1,543,714,304 text
    "qwen2-7b": (7_615_616_512, None, None),  # 7,615,616,512 text (official)
    "qwen2.5-0.5b": (494_032_768, None, None),  # 494,032,768 text (official)
    "qwen2.5-14b": (14_770_033_664, None, None),  # 14,770,033,664 text
    "qwen2.5-32b": (32_763_876_352, None, None),  # 32,763,876,352 text
    "qwen2.5-3b": (3_085_938_688, None, None),  # 3,085,938,688 text (official)
    # Kimi-K2.5: kimi-k2's text stack, 1,026,408,232,448, + the MoonViT tower and projector,
    # 471,143,920 (arithmetic in tests/catalog/test_kimi_k25.py)
    "kimi-k2.5": (1_026_879_376_368, 32_861_500_928, 471_143_920),
    "qwen2.5-vl-7b": (8_292_166_656, None, 676550144),  # 7,615,616,512 text + 676,550,144 vision tower (official)
    "qwen3-0.6b": (596_049_920, None, None),  # 151936 x 1024 tied + 28 x (6,291,456 attn + 256 qk norms + 9,437,184 MLP + 2,048) + 1,024
    "qwen3-1.7b": (1_720_574_976, None, None),  # 1,720,574,976 text
    "qwen3-14b": (14_768_307_200, None, None),  # 14,768,307,200 text (official)
    "qwen3-235b-a22b-fp8": (235_093_634_560, 22190763520, None),  # 235,093,634,560 text
    "qwen3-30b-a3b": (30_532_122_624, 3353032704, None),  # 30,532,122,624 text (official)
    "qwen3-30b-a3b-fp8": (30_532_122_624, 3353032704, None),  # 30,532,122,624 text
    "qwen3-32b-fp8": (32_762_123_264, None, None),  # 32,762,123,264 text
    "qwen3-4b": (4_022_468_096, None, None),  # 4,022,468,096 text
    "qwen3-coder-30b-a3b": (30_532_122_624, 3353032704, None),  # 30,532,122,624 text (official)
    "qwen3-coder-480b-a35b": (480_154_875_392, 35474765312, None),  # 480,154,875,392 text
    "qwen3-vl-235b-a22b": (235_670_022_896, 22190763520, 576388336),  # 235,093,634,560 text + 576,388,336 vision tower (official)
    "qwen3-vl-2b": (2_127_532_032, None, 406957056),  # 1,720,574,976 text + 406,957,056 vision tower
    "qwen3-vl-30b-a3b": (31_070_754_032, 3353032704, 538631408),  # 30,532,122,624 text + 538,631,408 vision tower (official)
    "qwen3-vl-32b": (33_357_390_064, None, 595266800),  # 32,762,123,264 text + 595,266,800 vision tower
    "qwen3-vl-4b": (4_437_815_808, None, 415347712),  # 4,022,468,096 text + 415,347,712 vision tower
    "qwen3-vl-8b": (8_767_123_696, None, 576388336),  # 8,190,735,360 text + 576,388,336 vision tower (official)
    "tinyllama-1.1b": (1_100_048_384, None, None),  # 1,100,048,384 text
    "qwen2.5-1.5b": (1_543_714_304, None, None),  # 1,543,714,304: the checkpoint's tensor sum (official)
    # keras-hub gemma3_4b_text 3,880,099,328 (vocab 262,144) + 64 x 2,560 = 3,880,263,168 text;
    # + 419,816,304 tower = 4,300,079,472 = keras-hub medgemma_4b (the same architecture, vocab 262,208)
    "gemma-3-4b": (4_300_079_472, None, 419_816_304),
    # keras-hub gemma3_12b_text 11,765,788,416 + 64 x 3,840 = 11,766,034,176 text; the tower is the
    # 4B's plus 1,152 x (3,840 - 2,560) = 1,474,560 more projector weights: 421,290,864
    "gemma-3-12b": (12_187_325_040, None, 421_290_864),
    # 49,159 x 4,096 tied + 40 x (2 x 4,096^2 + 2 x 4,096 x 1,024 + 3 x 4,096 x 12,800 + 2 x 4,096)
    # + 4,096: the shapes the public listing prints for granite-3.3-8b-instruct
    "granite-3.3-8b": (8_170_864_640, None, None),
    # the public torchinfo listing (3-layer build): vision block 19,702,200, patch Conv3d
    # 1,505,280, merger 1,280 + 36,707,328 -> tower 32 x 19,702,200 + 1,505,280 + 36,708,608 =
    # 668,684,288; text 151,936 x 2,048 tied + 36 x 77,076,992 (decoder layer) + 2,048 =
    # 3,085,938,688 (Qwen2.5-3B's own count, above); total 3,754,622,976
    "qwen2.5-vl-3b": (3_754_622_976, None, 668_684_288),
    # 50,272 x 768 tied + (2,048 + 2) x 768 positions + 12 x (4 x (768^2 + 768) + 2 x 768 x 3,072
    # + 3,072 + 768 + 2 x 2 x 768) + 2 x 768 final LayerNorm = 125,239,296 (official)
    "opt-125m": (125_239_296, None, None),
    # third pass. 152,064 x 5,120 x 2 (untied) + 64 x (q 5,120^2 + 5,120 + k, v 2 x (5,120 x
    # 1,024 + 1,024) + o 5,120^2 + MLP 3 x 5,120 x 27,648 + 2 x 5,120 norms = 487,605,248) + 5,120
    # = 32,763,876,352: Qwen2.5-32B's shapes, and the tensor sum of QwQ-32B's checkpoint (same shapes)
    "qwen2.5-coder-32b": (32_763_876_352, None, None),
    # 152,064 x 3,584 x 2 + 28 x (3,584^2 + 3,584 + 2 x (3,584 x 512 + 512) + 3,584^2
    # + 3 x 3,584 x 18,944 + 2 x 3,584) + 3,584 = 7,615,616,512 = Qwen2-7B-Instruct's tensor sum
    "deepseek-r1-distill-qwen-7b": (7_615_616_512, None, None),
    "qwen2.5-7b-base": (7_615_616_512, None, None),  # the same shapes as above
    # 152,064 x 5,120 x 2 + 48 x (5,120^2 + 5,120 + 2 x (5,120 x 1,024 + 1,024) + 5,120^2
    # + 3 x 5,120 x 13,824 + 2 x 5,120) + 5,120 = 14,770,033,664 (qwen2.5-14b's shapes)
    "qwen2.5-14b-instruct": (14_770_033_664, None, None),
    # 152,064 x 5,120 x 2 + 64 x (5,120^2 + 5,120 + 2 x (5,120 x 1,024 + 1,024) + 5,120^2
    # + 3 x 5,120 x 27,648 + 2 x 5,120) + 5,120 = 32,763,876,352 (official: the checkpoint index's
    # total_size 65,527,752,704 / 2; qwen2.5-32b's shapes)
    "qwen2.5-32b-instruct": (32_763_876_352, None, None),
    # 128,256 x 8,192 x 2 + 80 x (2 x 8,192^2 + 2 x 8,192 x 1,024 + 3 x 8,192 x 28,672 + 2 x 8,192)
    # + 8,192 = 70,553,706,496 (official)
    "llama-3-70b": (70_553_706_496, None, None),
    # the original release's shapes (qwen3-235b-a22b-fp8 above): 94 layers x 128 experts, 8 active
    "qwen3-235b-a22b-2507": (235_093_634_560, 22_190_763_520, None),
    "qwen3-4b-2507": (4_022_468_096, None, None),  # qwen3-4b's shapes, tied embeddings
    # task h70catalog. 151,936 x 2,048 x 2 (untied) + 48 x (q 2,048 x 4,096, k and v 2 x 2,048 x
    # 512, o 4,096 x 2,048, q/k norms 2 x 128, 2 x 2,048 norms, router 128 x 2,048, 128 experts
    # x 3 x 2,048 x 768) + 2,048 = 30,532,122,624, qwen3-30b-a3b's official count (the same
    # tensors); active: 8 of the 128 experts per layer, 3,353,032,704
    "qwen3-30b-a3b-thinking-2507": (30_532_122_624, 3_353_032_704, None),
    # its FP8 release: the same tensors (official: the report's sum over all 4 shards less the
    # 1,824,768 weight_scale_inv values, 30,533,947,392 - 1,824,768)
    "qwen3-30b-a3b-thinking-2507-fp8": (30_532_122_624, 3_353_032_704, None),
    # fourth pass. Llama-3.1-8B's 8,030,261,248 + 8 more rows x 4,096 x 2 (embedding, untied head)
    "llama-3.1-tulu-3-8b": (8_030_326_784, None, None),
    # TinyLlama v1.0's 1,100,048,384 + 3 more rows x 2,048 x 2 (embedding, untied head)
    "tinyllama-1.1b-chat-v0.3": (1_100_060_672, None, None),
    # fifth pass. GLM-4.5-Air: 151,552 x 4,096 x 2 (untied) + 46 x (q 4,096 x 12,288 + 12,288,
    # k and v 2 x (4,096 x 1,024 + 1,024), o 12,288 x 4,096, 2 x 4,096 norms = 109,074,432)
    # + 1 dense MLP 3 x 4,096 x 10,944 + 45 x (129 experts x 3 x 4,096 x 1,408 + router 128 x
    # 4,096 + 128 bias = 2,232,418,432) + 4,096 = 106,852,251,264; active: 8 routed + 1 shared
    # expert per MoE layer, 45 x 156,237,952, the rest as above = 13,424,129,664
    "glm-4.5-air": (106_852_251_264, 13_424_129_664, None),
    # sixth pass. GLM-4.5 (and GLM-4.6, the same shapes): 151,552 x 5,120 x 2 (untied) = 1,551,892,480
    # + 92 x (q 5,120 x 12,288 + 12,288, k and v 2 x (5,120 x 1,024 + 1,024), o 12,288 x 5,120,
    # q/k norms 2 x 128, 2 x 5,120 norms = 136,339,712) + 3 dense MLPs 3 x (3 x 5,120 x 12,288)
    # + 89 x (161 experts x 3 x 5,120 x 1,536 + router 160 x 5,120 + 160 bias = 3,799,285,920)
    # + 5,120 = 352,797,829,024 (GLM-4.7's count); active: 8 routed + 1 shared expert per MoE
    # layer, 89 x 213,156,000, the rest as above = 33,632,266,144. The MTP layer is not counted.
    "glm-4.5": (352_797_829_024, 33_632_266_144, None),
    "glm-4.6": (352_797_829_024, 33_632_266_144, None),
    # fifth pass. Qwen2.5-72B-Instruct's shapes and its tensor sum (official, see qwen2.5-72b)
    "qwen2.5-72b-base": (72_706_203_648, None, None),
    # 102,400 x 4,096 x 2 (untied) + 30 x (4 x 4,096^2 + 3 x 4,096 x 11,008 + 2 x 4,096) + 4,096
    "deepseek-llm-7b-chat": (6_910_365_696, None, None),
    # 32,256 x 4,096 x 2 (untied) + 32 x (4 x 4,096^2 + 3 x 4,096 x 11,008 + 2 x 4,096) + 4,096
    "deepseek-coder-6.7b-instruct": (6_740_512_768, None, None),
    # 50,272 x 5,120 tied + 2,050 x 5,120 positions + 40 x (4 x (5,120^2 + 5,120) + 2 x 5,120 x
    # 20,480 + 20,480 + 5,120 + 2 x 2 x 5,120) + 2 x 5,120 final LayerNorm
    "opt-13b": (12_853_473_280, None, None),
    # seventh pass. granite-3.3-8b's 8,170,864,640 less 4 embedding rows (49,155 against 49,159)
    # x 4,096 (tied)
    "granite-3.1-8b": (8_170_848_256, None, None),
    # 51,200 x 2,048 x 2 (untied) + 51,200 lm_head bias + 24 x (4 x (2,048^2 + 2,048) q/k/v/dense
    # + 2 x 2,048 x 8,192 + 8,192 + 2,048 fc1/fc2 + 2 x 2,048 one LayerNorm) + 2 x 2,048 final
    # LayerNorm = 1,418,270,720 (official: the hub's safetensors total)
    "phi-1.5": (1_418_270_720, None, None),
    # modeling_chatglm.py: 65,024 x 4,096 x 2 (word_embeddings, output_layer) + 28 x (2 x 4,096
    # RMSNorms + query_key_value 4,096 x 4,608 (128 x (32 + 2 x 2)) + 4,608 bias + dense 4,096^2
    # + dense_h_to_4h 4,096 x 27,392 (2 x 13,696) + dense_4h_to_h 13,696 x 4,096) + 4,096 final
    # RMSNorm = 6,243,584,000 = the index's total_size 12,487,168,064 B / 2 less 32 inv_freq values
    "chatglm2-6b": (6_243_584_000, None, None),
    # task h58fp8. nvidia/Llama-3.1-70B-Instruct-FP8 (ModelOpt): Llama-3.1-70B's shapes, so
    # llama-3-70b's count above: 128,256 x 8,192 x 2 + 80 x (2 x 8,192^2 + 2 x 8,192 x 1,024
    # + 3 x 8,192 x 28,672 + 2 x 8,192) + 8,192 = 70,553,706,496
    "llama-3.1-70b-instruct-fp8": (70_553_706_496, None, None),
    # task h61catalog. mistralai/Mixtral-8x22B-Instruct-v0.1: mixtral-8x22b's 140,620,634,112 +
    # (32,768 - 32,000) rows x 6,144 x 2 (embedding, untied LM head) = 9,437,184 more =
    # 140,630,071,296 (official: the safetensors metadata); active: mixtral-8x22b's 39,152,031,744
    # (the rest + 2 of 8 experts of 3 x 6,144 x 16,384 in each of 56 layers) + the same 9,437,184
    "mixtral-8x22b-instruct": (140_630_071_296, 39_161_468_928, None),
    # task h80catalog. mistralai/Mistral-Small-3.1-24B-Instruct-2503 (mistral3), official
    # (keras-hub's preset count 24,011,361,280): text 2 x 131,072 x 5,120 (untied) + 40 x (5,120 x
    # 4,096 + 2 x 5,120 x 1,024 + 4,096 x 5,120 + 3 x 5,120 x 32,768 + 2 x 5,120) + 5,120 =
    # 23,572,403,200; Pixtral 3 x 14 x 14 x 1,024 + 1,024 + 24 x (4 x 1,024^2 + 3 x 1,024 x 4,096
    # + 2 x 1,024) = 403,305,472; projector 1,024 + 4,096 x 1,024 + 1,024 x 5,120 + 5,120^2 =
    # 35,652,608; encoder 403,305,472 + 35,652,608 = 438,958,080
    "mistral-small-3.1-24b": (24_011_361_280, None, 438_958_080),
    # task h91catalog. microsoft/phi-2: 51,200 x 2,560 x 2 (untied) + 51,200 lm_head bias + 32 x
    # (4 x (2,560^2 + 2,560) q/k/v/dense + 2,560 x 10,240 + 10,240 + 10,240 x 2,560 + 2,560 fc1/fc2
    # + 2 x 2,560 one LayerNorm) + 2 x 2,560 final LayerNorm = 2,779,683,840 (official: the earlier
    # revision's index total_size 11,118,735,360 B / 4 B)
    "phi-2": (2_779_683_840, None, None),
    # Qwen/Qwen2.5-Math-1.5B: 151,936 x 1,536 (tied) + 28 x (1,536^2 + 1,536 + 2 x (1,536 x 256 +
    # 256) + 1,536^2 + 3 x 1,536 x 8,960 + 2 x 1,536) + 1,536 = 1,543,714,304 (qwen2.5-1.5b's sum)
    "qwen2.5-math-1.5b": (1_543_714_304, None, None),
    # Qwen/Qwen1.5-7B-Chat: 151,936 x 4,096 x 2 (untied) + 32 x (3 x (4,096^2 + 4,096) q/k/v with
    # biases + 4,096^2 o + 3 x 4,096 x 11,008 + 2 x 4,096) + 4,096 = 7,721,324,544
    "qwen1.5-7b-chat": (7_721_324_544, None, None),
    # NousResearch/Hermes-2-Pro-Llama-3-8B: llama-3-8b's 8,030,261,248 + (128,288 - 128,256) rows
    # x 4,096 x 2 (embedding, untied LM head) = 8,030,523,392
    "hermes-2-pro-llama-3-8b": (8_030_523_392, None, None),
    # lmsys/vicuna-7b-v1.3: 32,000 x 4,096 x 2 + 32 x (4 x 4,096^2 + 3 x 4,096 x 11,008 + 2 x
    # 4,096) + 4,096 = 6,738,415,616 (llama-2-7b's published count, the same tensors)
    "vicuna-7b-v1.3": (6_738_415_616, None, None),
}


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_parameter_counts(name: str):
    total, active, encoder = PARAMS[name]
    model = load_model(name)
    assert (model.params_total, model.params_active, model.params_encoder) == (total, active, encoder)


def test_multimodal_checkpoints_count_their_tower():
    # every shipped config with a vision_config charges its tower; text-only ones have none
    import json
    from pathlib import Path

    configs = Path(__file__).parents[1] / "assets" / "hf_configs"
    specs, _ = all_models()
    for spec in specs:
        has_tower = "vision_config" in json.loads((configs / f"{spec.name}.json").read_text())
        assert (spec.params_encoder is not None) == has_tower, spec.name
        if has_tower:
            assert spec.params_encoder is not None and 0 < spec.params_encoder < spec.params_total / 5


def test_gemma3_27b_estimate_equals_keras_hub_medgemma_count():
    # audit (issue 12): keras-hub gemma3_presets.py lists medgemma_instruct_27b, the Gemma 3 27B
    # architecture with the 262,208-token vocabulary, at 27,432,406,640 parameters; kvplan's
    # estimate for gemma-3-27b (vision tower included) is that figure exactly
    assert load_model("gemma-3-27b").params_total == 27_432_406_640
