"""vLLM's rotary cos/sin cache, booked with the weights for Llama 4 (kvplan.engines.vllm_rotary;
read in the vLLM 0.19.0 wheel: llama4.py get_rope over max_position_embeddings,
rotary_embedding/base.py register_buffer of max_position x rotary_dim in the served dtype)."""

from __future__ import annotations

from fractions import Fraction

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm_rotary import rotary_cache_bytes
from kvplan.specs import load_hardware, load_model

H100 = load_hardware("h100")


def test_scout_cache_is_ten_million_positions_of_128_bf16() -> None:
    """Llama-4-Scout's text_config: max_position_embeddings 10,485,760, head_dim 128:
    10,485,760 x 128 x 2 B = 2,684,354,560 B (2.5 GiB), one cache a rank."""
    assert rotary_cache_bytes(load_model("llama-4-scout")) == 2_684_354_560


def test_other_models_book_none() -> None:
    """Only Llama 4 is booked (other architectures' caches, 1-64 MiB, are left as before)."""
    assert rotary_cache_bytes(load_model("llama-3.1-8b")) == 0
    assert rotary_cache_bytes(load_model("qwen2.5-vl-7b")) == 0


def test_scout_tp4_weights_include_the_cache_on_every_rank() -> None:
    """108,641,793,536 params, less the router's 48 x 5,120 x 16 = 3,932,160 held whole on every
    rank (task h38router): 108,637,861,376 x 2 B / 4 = 54,318,930,688 B + 7,864,320 B of router,
    + 2,684,354,560 B of cache (not divided by TP) = 57,011,149,568 B = 53.10 GiB a rank (53.09,
    57,005,251,328 B, with the router split); log 89 (vLLM 0.19.0, TP 4) printed "Model loading
    took 53.12 GiB"."""
    req = SizeRequest(model=load_model("llama-4-scout"), gpu=H100, tp=4,  # type: ignore[arg-type]
                      context_tokens=8192)
    r = run_engine(req, EngineSettings(engine=Engine.vllm, version="0.19.0",
                                       memory_fraction=Fraction(95, 100)))
    assert r.weights_bytes == 57_011_149_568
