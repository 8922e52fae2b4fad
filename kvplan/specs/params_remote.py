"""Model types whose modeling code ships with the checkpoint (trust_remote_code), not with
transformers: ChatGLM2/3 (`chatglm`) and InternLM2 (`internlm2`). Their config keys are renamed
to the ones the importer reads where they differ, and their parameters counted from the layer
definitions of the remote modeling file.

InternLM2 (modeling_internlm2.py, InternLM2Attention / InternLM2MLP / InternLM2Model /
InternLM2ForCausalLM): head_dim = hidden_size / num_attention_heads (the file raises otherwise);
one fused wqkv [hidden, (num_attention_heads + 2 x num_key_value_heads) x head_dim] and wo
[heads x head_dim, hidden], both with biases when `bias`; w1, w3 [hidden, intermediate] and w2
[intermediate, hidden] without biases; attention_norm and ffn_norm RMSNorms, a final norm;
tok_embeddings and an output head [vocab, hidden], tied only when tie_word_embeddings. The cache
holds key_states and value_states after the split: num_key_value_heads x head_dim each.

ChatGLM (THUDM/chatglm2-6b modeling_chatglm.py, read at Lwen1243/ChatGLM2-6B@8c95264):
- SelfAttention: query_key_value [hidden, kv_channels x (num_attention_heads + 2 x groups)],
  groups = multi_query_group_num when multi_query_attention (else num_attention_heads), bias
  when add_bias_linear or add_qkv_bias; dense [kv_channels x heads, hidden], bias when
  add_bias_linear. The cache holds key and value after the split: groups x kv_channels each
  per layer and token (SelfAttention.forward, `kv_cache = (key_layer, value_layer)`).
- MLP: dense_h_to_4h [hidden, 2 x ffn_hidden_size] (SwiGLU's two halves), dense_4h_to_h
  [ffn_hidden_size, hidden], biases when add_bias_linear.
- GLMBlock: input_layernorm and post_attention_layernorm, RMSNorm (weight only) when rmsnorm;
  GLMTransformer: final_layernorm when post_layer_norm; word_embeddings and output_layer
  [padded_vocab_size, hidden], untied. RotaryEmbedding's inv_freq is a buffer, not a parameter.
Anything the file builds otherwise (LayerNorm with biases, a prefix encoder, quantized weights)
is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.specs.config_paths import Located, field_path, relocated
from kvplan.specs.params_base import ParamCount, UnsupportedArchitecture, _flag, _int, _int_or

# ChatGLMConfig key -> the key the importer reads
CHATGLM_KEYS = {
    "num_layers": "num_hidden_layers",
    "ffn_hidden_size": "intermediate_size",
    "padded_vocab_size": "vocab_size",
    "seq_length": "max_position_embeddings",
    "kv_channels": "head_dim",
}
REMOTE_TYPES = ("chatglm", "internlm2")


def _refuse(why: str) -> UnsupportedArchitecture:
    return UnsupportedArchitecture(f"chatglm: {why}")


def remote_config(cfg: Mapping[str, Any], model_type: str, notes: list[str]) -> Located:
    """The config with its keys as the importer reads them, and a note on the remote code."""
    if model_type == "chatglm":
        return chatglm_config(cfg, notes)
    notes.append(
        "InternLM2 (remote modeling_internlm2.py): one fused wqkv projection; the cache keeps "
        "num_key_value_heads keys and values of hidden_size / num_attention_heads per layer"
    )
    return relocated(cfg, cfg)


def chatglm_config(cfg: Mapping[str, Any], notes: list[str]) -> Located:
    """ChatGLMConfig's keys renamed to the importer's, after checking the layout is the one
    chatglm2-6b's modeling file builds and this module counts."""
    if not _flag(cfg, "rmsnorm", True):
        raise _refuse("rmsnorm false: LayerNorm layers with biases are not counted here")
    if cfg.get("pre_seq_len") is not None:
        raise _refuse("pre_seq_len is set: a P-tuning prefix encoder is not counted")
    if cfg.get("quantization_bit"):
        raise _refuse(f"quantization_bit {cfg['quantization_bit']!r}: quantized weights")
    both = cfg.get("num_hidden_layers") is not None and cfg.get("num_layers") is not None
    if both and cfg["num_hidden_layers"] != cfg["num_layers"]:
        raise _refuse("num_layers and num_hidden_layers disagree")
    out = {k: v for k, v in cfg.items() if k not in CHATGLM_KEYS.values()}
    renamed = {dst: src for src, dst in CHATGLM_KEYS.items()}  # refusals name ChatGLM's key
    for src, dst in CHATGLM_KEYS.items():
        if src not in cfg:
            raise _refuse(f"config field {field_path(cfg, src)!r} is missing")
        out[dst] = cfg[src]
    if _flag(cfg, "multi_query_attention", False):
        out["num_key_value_heads"] = cfg.get("multi_query_group_num")
        renamed["num_key_value_heads"] = "multi_query_group_num"
        groups = f"multi_query_group_num {cfg.get('multi_query_group_num')}"
    else:
        out["num_key_value_heads"] = cfg.get("num_attention_heads")
        renamed["num_key_value_heads"] = "num_attention_heads"
        groups = "multi_query_attention false: one per attention head"
    notes.append(
        f"ChatGLM (remote modeling_chatglm.py): the cache keeps {groups} key/value groups of "
        f"kv_channels {cfg.get('kv_channels')} per layer; num_layers, ffn_hidden_size, "
        "padded_vocab_size and seq_length read as layers, MLP width (dense_h_to_4h is twice "
        "it, SwiGLU), vocabulary and context"
    )
    return relocated(cfg, out, renamed)


