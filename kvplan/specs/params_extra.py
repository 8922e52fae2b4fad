"""Parameter counts of Phi (`phi`), GraniteMoe (`granitemoe`) and GraniteMoeHybrid
(`granitemoehybrid`), as transformers builds them,
and the dispatch to the remote-code types (kvplan.specs.params_remote: `chatglm`, `internlm2`).

Split from kvplan.specs.params (which keeps the llama-shaped families); each count here is the
sum of the tensors the modeling code creates, checked against transformers on the meta device in
tests/catalog/test_params_oracle.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.specs.params_base import (
    ParamCount,
    UnsupportedArchitecture,
    _embeddings,
    _flag,
    _gqa_attention,
    _int,
    _int_or,
)


def _kv_heads(cfg: Mapping[str, Any]) -> int:
    """num_key_value_heads, or (PhiConfig, GraniteMoeConfig: None) one per attention head."""
    return _int_or(cfg, "num_key_value_heads", 0, least=0) or _int(cfg, "num_attention_heads")


def phi_params(cfg: Mapping[str, Any]) -> ParamCount:
    """transformers/models/phi/modeling_phi.py (PhiForCausalLM, Phi-1, Phi-1.5, Phi-2).

    PhiAttention: q_proj, k_proj, v_proj and dense, all with biases; with qk_layernorm a
    LayerNorm (weight and bias) over hidden_size // num_attention_heads for q and for k.
    PhiMLP: fc1 [hidden, intermediate] and fc2 [intermediate, hidden], with biases (no gate).
    PhiDecoderLayer: one input_layernorm (weight and bias); attention and MLP read it in
    parallel. PhiModel: embed_tokens, final_layernorm (weight and bias). lm_head has a bias
    [vocab], which stays even when its weight is tied to the embedding.
    """
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    heads, inter = _int(cfg, "num_attention_heads"), _int(cfg, "intermediate_size")
    attention = _gqa_attention(cfg, _kv_heads(cfg), qkv_bias=True, o_bias=True)
    if _flag(cfg, "qk_layernorm", False):
        attention += 2 * 2 * (hidden // heads)
    mlp = 2 * hidden * inter + inter + hidden
    per_layer = attention + mlp + 2 * hidden
    return ParamCount(
        _embeddings(cfg, False) + _int(cfg, "vocab_size") + layers * per_layer + 2 * hidden
    )


def granitemoe_params(cfg: Mapping[str, Any]) -> ParamCount:
    """transformers/models/granitemoe/modeling_granitemoe.py (GraniteMoeForCausalLM).

    GraniteMoeAttention: q/k/v/o projections, biases when attention_bias. Two RMSNorms per
    layer and a final one. GraniteMoeTopKGating: a router weight [num_local_experts, hidden]
    without bias. GraniteMoeExperts: gate_up [E, 2 x intermediate_size, hidden] and down
    [E, hidden, intermediate_size], no biases, no shared expert. The multipliers
    (embedding, residual, attention, logits) are scalars, not tensors.
    """
    if _int_or(cfg, "shared_intermediate_size", 0, least=0):
        raise UnsupportedArchitecture(
            "shared_intermediate_size is set: a shared expert is GraniteMoeShared, not granitemoe"
        )
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    experts, top_k = _int(cfg, "num_local_experts"), _int(cfg, "num_experts_per_tok")
    if top_k > experts:
        raise UnsupportedArchitecture(
            f"num_experts_per_tok {top_k} is above num_local_experts {experts}"
        )
    bias = _flag(cfg, "attention_bias", False)
    expert = 3 * hidden * _int(cfg, "intermediate_size")
    base = (
        _embeddings(cfg, False)
        + hidden
        + layers * (_gqa_attention(cfg, _kv_heads(cfg), bias, bias) + 2 * hidden + experts * hidden)
    )
    return ParamCount(base + layers * experts * expert, base + layers * top_k * expert)


def granitemoehybrid_params(cfg: Mapping[str, Any]) -> ParamCount:
    """transformers/models/granitemoehybrid/modeling_granitemoehybrid.py
    (GraniteMoeHybridForCausalLM, Granite 4.0).

    Every layer: two RMSNorms, the shared MLP (input_linear [2 x shared_intermediate_size,
    hidden], output_linear [hidden, shared_intermediate_size], no biases) and, when
    num_local_experts > 0, a router [E, hidden] and experts (gate_up [E, 2 x intermediate_size,
    hidden], down [E, hidden, intermediate_size]). Attention layers: q/k/v/o, biases when
    attention_bias. Mamba2 layers (d_inner = mamba_expand x hidden, conv_dim = d_inner + 2 x
    mamba_n_groups x mamba_d_state): in_proj [d_inner + conv_dim + mamba_n_heads, hidden] and
    out_proj [hidden, d_inner], biases when mamba_proj_bias; depthwise conv1d [conv_dim, 1,
    mamba_d_conv] with a bias when mamba_conv_bias; dt_bias, A_log and D of mamba_n_heads each;
    the gated RMSNorm over d_inner. Then the final norm, embeddings, lm_head unless tied.
    """
    from kvplan.specs.hf_mamba import granite_layer_kinds, mamba2_head_dim
    from kvplan.specs.schema import LayerKind

    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    kinds = granite_layer_kinds(cfg, [])
    mamba = kinds.count(LayerKind.linear)
    bias = _flag(cfg, "attention_bias", False)
    per_layer = 2 * hidden + 3 * hidden * _int(cfg, "shared_intermediate_size")
    attention = _gqa_attention(cfg, _kv_heads(cfg), bias, bias)
    mixer = 0
    if mamba:
        heads, d_state = _int(cfg, "mamba_n_heads"), _int(cfg, "mamba_d_state")
        inner = heads * mamba2_head_dim(cfg)
        conv_dim = inner + 2 * _int(cfg, "mamba_n_groups") * d_state
        proj_bias = _flag(cfg, "mamba_proj_bias", False)
        mixer = (
            hidden * (inner + conv_dim + heads) + (inner + conv_dim + heads if proj_bias else 0)
            + conv_dim * _int(cfg, "mamba_d_conv") + (conv_dim if _flag(cfg, "mamba_conv_bias", True) else 0)
            + 3 * heads  # dt_bias, A_log, D
            + inner  # gated RMSNorm
            + inner * hidden + (hidden if proj_bias else 0)  # out_proj
        )
    experts = _int_or(cfg, "num_local_experts", 0, least=0)
    base = (
        _embeddings(cfg, False)
        + hidden
        + layers * per_layer
        + (layers - mamba) * attention
        + mamba * mixer
    )
    if not experts:
        return ParamCount(base)
    top_k = _int(cfg, "num_experts_per_tok")
    expert = 3 * hidden * _int(cfg, "intermediate_size")
    base += layers * experts * hidden  # routers
    return ParamCount(base + layers * experts * expert, base + layers * top_k * expert)


def extra_params(cfg: Mapping[str, Any], model_type: str) -> ParamCount | None:
    """The count for a model type this module knows, else None."""
    if model_type == "phi":
        return phi_params(cfg)
    if model_type == "granitemoe":
        return granitemoe_params(cfg)
    if model_type == "granitemoehybrid":
        return granitemoehybrid_params(cfg)
    if model_type in ("chatglm", "internlm2"):
        from kvplan.specs.params_remote import chatglm_params, internlm2_params

        return (chatglm_params if model_type == "chatglm" else internlm2_params)(cfg)
    return None
