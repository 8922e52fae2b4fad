"""Qwen3-VL's dummy video and vision tower while vLLM V1 0.11-0.12 profiles the encoder.

Read in vLLM's source, 0.11.0 and 0.12.0 (wheels from PyPI; the same where it matters):

- model_executor/models/qwen3_vl.py, Qwen3VLProcessingInfo (extends qwen2_vl.py's): the largest
  image is the image processor's `smart_resize` of 9,999,999^2 pixels (factor patch x merge,
  size longest_edge / shortest_edge), `get_image_size_with_most_features`; the dummy video has
  `get_num_frames_with_most_features` frames: `_get_max_video_frames(max_model_len,
  start_num_frames=2)` walks n up while the video's embeddings at n + 1 frames stay within
  max_model_len, capped at _MAX_FRAMES_PER_VIDEO = 24,576 and at least 2
  (Qwen3VLDummyInputsBuilder.get_dummy_mm_data). Each frame is the video processor's
  `smart_resize` (transformers 4.57.1 models/qwen3_vl/video_processing_qwen3_vl.py; vLLM 0.12
  requires transformers < 5): its max_pixels bounds t x h x w over ALL frames, so with many
  frames each is shrunk to the 32 x 32 floor. An item of grid_t = (n + n % T) // T temporal
  patches has grid_t x (h/patch) x (w/patch) patches, merge^2 to an embedding.
- get_max_video_tokens: those embeddings x 12.5 ("one video token is converted to
  '<{timestamp} seconds>' (on average 9.5 tokens) + vision_start + video_token + vision_end"):
  the item size the encoder budget and the start-up line use ("a budget of 153600 tokens").
- v1/worker/gpu_model_runner.py, profile_run: the encoder output (`embed_multimodal`; its rows
  are out_hidden_size x (1 + deepstack levels) wide: Qwen3_VisionTransformer.forward concatenates
  the merger's and each deepstack merger's output) has fewer rows than that item size, so each
  output is copied into `new_zeros((rows, width))` kept in encoder_cache["tmp"] through the
  language-model phase; rows = the encoder budget in 0.11.0 (:3379), the modality's
  max tokens an item in 0.12.0 (`max_mm_tokens_per_item`, :4344). The loop variable `output`
  (a view of the original output) stays bound until the sampler's result is assigned, so the
  original rows are alive too; so are the dummy pixel values (`batched_dummy_mm_inputs`).
- Qwen3_VisionBlock / Qwen3_VisionMLP / Qwen2_5_VisionAttention (0.12.0): qkv, linear_fc1 are
  ColumnParallel, proj and linear_fc2 RowParallel (mm_encoder_tp_mode "weights", the default):
  a TP rank holds 3 x hidden / TP of qkv and intermediate / TP of the MLP. Alive at the MLP:
  the block input and norm2's output (2 x hidden) with linear_fc1's output and the activation
  (2 x intermediate / TP), or, in linear_fc2, the input, norm2, the activation and the output
  (3 x hidden + intermediate / TP). At the attention: the input and norm1's output (2 x hidden),
  qkv, the rearranged q/k, the rotated q/k, v made contiguous for the varlen kernel and the
  context and its rearranged copy (10 x hidden / TP). The deepstack features already produced
  (levels x embeddings x out_hidden) stay alive to the last block. FLASH_ATTN (or the per-item
  TORCH_SDPA loop, items of a few patches here) keeps no score matrix.

The peak's range: low the MLP alone, high the attention with q and k upcast to fp32 while
they are rotated (4 x hidden / TP more). The processor sizes are Qwen3-VL's
preprocessor_config.json / video_preprocessor_config.json (the same file for every Qwen3-VL
size; read as a public print of Qwen3-VL-2B-Instruct's Qwen3VLProcessor, code index id
52457624213: image size {longest_edge 16,777,216, shortest_edge 65,536}, video size
{longest_edge 25,165,824, shortest_edge 4,096}, patch 16, merge 2, temporal 2). The 30B-A3B
logs agree: 153,600 = 12.5 x 12,288, the video of 24,576 frames of 32 x 32.
Read in 0.11-0.12 only: 0.34.0 profiles a 2-frame video without the x 12.5 (not modelled).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kvplan.engines.activation import ACT_BYTES
from kvplan.engines.common import gib
from kvplan.engines.interface import Interval

QWEN3_TYPES = ("qwen3_vl", "qwen3_vl_moe")
READ_FROM, READ_UNTIL = (0, 11), (0, 12)
IMAGE_PIXELS = (65_536, 16_777_216)  # preprocessor_config.json size shortest / longest_edge
VIDEO_PIXELS = (4_096, 25_165_824)  # video_preprocessor_config.json size
MAX_FRAMES = 24_576  # qwen3_vl.py _MAX_FRAMES_PER_VIDEO (0.11.0 and 0.12.0)
MAX_SIDE = 9_999_999  # qwen2_vl.py get_image_size_with_most_features
ATTN_HIDDEN, ATTN_SHARDED = 2, 10  # hidden-wide values at the attention: whole, / TP
ROTARY_FP32 = 4  # q and k upcast to fp32 while rotated: 2 x 2 x hidden / TP values


def image_side(factor: int) -> int:
    """The image processor's smart_resize (qwen2_vl image_processing) of the 9,999,999 square."""
    side = round(MAX_SIDE / factor) * factor
    low, high = IMAGE_PIXELS
    if side * side > high:
        beta = math.sqrt(MAX_SIDE * MAX_SIDE / high)
        return max(factor, math.floor(MAX_SIDE / beta / factor) * factor)
    if side * side < low:
        beta = math.sqrt(low / (MAX_SIDE * MAX_SIDE))
        return math.ceil(MAX_SIDE * beta / factor) * factor
    return side


