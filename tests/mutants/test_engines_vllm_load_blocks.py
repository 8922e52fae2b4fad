"""Mutation tests of kvplan/engines/vllm_load_blocks.py (task h71mut), by hand from the rules the
module cites: torch's caching allocator under max_split_size_mb 20 (a tensor of 20 MiB or more
alone in a segment rounded up to kRoundLarge, 2 MiB), vLLM's `get_pp_indices`
(distributed/utils.py: n // pp each, one more to the stages before the last for the remainder:
`for i in range(2, remaining + 2): partitions[-i] += 1`) and `maybe_offload_to_cpu` (one
budget per process, parameters moved while the bytes moved are below it); scoped from 0.21.0
(gpu_worker.py:343 in 0.21.0, not in 0.20.0).
"""

from __future__ import annotations

from pathlib import Path

from kvplan.capacity import SizeRequest
from kvplan.engines.vllm_load_blocks import (
    _layer_round_ups,
    _stages,
    round_up,
    scoped,
    slack_bytes,
    slack_how,
)
from kvplan.specs import load_hardware, load_model

MIB = 1_048_576


def _req(model: str, pp: int = 1) -> SizeRequest:
    return SizeRequest(model=load_model(model), gpu=load_hardware("h100"), context_tokens=4096,
                       pp=pp)


def test_scoped_from_0_21() -> None:
    assert (scoped("0.20.2"), scoped("0.21.0"), scoped(None)) == (False, True, True)


def test_round_up() -> None:
    """25 MiB -> 26 MiB: 1 MiB; 20 MiB - 1 B is below the split: 0."""
    assert round_up(25 * MIB) == MIB
    assert round_up(20 * MIB - 1) == 0
    assert round_up(22 * MIB + 1) == 2 * MIB - 1


def test_pipeline_stages_as_get_pp_indices() -> None:
    """10 over 3: 3 each, the remainder 1 to partitions[-2]; 11 over 3: to [-2] and [-3]."""
    assert _stages(10, 3) == [3, 4, 3]
    assert _stages(11, 3) == [4, 4, 3]
    assert _stages(9, 3) == [3, 3, 3]
    assert _stages(5, 1) == [5]
    assert _stages(3, 4) == [1, 1, 1, 0]


def test_layer_round_ups_and_the_offload_budget() -> None:
    """Three layers of one 21 MiB tensor (1 MiB each rounded) and a 5 MiB one (none): 3 MiB.
    A 21 MiB budget moves the first tensor only (21 MiB moved is not below 21 MiB): 2 MiB; a
    budget one byte larger also moves the 5 MiB tensor after it (nothing more to round) and stops
    there: 2 MiB; 26 MiB + 1 moves the second layer's 21 MiB too: 1 MiB. Over 2 stages (4 layers,
    2 a stage) each stage has its own budget: 1 MiB rounded on each."""
    three = ((3, (21 * MIB, 5 * MIB)),)
    assert _layer_round_ups(three, 1, 0) == 3 * MIB
    assert _layer_round_ups(three, 1, 21 * MIB) == 2 * MIB
    assert _layer_round_ups(three, 1, 21 * MIB + 1) == 2 * MIB
    assert _layer_round_ups(three, 1, 26 * MIB + 1) == MIB
    assert _layer_round_ups(((3, (21 * MIB,)),), 1, 21 * MIB) == 2 * MIB
    assert _layer_round_ups(((4, (21 * MIB,)),), 2, 21 * MIB) == 2 * MIB
    # three stages of one layer each walk the layers in order: 1 MiB + 1 MiB + (2 MiB - 1 B)
    order = ((1, (21 * MIB,)), (1, (25 * MIB,)), (1, (22 * MIB + 1,)))
    assert _layer_round_ups(order, 3, 0) == 4 * MIB - 1
    # two layer kinds, flattened in order: one 30 MiB + 1 B layer after two 21 MiB ones
    mixed = ((2, (21 * MIB,)), (1, (30 * MIB + 1,)))
    assert _layer_round_ups(mixed, 1, 0) == 2 * MIB + 2 * MIB - 1
    assert _layer_round_ups(mixed, 1, 42 * MIB) == 2 * MIB - 1


