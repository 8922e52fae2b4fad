"""Embeddings the largest multimodal item becomes: what vLLM sizes its encoder cache with.

vLLM (v1/core/encoder_cache_manager.py, compute_mm_encoder_budget) sizes the encoder cache as
max(max_num_batched_tokens, the largest item's tokens) and, at start-up, profiles it with dummy
items of the maximum feature size (v1/worker/gpu_model_runner.py, profile_run). The item size
is the model's, read here from the config where it says it, or from vLLM's own start-up lines
where the size comes from the image processor (preprocessor_config.json, not config.json):

- gemma3: `mm_tokens_per_image` in config.json (256: each image is pooled to 256 soft tokens;
  vLLM's pan-and-scan crops, off by default, are not counted).
- qwen2_5_vl: 16,384. vLLM start-up logs of Qwen2.5-VL-7B print "Encoder cache will be
  initialized with a budget of 16384 tokens, and profiled with 1 image items of the maximum
  feature size" at default batching (public logs, code index ids 57157669982 and 70974742012):
  one item of 16,384 tokens, the processor's max_pixels over (14 x 2)^2 pixels per token.
  Taken only when the vision_config has that patch (14) and merge (2) size.
- llama4: (max_patches + 1) x (image_size // patch_size)^2 // round(1 / pixel_shuffle_ratio^2)
  from the vision_config: 17 x 576 // 4 = 2,448 for Llama-4-Scout (image_size 336, patch_size
  14, pixel_shuffle_ratio 0.5). Read in vLLM 0.19.0 models/mllama4.py: the dummy image is
  max_patches tiles high and one wide (`get_image_size_with_most_features`, 16 x 336 by 336),
  the processor adds a global tile when there is more than one (`patches_per_image`: 1 + 16),
  each chunk is `get_patch_per_chunk` = 576 // 4 = 144 embeddings (the prompt's patch tokens,
  `PromptUpdateDetails.select_text(..., img_patch_token)`); max_patches is the image
  processor's, 16 (transformers models/llama4/image_processing_llama4_fast.py
  Llama4ImageProcessorFast.max_patches; the checkpoint's preprocessor_config.json, not
  config.json). Log 89 (vLLM 0.19.0) prints "a budget of 8192 tokens, and profiled with 3
  image items": 8,192 // 2,448 = 3 (task h37llama4).

The vision tower's shapes (`vision_tower_fields`) are read for qwen2_5_vl, qwen3_vl,
qwen3_vl_moe and llama4 (hidden_size, intermediate_size, patch_size, num_channels and image_size,
kvplan.engines.vision_tower_llama4), the towers whose profiled activation vLLM's source was read for
(kvplan.engines.vision_tower, vision_tower_qwen3): hidden_size, intermediate_size, patch_size,
temporal_patch_size, spatial_merge_size and in_chans (in_channels) of the config's
vision_config, each taken as the config writes it; for Qwen3-VL also out_hidden_size and the
number of deepstack_visual_indexes. Qwen3-VL's item size is not `mm_tokens_per_item`: it is the
dummy video's (kvplan.engines.vision_tower_qwen3), whose rows are wider than hidden_size.

Any other multimodal model has no item size here (None): its encoder cache is not modelled,
and the engine profile says so (Qwen3-VL's is modelled through its tower, on the vLLM releases
read).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvplan.specs.config_paths import block, wrong
from kvplan.specs.params_base import _int_or, _list_or_empty

QWEN_VL_ITEM_TOKENS = 16_384
QWEN_VL_PATCH = {"qwen2_5_vl": (14, 2)}
LLAMA4_MAX_PATCHES = 16  # transformers Llama4ImageProcessorFast.max_patches (vLLM's max tiles)


def _whole(vcfg: Mapping[str, Any], key: str) -> int | None:
    """A positive whole number, None where absent; another type or value is named."""
    return _int_or(vcfg, key, 0, least=1) or None


def _llama4_item(vcfg: Mapping[str, Any]) -> tuple[int | None, str | None]:
    """vLLM mllama4.py: (max_patches + 1 global tile) chunks of get_patch_per_chunk."""
    size, patch, ratio = (_whole(vcfg, "image_size"), _whole(vcfg, "patch_size"),
                          vcfg.get("pixel_shuffle_ratio"))
    if ratio is not None and (isinstance(ratio, bool) or not isinstance(ratio, (int, float))
                              or not 0 < ratio <= 1):
        raise wrong(vcfg, "pixel_shuffle_ratio", ratio, "it must be a number in (0, 1]")
    if size is None or patch is None or ratio is None or size % patch:
        return None, None
    per_chunk = (size // patch) ** 2 // int(round(1.0 / ratio ** 2))
    chunks = LLAMA4_MAX_PATCHES + 1
    return chunks * per_chunk, (
        f"the dummy image of {LLAMA4_MAX_PATCHES} tiles + a global tile, {chunks} chunks x "
        f"({size} // {patch})^2 // {int(round(1.0 / ratio ** 2))} = {per_chunk} embeddings "
        "(vLLM mllama4.py get_patch_per_chunk; max_patches 16, the image processor's)")


def mm_tokens_per_item(model_type: str, root: Mapping[str, Any]) -> tuple[int | None, str | None]:
    """(tokens of the largest multimodal item, how it was read), or (None, None)."""
    vcfg = block(root, "vision_config")
    if vcfg is None:
        return None, None
    if model_type == "gemma3":
        tokens = _whole(root, "mm_tokens_per_image")
        if tokens is not None:
            return tokens, f"mm_tokens_per_image {tokens}: an image is {tokens} embeddings"
        return None, None
    if model_type == "llama4":
        return _llama4_item(vcfg)
    if model_type in QWEN_VL_PATCH:
        patch = (vcfg.get("patch_size"), vcfg.get("spatial_merge_size"))
        if patch == QWEN_VL_PATCH[model_type]:
            return QWEN_VL_ITEM_TOKENS, (
                f"an image at the processor's max_pixels is {QWEN_VL_ITEM_TOKENS:,} embeddings "
                "(vLLM start-up logs: 'a budget of 16384 tokens, and profiled with 1 image items')"
            )
    return None, None


# vision_config key of each ModelSpec field (in_chans: the key Qwen2.5-VL's config.json uses;
# transformers' Qwen2_5_VLVisionConfig calls it in_channels, and vLLM reads that name)
VISION_KEYS = {"vision_hidden_size": ("hidden_size",),
               "vision_intermediate_size": ("intermediate_size",),
               "vision_patch_size": ("patch_size",),
               "vision_temporal_patch_size": ("temporal_patch_size",),
               "vision_spatial_merge_size": ("spatial_merge_size",),
               "vision_in_channels": ("in_chans", "in_channels")}
TOWER_TYPES = ("qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe")
# Llama 4 (kvplan.engines.vision_tower_llama4): its vision_config calls the channels num_channels
# and tiles the image in image_size squares; no temporal patch or spatial merge
LLAMA4_KEYS = {"vision_hidden_size": ("hidden_size",),
               "vision_intermediate_size": ("intermediate_size",),
               "vision_patch_size": ("patch_size",),
               "vision_in_channels": ("num_channels",),
               "vision_image_size": ("image_size",)}
QWEN3_TOWER = ("qwen3_vl", "qwen3_vl_moe")


def vision_tower_fields(model_type: str, root: Mapping[str, Any]) -> dict[str, int]:
    """The vision tower's shapes for the spec, or {} (another model type, or a key missing).
    Qwen3-VL adds out_hidden_size and the number of deepstack_visual_indexes (its encoder
    output is out_hidden_size x (1 + that) wide: vLLM qwen3_vl.py Qwen3_VisionTransformer)."""
    vcfg = block(root, "vision_config") if model_type in (*TOWER_TYPES, "llama4") else None
    if vcfg is None:
        return {}
    out: dict[str, int] = {}
    keys_of = dict(LLAMA4_KEYS if model_type == "llama4" else VISION_KEYS)
    if model_type in QWEN3_TOWER:
        keys_of["vision_out_hidden_size"] = ("out_hidden_size",)
    for field, keys in keys_of.items():  # a wrong type is named; a key missing gives {}
        value = _whole(vcfg, next((k for k in keys if k in vcfg), keys[0]))
        if value is None:
            return {}
        out[field] = value
    if model_type in QWEN3_TOWER:
        if vcfg.get("deepstack_visual_indexes") is None:
            return {}
        out["vision_deepstack_levels"] = len(_list_or_empty(vcfg, "deepstack_visual_indexes"))
    return out
