"""Hand-computed decode speed, SLO-bound batch and TTFT for Llama-3-8B on an H100."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvplan.capacity import SizeRequest
from kvplan.specs import load_hardware, load_model
from kvplan.traffic import Traffic, decode_step_time_s, plan_traffic, slo_batch, ttft_s
from kvplan.traffic.plan import kv_read_bytes
from kvplan.units import GIB

# The H100 SXM datasheet figures, pinned here so that catalog edits cannot move the test.
H100 = load_hardware("h100").model_copy(
    update={
        "memory_bandwidth_bytes_per_s": 3_350_000_000_000,
        "bf16_dense_flops": 989_000_000_000_000,
    }
)
LLAMA = load_model("llama-3-8b")
WEIGHTS = 16_060_522_496  # 8,030,261,248 params x 2 bytes (bf16)
KV_2000 = 2000 * 131_072  # 262,144,000 bytes read per sequence per step


def test_inputs_are_what_the_hand_calculation_uses():
    assert LLAMA.params_total * 2 == WEIGHTS
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, avg_context_tokens=2000)
    assert kv_read_bytes(req, 2000) == KV_2000 == 262_144_000


def test_step_time_at_245_users():
    # (16,060,522,496 + 245 x 262,144,000) B / 3.35 TB/s = 80,285,802,496 / 3.35e12 s
    step = decode_step_time_s(WEIGHTS, KV_2000, 245, 3_350_000_000_000)
    assert step == Fraction(80_285_802_496, 3_350_000_000_000)
    assert float(step) == pytest.approx(0.0239659112, rel=1e-9)
    assert float(1 / step) == pytest.approx(41.72593, rel=1e-6)  # tokens/s per user


def test_efficiency_scales_the_step():
    full = decode_step_time_s(WEIGHTS, KV_2000, 245, 3_350_000_000_000)
    eighty = decode_step_time_s(WEIGHTS, KV_2000, 245, 3_350_000_000_000, Fraction(4, 5))
    assert eighty == full * Fraction(5, 4)


def test_slo_bound_batch_is_194_at_50_tokens_per_s():
    # 3.35e12 / 50 = 67,000,000,000 B per step; minus weights 50,939,477,504 B of KV room;
    # / 262,144,000 = 194.3 -> 194 sequences.
    assert slo_batch(WEIGHTS, KV_2000, 3_350_000_000_000, Fraction(50)) == 194
    assert decode_step_time_s(WEIGHTS, KV_2000, 194, 3_350_000_000_000) <= Fraction(1, 50)
    assert decode_step_time_s(WEIGHTS, KV_2000, 195, 3_350_000_000_000) > Fraction(1, 50)


def test_slo_that_even_the_weights_miss():
    # weights alone take 4.8 ms: 250 tokens/s per user is out of reach at any batch
    assert slo_batch(WEIGHTS, KV_2000, 3_350_000_000_000, Fraction(250)) == 0


def test_ttft_for_2000_prompt_tokens():
    # 2 x 8,030,261,248 x 2,000 FLOPs / 989 TFLOP/s = 32.48 ms
    t = ttft_s(LLAMA.params_total, 2000, 989_000_000_000_000)
    assert t == Fraction(2 * 8_030_261_248 * 2000, 989_000_000_000_000)
    assert float(t) == pytest.approx(0.03247831, rel=1e-6)
    assert ttft_s(LLAMA.params_total, 2000, 989_000_000_000_000, tp=2) == t / 2


def chatbot(**kw: object) -> Traffic:
    return Traffic(peak_users=20_000, **kw)  # type: ignore[arg-type]


def test_plan_memory_binds_without_an_slo():
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, avg_context_tokens=2000,
                      kv_budget_bytes=60 * GIB)
    p = plan_traffic(req, chatbot())
    assert p.planned_users_per_replica == 245
    assert p.binding_constraint == "memory"
    assert p.gpus_needed == 82
    assert p.step_time_s == Fraction(80_285_802_496, 3_350_000_000_000)


def test_plan_slo_binds_before_memory():
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, avg_context_tokens=2000,
                      kv_budget_bytes=60 * GIB)
    p = plan_traffic(req, chatbot(min_tokens_per_s_per_user=Fraction(50)))
    assert p.users_per_replica_mean == 245
    assert p.slo_users_per_replica == 194
    assert p.planned_users_per_replica == 194
    assert p.binding_constraint == "slo"
    assert p.gpus_needed == 104  # ceil(20,000 / 194)
    assert p.decode_tokens_per_s_per_user is not None
    assert p.decode_tokens_per_s_per_user >= 50


def test_plan_slo_looser_than_memory_leaves_memory_binding():
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, avg_context_tokens=2000,
                      kv_budget_bytes=60 * GIB)
    p = plan_traffic(req, chatbot(min_tokens_per_s_per_user=Fraction(40)))
    # 3.35e12 / 40 = 83,750,000,000 B; minus weights = 67,689,477,504; / 262,144,000 = 258.2
    assert p.slo_users_per_replica == 258
    assert p.binding_constraint == "memory"


def test_plan_with_an_unreachable_slo_says_why():
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, avg_context_tokens=2000,
                      kv_budget_bytes=60 * GIB)
    p = plan_traffic(req, chatbot(min_tokens_per_s_per_user=Fraction(500)))
    assert p.planned_users_per_replica == 0
    assert p.gpus_needed is None and p.step_time_s is None
    # one user: 3.35e12 / (16,060,522,496 + 262,144,000) B = 205.2 tokens/s
    assert p.reason is not None and "even one user gets 205.2 tokens/s" in p.reason


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 400), st.integers(1, 400))
def test_faster_target_never_allows_a_bigger_batch(a: int, b: int):
    lo, hi = sorted((a, b))
    bw = 3_350_000_000_000
    assert slo_batch(WEIGHTS, KV_2000, bw, Fraction(hi)) <= slo_batch(WEIGHTS, KV_2000, bw,
                                                                      Fraction(lo))


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2000))
def test_slo_batch_is_the_largest_that_meets_the_target(target: int):
    slo = Fraction(target + 1)
    bw = 3_350_000_000_000
    b = slo_batch(WEIGHTS, KV_2000, bw, slo)
    assert decode_step_time_s(WEIGHTS, KV_2000, b + 1, bw) > 1 / slo
    if b:
        assert decode_step_time_s(WEIGHTS, KV_2000, b, bw) <= 1 / slo
