"""What cache `generate()` really uses for Gemma-2/3 checkpoints (issue #13, item 5).

Gemma 2 and 3 repositories ship a generation_config.json with "cache_implementation": "hybrid".
Since transformers PR #40039 (4.56; kvplan[measure] needs >= 5.17) generate() unsets that Hub
default, so the model runs a DynamicCache with DynamicSlidingWindowLayer on its sliding layers:
the `dynamic` profile kvplan plans by default, not a preallocated hybrid cache. This pins it on a
tiny Gemma-2 built on the CPU, with the bytes the profile assumes per layer.
"""

from __future__ import annotations

import pytest

WINDOW, PROMPT, NEW, KV_HEADS, HEAD_DIM, BATCH = 8, 20, 3, 2, 16, 2


@pytest.mark.usefixtures("measure_extra")
def test_gemma2_hub_hybrid_default_runs_a_dynamic_cache_holding_the_window() -> None:
    import torch
    from transformers import Gemma2Config, Gemma2ForCausalLM, GenerationConfig

    torch.manual_seed(0)
    cfg = Gemma2Config(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=4,
                       num_attention_heads=4, num_key_value_heads=KV_HEADS, head_dim=HEAD_DIM,
                       sliding_window=WINDOW, max_position_embeddings=256)
    model = Gemma2ForCausalLM(cfg).eval()
    model.generation_config = GenerationConfig(cache_implementation="hybrid", bos_token_id=2,
                                               eos_token_id=1, pad_token_id=0)
    ids = torch.randint(3, 128, (BATCH, PROMPT))
    out = model.generate(ids, max_new_tokens=NEW, min_new_tokens=NEW, do_sample=False,
                         return_dict_in_generate=True)
    cache = out.past_key_values
    assert type(cache).__name__ == "DynamicCache"
    kinds = [type(layer).__name__ for layer in cache.layers]
    assert kinds == ["DynamicSlidingWindowLayer", "DynamicLayer"] * 2
    fp32 = 4
    per_token = BATCH * KV_HEADS * HEAD_DIM * fp32  # keys of one layer, one token, the batch
    stored = [layer.keys.untyped_storage().nbytes() for layer in cache.layers]
    # full layers: the prompt and the tokens appended after it (the last new token is sampled,
    # not cached): 20 + 3 - 1 = 22; sliding layers: the window, 8 tokens (7 kept as a view)
    assert stored == [WINDOW * per_token, (PROMPT + NEW - 1) * per_token] * 2
    assert stored[0] == 2 * 2 * 8 * 16 * 4 == 2048
