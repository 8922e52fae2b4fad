"""Parameter counts of the mixture-of-experts, MLA and hybrid families: Mixtral, Qwen3-MoE,
Qwen3-Next (Gated DeltaNet), DeepSeek V2/V3 and Kimi (MLA), gpt-oss, Llama 4 and GLM-4.5/4.6.

Split from kvplan.specs.params (which keeps the dense families and the dispatch); each count is
the sum of the tensor sizes the model's modeling code creates, `active` the share one token uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.specs.config_paths import field_path, wrong
from kvplan.specs.params_base import (
    ParamCount,
    UnsupportedArchitecture,
    _embeddings,
    _flag,
    _gqa_attention,
    _index_list,
    _int,
    _int_or,
    _mlp,
    qwen_experts_key,
)


def _experts(cfg: Mapping[str, Any], key: str) -> int:
    return _int(cfg, key)


def _mixtral(cfg: Mapping[str, Any]) -> ParamCount:
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    kv = _int_or(cfg, "num_key_value_heads", 0, least=0) or _int(cfg, "num_attention_heads")
    experts, top_k = _experts(cfg, "num_local_experts"), _int(cfg, "num_experts_per_tok")
    expert = _mlp(hidden, _int(cfg, "intermediate_size"))
    per_layer = _gqa_attention(cfg, kv, False, False) + experts * hidden + 2 * hidden
    total = _embeddings(cfg, False) + hidden + layers * (per_layer + experts * expert)
    active = _embeddings(cfg, False) + hidden + layers * (per_layer + top_k * expert)
    return ParamCount(total, active)


def _sparse_layers(cfg: Mapping[str, Any]) -> int:
    """Qwen MoE layers: not in mlp_only_layers and on every decoder_sparse_step-th layer."""
    layers = _int(cfg, "num_hidden_layers")
    step = _int_or(cfg, "decoder_sparse_step", 1, least=0) or 1
    dense = set(_index_list(cfg, "mlp_only_layers"))
    return sum(1 for i in range(layers) if i not in dense and (i + 1) % step == 0)


def _qwen3_moe(cfg: Mapping[str, Any]) -> ParamCount:
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    kv = _int_or(cfg, "num_key_value_heads", 0, least=0) or _int(cfg, "num_attention_heads")
    bias = _flag(cfg, "attention_bias", False)
    experts, top_k = _experts(cfg, qwen_experts_key(cfg)), _int(cfg, "num_experts_per_tok")
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
        raise UnsupportedArchitecture(f"MLA with {field_path(cfg, 'attention_bias')} true is not "
                                      "handled")
    q_rank = _int_or(cfg, "q_lora_rank", 0, least=0)
    q_out = heads * (nope + rope)
    # with a query latent: q_a_proj, q_a_layernorm, q_b_proj; without: one q_proj
    q = (hidden * q_rank + q_rank + q_rank * q_out) if q_rank else hidden * q_out
    kv = hidden * (kv_rank + rope) + kv_rank + kv_rank * heads * (nope + v_dim)
    return q + kv + heads * v_dim * hidden


def _deepseek(cfg: Mapping[str, Any], model_type: str) -> ParamCount:
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    experts, top_k = _experts(cfg, "n_routed_experts"), _int(cfg, "num_experts_per_tok")
    first_dense = _int_or(cfg, "first_k_dense_replace", 0, least=0)
    freq = _int_or(cfg, "moe_layer_freq", 1, least=0) or 1
    sparse = sum(1 for i in range(first_dense, layers) if i % freq == 0)
    dense = layers - sparse
    expert = _mlp(hidden, _int(cfg, "moe_intermediate_size"))
    shared = _int_or(cfg, "n_shared_experts", 0, least=0) * expert
    # noaux_tc routing (V3, Kimi-K2) keeps a per-expert score-correction bias beside the gate
    default_method = "greedy" if model_type == "deepseek_v2" else "noaux_tc"
    topk_method = cfg.get("topk_method") or default_method
    if not isinstance(topk_method, str):
        raise wrong(cfg, "topk_method", topk_method, "it must be a string (the routing's name)")
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


def llama4_moe_layers(cfg: Mapping[str, Any]) -> list[int]:
    """Llama 4's MoE layers: `moe_layers`, else every interleave_moe_layer_step-th layer
    (Llama4TextConfig: range(step - 1, layers, step))."""
    layers = _int(cfg, "num_hidden_layers")
    if cfg.get("moe_layers") is not None:
        return sorted(_index_list(cfg, "moe_layers"))
    step = _int_or(cfg, "interleave_moe_layer_step", 1, least=0) or 1
    return list(range(step - 1, layers, step))


def _llama4(cfg: Mapping[str, Any]) -> ParamCount:
    """Llama 4 text model: q/k/v/o without biases (the QK L2 norm has no weights), two
    RMSNorms per layer; MoE layers hold the experts (gate_up [E, h, 2I], down [E, I, h]), a
    router [h, E] and one shared expert MLP of intermediate_size; the other layers a dense MLP
    of intermediate_size_mlp."""
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    kv = _int_or(cfg, "num_key_value_heads", 0, least=0) or _int(cfg, "num_attention_heads")
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
    dense = min(_int_or(cfg, "first_k_dense_replace", 0, least=0), layers)
    sparse = layers - dense
    base = (
        _embeddings(cfg, False)
        + hidden
        + layers * (attention + 2 * hidden)
        + dense * _mlp(hidden, _int(cfg, "intermediate_size"))
        + sparse * (experts * hidden + experts + _int_or(cfg, "n_shared_experts", 0, least=0) * expert)
    )
    return ParamCount(base + sparse * experts * expert, base + sparse * top_k * expert)
