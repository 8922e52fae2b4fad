"""Overflow risk: the chance that n concurrent conversations need more cache than the pool.

Each conversation's paged cache takes one of finitely many byte sizes (one per block count),
so the n-fold sum lives on a lattice: base x n + unit x (0, 1, 2, ...). Where that lattice is
small enough (n x span <= EXACT_LATTICE_LIMIT points) the CDF of the sum is computed exactly
from the characteristic function (a pure-Python FFT of one conversation's distribution, raised
to the n-th power, summed in closed form below the pool): only floating-point rounding
separates it from the true value. Above the limit the sum is approximated by a normal
distribution, and the Berry-Esseen theorem bounds the error of that CDF at every point by
C x rho / (sigma^3 x sqrt(n)), C = 0.4748 (Shevtsova 2011, i.i.d. summands).
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache, reduce

from kvplan.errors import InputError
from kvplan.traffic.lengths import normal_cdf

from .fft import fft, next_pow2, rfft_half

EXACT_LATTICE_LIMIT = 1 << 18  # points; one FFT of this size takes about a second
BERRY_ESSEEN_C = 0.4748  # Shevtsova (2011), identically distributed summands


@dataclass(frozen=True)
class SequenceLattice:
    """One conversation's cache bytes as base + unit x d, with P(d) in `pmf`."""

    base_bytes: int
    unit_bytes: int
    pmf: tuple[float, ...]
    _phi: dict[int, list[complex]] = field(default_factory=dict, compare=False, repr=False)
    _moments: list[tuple[float, float, float]] = field(
        default_factory=list, compare=False, repr=False
    )

    @classmethod
    def from_bytes(cls, probs: dict[int, float]) -> SequenceLattice:
        """From {bytes of one conversation: probability}."""
        items = {b: p for b, p in probs.items() if p > 0}
        if not items:
            raise InputError("the length distribution has no probability mass")
        base = min(items)
        steps = [b - base for b in items if b != base]
        unit = reduce(math.gcd, steps) if steps else 1
        span = max(steps) // unit if steps else 0
        pmf = [0.0] * (span + 1)
        for b, p in items.items():
            pmf[(b - base) // unit] += p
        total = sum(pmf)
        return cls(base, unit, tuple(p / total for p in pmf))

    @property
    def span(self) -> int:
        return len(self.pmf) - 1

    @property
    def max_bytes(self) -> int:
        return self.base_bytes + self.unit_bytes * self.span

    def moments(self) -> tuple[float, float, float]:
        """Mean, variance and third absolute central moment of d (lattice units; cached)."""
        if not self._moments:
            mu = sum(d * p for d, p in enumerate(self.pmf))
            var = sum((d - mu) ** 2 * p for d, p in enumerate(self.pmf))
            rho = sum(abs(d - mu) ** 3 * p for d, p in enumerate(self.pmf))
            self._moments.append((mu, var, rho))
        return self._moments[0]

    @property
    def mean_bytes(self) -> float:
        return self.base_bytes + self.unit_bytes * self.moments()[0]

    def phi(self, size: int) -> list[complex]:
        """The DFT of the pmf at `size` points, j = 0 .. size/2 (cached). The pmf is real, so
        the rest is conjugate-symmetric: phi_{size - j} = conj(phi_j)."""
        if size not in self._phi:
            padded = list(self.pmf) + [0.0] * (size - len(self.pmf))
            self._phi[size] = rfft_half(padded) if size >= 2 else fft(padded)
        return self._phi[size]


@dataclass(frozen=True)
class RiskEstimate:
    """P(total cache of `users` conversations > pool), and how it was obtained."""

    users: int
    probability: float
    method: str  # "exact", "normal" (Berry-Esseen bound in error_bound), "point-mass"
    error_bound: float = 0.0


def _threshold(lat: SequenceLattice, n: int, pool_bytes: int) -> int:
    """Largest lattice total m with n x base + unit x m <= pool (negative: nothing fits)."""
    room = pool_bytes - n * lat.base_bytes
    return room // lat.unit_bytes if room >= 0 else -1


def exact_cdf(lat: SequenceLattice, n: int, m: int, size: int | None = None) -> float:
    """P(d_1 + ... + d_n <= m) from the characteristic function, without aliasing.

    P(S <= m) = (1/N) sum_j phi_j^n sum_{s=0..m} w^{js}, w = exp(2 pi i / N), with the inner
    geometric sum in closed form; N >= n x span + 1 so that no mass wraps around.
    """
    if m < 0:
        return 0.0
    if m >= n * lat.span:
        return 1.0
    need = n * lat.span + 1
    size = size or next_pow2(need)
    if size < need:
        raise ValueError("FFT size too small for this many conversations")
    phi = lat.phi(size)
    inv = _geometric_denominators(size)
    roots = _roots(size)
    top = m + 1
    half = size // 2
    terms = [(p**n * ((1 - roots[(j * top) % size]) * d)).real
             for j, p, d in zip(range(1, half + 1), phi[1:half + 1], inv[1:half + 1],
                                strict=True)]
    acc = 0.0
    for term in terms[:-1]:  # summed in order, j = 1 .. half - 1 counted twice
        acc += 2 * term
    acc += terms[-1]
    total = float(top)  # j = 0: phi_0 = 1, the geometric sum is m + 1
    return min(1.0, max(0.0, (total + acc) / size))


@lru_cache(maxsize=4)
def _roots(size: int) -> list[complex]:
    """w^k = exp(2 pi i k / size) for k = 0 .. size - 1."""
    step = 2.0 * math.pi / size
    return [cmath.exp(1j * step * k) for k in range(size)]


@lru_cache(maxsize=8)
def _geometric_denominators(size: int) -> list[complex]:
    """1 / (1 - w^j) for j = 0 .. size/2, w = exp(2 pi i / size) (index 0 unused)."""
    step = 2.0 * math.pi / size
    return [0j] + [1 / (1 - cmath.exp(1j * step * j)) for j in range(1, size // 2 + 1)]


def normal_tail(lat: SequenceLattice, n: int, m: int) -> tuple[float, float]:
    """Normal approximation of P(S > m) and its Berry-Esseen bound."""
    mu, var, rho = lat.moments()
    if var == 0:
        return (0.0 if n * mu <= m else 1.0), 0.0
    sd = math.sqrt(var * n)
    z = (m + 0.5 - n * mu) / sd  # S is integer: P(S <= m) = P(S <= m + 0.5)
    bound = BERRY_ESSEEN_C * rho / (var**1.5 * math.sqrt(n))
    return 1.0 - normal_cdf(z), min(1.0, bound)


def overflow_probability(
    lat: SequenceLattice, n: int, pool_bytes: int, limit: int = EXACT_LATTICE_LIMIT
) -> RiskEstimate:
    """P(n conversations' cache > pool): exact where the lattice is small, else normal."""
    if n <= 0:
        return RiskEstimate(n, 0.0, "exact")
    m = _threshold(lat, n, pool_bytes)
    if lat.span == 0:
        return RiskEstimate(n, 0.0 if m >= 0 else 1.0, "point-mass")
    if m < 0:
        return RiskEstimate(n, 1.0, "exact")
    if m >= n * lat.span:
        return RiskEstimate(n, 0.0, "exact")
    if n * lat.span + 1 <= limit:
        return RiskEstimate(n, 1.0 - exact_cdf(lat, n, m), "exact")
    tail, bound = normal_tail(lat, n, m)
    return RiskEstimate(n, tail, "normal", bound)


def users_at_risk(
    lat: SequenceLattice,
    pool_bytes: int,
    risk: float,
    limit: int = EXACT_LATTICE_LIMIT,
    progress: Callable[[], None] | None = None,
) -> RiskEstimate:
    """The largest n with P(total cache of n conversations > pool) <= risk.

    P grows with n (one more conversation never frees memory), so a bisection between the
    worst case (every conversation at its longest: P = 0) and the first n above `risk` finds it.
    Returns the estimate at that n (users 0 when even one conversation is too risky).
    """
    if not 0 < risk < 1:
        raise InputError(f"risk must be between 0 and 1 (0.01 = 1%), got {risk:g}")

    def prob(n: int) -> RiskEstimate:
        if progress is not None:
            progress()
        return overflow_probability(lat, n, pool_bytes, limit)

    floor_n = pool_bytes // lat.max_bytes if lat.max_bytes else 0  # P = 0: certainly fits
    if lat.span == 0:
        return RiskEstimate(floor_n, 0.0, "point-mass")
    cache: dict[int, RiskEstimate] = {}

    def ok(n: int) -> bool:
        if n <= floor_n:
            return True
        if n not in cache:
            cache[n] = prob(n)
        return cache[n].probability <= risk

    # start where the normal approximation puts the answer, then bracket and bisect exactly
    guess = _normal_guess(lat, pool_bytes, risk, floor_n)
    if ok(guess):
        lo, step = guess, 1
        while ok(lo + step):
            lo += step
            step *= 2
        hi = lo + step
    else:
        hi, step = guess, 1
        while not ok(max(floor_n, hi - step)):
            hi = max(floor_n, hi - step)
            step *= 2
        lo = max(floor_n, hi - step)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    if lo in cache:
        return cache[lo]
    return RiskEstimate(lo, 0.0, "exact")


def _normal_guess(lat: SequenceLattice, pool_bytes: int, risk: float, floor_n: int) -> int:
    """Where the normal approximation crosses `risk` (a starting point only)."""
    lo, hi = floor_n, max(floor_n + 1, pool_bytes // max(lat.base_bytes, 1) + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        m = _threshold(lat, mid, pool_bytes)
        if m >= 0 and normal_tail(lat, mid, m)[0] <= risk:
            lo = mid
        else:
            hi = mid
    return max(lo, floor_n + 1)


def poisson_pmf(n: int, mean: float) -> float:
    if mean == 0:
        return 1.0 if n == 0 else 0.0
    return math.exp(n * math.log(mean) - mean - math.lgamma(n + 1))


def overflow_probability_poisson(
    lat: SequenceLattice, pool_bytes: int, mean_concurrency: float
) -> float:
    """P(overflow) when the number of open conversations is Poisson (M/G/infinity).

    With Poisson arrivals and lengths independent of everything else, the open
    conversations at a moment are Poisson(rate x duration) in number (Little's law for the
    mean) and their lengths are i.i.d. draws; so P = sum_n Poisson(n) x P(S_n > pool).
    """
    top = int(mean_concurrency + 12 * math.sqrt(mean_concurrency) + 12)
    size = next_pow2(top * lat.span + 1) if lat.span else 1
    total = 0.0
    for n in range(1, top + 1):
        w = poisson_pmf(n, mean_concurrency)
        m = _threshold(lat, n, pool_bytes)
        if lat.span == 0:
            p = 0.0 if m >= 0 else 1.0
        elif m < 0:
            p = 1.0
        else:
            p = 1.0 - exact_cdf(lat, n, m, size)
        total += w * p
    tail = 1.0 - sum(poisson_pmf(n, mean_concurrency) for n in range(top + 1))
    return min(1.0, total + max(0.0, tail))


def sum_pmf(lat: SequenceLattice, n: int, limit: int = EXACT_LATTICE_LIMIT) -> list[float]:
    """P(d_1 + ... + d_n = s) for s = 0 .. n x span (inverse FFT of phi^n; for plots).

    Above the lattice limit the normal density stands in (same mean and variance).
    """
    if n <= 0:
        return [1.0]
    top = n * lat.span
    if top + 1 <= limit:
        size = next_pow2(top + 1)
        half = lat.phi(size)
        phi = half + [c.conjugate() for c in reversed(half[1:-1])] if size >= 2 else half
        dist = fft([p**n for p in phi], inverse=True)
        return [max(0.0, v.real / size) for v in dist[: top + 1]]
    mu, var, _ = lat.moments()
    sd = math.sqrt(var * n)
    return [
        normal_cdf((s + 0.5 - n * mu) / sd) - normal_cdf((s - 0.5 - n * mu) / sd)
        for s in range(top + 1)
    ]
