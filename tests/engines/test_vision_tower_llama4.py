"""Llama 4's vision tower while vLLM 0.19 profiles the encoder (kvplan.engines.vision_tower_llama4;
read in the vLLM 0.19.0 wheel, models/mllama4.py and v1/worker/gpu_model_runner.py profile_run)."""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.encoder_cache import encoder_cache_profile, with_encoder_cache
from kvplan.engines.interface import Interval
from kvplan.engines.vision_tower import tower_note, tower_profile
from kvplan.specs import load_hardware, load_model

H100 = load_hardware("h100")
SCOUT = load_model("llama-4-scout")


def test_three_dummy_images_at_tp4() -> None:
    """3 images x 17 chunks (16 tiles + the global tile): 29,427 tower rows (x 577 = 576 patches +
    CLS); pixel values 3 x 17 x 576 patches x (3 x 14 x 14 = 588) x 2 B = 34,546,176 B; the MLP
    at TP 4 keeps max(2 x 1,408 + 2 x 5,632 / 4, 3 x 1,408 + 5,632 / 4) = 5,632 values a row:
    29,427 x 5,632 x 2 B = 331,465,728 B; with the pixel values 366,011,904 B."""
    tower = tower_profile(SCOUT, "0.19.0", 8192, False, tp=4)
    assert tower is not None
    assert tower.item_tokens == 2448
    assert tower.rows(3) == 29_427
    assert tower.pixel_bytes(3) == 34_546_176
    assert tower.peak(3).best == 366_011_904


def test_the_tower_is_under_the_language_model_phase() -> None:
    """With a 3,310,354,432 B sampler phase (1,024 x 202,048 x 16 B), the activation is that +
    the kept outputs 3 x 2,448 x 5,120 x 2 B = 75,202,560 + the pixel values 34,546,176 =
    3,420,103,168 B (3.185 GiB; log 89 prints 3.19), above the tower's 366,011,904 B."""
    tower = tower_profile(SCOUT, "0.19.0", 8192, False, tp=4)
    act, enc = with_encoder_cache(Interval.exact(3_310_354_432), SCOUT, 8192, None, True, tower)
    assert enc is not None and enc.items == 3
    assert act.best == 3_420_103_168


def test_other_releases_keep_the_outputs_only() -> None:
    """Only 0.19 was read: on 0.11 the tower is None and the note says so, while the kept
    outputs (mm_tokens_per_item) are still booked: 75,202,560 B."""
    assert tower_profile(SCOUT, "0.11.0", 8192, False, tp=4) is None
    note = tower_note(SCOUT, "0.11.0")
    assert note is not None and "0.19.0 only" in note
    assert tower_note(SCOUT, "0.19.0") is None
    enc = encoder_cache_profile(SCOUT, 8192)
    assert enc is not None and enc.held_bytes == 75_202_560


def test_log_89_pool() -> None:
    """Log 89's settings (TP 4, 0.95, 8,192 tokens; catalog H100 total): the activation step is
    the 3,420,103,168 B above, and --limit-mm-per-prompt 0 gives back exactly the kept outputs
    and pixel values, 75,202,560 + 34,546,176 = 109,748,736 B."""
    req = SizeRequest(model=SCOUT, gpu=H100, tp=4, context_tokens=8192)  # type: ignore[arg-type]
    s = EngineSettings(engine=Engine.vllm, version="0.19.0", memory_fraction=Fraction(95, 100))
    with_mm = run_engine(req, s)
    assert with_mm.activation_bytes == 3_420_103_168
    off = run_engine(req, EngineSettings(engine=Engine.vllm, version="0.19.0",
                                         memory_fraction=Fraction(95, 100), limit_mm_per_prompt=0))
    assert off.kv_cache_bytes - with_mm.kv_cache_bytes == 109_748_736