def video_side(frames: int, side: int, factor: int, temporal: int) -> int:
    """transformers 4.57.1 qwen3_vl video smart_resize of `frames` square frames of `side`."""
    h_bar = round(side / factor) * factor
    t_bar = round(frames / temporal) * temporal
    low, high = VIDEO_PIXELS
    if t_bar * h_bar * h_bar > high:
        beta = math.sqrt(frames * side * side / high)
        return max(factor, math.floor(side / beta / factor) * factor)
    if t_bar * h_bar * h_bar < low:
        beta = math.sqrt(low / (frames * side * side))
        return math.ceil(side * beta / factor) * factor
    return h_bar


@dataclass(frozen=True)
class DummyVideo:
    frames: int
    side: int  # pixels of a square frame
    embeds: int  # encoder output rows
    patches: int


def dummy_video(max_model_len: int, patch: int, merge: int, temporal: int) -> DummyVideo:
    """The dummy video of get_dummy_mm_data (one video, vLLM 0.11/0.12)."""
    factor = patch * merge
    image = image_side(factor)

    def video(n: int) -> DummyVideo:
        side = video_side(n, image, factor, temporal)
        patches = max((n + n % temporal) // temporal, 1) * (side // patch) ** 2
        return DummyVideo(n, side, patches // (merge * merge), patches)

    n = 2  # _get_max_video_frames(start_num_frames=2); stops at the cap (min(n, cap) is kept)
    while n < MAX_FRAMES and video(n + 1).embeds <= max_model_len:
        n += 1
    return video(n)


@dataclass(frozen=True)
class Qwen3TowerProfile:
    """The dummy video vLLM 0.11/0.12 profiles Qwen3-VL's tower with, on one TP rank."""

    modality: str
    frames: int
    side: int
    embeds: int  # encoder output rows of one item
    item_tokens: int  # int(embeds x 12.5): the size the encoder budget uses
    width: int  # out_hidden x (1 + deepstack levels)
    out_hidden: int
    levels: int
    patch_values: int
    hidden: int
    intermediate: int
    patches_per_item: int
    tp: int
    expand_to_budget: bool  # 0.11: rows = encoder budget; 0.12: rows = item_tokens

    def patches(self, items: int) -> int:
        return items * self.patches_per_item

    def pixel_bytes(self, items: int) -> int:
        return self.patches(items) * self.patch_values * ACT_BYTES

    def rows(self, budget: int) -> int:
        return budget if self.expand_to_budget else self.item_tokens

    def kept_bytes(self, items: int, budget: int) -> int:
        """The zero-padded copies kept in encoder_cache["tmp"] and the original output."""
        original = items * self.embeds * self.width * ACT_BYTES
        rows = self.rows(budget)
        return original + (items * rows * self.width * ACT_BYTES if self.embeds < rows else 0)

    def peak(self, items: int) -> Interval:
        """The tower's transient peak over `items` items, pixel values and deepstack included."""
        h, tp = self.hidden, self.tp
        mlp = max(2 * h + 2 * (self.intermediate // tp), 3 * h + self.intermediate // tp)
        attn = ATTN_HIDDEN * h + ATTN_SHARDED * h // tp
        fixed = (self.pixel_bytes(items)
                 + self.levels * items * self.embeds * self.out_hidden * ACT_BYTES)

        def at(values: int) -> int:
            return fixed + self.patches(items) * values * ACT_BYTES
        best = at(max(mlp, attn))
        return Interval(best, at(mlp), at(max(mlp, attn) + ROTARY_FP32 * h // tp))

    def formula(self, items: int) -> str:
        h, tp = self.hidden, self.tp
        return (f"vision tower peak {items} x {self.patches_per_item:,} patches x max(MLP, "
                f"attention 2 x {h:,} + 10 x {h:,} / TP {tp}) x {ACT_BYTES} B, with the pixel "
                f"values and {self.levels} deepstack feature(s)")

    def assumption(self, items: int) -> str:
        p = self.peak(items)
        return (f"vision tower: {items} dummy {self.frames:,}-frame {self.side} x {self.side} "
                f"video(s) of {self.embeds:,} embeddings ({self.item_tokens:,} tokens with "
                f"timestamps; {self.patches(items):,} patches) run through the encoder "
                f"(sharded by TP {self.tp}); its peak {gib(p.best)} (range {gib(p.low)}-"
                f"{gib(p.high)}) counts where it tops the language-model phase; the output "
                f"({self.width:,} wide with the deepstack levels) is copied into "
                "zero-padded rows of the item size and kept through that phase")


def in_read_range(ver: tuple[int, ...] | None) -> bool:
    return ver is not None and READ_FROM <= ver[:2] <= READ_UNTIL


def qwen3_profile(hidden: int, intermediate: int, patch: int, temporal: int, merge: int,
                  channels: int, out_hidden: int, levels: int, ver: tuple[int, ...],
                  max_model_len: int, tp: int) -> Qwen3TowerProfile:
    """The profile for a Qwen3-VL tower's shapes (vision_config) on vLLM `ver` (0.11/0.12)."""
    v = dummy_video(max_model_len, patch, merge, temporal)
    return Qwen3TowerProfile(
        modality="video", frames=v.frames, side=v.side, embeds=v.embeds,
        item_tokens=v.embeds * 25 // 2, width=out_hidden * (1 + levels), out_hidden=out_hidden,
        levels=levels, patch_values=channels * temporal * patch * patch, hidden=hidden,
        intermediate=intermediate, patches_per_item=v.patches, tp=max(tp, 1),
        expand_to_budget=ver[:2] == (0, 11))
