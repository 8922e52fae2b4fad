"""Qwen3-VL's dummy video, vision tower and encoder cache while vLLM 0.11-0.12 profiles the
encoder (kvplan.engines.vision_tower_qwen3; read in vLLM 0.11.0/0.12.0 models/qwen3_vl.py,
qwen2_vl.py, v1/worker/gpu_model_runner.py profile_run, and transformers 4.57.1's Qwen3-VL
video smart_resize).

Hand arithmetic for Qwen3-VL-30B-A3B (config.json vision_config: hidden 1,152, intermediate
4,304, patch 16, temporal patch 2, merge 2, in_channels 3, out_hidden 2,048, deepstack indexes
[8, 16, 24]; processor sizes: image longest_edge 16,777,216, video longest_edge 25,165,824):
- the largest image: 9,999,999^2 > 16,777,216 px, shrunk to floor(4,096.0 / 32) x 32 = 4,096;
- at max_model_len 65,536 the frame walk never passes 65,536 embeddings before the cap, so the
  video has 24,576 frames; 24,576 x 4,096^2 > 25,165,824, beta = sqrt(24,576 x 4,096^2 /
  25,165,824) = 128, floor(4,096 / 128 / 32) = 1: 32 x 32 frames; grid_t 12,288 x (32/16)^2
  = 49,152 patches, / 2^2 = 12,288 embeddings, x 12.5 = 153,600 (the logs' budget);
- the output is 2,048 x (1 + 3) = 8,192 wide: 12,288 x 8,192 x 2 = 201,326,592 B, copied into
  153,600 x 8,192 x 2 = 2,516,582,400 B of zero-padded rows, both kept, with the pixel values
  49,152 x (3 x 2 x 16^2 = 1,536) x 2 = 150,994,944 B: 2,868,903,936 B through the LM phase.
- the tower at TP 2 (a patch): MLP max(2 x 1,152 + 2 x 2,152, 3 x 1,152 + 2,152) = 6,608,
  attention 2 x 1,152 + 10 x 1,152 / 2 = 8,064 values; fixed: the pixel values and three
  deepstack features 3 x 12,288 x 2,048 x 2 = 150,994,944 B. Best 301,989,888 + 49,152 x 8,064
  x 2 = 1,094,713,344 B; low (MLP) 301,989,888 + 49,152 x 6,608 x 2 = 951,582,720 B; high
  (+ q/k in fp32, 4 x 1,152 / 2) 301,989,888 + 49,152 x 10,368 x 2 = 1,321,205,760 B.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from kvplan.cli import app
from kvplan.engines.encoder_cache import encoder_cache_note, encoder_cache_profile
from kvplan.engines.interface import Interval
from kvplan.engines.vision_tower import tower_note, tower_profile
from kvplan.engines.vision_tower_qwen3 import Qwen3TowerProfile, dummy_video, image_side
from kvplan.specs import load_model
from kvplan.specs.mm_tokens import vision_tower_fields
from kvplan.specs.validators import ModelSpec as ModelSpecModel

A3B = load_model("qwen3-vl-30b-a3b")
KEPT = 201_326_592 + 2_516_582_400  # the original output and its zero-padded copy
PIXELS = 150_994_944
HELD = KEPT + PIXELS  # 2,868,903,936


def _tower(version: str, max_model_len: int = 65_536, tp: int = 1) -> Qwen3TowerProfile:
    t = tower_profile(A3B, version, max_model_len, enforce_eager=False, tp=tp)
    assert isinstance(t, Qwen3TowerProfile)
    return t


def test_the_dummy_video_by_hand() -> None:
    assert image_side(32) == 4_096
    v = dummy_video(65_536, patch=16, merge=2, temporal=2)
    assert (v.frames, v.side, v.patches, v.embeds) == (24_576, 32, 49_152, 12_288)
    # 8,192 tokens: three frames (t 4, beta sqrt(2), 2,880 px, grid_t 2) are 16,200 embeddings
    # > 8,192, so the walk stays at two frames: beta sqrt(4/3), floor(4,096 / 1.1547 / 32) x 32
    # = 3,520 px, (3,520 / 16)^2 = 48,400 patches, 12,100 embeddings
    v = dummy_video(8_192, patch=16, merge=2, temporal=2)
    assert (v.frames, v.side, v.patches, v.embeds) == (2, 3_520, 48_400, 12_100)


def test_the_encoder_cache_and_the_tower_by_hand() -> None:
    t = _tower("0.12.0", tp=2)
    assert (t.embeds, t.item_tokens, t.width, t.patch_values) == (12_288, 153_600, 8_192, 1_536)
    enc = encoder_cache_profile(A3B, 8_192, None, t)
    assert enc is not None
    assert (enc.budget_tokens, enc.items, enc.held_bytes) == (153_600, 1, KEPT)
    assert t.pixel_bytes(1) == PIXELS
    assert t.peak(1) == Interval(1_094_713_344, 951_582_720, 1_321_205_760)
    # TP 4: MLP max(2,304 + 2,152, 3,456 + 1,076) = 4,532, attention 2,304 + 2,880 = 5,184
    assert _tower("0.11.0", tp=4).peak(1).best == 301_989_888 + 49_152 * 5_184 * 2


def test_rows_follow_the_release() -> None:
    # 0.11.0 pads to the encoder budget, 0.12.0 to the item's max tokens (153,600)
    old, new = _tower("0.11.0"), _tower("0.12.0")
    e11 = encoder_cache_profile(A3B, 200_000, None, old)
    e12 = encoder_cache_profile(A3B, 200_000, None, new)
    assert e11 is not None and e12 is not None
    assert e11.held_bytes == 201_326_592 + 200_000 * 8_192 * 2
    assert e12.held_bytes == KEPT


def test_other_releases_are_named_not_modelled() -> None:
    assert tower_profile(A3B, "0.13.0", 65_536, enforce_eager=False, tp=2) is None
    assert tower_profile(A3B, "0.10.2", 65_536, enforce_eager=False, tp=2) is None
    why = tower_note(A3B, "0.34.0")
    assert why is not None and "read in vLLM 0.11.0-0.12.0" in why
    assert tower_note(A3B, "0.12.0") is None and encoder_cache_note(A3B) is None


def test_the_shapes_come_from_config_json() -> None:
    cfg = json.loads((Path(__file__).parents[1] / "assets" / "hf_configs"
                      / "qwen3-vl-30b-a3b.json").read_text())
    fields = vision_tower_fields("qwen3_vl_moe", cfg)
    assert (fields["vision_out_hidden_size"], fields["vision_deepstack_levels"]) == (2_048, 3)
    assert (A3B.vision_hidden_size, A3B.vision_intermediate_size) == (1_152, 4_304)
    del cfg["vision_config"]["deepstack_visual_indexes"]
    assert vision_tower_fields("qwen3_vl_moe", cfg) == {}


def test_deepstack_fields_need_the_tower_fields() -> None:
    data = A3B.model_dump() | {"vision_hidden_size": None, "vision_intermediate_size": None,
                               "vision_patch_size": None, "vision_temporal_patch_size": None,
                               "vision_spatial_merge_size": None, "vision_in_channels": None}
    with pytest.raises(ValidationError, match="vision_out_hidden_size"):
        ModelSpecModel.model_validate(data)


@pytest.mark.parametrize(("seqs", "version"), [(256, "0.12.0"), (64, "0.11.0")])
def test_explain_books_the_held_output(seqs: int, version: str) -> None:
    args = ["explain", "qwen3-vl-30b-a3b", "--gpu", "h100", "--tp", "2", "-c", "65536",
            "--engine", "vllm", "--engine-version", version, "--max-num-seqs", str(seqs),
            "--max-num-batched-tokens", "8192", "-f", "json"]

    def step(*extra: str) -> int:
        res = CliRunner().invoke(app, [*args, *extra])
        assert res.exit_code == 0, res.output
        [one] = json.loads(res.stdout)["results"]
        [s] = [s for s in one["steps"] if s["label"] == "activation peak"]
        return int(s["value"])

    # the language-model phase tops the tower's 1.02 GiB: the held bytes add whole
    assert step() - step("--limit-mm-per-prompt", "0") == HELD
