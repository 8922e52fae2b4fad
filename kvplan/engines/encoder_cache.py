"""vLLM's encoder-cache budget at start-up, for multimodal models (V1 engine).

Read in vLLM's source:
- v1/core/encoder_cache_manager.py, compute_mm_encoder_budget: the encoder compute budget and
  the encoder cache size are both max(max_num_batched_tokens, the largest item's tokens) when
  neither is set (`_get_max_num_batched_encoder_embeds`, `_get_encoder_cache_size`), counted
  in embeddings ("tokens from the input sequence").
- v1/worker/gpu_model_runner.py, profile_run: "Encoder cache will be initialized with a budget
  of N tokens, and profiled with K <modality> items of the maximum feature size"; the K dummy
  items run through the encoder and their outputs are kept (`self.encoder_cache["tmp"]`) while
  the dummy language-model batch runs, so they are part of the profiled peak, and so are taken
  from the KV cache. K = budget // item tokens (at least one).

Each kept output is item_tokens x hidden_size activations (the projector maps the tower to the
language model's width), on every tensor-parallel rank (the tower is not sharded by TP here).
Where the tower is modelled (Qwen2.5-VL on vLLM 0.11 and 0.19-0.23, kvplan.engines.vision_tower)
the profiled item is the dummy video (0.11: the image on a tie), not the spec's image
(`mm_tokens_per_item`), its pixel values
stay alive through the language-model phase too, and the activation peak is the larger of the
tower's own transient peak and that phase. Qwen3-VL on vLLM 0.11-0.12: the dummy video's output
rows are out_hidden x (1 + deepstack levels) wide and are copied into zero-padded rows of the
item size (with timestamps, x 12.5), kept with the original output (`Qwen3TowerProfile.kept_bytes`;
kvplan.engines.vision_tower_qwen3). Llama 4 on vLLM 0.19: 3 dummy images of 17 chunks at 8,192
batched tokens, their bf16 pixel values kept too, the TP-sharded tower's MLP peak below the
language-model phase (kvplan.engines.vision_tower_llama4). Other towers' transient activations
are not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass

from kvplan.engines.activation import ACT_BYTES
from kvplan.engines.common import gib
from kvplan.engines.interface import Interval
from kvplan.engines.vision_tower import AnyTower
from kvplan.engines.vision_tower_qwen3 import QWEN3_TYPES, Qwen3TowerProfile
from kvplan.specs.schema import ModelSpec

KIMI_K25_TYPES = ("kimi_k25",)
# MoonViT's Rope2DPosEmbRepeated(head, 512, 512) buffer: 512 x 512 positions x head / 2 complex64
# values of 8 B, head = 1,152 / 16 = 72 (the config's vision_config vt_hidden_size and
# vt_num_attention_heads); built on the tower's first forward (kvplan.engines.vllm_rotary)
MOONVIT_ROPE_BYTES = 512 * 512 * (1152 // 16 // 2) * 8


@dataclass(frozen=True)
class EncoderCacheProfile:
    """The encoder cache vLLM profiles at start-up, on one GPU."""

    budget_tokens: int  # max(max_num_batched_tokens, item tokens)
    item_tokens: int
    items: int  # dummy items profiled: budget // item tokens, at least 1
    held_bytes: int  # items x item tokens x hidden x 2 bytes, alive during the profile
    tower: AnyTower | None = None  # the vision tower's dummy batch, where it is modelled

    @property
    def formula(self) -> str:
        text = (f"encoder cache budget max(max_num_batched_tokens, {self.item_tokens:,} tokens an "
                f"item) = {self.budget_tokens:,} tokens; {self.items} dummy item(s) x "
                f"{self.item_tokens:,} x hidden x {ACT_BYTES} B kept through the profile")
        if isinstance(self.tower, Qwen3TowerProfile):
            t = self.tower
            text = (f"encoder cache budget max(max_num_batched_tokens, {self.item_tokens:,} "
                    f"tokens an item) = {self.budget_tokens:,} tokens; {self.items} dummy "
                    f"video(s): {t.embeds:,} rows x {t.width:,} x {ACT_BYTES} B, copied into "
                    f"{t.rows(self.budget_tokens):,} zero-padded rows, both kept through the "
                    "profile")
        if self.tower is None:
            return text
        return (f"{text}, with their pixel values ({self.tower.patches(self.items):,} patches x "
                f"{self.tower.patch_values:,} x {ACT_BYTES} B); the larger of that phase and the "
                f"{self.tower.formula(self.items)}")

    @property
    def assumption(self) -> str:
        if isinstance(self.tower, Qwen3TowerProfile):
            return (f"encoder cache: {self.items} dummy video(s) of {self.tower.embeds:,} "
                    f"embeddings, zero-padded to {self.tower.rows(self.budget_tokens):,} rows, "
                    f"kept through the profile, {gib(self.held_bytes)} (in the activation peak)")
        return (f"encoder cache: {self.items} dummy item(s) of {self.item_tokens:,} embeddings "
                f"kept through the profile, {gib(self.held_bytes)} (in the activation peak)")

    @property
    def tower_peak(self) -> Interval | None:
        return self.tower.peak(self.items) if self.tower is not None else None


def encoder_cache_profile(
    model: ModelSpec, batched_tokens: int, limit_mm_per_prompt: int | None = None,
    tower: AnyTower | None = None,
) -> EncoderCacheProfile | None:
    """The profiled encoder cache, or None: a text-only model, an item size kvplan does not know
    (see `encoder_cache_note`), or `limit_mm_per_prompt` 0 (vLLM then skips the profiling).
    With a modelled `tower`, its dummy item (Qwen2.5-VL: the video) sets the item size."""
    item = tower.item_tokens if tower is not None else model.mm_tokens_per_item
    if not model.params_encoder or item is None or limit_mm_per_prompt == 0:
        return None
    budget = max(batched_tokens, item)
    items = max(1, budget // item)
    held = (tower.kept_bytes(items, budget) if isinstance(tower, Qwen3TowerProfile)
            else items * item * model.hidden_size * ACT_BYTES)
    return EncoderCacheProfile(budget, item, items, held, tower)


def encoder_cache_note(model: ModelSpec) -> str | None:
    """Why a multimodal model's encoder cache is left out, or None when it is modelled (or,
    Qwen3-VL with its vision shapes, when `tower_note` says by release whether it is)."""
    if not model.params_encoder or model.mm_tokens_per_item is not None:
        return None
    if (model.model_type in QWEN3_TYPES and model.vision_out_hidden_size is not None
            and model.vision_deepstack_levels is not None):
        return None
    if model.model_type in KIMI_K25_TYPES:
        return (f"{model.name}: the encoder cache vLLM profiles at start-up is not modelled: "
                "kimi_k25.py's dummy is one item, the larger of a 3,000 x 3,000 image and a "
                "video chunk of such frames (kimi_k25.py:72-75 and :184-211 in 0.15.0, :86-88 "
                "and :186-228 in 0.34.0), sized by the checkpoint's own media processor "
                "(preprocessor_config.json, not in the spec); that pass also builds MoonViT's "
                f"2D rope buffer, {MOONVIT_ROPE_BYTES:,} B a GPU (kvplan.engines.vllm_rotary); "
                "its one modality is vision_chunk (get_supported_mm_limits), so vLLM skips the "
                "pass with --limit-mm-per-prompt '{\"vision_chunk\": 0}' or "
                "--language-model-only (an image limit leaves vision_chunk at 999: "
                "config/multimodal.py:699-711, config/model.py:974-988 in 0.34.0)")
    return (f"{model.name}: the encoder cache vLLM profiles at start-up for image inputs is not "
            "modelled (the largest item's size in embeddings is not known for "
            f"{model.model_type}); vLLM's --limit-mm-per-prompt 0 (text only) skips it")


def with_encoder_cache(
    act: Interval, model: ModelSpec, batched_tokens: int, limit_mm_per_prompt: int | None,
    profiled: bool, tower: AnyTower | None = None,
) -> tuple[Interval, EncoderCacheProfile | None]:
    """The activation peak with the encoder cache added, where vLLM profiles one (`profiled`:
    a V1 engine whose activation peak is modelled, not read from a log, which includes it).
    With a modelled `tower`: the larger of the tower's own peak and the language-model phase
    (the forward `act`, the kept outputs and the dummy pixel values), each end of the range."""
    enc = (encoder_cache_profile(model, batched_tokens, limit_mm_per_prompt, tower)
           if profiled else None)
    if enc is None:
        return act, None
    held = enc.held_bytes + (enc.tower.pixel_bytes(enc.items) if enc.tower is not None else 0)
    lm = Interval(act.best + held, act.low + held, act.high + held)
    peak = enc.tower_peak
    if peak is None:
        return lm, enc
    return Interval(max(lm.best, peak.best), max(lm.low, peak.low), max(lm.high, peak.high)), enc
