"""The vision tower's transient activation while vLLM V1 profiles the encoder (Qwen2.5-VL).

Read in vLLM's source, releases 0.19.0 and 0.23.0 (wheels from PyPI; the files below are the
same in both where it matters):

- v1/worker/gpu_model_runner.py, profile_run: the modality with the most embeddings an item
  (multimodal/encoder_budget.py, get_modality_with_max_tokens: max over (tokens, name), so a
  tie goes to "video") is profiled with K = encoder budget // item tokens dummy items
  (at least 1) of the maximum feature size, batched into ONE `embed_multimodal` call
  (`_get_mm_dummy_batch`); the dummy inputs (`batched_dummy_mm_inputs`) stay referenced until
  profile_run returns, so their pixel values are alive through the whole profile, and the
  encoder outputs are kept (`encoder_cache`) while the dummy language-model batch runs.
- multimodal/encoder_budget.py: the item sizes come from `get_mm_max_tokens_per_item(seq_len=
  max_model_len, mm_counts={modality: 1})`.
- model_executor/models/qwen2_vl.py (Qwen2_5_VL's processing info and dummy builder inherit
  it): the largest image is max_pixels (the processor's) over (patch x merge)^2 pixels an
  embedding, square when the factors allow (get_image_size_with_most_features); the dummy video
  has those frames and `get_num_frames_with_most_features` frames: the most n for which
  `_get_vision_info` keeps the item within max_model_len tokens (grid_t = (n + n % T) // T,
  at least 1), capped at _MAX_FRAMES_PER_VIDEO = 14. An item of grid_t temporal patches is
  grid_t x image tokens embeddings and merge^2 x that many patches.
- multimodal/processing/context.py, call_hf_processor: the processor's floating outputs are cast
  to the model dtype (`x.to(dtype=self.model_config.dtype)`): the pixel values are
  in_channels x temporal_patch x patch^2 values a patch, 2 bytes each in bf16.
- model_executor/models/qwen2_5_vl.py, Qwen2_5_VisionTransformer.forward and
  Qwen2_5_VisionBlock.forward: eager (compile_mm_encoder defaults to False), one block at a
  time over every patch of the batch. The peak is in the MLP of a block: alive are the block's
  input `x`, the attention output `x_attn`, the post-norm output and the new residual
  (`self.norm2(x, residual=x_attn)`), gate_up (2 x intermediate, the local `gate_up` is still
  referenced), the SiLU-and-mul output (intermediate; compiled into one kernel or the CUDA op,
  so no separate SiLU buffer) and down_proj's output (hidden): 5 x hidden + 3 x intermediate
  values a patch. The residual norm returns new tensors where vLLM's custom ops are off (the
  default under Inductor: 0.23 `ir.ops.fused_add_rms_norm` takes its native impl,
  platforms/cuda.py get_default_ir_op_priority; 0.19 RMSNorm.forward_native/forward_static);
  with --enforce-eager (compilation mode NONE, custom ops on) the CUDA fused_add_rms_norm works
  in place, and 2 x hidden of them are not new: 3 x hidden + 3 x intermediate. The attention
  half of a block is smaller (10 x hidden: x, qkv 3 x hidden, q/k made contiguous and rotated
  2 x 2 x hidden, the context and its contiguous copy), and so is the fp32 residual norm
  (16 x hidden bytes over the two hidden-wide tensors).

The tower's attention backend (platforms/cuda.py get_vit_attn_backend, 0.23.0): FLASH_ATTN
first where it takes the head size (80 here), on any CUDA GPU it supports, so attention keeps
no score matrix; where it falls back to TORCH_SDPA (GPUs FlashAttention does not support) the
SDPA kernel's workspace is not counted.

Not counted (under 1% of the peak on Qwen2.5-VL-7B): the rotary cos/sin gathered per patch,
window indices, cu_seqlens and the attention kernel's per-head statistics.

vLLM 0.11.0 (wheel from PyPI), read for the same path: profile_run, _get_mm_dummy_batch and
call_hf_processor (multimodal/processing.py: "this emulates output.to(dtype=...)") as above;
the differences:
- v1/worker/utils.py MultiModalBudget.get_modality_with_max_tokens: max over the tokens only,
  so a tie goes to the first modality, "image" (the log: "profiled with 1 image items"); the
  image and a one-temporal-patch video have the same embeddings and patches.
- model_executor/models/qwen2_5_vl.py Qwen2_5_VisionAttention.forward: q, k, v made
  contiguous (3 x hidden, qkv's 3 x hidden still referenced), qk_concat = cat([q, k])
  (2 x hidden), and qwen2_vl.py apply_rotary_pos_emb_vision: `t_ = t.float()` (an fp32 copy,
  4 x hidden in bf16 units), vllm_flash_attn/ops/triton/rotary.py apply_rotary
  (`torch.empty_like(x)`, not in place: fp32, 4 x hidden) and `.type_as(t)` (2 x hidden), with
  the block's input and norm1's output (held by the caller) alive: 20 x hidden values a
  patch, more than the MLP half, in both compilation modes (norm1 has no residual).

The profile's activation is the larger of the tower's peak (with the pixel values) and the
language-model phase (its forward and sampler, the encoder outputs kept and the pixel values):
the two phases run one after the other (kvplan.engines.encoder_cache.with_encoder_cache).
Modelled for Qwen2.5-VL specs with the vision_* shapes, vLLM 0.11 and 0.19 up to 0.23 (the
releases read), and for Qwen3-VL (dense and MoE) on vLLM 0.11-0.12 (kvplan.engines.vision_tower_qwen3:
the dummy video of 24,576 32 x 32 frames, the tower sharded by TP, the zero-padded encoder
output); other towers and releases are not modelled (`tower_note` says so).
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.engines.activation import ACT_BYTES
from kvplan.engines.common import gib
from kvplan.engines.interface import Interval, parse_version
from kvplan.engines.vision_tower_llama4 import LLAMA4_TYPES, Llama4TowerProfile, llama4_profile
from kvplan.engines.vision_tower_qwen3 import (
    QWEN3_TYPES,
    Qwen3TowerProfile,
    in_read_range,
    qwen3_profile,
)
from kvplan.specs.schema import ModelSpec

TOWER_TYPES = ("qwen2_5_vl",)
READ_FROM, READ_UNTIL = (0, 19), (0, 23)  # the releases whose source was read, inclusive
READ_FP32_ROTARY = (0, 11)  # also read: 0.11.0, whose attention half rotates q/k in fp32
ATTN_HIDDEN_FP32_ROTARY = 20  # hidden-wide tensors alive at 0.11.0's rotary (bf16 units)
MAX_FRAMES_PER_VIDEO = 14  # qwen2_vl.py _MAX_FRAMES_PER_VIDEO (0.19.0 and 0.23.0)
MLP_HIDDEN_NATIVE = 5  # hidden-wide tensors alive at the MLP peak, custom ops off (default)
MLP_HIDDEN_INPLACE = 3  # ... with the in-place CUDA fused_add_rms_norm (--enforce-eager)
MLP_INTERMEDIATE = 3  # gate_up (2) and the SiLU-and-mul output (1)


@dataclass(frozen=True)
class TowerProfile:
    """The dummy multimodal batch vLLM profiles its vision tower with, on one GPU."""

    modality: str  # the one with the most embeddings an item ("video" for Qwen2.5-VL)
    frames: int  # frames of one dummy item
    item_tokens: int  # embeddings of one dummy item
    patch_values: int  # in_channels x temporal_patch x patch^2
    hidden: int
    intermediate: int
    patches_per_item: int
    eager: bool  # --enforce-eager: the residual norm works in place
    fp32_rotary: bool = False  # vLLM 0.11: the attention half's fp32 rotary tops the MLP

    def _attn_hidden(self) -> int:
        return ATTN_HIDDEN_FP32_ROTARY if self.fp32_rotary else 0

    def patches(self, items: int) -> int:
        return items * self.patches_per_item

    def pixel_bytes(self, items: int) -> int:
        """The dummy pixel values (model dtype), alive through the whole profile."""
        return self.patches(items) * self.patch_values * ACT_BYTES

    def peak(self, items: int) -> Interval:
        """The tower's transient peak over `items` dummy items, pixel values included."""
        def at(hidden_tensors: int) -> int:
            mlp = hidden_tensors * self.hidden + MLP_INTERMEDIATE * self.intermediate
            per_patch = self.patch_values + max(mlp, self._attn_hidden() * self.hidden)
            return self.patches(items) * per_patch * ACT_BYTES
        low, high = at(MLP_HIDDEN_INPLACE), at(MLP_HIDDEN_NATIVE)
        return Interval(low if self.eager else high, low, high)

    def formula(self, items: int) -> str:
        n = MLP_HIDDEN_INPLACE if self.eager else MLP_HIDDEN_NATIVE
        if self.fp32_rotary:
            return (f"vision tower peak {items} x {self.patches_per_item:,} patches x "
                    f"({self.patch_values:,} pixel values + the larger of the MLP's {n} x "
                    f"{self.hidden:,} + {MLP_INTERMEDIATE} x {self.intermediate:,} and the "
                    f"fp32 rotary's {ATTN_HIDDEN_FP32_ROTARY} x {self.hidden:,}) x {ACT_BYTES} B")
        return (f"vision tower peak {items} x {self.patches_per_item:,} patches x "
                f"({self.patch_values:,} pixel values + {n} x {self.hidden:,} + "
                f"{MLP_INTERMEDIATE} x {self.intermediate:,}) x {ACT_BYTES} B")

    def assumption(self, items: int) -> str:
        p = self.peak(items)
        kind = (self.modality if self.modality == "image"
                else f"{self.frames}-frame {self.modality}")
        return (f"vision tower: {items} dummy {kind} item(s) of "
                f"{self.item_tokens:,} embeddings "
                f"({self.patches(items):,} patches) run through the encoder in one batch; "
                f"its MLP peak {gib(p.best)} (range {gib(p.low)}-{gib(p.high)}: the residual "
                "norm in place with custom ops on, new tensors with them off) counts against "
                "the KV cache where it tops the language-model phase")


