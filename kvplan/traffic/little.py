"""Little's law: mean concurrency = arrival rate x mean time in the system."""

from __future__ import annotations

import math
from fractions import Fraction

from kvplan.errors import InputError
from kvplan.units import exact


def concurrency(
    arrival_rate_per_s: float | str | Fraction,
    mean_duration_s: float | str | Fraction,
    peak_to_mean: float | str | Fraction = 1,
) -> int:
    """Peak concurrent conversations: ceil(rate x duration x peak-to-mean).

    Little's law (L = lambda W) holds for any arrival and duration distribution in steady
    state; the peak-to-mean factor scales the mean rate to the busiest period.
    """
    rate, duration, factor = exact(arrival_rate_per_s), exact(mean_duration_s), exact(peak_to_mean)
    if rate <= 0 or duration <= 0:
        raise InputError("arrival rate and mean duration must both be positive")
    if factor < 1:
        raise InputError(f"peak-to-mean must be at least 1, got {float(factor):g}")
    return max(1, math.ceil(rate * duration * factor))
