"""The check verdict's traffic basis (kvplan/check/verdict.py, numbers.py): what `kvplan fleet`
plans, computed here by hand, and the caches of plans. The facts used throughout are in
verdict_setup.py.
"""

from __future__ import annotations

from fractions import Fraction

from kvplan.check import verdict as v
from kvplan.check.verdict import Setup, evaluate
from kvplan.engines import Engine, EngineSettings
from kvplan.specs import load_model
from kvplan.traffic.lengths import Empirical
from kvplan.traffic.plan import Traffic
from kvplan.units import GIB, MIB
from tests.mutants.verdict_setup import LLAMA, req, setup

# --- the traffic basis: what `kvplan fleet` plans, computed here by hand


def test_traffic_without_spread_plans_the_mean():
    # every conversation at 8,192 tokens: a replica holds 54; risk is certain (point mass)
    t = Traffic(peak_users=100)
    n = evaluate(Setup(2, req(), traffic=t), 110, None)
    assert n.traffic is not None
    b = n.traffic
    assert (b.users_at_mean, b.users_at_risk, b.users_planned) == (54, 54, 54)
    assert (b.binding, b.users_slo, b.slo_tokens_per_s, b.risk) == ("overflow_risk", None, None,
                                                                    0.01)
    assert (n.users_per_replica, n.users_held, n.limited_by) == (54, 108, "overflow_risk")
    assert n.reasons == ("holds 108 users, 110 required",
                         "at 1.00% overflow risk a replica holds 54 conversations (54 if every "
                         "one had the mean length)")


def test_an_slo_caps_the_replica():
    # decode at 50 tokens/s a user on an H100 (3.35e12 B/s): a step may read 3.35e12 / 50 =
    # 67,000,000,000 B; the weights take 16,060,522,496, each sequence 1 GiB at 8,192 tokens:
    # floor(50,939,477,504 / 1,073,741,824) = 47 users (47.44) < 54 in memory
    t = Traffic(peak_users=100, min_tokens_per_s_per_user=Fraction(50))
    n = evaluate(Setup(2, req(), traffic=t), 100, None)
    b = n.traffic
    assert b is not None
    assert (b.users_slo, b.slo_tokens_per_s, b.binding, b.users_planned) == (47, 50.0, "slo", 47)
    assert b.users_at_risk == 54
    assert (n.users_per_replica, n.users_held, n.limited_by) == (47, 94, "slo")
    assert n.reasons == ("holds 94 users, 100 required",
                         "the 50 tokens/s per user SLO caps a replica at 47 conversations "
                         "(memory holds 54 at 1.00% risk)")


