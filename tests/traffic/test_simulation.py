"""A discrete-event simulation checks the analytic overflow probability and Little's law.

Conversations arrive as a Poisson process, hold a lognormal number of tokens (in 16-token
blocks, capped at the context) and stay open for a fixed time D. Every conversation is one
arrival event and one departure event; sample events at t = D, 2D, ... record how many are
open and whether their blocks exceed the pool. With a fixed duration, the conversations open
at two sample times D apart never overlap, so the samples are independent and the binomial
confidence interval is exact; the analytic answer is the Poisson mixture of exact n-fold sums.
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass

import pytest

from kvplan.traffic import LogNormal, SequenceLattice, fit_lognormal, overflow_probability_poisson
from kvplan.traffic.lengths import normal_quantile

BLOCK = 16
MAX_TOKENS = 2048
LENGTHS = fit_lognormal({0.5: 300, 0.95: 1200})
POOL_BLOCKS = 800
DURATION = 1.0
SAMPLES = 4000
Z = normal_quantile(1 - 0.0005)  # two-sided 99.9% interval, per check


@dataclass
class SimResult:
    overflows: int
    samples: int
    time_avg_open: float
    sampled_open: list[int]


def blocks(dist: LogNormal, rng: random.Random) -> int:
    tokens = min(dist.sample(rng), MAX_TOKENS)
    return math.ceil(tokens / BLOCK)


def simulate(rate: float, seed: int) -> SimResult:
    """Event loop over arrivals, departures and sample points, in time order."""
    rng = random.Random(seed)
    # (time, kind, blocks); kind 0 = departure, 1 = sample, 2 = arrival
    events: list[tuple[float, int, int]] = []
    heapq.heappush(events, (rng.expovariate(rate), 2, 0))
    for k in range(1, SAMPLES + 2):
        heapq.heappush(events, (k * DURATION, 1, 0))
    end = (SAMPLES + 1) * DURATION
    open_now, held, last_t, area = 0, 0, 0.0, 0.0
    overflows, sampled = 0, []
    while events:
        t, kind, b = heapq.heappop(events)
        if t > end:
            break
        if t >= DURATION:  # after the first D the system is in steady state
            area += open_now * (t - max(last_t, DURATION))
        last_t = t
        if kind == 2:
            b = blocks(LENGTHS, rng)
            open_now += 1
            held += b
            heapq.heappush(events, (t + DURATION, 0, b))
            heapq.heappush(events, (t + rng.expovariate(rate), 2, 0))
        elif kind == 0:
            open_now -= 1
            held -= b
        elif t > DURATION:  # samples at 2D, 3D, ...: independent windows
            sampled.append(open_now)
            overflows += held > POOL_BLOCKS
    return SimResult(overflows, len(sampled), area / (end - DURATION), sampled)


def lattice() -> SequenceLattice:
    return SequenceLattice.from_bytes(LENGTHS.block_pmf(BLOCK, MAX_TOKENS))


@pytest.mark.parametrize(("rate", "seed"), [(16.0, 1), (20.0, 2), (24.0, 3)])
def test_overflow_probability_matches_simulation(rate: float, seed: int) -> None:
    sim = simulate(rate, seed)
    analytic = overflow_probability_poisson(lattice(), POOL_BLOCKS, rate * DURATION)
    observed = sim.overflows / sim.samples
    half_width = Z * math.sqrt(analytic * (1 - analytic) / sim.samples)
    assert 0.01 < analytic < 0.6  # a load where overflow is neither certain nor negligible
    assert abs(observed - analytic) <= half_width, (rate, observed, analytic, half_width)


@pytest.mark.parametrize(("rate", "seed"), [(16.0, 1), (24.0, 3)])
def test_littles_law_holds_in_the_simulation(rate: float, seed: int) -> None:
    sim = simulate(rate, seed)
    mean_open = rate * DURATION  # L = lambda W
    # Var of the time average of an M/D/inf count over T = c D / T (here c / SAMPLES)
    half_width = Z * math.sqrt(mean_open / SAMPLES)
    assert abs(sim.time_avg_open - mean_open) <= half_width
    sampled_mean = sum(sim.sampled_open) / len(sim.sampled_open)
    assert abs(sampled_mean - mean_open) <= half_width
