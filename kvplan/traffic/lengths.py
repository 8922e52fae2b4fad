"""Conversation length distributions: a mean, a lognormal fitted to percentiles, or a sample.

A length is the tokens one conversation holds in the cache: prompt plus output. Every
distribution is capped at the maximum context (an engine stops a conversation there) and
turned into a probability for each number of paged blocks, which is what the pool holds.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kvplan.errors import InputError
from kvplan.units import ceil_div

SQRT2 = math.sqrt(2.0)


def normal_cdf(z: float) -> float:
    """Standard normal CDF from math.erf."""
    return 0.5 * (1.0 + math.erf(z / SQRT2))


def normal_quantile(p: float) -> float:
    """Inverse of the standard normal CDF by bisection on erf (exact to ~1e-15)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"quantile level must be in (0, 1), got {p}")
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if normal_cdf(mid) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return (lo + hi) / 2


class LengthDistribution:
    """Tokens held per conversation; subclasses give the CDF, the mean and samples."""

    kind = "base"

    def cdf(self, tokens: float) -> float:
        """P(length <= tokens) before the cap."""
        raise NotImplementedError

    def mean_tokens(self, max_tokens: int) -> float:
        """Mean length after capping at max_tokens."""
        raise NotImplementedError

    def sample(self, rng: random.Random) -> int:
        """One length in whole tokens (at least 1), uncapped."""
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def block_pmf(self, block_tokens: int, max_tokens: int) -> dict[int, float]:
        """P(a conversation holds k blocks) for k = 1..ceil(max_tokens / block_tokens).

        Lengths are whole tokens of at least 1; the last block also takes every length
        above the cap. Blocks with zero probability are left out.
        """
        top = ceil_div(max_tokens, block_tokens)
        out: dict[int, float] = {}
        prev = self.cdf(0)
        for k in range(1, top + 1):
            here = 1.0 if k == top else self.cdf(k * block_tokens)
            p = here - prev
            if p > 0:
                out[k] = p
            prev = here
        total = sum(out.values())
        return {k: p / total for k, p in out.items()}

    def share_above(self, max_tokens: int) -> float:
        """Probability that a length exceeds the cap (and is cut to it)."""
        return 1.0 - self.cdf(max_tokens)


@dataclass(frozen=True)
class PointMass(LengthDistribution):
    """Every conversation holds the same number of tokens (the mean-only answer)."""

    tokens: int
    kind = "mean"

    def cdf(self, tokens: float) -> float:
        return 1.0 if tokens >= self.tokens else 0.0

    def mean_tokens(self, max_tokens: int) -> float:
        return float(min(self.tokens, max_tokens))

    def sample(self, rng: random.Random) -> int:
        return self.tokens

    def describe(self) -> str:
        return f"every conversation {self.tokens:,} tokens (mean only, no spread)"


@dataclass(frozen=True)
class LogNormal(LengthDistribution):
    """ln(length) ~ Normal(mu, sigma): the usual shape of chat and prompt lengths."""

    mu: float
    sigma: float
    kind = "lognormal"

    def cdf(self, tokens: float) -> float:
        if tokens <= 0:
            return 0.0
        if self.sigma == 0:
            return 1.0 if math.log(tokens) >= self.mu else 0.0
        return normal_cdf((math.log(tokens) - self.mu) / self.sigma)

    def quantile(self, p: float) -> float:
        return math.exp(self.mu + self.sigma * normal_quantile(p))

    def mean_tokens(self, max_tokens: int) -> float:
        """E[min(X, cap)] = E[X; X <= cap] + cap P(X > cap), in closed form."""
        mu, s = self.mu, self.sigma
        if s == 0:
            return min(math.exp(mu), max_tokens)
        ln_cap = math.log(max_tokens)
        partial = math.exp(mu + s * s / 2) * normal_cdf((ln_cap - mu - s * s) / s)
        return partial + max_tokens * (1 - normal_cdf((ln_cap - mu) / s))

    def sample(self, rng: random.Random) -> int:
        return max(1, math.ceil(rng.lognormvariate(self.mu, self.sigma)))

    def describe(self) -> str:
        return _describe_lognormal(self.mu, self.sigma)


