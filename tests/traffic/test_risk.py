"""Overflow risk: the exact n-fold sum against brute force, the normal approximation's bound."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvplan.capacity import Allocation, SizeRequest, size
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.traffic import (
    PointMass,
    SequenceLattice,
    Traffic,
    fit_lognormal,
    overflow_probability,
    plan_traffic,
    users_at_risk,
)
from kvplan.traffic.risk import exact_cdf, normal_tail
from kvplan.units import GIB

H100 = load_hardware("h100")
LLAMA = load_model("llama-3-8b")


def convolve(a: list[float], b: list[float]) -> list[float]:
    out = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def test_lattice_from_bytes():
    lat = SequenceLattice.from_bytes({10: 0.5, 13: 0.3, 19: 0.2})
    assert (lat.base_bytes, lat.unit_bytes, lat.pmf) == (10, 3, (0.5, 0.3, 0.0, 0.2))
    assert lat.max_bytes == 19
    assert lat.mean_bytes == pytest.approx(10 * 0.5 + 13 * 0.3 + 19 * 0.2)


def test_exact_cdf_equals_brute_force_convolution():
    lat = SequenceLattice.from_bytes({10: 0.5, 13: 0.3, 19: 0.2})
    dist = [1.0]
    for n in range(1, 9):
        dist = convolve(dist, list(lat.pmf))
        for m in range(len(dist) + 1):
            assert exact_cdf(lat, n, m) == pytest.approx(sum(dist[: m + 1]), abs=1e-12)


def test_overflow_probability_in_bytes():
    lat = SequenceLattice.from_bytes({10: 0.5, 13: 0.3, 19: 0.2})
    # two sequences: 20 (.25), 23 (.3), 26 (.09), 29 (.2), 32 (.12), 38 (.04)
    assert overflow_probability(lat, 2, 28).probability == pytest.approx(0.2 + 0.12 + 0.04)
    assert overflow_probability(lat, 2, 38).probability == 0.0
    assert overflow_probability(lat, 2, 19).probability == 1.0


def test_normal_approximation_stays_within_berry_esseen():
    lat = SequenceLattice.from_bytes(fit_lognormal({0.5: 1200, 0.95: 6000}).block_pmf(16, 8192))
    for n in (50, 100, 200):
        for m in range(int(n * lat.moments()[0] * 0.8), int(n * lat.moments()[0] * 1.3), 997):
            tail, bound = normal_tail(lat, n, m)
            exact = 1 - exact_cdf(lat, n, m)
            assert abs(tail - exact) <= bound
            assert 0 < bound < 0.2


def _lat() -> SequenceLattice:
    return SequenceLattice.from_bytes(fit_lognormal({0.5: 1200, 0.95: 6000}).block_pmf(16, 8192))


def test_users_at_risk_is_the_largest_n():
    lat = _lat()
    pool = 30720  # lattice units: 60 GiB of 2 MiB blocks (unit 1 block, base 1 block)
    est = users_at_risk(lat, pool, 0.01)
    assert est.method == "exact"
    assert overflow_probability(lat, est.users, pool).probability <= 0.01
    assert overflow_probability(lat, est.users + 1, pool).probability > 0.01
    assert pool // lat.max_bytes <= est.users <= pool // lat.mean_bytes


def test_normal_fallback_above_the_lattice_limit():
    lat = _lat()
    est = users_at_risk(lat, 30720, 0.01, limit=1000)
    assert est.method == "normal"
    assert 0 < est.error_bound < 0.2
    exact = users_at_risk(lat, 30720, 0.01)
    assert abs(est.users - exact.users) <= 5


@settings(max_examples=25, deadline=None)
@given(st.floats(0.001, 0.3), st.floats(0.001, 0.3))
def test_more_risk_never_means_fewer_users(r1: float, r2: float):
    lo, hi = sorted((r1, r2))
    lat = SequenceLattice.from_bytes({1: 0.5, 2: 0.3, 5: 0.2})
    assert users_at_risk(lat, 400, lo).users <= users_at_risk(lat, 400, hi).users


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 60))
def test_overflow_grows_with_the_number_of_conversations(n: int):
    lat = SequenceLattice.from_bytes({1: 0.5, 2: 0.3, 5: 0.2})
    p = overflow_probability(lat, n, 100).probability
    assert overflow_probability(lat, n + 1, 100).probability >= p - 1e-12


def test_risk_must_be_a_probability():
    with pytest.raises(InputError, match="between 0 and 1"):
        users_at_risk(_lat(), 1000, 1.5)


def chatbot_request() -> SizeRequest:
    return SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, avg_context_tokens=2000,
                       kv_budget_bytes=60 * GIB)


def test_point_mass_equals_the_mean_answer():
    p = plan_traffic(chatbot_request(), Traffic(peak_users=20_000, lengths=PointMass(2000)))
    assert p.at_risk.users == p.users_per_replica_mean == size(chatbot_request()).users_per_replica
    assert p.at_risk.method == "point-mass"


def test_three_answers_for_the_chatbot_with_a_spread():
    # p50 1,200 and p95 6,000 tokens: mean (capped at 8,192) 1,825.5 tokens
    lengths = fit_lognormal({0.5: 1200, 0.95: 6000})
    p = plan_traffic(chatbot_request(), Traffic(peak_users=20_000, lengths=lengths, risk=0.01))
    assert p.mean_tokens == pytest.approx(1825.537, abs=1e-3)
    assert p.users_per_replica_worst_case == 60  # 60 GiB / 1 GiB
    assert p.users_per_replica_mean == 30_720 // 115 == 267  # 1,826 tokens = 115 blocks of 2 MiB
    assert p.users_per_replica_worst_case < p.at_risk.users < p.users_per_replica_mean
    assert p.at_risk.users == 231
    assert p.overflow_at_plan.probability <= 0.01
    assert p.gpus_needed == math.ceil(20_000 / 231)


def test_shared_prefix_leaves_the_pool():
    base = replace(chatbot_request(), shared_prefix_tokens=512)
    lengths = fit_lognormal({0.5: 1200, 0.95: 6000})
    with_prefix = plan_traffic(base, Traffic(peak_users=100, lengths=lengths))
    without = plan_traffic(chatbot_request(), Traffic(peak_users=100, lengths=lengths))
    assert with_prefix.at_risk.users > without.at_risk.users  # the prefix is stored once


def test_reserved_allocation_has_no_risk_to_take():
    req = replace(chatbot_request(), allocation=Allocation.reserved)
    lengths = fit_lognormal({0.5: 1200, 0.95: 6000})
    p = plan_traffic(req, Traffic(peak_users=100, lengths=lengths, risk=0.01))
    assert p.at_risk.users == p.users_per_replica_worst_case == 60


def test_transform_matches_a_direct_dft() -> None:
    """numpy's half spectrum, as the lattice caches it, equals the DFT written out term by term."""
    import cmath
    import random

    rng = random.Random(3)
    for points, nonzero in ((2, 1), (8, 3), (64, 64), (256, 17)):
        probs = [rng.random() for _ in range(nonzero)]
        lat = SequenceLattice.from_bytes({100 + 7 * d: p for d, p in enumerate(probs)})
        pmf = list(lat.pmf) + [0.0] * (points - len(lat.pmf))
        direct = [sum(v * cmath.exp(-2j * cmath.pi * j * k / points) for k, v in enumerate(pmf))
                  for j in range(points // 2 + 1)]
        half = lat.phi(points)
        assert len(half) == points // 2 + 1
        assert max(abs(a - b) for a, b in zip(half, direct, strict=True)) < 1e-12
