"""The at-risk basis can hold more users than the mean basis, both as defined (task h101left,
h100review's finding: 437 vs 434 at a 1,024-token context).

Llama-3-8B on one H100 SXM 80GB, fp16, 16-token blocks, --context 1024, lengths p50 4,000 /
p95 16,000 (a lognormal: mu = ln 4,000, sigma = ln 4 / 1.6449), capped at 1,024 as served:
- pool = floor(85,045,477,376 x 0.9) - 16,060,522,496 weights - 2 GiB = 58,332,923,494 B,
  27,815 whole blocks of 2,097,152 B (16 tokens x 131,072 B);
- mean basis, "every conversation at the mean": the capped mean is 1,009 tokens, which a paged
  pool holds in ceil(1,009 / 16) = 64 blocks (134,217,728 B), so floor(58,332,923,494 /
  134,217,728) = 434, the same as the worst case (1,024 tokens = 64 blocks);
- at-risk basis, "the most open conversations whose total paged cache exceeds the pool with
  probability at most 1%": each conversation holds ceil(its own length / 16) blocks, on average
  63.12 blocks (94.9% of them at the cap, exactly 64; the rest fewer), so 437 overflow 27,815
  blocks with probability 0.308% and 438 with 3.04%: 437.
Rounding the mean's blocks up is the allocator's rule (a conversation of 1,009 tokens does hold
64 blocks); the mean of the blocks (63.12) is below the blocks of the mean (64) when most lengths
sit on a block boundary, as the cap puts them here. Neither basis is capped by the other.
"""

from __future__ import annotations

import json
import math

import numpy as np
from typer.testing import CliRunner

from kvplan.cli import app

POOL = 58_332_923_494
BLOCK = 16 * 131_072
ARGS = ["fleet", "llama-3-8b", "--gpu", "h100", "--context", "1024", "--context-p50", "4000",
        "--context-p95", "16000", "--peak-users", "1000", "-f", "json"]


def _blocks_pmf() -> np.ndarray:
    """P(a conversation holds k blocks), k = 0..64, from the lognormal's CDF at block edges."""
    mu, sigma = math.log(4000), math.log(4) / 1.6448536269514722

    def cdf(x: float) -> float:
        return 0.5 * (1 + math.erf((math.log(x) - mu) / (sigma * math.sqrt(2))))

    p = np.zeros(65)
    for k in range(1, 64):
        p[k] = cdf(16 * k) - cdf(16 * (k - 1)) if k > 1 else cdf(16)
    p[64] = 1 - cdf(16 * 63)
    return p


def _overflow(p: np.ndarray, users: int, blocks: int) -> float:
    size = 1 << math.ceil(math.log2(64 * users + 1))
    total = np.fft.irfft(np.fft.rfft(p, size) ** users, size)
    return float(total[blocks + 1:].sum())


def test_the_independent_arithmetic() -> None:
    assert POOL // BLOCK == 27_815
    assert math.ceil(1009 / 16) == 64 and POOL // (64 * BLOCK) == 434
    p = _blocks_pmf()
    assert abs(float((np.arange(65) * p).sum()) - 63.12) < 0.01
    assert abs(p[64] - 0.949) < 0.001
    assert 0.0030 < _overflow(p, 437, 27_815) < 0.0031
    assert 0.030 < _overflow(p, 438, 27_815) < 0.031  # past 1%: 437 is the at-risk answer


def test_fleet_reports_437_at_risk_beside_434_at_the_mean() -> None:
    res = CliRunner().invoke(app, ARGS)
    assert res.exit_code == 0, res.output
    r = json.loads(res.stdout)["results"][0]
    assert r["kv_budget_bytes"] == POOL
    assert r["avg_context_tokens"] == 1009 and r["kv_bytes_per_sequence"] == 64 * BLOCK
    assert (r["users_per_gpu_mean"], r["users_per_gpu_at_risk"]) == (434, 437)
    assert r["users_per_gpu_worst_case"] == 434 and r["users_per_gpu_planned"] == 437
    assert abs(r["overflow_probability"] - _overflow(_blocks_pmf(), 437, 27_815)) < 1e-5
