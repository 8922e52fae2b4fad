"""The overflow-risk module's edges, each against a value worked by hand: empty and one-point
lattices, the Poisson mixture, the pmf of a sum, and the decode-speed input checks."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from kvplan.errors import InputError
from kvplan.traffic.decode import decode_step_time_s, slo_batch, ttft_s
from kvplan.traffic.risk import (
    RiskEstimate,
    SequenceLattice,
    exact_cdf,
    normal_tail,
    overflow_probability,
    overflow_probability_poisson,
    poisson_pmf,
    sum_pmf,
    users_at_risk,
)

MIB, GIB = 1 << 20, 1 << 30
# two equally likely conversations: 512 MiB or 1 GiB (base 512 MiB, one 512 MiB step)
TWO = SequenceLattice.from_bytes({512 * MIB: 0.5, GIB: 0.5})
ONE = SequenceLattice.from_bytes({GIB: 1.0})  # every conversation 1 GiB


def test_no_probability_mass_is_refused():
    with pytest.raises(InputError, match="^the length distribution has no probability mass$"):
        SequenceLattice.from_bytes({GIB: 0.0})
    with pytest.raises(InputError, match="^the length distribution has no probability mass$"):
        SequenceLattice.from_arrays(np.array([GIB], dtype=np.int64), np.array([0.0]))


def test_lattice_shapes_of_fresh_lattices():
    # fresh lattices: a lattice caches its moments and transforms
    TWO = SequenceLattice.from_bytes({512 * MIB: 0.5, GIB: 0.5})
    ONE = SequenceLattice.from_bytes({GIB: 1.0})
    assert ONE.unit_bytes == 1 and ONE.pmf == (1.0,)
    assert (TWO.base_bytes, TWO.unit_bytes, TWO.pmf, TWO.span) == (512 * MIB, 512 * MIB,
                                                                  (0.5, 0.5), 1)
    assert TWO.max_bytes == GIB and TWO.mean_bytes == 768 * MIB
    assert TWO.moments() == (0.5, 0.25, 0.125)  # |d - 1/2|^3 = 1/8 either way
    # one point: no spread, no moments
    assert (ONE.span, ONE.moments(), ONE.mean_bytes) == (0, (0.0, 0.0, 0.0), GIB)
    # from arrays the same lattice
    arr = SequenceLattice.from_arrays(np.array([GIB, 512 * MIB, GIB], dtype=np.int64),
                                      np.array([0.25, 0.5, 0.25]))
    assert (arr.base_bytes, arr.unit_bytes, arr.pmf) == (512 * MIB, 512 * MIB, (0.5, 0.5))


def test_transform_sizes_below_the_span_are_refused():
    three = SequenceLattice.from_bytes({1: 0.25, 2: 0.25, 3: 0.5})
    with pytest.raises(ValueError, match="^transform size below the lattice span$"):
        three.phi_array(2)
    with pytest.raises(ValueError, match="^FFT size too small for this many conversations$"):
        exact_cdf(TWO, 4, 1, size=4)  # 4 conversations span 0..4: 5 points


def test_exact_cdf_is_the_binomial():
    # d ~ Bernoulli(1/2): S_4 ~ Binomial(4, 1/2): P(S <= 1) = 5/16, P(S <= 2) = 11/16
    assert exact_cdf(TWO, 4, 1) == pytest.approx(5 / 16, abs=1e-12)
    assert exact_cdf(TWO, 4, 2) == pytest.approx(11 / 16, abs=1e-12)
    assert exact_cdf(TWO, 4, -1) == 0.0 and exact_cdf(TWO, 4, 4) == 1.0


def test_a_point_lattice_tail_is_certain():
    ONE = SequenceLattice.from_bytes({GIB: 1.0})
    assert normal_tail(ONE, 3, 0) == (0.0, 0.0)  # n x mu = 0 <= m
    assert normal_tail(ONE, 3, -1) == (1.0, 0.0)
    # 2 GiB holds two 1 GiB conversations, not three
    assert overflow_probability(ONE, 2, 2 * GIB).probability == 0.0
    assert overflow_probability(ONE, 3, 2 * GIB).probability == 1.0
    assert overflow_probability(ONE, 3, 2 * GIB).method == "point-mass"
    assert overflow_probability(TWO, 0, GIB).probability == 0.0


def test_users_at_risk_reports_its_progress():
    # pool 1.5 GiB: n = 2 overflows iff both long (P 1/4), n = 3 unless all short (7/8)
    calls = []
    est = users_at_risk(TWO, 3 * 512 * MIB, 0.3, progress=lambda: calls.append(1))
    assert (est.users, est.probability, est.method) == (2, pytest.approx(0.25), "exact")
    assert calls  # each probability computed is reported
    # at 20%: only one conversation (it always fits)
    assert users_at_risk(TWO, 3 * 512 * MIB, 0.2).users == 1
    with pytest.raises(InputError, match="risk must be between 0 and 1"):
        users_at_risk(TWO, GIB, 1.0)


def test_poisson_pmf():
    assert poisson_pmf(0, 0.0) == 1.0 and poisson_pmf(1, 0.0) == 0.0
    assert poisson_pmf(2, 1.0) == pytest.approx(math.exp(-1) / 2)


def test_poisson_overflow_of_a_point_lattice():
    # 2.5 GiB holds two 1 GiB conversations: overflow iff N >= 3, N ~ Poisson(1):
    # 1 - e^-1 (1 + 1 + 1/2) = 1 - 2.5 / e
    p = overflow_probability_poisson(ONE, 5 * GIB // 2, 1.0)
    assert p == pytest.approx(1 - 2.5 / math.e, abs=1e-12)


def test_poisson_overflow_of_a_spread():
    # pool 1 GiB: one conversation always fits, two unless both short (P 3/4), three never:
    # P = e^-1 / 2 x 3/4 + (1 - 2.5 / e) = 1 - 2.125 / e
    p = overflow_probability_poisson(TWO, GIB, 1.0)
    assert p == pytest.approx(1 - 2.125 / math.e, abs=1e-9)


def test_sum_pmf_exact_and_normal():
    assert sum_pmf(TWO, 0) == [1.0]
    exact = sum_pmf(TWO, 4)
    assert exact == pytest.approx([1 / 16, 4 / 16, 6 / 16, 4 / 16, 1 / 16], abs=1e-12)
    # above the lattice limit the normal density with the same mean (2) and variance (1):
    # P(S = 2) ~ Phi(0.5) - Phi(-0.5) = 0.382925
    normal = sum_pmf(TWO, 4, limit=1)
    assert len(normal) == 5
    assert normal[2] == pytest.approx(0.3829249225, abs=1e-9)
    assert normal[0] == pytest.approx(normal[4]) and normal[1] == pytest.approx(normal[3])


def test_decode_inputs_are_checked_at_their_bounds():
    with pytest.raises(InputError, match=r"^efficiency must be in \(0, 1\], got 0$"):
        decode_step_time_s(1, 1, 1, 1, Fraction(0))
    with pytest.raises(InputError, match=r"^efficiency must be in \(0, 1\], got 1.5$"):
        ttft_s(1, 1, 1, Fraction(3, 2))
    with pytest.raises(InputError, match="^FLOP/s and TP must be positive$"):
        ttft_s(1, 1, 1, Fraction(1), 0)


def test_decode_inputs_are_checked():
    with pytest.raises(InputError, match="^memory bandwidth must be positive$"):
        decode_step_time_s(1, 1, 1, 0)
    with pytest.raises(InputError, match=r"^efficiency must be in \(0, 1\], got 1.5$"):
        decode_step_time_s(1, 1, 1, 1, Fraction(3, 2))
    with pytest.raises(InputError, match="^the tokens/s per user target must be positive$"):
        slo_batch(1, 1, 1, Fraction(0))
    with pytest.raises(InputError, match="^FLOP/s and TP must be positive$"):
        ttft_s(1, 1, 0)
    with pytest.raises(InputError, match=r"^efficiency must be in \(0, 1\], got 0$"):
        ttft_s(1, 1, 1, Fraction(0))


def test_decode_values():
    # 3 GB of weights + 2 x 1 GB of cache at 1 TB/s x 1/2: 5e9 / 5e11 = 1/100 s
    assert decode_step_time_s(3 * 10**9, 10**9, 2, 10**12, Fraction(1, 2)) == Fraction(1, 100)
    # 40 tokens/s: a step may read 1e12 / 40 = 2.5e10 B: (2.5e10 - 3e9) / 1e9 = 22 users
    assert slo_batch(3 * 10**9, 10**9, 10**12, Fraction(40)) == 22
    # not even one: weights alone exceed the step
    assert slo_batch(3 * 10**10, 10**9, 10**12, Fraction(40)) == 0
    # 2 x 8e9 params x 1,000 tokens / (1e15 x 1/2 x 2) = 0.016 s
    assert ttft_s(8 * 10**9, 1000, 10**15, Fraction(1, 2), 2) == Fraction(16, 1000)


def test_the_berry_esseen_bound_is_at_most_one():
    # d = 1 with P 0.01: mu 0.01, var 0.0099, rho 0.0097: 0.4748 x rho / var^1.5 = 4.7 at n = 1
    skewed = SequenceLattice.from_bytes({1: 0.99, 2: 0.01})
    assert normal_tail(skewed, 1, 0)[1] == 1.0
    assert normal_tail(skewed, 10_000, 100)[1] == pytest.approx(
        0.4748 * skewed.moments()[2] / (skewed.moments()[1] ** 1.5 * 100))


def test_overflow_methods_at_the_limits():
    two = SequenceLattice.from_bytes({512 * MIB: 0.5, GIB: 0.5})
    assert overflow_probability(two, 3, GIB) == RiskEstimate(3, 1.0, "exact")  # 1.5 GiB > 1 GiB
    # 4 conversations span 0..4: 5 lattice points; a limit of 5 is exact, 4 and 3 are not
    pool = 5 * 512 * MIB  # 2.5 GiB: overflow iff 4 + k > 5, k >= 2 long: 11/16
    assert overflow_probability(two, 4, pool, limit=5).method == "exact"
    assert overflow_probability(two, 4, pool, limit=5).probability == pytest.approx(11 / 16)
    assert overflow_probability(two, 4, pool, limit=4).method == "normal"
    assert overflow_probability(two, 4, pool, limit=3).method == "normal"
    with pytest.raises(InputError, match="risk must be between 0 and 1"):
        users_at_risk(two, GIB, 0.0)


LATTICES = [
    {100: 0.999, 10_000: 0.001},
    {100: 0.95, 5_000: 0.05},
    {1: 0.5, 2: 0.3, 50: 0.2},
    {10: 0.7, 11: 0.2, 30: 0.1},
]


def test_users_at_risk_is_the_largest_n_a_scan_finds():
    # the scan: n = 0, 1, ... while P(n conversations overflow) <= risk (P grows with n);
    # overflow_probability is checked against the binomial above and in test_risk.py
    from kvplan.traffic import risk as risk_module

    below = above = 0  # how far the normal starting guess fell short of, or past, the answer
    for probs in LATTICES:
        lat = SequenceLattice.from_bytes(probs)
        pools = (lat.max_bytes * 3, lat.base_bytes * 40, lat.base_bytes * 200 + 7,
                 int(lat.mean_bytes * 120))
        for pool in pools:
            for risk in (0.001, 0.01, 0.05, 0.3):
                n, near = 0, False
                while True:
                    p = overflow_probability(lat, n + 1, pool).probability
                    near = near or abs(p - risk) < 1e-9
                    if p > risk:
                        break
                    n += 1
                if near:
                    continue
                assert users_at_risk(lat, pool, risk).users == n, (probs, pool, risk)
                guess = risk_module._normal_guess(lat, pool, risk, pool // lat.max_bytes)
                below, above = max(below, n - guess), max(above, guess - n)
    # both brackets were walked several steps (the search does not rely on a good guess)
    assert below >= 2 and above >= 2


def test_a_starting_guess_that_does_not_fit_walks_down():
    # 100 B or 5,000 B (P 0.05) in a 100 B pool: the normal guess starts at one conversation,
    # whose normal tail is above 1%, and walks down to none; one overflows with P 0.05 > 0.01
    lat = SequenceLattice.from_bytes({100: 0.95, 5000: 0.05})
    assert users_at_risk(lat, 100, 0.01).users == 0
    assert users_at_risk(lat, 100, 0.06).users == 1  # 0.05 <= 6%
