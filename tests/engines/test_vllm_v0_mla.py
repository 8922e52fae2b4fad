"""vLLM V0 0.7.x MLA: the cache row padded to 256 B and the absorbed decode matrices (issue #13
task h37mla286). Expected values are worked by hand from vLLM 0.7.3's source
(vllm/worker/cache_engine.py get_cache_block_size, vllm/utils.py align_to_256bytes,
vllm/attention/backends/mla/utils.py process_weights_after_loading) and DeepSeek-R1's
config.json (tests/assets/hf_configs/deepseek-r1.json)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from kvplan.calibrate.compare import calibrate_run
from kvplan.calibrate.parse import parse_file
from kvplan.capacity import SizeRequest
from kvplan.engines import Engine, EngineSettings, run_engine
from kvplan.engines.vllm_v0_mla import absorbed_bytes, aligned_values, pads_mla_rows
from kvplan.specs import load_hardware, load_model
from kvplan.units import DType

LOGS = Path(__file__).parents[1] / "assets" / "logs"
GIB = 1 << 30


def _r1(kv: DType = DType.bf16, tp: int = 8, gpu: str = "h200") -> SizeRequest:
    return SizeRequest(model=load_model("deepseek-r1"), gpu=load_hardware(gpu),
                       context_tokens=128000, kv_dtype=kv, tp=tp)


def _run(version: str, kv: DType = DType.bf16, gpu: str = "h200"):
    s = EngineSettings(engine=Engine.vllm, version=version, memory_fraction=Fraction(85, 100),
                       max_num_batched_tokens=32000, max_num_seqs=1024)
    return run_engine(_r1(kv, gpu=gpu), s)


def _per_token_layer(r) -> int:
    return int({st.label: st for st in r.steps}["KV bytes per token per layer"].value)


def test_align_to_256bytes_counts_in_16_bit_elements() -> None:
    """round_up(extent, 256 // 2): 576 -> 640, 128 -> 128, 129 -> 256."""
    assert aligned_values(576) == 640
    assert aligned_values(128) == 128
    assert aligned_values(129) == 256


def test_v0_072_to_073_pads_the_latent_row() -> None:
    """(512 + 64) -> 640 values x 2 B = 1,280 B a token and layer (1,152 unpadded); an fp8
    cache: 640 x 1 B = 640 (get_cache_block_size aligns in the model dtype, prices in the cache
    dtype); 0.7.1 and 0.8.0 have no alignment."""
    assert _per_token_layer(_run("0.7.3")) == 1280
    assert _per_token_layer(_run("0.7.2")) == 1280
    assert _per_token_layer(_run("0.7.3", DType.fp8)) == 640
    assert _per_token_layer(_run("0.7.1")) == 1152
    assert _per_token_layer(_run("0.8.0-v0")) == 1152
    assert _per_token_layer(_run("0.8.0")) == 1152  # V1


def test_rocm_and_dense_models_keep_their_rows() -> None:
    req = _r1()
    assert pads_mla_rows(req, "0.7.3", False)
    assert not pads_mla_rows(replace(req, gpu=load_hardware("mi300x")), "0.7.3", False)
    assert not pads_mla_rows(replace(req, model=load_model("qwen2.5-14b-instruct")), "0.7.3",
                             False)
    assert not pads_mla_rows(req, "0.7.3", True)  # V1 sizes its own cache


def test_absorbed_matrices_of_deepseek_r1_at_tp_8() -> None:
    """16 heads a rank. W_QR 1,536 x 16 x 64 x 2 = 3,145,728; kv_b_proj dequantized
    512 x 16 x (128 + 128) x 2 = 4,194,304; W_Q_UK 1,536 x 8,192 + (12 x 64) x 4 = 12,585,984;
    W_UV_O 8,192 x 7,168 + (64 x 56) x 4 = 58,734,592; sum 78,660,608 B x 61 layers =
    4,798,297,088 B (4.47 GiB)."""
    req = _r1()
    assert absorbed_bytes(req, "0.7.3", False) == 4_798_297_088
    assert absorbed_bytes(req, "0.7.1", False) == 4_798_297_088
    assert absorbed_bytes(req, "0.7.0", False) == 0  # no MLA backend before 0.7.1
    assert absorbed_bytes(req, "0.8.0", False) == 0  # 0.8's common.py keeps W_UV/W_UK_T only
    assert absorbed_bytes(req, "0.7.3", True) == 0  # V1
    # bf16 weights: W_QR 3,145,728; kv_b_proj is the loaded weight (0); W_Q_UK 1,536 x 8,192 x 2
    # = 25,165,824; W_UV_O 8,192 x 7,168 x 2 = 117,440,512; 145,752,064 x 61 = 8,890,875,904
    bf16 = replace(req, weight_dtype=DType.bf16)
    assert absorbed_bytes(bf16, "0.7.3", False) == 8_890_875_904


def test_the_weights_step_books_them() -> None:
    """0.7.3 books 84,306,226,880 B of checkpoint weights (671e9 x 1 B / 8 + the router) +
    808,034,304 B of MLA down-projections held whole (kvplan.engines.mla_replicated) +
    4,798,297,088 = 89,912,558,272 B; 0.8.0 (V1) the first two alone. Both + the rotary cos/sin
    cache (task h39rope): DeepSeek YaRN 4,096 x 40 = 163,840 positions x qk_rope_head_dim 64 x
    2 B = 20,971,520 B (0.7.3 rotary_embedding.py DeepseekScalingRotaryEmbedding, bf16)."""
    rope = 163_840 * 64 * 2
    assert _run("0.7.3").weights_bytes == 84_306_226_880 + 808_034_304 + 4_798_297_088 + rope
    assert _run("0.8.0").weights_bytes == 84_306_226_880 + 808_034_304 + rope


def test_log_286_breakdown_blocks() -> None:
    """Log 286's own pool, 21.43 GiB = 23,010,215,690 B, over 16 x 61 x 1,280 B = 1,249,280 B
    a block: 18,418 blocks, as logged (1,152 B rows gave 20,465)."""
    run = parse_file(next(LOGS.glob("286-*.log"))).runs[0]
    rep = calibrate_run(run, LOGS)
    blocks = [c for c in rep.checks if c.basis == "breakdown" and c.quantity == "GPU blocks"]
    assert len(blocks) == 1 and blocks[0].logged == blocks[0].predicted == 18418
