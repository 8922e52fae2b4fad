"""Shapes that do not divide: KV heads per rank and int4 scale groups are rounded up."""

from __future__ import annotations

import pytest

from kvplan.capacity import SizeRequest, size
from kvplan.capacity.kv import kv_heads_per_gpu
from kvplan.specs import load_hardware, load_model
from kvplan.specs.schema import ModelSpec
from kvplan.units import DType


def test_llama3_8b_tp16_holds_one_replicated_head_per_rank(cli):
    # 8 KV heads over 16 ranks: each rank keeps one (replicated) head:
    # 32 layers x 2 (K, V) x 1 head x 128 x 2 B = 16,384 B per token per rank
    doc = cli("size", "llama-3-8b", "--gpu", "h100", "--tp", "16", "--nodes", "2")
    assert doc["kv_bytes_per_token"] == 16_384
    # one 8,192-token sequence: 8,192 x 16,384 = 134,217,728 B
    assert doc["kv_bytes_per_sequence"] == 134_217_728


@pytest.mark.parametrize(("heads", "tp", "per_rank"), [
    (10, 4, 3),  # ceil(2.5): one rank carries the odd heads (vLLM refuses this split)
    (8, 3, 3),  # ceil(2.67)
    (8, 16, 1),  # replicated
    (2, 4, 1),
    (32, 8, 4),
])
def test_kv_heads_per_rank_round_up(heads: int, tp: int, per_rank: int):
    assert kv_heads_per_gpu(heads, tp) == per_rank


def test_phi3_mini_int4_carries_a_scale_per_started_group(cli):
    # phi-3-mini: 32 layers, 32 KV heads, head_dim 96. int4: 96 x 4 = 384 bits per vector plus
    # ceil(96 / 64) = 2 fp16 scales = 32 bits -> 416 bits; K and V of 32 heads:
    # 32 x 2 x 416 = 26,624 bits = 3,328 B per layer x 32 layers = 106,496 B per token
    # (scales rounded down, 1 per vector, would give 102,400)
    doc = cli("size", "phi-3-mini-4k", "--gpu", "h100", "--kv-dtype", "int4")
    assert doc["kv_bytes_per_token"] == 106_496


def _head_dim_80() -> ModelSpec:
    """A test spec of our own: Llama-3-8B's shape with head_dim 80 (not a multiple of 64)."""
    llama = load_model("llama-3-8b")
    return llama.model_copy(update={
        "name": "llama-head-dim-80-test",
        "attention": llama.attention.model_copy(update={"head_dim": 80}),
    })


@pytest.mark.parametrize(("group", "per_token"), [
    # 80 x 4 = 320 bits + ceil(80/64) = 2 scales x 16 = 352 bits per vector;
    # 8 heads x 2 x 352 = 5,632 bits = 704 B per layer x 32 = 22,528 B
    (64, 22_528),
    # group 32: ceil(80/32) = 3 scales: 368 bits; 8 x 2 x 368 / 8 = 736 B x 32 = 23,552 B
    (32, 23_552),
    # group 80: exactly 1 scale: 336 bits; 8 x 2 x 336 / 8 = 672 B x 32 = 21,504 B
    (80, 21_504),
])
def test_int4_scale_groups_round_up_for_head_dim_80(group: int, per_token: int):
    req = SizeRequest(model=_head_dim_80(), gpu=load_hardware("h100"), context_tokens=4096,
                      kv_dtype=DType.int4, kv_group_size=group)
    assert size(req).kv_bytes_per_token == per_token
