"""SizeRequest.check: each bound exactly, with its message; stage shapes field by field."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from kvplan.capacity import SizeRequest, size
from kvplan.capacity.kv import Precision, layer_bytes_per_token, stage_caches, state_bytes_per_layer
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.specs.schema import LayerKind
from kvplan.units import GIB, DType

BASE = SizeRequest(model=load_model("llama-3-8b"), gpu=load_hardware("h100"), context_tokens=8192)


@pytest.mark.parametrize(("change", "message"), [
    ({"context_tokens": 0}, "context must be a positive integer, got 0"),
    ({"block_size_tokens": 0}, "block size must be a positive integer, got 0"),
    ({"kv_group_size": 0}, "kv group size must be a positive integer, got 0"),
    ({"tp": 0}, "tp must be a positive integer, got 0"),
    ({"pp": 0}, "pp must be a positive integer, got 0"),
    ({"memory_utilization": Fraction(0)}, "memory utilization must be in (0, 1], got 0.0"),
    ({"memory_utilization": Fraction(11, 10)}, "memory utilization must be in (0, 1], got 1.1"),
    ({"reserve_bytes": -1}, "reserve must not be negative"),
    ({"kv_budget_bytes": 0}, "kv budget must be positive"),
    ({"avg_context_tokens": 0}, "avg context must be positive, got 0"),
    ({"avg_context_tokens": 8193}, "avg context 8,193 exceeds the maximum context 8,192"),
    ({"shared_prefix_tokens": -1}, "shared prefix tokens must not be negative"),
    ({"shared_prefix_tokens": 8193},
     "shared prefix 8,193 tokens is longer than the 8,192 tokens a sequence holds"),
    ({"pp": 33}, "pp 33 exceeds the model's 32 layers"),
    ({"context_tokens": 8193}, "context 8,193 tokens exceeds llama-3-8b's max_context_tokens 8,192; "
                               "use --context 8192 or less"),
])
def test_each_bad_setting_is_refused_with_its_sentence(change: dict, message: str):
    with pytest.raises(InputError) as err:
        replace(BASE, **change).check()
    assert str(err.value) == message


@pytest.mark.parametrize("change", [
    {"memory_utilization": Fraction(1)}, {"reserve_bytes": 0}, {"kv_budget_bytes": 1},
    {"avg_context_tokens": 1}, {"avg_context_tokens": 8192}, {"shared_prefix_tokens": 8192},
    {"pp": 32}, {"context_tokens": 1}, {"block_size_tokens": 1}, {"kv_group_size": 1},
])
def test_the_bounds_themselves_are_accepted(change: dict):
    replace(BASE, **change).check()


def test_stage_shapes_field_by_field():
    # Qwen3-Next at PP 2: 24 layers a stage, pattern [linear x 3, full]: 6 full, 18 linear;
    # full layer fp16 2 heads x 512 x 2 B = 2,048 B; state 548,864 x 2 B = 1,097,728 B a layer
    stages = stage_caches(load_model("qwen3-next-80b-a3b"), Precision(DType.fp16), 1, 2)
    for s in stages:
        assert (s.layers, s.full_layers, s.sliding_layers, s.linear_layers) == (24, 6, 0, 18)
        assert s.full_bytes_per_token == 6 * 2_048 and s.sliding_bytes_per_token == 0
        assert s.state_bytes_per_sequence == 18 * 1_097_728
    # Mistral-7B: every layer slides; 8 heads x 256 x 2 B = 4,096 B a layer
    (m,) = stage_caches(load_model("mistral-7b-v0.1"), Precision(DType.fp16), 1, 1)
    assert (m.layers, m.full_layers, m.sliding_layers, m.linear_layers) == (32, 0, 32, 0)
    assert (m.full_bytes_per_token, m.sliding_bytes_per_token) == (0, 32 * 4_096)


def test_linear_layers_store_no_tokens_and_attention_models_no_state():
    llama = load_model("llama-3-8b")
    assert layer_bytes_per_token(llama, LayerKind.linear, Precision(DType.fp16), 1) == 0
    assert state_bytes_per_layer(llama, 1) == 0


def test_one_user_fits():
    # a stated 1 GiB pool holds exactly one 8,192-token sequence (8,192 x 131,072 = 1 GiB)
    r = size(replace(BASE, kv_budget_bytes=GIB))
    assert (r.users_per_replica, r.fits) == (1, True)


def test_paged_sequence_rounds_up_to_whole_blocks():
    # 2,001 tokens: 126 blocks = 2,016 tokens x 131,072 B = 264,241,152 (reserved: 2,001 x ...)
    r = size(replace(BASE, avg_context_tokens=2001))
    assert r.kv_bytes_per_sequence_paged == r.kv_bytes_per_sequence == 264_241_152


def test_weights_fit_but_not_the_reserve():
    # 70B with fp8 weights: 70,553,706,496 B; usable 76,540,929,638 leaves 5,987,223,142 B, less
    # than a 10 GiB reserve: no pool; the breakdown keeps the whole reserve, as the reason counts
    # it (task h101left; until then what was left, 5,987,223,142 B), and unallocated is what the
    # GPU has beyond: 85,045,477,376 - 70,553,706,496 - 10,737,418,240 = 3,754,352,640 B
    r = size(replace(BASE, model=load_model("llama-3.1-70b"), weight_dtype=DType.fp8,
                     reserve_bytes=10 * GIB))
    assert r.users_per_replica == 0 and r.kv_budget_bytes == 0
    assert r.weights_bytes == 70_553_706_496 and r.usable_bytes == 76_540_929_638
    assert r.breakdown.reserve_bytes == 10_737_418_240
    assert r.breakdown.unallocated_bytes == 3_754_352_640
    assert r.reason is not None and "the reserve 10 GiB" in r.reason
