"""How a Hugging Face config lays out its layers: each layer's kind (full, sliding, linear), the
sliding window, and the mixture-of-experts block, by each model type's own convention.

Split from hf_import (which turns a whole config into a ModelSpec); anything a rule here does not
know is refused (ImportRefused), never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.specs.config_paths import field_path
from kvplan.specs.params import UnsupportedArchitecture
from kvplan.specs.params_base import _flag, _index_list, _int_or, qwen_experts_key
from kvplan.specs.schema import LayerKind, MoE

QWEN_TYPES = ("qwen2", "qwen2_5_vl", "qwen3", "qwen3_moe", "qwen3_next", "qwen3_vl", "qwen3_vl_moe")

# layer_types entries and the kind of cache each keeps
_LAYER_TYPES = {
    "full_attention": LayerKind.full,
    "sliding_attention": LayerKind.sliding,
    "linear_attention": LayerKind.linear,
}


class ImportRefused(UnsupportedArchitecture):
    """A config kvplan cannot account for exactly."""


def positive_int(cfg: Mapping[str, Any], key: str) -> int:
    value = cfg.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        shown = "missing" if value is None else f"{value!r}"
        raise ImportRefused(f"config field {field_path(cfg, key)!r} is {shown}; a positive whole "
                            "number is needed")
    from kvplan.inputs import limits as lim  # the bounds ModelSpec enforces, docs/limits.md

    cap = {"num_hidden_layers": lim.MAX_LAYERS, "num_attention_heads": lim.MAX_HEADS,
           "num_key_value_heads": lim.MAX_HEADS, "head_dim": lim.MAX_HEAD_DIM,
           "vocab_size": lim.MAX_VOCAB}.get(key, lim.MAX_CONTEXT_TOKENS)
    if value > cap:
        raise ImportRefused(f"config field {field_path(cfg, key)!r} is {value:,}, above kvplan's "
                            f"limit of {cap:,} (docs/limits.md); is the config right?")
    return value


def compress_pattern(kinds: list[LayerKind]) -> list[LayerKind]:
    """The shortest prefix that, repeated cyclically, gives every layer's kind."""
    n = len(kinds)
    for period in range(1, n + 1):
        if all(kinds[i] == kinds[i % period] for i in range(n)):
            return kinds[:period]
    return kinds  # pragma: no cover - period n always matches


def llama4_layer_kinds(cfg: Mapping[str, Any], layers: int, notes: list[str]) -> list[LayerKind]:
    """Llama 4: the RoPE layers attend within chunks of attention_chunk_size tokens, so such a
    layer never holds more than one chunk: a `sliding` layer with that window; the NoPE layers
    (no_rope_layers 0; by Llama4TextConfig's default every no_rope_layer_interval-th layer,
    interval 4) attend over the whole context: `full`."""
    chunk = cfg.get("attention_chunk_size")
    flags = cfg.get("no_rope_layers")
    if not flags:
        interval = _int_or(cfg, "no_rope_layer_interval", 4, least=0) or 4
        flags = [int((i + 1) % interval != 0) for i in range(layers)]
        notes.append(
            f"no_rope_layers absent: Llama4TextConfig's default, a NoPE (global) layer every "
            f"no_rope_layer_interval {interval} layers"
        )
    if not isinstance(flags, list) or len(flags) != layers or not all(
            f in (0, 1) and not isinstance(f, float) for f in flags):
        raise ImportRefused(f"{field_path(cfg, 'no_rope_layers')} must list one flag (0 or 1) per "
                            f"layer ({layers}), got {flags!r}")
    if chunk is None:
        kinds = [LayerKind.full] * layers
    else:
        kinds = [LayerKind.sliding if flag else LayerKind.full for flag in flags]
        notes.append(
            f"chunked local attention: each RoPE layer attends within chunks of "
            f"attention_chunk_size {chunk} tokens and never holds more than one chunk, so it is "
            "sized as a sliding layer with that window; the NoPE layers are full attention"
        )
    _describe(kinds, notes, "no_rope_layers")
    return kinds


