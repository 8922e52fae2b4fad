"""Exact parameter counts from a Hugging Face config's shapes, for the architectures kvplan knows.

Every count is the sum of the tensor sizes the model's modeling code creates (embeddings,
attention projections and their biases, norms, MLP or experts, router, lm_head unless tied).
Multi-token-prediction heads that engines do not load for plain serving are left out.

This module keeps the dense families and the dispatch by model_type; the shared pieces live in
kvplan.specs.params_base and the mixture-of-experts, MLA and hybrid families in
kvplan.specs.params_moe (both re-exported here).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.specs.params_base import (  # the shared pieces live there; imported from here too
    ParamCount,
    UnsupportedArchitecture,
    _embeddings,
    _flag,
    _gqa_attention,
    _int,
    _int_or,
    _llama_like,
    _mlp,
    head_dim,
)
from kvplan.specs.params_moe import (  # the MoE/MLA/hybrid families; imported from here too
    _deepseek,
    _glm4_moe,
    _gpt_oss,
    _llama4,
    _mixtral,
    _qwen3_moe,
    _qwen3_next,
    gated_delta_net_conv_dim,
    llama4_moe_layers,
)

__all__ = [
    "ParamCount",
    "UnsupportedArchitecture",
    "_embeddings",
    "_flag",
    "_gqa_attention",
    "_int",
    "_llama_like",
    "_mlp",
    "count_params",
    "gated_delta_net_conv_dim",
    "head_dim",
    "llama4_moe_layers",
]


def _llama(cfg: Mapping[str, Any]) -> ParamCount:
    bias = _flag(cfg, "attention_bias", False)
    return ParamCount(
        _llama_like(cfg, qkv_bias=bias, o_bias=bias, mlp_bias=_flag(cfg, "mlp_bias", False))
    )


def _mistral(cfg: Mapping[str, Any]) -> ParamCount:
    return ParamCount(_llama_like(cfg, qkv_bias=False, o_bias=False))


def _qwen2(cfg: Mapping[str, Any]) -> ParamCount:
    # Qwen2Attention: q/k/v have biases, o_proj has none
    return ParamCount(_llama_like(cfg, qkv_bias=True, o_bias=False))


def _qwen3(cfg: Mapping[str, Any]) -> ParamCount:
    bias = _flag(cfg, "attention_bias", False)
    return ParamCount(_llama_like(cfg, qkv_bias=bias, o_bias=bias, qk_norm=True))


def _phi3(cfg: Mapping[str, Any]) -> ParamCount:
    # fused qkv_proj and gate_up_proj hold the same numbers as the separate projections
    return ParamCount(_llama_like(cfg, qkv_bias=False, o_bias=False))


def _gemma2(cfg: Mapping[str, Any]) -> ParamCount:
    # four RMSNorms per layer (input, post-attention, pre- and post-feedforward); tied embeddings
    bias = _flag(cfg, "attention_bias", False)
    return ParamCount(
        _llama_like(cfg, qkv_bias=bias, o_bias=bias, norms_per_layer=4, tied_default=True)
    )


def _gemma3(cfg: Mapping[str, Any]) -> ParamCount:
    bias = _flag(cfg, "attention_bias", False)
    return ParamCount(
        _llama_like(cfg, qkv_bias=bias, o_bias=bias, qk_norm=True, norms_per_layer=4, tied_default=True)
    )


def _gemma(cfg: Mapping[str, Any]) -> ParamCount:
    # Gemma 1: llama-shaped (two RMSNorms per layer, no biases), embeddings tied
    bias = _flag(cfg, "attention_bias", False)
    return ParamCount(_llama_like(cfg, qkv_bias=bias, o_bias=bias, tied_default=True))


def _falcon(cfg: Mapping[str, Any]) -> ParamCount:
    if _flag(cfg, "new_decoder_architecture", False):
        raise UnsupportedArchitecture("Falcon new_decoder_architecture (40B/180B) is not handled")
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    heads = _int(cfg, "num_attention_heads")
    hd = hidden // heads
    kv = 1 if _flag(cfg, "multi_query", True) else heads
    bias = _flag(cfg, "bias", False)
    inter = _int_or(cfg, "ffn_hidden_size", 0, least=0) or 4 * hidden
    qkv_out = (heads + 2 * kv) * hd
    attention = hidden * qkv_out + hidden * hidden + ((qkv_out + hidden) if bias else 0)
    mlp = 2 * hidden * inter + ((inter + hidden) if bias else 0)
    # LayerNorms have weight and bias; parallel attention shares one per layer
    norms = 2 * hidden * (1 if _flag(cfg, "parallel_attn", True) else 2)
    return ParamCount(
        _embeddings(cfg, True) + layers * (attention + mlp + norms) + 2 * hidden
    )


def _text_params(cfg: Mapping[str, Any], model_type: str) -> ParamCount:
    simple = {
        "llama": _llama,
        "granite": _llama,
        "mistral": _mistral,
        "mistral3": _mistral,  # Mistral3ForConditionalGeneration's text_config is a MistralConfig
        "qwen2": _qwen2,
        "qwen2_5_vl": _qwen2,
        "qwen3": _qwen3,
        "qwen3_vl": _qwen3,
        "phi3": _phi3,
        "gemma": _gemma,
        "gemma2": _gemma2,
        "gemma3": _gemma3,
        "gemma3_text": _gemma3,
        "mixtral": _mixtral,
        "qwen3_moe": _qwen3_moe,
        "qwen3_vl_moe": _qwen3_moe,
        "qwen3_next": _qwen3_next,
        "gpt_oss": _gpt_oss,
        "falcon": _falcon,
        "llama4": _llama4,
        "glm4_moe": _glm4_moe,
    }
    if model_type in simple:
        return simple[model_type](cfg)
    if model_type == "opt":
        from kvplan.specs.params_opt import opt_params

        return opt_params(cfg)
    if model_type in ("deepseek_v2", "deepseek_v3", "kimi_k2", "kimi_k25"):
        return _deepseek(cfg, model_type)
    from kvplan.specs.params_extra import extra_params

    extra = extra_params(cfg, model_type)
    if extra is not None:
        return extra
    raise UnsupportedArchitecture(f"no parameter count for model_type {model_type!r}")


def count_params(cfg: Mapping[str, Any], model_type: str, root: Mapping[str, Any]) -> ParamCount:
    """Parameters of the checkpoint a config describes: the (text) config `cfg`, plus the
    vision tower `root` (the whole config) describes, which `encoder` reports separately
    (and `active`, the per-token count of MoE models, leaves out).

    Raises UnsupportedArchitecture for a model type whose layout is not written out here.
    """
    from kvplan.specs.params_multimodal import vision_tower

    text = _text_params(cfg, model_type)
    tower = vision_tower(model_type, root, _int(cfg, "hidden_size"))
    if tower is None:
        return text
    # a text token does not pass through the tower: `active` stays the language model's
    return ParamCount(text.total + tower, text.active, tower)
