"""Exact parameter counts from a Hugging Face config's shapes, for the architectures kvplan knows.

Every count is the sum of the tensor sizes the model's modeling code creates (embeddings,
attention projections and their biases, norms, MLP or experts, router, lm_head unless tied).
Multi-token-prediction heads that engines do not load for plain serving are left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kvplan.errors import InputError


@dataclass(frozen=True)
class ParamCount:
    """All parameters, and (for mixture-of-experts models) those one token uses."""

    total: int
    active: int | None = None
    encoder: int | None = None  # a vision/audio tower's share of `total`, for multimodal configs


class UnsupportedArchitecture(InputError):
    """The config describes a model whose shapes kvplan cannot account for."""


def _int(cfg: Mapping[str, Any], key: str) -> int:
    value = cfg.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise UnsupportedArchitecture(
            f"config field {key!r} is {'missing' if value is None else repr(value)}; "
            "it must be a whole number"
        )
    return value


def _flag(cfg: Mapping[str, Any], key: str, default: bool) -> bool:
    value = cfg.get(key, default)
    return default if value is None else bool(value)


def head_dim(cfg: Mapping[str, Any]) -> int:
    """`head_dim` where the config sets it, else hidden_size / num_attention_heads."""
    explicit = cfg.get("head_dim")
    if explicit is not None:
        return _int(cfg, "head_dim")
    hidden, heads = _int(cfg, "hidden_size"), _int(cfg, "num_attention_heads")
    if hidden % heads:
        raise UnsupportedArchitecture(
            f"hidden_size {hidden} is not a multiple of num_attention_heads {heads} and the "
            "config sets no head_dim"
        )
    return hidden // heads


def _embeddings(cfg: Mapping[str, Any], tied_default: bool) -> int:
    """Input embedding plus the lm_head, unless the two are tied."""
    vocab, hidden = _int(cfg, "vocab_size"), _int(cfg, "hidden_size")
    tied = _flag(cfg, "tie_word_embeddings", tied_default)
    return vocab * hidden * (1 if tied else 2)


def _gqa_attention(
    cfg: Mapping[str, Any],
    kv_heads: int,
    qkv_bias: bool,
    o_bias: bool,
    qk_norm: bool = False,
    q_gate: bool = False,
) -> int:
    """q/k/v/o projections (and biases), optional per-head q/k norms and output gate."""
    hidden, heads, hd = _int(cfg, "hidden_size"), _int(cfg, "num_attention_heads"), head_dim(cfg)
    q_out = heads * hd * (2 if q_gate else 1)
    kv_out = kv_heads * hd
    n = hidden * q_out + 2 * hidden * kv_out + heads * hd * hidden
    if qkv_bias:
        n += q_out + 2 * kv_out
    if o_bias:
        n += hidden
    if qk_norm:
        n += 2 * hd
    return n


def _mlp(hidden: int, inter: int, bias: bool = False) -> int:
    """Gated MLP: gate and up (hidden -> inter), down (inter -> hidden)."""
    return 3 * hidden * inter + ((2 * inter + hidden) if bias else 0)


def _llama_like(
    cfg: Mapping[str, Any],
    *,
    qkv_bias: bool,
    o_bias: bool,
    mlp_bias: bool = False,
    qk_norm: bool = False,
    norms_per_layer: int = 2,
    tied_default: bool = False,
) -> int:
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    kv = cfg.get("num_key_value_heads") or _int(cfg, "num_attention_heads")
    per_layer = (
        _gqa_attention(cfg, kv, qkv_bias, o_bias, qk_norm)
        + _mlp(hidden, _int(cfg, "intermediate_size"), mlp_bias)
        + norms_per_layer * hidden
    )
    return _embeddings(cfg, tied_default) + layers * per_layer + hidden


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


def _experts(cfg: Mapping[str, Any], key: str) -> int:
    return _int(cfg, key)


def _mixtral(cfg: Mapping[str, Any]) -> ParamCount:
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    kv = cfg.get("num_key_value_heads") or _int(cfg, "num_attention_heads")
    experts, top_k = _experts(cfg, "num_local_experts"), _int(cfg, "num_experts_per_tok")
    expert = _mlp(hidden, _int(cfg, "intermediate_size"))
    per_layer = _gqa_attention(cfg, kv, False, False) + experts * hidden + 2 * hidden
    total = _embeddings(cfg, False) + hidden + layers * (per_layer + experts * expert)
    active = _embeddings(cfg, False) + hidden + layers * (per_layer + top_k * expert)
    return ParamCount(total, active)


def _sparse_layers(cfg: Mapping[str, Any]) -> int:
    """Qwen MoE layers: not in mlp_only_layers and on every decoder_sparse_step-th layer."""
    layers = _int(cfg, "num_hidden_layers")
    step = cfg.get("decoder_sparse_step") or 1
    dense = set(cfg.get("mlp_only_layers") or [])
    return sum(1 for i in range(layers) if i not in dense and (i + 1) % step == 0)


def _qwen3_moe(cfg: Mapping[str, Any]) -> ParamCount:
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    kv = cfg.get("num_key_value_heads") or _int(cfg, "num_attention_heads")
    bias = _flag(cfg, "attention_bias", False)
    experts, top_k = _experts(cfg, "num_experts"), _int(cfg, "num_experts_per_tok")
    expert = _mlp(hidden, _int(cfg, "moe_intermediate_size"))
    sparse = _sparse_layers(cfg)
    dense = layers - sparse
    base = (
        _embeddings(cfg, False)
        + hidden
        + layers * (_gqa_attention(cfg, kv, bias, bias, qk_norm=True) + 2 * hidden)
        + dense * _mlp(hidden, _int(cfg, "intermediate_size"))
        + sparse * experts * hidden  # router
    )
    return ParamCount(base + sparse * experts * expert, base + sparse * top_k * expert)


def gated_delta_net_conv_dim(cfg: Mapping[str, Any]) -> int:
    """Channels of the Gated DeltaNet short convolution: q and k (key width) and v (value width)."""
    key_dim = _int(cfg, "linear_key_head_dim") * _int(cfg, "linear_num_key_heads")
    value_dim = _int(cfg, "linear_value_head_dim") * _int(cfg, "linear_num_value_heads")
    return 2 * key_dim + value_dim


def _qwen3_next(cfg: Mapping[str, Any]) -> ParamCount:
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    interval = _int(cfg, "full_attention_interval")
    kv = _int(cfg, "num_key_value_heads")
    bias = _flag(cfg, "attention_bias", False)
    full = sum(1 for i in range(layers) if (i + 1) % interval == 0)
    linear = layers - full
    # Qwen3NextAttention: q_proj also produces an output gate; per-head q/k RMSNorms
    attention = _gqa_attention(cfg, kv, bias, bias, qk_norm=True, q_gate=True)
    v_heads, v_dim = _int(cfg, "linear_num_value_heads"), _int(cfg, "linear_value_head_dim")
    key_dim = _int(cfg, "linear_key_head_dim") * _int(cfg, "linear_num_key_heads")
    value_dim = v_dim * v_heads
    conv_dim = gated_delta_net_conv_dim(cfg)
    delta_net = (
        hidden * (2 * key_dim + 2 * value_dim)  # in_proj_qkvz
        + hidden * 2 * v_heads  # in_proj_ba
        + conv_dim * _int(cfg, "linear_conv_kernel_dim")  # depthwise conv1d, no bias
        + 2 * v_heads  # dt_bias, A_log
        + v_dim  # gated RMSNorm over one value head
        + value_dim * hidden  # out_proj
    )
    experts, top_k = _experts(cfg, "num_experts"), _int(cfg, "num_experts_per_tok")
    expert = _mlp(hidden, _int(cfg, "moe_intermediate_size"))
    shared = _mlp(hidden, _int(cfg, "shared_expert_intermediate_size")) + hidden  # + its gate
    sparse = _sparse_layers(cfg)
    base = (
        _embeddings(cfg, False)
        + hidden
        + full * attention
        + linear * delta_net
        + layers * 2 * hidden
        + (layers - sparse) * _mlp(hidden, _int(cfg, "intermediate_size"))
        + sparse * (experts * hidden + shared)
    )
    return ParamCount(base + sparse * experts * expert, base + sparse * top_k * expert)


def _mla_attention(cfg: Mapping[str, Any]) -> int:
    """DeepSeek multi-head latent attention projections and their norms."""
    hidden, heads = _int(cfg, "hidden_size"), _int(cfg, "num_attention_heads")
    rope, nope = _int(cfg, "qk_rope_head_dim"), _int(cfg, "qk_nope_head_dim")
    v_dim, kv_rank = _int(cfg, "v_head_dim"), _int(cfg, "kv_lora_rank")
    if _flag(cfg, "attention_bias", False):
        raise UnsupportedArchitecture("MLA with attention_bias true is not handled")
    q_rank = cfg.get("q_lora_rank")
    q_out = heads * (nope + rope)
    # with a query latent: q_a_proj, q_a_layernorm, q_b_proj; without: one q_proj
    q = (hidden * q_rank + q_rank + q_rank * q_out) if q_rank else hidden * q_out
    kv = hidden * (kv_rank + rope) + kv_rank + kv_rank * heads * (nope + v_dim)
    return q + kv + heads * v_dim * hidden


def _deepseek(cfg: Mapping[str, Any], model_type: str) -> ParamCount:
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    experts, top_k = _experts(cfg, "n_routed_experts"), _int(cfg, "num_experts_per_tok")
    first_dense = cfg.get("first_k_dense_replace") or 0
    freq = cfg.get("moe_layer_freq") or 1
    sparse = sum(1 for i in range(first_dense, layers) if i % freq == 0)
    dense = layers - sparse
    expert = _mlp(hidden, _int(cfg, "moe_intermediate_size"))
    shared = (cfg.get("n_shared_experts") or 0) * expert
    # noaux_tc routing (V3, Kimi-K2) keeps a per-expert score-correction bias beside the gate
    default_method = "greedy" if model_type == "deepseek_v2" else "noaux_tc"
    topk_method = cfg.get("topk_method") or default_method
    router = experts * hidden + (experts if topk_method == "noaux_tc" else 0)
    base = (
        _embeddings(cfg, False)
        + hidden
        + layers * (_mla_attention(cfg) + 2 * hidden)
        + dense * _mlp(hidden, _int(cfg, "intermediate_size"))
        + sparse * (router + shared)
    )
    return ParamCount(base + sparse * experts * expert, base + sparse * top_k * expert)


def _gpt_oss(cfg: Mapping[str, Any]) -> ParamCount:
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    heads = _int(cfg, "num_attention_heads")
    experts, top_k = _experts(cfg, "num_local_experts"), _int(cfg, "num_experts_per_tok")
    inter = _int(cfg, "intermediate_size")
    attention = _gqa_attention(
        cfg, _int(cfg, "num_key_value_heads"), qkv_bias=True, o_bias=True
    ) + heads  # one attention sink per head
    # experts: gate_up_proj [hidden, 2*inter] + bias, down_proj [inter, hidden] + bias
    expert = hidden * 2 * inter + 2 * inter + inter * hidden + hidden
    router = experts * hidden + experts
    base = _embeddings(cfg, False) + hidden + layers * (attention + router + 2 * hidden)
    return ParamCount(base + layers * experts * expert, base + layers * top_k * expert)


def _falcon(cfg: Mapping[str, Any]) -> ParamCount:
    if cfg.get("new_decoder_architecture"):
        raise UnsupportedArchitecture("Falcon new_decoder_architecture (40B/180B) is not handled")
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    heads = _int(cfg, "num_attention_heads")
    hd = hidden // heads
    kv = 1 if cfg.get("multi_query", True) else heads
    bias = _flag(cfg, "bias", False)
    inter = cfg.get("ffn_hidden_size") or 4 * hidden
    qkv_out = (heads + 2 * kv) * hd
    attention = hidden * qkv_out + hidden * hidden + ((qkv_out + hidden) if bias else 0)
    mlp = 2 * hidden * inter + ((inter + hidden) if bias else 0)
    # LayerNorms have weight and bias; parallel attention shares one per layer
    norms = 2 * hidden * (1 if cfg.get("parallel_attn", True) else 2)
    return ParamCount(
        _embeddings(cfg, True) + layers * (attention + mlp + norms) + 2 * hidden
    )


def llama4_moe_layers(cfg: Mapping[str, Any]) -> list[int]:
    """Llama 4's MoE layers: `moe_layers`, else every interleave_moe_layer_step-th layer
    (Llama4TextConfig: range(step - 1, layers, step))."""
    layers = _int(cfg, "num_hidden_layers")
    listed = cfg.get("moe_layers")
    if isinstance(listed, list):
        return sorted(int(i) for i in listed)
    step = cfg.get("interleave_moe_layer_step") or 1
    return list(range(step - 1, layers, step))


def _llama4(cfg: Mapping[str, Any]) -> ParamCount:
    """Llama 4 text model: q/k/v/o without biases (the QK L2 norm has no weights), two
    RMSNorms per layer; MoE layers hold the experts (gate_up [E, h, 2I], down [E, I, h]), a
    router [h, E] and one shared expert MLP of intermediate_size; the other layers a dense MLP
    of intermediate_size_mlp."""
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    kv = cfg.get("num_key_value_heads") or _int(cfg, "num_attention_heads")
    experts, top_k = _int(cfg, "num_local_experts"), _int(cfg, "num_experts_per_tok")
    expert = _mlp(hidden, _int(cfg, "intermediate_size"))
    sparse = len(llama4_moe_layers(cfg))
    dense = layers - sparse
    base = (
        _embeddings(cfg, False)
        + hidden
        + layers * (_gqa_attention(cfg, kv, False, False) + 2 * hidden)
        + dense * _mlp(hidden, _int(cfg, "intermediate_size_mlp"))
        + sparse * (experts * hidden + expert)  # router and the shared expert
    )
    return ParamCount(base + sparse * experts * expert, base + sparse * top_k * expert)


def _glm4_moe(cfg: Mapping[str, Any]) -> ParamCount:
    """GLM-4.5/4.6: q/k/v with biases (attention_bias), o_proj without, per-head q/k RMSNorms
    when use_qk_norm; the first first_k_dense_replace layers a dense MLP, the others routed
    experts, a router [E, h] with its stored score-correction bias [E] and n_shared_experts
    shared experts. The multi-token-prediction layer (num_nextn_predict_layers) is left out."""
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    kv = _int(cfg, "num_key_value_heads")
    bias = _flag(cfg, "attention_bias", False)
    attention = _gqa_attention(cfg, kv, bias, False, qk_norm=_flag(cfg, "use_qk_norm", False))
    experts, top_k = _int(cfg, "n_routed_experts"), _int(cfg, "num_experts_per_tok")
    expert = _mlp(hidden, _int(cfg, "moe_intermediate_size"))
    dense = min(cfg.get("first_k_dense_replace") or 0, layers)
    sparse = layers - dense
    base = (
        _embeddings(cfg, False)
        + hidden
        + layers * (attention + 2 * hidden)
        + dense * _mlp(hidden, _int(cfg, "intermediate_size"))
        + sparse * (experts * hidden + experts + (cfg.get("n_shared_experts") or 0) * expert)
    )
    return ParamCount(base + sparse * experts * expert, base + sparse * top_k * expert)


def _text_params(cfg: Mapping[str, Any], model_type: str) -> ParamCount:
    simple = {
        "llama": _llama,
        "granite": _llama,
        "mistral": _mistral,
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
