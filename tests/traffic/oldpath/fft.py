"""A small iterative radix-2 FFT in pure Python (no numpy in the core).

Each stage runs its butterflies as list comprehensions over slices (a few hundred Python-level
iterations per stage, whatever the length). A zero-padded input skips the first stages: a
conversation's distribution fills a few hundred of the 2^17 points, and until the butterflies
span the non-zero part they only copy values.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Sequence
from functools import lru_cache


def next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _bit_reversed(n: int) -> list[int]:
    """Indices 0..n-1 in bit-reversed order (n a power of two)."""
    idx = [0]
    while len(idx) < n:
        idx = [2 * i for i in idx] + [2 * i + 1 for i in idx]
    return idx


@lru_cache(maxsize=64)
def _twiddles(length: int, sign: float) -> list[complex]:
    step = sign * 2.0 * math.pi / length
    return [cmath.exp(1j * step * k) for k in range(length // 2)]


def fft(values: Sequence[complex | float], inverse: bool = False) -> list[complex]:
    """Discrete Fourier transform of a power-of-two-long sequence (unnormalised).

    Forward: X_j = sum_k x_k exp(-2 pi i j k / N); inverse uses +i (divide by N yourself).
    """
    vals = [complex(v) for v in values]
    n = len(vals)
    if n & (n - 1):
        raise ValueError(f"FFT length must be a power of two, got {n}")
    if n == 0:
        return vals
    # only the first `width` values may be non-zero: after the bit-reversal permutation they
    # sit every n / width places, and the first log2(n / width) stages copy each of them
    # across its block of n / width (a transform of one non-zero value is constant)
    last = max((i for i, v in enumerate(vals) if v != 0), default=0)
    width = next_pow2(last + 1)
    rep = n // width
    a = [v for i in _bit_reversed(width) for v in [vals[i]] * rep]
    sign = 1.0 if inverse else -1.0
    length = 2 * rep
    while length <= n:
        half = length // 2
        tw = _twiddles(length, sign)
        if half <= n // length:  # short blocks: one strided slice per butterfly position
            for k in range(half):
                w = tw[k]
                lo = a[k::length]
                t = [x * w for x in a[k + half::length]]
                a[k::length] = [u + v for u, v in zip(lo, t)]
                a[k + half::length] = [u - v for u, v in zip(lo, t)]
        else:  # long blocks: one slice per block
            for start in range(0, n, length):
                lo = a[start:start + half]
                t = [x * w for x, w in zip(a[start + half:start + length], tw)]
                a[start:start + half] = [u + v for u, v in zip(lo, t)]
                a[start + half:start + length] = [u - v for u, v in zip(lo, t)]
        length <<= 1
    return a


def rfft_half(values: Sequence[float]) -> list[complex]:
    """X_0 .. X_{N/2} of a real sequence of power-of-two length N >= 2, from one complex FFT
    of half the length (even values as real parts, odd as imaginary), then unpacked; the rest
    of the spectrum is conjugate-symmetric: X_{N-j} = conj(X_j)."""
    n = len(values)
    if n < 2 or n & (n - 1):
        raise ValueError(f"length must be a power of two >= 2, got {n}")
    z = fft([complex(a, b) for a, b in zip(values[0::2], values[1::2], strict=True)])
    z.append(z[0])  # z_m = z_0 (period m)
    back = [c.conjugate() for c in reversed(z)]  # back[j] = conj(z_{m - j})
    tw = _half_twiddles(n)
    return [(zj + zc) * 0.5 + w * ((zj - zc) * -0.5j) for zj, zc, w in zip(z, back, tw, strict=True)]


@lru_cache(maxsize=8)
def _half_twiddles(n: int) -> list[complex]:
    """exp(-2 pi i j / n) for j = 0 .. n/2."""
    return [cmath.exp(-2j * math.pi * j / n) for j in range(n // 2 + 1)]
