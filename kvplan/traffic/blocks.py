"""A length distribution's block-count probabilities as numpy arrays, for the lattice.

`LengthDistribution.block_pmf` walks every block count up to the cap in Python and calls the
CDF at each; a fix search asks for the same distribution at many caps (max_model_len
trials). Here the CDF at every block boundary is computed once per (distribution, block
size), kept, and extended when a longer cap asks for more: each cap then costs a few array
operations. The values equal `block_pmf`'s, float for float (same CDF values, same
differences, the same sequential sum to normalise).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from kvplan.traffic.lengths import SQRT2, LengthDistribution, LogNormal
from kvplan.units import ceil_div

if TYPE_CHECKING:
    import numpy as np

_GRIDS: dict[tuple[LengthDistribution, int], list[float]] = {}
_MAX_GRIDS = 256  # distributions kept; a long-lived process starts afresh past this


def _cdf_grid(dist: LengthDistribution, block: int, top: int) -> list[float]:
    """cdf(k x block) for k = 0 .. top - 1 at least (kept per distribution and block)."""
    key = (dist, block)
    grid = _GRIDS.get(key)
    if grid is None:
        if len(_GRIDS) >= _MAX_GRIDS:
            _GRIDS.clear()
        grid = _GRIDS[key] = []
    if len(grid) < top:
        grid.extend(_cdf_at(dist, [k * block for k in range(len(grid), top)]))
    return grid


def _cdf_at(dist: LengthDistribution, tokens: list[int]) -> list[float]:
    """dist.cdf at each length; a lognormal's inlined (the same operations, so the same
    floats as LogNormal.cdf, at a fraction of the calls)."""
    if type(dist) is LogNormal and dist.sigma > 0:
        mu, sigma, log, erf = dist.mu, dist.sigma, math.log, math.erf
        return [0.5 * (1.0 + erf(((log(t) - mu) / sigma) / SQRT2)) if t > 0 else 0.0
                for t in tokens]
    return [dist.cdf(t) for t in tokens]


def block_arrays(
    dist: LengthDistribution, block: int, max_tokens: int
) -> tuple[np.ndarray, np.ndarray]:
    """(block counts k, P(k)): `dist.block_pmf(block, max_tokens)` as two arrays."""
    import numpy as np

    if type(dist).block_pmf is not LengthDistribution.block_pmf:  # its own rule (a sample)
        pmf = dist.block_pmf(block, max_tokens)
        return (np.fromiter(pmf.keys(), dtype=np.int64, count=len(pmf)),
                np.fromiter(pmf.values(), dtype=float, count=len(pmf)))
    top = ceil_div(max_tokens, block)
    below = np.array(_cdf_grid(dist, block, top)[:top])  # cdf((k - 1) x block), k = 1 .. top
    here = np.append(below[1:], 1.0)  # cdf(k x block); the last block takes the rest
    probs = here - below
    counts = np.arange(1, top + 1, dtype=np.int64)
    keep = probs > 0
    counts, probs = counts[keep], probs[keep]
    total = sum(probs.tolist())  # in order, as block_pmf sums
    return counts, probs / total
