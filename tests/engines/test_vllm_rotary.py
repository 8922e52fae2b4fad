"""vLLM's rotary cos/sin cache, booked with the weights (kvplan.engines.vllm_rotary; read in the
vLLM wheels 0.2.5-0.33.0, task h39rope, Llama 4 first in 0.19.0, task h37llama4): get_rope's
buffer of rows x rotary_dim in the served dtype, one per distinct rope config a rank."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm_rotary import rotary_cache_bytes, rotary_cache_how, rotary_cache_note
from kvplan.specs import load_hardware, load_model
from kvplan.specs.hf_layers import ImportRefused
from kvplan.specs.hf_rope import rope_fields

H100 = load_hardware("h100")


def test_scout_cache_is_ten_million_positions_of_128_bf16() -> None:
    """Llama-4-Scout's text_config: max_position_embeddings 10,485,760, head_dim 128 (llama3
    scaling keeps the rows): 10,485,760 x 128 x 2 B = 2,684,354,560 B (2.5 GiB), one a rank."""
    assert rotary_cache_bytes(load_model("llama-4-scout"), "0.19.0") == 2_684_354_560


def test_llama_3_1_8b_plain_rows() -> None:
    """Llama-3.1-8B: 131,072 positions (llama3 scaling only rescales the frequencies) x head_dim
    128 x 2 B = 33,554,432 B, in every release read from 0.2.5 to 0.33.0."""
    model = load_model("llama-3.1-8b")
    for version in ("0.2.5", "0.6.4", "0.19.0", "0.33.0"):
        assert rotary_cache_bytes(model, version) == 33_554_432


def test_partial_rotary_width() -> None:
    """GLM-4.5: partial_rotary_factor 0.5 of head_dim 128 = 64 wide, 131,072 positions:
    131,072 x 64 x 2 B = 16,777,216 B. Qwen3-Next: 0.25 of 256 = 64, 262,144 positions:
    262,144 x 64 x 2 B = 33,554,432 B."""
    assert rotary_cache_bytes(load_model("glm-4.5"), "0.19.0") == 16_777_216
    assert rotary_cache_bytes(load_model("qwen3-next-80b-a3b"), "0.10.2") == 33_554_432


def test_deepseek_mla_yarn_rows() -> None:
    """DeepSeek-V3: deepseek_yarn over qk_rope_head_dim 64, original 4,096 x factor 40 = 163,840
    rows: 163,840 x 64 x 2 B = 20,971,520 B. Kimi-K2: 4,096 x 32 = 131,072 rows: 16,777,216 B."""
    assert rotary_cache_bytes(load_model("deepseek-v3"), "0.19.0") == 20_971_520
    assert rotary_cache_bytes(load_model("kimi-k2"), "0.19.0") == 16_777_216


def test_gpt_oss_yarn_in_float32() -> None:
    """gpt-oss-20b: YaRN original 4,096 x 32 = 131,072 rows x head_dim 64, float32 (gpt_oss.py
    dtype=torch.float32): 131,072 x 64 x 4 B = 33,554,432 B."""
    assert rotary_cache_bytes(load_model("gpt-oss-20b"), "0.19.0") == 33_554_432


def test_linear_scaling_multiplies_rows() -> None:
    """DeepSeek-Coder-6.7B (llama, linear factor 4): 16,384 x 4 = 65,536 rows x 128 x 2 B =
    16,777,216 B."""
    assert rotary_cache_bytes(load_model("deepseek-coder-6.7b-instruct"), "0.6.6") == 16_777_216


def test_gemma3_holds_a_global_and_a_local_cache() -> None:
    """Gemma-3-27B: global layers linear x 8: 131,072 x 8 = 1,048,576 rows x 128 x 2 B =
    268,435,456 B; sliding layers plain (rope_local_base_freq): 131,072 x 128 x 2 B =
    33,554,432 B; together 301,989,888 B. Gemma-3-1B (no rope_scaling, head_dim 256): two caches
    of 32,768 x 256 x 2 B = 16,777,216 B each, 33,554,432 B."""
    assert rotary_cache_bytes(load_model("gemma-3-27b"), "0.19.0") == 301_989_888
    assert rotary_cache_bytes(load_model("gemma-3-1b"), "0.19.0") == 33_554_432
    how = rotary_cache_how(load_model("gemma-3-27b"), "0.19.0")
    assert "global linear 131,072 x 8 = 1,048,576 positions x 128 x 2 B" in how
    assert "local 131,072 positions x 128 x 2 B" in how


def test_mrope_enlargement_by_release() -> None:
    """Qwen2.5-VL-7B, 128,000 positions x 128 x 2 B = 32,768,000 B in 0.6.6 (no enlargement);
    4 x that = 131,072,000 B from 0.7.3 (and 0.33.0); 0.7.2 not placed: none. Qwen3-VL-8B,
    262,144 x 128 x 2 B = 67,108,864 B: 4 x = 268,435,456 B in 0.19.0, 1 x in 0.33.0 (no video
    pruning), none in 0.23.0 (not placed)."""
    vl = load_model("qwen2.5-vl-7b")
    assert rotary_cache_bytes(vl, "0.6.6") == 32_768_000
    assert rotary_cache_bytes(vl, "0.9.2") == 131_072_000
    assert rotary_cache_bytes(vl, "0.33.0") == 131_072_000
    assert rotary_cache_bytes(vl, "0.7.2") == 0
    assert "0.7.0-0.7.2" in (rotary_cache_note(vl, "0.7.2") or "")
    q3 = load_model("qwen3-vl-8b")
    assert rotary_cache_bytes(q3, "0.19.0") == 268_435_456
    assert rotary_cache_bytes(q3, "0.33.0") == 67_108_864
    assert rotary_cache_bytes(q3, "0.23.0") == 0


@pytest.mark.parametrize(("name", "why"), [
    ("phi-3.5-mini", "rope_type 'longrope' not read"),
    ("phi-4-mini", "partial_rotary_factor on phi3 not read"),
    ("chatglm2-6b", "chatglm's vLLM model file not read"),
])
def test_not_read_is_not_booked_and_said(name: str, why: str) -> None:
    model = load_model(name)
    assert rotary_cache_bytes(model, "0.19.0") == 0
    assert why in (rotary_cache_note(model, "0.19.0") or "")


def test_learned_positions_have_none_and_no_note() -> None:
    model = load_model("opt-125m")
    assert model.rope_type is None
    assert rotary_cache_bytes(model, "0.19.0") == 0
    assert rotary_cache_note(model, "0.19.0") is None


def test_releases_before_the_oldest_read_book_none() -> None:
    assert rotary_cache_bytes(load_model("llama-2-7b"), "0.2.4") == 0
    assert rotary_cache_bytes(load_model("llama-2-7b"), "0.2.5") == 4096 * 128 * 2


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


def test_llama_tp2_weights_carry_the_cache_on_each_rank() -> None:
    """Llama-3.1-8B at TP 2 on 0.19.0: 8,030,261,248 params x 2 B / 2 = 8,030,261,248 B a rank,
    + the cache 131,072 x 128 x 2 B = 33,554,432 B, not halved: 8,063,815,680 B; the step's words
    name it."""
    req = SizeRequest(model=load_model("llama-3.1-8b"), gpu=H100, tp=2,  # type: ignore[arg-type]
                      context_tokens=8192)
    r = run_engine(req, EngineSettings(engine=Engine.vllm, version="0.19.0",
                                       memory_fraction=Fraction(9, 10)))
    assert r.weights_bytes == 8_063_815_680
    assert any("rotary cos/sin cache 131,072 positions x 128 x 2 B" in str(step)
               for step in r.steps)


def test_importer_reads_the_rope_fields() -> None:
    """The config's rope_scaling (rope_type or type, factor, original_max_position_embeddings)
    and partial_rotary_factor; none gives 'default'; OPT's learned positions give nothing."""
    yarn = {"rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings":
                             4096, "beta_fast": 32}}
    assert rope_fields(yarn, "deepseek_v3") == {"rope_type": "yarn", "rope_factor": 40.0,
                                                "rope_original_positions": 4096}
    assert rope_fields({"partial_rotary_factor": 0.5}, "glm4_moe") == {
        "rope_type": "default", "partial_rotary_factor": 0.5}
    assert rope_fields({"rope_scaling": None}, "llama") == {"rope_type": "default"}
    assert rope_fields({"max_position_embeddings": 2048}, "opt") == {}
    with pytest.raises(ImportRefused, match="partial_rotary_factor"):
        rope_fields({"partial_rotary_factor": 1.5}, "llama")
    with pytest.raises(ImportRefused, match="factor"):
        rope_fields({"rope_scaling": {"rope_type": "linear", "factor": "8"}}, "llama")