def test_a_spread_is_planned_at_its_risk_against_a_binomial():
    # half the conversations 4,096 tokens (512 MiB), half 8,192 (1 GiB); the mean 6,144.
    # pool 2.5 GiB = 5 x 512 MiB: n conversations of which k long need (n + k) x 512 MiB.
    # n = 3: overflow iff k = 3 (P 1/8); n = 2 never overflows (at most 2 GiB); so at 20% risk
    # a replica holds 3, at 10% holds 2. At the mean (768 MiB) the pool holds 3.
    lengths = Empirical((4096, 8192))
    for risk, users in ((0.2, 3), (0.1, 2)):
        t = Traffic(peak_users=10, lengths=lengths, risk=risk)
        n = evaluate(Setup(4, req(kv_budget_bytes=5 * GIB // 2), traffic=t), 10, None)
        b = n.traffic
        assert b is not None and (b.users_at_risk, b.users_at_mean, b.risk) == (users, 3, risk)
        assert b.risk_method == "exact" and b.users_planned == users
        assert n.users_held == 4 * users


def test_a_deployment_that_cannot_start_is_not_planned_by_traffic():
    n = evaluate(setup(1, kv_budget_bytes=512 * MIB, traffic=Traffic(peak_users=1)), 1, None)
    assert n.traffic is None and n.users_held == 0 and not n.would_start


def test_plans_are_cached_per_request_not_shared_across_them():
    # the same traffic for two pools in one process: each gets its own plan
    t = Traffic(peak_users=10, lengths=Empirical((4096, 8192)), risk=0.2)
    small = evaluate(Setup(1, req(kv_budget_bytes=5 * GIB // 2), traffic=t), 1, None)
    big = evaluate(Setup(1, req(kv_budget_bytes=5 * GIB), traffic=t), 1, None)
    # 5 GiB = 10 x 512 MiB: n + k <= 10; n = 7 overflows iff k >= 4 (P 35/128 = 27%), n = 6
    # iff k >= 5 (7/64 = 11%): 6 at 20% risk
    assert small.traffic is not None and big.traffic is not None
    assert (small.traffic.users_at_risk, big.traffic.users_at_risk) == (3, 6)
    # and asked again, the cached plan gives the same answer
    again = evaluate(Setup(1, req(kv_budget_bytes=5 * GIB // 2), traffic=t), 1, None)
    assert again.traffic == small.traffic


def test_lattices_are_not_shared_across_models():
    # the same traffic for two models: Llama-3-8B (131,072 B a token: 2,048 tokens = 256 MiB,
    # 4,096 = 512 MiB) and Llama-2-7B (524,288 B a token: 1 GiB and 2 GiB), max_model_len 4,096,
    # a 2.5 GiB pool, half the conversations of each length. Llama-3: n + k <= 10 (256 MiB
    # units, k long): 6 at 20% risk (as above). Llama-2: one always fits (2 GiB), two overflow
    # unless both short (P 3/4): 1
    t = Traffic(peak_users=10, lengths=Empirical((2048, 4096)), risk=0.2)
    three = evaluate(Setup(1, req(context_tokens=4096, kv_budget_bytes=5 * GIB // 2), traffic=t),
                     1, None)
    two = evaluate(Setup(1, req(model=load_model("llama-2-7b"), context_tokens=4096,
                                kv_budget_bytes=5 * GIB // 2), traffic=t), 1, None)
    assert three.traffic is not None and two.traffic is not None
    assert (three.traffic.users_at_risk, two.traffic.users_at_risk) == (6, 1)


def test_the_cache_of_plans_is_bounded():
    t = Traffic(peak_users=10, lengths=Empirical((4096, 8192)), risk=0.2)
    v._PLANS.clear()
    v._PLANS.update({("filler", i): None for i in range(4096)})
    evaluate(Setup(1, req(kv_budget_bytes=5 * GIB // 2), traffic=t), 1, None)
    assert len(v._PLANS) == 4097  # 4,096 is not past the bound
    evaluate(Setup(1, req(kv_budget_bytes=5 * GIB), traffic=t), 1, None)
    assert len(v._PLANS) == 1  # past it: cleared, then this plan
    v._PLANS.clear()


def test_a_traffic_plan_through_an_engine_uses_the_engine():
    # SGLang's static pool for Llama-3-8B on an H100 is smaller than the plain arithmetic's
    # (54,534,995,968 B against 58,332,923,494: 50 sequences of 1 GiB, not 54); the traffic plan
    # and the start check both size through the engine (its own arithmetic is tested in
    # tests/engines)
    from kvplan.engines import run_engine

    engine = EngineSettings(engine=Engine.sglang)
    assert run_engine(req(), engine).size.users_per_replica == 50
    t = Traffic(peak_users=100)
    n = evaluate(Setup(2, req(), engine=engine, traffic=t), 1, None)
    assert n.traffic is not None
    assert (n.traffic.users_at_mean, n.traffic.users_planned, n.kv_users_per_replica) == (50, 50, 50)
    assert n.users_held == 100
    # and without traffic
    n = evaluate(Setup(2, req(), engine=engine), 1, None)
    assert (n.kv_users_per_replica, n.users_held) == (50, 100)


def test_the_model_key_is_one_spec_s_json():
    v._MODEL_KEYS.clear()  # (a process may have keyed it already)
    key = v._model_key(LLAMA)
    assert key == LLAMA.model_dump_json()
    assert v._model_key(LLAMA) is key  # serialised once
    other = load_model("mistral-7b-v0.1")
    assert v._model_key(other) == other.model_dump_json() != key


def test_the_model_keys_are_bounded():
    v._MODEL_KEYS.clear()
    v._MODEL_KEYS.update({-i: (None, "") for i in range(1, 4097)})  # 4,096 other specs
    v._model_key(LLAMA)
    assert len(v._MODEL_KEYS) == 4097  # 4,096 is not past the bound
    v._model_key(load_model("mistral-7b-v0.1"))
    assert len(v._MODEL_KEYS) == 1  # past it: cleared, then this spec
    v._MODEL_KEYS.clear()