def test_slack_over_stages_is_ceiled() -> None:
    """Qwen2.5-7B bf16 (tests/engines/test_vllm_load_blocks.py: a layer rounds 3.5 MiB, the two
    vocab matrices 0.5 MiB each): PP 3 holds 9, 10 and 9 of its 28 layers; kvplan spreads the
    28 x 3.5 MiB = 102,760,448 B over 3: ceil = 34,253,483, and the vocab's 1 MiB: 349,526."""
    assert slack_bytes(_req("qwen2.5-7b", pp=3), "0.24.0") == 34_253_483 + 349_526
    assert slack_bytes(_req("qwen2.5-7b"), "0.20.0", 4 * 1024**3) == 0


def test_expert_parallelism_lays_out_whole_experts() -> None:
    """Qwen3-Coder-480B-A35B (62 MoE layers, 160 experts, hidden 6,144, moe_intermediate 2,560)
    at TP 3: split experts hold ceil(2,560 / 3) = 854 columns, w13 160 x 1,708 x 6,144 x 2 B =
    3,358,064,640 B (1,601.25 x 2 MiB: 1,572,864 B rounded up) and w2 1,679,032,320 B (800.625 x
    2 MiB: 786,432 B); with EP 3 each rank holds ceil(160 / 3) = 54 whole experts, w13 54 x
    5,120 x 6,144 x 2 = 3,397,386,240 B and w2 1,698,693,120 B, both whole multiples of 2 MiB.
    Everything else is the same at TP 3, so EP saves 62 x 2,359,296 = 146,276,352 B."""
    m = load_model("qwen3-coder-480b-a35b")
    split = SizeRequest(model=m, gpu=load_hardware("h200"), context_tokens=4096, tp=3)
    whole = SizeRequest(model=m, gpu=load_hardware("h200"), context_tokens=4096, tp=3, ep=3)
    assert slack_bytes(split, "0.30.0") - slack_bytes(whole, "0.30.0") == 62 * 2_359_296


def test_slack_words() -> None:
    assert slack_how(_req("qwen2.5-7b"), "0.24.0") == (
        " + 103,809,024 B of torch blocks: the 16-bit dense layout's tensors of 20 MiB or more "
        "rounded up to 2 MiB (vLLM loads under max_split_size_mb 20)")
    assert slack_how(_req("qwen2.5-7b"), "0.20.0") == ""
    # with --cpu-offload-gb 4 the offloaded tensors round nothing: 67,633,152 B
    # (tests/engines/test_vllm_load_blocks.py works it out)
    assert slack_how(_req("qwen2.5-7b"), "0.24.0", 4 * 1024**3) == (
        " + 67,633,152 B of torch blocks: the 16-bit dense layout's tensors of 20 MiB or more "
        "rounded up to 2 MiB (vLLM loads under max_split_size_mb 20)")
    # DeepSeek-V2-Lite (MLA) is not laid out: 4 x 27 + 2 = 110 tensors, 55 a stage at PP 2
    assert slack_how(_req("deepseek-v2-lite", pp=2), "0.30.0") == (
        "; torch's whole blocks not booked (MLA attention: not laid out tensor by tensor): vLLM "
        "loads under max_split_size_mb 20, so up to 2 MiB more a tensor of 20 MiB or more, at "
        "most 115,343,360 B here (2 MiB x 55 tensors)")
    # laid out and nothing rounds (Llama-3.1-8B AWQ, tests/engines/test_vllm_load_blocks.py:
    # 0 B): no words
    aligned = str(Path(__file__).parents[1] / "assets" / "model_specs"
                  / "llama-3.1-8b-instruct-awq-int4.yaml")
    assert slack_bytes(_req(aligned), "0.28.0") == 0
    assert slack_how(_req(aligned), "0.28.0") == ""
