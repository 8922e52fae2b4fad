"""vLLM holds MLA's down-projections (q_a_proj, kv_a_proj_with_mqa) whole on every TP rank
(issue #13 task h38mlarep; read in the 0.7.3 and 0.33.0 wheels, models/deepseek_v2.py).
Expected values are worked by hand from the configs (tests/assets/hf_configs/deepseek-r1.json;
DeepSeek-V2-Lite: hidden 2,048, kv_lora_rank 512, qk_rope_head_dim 64, no q_lora_rank, 27
layers)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from kvplan.calibrate.compare import calibrate_run
from kvplan.calibrate.parse import parse_file
from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.mla_replicated import projection_params, replicated_extra_bytes
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

LOGS = Path(__file__).parents[1] / "assets" / "logs"


def _req(model: str, tp: int, pp: int = 1, gpu: str = "h200") -> SizeRequest:
    return SizeRequest(model=load_model(model), gpu=load_hardware(gpu), context_tokens=32768,
                       kv_dtype=DType.bf16, tp=tp, pp=pp)


def test_projection_params() -> None:
    """DeepSeek-R1: 7,168 x (1,536 + 512 + 64) x 61 = 923,467,776; DeepSeek-V2-Lite (no
    q_lora_rank: kv_a alone): 2,048 x (512 + 64) x 27 = 31,850,496; a dense model: 0."""
    assert projection_params(load_model("deepseek-r1")) == 923_467_776
    assert projection_params(load_model("deepseek-v2-lite")) == 31_850_496
    assert projection_params(load_model("llama-3.1-8b")) == 0


def test_deepseek_r1_fp8_at_tp_8() -> None:
    """923,467,776 params x 1 B (fp8) held whole, less 923,467,776 // 8 = 115,433,472 booked by
    the even split: 808,034,304 B. bf16: 1,846,935,552 - 230,866,944 = 1,616,068,608 B. Before
    0.7.3 (not read) and at TP 1: 0."""
    req = _req("deepseek-r1", 8)
    assert replicated_extra_bytes(req, "0.7.3") == 808_034_304
    assert replicated_extra_bytes(req, "0.33.0") == 808_034_304
    assert replicated_extra_bytes(req, "0.7.2") == 0
    assert replicated_extra_bytes(replace(req, weight_dtype=DType.bf16), "0.33.0") == 1_616_068_608
    assert replicated_extra_bytes(_req("deepseek-r1", 1), "0.33.0") == 0


def test_deepseek_v2_lite_tp_and_pp() -> None:
    """31,850,496 params x 2 B = 63,700,992 B. TP 2: 63,700,992 - 31,850,496 = 31,850,496 B.
    TP 2 x PP 2: a stage holds 63,700,992 // 2 = 31,850,496, the split booked 63,700,992 // 4 =
    15,925,248: 15,925,248 B."""
    assert replicated_extra_bytes(_req("deepseek-v2-lite", 2), "0.9.2") == 31_850_496
    assert replicated_extra_bytes(_req("deepseek-v2-lite", 2, 2), "0.9.2") == 15_925_248


def test_the_vllm_weights_step_books_them() -> None:
    # task h39rope: vLLM's rotary cos/sin cache (kvplan.engines.vllm_rotary) joins the weights,
    # 163,840 positions x 64 x 2 B = 20,971,520 B, and leaves the pool; recomputed: 85,114,261,184
    # -> 85,135,232,704, 31,412,968,448 -> 31,433,939,968
    """V1 0.33.0, DeepSeek-R1 at TP 8: 84,306,226,880 B of checkpoint weights (671e9 x 1 B / 8
    + the 16-bit router whole) + 808,034,304 = 85,114,261,184 B. DeepSeek-V2-Lite at TP 1:
    15,706,484,224 params x 2 B = 31,412,968,448 B, no extra."""
    s = EngineSettings(engine=Engine.vllm, version="0.33.0", memory_fraction=Fraction(9, 10))
    r = run_engine(_req("deepseek-r1", 8), s)
    assert r.weights_bytes == 85_135_232_704
    assert any("MLA down-projections" in str(st.formula) for st in r.steps)
    lite = run_engine(_req("deepseek-v2-lite", 1, gpu="h100"), s)
    assert lite.weights_bytes == 31_433_939_968


def test_log_286_shapes_blocks() -> None:
    """Log 286 (fit, 0.7.3 V0, TP 8 on H200, block size 16): 808,034,304 B fewer for the cache,
    over 16 x 61 x 1,280 B = 1,249,280 B a block, is 646.8 blocks, 647 with the floor: shapes-only
    GPU blocks 23,503 -> 22,856 (logged 18,418); task h39rope's rotary cos/sin cache (DeepSeek
    YaRN 4,096 x 40 = 163,840 positions x qk_rope_head_dim 64 x 2 B = 20,971,520 B, 16.8 blocks)
    takes it to 22,839."""
    run = parse_file(next(LOGS.glob("286-*.log"))).runs[0]
    rep = calibrate_run(run, LOGS)
    blocks = [c for c in rep.checks if c.basis == "shapes" and c.quantity == "GPU blocks"]
    assert len(blocks) == 1 and blocks[0].predicted == 22839
