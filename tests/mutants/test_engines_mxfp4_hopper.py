"""Mutation tests of kvplan/engines/mxfp4_hopper.py (task h80mut), by hand from the layouts the
module reads in the vLLM wheels (0.12: triton_kernels vendored, vllm#28788; 0.17-0.21 the
64 pre-pad; 0.25 the loaded scales freed; 0.26 scales' K padded to 4, "Patches #47303") and
gpt-oss-20b's config.json (hidden 2,880, intermediate 2,880, 24 layers x 32 experts,
params_total 20,914,757,184; one expert 3 x 2,880 x 2,880 + 2 x 2,880 + 2,880 = 24,891,840
parameters, 13,300,480 B in 0.26's layout at TP 1: tests/engines/test_mxfp4_hopper.py)."""

from __future__ import annotations

from kvplan.capacity import SizeRequest
from kvplan.engines.mxfp4_hopper import (
    LAYOUTS,
    expert_bytes,
    triton_hopper_layout,
    triton_hopper_weights_bytes,
)
from kvplan.specs import load_hardware, load_model

EXPERT_PARAMS = 24_891_840
K4_EXPERT_BYTES = 13_300_480


def _req(**model: object) -> SizeRequest:
    spec = load_model("gpt-oss-20b")
    if "first_dense_layers" in model:
        assert spec.moe is not None
        model = {"moe": spec.moe.model_copy(update=model)}
    return SizeRequest(model=spec.model_copy(update=model), gpu=load_hardware("h100"),
                       context_tokens=4096, tp=1)


def test_each_layout_from_its_first_release() -> None:
    """A release written with two numbers is the first of its line: 0.12 Triton, 0.17 the
    64 pre-pad, 0.22 back, 0.25 the loaded scales freed, 0.26 K padded to 4; 0.11.2 Marlin."""
    assert triton_hopper_layout((0, 11, 2)) is None
    assert triton_hopper_layout((0, 12)) == LAYOUTS["triton-sm90"]
    assert triton_hopper_layout((0, 17)) == LAYOUTS["triton-sm90-pad64"]
    assert triton_hopper_layout((0, 21, 9)) == LAYOUTS["triton-sm90-pad64"]
    assert triton_hopper_layout((0, 22)) == LAYOUTS["triton-sm90"]
    assert triton_hopper_layout((0, 25)) == LAYOUTS["triton-sm90-scales-freed"]
    assert triton_hopper_layout((0, 26)) == LAYOUTS["triton-sm90-k4"]


def test_dense_first_layers_hold_no_experts() -> None:
    """With one dense first layer: 23 x 32 = 736 experts x 13,300,480 B = 9,789,153,280 B, and
    the rest 20,914,757,184 - 736 x 24,891,840 = 2,594,362,944 params x 2 B = 5,188,725,888 B:
    14,977,879,168 B."""
    layout = LAYOUTS["triton-sm90-k4"]
    assert 736 * K4_EXPERT_BYTES == 9_789_153_280
    assert (20_914_757_184 - 736 * EXPERT_PARAMS) * 2 == 5_188_725_888
    got = triton_hopper_weights_bytes(_req(first_dense_layers=1), layout)
    assert got == 14_977_879_168
    assert type(got) is int  # whole bytes: floor and ceiling divisions only


def test_a_model_of_experts_only_has_no_rest() -> None:
    """params_total = the experts' 768 x 24,891,840 = 19,116,933,120: the rest is 0 B, and the
    weights are the experts alone, 768 x 13,300,480 = 10,214,768,640 B."""
    got = triton_hopper_weights_bytes(_req(params_total=768 * EXPERT_PARAMS),
                                      LAYOUTS["triton-sm90-k4"])
    assert got == 10_214_768_640
    assert type(got) is int
    assert type(expert_bytes(2880, 2880, LAYOUTS["triton-sm90-k4"])) is int
