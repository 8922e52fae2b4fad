"""Issue 12: vLLM's start-up encoder-cache budget for multimodal models.

vLLM v1/core/encoder_cache_manager.py: budget = max(max_num_batched_tokens, largest item's
tokens); v1/worker/gpu_model_runner.py profile_run keeps budget // item dummy items of
item x hidden activations alive through the dummy batch, so they are taken from the KV cache.
"""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.encoder_cache import encoder_cache_note, encoder_cache_profile
from kvplan.specs import load_hardware, load_model

H100 = load_hardware("h100")


def test_gemma3_budget_is_the_batch_in_whole_images() -> None:
    # mm_tokens_per_image 256; budget max(8,192, 256) = 8,192 -> 8,192 // 256 = 32 images;
    # 32 x 256 x hidden 3,840 x 2 B = 62,914,560 B
    enc = encoder_cache_profile(load_model("gemma-3-12b"), 8192)
    assert enc is not None
    assert (enc.budget_tokens, enc.item_tokens, enc.items) == (8192, 256, 32)
    assert enc.held_bytes == 62_914_560


def test_qwen25_vl_one_image_is_larger_than_the_batch() -> None:
    # the log's "budget of 16384 tokens, and profiled with 1 image items": at 2,048 or 8,192
    # batched tokens the budget is the item, 16,384; 16,384 x hidden 3,584 x 2 B = 117,440,512
    model = load_model("qwen2.5-vl-7b")
    for batched in (2048, 8192):
        enc = encoder_cache_profile(model, batched)
        assert enc is not None
        assert (enc.budget_tokens, enc.items, enc.held_bytes) == (16_384, 1, 117_440_512)
    # 40,000 batched tokens: budget 40,000 -> 2 whole images, 2 x 117,440,512
    enc = encoder_cache_profile(model, 40_000)
    assert enc is not None and (enc.budget_tokens, enc.items) == (40_000, 2)
    assert enc.held_bytes == 234_881_024


def test_none_when_text_only_unknown_or_switched_off() -> None:
    assert encoder_cache_profile(load_model("llama-3.1-8b"), 8192) is None
    assert encoder_cache_profile(load_model("gemma-3-12b"), 8192, limit_mm_per_prompt=0) is None
    kimi = load_model("kimi-k2.5")  # a tower, but its item size was not read
    assert encoder_cache_profile(kimi, 8192) is None
    note = encoder_cache_note(kimi)
    assert note is not None and "not modelled" in note
    assert encoder_cache_note(load_model("gemma-3-12b")) is None


def test_llama4_scout_three_images_of_17_chunks() -> None:
    """vLLM 0.19.0 mllama4.py: 17 chunks (16 tiles + the global tile) x (336 // 14)^2 // 4 =
    144 embeddings = 2,448 an image; 8,192 // 2,448 = 3 dummy images (log 89 prints "profiled
    with 3 image items"), kept as 3 x 2,448 x 5,120 x 2 B = 75,202,560 B (task h37llama4)."""
    enc = encoder_cache_profile(load_model("llama-4-scout"), 8192)
    assert enc is not None
    assert (enc.item_tokens, enc.items, enc.budget_tokens) == (2448, 3, 8192)
    assert enc.held_bytes == 75_202_560


@pytest.mark.parametrize(("name", "held"), [("qwen2.5-vl-7b", 117_440_512), ("gemma-3-4b", 0)])
def test_vllm_profile_takes_the_encoder_cache_from_the_kv_cache(name: str, held: int) -> None:
    # with --limit-mm-per-prompt 0 vLLM skips the encoder profiling: the KV cache is larger by
    # exactly the held embeddings. gemma-3-4b at 8,192 batched tokens holds 32 x 256 x 2,560 x
    # 2 B = 41,943,040 B; qwen2.5-vl-7b 117,440,512 B (above)
    # (vLLM 0.33.0: the budget does not depend on the peak; 0.34's below)
    held = held or 32 * 256 * 2560 * 2
    req = SizeRequest(model=load_model(name), gpu=H100, context_tokens=8192)  # type: ignore[arg-type]
    with_cache = run_engine(req, EngineSettings(engine=Engine.vllm, version="0.33.0",
                                                max_num_batched_tokens=8192))
    without = run_engine(req, EngineSettings(engine=Engine.vllm, version="0.33.0",
                                             max_num_batched_tokens=8192, limit_mm_per_prompt=0))
    assert without.kv_cache_bytes - with_cache.kv_cache_bytes == held
    assert with_cache.activation_bytes - without.activation_bytes == held
    assert any("encoder cache:" in a for a in with_cache.size.assumptions)


@pytest.mark.parametrize(("name", "held"), [("qwen2.5-vl-7b", 117_440_512), ("gemma-3-4b", 0)])
def test_vllm_0_34_margin_grows_with_the_encoder_cache(name: str, held: int) -> None:
    # vLLM 0.34 (the default) at utilization 1.0 keeps max(1 GiB, 0.75 x the transient peak)
    # free (extensible_kv_cache.py:615); both peaks are above 1.33 GiB here, so the pool loses
    # the held embeddings and 0.75 of them again: 117,440,512 x 1.75 = 205,520,896 B;
    # 41,943,040 x 1.75 = 73,400,320 B
    held = held or 32 * 256 * 2560 * 2
    req = SizeRequest(model=load_model(name), gpu=H100, context_tokens=8192)  # type: ignore[arg-type]
    with_cache = run_engine(req, EngineSettings(engine=Engine.vllm, max_num_batched_tokens=8192))
    without = run_engine(req, EngineSettings(engine=Engine.vllm, max_num_batched_tokens=8192,
                                             limit_mm_per_prompt=0))
    assert without.kv_cache_bytes - with_cache.kv_cache_bytes == held + held * 3 // 4
    assert with_cache.activation_bytes - without.activation_bytes == held


def test_a_measured_activation_peak_already_holds_it() -> None:
    # a log's profiled peak includes the dummy encoder outputs: nothing is added on top
    from kvplan.engines.interface import Measured

    req = SizeRequest(model=load_model("qwen2.5-vl-7b"), gpu=H100, context_tokens=8192)  # type: ignore[arg-type]
    s = EngineSettings(engine=Engine.vllm, measured=Measured(activation_bytes=3_000_000_000))
    assert run_engine(req, s).activation_bytes == 3_000_000_000
