"""Mamba2 state (attention.linear.mamba2): its split over tensor-parallel ranks as vLLM's
mamba2_state_shape makes it, the bytes kvplan charges per sequence, and the lines that say so."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from kvplan.capacity import SizeRequest, size
from kvplan.capacity.kv import (
    Precision,
    mamba2_groups_per_gpu,
    stage_caches,
    state_bytes_per_layer,
    state_elements_per_gpu,
)
from kvplan.engines.vllm_hybrid import state_formula, state_page_bytes
from kvplan.specs import load_hardware, load_model
from kvplan.specs.schema import LinearState, Mamba2State, ModelSpec
from kvplan.units import DType


def _hybrid(groups: int = 1, weight: str = "bf16", **mamba: Any) -> ModelSpec:
    """8 layers [linear, linear, linear, full] x 2: 6 Mamba2 layers of 16 heads x 8, d_state 4."""
    shape = {"n_heads": 16, "head_dim": 8, "d_state": 4, "n_groups": groups, "conv_kernel": 4,
             **mamba}
    total = (shape["conv_kernel"] - 1) * (shape["n_heads"] * shape["head_dim"]
                                          + 2 * shape["n_groups"] * shape["d_state"]) \
        + shape["n_heads"] * shape["head_dim"] * shape["d_state"]
    return ModelSpec.model_validate({
        "name": "hybrid-test", "hf_id": "test/hybrid", "source": "a test-only hybrid spec",
        "model_type": "test", "params_total": 1_000_000, "num_layers": 8, "hidden_size": 64,
        "num_attention_heads": 4, "vocab_size": 1000, "max_context_tokens": 4096,
        "weight_dtype": weight,
        "attention": {"num_kv_heads": 2, "head_dim": 16,
                      "layer_pattern": ["linear", "linear", "linear", "full"],
                      "linear": {"state_elements_per_layer": total, "formula": "test",
                                 "mamba2": shape}},
    })


@pytest.mark.parametrize(("groups", "tp", "expected"), [
    (1, 1, 1), (1, 2, 1), (1, 8, 1), (2, 1, 2), (2, 2, 1), (2, 4, 1), (4, 2, 2), (8, 2, 4),
    (6, 4, 1),  # 6 % 4 != 0: vLLM raises the groups to tp (4), one a rank
])
def test_groups_per_gpu(groups: int, tp: int, expected: int):
    assert mamba2_groups_per_gpu(groups, tp) == expected


@pytest.mark.parametrize(("groups", "tp", "elements"), [
    # conv 3 x (128 / tp + 2 x groups per rank x 4) + SSM 16 / tp x 8 x 4
    (1, 1, 3 * (128 + 8) + 512),  # 920
    (1, 2, 3 * (64 + 8) + 256),  # 472: the group on both ranks
    (1, 4, 3 * (32 + 8) + 128),  # 248
    (2, 2, 3 * (64 + 8) + 256),  # 472: one group each
    (4, 2, 3 * (64 + 16) + 256),  # 496: two groups each
    (1, 3, 3 * (43 + 8) + 6 * 32),  # 345: heads rounded up (16 / 3 -> 6, 128 / 3 -> 43)
])
def test_state_elements_per_gpu(groups: int, tp: int, elements: int):
    model = _hybrid(groups)
    linear = model.attention.linear
    assert linear is not None
    assert state_elements_per_gpu(linear, tp) == elements


def test_without_mamba2_the_state_is_divided_by_tp():
    linear = LinearState(state_elements_per_layer=1001, formula="x")
    assert [state_elements_per_gpu(linear, tp) for tp in (1, 2, 3, 4)] == [1001, 501, 334, 251]


def test_mamba2_conv_and_ssm_elements():
    shape = Mamba2State(n_heads=16, head_dim=8, d_state=4, n_groups=3, conv_kernel=2)
    assert (shape.conv_elements, shape.ssm_elements) == (1 * (128 + 24), 512)


@pytest.mark.parametrize(("weight", "tp", "expected"), [
    ("bf16", 1, 920 * 2), ("bf16", 2, 472 * 2), ("fp8", 4, 248), ("fp32", 1, 920 * 4),
    ("int4", 3, (345 * 4 + 7) // 8),  # 173: rounded up to whole bytes
])
def test_state_bytes_in_the_weight_dtype(weight: str, tp: int, expected: int):
    assert state_bytes_per_layer(_hybrid(weight=weight), tp) == expected


def test_stages_and_size_report_the_state_of_the_busiest_stage():
    model = _hybrid()
    stages = stage_caches(model, Precision(DType.bf16), 2, 2)
    # PP 2: layers 0-3 and 4-7, 3 Mamba2 layers each; TP 2: 472 x 2 B a layer
    assert [s.state_bytes_per_sequence for s in stages] == [3 * 944, 3 * 944]
    req = SizeRequest(model=model, gpu=load_hardware("h100"), context_tokens=4096, tp=2, pp=2)
    result = size(req)
    assert result.state_bytes_per_sequence == 3 * 944 == 2_832
    assert ("fixed state per sequence, whatever its length: 3 linear/Mamba2 layer(s) x 944 B "
            "(bf16, split over TP 2) = 2,832 B on the busiest GPU") in result.assumptions
    one = size(replace(req, tp=1, pp=1))
    assert one.state_bytes_per_sequence == 6 * 1_840
    assert any(a.endswith("= 11,040 B on the busiest GPU") for a in one.assumptions)


def test_a_model_without_linear_layers_reports_no_state():
    result = size(SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("h100"),
                              context_tokens=8192))
    assert result.state_bytes_per_sequence == 0
    assert not any("fixed state" in a for a in result.assumptions)


def test_vllm_state_page_and_its_formula():
    model = _hybrid(groups=2)
    req = SizeRequest(model=model, gpu=load_hardware("h100"), context_tokens=4096, tp=2)
    linear = model.attention.linear
    assert linear is not None
    # conv 3 x (64 + 2 x 1 x 4) + SSM 8 x 8 x 4 = 216 + 256 = 472 elements x 2 B
    assert state_page_bytes(req) == 944
    assert state_formula(req, linear) == (
        "Mamba2 on one GPU: conv 3 x (128 / TP 2 + 2 x 1 group(s) x 4) + SSM 16 / TP 2 x 8 x 4 = "
        "472 elements x 2 B (model dtype)")
    assert state_page_bytes(replace(req, kv_dtype=DType.fp32)) == 1_888
    gdn = load_model("qwen3-next-80b-a3b")
    gdn_req = replace(req, model=gdn)
    gdn_linear = gdn.attention.linear
    assert gdn_linear is not None
    assert state_formula(gdn_req, gdn_linear) == (
        "548,864 state elements / TP 2 x 2 B (model dtype)")