def window_tokens(cfg: Mapping[str, Any], model_type: str = "") -> int:
    if model_type == "llama4":
        return positive_int(cfg, "attention_chunk_size")
    key = "sliding_window_size" if cfg.get("sliding_window") is None and (
        cfg.get("sliding_window_size") is not None) else "sliding_window"
    window = cfg.get(key)
    if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
        raise ImportRefused(f"sliding layers need a positive {field_path(cfg, key)}, got "
                            f"{window!r}")
    return window


def _describe(kinds: list[LayerKind], notes: list[str], rule: str) -> None:
    """A note saying how many layers of each kind a rule gives."""
    counts = {k: kinds.count(k) for k in LayerKind if kinds.count(k)}
    if len(counts) > 1:
        parts = ", ".join(f"{n} {k.value}" for k, n in counts.items())
        notes.append(f"{rule}: {parts} of {len(kinds)} layers")


def layer_kinds(cfg: Mapping[str, Any], model_type: str, notes: list[str]) -> list[LayerKind]:
    """Every layer's kind, by the model type's own convention."""
    layers = positive_int(cfg, "num_hidden_layers")
    types = cfg.get("layer_types")
    if types is not None:
        if not isinstance(types, list) or len(types) != layers:
            raise ImportRefused(
                f"{field_path(cfg, 'layer_types')} must list one entry per layer "
                f"({layers}), got {len(types) if isinstance(types, list) else type(types).__name__}"
            )
        # str(): a number or a list in layer_types is named too, not a TypeError
        unknown = sorted({str(t) for t in types if not isinstance(t, str) or t not in _LAYER_TYPES})
        if unknown:
            raise ImportRefused(f"{field_path(cfg, 'layer_types')} has kinds "
                                f"kvplan cannot size: {', '.join(unknown)} "
                                f"(it sizes {', '.join(_LAYER_TYPES)})")
        kinds = [_LAYER_TYPES[t] for t in types]
        _describe(kinds, notes, "layer_types")
        return kinds
    if model_type == "llama4":
        return llama4_layer_kinds(cfg, layers, notes)
    window = cfg.get("sliding_window")
    if model_type in QWEN_TYPES:
        if model_type == "qwen3_next":
            interval = positive_int(cfg, "full_attention_interval")
            kinds = [
                LayerKind.full if (i + 1) % interval == 0 else LayerKind.linear
                for i in range(layers)
            ]
            _describe(kinds, notes, f"full_attention_interval {interval}")
            return kinds
        if not _flag(cfg, "use_sliding_window", False):
            if window is not None:
                notes.append(
                    f"sliding_window {window} is switched off by use_sliding_window false: "
                    "every layer is full attention"
                )
            return [LayerKind.full] * layers
        first = _int_or(cfg, "max_window_layers", layers, least=0)
        return [LayerKind.sliding if i >= first else LayerKind.full for i in range(layers)]
    if model_type in ("mistral", "mistral3", "mixtral", "phi3"):
        if window is None:
            return [LayerKind.full] * layers
        notes.append(f"sliding_window {window} applies to every layer")
        return [LayerKind.sliding] * layers
    if model_type == "gemma2":
        # Gemma2: even layers (0, 2, ...) are local sliding-window layers, odd layers global
        kinds = [LayerKind.sliding if (i + 1) % 2 else LayerKind.full for i in range(layers)]
        _describe(kinds, notes, "Gemma 2 alternation")
        return kinds
    if model_type in ("gemma3", "gemma3_text"):
        every = positive_int(cfg, "sliding_window_pattern")
        kinds = [LayerKind.sliding if (i + 1) % every else LayerKind.full for i in range(layers)]
        _describe(kinds, notes, f"sliding_window_pattern {every}")
        return kinds
    if window is not None:
        raise ImportRefused(
            f"sliding_window {window} is set, but kvplan does not know which layers of a "
            f"{model_type} model use it"
        )
    return [LayerKind.full] * layers


