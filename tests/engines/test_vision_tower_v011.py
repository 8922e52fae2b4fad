"""Qwen2.5-VL's vision tower while vLLM 0.11.0 profiles the encoder (kvplan.engines.vision_tower;
read in the vLLM 0.11.0 wheel: v1/worker/gpu_model_runner.py profile_run, v1/worker/utils.py
get_modality_with_max_tokens, models/qwen2_5_vl.py Qwen2_5_VisionAttention.forward, qwen2_vl.py
apply_rotary_pos_emb_vision, vllm_flash_attn/ops/triton/rotary.py apply_rotary).

Hand arithmetic for Qwen2.5-VL-3B (vision hidden 1,280, intermediate 3,420, patch 14, temporal
patch 2, merge 2, in_chans 3; an image at max_pixels is 16,384 embeddings; LM hidden 2,048) at
max_model_len 8,192, log 281's setting: two frames are 16,384 > 8,192 tokens, so the video is one
frame, grid_t 1, 16,384 embeddings, the image's size: a tie, and 0.11.0's max over the tokens
alone keeps the first modality, the image (the log: "budget of 16384 tokens, and profiled with 1
image items"). 16,384 x 2^2 = 65,536 patches of 3 x 2 x 14^2 = 1,176 values.
Attention half at the rotary: block input 1 + norm1 output 1 + qkv 3 + contiguous q/k/v 3 +
qk_concat 2 + its fp32 copy 4 + the fp32 rotary output 4 + the bf16 result 2 = 20 x 1,280 =
25,600 values; the MLP half (custom ops off) 5 x 1,280 + 3 x 3,420 = 16,660 values, smaller.
Peak a patch: 1,176 + 25,600 = 26,776 values x 2 B = 53,552 B; x 65,536 = 3,509,583,872 B, the
same with --enforce-eager (norm1 has no residual to fuse). Without the attention term (the MLP
half, as 0.19-0.23 book): (1,176 + 16,660) x 2 x 65,536 = 2,337,800,192 B.
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.encoder_cache import with_encoder_cache
from kvplan.engines.interface import Interval
from kvplan.engines.vision_tower import tower_note, tower_profile
from kvplan.specs import load_hardware, load_model

VL3 = load_model("qwen2.5-vl-3b")
L4 = load_hardware("l4")
PEAK = 3_509_583_872  # 65,536 x (1,176 + 20 x 1,280) x 2
MLP_PEAK = 2_337_800_192  # 65,536 x (1,176 + 5 x 1,280 + 3 x 3,420) x 2
PIXELS = 65_536 * 1_176 * 2  # 154,140,672
HELD = 16_384 * 2_048 * 2  # 67,108,864: the kept encoder output


def test_the_dummy_image_and_the_rotary_peak_by_hand() -> None:
    t = tower_profile(VL3, "0.11.0", 8_192, enforce_eager=False)
    assert t is not None
    assert (t.modality, t.item_tokens, t.patches(1), t.patch_values) == (
        "image", 16_384, 65_536, 1_176)
    assert t.peak(1) == Interval(PEAK, PEAK, PEAK)
    assert t.pixel_bytes(1) == PIXELS
    eager = tower_profile(VL3, "0.11.0", 8_192, enforce_eager=True)
    assert eager is not None and eager.peak(1) == Interval(PEAK, PEAK, PEAK)
    # 0.19-0.23 keep the MLP half's peak (their attention half is 10 x hidden)
    new = tower_profile(VL3, "0.19.0", 8_192, enforce_eager=False)
    assert new is not None and new.modality == "video" and new.peak(1).best == MLP_PEAK
    assert "image item(s)" in t.assumption(1) and "20 x 1,280" in t.formula(1)


def test_a_longer_video_is_the_item_on_0_11() -> None:
    # 32,768 tokens: 4 frames, grid_t 2, 32,768 embeddings > the image's 16,384: the video
    t = tower_profile(VL3, "0.11.0", 32_768, enforce_eager=False)
    assert t is not None and (t.modality, t.frames, t.item_tokens) == ("video", 4, 32_768)
    assert t.peak(1).best == 2 * PEAK  # 131,072 patches


def test_only_0_11_among_the_older_releases() -> None:
    for version in ("0.10.2", "0.12.0", "0.18.1"):
        assert tower_profile(VL3, version, 8_192, enforce_eager=False) is None
        note = tower_note(VL3, version)
        assert note is not None and "read in vLLM 0.11.0 and 0.19.0-0.23.0 only" in note
    assert tower_note(VL3, "0.11.0") is None


def test_log_281_settings_through_the_engine() -> None:
    t = tower_profile(VL3, "0.11.0", 8_192, enforce_eager=False)
    small = Interval(1_000_000_000, 500_000_000, 1_500_000_000)
    act, enc = with_encoder_cache(small, VL3, 2_048, None, True, t)
    assert enc is not None and (enc.budget_tokens, enc.items, enc.held_bytes) == (
        16_384, 1, HELD)
    assert act == Interval(PEAK, PEAK, PEAK)  # the tower tops 1 GB + HELD + PIXELS
    req = SizeRequest(model=VL3, gpu=L4, context_tokens=8_192)  # type: ignore[arg-type]

    def run(**kw: object):
        return run_engine(req, EngineSettings(
            engine=Engine.vllm, version="0.11.0", memory_fraction=Fraction(9, 10),
            max_num_batched_tokens=2_048, **kw))
    r, off = run(), run(limit_mm_per_prompt=0)
    assert (r.activation_bytes, r.activation_bytes_low) == (PEAK, PEAK)
    assert off.activation_bytes < PEAK - HELD - PIXELS  # the LM phase alone is smaller
    assert off.kv_cache_bytes - r.kv_cache_bytes == PEAK - off.activation_bytes
