"""Qwen2.5-VL's vision tower while vLLM V1 (0.19-0.23) profiles the encoder
(kvplan.engines.vision_tower; read in vLLM 0.19.0 and 0.23.0: gpu_model_runner.profile_run,
multimodal/encoder_budget.py, models/qwen2_vl.py and qwen2_5_vl.py).

Hand arithmetic for Qwen2.5-VL-7B (vision_config: hidden 1,280, intermediate 3,420, patch 14,
temporal patch 2, merge 2, in_chans 3; an image at max_pixels is 16,384 embeddings) at
max_model_len 128,000: the dummy video has the most frames n <= 14 whose item stays within
128,000 tokens: n = 14, grid_t 7, 7 x 16,384 = 114,688 embeddings (the log's "budget of 114688
tokens, and profiled with 1 video items"), 114,688 x 2^2 = 458,752 patches of 3 x 2 x 14^2 =
1,176 values. MLP peak a patch (custom ops off): 1,176 + 5 x 1,280 + 3 x 3,420 = 17,836 values,
x 2 B = 35,672 B; x 458,752 = 16,364,601,344 B. In place (--enforce-eager): 1,176 + 3 x 1,280 +
3 x 3,420 = 15,276 values, 30,552 B, 14,015,791,104 B.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from kvplan.capacity import SizeRequest
from kvplan.cli import app
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.encoder_cache import with_encoder_cache
from kvplan.engines.interface import Interval
from kvplan.engines.vision_tower import dummy_frames, tower_note, tower_profile
from kvplan.specs import load_hardware, load_model
from kvplan.specs.validators import ModelSpec as ModelSpecModel

VL7 = load_model("qwen2.5-vl-7b")
A100 = load_hardware("a100-80gb")
PEAK, PEAK_INPLACE = 16_364_601_344, 14_015_791_104
PIXELS = 458_752 * 1_176 * 2  # 1,078,984,704
HELD = 114_688 * 3_584 * 2  # 822,083,584: the kept encoder output


def test_the_dummy_video_and_the_peak_by_hand() -> None:
    t = tower_profile(VL7, "0.23.0", 128_000, enforce_eager=False)
    assert t is not None
    assert (t.modality, t.frames, t.item_tokens, t.patches(1), t.patch_values) == (
        "video", 14, 114_688, 458_752, 1_176)
    assert t.peak(1) == Interval(PEAK, PEAK_INPLACE, PEAK)
    assert t.pixel_bytes(1) == PIXELS == 1_078_984_704
    assert t.peak(2).best == 2 * PEAK  # K items run as one batch
    eager = tower_profile(VL7, "0.19.0", 128_000, enforce_eager=True)
    assert eager is not None and eager.peak(1) == Interval(PEAK_INPLACE, PEAK_INPLACE, PEAK)


@pytest.mark.parametrize(("max_model_len", "frames", "tokens"), [
    # 40,000: 3 or 4 frames are grid_t 2 (32,768 tokens); 5 pads to 6, 49,152 > 40,000
    (40_000, 4, 32_768),
    # 8,192: two frames are already 16,384 > 8,192: one frame, padded to grid_t 1
    (8_192, 1, 16_384),
    # 10,000,000: the cap of 14 frames
    (10_000_000, 14, 114_688),
])
def test_frames_follow_max_model_len(max_model_len: int, frames: int, tokens: int) -> None:
    assert dummy_frames(16_384, 2, max_model_len) == frames
    t = tower_profile(VL7, "0.23.0", max_model_len, enforce_eager=False)
    assert t is not None and (t.frames, t.item_tokens) == (frames, tokens)


def test_only_the_releases_read_and_the_tower_read() -> None:
    for version in ("0.12.0", "0.18.1", "0.24.0", None):
        assert tower_profile(VL7, version, 128_000, enforce_eager=False) is None
    assert tower_profile(VL7, "0.21.0", 128_000, enforce_eager=False) is not None
    note = tower_note(VL7, "0.31.0")
    assert note is not None and "read in vLLM 0.11.0 and 0.19.0-0.23.0 only" in note
    assert tower_note(VL7, "0.23.0") is None
    gemma = load_model("gemma-3-12b")
    assert tower_profile(gemma, "0.23.0", 8192, enforce_eager=False) is None
    note = tower_note(gemma, "0.23.0")
    assert note is not None and "gemma3" in note
    assert tower_note(load_model("llama-3.1-8b"), "0.23.0") is None


def test_the_profile_takes_the_larger_phase() -> None:
    t = tower_profile(VL7, "0.23.0", 128_000, enforce_eager=False)
    small = Interval(740_294_656, 584_581_120, 1_475_870_720)
    act, enc = with_encoder_cache(small, VL7, 2048, None, True, t)
    assert enc is not None and (enc.budget_tokens, enc.items, enc.held_bytes) == (
        114_688, 1, HELD)
    assert act == Interval(PEAK, PEAK_INPLACE, PEAK)  # the tower tops the LM phase
    big = Interval(20_000_000_000, 19_000_000_000, 21_000_000_000)
    act, _ = with_encoder_cache(big, VL7, 2048, None, True, t)
    extra = HELD + PIXELS  # the kept outputs and the pixel values during the LM phase
    assert act == Interval(20_000_000_000 + extra, max(19_000_000_000 + extra, PEAK_INPLACE),
                           21_000_000_000 + extra)
    assert with_encoder_cache(small, VL7, 2048, 0, True, t) == (small, None)


def test_log_211_settings_through_the_engine() -> None:
    # vLLM 0.23.0, A100 80GB, utilization 0.22, max_model_len 128,000: the tower's peak is the
    # activation; --limit-mm-per-prompt 0 leaves the LM forward/sampler peak alone
    req = SizeRequest(model=VL7, gpu=A100, context_tokens=128_000)  # type: ignore[arg-type]

    def run(**kw: object):
        return run_engine(req, EngineSettings(engine=Engine.vllm, version="0.23.0",
                                              memory_fraction=Fraction(22, 100), **kw))
    r, off = run(), run(limit_mm_per_prompt=0)
    assert (r.activation_bytes, r.activation_bytes_low) == (PEAK, PEAK_INPLACE)
    assert off.activation_bytes == 622_854_144  # 2,048 x 67,584 x 2 x 2.25 (the forward term)
    assert off.kv_cache_bytes - r.kv_cache_bytes == PEAK - 622_854_144
    assert not r.starts


def test_partial_tower_shapes_are_refused() -> None:
    data = VL7.model_dump()
    data["vision_in_channels"] = None
    with pytest.raises(ValidationError, match="vision tower fields"):
        ModelSpecModel.model_validate(data)
    text = load_model("llama-3.1-8b").model_dump() | {
        k: v for k, v in VL7.model_dump().items() if k.startswith("vision_")}
    with pytest.raises(ValidationError, match="only on a model with an encoder"):
        ModelSpecModel.model_validate(text)


def test_explain_shows_the_tower_and_limit_zero_removes_it() -> None:
    # explain's activation step carries the formula; size's assumptions say what it assumes
    args = ["qwen2.5-vl-7b", "--gpu", "a100-80gb", "--engine", "vllm", "--engine-version",
            "0.23.0", "--memory-utilization", "0.22", "-f", "json"]

    def result(command: str, *extra: str) -> dict:
        res = CliRunner().invoke(app, [command, *args, *extra])
        # size exits 1 when the engine does not start: at 0.22 neither start holds a
        # 128,000-token request (the tower's 15.24 GiB; 0.84 GiB of KV cache without it)
        assert res.exit_code == (1 if command == "size" else 0), res.output
        [one] = json.loads(res.stdout)["results"]
        return one

    def step(*extra: str) -> dict:
        [s] = [s for s in result("explain", *extra)["steps"] if s["label"] == "activation peak"]
        return s

    on, off = step(), step("--limit-mm-per-prompt", "0")
    assert on["value"] == PEAK
    assert ("the larger of that phase and the vision tower peak 1 x 458,752 patches x (1,176 "
            "pixel values + 5 x 1,280 + 3 x 3,420) x 2 B") in on["formula"]
    assert off["value"] == 622_854_144
    assert "vision tower" not in off["formula"]
    said = result("size")["assumptions"]
    assert any(a.startswith("vision tower: 1 dummy 14-frame video item(s) of 114,688 "
                            "embeddings (458,752 patches)") and "range 13.05 GiB-15.24 GiB" in a
               for a in said)
    assert not any("vision tower" in a
                   for a in result("size", "--limit-mm-per-prompt", "0")["assumptions"])
