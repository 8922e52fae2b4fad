"""TensorRT-LLM's PyTorch backend holds a DeepSeek-V3-type model's token embedding, MLA
down-projections (fused_a), a k_b_proj_trans copy and, on SM100 with FP8 block scales, bf16
dequantized k/v up-projections on every TP rank (issue #13 task h39trt12; read in the stored
code index's modeling_deepseekv3.py, modeling_utils.py and modules/attention.py, see
kvplan/engines/trtllm_mla.py). Expected values worked by hand from DeepSeek-R1's config.json
(tests/assets/hf_configs/deepseek-r1.json: vocab 129,280, hidden 7,168, 61 layers, 128 heads,
q_lora_rank 1,536, kv_lora_rank 512, qk_rope 64, qk_nope 128, v_head 128, fp8 [128, 128])."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from kvplan.calibrate.compare import calibrate_run
from kvplan.calibrate.parse import parse_file
from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.trtllm_mla import whole_rank_weights
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

LOGS = Path(__file__).parents[1] / "assets" / "logs"


def _req(model: str = "deepseek-r1", tp: int = 8, pp: int = 1, gpu: str = "b200") -> SizeRequest:
    return SizeRequest(model=load_model(model), gpu=load_hardware(gpu), context_tokens=8192,
                       kv_dtype=DType.fp8, tp=tp, pp=pp)


def test_deepseek_r1_fp8_tp8_on_b200_term_by_term() -> None:
    """embedding 129,280 x 7,168 x 2 = 1,853,358,080 B less 1,853,358,080 // 8 = 231,669,760:
    1,621,688,320; fused_a 7,168 x 2,112 x 61 = 923,467,776 B less 115,433,472: 808,034,304;
    k_b_proj_trans 61 x 16 x 512 x 128 x 1 = 63,963,136 + scale 61 x 16 x 4 x 1 x 4 = 15,616:
    63,978,752; SM100 dequant 61 x 16 x (65,536 + 65,536) x 2 = 255,852,544. Total
    2,749,553,920."""
    w = whole_rank_weights(_req(), pytorch=True)
    assert (w.embedding, w.fused_a, w.k_b_proj_trans, w.sm100_dequant) == (
        1_621_688_320, 808_034_304, 63_978_752, 255_852_544)
    assert w.total == 2_749_553_920
    assert "token embedding whole 1,621,688,320 B" in w.how()


def test_not_sm100_no_dequant_copies() -> None:
    """H200 (SM90): 1,621,688,320 + 808,034,304 + 63,978,752 = 2,493,701,376."""
    w = whole_rank_weights(_req(gpu="h200"), pytorch=True)
    assert w.sm100_dequant == 0 and w.total == 2_493_701_376


def test_bf16_weights_no_block_scales() -> None:
    """bf16 on a B200: fused_a 923,467,776 x 2 = 1,846,935,552 less 230,866,944 =
    1,616,068,608; k_b_proj_trans 61 x 16 x 512 x 128 x 2 = 127,926,272 (no scale); no
    dequant copies (FP8 block scales only)."""
    w = whole_rank_weights(replace(_req(), weight_dtype=DType.bf16), pytorch=True)
    assert (w.embedding, w.fused_a, w.k_b_proj_trans, w.sm100_dequant) == (
        1_621_688_320, 1_616_068_608, 127_926_272, 0)


def test_where_it_does_not_apply() -> None:
    """A TensorRT engine, TP 1, PP 2 (not read) and a model that is not deepseek_v3: nothing."""
    assert whole_rank_weights(_req(), pytorch=False).total == 0
    assert whole_rank_weights(_req(tp=1), pytorch=True).total == 0
    assert whole_rank_weights(_req(tp=4, pp=2), pytorch=True).total == 0
    assert whole_rank_weights(_req("llama-3.1-8b"), pytorch=True).total == 0
    assert whole_rank_weights(_req("deepseek-v2-lite", tp=2), pytorch=True).total == 0


def test_the_trtllm_weights_step_books_them() -> None:
    """1.2.0rc6.post3 (PyTorch backend by default from 1.0), DeepSeek-R1 fp8 at TP 8 on B200:
    84,306,226,880 B (671e9 x 1 B / 8 with the 16-bit router whole, as before) + 2,749,553,920 =
    87,055,780,800 B. The TensorRT-engine backend keeps 84,306,226,880."""
    s = EngineSettings(engine=Engine.trtllm, version="1.2.0rc6.post3",
                       memory_fraction=Fraction(4, 5))
    r = run_engine(_req(), s)
    assert r.weights_bytes == 87_055_780_800
    assert any("DeepseekV3 on every TP rank" in str(st.formula) for st in r.steps)
    trt = run_engine(_req(), replace(s, version="0.12.0"))
    assert trt.weights_bytes == 84_306_226_880


def test_log_310_shapes_tokens() -> None:
    """Log 310: 2,749,553,920 B more weights leave 2,749,553,920 x 0.8 = 2,199,643,136 B fewer
    for the cache, 62,603.5 tokens of 35,136 B; in whole 32-token blocks 74,084 -> 72,127
    (1,957 blocks): 2,370,688 -> 2,308,064 tokens."""
    run = parse_file(next(LOGS.glob("310-*.log"))).runs[0]
    rep = calibrate_run(run, LOGS)
    tokens = [c for c in rep.checks if c.basis == "shapes" and c.quantity == "KV tokens"]
    assert len(tokens) == 1 and tokens[0].predicted == 2_308_064


def test_deepgemm_workspace_by_hand() -> None:
    """DeepGemmFusedMoE.get_workspace at 8,192 tokens (m_max 8,192), DeepSeek-R1 TP 8 EP 1:
    fp8 256 x 8,192 x max(7,168, 2,048 / 8) = 15,032,385,536; bf16 256 x 8,192 x max(2 x 256,
    7,168) x 2 = 30,064,771,072; int32 scales 256 x (align(56, 4) / 4 = 14) x 8,192 x 4 =
    117,440,512: 45,214,597,120. At 100 tokens (m_max 128): 256 x 128 x 7,168 = 234,881,024 +
    469,762,048 + 256 x 14 x 128 x 4 = 1,835,008: 706,478,080. EP 8 (32 experts a rank) at
    8,192: 45,214,597,120 / 8 = 5,651,824,640. A dense model: 0."""
    from kvplan.engines.trtllm_mla import deepgemm_workspace_bytes

    assert deepgemm_workspace_bytes(_req(), 8192) == 45_214_597_120
    assert deepgemm_workspace_bytes(_req(), 100) == 706_478_080
    assert deepgemm_workspace_bytes(replace(_req(), ep=8), 8192) == 5_651_824_640
    assert deepgemm_workspace_bytes(_req("llama-3.1-8b"), 8192) == 0


def test_calibrate_names_the_deepgemm_backend_on_log_315_only() -> None:
    """Log 315's LLM Args dump states moe_config backend DEEPGEMM (max_num_tokens 8,192): the
    note gives 45,214,597,120 B, not booked, and its prediction is the TRTLLM-backend one's
    (2,019,584 tokens at fraction 0.7, as 312). Log 310 (backend TRTLLM) gets no such note."""
    run = parse_file(next(LOGS.glob("315-*.log"))).runs[0]
    assert run.settings["moe_backend"] == "DEEPGEMM"
    rep = calibrate_run(run, LOGS)
    assert any("MoE backend DEEPGEMM" in n and "45,214,597,120 B" in n for n in rep.notes)
    tokens = [c for c in rep.checks if c.basis == "shapes" and c.quantity == "KV tokens"]
    assert tokens[0].predicted == 2_019_584
    other = calibrate_run(parse_file(next(LOGS.glob("310-*.log"))).runs[0], LOGS)
    assert not any("MoE backend" in n for n in other.notes)
