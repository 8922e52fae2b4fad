"""From a ModelSpec to a transformers config (class name + keyword arguments) and a parameter count.

Pure: no torch, no transformers. `run.build_model` turns the result into a real model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kvplan.errors import InputError
from kvplan.specs.schema import LayerKind, ModelSpec

# model_type -> transformers config class. Gemma 3 is the text-only decoder.
CONFIG_CLASSES = {
    "llama": "LlamaConfig",
    "mistral": "MistralConfig",
    "qwen2": "Qwen2Config",
    "qwen3": "Qwen3Config",
    "gemma2": "Gemma2Config",
    "gemma3": "Gemma3TextConfig",
    "gemma3_text": "Gemma3TextConfig",
    "deepseek_v3": "DeepseekV3Config",
}
_LAYER_TYPES = {LayerKind.full: "full_attention", LayerKind.sliding: "sliding_attention"}


@dataclass(frozen=True)
class HfConfig:
    """What `run.build_model` needs: the config class, its arguments, and what was decided."""

    class_name: str
    kwargs: dict[str, Any]
    num_layers: int
    tied_embeddings: bool
    params: int  # counted from the shapes, as transformers will build them


def with_layers(spec: ModelSpec, layers: int | None) -> ModelSpec:
    """The spec cut to its first `layers` decoder layers (params_total recounted from shapes)."""
    if layers is None or layers == spec.num_layers:
        return spec
    if layers <= 0:
        raise InputError(f"--layers must be positive, got {layers}")
    if layers > spec.num_layers:
        raise InputError(f"--layers {layers} exceeds {spec.name}'s {spec.num_layers} layers")
    tied = tied_embeddings(spec)
    cut = spec.model_copy(update={"num_layers": layers})
    pattern = spec.attention.layer_pattern
    if len(pattern) > layers:
        att = spec.attention.model_copy(update={"layer_pattern": pattern[:layers]})
        cut = cut.model_copy(update={"attention": att})
    return cut.model_copy(
        update={"params_total": count_params(cut, tied), "params_active": None,
                "params_estimated": True}
    )


def _check_supported(spec: ModelSpec) -> str:
    name = CONFIG_CLASSES.get(spec.model_type)
    if name is None:
        raise InputError(
            f"{spec.name}: --measure cannot build model_type {spec.model_type!r}; supported: "
            + ", ".join(sorted(CONFIG_CLASSES))
        )
    if LayerKind.linear in spec.layer_kinds():
        raise InputError(f"{spec.name}: --measure does not build linear-attention layers yet")
    if spec.intermediate_size is None:
        raise InputError(f"{spec.name}: the spec has no intermediate_size; --measure needs it")
    return name


def _shape_config(spec: ModelSpec, tied: bool) -> dict[str, Any]:
    """The spec's shapes under config.json's (and transformers' config classes') names."""
    att = spec.attention
    cfg: dict[str, Any] = {
        "vocab_size": spec.vocab_size,
        "hidden_size": spec.hidden_size,
        "intermediate_size": spec.intermediate_size,
        "num_hidden_layers": spec.num_layers,
        "num_attention_heads": spec.num_attention_heads,
        "num_key_value_heads": att.num_kv_heads,
        "tie_word_embeddings": tied,
    }
    if att.mla is None:
        cfg["head_dim"] = att.head_dim
        return cfg
    m, moe = att.mla, spec.moe
    cfg.update(
        kv_lora_rank=m.kv_lora_rank,
        q_lora_rank=m.q_lora_rank,
        qk_rope_head_dim=m.qk_rope_head_dim,
        qk_nope_head_dim=m.qk_nope_head_dim or (att.head_dim - m.qk_rope_head_dim),
        v_head_dim=m.v_head_dim or att.value_head_dim,
    )
    if moe is not None:
        cfg.update(
            n_routed_experts=moe.num_experts,
            num_experts_per_tok=moe.experts_per_token,
            moe_intermediate_size=moe.moe_intermediate_size or spec.intermediate_size,
            n_shared_experts=moe.num_shared_experts,
            first_k_dense_replace=moe.first_dense_layers,
        )
    else:
        cfg.update(first_k_dense_replace=spec.num_layers, n_routed_experts=1,
                   num_experts_per_tok=1, moe_intermediate_size=spec.intermediate_size)
    return cfg


def count_params(spec: ModelSpec, tied: bool) -> int:
    """Parameters transformers builds for this spec (tied embeddings counted once).

    The count of a published checkpoint from the same shapes (kvplan.specs.params, the one
    parameter counter), less what transformers keeps as a buffer rather than a parameter:
    DeepSeek-V3's per-expert router score-correction bias (`e_score_correction_bias`).
    """
    from kvplan.specs.params import count_params as checkpoint_params

    cfg = _shape_config(spec, tied)
    total = checkpoint_params(cfg, spec.model_type, cfg).total
    moe = spec.moe
    if spec.model_type == "deepseek_v3" and moe is not None:
        sparse = max(0, spec.num_layers - moe.first_dense_layers)
        total -= sparse * moe.num_experts
    return total


TIED_BY_DEFAULT = {"gemma2", "gemma3", "gemma3_text"}  # transformers' config-class defaults


def tied_embeddings(spec: ModelSpec) -> bool:
    """Whether the output head shares the embedding matrix.

    The spec has no such field; the published parameter count decides: tied when only the tied
    count matches it exactly (SmolLM2, Llama-3.2, Gemma 2), untied when only the untied one does
    (Llama-3, Mistral, DeepSeek). When neither matches (Gemma 3's count includes its vision
    tower, which --measure does not build), the architecture's own default decides: Gemma ties.
    """
    tied, untied = count_params(spec, True), count_params(spec, False)
    if spec.params_total in (tied, untied) and tied != untied:
        return tied == spec.params_total
    return spec.model_type in TIED_BY_DEFAULT


def hf_config(spec: ModelSpec, layers: int | None = None) -> HfConfig:
    """The transformers config for `spec` (optionally only its first `layers` layers)."""
    name = _check_supported(spec)
    tied = tied_embeddings(spec)
    spec = with_layers(spec, layers)
    att = spec.attention
    kw = _shape_config(spec, tied)
    kw["max_position_embeddings"] = spec.max_context_tokens
    if att.mla is None:
        if spec.moe is not None:
            raise InputError(f"{spec.name}: --measure builds MoE layers only for deepseek_v3 yet")
        if att.v_head_dim is not None and att.v_head_dim != att.head_dim:
            raise InputError(
                f"{spec.name}: transformers' {name} has one head_dim for keys and values"
            )
        kinds = spec.layer_kinds()
        window = att.sliding_window_tokens
        if spec.model_type == "mistral":
            if set(kinds) == {LayerKind.sliding}:
                kw["sliding_window"] = window
            elif LayerKind.sliding in kinds:
                raise InputError(f"{spec.name}: Mistral slides on every layer or none")
            else:
                kw["sliding_window"] = None
        elif spec.model_type in ("qwen2", "qwen3", "gemma2", "gemma3", "gemma3_text"):
            kw["layer_types"] = [_LAYER_TYPES[k] for k in kinds]
            kw["sliding_window"] = window
            if spec.model_type.startswith("qwen"):
                kw["use_sliding_window"] = window is not None
        elif window is not None:
            raise InputError(f"{spec.name}: {name} has no sliding window")
    return HfConfig(name, kw, spec.num_layers, tied, count_params(spec, tied))
