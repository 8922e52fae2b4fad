"""kvplan.specs.params against an independent oracle: the parameters transformers itself creates.

Each new architecture's model is built by transformers on the meta device (no memory, no
weights) from the fixture's config with fewer layers, and its parameter count compared with
kvplan's count of the same config. Layers are cut to keep the build fast; every per-layer,
embedding and vision-tower tensor is still built, so a wrong term shows up.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kvplan.specs.hf_import import text_config
from kvplan.specs.params import count_params

CONFIGS = Path(__file__).parents[1] / "assets" / "hf_configs"
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

# tiny-random-GraniteForCausalLM (hf-internal-testing, config.json at 8952624): granite's layout
GRANITE = {
    "architectures": ["GraniteForCausalLM"], "attention_bias": False, "attention_multiplier": 1.0,
    "embedding_multiplier": 1.0, "hidden_act": "silu", "hidden_size": 32, "intermediate_size": 64,
    "logits_scaling": 1.0, "max_position_embeddings": 2048, "mlp_bias": False, "model_type": "granite",
    "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 4, "residual_multiplier": 1.0,
    "rms_norm_eps": 1e-06, "tie_word_embeddings": False, "torch_dtype": "float32", "vocab_size": 49152,
}


def _shrunk(name: str, layers: int, vision_layers: int = 2) -> dict[str, Any]:
    cfg = json.loads((CONFIGS / f"{name}.json").read_text())
    cfg = copy.deepcopy(cfg)
    target = cfg.get("text_config", cfg)
    target["num_hidden_layers"] = layers
    vision = cfg.get("vision_config")
    if isinstance(vision, dict):
        for key in ("depth", "num_hidden_layers"):
            if key in vision:
                vision[key] = vision_layers
        if "deepstack_visual_indexes" in vision:
            vision["deepstack_visual_indexes"] = [0, 1][: vision_layers]
        if "fullatt_block_indexes" in vision:
            vision["fullatt_block_indexes"] = [vision_layers - 1]
    return cfg


def _transformers_count(cfg: dict[str, Any]) -> int:
    """Parameters (and the stored router score-correction biases, kept as buffers) of the model
    transformers builds for `cfg`, on the meta device."""
    config = transformers.AutoConfig.for_model(**cfg)
    multimodal = "vision_config" in cfg
    auto = transformers.AutoModelForImageTextToText if multimodal else transformers.AutoModelForCausalLM
    with torch.device("meta"):
        model = auto.from_config(config)
    total = sum(p.numel() for p in model.parameters())
    total += sum(b.numel() for n, b in model.named_buffers() if n.endswith("e_score_correction_bias"))
    return total


def _kvplan_count(cfg: dict[str, Any]) -> int:
    text, _ = text_config(cfg)
    return count_params(text, cfg["model_type"], cfg).total


CASES = [
    ("qwen2.5-vl-7b", 2),  # qwen2_5_vl: Qwen2 text + Conv3d/RMSNorm vision tower and merger
    ("qwen3-vl-2b", 2),  # qwen3_vl: tied embeddings, LayerNorm tower, position table, deepstack
    ("qwen3-vl-30b-a3b", 2),  # qwen3_vl_moe: 128 experts per layer
    ("llama-4-scout", 4),  # llama4: MoE on every layer + shared expert, vision tower, projector
    ("llama-4-maverick", 4),  # llama4: MoE every 2nd layer, dense intermediate_size_mlp between
    ("glm-4.7", 5),  # glm4_moe: 3 dense then MoE layers, qkv bias, qk norms, router bias
    ("glm-4.5-air", 3),  # glm4_moe: 1 dense then MoE layers, no qk norms (use_qk_norm false)
    ("glm-4.5", 5),  # glm4_moe: the reconstructed GLM-4.5 config (3 dense then MoE, qk norms)
    ("glm-4.6", 5),  # glm4_moe: the reconstructed GLM-4.6 config
    ("gemma-7b", 2),  # gemma: tied embeddings, MHA with head_dim 256
    ("phi-4-mini", 2),  # phi3 with tied embeddings
    ("qwen3-coder-30b-a3b", 2),  # qwen3_moe
    ("qwen3-30b-a3b-thinking-2507", 2),  # qwen3_moe as transformers 5 saves it (num_local_experts)
    ("mixtral-8x22b", 2),  # mixtral
    ("opt-125m", 2),  # opt: learned positions (+2 offset), biased projections and LayerNorms
    ("granite-3.1-8b", 2),  # granite: Llama tensors, tied embeddings (the multipliers are scalars)
    ("phi-1.5", 2),  # phi: biased q/k/v/dense, fc1/fc2, one LayerNorm per layer, lm_head bias
]


@pytest.mark.parametrize(("name", "layers"), CASES)
def test_count_equals_transformers(name: str, layers: int):
    cfg = _shrunk(name, layers)
    assert _kvplan_count(cfg) == _transformers_count(cfg)


def test_granite_counts_as_llama():
    # the multipliers are scalars, not tensors: Granite's tensors are Llama's
    assert _kvplan_count(GRANITE) == _transformers_count(GRANITE)


def test_granitemoe_counts_as_transformers_builds_it():
    # router [E, h] without bias, gate_up [E, 2I, h] and down [E, h, I], no shared expert;
    # the multipliers are scalars. Tied and untied, with and without attention biases.
    from tests.catalog.test_hf_import_arch import GRANITEMOE

    base = {**GRANITEMOE, "num_hidden_layers": 2}
    for cfg in (base, {**base, "tie_word_embeddings": False, "attention_bias": True}):
        assert _kvplan_count(cfg) == _transformers_count(cfg)


def test_phi_variants_count_as_transformers_builds_them():
    # qk_layernorm's two LayerNorms over hidden / heads; grouped KV heads; the lm_head bias stays
    # when its weight is tied to the embedding
    cfg = _shrunk("phi-1.5", 2)
    for change in ({"qk_layernorm": True}, {"num_key_value_heads": 8}, {"tie_word_embeddings": True}):
        variant = {**cfg, **change}
        assert _kvplan_count(variant) == _transformers_count(variant)


def test_mistral3_counts_as_transformers_builds_it():
    """mistral3 (task h80catalog): the Pixtral tower (Conv2d patch embedding without bias, ln_pre,
    RMSNorms, q/k/v/o and a gated MLP without biases) and Mistral3MultiModalProjector (norm, patch
    merger, linear_1, linear_2). The shipped config states no tie_word_embeddings: transformers
    4.50, which wrote it, reads the text_config's MistralConfig default (untied), as keras-hub's
    published count of the checkpoint shows; transformers 5.25's Mistral3Config defaults the
    top-level key to true and would tie the LM head, so the oracle is built with the key stated."""
    cfg = _shrunk("mistral-small-3.1-24b", 2) | {"tie_word_embeddings": False}
    for change in ({}, {"multimodal_projector_bias": True}, {"vision_feature_layer": [-1, -3]},
                   {"spatial_merge_size": 3}, {"tie_word_embeddings": True}):
        variant = {**cfg, **change}
        assert _kvplan_count(variant) == _transformers_count(variant)
