"""GraniteMoeHybrid (`granitemoehybrid`, Granite 4.0) configs: which layers are Mamba2 and which
attention, the Mamba2 state each Mamba2 layer keeps, and the mixture-of-experts block.

Split from hf_import and hf_layers (which know the other model types); read in transformers'
configuration_granitemoehybrid.py and modeling_granitemoehybrid.py, and vLLM's
granitemoehybrid.py and mamba_utils.py. Anything else is refused (ImportRefused), never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.specs.config_paths import field_path
from kvplan.specs.hf_layers import ImportRefused, positive_int
from kvplan.specs.params_base import _int_or
from kvplan.specs.schema import LayerKind, LinearState, Mamba2State, MoE

MODEL_TYPE = "granitemoehybrid"

# layer_types entries: the names Granite 4.0's config.json files use, and the names
# transformers 5 writes (configuration_utils maps "mamba" to "linear_attention")
GRANITE_LAYER_TYPES = {
    "mamba": LayerKind.linear,
    "linear_attention": LayerKind.linear,
    "attention": LayerKind.full,
    "full_attention": LayerKind.full,
}

MAMBA2_FORMULA = (
    "Mamba2 state, as vLLM's MambaStateShapeCalculator.mamba2_state_shape "
    "(vllm/model_executor/layers/mamba/mamba_utils.py): conv state (mamba_d_conv - 1) x "
    "(mamba_n_heads x mamba_d_head + 2 x mamba_n_groups x mamba_d_state); plus temporal (SSM) "
    "state mamba_n_heads x mamba_d_head x mamba_d_state"
)


def granite_layer_kinds(cfg: Mapping[str, Any], notes: list[str]) -> list[LayerKind]:
    """Every layer's kind from layer_types (one entry per layer; no default is assumed)."""
    layers = positive_int(cfg, "num_hidden_layers")
    if cfg.get("sliding_window") is not None:
        raise ImportRefused(
            f"sliding_window {cfg['sliding_window']} is set, but GraniteMoeHybrid attention has "
            "no window; kvplan does not know which layers would use it"
        )
    types = cfg.get("layer_types")
    if not isinstance(types, list) or len(types) != layers:
        shown = len(types) if isinstance(types, list) else (
            "missing" if types is None else repr(types))
        raise ImportRefused(
            f"granitemoehybrid needs {field_path(cfg, 'layer_types')} with one "
            f"entry per layer ({layers}), got {shown}"
        )
    unknown = sorted({str(t) for t in types if not isinstance(t, str)
                      or t not in GRANITE_LAYER_TYPES})
    if unknown:
        raise ImportRefused(f"{field_path(cfg, 'layer_types')} has kinds kvplan "
                            f"cannot size: {', '.join(unknown)}")
    kinds = [GRANITE_LAYER_TYPES[t] for t in types]
    mamba = kinds.count(LayerKind.linear)
    if mamba:
        at = [i for i, k in enumerate(kinds) if k is LayerKind.full]
        notes.append(
            f"layer_types: {mamba} Mamba2 and {layers - mamba} attention layers of {layers} "
            f"(attention at layers {', '.join(map(str, at)) or 'none'}); a Mamba2 layer keeps a "
            "fixed state per sequence, no per-token cache"
        )
    else:
        notes.append(
            f"layer_types: all {layers} layers attention (no Mamba2 layer, no state): plain GQA; "
            "the mamba_* keys describe no layer"
        )
    position = cfg.get("position_embedding_type")
    notes.append(
        f"position_embedding_type {position!r}: changes no cache size (the cache keeps whole "
        "heads either way); the Granite multipliers are scalars"
    )
    return kinds


def mamba2_head_dim(cfg: Mapping[str, Any]) -> int:
    """mamba_d_head, or ("auto", GraniteMoeHybridConfig) mamba_expand x hidden_size / mamba_n_heads;
    the config class requires mamba_d_head x mamba_n_heads = mamba_expand x hidden_size."""
    heads, expand = positive_int(cfg, "mamba_n_heads"), positive_int(cfg, "mamba_expand")
    inner = expand * positive_int(cfg, "hidden_size")
    if cfg.get("mamba_d_head", "auto") == "auto":
        if inner % heads:
            raise ImportRefused(f"mamba_n_heads {heads} does not divide mamba_expand x hidden_size")
        return inner // heads
    d_head = positive_int(cfg, "mamba_d_head")
    if d_head * heads != inner:
        raise ImportRefused(
            f"mamba_d_head {d_head} x mamba_n_heads {heads} is not mamba_expand x hidden_size "
            f"{inner}; transformers refuses this config"
        )
    return d_head


def mamba2_state(cfg: Mapping[str, Any]) -> LinearState:
    """The state one Mamba2 layer keeps per sequence."""
    if positive_int(cfg, "mamba_d_conv") < 2:
        raise ImportRefused("mamba_d_conv below 2 keeps no conv state; not modelled")
    shape = Mamba2State(
        n_heads=positive_int(cfg, "mamba_n_heads"),
        head_dim=mamba2_head_dim(cfg),
        d_state=positive_int(cfg, "mamba_d_state"),
        n_groups=positive_int(cfg, "mamba_n_groups"),
        conv_kernel=positive_int(cfg, "mamba_d_conv"),
    )
    return LinearState(
        state_elements_per_layer=shape.conv_elements + shape.ssm_elements,
        formula=MAMBA2_FORMULA,
        mamba2=shape,
    )


def granite_moe(cfg: Mapping[str, Any], notes: list[str]) -> MoE | None:
    """Routed experts when num_local_experts > 0 (GraniteMoeHybridMoE: experts of
    intermediate_size), always beside the dense shared MLP of shared_intermediate_size, which
    is `num_shared_experts` 1 here although its width differs from the experts'."""
    experts = _int_or(cfg, "num_local_experts", 0, least=0)
    shared = positive_int(cfg, "shared_intermediate_size")
    if not experts:
        notes.append(
            f"no routed experts (num_local_experts 0): every layer's MLP is the shared MLP of "
            f"shared_intermediate_size {shared} (intermediate_size describes no layer)"
        )
        return None
    notes.append(
        f"every layer: {experts} routed experts of intermediate_size "
        f"{positive_int(cfg, 'intermediate_size')} (top {cfg.get('num_experts_per_tok')}) plus "
        f"the shared MLP of shared_intermediate_size {shared}"
    )
    return MoE(
        num_experts=positive_int(cfg, "num_local_experts"),
        experts_per_token=positive_int(cfg, "num_experts_per_tok"),
        moe_intermediate_size=positive_int(cfg, "intermediate_size"),
        num_shared_experts=1,
    )