@lru_cache(maxsize=256)
def _describe_lognormal(mu: float, sigma: float) -> str:
    """LogNormal.describe, kept: each plan states it, and the quantiles take a bisection."""
    p50, p95, p99 = (math.exp(mu + sigma * normal_quantile(q)) for q in (0.5, 0.95, 0.99))
    return (
        f"lognormal (mu {mu:.4f}, sigma {sigma:.4f}): p50 {p50:,.0f}, "
        f"p95 {p95:,.0f}, p99 {p99:,.0f} tokens"
    )


def fit_lognormal(percentiles: dict[float, float]) -> LogNormal:
    """Least-squares fit of ln(p_q) = mu + sigma z_q over the given percentiles.

    `percentiles` maps a level (0.5, 0.95, 0.99) to tokens. Two points determine the fit
    exactly; three are fitted in the least-squares sense (the log-quantile line).
    """
    if len(percentiles) < 2:
        raise InputError(
            "a lognormal needs at least two percentiles (e.g. --context-p50 and --context-p95)"
        )
    pts = []
    for q, tokens in sorted(percentiles.items()):
        if tokens <= 0:
            raise InputError(f"p{q * 100:g} must be positive, got {tokens}")
        pts.append((normal_quantile(q), math.log(tokens)))
    tokens_in_order = [percentiles[q] for q in sorted(percentiles)]
    if any(b <= a for a, b in zip(tokens_in_order, tokens_in_order[1:], strict=False)):
        raise InputError("percentiles must increase: p50 < p95 < p99")
    zbar = sum(z for z, _ in pts) / len(pts)
    ybar = sum(y for _, y in pts) / len(pts)
    sxx = sum((z - zbar) ** 2 for z, _ in pts)
    sxy = sum((z - zbar) * (y - ybar) for z, y in pts)
    sigma = sxy / sxx
    return LogNormal(mu=ybar - sigma * zbar, sigma=sigma)


def fit_lognormal_mean(
    mean: float, level: float, tokens: float, cap: int | None = None
) -> LogNormal:
    """The lognormal with this mean and this percentile (`level` 0.5, 0.95 or 0.99).

    Without a cap: ln q = mu + z sigma and ln mean = mu + sigma^2 / 2 give
    sigma^2 / 2 - z sigma + ln(q / mean) = 0, and the smaller non-negative root is the fit.
    With a cap (max_model_len), the stated mean is read as the mean of served, capped
    lengths, E[min(X, cap)], and sigma is found by bisection on that. No lognormal exists when
    the percentile is too far above the mean (uncapped: q / mean > exp(z^2 / 2), 3.87x for
    p95, 14.9x for p99) or, for the median, when it is above the mean.
    """
    if mean <= 0 or tokens <= 0:
        raise InputError("the mean and the percentile must be positive")
    z = normal_quantile(level)
    gap = math.log(tokens / mean)
    name = f"p{level * 100:g}"
    median = abs(z) < 1e-12
    if median and gap > 0:
        raise InputError(f"p50 {tokens:,.0f} is above the mean {mean:,.0f}: a lognormal's "
                         "median never is; give two percentiles or a sample instead")
    if not median and gap < 0:
        raise InputError(f"{name} {tokens:,.0f} is below the mean {mean:,.0f}; give two "
                         "percentiles or a sample instead")

    def fitted(sigma: float) -> LogNormal:
        return LogNormal(mu=math.log(tokens) - z * sigma, sigma=sigma)

    if cap is None:
        disc = z * z - 2 * gap
        if disc < 0:
            raise InputError(_no_lognormal(name, tokens, mean, math.exp(z * z / 2)))
        return fitted(math.sqrt(-2 * gap) if median else z - math.sqrt(disc))
    # the capped mean falls as sigma grows towards z (percentile held), or rises for the
    # median: bisect on the side where it crosses the stated mean
    lo, hi = 0.0, (z if not median else 20.0)
    f_lo, f_hi = fitted(lo).mean_tokens(cap) - mean, fitted(hi).mean_tokens(cap) - mean
    if abs(f_lo) <= 1e-9 * mean:  # no spread: exp(ln q) is q only to rounding
        return fitted(lo)
    if (f_lo > 0) == (f_hi > 0):
        means = [fitted(hi * i / 64).mean_tokens(cap) for i in range(65)]
        nearest = min(means, key=lambda m: abs(m - mean))
        raise InputError(
            f"no lognormal with {name} {tokens:,.0f} and lengths capped at {cap:,} has a mean of "
            f"{mean:,.0f} (the nearest is {nearest:,.0f}); give two percentiles (p50 and p95) "
            "or a sample instead")
    for _ in range(200):
        mid = (lo + hi) / 2
        f_mid = fitted(mid).mean_tokens(cap) - mean
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
        if hi - lo < 1e-13:
            break
    return fitted((lo + hi) / 2)


