"""A small iterative radix-2 FFT in pure Python (no numpy in the core)."""

from __future__ import annotations

import cmath
import math
from collections.abc import Sequence


def next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def fft(values: Sequence[complex | float], inverse: bool = False) -> list[complex]:
    """Discrete Fourier transform of a power-of-two-long sequence (unnormalised).

    Forward: X_j = sum_k x_k exp(-2 pi i j k / N); inverse uses +i (divide by N yourself).
    """
    a = [complex(v) for v in values]
    n = len(a)
    if n & (n - 1):
        raise ValueError(f"FFT length must be a power of two, got {n}")
    j = 0
    for i in range(1, n):  # bit-reversal permutation
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j |= bit
        if i < j:
            a[i], a[j] = a[j], a[i]
    sign = 1.0 if inverse else -1.0
    length = 2
    while length <= n:
        half = length // 2
        step = sign * 2.0 * math.pi / length
        twiddles = [cmath.exp(1j * step * k) for k in range(half)]
        for start in range(0, n, length):
            for k in range(half):
                lo = start + k
                hi = lo + half
                v = a[hi] * twiddles[k]
                u = a[lo]
                a[lo] = u + v
                a[hi] = u - v
        length <<= 1
    return a
