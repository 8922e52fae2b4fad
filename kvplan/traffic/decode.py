"""Decode speed from the memory-bandwidth bound, and time to first token from prefill FLOPs.

Decode: every step reads this GPU's weights once and every sequence's cache once, so
  step time = (weights bytes + batch x KV bytes per sequence) / (bandwidth x efficiency),
  tokens/s per user = 1 / step time (each user gets one token per step).
Under pipeline parallelism a token crosses every stage in turn, so the stages' times add.
Prefill: about 2 FLOPs per active parameter per prompt token (a matrix multiply-add per
weight), so TTFT = 2 x active params x prompt tokens / (BF16 FLOP/s x efficiency x TP GPUs).
Attention's own FLOPs (quadratic in the prompt), queueing and communication are left out.
"""

from __future__ import annotations

import math
from fractions import Fraction

from kvplan.errors import InputError


def _check(bandwidth_bytes_per_s: int, efficiency: Fraction) -> None:
    if bandwidth_bytes_per_s <= 0:
        raise InputError("memory bandwidth must be positive")
    if not 0 < efficiency <= 1:
        raise InputError(f"efficiency must be in (0, 1], got {float(efficiency):g}")


def decode_step_time_s(
    weights_bytes: int,
    kv_bytes_per_sequence: int,
    batch: int,
    bandwidth_bytes_per_s: int,
    efficiency: Fraction = Fraction(1),
) -> Fraction:
    """Seconds per decode step: bytes read per step / achieved bandwidth (exact)."""
    _check(bandwidth_bytes_per_s, efficiency)
    return Fraction(weights_bytes + batch * kv_bytes_per_sequence) / (
        bandwidth_bytes_per_s * efficiency
    )


def slo_batch(
    weights_bytes: int,
    kv_bytes_per_sequence: int,
    bandwidth_bytes_per_s: int,
    min_tokens_per_s_per_user: Fraction,
    efficiency: Fraction = Fraction(1),
) -> int:
    """The largest batch whose per-user speed is at least the SLO (0: not even one user).

    1 / step >= slo  <=>  weights + b x kv <= bandwidth x efficiency / slo.
    """
    _check(bandwidth_bytes_per_s, efficiency)
    if min_tokens_per_s_per_user <= 0:
        raise InputError("the tokens/s per user target must be positive")
    room = bandwidth_bytes_per_s * efficiency / min_tokens_per_s_per_user - weights_bytes
    if room < kv_bytes_per_sequence or kv_bytes_per_sequence <= 0:
        return 0
    return math.floor(room / kv_bytes_per_sequence)


def ttft_s(
    params_active: int,
    prompt_tokens: int,
    flops: int,
    efficiency: Fraction = Fraction(1),
    tp: int = 1,
) -> Fraction:
    """Time to first token: 2 x active params x prompt tokens / (FLOP/s x efficiency x TP)."""
    if flops <= 0 or tp <= 0:
        raise InputError("FLOP/s and TP must be positive")
    if not 0 < efficiency <= 1:
        raise InputError(f"efficiency must be in (0, 1], got {float(efficiency):g}")
    return Fraction(2 * params_active * prompt_tokens) / (flops * efficiency * tp)