def chatglm_params(cfg: Mapping[str, Any]) -> ParamCount:
    """`cfg` as chatglm_config renamed it; see the module docstring for each tensor."""
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    heads, kv_channels = _int(cfg, "num_attention_heads"), _int(cfg, "head_dim")
    groups, ffn = _int(cfg, "num_key_value_heads"), _int(cfg, "intermediate_size")
    vocab = _int(cfg, "vocab_size")
    linear_bias = _flag(cfg, "add_bias_linear", False)
    qkv_out = kv_channels * (heads + 2 * groups)
    attention = hidden * qkv_out + heads * kv_channels * hidden
    if linear_bias or _flag(cfg, "add_qkv_bias", False):
        attention += qkv_out
    mlp = hidden * 2 * ffn + ffn * hidden
    if linear_bias:
        attention += hidden
        mlp += 2 * ffn + hidden
    final = hidden if _flag(cfg, "post_layer_norm", True) else 0
    return ParamCount(2 * vocab * hidden + layers * (attention + mlp + 2 * hidden) + final)


def internlm2_params(cfg: Mapping[str, Any]) -> ParamCount:
    """InternLM2's tensors; see the module docstring."""
    hidden, layers = _int(cfg, "hidden_size"), _int(cfg, "num_hidden_layers")
    heads, inter = _int(cfg, "num_attention_heads"), _int(cfg, "intermediate_size")
    if hidden % heads or (cfg.get("head_dim") not in (None, hidden // heads)):
        raise UnsupportedArchitecture(
            "internlm2: head_dim must be hidden_size / num_attention_heads, as "
            "modeling_internlm2.py requires"
        )
    head_dim = hidden // heads
    kv = _int_or(cfg, "num_key_value_heads", 0, least=0) or heads
    bias = _flag(cfg, "bias", False)
    qkv_out = (heads + 2 * _int({"num_key_value_heads": kv}, "num_key_value_heads")) * head_dim
    attention = hidden * qkv_out + heads * head_dim * hidden
    if bias:
        attention += qkv_out + hidden
    tied = _flag(cfg, "tie_word_embeddings", False)
    embed = _int(cfg, "vocab_size") * hidden * (1 if tied else 2)
    return ParamCount(embed + layers * (attention + 3 * hidden * inter + 2 * hidden) + hidden)
