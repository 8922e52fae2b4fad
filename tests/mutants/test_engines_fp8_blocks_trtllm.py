"""Mutation tests of kvplan/engines/fp8_blocks_trtllm.py (task mutnew): the whole refusal (its
said, at, every failing shard with its words) for TensorRT-LLM's PyTorch backend, the release
boundary (1.0, the PyTorch backend the default) and TP 1.

Shapes from config.json: Qwen3-235B-A22B-FP8 moe_intermediate_size 1,536 (1,536 / 8 = 192 = 1.5
blocks of 128: ceil = 2 padded blocks a rank); DeepSeek-V2-Lite intermediate_size 10,944 (85.5
blocks), moe_intermediate_size 1,408 (11 blocks), taken as a block-fp8 checkpoint of 128 x 128
blocks (no shipped block-fp8 spec has a dense width that is not whole blocks at TP 1)."""

from __future__ import annotations

import pytest

from kvplan.engines.fp8_blocks import BlockRefusal, Shard, block_fp8_refusal
from kvplan.engines.fp8_blocks_trtllm import AT, PYTORCH_FROM, TRTLLM_BLOCK
from kvplan.specs import load_model

QWEN = load_model("qwen3-235b-a22b-fp8")
LITE = load_model("deepseek-v2-lite").model_copy({"weight_block_size": [128, 128]})
AT_WORDS = ("tensorrt_llm/_torch/modules/linear.py FP8BlockScalesLinearMethod.create_weights and "
            "load_weight_shard, fused_moe DeepSeekFP8BlockScalesFusedMoEMethod.create_weights and "
            "load_expert_all_weight_scale_fp8_block_scale, as stored at NVIDIA/TensorRT-LLM@00bbf71e")


def _words(layer: str, size: int, blocks: int) -> str:
    return (f"{layer}: a rank's scale tensor holds ceil({size} / 128) = {blocks} padded block(s), "
            "while load_weight_shard gives the last ranks fewer scale rows (ceil(blocks / TP) a "
            "rank), which torch's copy_ refuses")


def test_the_constants() -> None:
    assert (TRTLLM_BLOCK, PYTORCH_FROM, AT) == (128, (1, 0), AT_WORDS)


@pytest.mark.parametrize(("version", "said"), [
    ("1.2.0", "TensorRT-LLM 1.2.0 (PyTorch backend)"), ("1.0", "TensorRT-LLM 1.0 (PyTorch backend)"),
    (None, "TensorRT-LLM (PyTorch backend)")])
def test_qwen3_235b_at_tp8_the_whole_refusal(version: str | None, said: str) -> None:
    up, down = "each expert's gate/up (1,536 / 8)", "each expert's down (1,536 / 8)"
    assert block_fp8_refusal("trtllm", version, QWEN, 8) == BlockRefusal(
        _words(up, 192, 2),
        (Shard(up, 192, "block_n", 128, _words(up, 192, 2)),
         Shard(down, 192, "block_k", 128, _words(down, 192, 2))), said, AT_WORDS)


@pytest.mark.parametrize("version", ["0.21.0", "0.20", "0.9.9"])
def test_before_1_0_a_tensorrt_engine_is_not_read(version: str) -> None:
    assert block_fp8_refusal("trtllm", version, QWEN, 8) is None


def test_at_tp_1_nothing_is_split() -> None:
    # 10,944 is not whole blocks, but at TP 1 the scale tensor and the checkpoint's hold the
    # same ceil(10,944 / 128) = 86 rows
    assert block_fp8_refusal("trtllm", "1.2.0", LITE, 1) is None
    assert block_fp8_refusal("trtllm", None, LITE, 1) is None


def test_deepseek_v2_lite_at_tp2_every_failing_shard() -> None:
    # dense 10,944 / 2 = 5,472 = 42.75 blocks: ceil 43 (gate and up, then down_proj); the
    # experts 1,408 / 2 = 704 = 5.5 blocks: ceil 6; the two shared experts 2,816 / 2 = 1,408 =
    # 11 blocks load; MLA attention at 8 heads keeps whole blocks
    found = block_fp8_refusal("trtllm", "1.2.0", LITE, 2)
    gate = "dense MLP gate_up_proj (10,944 / tp 2)"
    assert found is not None and [(s.layer, s.size, s.of, s.block, s.message)
                                  for s in found.shards] == [
        (gate, 5472, "block_n", 128, _words(gate, 5472, 43)),
        (gate, 5472, "block_n", 128, _words(gate, 5472, 43)),
        ("dense MLP down_proj (10,944 / tp 2)", 5472, "block_k", 128,
         _words("dense MLP down_proj (10,944 / tp 2)", 5472, 43)),
        ("each expert's gate/up (1,408 / 2)", 704, "block_n", 128,
         _words("each expert's gate/up (1,408 / 2)", 704, 6)),
        ("each expert's down (1,408 / 2)", 704, "block_k", 128,
         _words("each expert's down (1,408 / 2)", 704, 6))]
    assert found.message == _words(gate, 5472, 43)


def test_an_expert_left_whole_by_expert_parallelism_loads_even_off_the_blocks() -> None:
    # gpt-oss-20b's shapes (config.json: 64 heads, 8 KV heads x 64, moe_intermediate_size
    # 2,880 = 22.5 blocks) as a block-fp8 checkpoint at TP 2: attention 32 x 64 = 2,048 and
    # 4 x 64 = 256 (whole blocks); with EP 2 the MoE TP is 1 and each expert keeps its own
    # ceil(2,880 / 128) = 23 scale rows: it loads. Without EP each rank gets 1,440 = 11.25 blocks
    oss = load_model("gpt-oss-20b").model_copy({"weight_block_size": [128, 128]})
    assert block_fp8_refusal("trtllm", "1.2.0", oss, 2, 2) is None
    found = block_fp8_refusal("trtllm", "1.2.0", oss, 2, None)
    assert found is not None and [(s.layer, s.size) for s in found.shards] == [
        ("each expert's gate/up (2,880 / 2)", 1440), ("each expert's down (2,880 / 2)", 1440)]
    assert found.message == _words("each expert's gate/up (2,880 / 2)", 1440, 12)
