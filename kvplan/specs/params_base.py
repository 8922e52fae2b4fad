"""The shared pieces of kvplan.specs.params: the count it returns, the error it raises, the
config readers and the llama-shaped layer sums (embeddings, GQA attention, gated MLP) that the
family modules (kvplan.specs.params, params_moe, params_extra, params_opt, params_remote,
params_multimodal) build on.

Split from kvplan.specs.params, which keeps the dense families and the dispatch and re-exports
these names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kvplan.specs.config_paths import UnsupportedArchitecture, field_path, wrong


@dataclass(frozen=True)
class ParamCount:
    """All parameters, and (for mixture-of-experts models) those one token uses."""

    total: int
    active: int | None = None
    encoder: int | None = None  # a vision/audio tower's share of `total`, for multimodal configs


def _int(cfg: Mapping[str, Any], key: str) -> int:
    value = cfg.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise UnsupportedArchitecture(
            f"config field {field_path(cfg, key)!r} is "
            f"{'missing' if value is None else repr(value)}; it must be a whole number"
        )
    return value


def _int_or(cfg: Mapping[str, Any], key: str, default: int, least: int | None = None) -> int:
    """An optional whole-number field: `default` when absent or null, else as `_int` checks it
    (a dict, a string or a float there is named, not a TypeError deeper in the arithmetic);
    with `least`, a smaller number (a negative count) is named too."""
    if cfg.get(key) is None:
        return default
    value = _int(cfg, key)
    if least is not None and value < least:
        raise wrong(cfg, key, value, f"it must be a whole number of at least {least}")
    return value


def _list_or_empty(cfg: Mapping[str, Any], key: str) -> list[Any]:
    """An optional list field: [] when absent or null; any other type is named."""
    value = cfg.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise wrong(cfg, key, value, "it must be a list")
    return value


def _index_list(cfg: Mapping[str, Any], key: str) -> list[int]:
    """An optional list of layer indices: [] when absent or null; a non-list, or an entry that
    is not a whole number of at least 0 (a string, a nested list, a bool), is named."""
    items = _list_or_empty(cfg, key)
    if any(isinstance(i, bool) or not isinstance(i, int) or i < 0 for i in items):
        raise wrong(cfg, key, items, "it must be a list of layer numbers (whole numbers of at "
                    "least 0)")
    return items


def qwen_experts_key(cfg: Mapping[str, Any]) -> str:
    """The key a Qwen3 MoE config keeps its routed-expert count under: `num_experts`, as
    transformers 4 saves it, or `num_local_experts`, the name transformers 5 saves (its
    Qwen3MoeConfig and Qwen3VLMoeTextConfig map num_experts to num_local_experts, transformers
    5.25.0; Qwen3-30B-A3B-Thinking-2507's config as 5.7.0 prints it has only that key). Both,
    with different values, is refused rather than one picked."""
    new, old = cfg.get("num_local_experts"), cfg.get("num_experts")
    if new is not None and old is not None and new != old:
        raise UnsupportedArchitecture(
            f"config fields {field_path(cfg, 'num_experts')!r} ({old!r}) and "
            f"{field_path(cfg, 'num_local_experts')!r} ({new!r}) disagree; transformers reads "
            "them as one count, keep one")
    return "num_local_experts" if old is None and new is not None else "num_experts"


def _flag(cfg: Mapping[str, Any], key: str, default: bool) -> bool:
    """An optional true/false field: `default` when absent or null; any other type is named
    (a string "false" is not read as true)."""
    value = cfg.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise wrong(cfg, key, value, "it must be true or false")
    return value


def head_dim(cfg: Mapping[str, Any]) -> int:
    """`head_dim` where the config sets it, else hidden_size / num_attention_heads."""
    explicit = cfg.get("head_dim")
    if explicit is not None:
        return _int_or(cfg, "head_dim", 0, least=1)
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
    kv = _int_or(cfg, "num_key_value_heads", 0, least=0) or _int(cfg, "num_attention_heads")
    per_layer = (
        _gqa_attention(cfg, kv, qkv_bias, o_bias, qk_norm)
        + _mlp(hidden, _int(cfg, "intermediate_size"), mlp_bias)
        + norms_per_layer * hidden
    )
    return _embeddings(cfg, tied_default) + layers * per_layer + hidden
