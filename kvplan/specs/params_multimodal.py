"""Parameter counts of multimodal checkpoints: the language model plus its vision tower.

A served multimodal checkpoint is loaded whole, so its weights include the tower; each
function here returns the tower's tensors (patch embedding, encoder blocks, merger or
projector) as the transformers modeling code creates them, read in
transformers/models/<model>/modeling_<model>.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.specs.config_paths import block, field_path
from kvplan.specs.params_base import (
    UnsupportedArchitecture,
    _flag,
    _int,
    _int_or,
    _list_or_empty,
)


def _dim(vcfg: Mapping[str, Any], key: str) -> int:
    """A vision tower's width, count or size: a positive whole number (a wrong type or a
    number under 1 is named with its dotted path)."""
    _int(vcfg, key)  # missing, or another type
    return _int_or(vcfg, key, 0, least=1)  # under 1


def _pair(vcfg: Mapping[str, Any], key: str, default: int | None = None) -> int:
    """A square kernel given as an int (or a [k, k] pair); `default` where absent."""
    value = vcfg.get(key, default)
    side = value[0] if isinstance(value, list) and len(value) == 2 and (
        value[0] == value[1]) else value
    if isinstance(side, int) and not isinstance(side, bool) and side > 0:
        return side
    raise UnsupportedArchitecture(f"{field_path(vcfg, key)} {value!r} is not a square kernel")


def siglip_vision(vcfg: Mapping[str, Any]) -> int:
    """SigLIP vision tower (Gemma 3): patch and position embeddings, encoder, final LayerNorm."""
    hidden, inter = _dim(vcfg, "hidden_size"), _dim(vcfg, "intermediate_size")
    patch, image = _dim(vcfg, "patch_size"), _dim(vcfg, "image_size")
    channels = _int_or(vcfg, "num_channels", 3)
    if _flag(vcfg, "vision_use_head", True):
        raise UnsupportedArchitecture(f"{field_path(vcfg, 'vision_use_head')} true is not handled")
    embeddings = channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden
    per_layer = 4 * (hidden * hidden + hidden) + hidden * inter + inter + inter * hidden + hidden
    per_layer += 2 * 2 * hidden  # two LayerNorms with weight and bias
    return embeddings + _dim(vcfg, "num_hidden_layers") * per_layer + 2 * hidden


def gemma3_projector(vcfg: Mapping[str, Any], text_hidden: int) -> int:
    """Gemma3MultiModalProjector: a [vision_hidden, text_hidden] matrix and an RMSNorm."""
    return _dim(vcfg, "hidden_size") * text_hidden + _dim(vcfg, "hidden_size")


def qwen2_5_vl_vision(vcfg: Mapping[str, Any]) -> int:
    """Qwen2.5-VL: Conv3d patch embedding (no bias), blocks of two RMSNorms, fused qkv and
    proj with biases and a gated MLP with biases, then the patch merger (RMSNorm, two Linears
    over spatial_merge_size**2 merged patches)."""
    dim, inter = _dim(vcfg, "hidden_size"), _dim(vcfg, "intermediate_size")
    patch = _pair(vcfg, "patch_size", 14)
    temporal = _pair(vcfg, "temporal_patch_size", 2)
    channels = _int_or(vcfg, "in_channels", _int_or(vcfg, "in_chans", 3))
    merged = dim * _dim(vcfg, "spatial_merge_size") ** 2
    out = _dim(vcfg, "out_hidden_size")
    embed = channels * temporal * patch * patch * dim
    block = 2 * dim + (dim * 3 * dim + 3 * dim) + (dim * dim + dim) + 3 * dim * inter + 2 * inter + dim
    merger = dim + (merged * merged + merged) + (merged * out + out)
    return embed + _dim(vcfg, "depth") * block + merger


def qwen3_vl_vision(vcfg: Mapping[str, Any]) -> int:
    """Qwen3-VL: Conv3d patch embedding with bias, learned position embeddings, blocks of two
    LayerNorms, fused qkv and proj with biases and a two-layer MLP with biases; the patch
    merger and one more merger (post-shuffle LayerNorm) per deepstack_visual_indexes entry."""
    dim, inter = _dim(vcfg, "hidden_size"), _dim(vcfg, "intermediate_size")
    patch = _pair(vcfg, "patch_size", 16)
    temporal = _pair(vcfg, "temporal_patch_size", 2)
    channels = _int_or(vcfg, "in_channels", 3)
    merged = dim * _dim(vcfg, "spatial_merge_size") ** 2
    out = _dim(vcfg, "out_hidden_size")
    embed = channels * temporal * patch * patch * dim + dim
    positions = _dim(vcfg, "num_position_embeddings") * dim
    block = 4 * dim + (dim * 3 * dim + 3 * dim) + (dim * dim + dim) + 2 * dim * inter + inter + dim
    linears = (merged * merged + merged) + (merged * out + out)
    merger = 2 * dim + linears
    deepstack = len(_list_or_empty(vcfg, "deepstack_visual_indexes")) * (2 * merged + linears)
    return embed + positions + _dim(vcfg, "depth") * block + merger + deepstack


def llama4_vision(vcfg: Mapping[str, Any], text_hidden: int) -> int:
    """Llama 4: unfold-convolution patch embedding (no bias), class and position embeddings,
    pre/post LayerNorms, encoder layers (q/k/v/o and a two-layer MLP, all with biases, two
    LayerNorms), the pixel-shuffle adapter MLP (no biases) and the projector to the text
    width (no bias)."""
    dim, inter = _dim(vcfg, "hidden_size"), _dim(vcfg, "intermediate_size")
    patch, image = _dim(vcfg, "patch_size"), _dim(vcfg, "image_size")
    channels = _int_or(vcfg, "num_channels", 3)
    embed = channels * patch * patch * dim + dim + ((image // patch) ** 2 + 1) * dim
    norms = 2 * 2 * dim
    layer = 4 * (dim * dim + dim) + dim * inter + inter + inter * dim + dim + 2 * 2 * dim
    adapter = inter * _dim(vcfg, "projector_input_dim") + _dim(vcfg, "projector_output_dim") ** 2
    projector = _dim(vcfg, "vision_output_dim") * text_hidden
    return embed + norms + _dim(vcfg, "num_hidden_layers") * layer + adapter + projector


def moonvit_vision(vcfg: Mapping[str, Any], text_hidden: int) -> int:
    """Kimi-K2.5's MoonViT (modeling_kimi_k25.py: MoonViT3dPretrainedModel and the patchmerger
    projector): Conv2d patch embedding with bias, a learnable init_pos_emb_height x width x
    hidden position table (the temporal sincos table is a non-persistent buffer), blocks of two
    LayerNorms, fused wqkv and wo with biases (attn_bias True) and a two-layer MLP with biases,
    a final LayerNorm; then the projector: a LayerNorm over mm_hidden_size and two Linears with
    biases over merge_kernel_size patches (hidden x prod(kernel) wide) to the text width."""
    for key, want, default in (("mm_projector_type", "patchmerger", None),
                               ("merge_type", "sd2_tpool", "sd2_tpool")):
        if vcfg.get(key, default) != want:
            raise UnsupportedArchitecture(
                f"Kimi-K2.5 {field_path(vcfg, key)} {vcfg.get(key)!r}: only the patchmerger "
                "projector with sd2_tpool merging is counted")
    dim, inter = _dim(vcfg, "vt_hidden_size"), _dim(vcfg, "vt_intermediate_size")
    patch = _pair(vcfg, "patch_size")
    kernel = vcfg.get("merge_kernel_size")
    if not (isinstance(kernel, list) and len(kernel) == 2 and all(
            isinstance(k, int) and not isinstance(k, bool) and k > 0 for k in kernel)):
        raise UnsupportedArchitecture(f"{field_path(vcfg, 'merge_kernel_size')} {kernel!r} is not "
                                      "[h, w]")
    embed = 3 * patch * patch * dim + dim
    positions = _dim(vcfg, "init_pos_emb_height") * _dim(vcfg, "init_pos_emb_width") * dim
    block = (2 * 2 * dim + (dim * 3 * dim + 3 * dim) + (dim * dim + dim)
             + (dim * inter + inter) + (inter * dim + dim))
    tower = embed + positions + _dim(vcfg, "vt_num_hidden_layers") * block + 2 * dim
    mm = _dim(vcfg, "mm_hidden_size")
    merged = mm * kernel[0] * kernel[1]
    projector = 2 * mm + (merged * merged + merged) + (merged * text_hidden + text_hidden)
    return tower + projector


def pixtral_vision(vcfg: Mapping[str, Any]) -> int:
    """Pixtral (transformers models/pixtral/modeling_pixtral.py, PixtralVisionModel): a Conv2d
    patch embedding without bias, the ln_pre RMSNorm, then layers of two RMSNorms
    (attention_norm, ffn_norm), q/k/v/o without biases and a gated MLP (gate/up/down) without
    biases; its positions are 2D RoPE (no table)."""
    if vcfg.get("model_type", "pixtral") != "pixtral":
        raise UnsupportedArchitecture(f"{field_path(vcfg, 'model_type')} "
                                      f"{vcfg.get('model_type')!r}: only the pixtral tower is counted")
    dim, inter = _dim(vcfg, "hidden_size"), _dim(vcfg, "intermediate_size")
    patch = _dim(vcfg, "patch_size")
    channels = _int_or(vcfg, "num_channels", 3, least=1)
    layer = 2 * dim + 4 * dim * dim + 3 * dim * inter
    return channels * patch * patch * dim + dim + _dim(vcfg, "num_hidden_layers") * layer


def mistral3_projector(root: Mapping[str, Any], vcfg: Mapping[str, Any], text_hidden: int) -> int:
    """Mistral3MultiModalProjector (transformers models/mistral3/modeling_mistral3.py): an
    RMSNorm over the vision width, the patch merger (one Linear without bias from
    spatial_merge_size**2 patches to one), linear_1 from the vision width times the number of
    vision_feature_layer entries to the text width and linear_2 text to text, both with biases
    when multimodal_projector_bias (Mistral3Config's defaults: 2, -1, false)."""
    dim = _dim(vcfg, "hidden_size")
    merge = _int_or(root, "spatial_merge_size", 2, least=1)
    feature = root.get("vision_feature_layer", -1)
    if isinstance(feature, list) and feature and all(
            isinstance(i, int) and not isinstance(i, bool) for i in feature):
        layers = len(feature)
    elif isinstance(feature, int) and not isinstance(feature, bool):
        layers = 1
    else:
        raise UnsupportedArchitecture(f"{field_path(root, 'vision_feature_layer')} {feature!r} "
                                      "must be a layer index or a list of them")
    bias = _flag(root, "multimodal_projector_bias", False)
    linear_1 = dim * layers * text_hidden + (text_hidden if bias else 0)
    linear_2 = text_hidden * text_hidden + (text_hidden if bias else 0)
    return dim + (dim * merge * merge) * dim + linear_1 + linear_2


def vision_tower(model_type: str, root: Mapping[str, Any], text_hidden: int) -> int | None:
    """The vision tower's parameters for a multimodal config, None for a text-only one."""
    vcfg = block(root, "vision_config")  # another type there is named
    if vcfg is None:
        if model_type in TOWER_ALWAYS:
            raise UnsupportedArchitecture(
                f"model_type {model_type!r} without a vision_config: {TOWER_ALWAYS[model_type]} "
                "would build its default vision tower, whose parameters the checkpoint holds; "
                "kvplan reads only the vision_config a config.json states")
        return None
    tower = _tower(model_type, root, vcfg, text_hidden)
    from kvplan.inputs import limits as lim

    if tower > lim.MAX_PARAMS and text_hidden <= lim.MAX_HIDDEN:  # else hidden_size is named
        shown = f"{tower:,}" if tower < 10**24 else f"about {float(tower):.1e}"
        raise UnsupportedArchitecture(
            f"{field_path(root, 'vision_config')}: its shapes give a vision tower of {shown} "
            f"parameters, above kvplan's limit of {lim.MAX_PARAMS:,} (docs/limits.md); is the "
            "config right?")
    return tower


# Composite configs whose model always holds a vision tower: without a vision_config the config
# class builds its default one (task h81hostile: mistral3 without one was imported as its text
# model alone, 23.57e9 parameters where the checkpoint holds 24.01e9, in silence)
TOWER_ALWAYS = {"mistral3": "transformers' Mistral3Config (5.25.0 models/mistral3/"
                            "configuration_mistral3.py:74-88, a pixtral vision_config of 24 "
                            "layers where the dict has none)"}


def _tower(model_type: str, root: Mapping[str, Any], vcfg: Mapping[str, Any],
           text_hidden: int) -> int:
    if model_type == "gemma3":
        return siglip_vision(vcfg) + gemma3_projector(vcfg, text_hidden)
    if model_type == "qwen2_5_vl":
        return qwen2_5_vl_vision(vcfg)
    if model_type in ("qwen3_vl", "qwen3_vl_moe"):
        return qwen3_vl_vision(vcfg)
    if model_type == "llama4":
        return llama4_vision(vcfg, text_hidden)
    if model_type == "kimi_k25":
        return moonvit_vision(vcfg, text_hidden)
    if model_type == "mistral3":
        return pixtral_vision(vcfg) + mistral3_projector(root, vcfg, text_hidden)
    raise UnsupportedArchitecture(f"no vision-tower count for model_type {model_type!r}")