def phi_note(cfg: Mapping[str, Any]) -> str:
    """Phi (PhiForCausalLM): rotary on part of each head, the cache keeps whole heads."""
    factor = cfg.get("partial_rotary_factor", 0.5)
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 < factor <= 1:
        raise ImportRefused(f"{field_path(cfg, 'partial_rotary_factor')} {factor!r} must be a "
                            "number in (0, 1]")
    return (
        f"Phi: rotary on partial_rotary_factor {factor:g} of each head, but the cache stores "
        "the whole head_dim of every key and value (modeling_phi.py caches them after the "
        "partial rotation); attention and MLP read one LayerNorm in parallel"
    )


def moe_block(cfg: Mapping[str, Any], model_type: str, notes: list[str]) -> MoE | None:
    if model_type in ("mixtral", "gpt_oss", "granitemoe"):
        return MoE(
            num_experts=positive_int(cfg, "num_local_experts"),
            experts_per_token=positive_int(cfg, "num_experts_per_tok"),
            moe_intermediate_size=positive_int(cfg, "intermediate_size"),
        )
    if model_type == "llama4":
        return llama4_moe(cfg, notes)
    if model_type in ("qwen3_moe", "qwen3_next", "qwen3_vl_moe"):
        dense = sorted(set(_index_list(cfg, "mlp_only_layers")))
        if dense != list(range(len(dense))) or (_int_or(cfg, "decoder_sparse_step", 1, least=0)
                                                 or 1) != 1:
            raise ImportRefused("mlp_only_layers / decoder_sparse_step other than leading layers")
        shared = _int_or(cfg, "shared_expert_intermediate_size", 0, least=0)
        # transformers 5 saves qwen3_moe / qwen3_vl_moe's count as num_local_experts, not
        # qwen3_next's (Qwen3NextConfig has no attribute_map for it, 5.25.0)
        key = "num_experts" if model_type == "qwen3_next" else qwen_experts_key(cfg)
        return MoE(
            num_experts=positive_int(cfg, key),
            experts_per_token=positive_int(cfg, "num_experts_per_tok"),
            moe_intermediate_size=positive_int(cfg, "moe_intermediate_size"),
            num_shared_experts=1 if shared else 0,
            first_dense_layers=len(dense),
        )
    if model_type in ("glm4_moe", "deepseek_v2", "deepseek_v3", "kimi_k2", "kimi_k25"):
        # DeepSeek's routed-expert keys; GLM-4.5's MoE names them the same (no moe_layer_freq)
        if model_type != "glm4_moe" and (_int_or(cfg, "moe_layer_freq", 1, least=0) or 1) != 1:
            raise ImportRefused("moe_layer_freq other than 1 is not handled")
        return MoE(
            num_experts=positive_int(cfg, "n_routed_experts"),
            experts_per_token=positive_int(cfg, "num_experts_per_tok"),
            moe_intermediate_size=positive_int(cfg, "moe_intermediate_size"),
            num_shared_experts=_int_or(cfg, "n_shared_experts", 0, least=0),
            first_dense_layers=_int_or(cfg, "first_k_dense_replace", 0, least=0),
        )
    return None


def llama4_moe(cfg: Mapping[str, Any], notes: list[str]) -> MoE:
    """Routed experts plus one shared expert on the MoE layers. MoE.first_dense_layers cannot
    say "every other layer", so an interleave is stated in the notes (the parameter count
    follows it exactly)."""
    from kvplan.specs.params import llama4_moe_layers

    layers = positive_int(cfg, "num_hidden_layers")
    step = _int_or(cfg, "interleave_moe_layer_step", 1, least=0) or 1
    moe_layers = llama4_moe_layers(cfg)
    if moe_layers != list(range(step - 1, layers, step)):
        raise ImportRefused("moe_layers other than every interleave_moe_layer_step-th layer")
    if step > 1:
        notes.append(
            f"MoE on every {step}th layer ({len(moe_layers)} of {layers}, interleave_moe_layer_step "
            f"{step}); the others have a dense MLP of intermediate_size_mlp "
            f"{cfg.get('intermediate_size_mlp')}, which moe.first_dense_layers cannot express"
        )
    return MoE(
        num_experts=positive_int(cfg, "num_local_experts"),
        experts_per_token=positive_int(cfg, "num_experts_per_tok"),
        moe_intermediate_size=positive_int(cfg, "intermediate_size"),
        num_shared_experts=1,
    )