def _in_read_range(version: str | None) -> bool:
    ver = parse_version(version)
    return ver is not None and (READ_FROM <= ver[:2] <= READ_UNTIL
                                or ver[:2] == READ_FP32_ROTARY)


def dummy_frames(image_tokens: int, temporal_patch: int, max_model_len: int) -> int:
    """qwen2_vl.py get_num_frames_with_most_features with one video: the most frames whose
    item stays within max_model_len tokens (`_get_max_video_frames`), at most 14, at least 1."""
    def tokens(n: int) -> int:
        return image_tokens * max((n + n % temporal_patch) // temporal_patch, 1)
    n = 1
    while n < MAX_FRAMES_PER_VIDEO and tokens(n + 1) <= max_model_len:
        n += 1
    return n


AnyTower = TowerProfile | Qwen3TowerProfile | Llama4TowerProfile


def _qwen3(model: ModelSpec, version: str | None, max_model_len: int,
           tp: int) -> Qwen3TowerProfile | None:
    """Qwen3-VL (kvplan.engines.vision_tower_qwen3), read in vLLM 0.11-0.12."""
    ver = parse_version(version)
    shapes = (model.vision_hidden_size, model.vision_intermediate_size, model.vision_patch_size,
              model.vision_temporal_patch_size, model.vision_spatial_merge_size,
              model.vision_in_channels, model.vision_out_hidden_size,
              model.vision_deepstack_levels)
    if ver is None or not in_read_range(ver) or any(v is None for v in shapes):
        return None
    h, i, p, t, m, c, out, levels = (int(v) for v in shapes if v is not None)
    return qwen3_profile(h, i, p, t, m, c, out, levels, ver, max_model_len, tp)


def tower_profile(model: ModelSpec, version: str | None, max_model_len: int,
                  enforce_eager: bool, tp: int = 1) -> AnyTower | None:
    """The dummy item vLLM profiles the tower with, or None where it is not modelled."""
    if model.model_type in QWEN3_TYPES and model.params_encoder:
        return _qwen3(model, version, max_model_len, tp)
    if model.model_type in LLAMA4_TYPES:  # kvplan.engines.vision_tower_llama4 (vLLM 0.19)
        return llama4_profile(model, version, tp)
    image_tokens = model.mm_tokens_per_item
    if (model.model_type not in TOWER_TYPES or image_tokens is None
            or model.vision_hidden_size is None or model.vision_intermediate_size is None
            or model.vision_patch_size is None or model.vision_temporal_patch_size is None
            or model.vision_spatial_merge_size is None or model.vision_in_channels is None
            or not _in_read_range(version)):
        return None
    t, merge = model.vision_temporal_patch_size, model.vision_spatial_merge_size
    frames = dummy_frames(image_tokens, t, max_model_len)
    # a video item is grid_t >= 1 images' worth of embeddings, never fewer than an image, and
    # a tie goes to "video" (max over (tokens, name)): the video is the profiled modality
    tokens = image_tokens * max((frames + frames % t) // t, 1)
    ver = parse_version(version)
    old = ver is not None and ver[:2] == READ_FP32_ROTARY
    # 0.11: max over the tokens alone, a tie goes to the first modality, the image
    modality = "image" if old and tokens == image_tokens else "video"
    return TowerProfile(
        modality=modality, frames=frames, item_tokens=tokens,
        patch_values=model.vision_in_channels * t * model.vision_patch_size ** 2,
        hidden=model.vision_hidden_size, intermediate=model.vision_intermediate_size,
        patches_per_item=tokens * merge * merge, eager=enforce_eager, fp32_rotary=old)


def tower_note(model: ModelSpec, version: str | None) -> str | None:
    """Why a multimodal model's profiled tower activation is left out, or None."""
    if model.model_type in QWEN3_TYPES and model.params_encoder:
        if model.vision_out_hidden_size is None or model.vision_deepstack_levels is None:
            return (f"{model.name}: the vision tower and encoder cache vLLM profiles are not "
                    "modelled (the spec lacks the vision_* shapes)")
        if in_read_range(parse_version(version)):
            return None
        return (f"{model.name}: the vision tower and encoder cache while vLLM {version} "
                "profiles the encoder are not modelled for Qwen3-VL (read in vLLM 0.11.0-0.12.0 "
                "only; 0.34.0 profiles a 2-frame video)")
    if not model.params_encoder or model.mm_tokens_per_item is None:
        return None
    if model.model_type in TOWER_TYPES and model.vision_hidden_size is not None:
        if _in_read_range(version):
            return None
        return (f"{model.name}: the vision tower's activation while vLLM {version} profiles "
                "the encoder is not modelled (read in vLLM 0.11.0 and 0.19.0-0.23.0 only)")
    if model.model_type in LLAMA4_TYPES:  # read in vLLM 0.19.0 mllama4.py (task h37llama4)
        if model.vision_image_size is None:
            return (f"{model.name}: the vision tower's activation while vLLM profiles the "
                    "encoder is not modelled (the spec lacks the vision_* shapes)")
        if llama4_profile(model, version, 1) is not None:
            return None
        return (f"{model.name}: the vision tower's activation and pixel values while vLLM "
                f"{version} profiles the encoder are not modelled (Llama 4 read in vLLM 0.19.0 "
                "only); the kept encoder outputs are")
    return (f"{model.name}: the vision tower's activation while vLLM profiles the encoder is not "
            f"modelled for {model.model_type} (only the Qwen2.5-VL, Qwen3-VL and Llama 4 towers "
            "were read)")