def _no_lognormal(name: str, tokens: float, mean: float, most: float) -> str:
    return (f"{name} {tokens:,.0f} is {tokens / mean:.2f}x the mean {mean:,.0f}: no lognormal "
            f"has that mean and {name} (at most {most:.2f}x); give two percentiles (p50 and "
            "p95) or a sample instead")


@dataclass(frozen=True)
class Empirical(LengthDistribution):
    """A sample of real request lengths; each observed length is equally likely."""

    tokens: tuple[int, ...]
    source: str = "sample"
    kind = "empirical"

    def __post_init__(self) -> None:
        if not self.tokens:
            raise InputError(f"{self.source}: no lengths in the sample")
        object.__setattr__(self, "_sorted", tuple(sorted(self.tokens)))

    def cdf(self, tokens: float) -> float:
        import bisect

        data: tuple[int, ...] = self._sorted  # type: ignore[attr-defined]
        return bisect.bisect_right(data, tokens) / len(data)

    def mean_tokens(self, max_tokens: int) -> float:
        return sum(min(t, max_tokens) for t in self.tokens) / len(self.tokens)

    def sample(self, rng: random.Random) -> int:
        return rng.choice(self.tokens)

    def block_pmf(self, block_tokens: int, max_tokens: int) -> dict[int, float]:
        top = ceil_div(max_tokens, block_tokens)
        counts = Counter(min(ceil_div(t, block_tokens), top) for t in self.tokens)
        n = len(self.tokens)
        return {k: c / n for k, c in sorted(counts.items())}

    def percentile(self, q: float) -> int:
        data: tuple[int, ...] = self._sorted  # type: ignore[attr-defined]
        return data[min(len(data) - 1, max(0, math.ceil(q * len(data)) - 1))]

    def describe(self) -> str:
        return (
            f"{len(self.tokens):,} lengths from {self.source}: p50 {self.percentile(0.5):,}, "
            f"p95 {self.percentile(0.95):,}, p99 {self.percentile(0.99):,} tokens"
        )


def load_sample(path: Path, note: Callable[[str], None] | None = None) -> Empirical:
    """Read request lengths from CSV (with a header), JSONL or one JSON document
    (kvplan/traffic/trace_formats.py: the formats read and the refusals); `note` is told what
    else the file held and the requests left out (task srefirst: until then, in silence)."""
    from kvplan.traffic.trace_formats import Tally, read_lengths

    tally = Tally()
    lengths = read_lengths(path, tally)
    from kvplan.inputs.limits import MAX_CONTEXT_TOKENS

    huge = next((n for n in lengths if n > MAX_CONTEXT_TOKENS), None)
    if huge is not None:
        raise InputError(f"{path}: a request of {huge:,} tokens is beyond the limit of "
                         f"{MAX_CONTEXT_TOKENS:,} (docs/limits.md); is the column right?")
    kept = [n for n in lengths if n > 0]
    if not kept:
        raise InputError(f"{path}: no positive token counts found")
    if note is not None:
        for said in tally.notes(path.name, len(lengths)):
            note(said)
        if len(kept) < len(lengths):
            note(f"{path.name}: {len(lengths) - len(kept):,} of {len(lengths):,} requests hold 0 "
                 "tokens and are left out (no prompt and no output: no cache)")
    return Empirical(tokens=tuple(kept), source=path.name)


def sample_lengths(dist: LengthDistribution, n: int, seed: int = 0) -> Sequence[int]:
    """n lengths drawn with a fixed seed (for simulations and plots)."""
    rng = random.Random(seed)
    return [dist.sample(rng) for _ in range(n)]
