"""Llama 4's vision tower while vLLM profiles the encoder (read in the vLLM 0.19.0 wheel).

models/mllama4.py:
- The dummy image (Mllama4DummyInputsBuilder.get_dummy_mm_data) is
  `get_image_size_with_most_features`: max_patches tiles high and one wide (16 x 336 by 336;
  max_patches is the image processor's, 16: transformers Llama4ImageProcessorFast, and
  kvplan.specs.mm_tokens.LLAMA4_MAX_PATCHES); the processor splits it into 16 tiles and adds a
  global tile (`patches_per_image`: 1 + 16), in bf16 (Llama4ImageProcessorFast
  rescale_and_normalize casts to bfloat16): 17 chunks of in_channels x image_size^2 pixel values.
- Each chunk becomes (image_size // patch_size)^2 = 576 patch rows + the CLS row in the tower
  (Llama4VisionModel.forward), 144 embeddings after the pixel shuffle (`get_patch_per_chunk`);
  the projector's output is the language model's width (kept: kvplan.engines.encoder_cache).
- The tower is sharded by TP (mm_encoder_tp_mode defaults to "weights", config/multimodal.py;
  `use_data_parallel` only with "data"): Llama4VisionMLP's fc1 is column-parallel, fc2
  row-parallel. Llama4VisionEncoderLayer.forward keeps the residual and the post-attention
  norm's output (the caller's `hidden_state`) while the MLP runs: at the GELU, residual + normed
  input (2 x hidden) + fc1's output and the GELU's (2 x intermediate / TP) a row; at fc2,
  3 x hidden + intermediate / TP, no more at the checkpoint's 4 x hidden intermediate.
  The attention half (qkv 3 x hidden / TP, the rotary's complex64 q/k) was not counted row by
  row; at TP 4 the whole tower stays near 0.3 GiB, far under the language-model phase (the
  1,024-row sampler), so the peak here bounds it from the MLP alone.
- profile_run (v1/worker/gpu_model_runner.py) keeps `batched_dummy_mm_inputs`, the pixel values,
  alive to its end: they join the language-model phase with the kept outputs.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.engines.activation import ACT_BYTES
from kvplan.engines.common import gib
from kvplan.engines.interface import Interval, parse_version
from kvplan.specs.mm_tokens import LLAMA4_MAX_PATCHES
from kvplan.specs.schema import ModelSpec

LLAMA4_TYPES = ("llama4",)
READ_FROM = (0, 19)  # read in the 0.19.0 wheel only
READ_UNTIL = (0, 19)
CHUNKS = LLAMA4_MAX_PATCHES + 1  # 16 tiles + the global tile


@dataclass(frozen=True)
class Llama4TowerProfile:
    """The dummy images vLLM profiles Llama 4's tower with, on one GPU."""

    item_tokens: int  # embeddings of one image (17 x 144)
    chunk_patches: int  # (image_size // patch_size)^2
    patch_values: int  # in_channels x patch^2 (one patch's pixel values)
    hidden: int
    intermediate: int
    tp: int
    modality: str = "image"

    def patches(self, items: int) -> int:
        """Pixel patches of `items` images (the CLS rows carry no pixel values)."""
        return items * CHUNKS * self.chunk_patches

    def rows(self, items: int) -> int:
        """Tower rows: every chunk's patches + its CLS row."""
        return items * CHUNKS * (self.chunk_patches + 1)

    def pixel_bytes(self, items: int) -> int:
        """The dummy pixel values (bf16), alive through the whole profile."""
        return self.patches(items) * self.patch_values * ACT_BYTES

    def _mlp_values(self) -> int:
        gelu = 2 * self.hidden + 2 * self.intermediate // self.tp
        fc2 = 3 * self.hidden + self.intermediate // self.tp
        return max(gelu, fc2)

    def peak(self, items: int) -> Interval:
        """The tower's MLP peak over `items` images, pixel values included."""
        best = self.rows(items) * self._mlp_values() * ACT_BYTES + self.pixel_bytes(items)
        return Interval.exact(best)

    def formula(self, items: int) -> str:
        return (f"vision tower peak {items} x {CHUNKS} chunks x {self.chunk_patches + 1:,} rows x "
                f"max(2 x {self.hidden:,} + 2 x {self.intermediate:,} / TP {self.tp}, 3 x "
                f"{self.hidden:,} + {self.intermediate:,} / TP {self.tp}) x {ACT_BYTES} B + the "
                "pixel values")

    def assumption(self, items: int) -> str:
        p = self.peak(items)
        return (f"vision tower: {items} dummy image(s) of {CHUNKS} chunks ({self.item_tokens:,} "
                f"embeddings; {self.rows(items):,} tower rows) run through the encoder in one "
                f"batch; its MLP peak {gib(p.best)} (the attention half not counted row by row) "
                "counts against the KV cache where it tops the language-model phase")


def in_read_range(version: str | None) -> bool:
    ver = parse_version(version)
    return ver is not None and READ_FROM <= ver[:2] <= READ_UNTIL


def llama4_profile(model: ModelSpec, version: str | None, tp: int) -> Llama4TowerProfile | None:
    """Llama 4's tower on the release read, or None (another release, or a shape missing)."""
    shapes = (model.vision_hidden_size, model.vision_intermediate_size, model.vision_patch_size,
              model.vision_in_channels, model.vision_image_size, model.mm_tokens_per_item)
    if (model.model_type not in LLAMA4_TYPES or not model.params_encoder
            or not in_read_range(version) or any(v is None for v in shapes)):
        return None
    h, i, p, c, size, item = (int(v) for v in shapes if v is not None)
    return Llama4TowerProfile(item_tokens=item, chunk_patches=(size // p) ** 2,
                              patch_values=c * p * p, hidden=h, intermediate=i, tp=tp)
