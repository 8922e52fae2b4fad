"""TensorRT-LLM's PyTorch backend and block-fp8 checkpoints at a TP that splits a 128-wide block
(task h100vllmhyb, kvplan.engines.fp8_blocks_trtllm): no start-up check, a scale tensor padded
to ceil(shard / 128) blocks, and load_weight_shard's ceil(blocks / TP) slices, so the last ranks
load fewer scale rows than their parameter holds and torch refuses the copy. Figures worked by
hand from the config fixtures (tests/assets/hf_configs/deepseek-v3.json,
qwen3-235b-a22b-fp8.json): DeepSeek-V3 intermediate_size 18,432 (3 dense layers),
moe_intermediate_size 2,048, one shared expert, 128 heads (MLA: q 192, kv_b 256, o 128 a head);
Qwen3-235B-A22B moe_intermediate_size 1,536, 64 heads, 4 KV heads, head_dim 128."""

from __future__ import annotations

import pytest

from kvplan.engines.fp8_blocks import block_fp8_reason, block_fp8_refusal
from kvplan.specs import load_model


def _failing(model: str, tp: int, ep: int | None = None,
             version: str | None = "1.2.0") -> list[tuple[int, int]] | None:
    found = block_fp8_refusal("trtllm", version, load_model(model), tp, ep)
    return None if found is None else [(s.size, s.size % 128) for s in found.shards]


@pytest.mark.parametrize("tp", [8, 16])
def test_deepseek_v3_loads_at_tp_8_and_16(tp: int) -> None:
    # dense 18,432 / 16 = 1,152 = 9 x 128; experts 2,048 / 16 = 128; MLA 8 heads x 192 = 1,536
    assert _failing("deepseek-v3", tp) is None


def test_deepseek_v3_stops_at_tp_32() -> None:
    # dense 18,432 / 32 = 576 = 4.5 blocks (gate and up, then down_proj), experts and the
    # shared expert 2,048 / 32 = 64; MLA keeps whole blocks (4 heads x 192 = 768, x 256, x 128)
    assert _failing("deepseek-v3", 32) == [(576, 64)] * 3 + [(64, 64)] * 5
    why = block_fp8_reason("trtllm", "1.2.0", load_model("deepseek-v3"), 32)
    assert why is not None and "dense MLP gate_up_proj (18,432 / tp 32)" in why
    assert "ceil(576 / 128) = 5 padded block(s)" in why and "load_weight_shard" in why


@pytest.mark.parametrize(("tp", "per"), [(8, 192), (16, 96), (32, 48)])
def test_qwen3_235b_experts_split_a_block(tp: int, per: int) -> None:
    # 1,536 / TP a rank: 192, 96, 48, none a multiple of 128 (attention keeps whole blocks:
    # 64 / TP heads x 128, one KV head of 128 once TP exceeds the 4 KV heads)
    assert per * tp == 1536
    assert _failing("qwen3-235b-a22b-fp8", tp) == [(per, per % 128)] * 2


def test_expert_parallelism_and_tp_1_and_releases() -> None:
    assert _failing("qwen3-235b-a22b-fp8", 8, ep=8) is None  # MoE TP 1: experts whole
    # EP 2 at TP 8: MoE TP 4, 1,536 / 4 = 384 = 3 blocks: loads
    assert _failing("qwen3-235b-a22b-fp8", 8, ep=2) is None
    assert _failing("qwen3-30b-a3b-fp8", 1) is None  # nothing is split at TP 1
    assert _failing("qwen3-235b-a22b-fp8", 8, version="0.21.0") is None  # TensorRT engine
    assert _failing("qwen3-235b-a22b-fp8", 8, version=None) is not None  # the newest: 1.x
