"""plan_traffic and the cost search field by field, against hand arithmetic.

Llama-3-8B on an H100 (see test_verdict.py): 131,072 B a token, 1 GiB an 8,192-token sequence;
16,060,522,496 B of weights; pool 58,332,923,494 B -> 54 sequences. The H100: 3.35e12 B/s,
989e12 BF16 FLOP/s, $3.78/h.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from kvplan.capacity import SizeRequest, size
from kvplan.capacity.kv import Allocation
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.traffic.lengths import Empirical, LogNormal
from kvplan.traffic.plan import Traffic, kv_read_bytes, plan_traffic, sequence_lattice
from kvplan.traffic.risk import RiskEstimate
from kvplan.traffic.search import candidates, search
from kvplan.units import GIB, MIB, DType

LLAMA, H100, A100 = load_model("llama-3-8b"), load_hardware("h100"), load_hardware("a100-80gb")
WEIGHTS = 16_060_522_496
BASE = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192)


def test_an_slo_bound_plan_field_by_field():
    # peak 100 + 10%: 110 required. Decode at 50 tokens/s: floor((3.35e12 / 50 - WEIGHTS) /
    # 1 GiB) = 47 < 54 in memory: 47 a replica, ceil(110 / 47) = 3 replicas, $2 x 3 = $6/h
    t = Traffic(peak_users=100, headroom=Fraction(1, 10), min_tokens_per_s_per_user=Fraction(50),
                price_per_hour_usd=2.0, prompt_tokens=1000)
    p = plan_traffic(BASE, t)
    assert (p.users_per_replica_mean, p.users_per_replica_worst_case) == (54, 54)
    assert p.at_risk == RiskEstimate(54, 0.0, "point-mass")
    assert (p.slo_users_per_replica, p.planned_users_per_replica, p.binding_constraint) == (
        47, 47, "slo")
    assert (p.replicas, p.gpus_needed, p.cost_per_hour_usd) == (3, 3, 6.0)
    assert p.fleet.required_users == 110 and p.mean_tokens == 8192.0
    assert (p.kv_read_bytes_per_sequence, p.weights_read_bytes) == (GIB, WEIGHTS)
    # a step reads the weights and 47 caches: (WEIGHTS + 47 GiB) / 3.35e12 s
    assert p.step_time_s == Fraction(WEIGHTS + 47 * GIB, 3_350_000_000_000)
    # TTFT: 2 x 8,030,261,248 x 1,000 / 989e12
    assert p.ttft_s == Fraction(2 * 8_030_261_248 * 1000, 989 * 10**12)
    assert p.prompt_tokens == 1000
    # the overflow risk at the 47 planned (not at the 54 memory holds)
    assert p.overflow_at_plan == RiskEstimate(47, 0.0, "point-mass")
    assert p.reason is None and p.share_above_context == 0.0
    assert p.assumptions == (
        "lengths: every conversation 8,192 tokens (mean only, no spread)",
        "overflow risk: P(total paged cache of the open conversations > pool) <= 0.01, no "
        "spread given: every conversation at the mean, so the answer is certain",
        "decode: step = (weights on this GPU + batch x KV at the mean context) / (bandwidth x "
        "1); tokens/s per user = 1 / step",
        "TTFT: 2 x 8,030,261,248 active params x 1,000 prompt tokens / (BF16 FLOP/s x 1 x TP 1); "
        "attention FLOPs and queueing left out",
    )


def test_an_slo_equal_to_memory_leaves_memory_binding():
    # 45 tokens/s: (3.35e12 / 45 - WEIGHTS) / 1 GiB = 54.37 -> 54, the same as memory
    p = plan_traffic(BASE, Traffic(peak_users=10, min_tokens_per_s_per_user=Fraction(45)))
    assert (p.slo_users_per_replica, p.planned_users_per_replica, p.binding_constraint) == (
        54, 54, "memory")


def test_bandwidth_efficiency_in_the_slo_and_the_step():
    # at half the bandwidth: (3.35e12 / 2 / 50 - WEIGHTS) / 1 GiB = 16.24 -> 16
    t = Traffic(peak_users=10, min_tokens_per_s_per_user=Fraction(50),
                bandwidth_efficiency=Fraction(1, 2), flops_efficiency=Fraction(1, 2))
    p = plan_traffic(replace(BASE, tp=2), t)
    # TP 2 at half the bandwidth: (3.35e12 / 2 / 50 - WEIGHTS / 2) / 512 MiB = 47.44 -> 47
    assert p.slo_users_per_replica == 47
    # TP 2: weights 8,030,261,248 a GPU, a sequence 512 MiB a GPU
    assert (p.weights_read_bytes, p.kv_read_bytes_per_sequence) == (WEIGHTS // 2, GIB // 2)
    planned = p.planned_users_per_replica
    assert p.step_time_s == Fraction(WEIGHTS // 2 + planned * GIB // 2) / (
        3_350_000_000_000 * Fraction(1, 2))
    # TTFT over 2 GPUs at half the FLOP/s: 2 x params x 8,192 / (989e12 x 1/2 x 2)
    assert p.ttft_s == Fraction(2 * 8_030_261_248 * 8192, 989 * 10**12)
    assert "(bandwidth x 0.5)" in p.assumptions[2] and "x 0.5 x TP 2)" in p.assumptions[3]


def test_an_slo_no_batch_reaches_says_why():
    # one user's step reads WEIGHTS + 1 GiB = 17,134,264,320 B: 3.35e12 / that = 195.5 tokens/s
    p = plan_traffic(BASE, Traffic(peak_users=10, min_tokens_per_s_per_user=Fraction(10_000)))
    assert (p.planned_users_per_replica, p.replicas, p.gpus_needed, p.step_time_s) == (
        0, None, None, None)
    assert p.overflow_at_plan == RiskEstimate(0, 0.0, "exact")
    assert p.reason == ("no batch reaches 10000 tokens/s per user on h100-sxm-80gb: even one user "
                        "gets 195.5 tokens/s (weights and one cache read per step at 1 of the "
                        "bandwidth); try a faster GPU, more TP, fp8 weights or a lower target")
    half = plan_traffic(BASE, Traffic(peak_users=10, min_tokens_per_s_per_user=Fraction(10_000),
                                      bandwidth_efficiency=Fraction(1, 2)))
    assert half.reason is not None and "gets 97.8 tokens/s" in half.reason and "at 0.5 of" in half.reason
    # one user in memory (a 1.5 GiB pool) is still a memory that holds someone
    one = plan_traffic(replace(BASE, kv_budget_bytes=3 * GIB // 2),
                       Traffic(peak_users=10, min_tokens_per_s_per_user=Fraction(10_000)))
    assert one.at_risk.users == 1 and one.reason is not None


def test_weights_that_do_not_fit():
    seventy = replace(BASE, model=load_model("llama-3.1-70b"))
    p = plan_traffic(seventy, Traffic(peak_users=10, min_tokens_per_s_per_user=Fraction(10)))
    assert p.at_risk == RiskEstimate(0, 1.0, "point-mass") == p.overflow_at_plan
    assert (p.planned_users_per_replica, p.reason) == (0, None)  # the size says why, not the SLO
    plain = plan_traffic(seventy, Traffic(peak_users=10))
    assert plain.reason is None and plain.at_risk == RiskEstimate(0, 1.0, "point-mass")


def test_peak_users_must_be_positive():
    with pytest.raises(InputError) as err:
        plan_traffic(BASE, Traffic(peak_users=0))
    assert str(err.value) == "peak users must be a positive integer, got 0"


def test_min_users_reach_the_fleet():
    p = plan_traffic(BASE, Traffic(peak_users=10, min_users=200))
    assert p.fleet.required_users == 200 and p.replicas == 4  # ceil(200 / 54)


def test_a_one_token_mean():
    p = plan_traffic(BASE, Traffic(peak_users=10, lengths=Empirical((1,))))
    assert p.kv_read_bytes_per_sequence == 131_072  # one token read a step


def test_a_shared_prefix_leaves_the_risk_pool():
    # 4,096 shared tokens (512 MiB once) in a 2.5 GiB pool leave 2 GiB; conversations of 6,144
    # or 8,192 tokens hold 2,048 or 4,096 of their own (256 or 512 MiB): n + k <= 8 in 256 MiB
    # units. n = 5 overflows iff k >= 4 (6 / 32 = 18.75%), n = 6 iff k >= 3 (42 / 64)
    req = replace(BASE, kv_budget_bytes=5 * GIB // 2, shared_prefix_tokens=4096)
    lengths = Empirical((6144, 8192))
    assert plan_traffic(req, Traffic(peak_users=10, lengths=lengths, risk=0.2)).at_risk.users == 5
    assert plan_traffic(req, Traffic(peak_users=10, lengths=lengths, risk=0.1)).at_risk.users == 4


def test_a_pool_the_prefix_fills():
    # the prefix takes the whole pool: no conversation; one byte over it: none either
    req = replace(BASE, kv_budget_bytes=512 * MIB, shared_prefix_tokens=4096, context_tokens=8192)
    p = plan_traffic(req, Traffic(peak_users=1, lengths=Empirical((6144, 8192))))
    assert p.at_risk == RiskEstimate(0, 1.0, "exact")
    q = plan_traffic(replace(req, kv_budget_bytes=512 * MIB + 1),
                     Traffic(peak_users=1, lengths=Empirical((6144, 8192))))
    assert q.at_risk.users == 0 and q.at_risk.probability == 0.0  # no one open, no overflow


def test_a_spread_may_hold_more_than_the_mean():
    # 16 or 8,192 tokens (2 MiB or 1 GiB): the mean 4,104 (257 blocks, 538,968,064 B) fits 4
    # in a 2.5 GiB pool; at 55% risk 5 conversations (P(k >= 3 long of 5) = 1/2), not 6
    # (42 / 64): the spread's answer stands above the mean's
    req = replace(BASE, kv_budget_bytes=5 * GIB // 2)
    p = plan_traffic(req, Traffic(peak_users=10, lengths=Empirical((16, 8192)), risk=0.55))
    assert p.users_per_replica_mean == 4 and p.at_risk.users == 5
    assert p.planned_users_per_replica == 5


def test_without_a_spread_the_sizer_s_count_stands():
    # a sizer that holds one fewer than pool / sequence (an engine's own accounting): the plan
    # without a spread says what the sizer says
    def sizer(r: SizeRequest):  # noqa: ANN202
        res = size(r)
        return replace(res, users_per_replica=res.users_per_replica - 1)

    p = plan_traffic(BASE, Traffic(peak_users=10), sizer=sizer)
    assert p.users_per_replica_mean == 53 and p.at_risk.users == 53


def test_progress_and_the_lattice_limit():
    calls = []
    req = replace(BASE, kv_budget_bytes=5 * GIB // 2)
    t = Traffic(peak_users=10, lengths=Empirical((4096, 8192)), risk=0.2,
                min_tokens_per_s_per_user=Fraction(3000))
    p = plan_traffic(req, t, progress=lambda: calls.append(1))
    assert calls and p.at_risk.method == "exact"
    # the SLO (3,000 tokens/s: (1.1167e9 - WEIGHTS) < 0: none) ... then a looser one binds at 2:
    # (3.35e12 / 200 - WEIGHTS) / 768 MiB (the 6,144-token mean read) = 0.85 -> 0
    assert p.planned_users_per_replica == 0
    slo = Traffic(peak_users=10, lengths=Empirical((4096, 8192)), risk=0.2,
                  min_tokens_per_s_per_user=Fraction(150))
    # 3.35e12 / 150 = 22,333,333,333; less WEIGHTS: 6,272,810,837 / 805,306,368 = 7.8 -> 7 > 3
    q = plan_traffic(req, slo)
    assert q.slo_users_per_replica == 7 and q.planned_users_per_replica == 3
    tight = Traffic(peak_users=10, lengths=Empirical((4096, 8192)), risk=0.2,
                    min_tokens_per_s_per_user=Fraction(200))
    # (16,750,000,000 - WEIGHTS) / 805,306,368 = 0.86 -> 0; at 190: 17,631,578,947 -> 1.95 -> 1
    r = plan_traffic(req, replace(tight, min_tokens_per_s_per_user=Fraction(190)))
    assert r.planned_users_per_replica == 1 and r.binding_constraint == "slo"
    # the risk at the 1 planned: one conversation never overflows 2.5 GiB
    assert r.overflow_at_plan == RiskEstimate(1, 0.0, "exact")
    # at 70% risk memory holds 4 (P(k >= 2 of 4) = 11/16); 177 tokens/s plans 3: (3.35e12 / 177 -
    # WEIGHTS) / 805,306,368 = 3.56. Three may overflow (k = 3 needs 3 GiB): past a lattice limit
    # of 1 point that risk is the normal approximation's, as the search's was
    loose = replace(tight, risk=0.7, min_tokens_per_s_per_user=Fraction(177))
    exact = plan_traffic(req, loose)
    assert (exact.at_risk.users, exact.planned_users_per_replica) == (4, 3)
    assert exact.overflow_at_plan == RiskEstimate(3, pytest.approx(1 / 8), "exact")
    normal = plan_traffic(req, loose, limit=1)
    assert normal.planned_users_per_replica == 3
    assert (normal.overflow_at_plan.users, normal.overflow_at_plan.method) == (3, "normal")


def test_notes_for_a_tail_pipeline_stages_and_experts():
    # a lognormal with a p50 of 4,096 and sigma 1: P(length > 8,192) = 1 - Phi(ln 2) = 24.4%
    moe = SizeRequest(model=load_model("qwen3-30b-a3b"), gpu=H100, context_tokens=8192, pp=2)
    p = plan_traffic(moe, Traffic(peak_users=10, lengths=LogNormal(mu=8.317766166719343,
                                                                   sigma=1.0)))
    notes = p.assumptions
    assert p.share_above_context == pytest.approx(0.2441, abs=1e-4)
    assert notes[-3] == "24.41% of lengths exceed the 8,192-token context and are capped there"
    assert notes[-2] == "pipeline stages run one after another for a token: their times add"
    assert notes[-1] == ("MoE: every resident expert is read each step (a large batch touches "
                         "all)")
    assert notes[1] == ("overflow risk: P(total paged cache of the open conversations > pool) <= "
                        "0.01, exact distribution of the sum over block counts")
    plain = plan_traffic(BASE, Traffic(peak_users=10))
    assert len(plain.assumptions) == 4  # no tail, one stage, no experts


def test_the_normal_method_note():
    req = replace(BASE, kv_budget_bytes=60 * GIB)
    p = plan_traffic(req, Traffic(peak_users=10, lengths=Empirical(tuple(range(16, 8193, 16)))),
                     limit=1)
    assert p.at_risk.method == "normal"
    assert p.assumptions[1].endswith(
        f"normal approximation (Berry-Esseen: the probability is within "
        f"{p.at_risk.error_bound:.3g} of the true value)")


def test_a_gpu_without_flops_has_no_ttft():
    p = plan_traffic(replace(BASE, gpu=load_hardware("gb10")), Traffic(peak_users=1))
    assert p.ttft_s is None


def test_int4_groups_in_the_read_and_the_lattice():
    # int4, groups of 32: a 128-value head vector is 128 x 4 + 4 x 16 = 576 bits = 72 B; x 8
    # heads x 2 x 32 layers = 36,864 B a token (groups of 64: 68 B, 34,816 B)
    r32 = replace(BASE, kv_dtype=DType.int4, kv_group_size=32)
    assert kv_read_bytes(r32, 1000) == 36_864_000
    assert kv_read_bytes(replace(r32, kv_group_size=64), 1000) == 34_816_000
    lat = sequence_lattice(r32, Empirical((4096, 8192)))
    assert (lat.base_bytes, lat.unit_bytes) == (4096 * 36_864, 4096 * 36_864)


def test_a_prefix_without_a_spread():
    # 4,096 shared tokens (512 MiB once) of 8,192 in a 2.5 GiB pool: 2 GiB of 512 MiB sequences
    req = replace(BASE, kv_budget_bytes=5 * GIB // 2, shared_prefix_tokens=4096)
    p = plan_traffic(req, Traffic(peak_users=10))
    assert (p.users_per_replica_mean, p.at_risk.users) == (4, 4)


def test_reserved_lattices_are_keyed_by_max_model_len():
    # reserved: a sequence sets aside max_model_len; 4,081 and 4,096 are both 256 blocks of 16.
    # A pool of 5 x 4,090 x 131,072 B holds 5 of 4,081 tokens but 4 of 4,096
    req = replace(BASE, kv_budget_bytes=5 * 4090 * 131_072, allocation=Allocation.reserved)
    lengths, shared = Empirical((2048, 4096)), {}
    a = plan_traffic(replace(req, context_tokens=4081), Traffic(peak_users=1, lengths=lengths),
                     lattices=shared)
    b = plan_traffic(replace(req, context_tokens=4096), Traffic(peak_users=1, lengths=lengths),
                     lattices=shared)
    assert (a.at_risk.users, b.at_risk.users) == (5, 4)


def test_lattices_shared_across_calls_are_keyed_by_the_context():
    lengths = Empirical((4096, 8192))
    req = replace(BASE, kv_budget_bytes=5 * GIB // 2)
    shared: dict = {}
    a = plan_traffic(req, Traffic(peak_users=1, lengths=lengths, risk=0.2), lattices=shared)
    b = plan_traffic(replace(req, context_tokens=4096), Traffic(peak_users=1, lengths=lengths,
                                                                risk=0.2), lattices=shared)
    fresh = plan_traffic(replace(req, context_tokens=4096), Traffic(peak_users=1, lengths=lengths,
                                                                    risk=0.2))
    assert a.at_risk.users == 3 and b.at_risk == fresh.at_risk
    assert b.at_risk.users == 5  # every conversation capped at 4,096 (512 MiB): 2.5 GiB holds 5
    # reserved: a sequence sets aside its max_model_len, token for token
    res = replace(req, allocation=Allocation.reserved)
    shared = {}
    c = plan_traffic(replace(res, context_tokens=8191), Traffic(peak_users=1, lengths=lengths),
                     lattices=shared)
    d = plan_traffic(res, Traffic(peak_users=1, lengths=lengths), lattices=shared)
    assert c.overflow_at_plan.users == d.overflow_at_plan.users == 2
    # 2.5 GiB / (8,191 x 131,072) = 2.5003 -> 2; / 1 GiB = 2.5 -> 2: both 2, but their lattices
    # are their own sizes
    assert sequence_lattice(replace(res, context_tokens=8191), lengths).base_bytes == 8191 * 131_072


# --- the cost search


def test_candidates_skip_what_does_not_apply():
    base = replace(BASE, kv_budget_bytes=GIB)
    got = candidates(base, [H100, A100], tps=(1, 3, 2), kv_dtypes=(DType.fp8, DType.fp16))
    assert [(c.gpu.name, c.tp, c.kv_dtype.value) for c in got] == [
        ("h100-sxm-80gb", 1, "fp8"), ("h100-sxm-80gb", 1, "fp16"),
        ("h100-sxm-80gb", 2, "fp8"), ("h100-sxm-80gb", 2, "fp16"),
        ("a100-80gb", 1, "fp16"), ("a100-80gb", 2, "fp16")]
    assert all(c.kv_budget_bytes is None for c in got)  # each GPU derives its own pool


def test_search_ranks_ties_by_the_wider_cache_and_reports_progress():
    seen = []
    result = search(BASE, Traffic(peak_users=1), [H100], tps=(1,),
                    progress=lambda i, n: seen.append((i, n)))
    assert seen == [(1, 2), (2, 2)]
    assert [r.plan.size.request.kv_dtype for r in result.rows] == [DType.fp16, DType.fp8]
    assert [r.rank for r in result.rows] == [1, 2] and result.tried == 2
    only = search(BASE, Traffic(peak_users=1), [H100], tps=(1,), kv_dtypes=(DType.fp16,))
    assert [r.plan.size.request.kv_dtype for r in only.rows] == [DType.fp16]


def test_search_passes_the_lattice_limit():
    lengths = Empirical(tuple(range(16, 8193, 16)))
    result = search(BASE, Traffic(peak_users=10, lengths=lengths), [H100], tps=(1,),
                    kv_dtypes=(DType.fp16,), limit=1)
    assert result.rows[0].plan.at_risk.method == "normal"


def test_search_refusals_and_rejections():
    with pytest.raises(InputError) as err:
        search(BASE, Traffic(peak_users=1), [])
    assert str(err.value) == "no configuration to try: no GPU, TP size or cache precision applies"
    seventy = replace(BASE, model=load_model("llama-3.1-70b"))
    result = search(seventy, Traffic(peak_users=1), [H100], tps=(1,), kv_dtypes=(DType.fp16,))
    ((req, why),) = result.rejected
    assert why.startswith("weights need ") and result.rows == ()
    # a candidate the planner refuses (peak 0) is rejected with its sentence
    bad = search(BASE, Traffic(peak_users=0), [H100], tps=(1,), kv_dtypes=(DType.fp16,))
    assert bad.rejected[0][1] == "peak users must be a positive integer, got 0"
    # a pool that holds no conversation at the risk, with no reason from the size or the SLO
    def small(r: SizeRequest):  # noqa: ANN202
        return size(replace(r, kv_budget_bytes=768 * MIB))

    none = search(BASE, Traffic(peak_users=1, lengths=Empirical((4096, 8192))), [H100], tps=(1,),
                  kv_dtypes=(DType.fp16,), sizer=small)
    assert none.rejected[0][1] == "holds no conversation"
