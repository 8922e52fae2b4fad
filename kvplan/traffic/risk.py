"""Overflow risk: the chance that n concurrent conversations need more cache than the pool.

Each conversation's paged cache takes one of finitely many byte sizes (one per block count),
so the n-fold sum lives on a lattice: base x n + unit x (0, 1, 2, ...). Where that lattice is
small enough (n x span + 1 <= EXACT_LATTICE_LIMIT points, 2^23) the CDF of the sum is computed exactly
from the characteristic function (numpy's real FFT of one conversation's distribution, raised
to the n-th power, summed in closed form below the pool): only floating-point rounding
separates it from the true value. Above the limit the sum is approximated by a normal
distribution, and the Berry-Esseen theorem bounds the error of that CDF at every point by
C x rho / (sigma^3 x sqrt(n)), C = 0.4748 (Shevtsova 2011, i.i.d. summands).

numpy is imported inside the functions that transform a spread of lengths, never at module
import: a deployment without a spread (one lattice point) plans without it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache, reduce
from typing import TYPE_CHECKING, Any

from kvplan.errors import InputError
from kvplan.traffic.lengths import normal_cdf, normal_quantile
from kvplan.traffic.spectra import keep, recall

if TYPE_CHECKING:
    import numpy as np

# points; one real transform of 2^23 points takes ~0.2 s and ~100 MiB on one core. Until task
# h100review this was 2^18, and SGLang's 1-token pages (span = the whole context) fell to the
# normal approximation on ordinary plans: Mistral-7B on an A100 80GB, 200,000 tokens, 1,000
# Azure conversations capped at 32,768 was planned at 118 users 'overflowing 0.93%'; the exact
# sum says 1.18% at 118, so 117 (0.81%).
EXACT_LATTICE_LIMIT = 1 << 23
# sum_pmf returns every lattice point as a Python list (for plots): kept at the old size
SUM_PMF_LIMIT = 1 << 18
BERRY_ESSEEN_C = 0.4748  # Shevtsova (2011), identically distributed summands


def next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


@dataclass(frozen=True)
class SequenceLattice:
    """One conversation's cache bytes as base + unit x d, with P(d) in `pmf`."""

    base_bytes: int
    unit_bytes: int
    pmf: tuple[float, ...]
    _phi: dict[int, Any] = field(default_factory=dict, compare=False, repr=False)
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

    @classmethod
    def from_arrays(cls, sizes: np.ndarray, probs: np.ndarray) -> SequenceLattice:
        """As `from_bytes`, from parallel arrays of bytes (int64) and probabilities; sizes
        that repeat add their probabilities, in the order given (as the dict would)."""
        import numpy as np

        keep = probs > 0
        sizes, probs = sizes[keep], probs[keep]
        if not len(sizes):
            raise InputError("the length distribution has no probability mass")
        base = int(sizes.min())
        steps = sizes - base
        unit = int(np.gcd.reduce(steps[steps > 0])) if (steps > 0).any() else 1
        index = steps // unit
        span = int(index.max())
        pmf = np.zeros(span + 1)
        np.add.at(pmf, index, probs)
        pmf /= sum(pmf.tolist())  # in order, as from_bytes sums
        return cls(base, unit, tuple(pmf.tolist()))

    @property
    def span(self) -> int:
        return len(self.pmf) - 1

    @property
    def max_bytes(self) -> int:
        return self.base_bytes + self.unit_bytes * self.span

    def moments(self) -> tuple[float, float, float]:
        """Mean, variance and third absolute central moment of d (lattice units; cached)."""
        if not self._moments:
            if self.span == 0:
                self._moments.append((0.0, 0.0, 0.0))
            else:
                import numpy as np

                p = self.array()
                d = np.arange(len(p), dtype=float)
                mu = float(d @ p)
                dev = d - mu
                var = float((dev * dev) @ p)
                rho = float((np.abs(dev) ** 3) @ p)
                self._moments.append((mu, var, rho))
        return self._moments[0]

    @property
    def mean_bytes(self) -> float:
        return self.base_bytes + self.unit_bytes * self.moments()[0]

    def array(self) -> np.ndarray:
        """The pmf as a numpy array (cached)."""
        if -1 not in self._phi:
            import numpy as np

            self._phi[-1] = np.asarray(self.pmf, dtype=float)
        arr: np.ndarray = self._phi[-1]
        return arr

    def phi_array(self, size: int) -> np.ndarray:
        """The DFT of the pmf at `size` points, j = 0 .. size/2 (numpy's rfft; kept a while,
        see _SPECTRA). The pmf is real, so the rest is conjugate-symmetric:
        phi_{size - j} = conj(phi_j)."""
        hit = recall(self, size)
        if hit is not None:
            return hit
        import numpy as np

        if size < len(self.pmf):
            raise ValueError("transform size below the lattice span")
        # a larger transform holds this one at every (larger / size)-th frequency
        for shift in range(1, 8):
            larger = recall(self, size << shift)
            if larger is not None:
                return keep(self, size, larger[:: 1 << shift].copy())
        return keep(self, size, np.fft.rfft(self.array(), n=size))

    def spectrum(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """phi_j and ln |phi_j| for j = 1 .. size/2 (kept with the transform)."""
        log_abs = recall(self, -size)
        phi = self.phi_array(size)[1:]
        if log_abs is None:
            import numpy as np

            with np.errstate(divide="ignore"):
                log_abs = keep(self, -size, np.log(np.abs(phi)))
        return phi, log_abs

    def phi(self, size: int) -> list[complex]:
        """`phi_array` as a list of complex numbers."""
        out: list[complex] = self.phi_array(size).tolist()
        return out


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


# a term of the closed form below e^NEGLIGIBLE_LOG in modulus is left out: each is at most
# e^-80 x N / (2j), so all of them together move P by less than e^-80 x (ln N + 1) < 1e-33
NEGLIGIBLE_LOG = -80.0


def exact_cdf(lat: SequenceLattice, n: int, m: int, size: int | None = None) -> float:
    """P(d_1 + ... + d_n <= m) from the characteristic function, without aliasing.

    P(S <= m) = (1/N) sum_j phi_j^n sum_{s=0..m} w^{js}, w = exp(2 pi i / N), with the inner
    geometric sum in closed form; N >= n x span + 1 so that no mass wraps around. The terms
    j and N - j are conjugate, so j = 1 .. N/2 - 1 count twice and j = N/2 once. Only the
    terms whose |phi_j|^n is not negligible (see NEGLIGIBLE_LOG) are evaluated: for a
    spread of lengths that is a few hundred frequencies next to j = 0.
    """
    if m < 0:
        return 0.0
    if m >= n * lat.span:
        return 1.0
    need = n * lat.span + 1
    size = size or next_pow2(need)
    if size < need:
        raise ValueError("FFT size too small for this many conversations")
    import numpy as np

    phi, log_abs = lat.spectrum(size)
    keep = np.flatnonzero(log_abs > NEGLIGIBLE_LOG / n)  # index i is frequency j = i + 1
    top = m + 1
    j = keep + 1
    step = 2.0 * math.pi / size
    geometric = (1 - np.exp(1j * step * ((j * top) % size))) / (1 - np.exp(1j * step * j))
    terms = (phi[keep] ** n * geometric).real
    terms[j < size // 2] *= 2  # j = N/2 is its own conjugate
    acc = float(terms.sum())
    total = float(top)  # j = 0: phi_0 = 1, the geometric sum is m + 1
    return min(1.0, max(0.0, (total + acc) / size))


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
    """Where the normal approximation crosses `risk` (a starting point only): the largest n
    in [floor_n, pool / base] whose normal tail is at most `risk`, floor_n + 1 at least.

    The tail grows with n, so the crossing solves m(n) + 1/2 = n mu + z sigma sqrt(n), with
    m(n) ~ pool / unit - n base / unit: a quadratic in sqrt(n). Its root, rounded, is walked
    to the exact crossing of the normal tail one step at a time.
    """
    hi = max(floor_n + 1, pool_bytes // max(lat.base_bytes, 1) + 1)  # first n not tried

    def fits(n: int) -> bool:
        m = _threshold(lat, n, pool_bytes)
        return m >= 0 and normal_tail(lat, n, m)[0] <= risk

    mu, var, _ = lat.moments()
    a = mu + lat.base_bytes / lat.unit_bytes
    b = _upper_quantile(risk) * math.sqrt(var)
    c = pool_bytes / lat.unit_bytes - 0.5
    disc = b * b + 4 * a * c
    root = (-b + math.sqrt(disc)) / (2 * a) if a > 0 and disc >= 0 else 0.0
    guess = min(max(floor_n, int(root * root)), hi - 1)
    while guess + 1 < hi and fits(guess + 1):
        guess += 1
    while guess > floor_n and not fits(guess):
        guess -= 1
    return max(guess, floor_n + 1)


@lru_cache(maxsize=64)
def _upper_quantile(risk: float) -> float:
    """z with P(Z > z) = risk (a bisection on erf: kept, risks repeat)."""
    return normal_quantile(1.0 - risk)


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


def sum_pmf(lat: SequenceLattice, n: int, limit: int = SUM_PMF_LIMIT) -> list[float]:
    """P(d_1 + ... + d_n = s) for s = 0 .. n x span (inverse FFT of phi^n; for plots).

    Above the lattice limit the normal density stands in (same mean and variance).
    """
    if n <= 0:
        return [1.0]
    top = n * lat.span
    if top + 1 <= limit:
        import numpy as np

        size = next_pow2(top + 1)
        dist = np.fft.irfft(lat.phi_array(size) ** n, n=size)[: top + 1]
        out: list[float] = np.maximum(dist, 0.0).tolist()
        return out
    mu, var, _ = lat.moments()
    sd = math.sqrt(var * n)
    return [
        normal_cdf((s + 0.5 - n * mu) / sd) - normal_cdf((s - 0.5 - n * mu) / sd)
        for s in range(top + 1)
    ]
