"""What kvplan does not model in architectures that public inputs name but the importer refuses.

Each line names only what the model's own config.json sets (the copies under
tests/assets/check/qa/hf, SOURCES.md there): no shape is inferred from it. A model type not
listed here is refused with the generic line alone.
"""

from __future__ import annotations

__all__ = ["unmodelled_reason"]

_QWEN3_5 = (
    "a Qwen3.5 checkpoint: a text_config of linear_attention "
    "and full_attention layers (its linear_* recurrent-state fields, attn_output_gate) beside a "
    "vision_config tower; kvplan reads that hybrid only as the text-only qwen3_next, and neither "
    "this wrapper's layers nor its tower are accounted"
)
_GEMMA4 = (
    "a Gemma 4 checkpoint: its full_attention layers have their own KV heads and head_dim "
    "(num_global_key_value_heads, global_head_dim) beside the sliding layers', and it sets "
    "attention_k_eq_v and num_kv_shared_layers; kvplan models none of these"
)

_REASONS = {
    "qwen3_5": _QWEN3_5,
    "qwen3_5_moe": _QWEN3_5,
    "qwen3_5_text": _QWEN3_5,
    "qwen3_5_moe_text": _QWEN3_5,
    "gemma4": _GEMMA4,
    "gemma4_text": _GEMMA4,
}


def unmodelled_reason(model_type: str) -> str | None:
    """Why a refused model type cannot be sized, where its config says; None otherwise."""
    return _REASONS.get(model_type)
