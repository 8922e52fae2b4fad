"""The traffic package's remaining rules, each against a value worked by hand or a reference
the module itself names: the plotting curves, Little's law, block probabilities (block_arrays is
documented to equal LengthDistribution.block_pmf float for float), the SLO batch, the Poisson
mixture and the sum's pmf. The length distributions (lognormal fits, sample files, percentiles)
are in test_traffic_length_edges.py.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from kvplan.capacity import SizeRequest
from kvplan.capacity.kv import Allocation, Precision, stage_caches
from kvplan.errors import InputError
from kvplan.specs import load_hardware, load_model
from kvplan.traffic import blocks
from kvplan.traffic.curves import cache_distribution, context_points, users_vs_context
from kvplan.traffic.decode import slo_batch
from kvplan.traffic.lengths import (
    Empirical,
    LogNormal,
    normal_cdf,
)
from kvplan.traffic.little import concurrency
from kvplan.traffic.plan import Traffic, paged_bytes, plan_traffic
from kvplan.traffic.risk import SequenceLattice, overflow_probability_poisson, sum_pmf
from kvplan.units import GIB, MIB, DType

LLAMA, H100 = load_model("llama-3-8b"), load_hardware("h100")
POOL_H100 = 58_332_923_494  # 0.9 x 85,045,477,376 - 16,060,522,496 weights - 2 GiB reserve
def two() -> SequenceLattice:  # fresh each time: a lattice caches its moments and transforms
    return SequenceLattice.from_bytes({512 * MIB: 0.5, GIB: 0.5})


def one() -> SequenceLattice:
    return SequenceLattice.from_bytes({GIB: 1.0})


# --- curves


def test_context_points():
    assert context_points(8192) == [256, 512, 1024, 2048, 4096, 8192]
    assert context_points(1000) == [256, 512, 1000]
    assert context_points(256) == [256]
    assert context_points(300, start=100) == [100, 200, 300]


def test_users_vs_context():
    # 58,332,923,494 B of pool; 131,072 B a token in fp16, 65,536 in fp8; paged holds the
    # point's tokens, reserved always the 1,024 maximum:
    # fp16: 256 -> 1,738 (/ 33,554,432), 512 -> 869, 1,024 -> 434; fp8 twice as many
    base = SizeRequest(model=LLAMA, gpu=H100, context_tokens=1024)
    got = users_vs_context(base, [DType.fp16, DType.fp8], [Allocation.paged, Allocation.reserved])
    assert got == {
        "fp16 paged": [(256, 1738), (512, 869), (1024, 434)],
        "fp16 reserved": [(256, 434), (512, 434), (1024, 434)],
        "fp8 paged": [(256, 3476), (512, 1738), (1024, 869)],
        "fp8 reserved": [(256, 869), (512, 869), (1024, 869)],
    }
    # per GPU: at TP 2 a replica's users over its 2 GPUs
    tp2 = users_vs_context(SizeRequest(model=LLAMA, gpu=H100, context_tokens=256, tp=2),
                           [DType.fp16], [Allocation.paged])
    (point,) = tp2["fp16 paged"]
    assert point[0] == 256 and point[1].denominator in (1, 2) and point[1] > 1738


def test_cache_distribution_of_two_lengths():
    # 4,096 or 8,192 tokens (512 MiB or 1 GiB), a 2.5 GiB pool: at 1% risk 2 conversations
    # (3 overflow with P 1/8); their total is 1, 1.5 or 2 GiB with P 1/4, 1/2, 1/4
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=5 * GIB // 2)
    lengths = Empirical((4096, 8192))
    d = cache_distribution(req, lengths)
    assert (d.users, d.pool_bytes) == (2, 5 * GIB // 2)
    assert d.totals_bytes == [GIB, 3 * GIB // 2, 2 * GIB]
    assert d.probs == pytest.approx([0.25, 0.5, 0.25], abs=1e-12)
    assert d.overflow.probability == 0.0
    three = cache_distribution(req, lengths, users=3)
    assert three.totals_bytes == [3 * GIB // 2, 2 * GIB, 5 * GIB // 2, 3 * GIB]
    assert three.probs == pytest.approx([1 / 8, 3 / 8, 3 / 8, 1 / 8], abs=1e-12)
    assert three.overflow.probability == pytest.approx(1 / 8, abs=1e-12)


def test_cache_distribution_is_binned_to_about_2000_points():
    # every length from 16 to 8,192 in 16s: 512 block counts; 40 conversations span up to
    # 40 x 511 = 20,440 lattice steps; the range kept (mass >= 1e-7 of the peak) is binned in
    # steps of (range // 2,000) lattice units, each bin the mass of its points
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=60 * GIB)
    d = cache_distribution(req, Empirical(tuple(range(16, 8193, 16))), users=40)
    steps = {b - a for a, b in zip(d.totals_bytes, d.totals_bytes[1:], strict=False)}
    assert len(steps) == 1
    (step,) = steps
    assert step % (16 * 131_072) == 0
    units = step // (16 * 131_072)
    assert 2 <= units <= 10
    assert 2000 <= len(d.totals_bytes) <= 4001
    assert (len(d.totals_bytes) - 1) * units // 2000 in (units - 1, units)
    assert sum(d.probs) == pytest.approx(1.0, abs=1e-6)


def test_cache_distribution_of_one_conversation_and_with_a_prefix():
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=5 * GIB // 2)
    one_open = cache_distribution(req, Empirical((4096, 8192)), users=1)
    assert one_open.totals_bytes == [512 * MIB, GIB] and one_open.probs == pytest.approx([0.5, 0.5])
    # 4,096 shared tokens (512 MiB) leave a 2 GiB pool; each conversation then holds 0 or 4,096
    # tokens of its own (0 or 512 MiB)
    shared = cache_distribution(replace(req, shared_prefix_tokens=4096), Empirical((4096, 8192)),
                                users=2)
    assert shared.pool_bytes == 2 * GIB
    assert shared.totals_bytes == [0, 512 * MIB, GIB]


def test_cache_distribution_refusals():
    seventy = SizeRequest(model=load_model("llama-3.1-70b"), gpu=H100, context_tokens=8192)
    with pytest.raises(InputError, match="^weights need "):
        cache_distribution(seventy, Empirical((4096,)))
    req = SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, kv_budget_bytes=5 * GIB // 2)
    with pytest.raises(InputError, match="^no conversation fits at this risk; nothing to draw$"):
        cache_distribution(req, Empirical((4096,)), users=0)
    # a 1 B pool is a pool: it holds no conversation at the risk
    with pytest.raises(InputError, match="^no conversation fits at this risk; nothing to draw$"):
        cache_distribution(replace(req, kv_budget_bytes=1), Empirical((4096, 8192)))


# --- Little's law


def test_concurrency():
    assert concurrency(0.5, 30, 1.5) == 23  # 22.5 -> 23
    assert concurrency("0.1", "30") == 3  # exactly 3 (a float 0.1 x 30 is 3.0000000000000004)
    assert concurrency(1, "0.5") == 1  # 0.5 -> 1; a half-second duration is allowed
    assert concurrency(2, "0.5", 1) == 1
    for rate, duration in ((0, 30), (1, 0), (-1, 30), (1, -2)):
        with pytest.raises(InputError) as err:
            concurrency(rate, duration)
        assert str(err.value) == "arrival rate and mean duration must both be positive"
    with pytest.raises(InputError) as err:
        concurrency(1, 30, "0.5")
    assert str(err.value) == "peak-to-mean must be at least 1, got 0.5"


# --- block probabilities


def test_block_pmf_counts_lengths_from_one_token():
    # ln(length) ~ N(0, 1): half the lengths are below 1 token; all of them are one block
    d = LogNormal(mu=0.0, sigma=1.0)
    pmf = d.block_pmf(16, 64)
    assert pmf[1] == pytest.approx(normal_cdf(math.log(16)), abs=1e-12)  # 0.99722
    assert sum(pmf.values()) == pytest.approx(1.0)
    assert set(pmf) == {1, 2, 3, 4}


@pytest.mark.parametrize("dist", [LogNormal(mu=math.log(1000), sigma=0.8), LogNormal(mu=0.0, sigma=1.0),
                                  LogNormal(mu=math.log(300), sigma=0.0),
                                  Empirical((5, 17, 17, 40, 4000))])
@pytest.mark.parametrize("block", [1, 16])
def test_block_arrays_equal_block_pmf(dist, block: int):
    blocks._GRIDS.clear()
    for cap in (64, 1024, 256, 4096):  # the grid is kept and extended, never redone
        counts, probs = blocks.block_arrays(dist, block, cap)
        pmf = dist.block_pmf(block, cap)
        assert counts.tolist() == list(pmf)
        assert probs.tolist() == list(pmf.values())
        assert counts.dtype == np.int64


def test_the_cdf_grids_are_bounded():
    blocks._GRIDS.clear()
    for i in range(256):
        blocks._cdf_grid(LogNormal(mu=float(i), sigma=1.0), 16, 2)
    assert len(blocks._GRIDS) == 256
    blocks._cdf_grid(LogNormal(mu=-1.0, sigma=1.0), 16, 2)
    assert len(blocks._GRIDS) == 1  # at the bound: cleared, then this one
    blocks._GRIDS.clear()


# --- paged bytes of windowed models, over arrays


def test_paged_bytes_with_sliding_windows():
    # Gemma-2-9B: 21 full and 21 sliding layers (window 4,096) of 8 heads x 256 x 2 x 2 B =
    # 8,192 B a layer a token: 172,032 B a token each kind. 8,192 tokens: 512 blocks full +
    # 256 sliding = 768 x 16 x 172,032; 4,100: 257 + 256 blocks; 2,048: 128 + 128
    gemma = load_model("gemma-2-9b")
    (stage,) = stage_caches(gemma, Precision(DType.fp16), 1, 1)
    got = paged_bytes(stage, gemma, np.array([8192, 4100, 2048], dtype=np.int64), 16, 0)
    assert got.tolist() == [768 * 16 * 172_032, 513 * 16 * 172_032, 256 * 16 * 172_032]
    # Mistral-7B: every layer slides; 8,192 tokens hold the 4,096-token window
    mistral = load_model("mistral-7b-v0.1")
    (stage,) = stage_caches(mistral, Precision(DType.fp16), 1, 1)
    got = paged_bytes(stage, mistral, np.array([8192, 100], dtype=np.int64), 16, 0)
    assert got.tolist() == [4096 * 131_072, 112 * 131_072]


# --- the SLO batch


def test_slo_batch_edges():
    # 1 TB/s x 1/2 efficiency / 40 tokens/s = 12.5 GB a step; less 3 GB of weights: 9 users
    assert slo_batch(3 * 10**9, 10**9, 10**12, Fraction(40), Fraction(1, 2)) == 9
    # room exactly one sequence: 1e12 / 250 - 3e9 = 1e9
    assert slo_batch(3 * 10**9, 10**9, 10**12, Fraction(250)) == 1
    assert slo_batch(1, 0, 10**12, Fraction(40)) == 0  # no cache per sequence: no SLO batch
    assert slo_batch(0, 1, 10**12, Fraction(10**6)) == 10**6  # 1 B a sequence: 1e6 of them


def test_per_gpu_users_of_a_plan():
    plan = plan_traffic(SizeRequest(model=LLAMA, gpu=H100, context_tokens=8192, tp=2),
                        Traffic(peak_users=10))
    assert plan.gpus_per_replica == 2 and plan.per_gpu(3) == Fraction(3, 2)


# --- lattices from arrays


def test_lattice_from_arrays_edges():
    one = SequenceLattice.from_arrays(np.array([GIB], dtype=np.int64), np.array([1.0]))
    assert (one.base_bytes, one.unit_bytes, one.pmf) == (GIB, 1, (1.0,))
    odd = SequenceLattice.from_arrays(np.array([10, 11, 13], dtype=np.int64),
                                      np.array([0.25, 0.25, 0.5]))
    assert (odd.base_bytes, odd.unit_bytes, odd.pmf) == (10, 1, (0.25, 0.25, 0.0, 0.5))
    # weights that do not sum to 1 are normalised, as from_bytes does
    heavy = SequenceLattice.from_arrays(np.array([10, 12, 14], dtype=np.int64),
                                        np.array([1.0, 1.0, 2.0]))
    assert (heavy.unit_bytes, heavy.pmf) == (2, (0.25, 0.25, 0.5))
    assert SequenceLattice.from_bytes({10: 1.0, 12: 1.0, 14: 2.0}).pmf == (0.25, 0.25, 0.5)


# --- the Poisson mixture


def test_poisson_overflow_edges():
    e = math.e
    # a pool of exactly two 1 GiB conversations: two fit, three overflow: P(N >= 3)
    assert overflow_probability_poisson(one(), 2 * GIB, 1.0) == pytest.approx(1 - 2.5 / e, abs=1e-12)
    # half a GiB: even one overflows: P(N >= 1)
    assert overflow_probability_poisson(one(), GIB // 2, 1.0) == pytest.approx(1 - 1 / e, abs=1e-12)
    # 150 GiB at a mean of 100 open: P(N > 150) by direct summation of the Poisson tail
    tail = 1 - sum(math.exp(n * math.log(100) - 100 - math.lgamma(n + 1)) for n in range(151))
    assert overflow_probability_poisson(one(), 150 * GIB, 100.0) == pytest.approx(tail, rel=1e-6)
    # 20 GiB of 512 MiB / 1 GiB conversations at a mean of 2.54 (the sum truncated at 33 open):
    # P = sum_n Poisson(n) x P(Binomial(n, 1/2) > 40 - n), by direct summation
    want = poisson_mixture(two(), 20 * GIB, 2.54)
    assert overflow_probability_poisson(two(), 20 * GIB, 2.54) == pytest.approx(want, abs=1e-9)
    # at a mean of 2.07 the sum stops at 31 open, a transform of exactly 32 points
    want = poisson_mixture(two(), 20 * GIB, 2.07)
    assert overflow_probability_poisson(two(), 20 * GIB, 2.07) == pytest.approx(want, abs=1e-9)


def poisson_mixture(lat: SequenceLattice, pool: int, mean: float) -> float:
    """sum_n Poisson(n) x P(n conversations of 512 MiB or 1 GiB (1/2 each) exceed the pool)."""
    assert (lat.base_bytes, lat.unit_bytes, lat.pmf) == (512 * MIB, 512 * MIB, (0.5, 0.5))
    units = pool // (512 * MIB)
    want = 0.0
    for n in range(1, 80):
        w = math.exp(n * math.log(mean) - mean - math.lgamma(n + 1))
        long_max = units - n  # n x 512 MiB + k x 512 MiB <= pool
        p = 1.0 if long_max < 0 else sum(math.comb(n, k) for k in range(long_max + 1, n + 1)) / 2**n
        want += w * p
    return want


# --- the pmf of a sum


def test_sum_pmf_edges():
    assert sum_pmf(two(), 1) == pytest.approx([0.5, 0.5], abs=1e-12)
    binomial = [1 / 16, 4 / 16, 6 / 16, 4 / 16, 1 / 16]
    assert sum_pmf(two(), 4, limit=5) == pytest.approx(binomial, abs=1e-12)  # 5 points: exact
    normal = sum_pmf(two(), 4, limit=4)  # past the limit: the normal density
    assert normal[2] == pytest.approx(normal_cdf(0.5) - normal_cdf(-0.5), abs=1e-12)
    assert sum_pmf(two(), 4, limit=3)[0] == pytest.approx(normal_cdf(-1.5) - normal_cdf(-2.5))
    # 16 conversations: mean 8, sd 2: P(S = 8) ~ Phi(0.25) - Phi(-0.25)
    wide = sum_pmf(two(), 16, limit=1)
    assert wide[8] == pytest.approx(normal_cdf(0.25) - normal_cdf(-0.25), abs=1e-12)
    assert wide[10] == pytest.approx(normal_cdf(1.25) - normal_cdf(0.75), abs=1e-12)


# --- the risk search's starting point: any guess must leave the answer alone


@pytest.mark.parametrize(("pool", "risk", "users"), [
    (100 * MIB, 0.01, 0),  # below half a 512 MiB step: the normal guess has no root
    (256 * MIB, 0.01, 0),  # exactly half a step
    (768 * MIB, 0.01, 0),  # one short fits, one long does not: P(1 overflows) = 1/2
    (768 * MIB, 0.5, 1),  # ... which a 50% risk accepts (z = 0)
    (3 * 512 * MIB, 0.3, 2),  # two overflow only if both long (1/4)
])
def test_users_at_risk_with_small_pools(pool: int, risk: float, users: int):
    from kvplan.traffic.risk import users_at_risk

    assert users_at_risk(two(), pool, risk).users == users
