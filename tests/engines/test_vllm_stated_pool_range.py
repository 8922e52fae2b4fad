"""A stated vLLM pool has no range (task h100review).

`--kv-cache-memory-bytes` (and `--kv-budget-gib`, vLLM's --kv-cache-memory) is the pool: vLLM
skips the profiling subtraction, so no activation estimate moves it. kvplan still worked the
low/high range out of the profile: Llama-3.1-70B, TP 4, H200, 90,000,000,000 B printed
"KV cache tokens 1,098,624 (1,248,640 to 1,354,160)", a range that does not hold the point.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kvplan.cli import app


def _row(*args: str) -> dict:
    res = CliRunner().invoke(app, [*args, "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["results"]
    return row


@pytest.mark.parametrize(("args", "tokens"), [
    # 80 layers x 8 KV heads x 128 x 2 (K, V) x 2 B / TP 4 = 81,920 B a token per GPU; 16-token
    # blocks of 1,310,720 B: floor(90,000,000,000 / 1,310,720) = 68,664 blocks = 1,098,624
    (["fleet", "llama-3.1-70b", "--gpu", "h200", "--tp", "4", "--kv-cache-memory-bytes",
      "90000000000", "--context", "32768", "--peak-users", "1000"], 1_098_624),
    # 32 x 8 x 128 x 2 x 2 = 131,072 B a token; 40 GiB / 2,097,152 B a block = 20,480 blocks
    (["size", "llama-3.1-8b", "--gpu", "h100", "--kv-budget-gib", "40", "--context", "8192"],
     327_680),
])
def test_a_stated_pool_is_its_own_range(args: list[str], tokens: int) -> None:
    r = _row(*args, "--engine", "vllm")
    assert r["kv_cache_tokens"] == r["kv_cache_tokens_low"] == r["kv_cache_tokens_high"] == tokens
    assert r["kv_cache_bytes_low"] == r["kv_cache_bytes_high"]


def test_a_profiled_pool_keeps_its_range() -> None:
    r = _row("size", "llama-3.1-8b", "--gpu", "h100", "--context", "8192", "--engine", "vllm")
    assert r["kv_cache_tokens_low"] < r["kv_cache_tokens_high"]
